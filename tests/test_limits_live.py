"""The rate limit and the redirects of a live ``arbiter serve`` with two workers, as
``make run`` starts it (no Redis), behind a "proxy": this test, on 127.0.0.1, trusted with
``ARBITER_FORWARDED_ALLOW_IPS``.

- Each client the proxy forwards (``X-Forwarded-For``) has its own budget, the whole of it,
  whichever worker answers; a fresh one is not refused.
- One budget across the two workers (the master's shared file, arbiter/api/limits.py): a
  10/minute budget answers exactly 10. Which worker answers is made certain, not left to how
  the kernel spreads connections: all but one worker are stopped (SIGSTOP) while a client
  sends, so the one left accepts every connection; the access log names the worker that
  answered each request.
- Redirects carry no Host the client wrote (``Location: /docs/``, not ``http://evil.example/``).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

import arbiter
from arbiter.simulate import random_log
from tests import gunicorn_support
from tests.gunicorn_support import ACCESS_FORMAT, Gunicorn

# A live gunicorn of two workers: not in the quick loop.
pytestmark = pytest.mark.slow

BUDGET = 10
WORKERS = 2
MID = random_log("tute-2p", random.Random(5), finish_last=False, stop_after=9)
VALIDATE = orjson.dumps({**MID, "move": arbiter.replay(MID).to_dict()["next"]["legal_moves"][0]})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Gunicorn, Path]]:
    workdir = tmp_path_factory.mktemp("limits-live")
    access = workdir / "access.log"
    env = gunicorn_support.environment(
        ("ARBITER_", "REDIS_", "PROMETHEUS_", "GUNICORN_"),
        ARBITER_WORKERS=str(WORKERS),
        ARBITER_RATE_LIMIT=f"{BUDGET}/minute",
        ARBITER_FORWARDED_ALLOW_IPS="127.0.0.1",
        ARBITER_LOG_LEVEL="info",  # the master says where the counters are
        ARBITER_ACCESS_LOG=str(access),
        GUNICORN_CMD_ARGS=f"--access-logformat '{ACCESS_FORMAT}'",
    )
    started = gunicorn_support.start(workdir / "gunicorn.out", env, workers=WORKERS, serve=True)
    with gunicorn_support.until_stopped(started):
        shared = _shared_directory(started)
        assert shared.is_dir()
        yield started, access
    assert not shared.exists(), "the master left its counters behind"


def _shared_directory(server: Gunicorn) -> Path:
    """Where the master keeps the workers' counters, as it says in its log."""
    said = "the workers share the rate limit's counters in "
    for line in server.output().splitlines():
        if said in line:
            return Path(json.loads(line)["message"].split(said, 1)[1])
    raise AssertionError(f"the master did not say where the counters are:\n{server.tail()}")


def _ask(port: int, client: str, n: int) -> tuple[int, str]:
    """The ``n``-th request of a client behind the proxy: a thin-path validation or a Flask
    route, in turn (one budget for all of /v1/): its status and request id."""
    rid = uuid.uuid4().hex
    headers = {"X-Forwarded-For": f"192.0.2.66, {client}", "X-Request-ID": rid}
    if n % 2:
        answer = gunicorn_support.post_json(port, "/v1/moves/validate", None, headers,
                                            dumps=lambda _: VALIDATE)  # fmt: skip
    else:
        answer = gunicorn_support.request(port, "GET", "/v1/rulesets", headers=headers)
    return answer.status, rid


def test_each_forwarded_client_has_its_own_whole_budget(server: tuple[Gunicorn, Path]) -> None:
    gunicorn, _ = server
    for i in range(12):
        statuses = [_ask(gunicorn.port, f"198.51.100.{i}", n)[0] for n in range(BUDGET + 1)]
        assert statuses == [200] * BUDGET + [429], (i, statuses)
    assert _ask(gunicorn.port, "198.51.100.200", 0)[0] == 200  # a fresh client


@contextlib.contextmanager
def _only(pid: int, workers: set[int]) -> Iterator[None]:
    """Every worker but ``pid`` stopped for the block: ``pid`` accepts every connection."""
    others = workers - {pid}
    for other in others:
        os.kill(other, signal.SIGSTOP)
    try:
        yield
    finally:
        for other in others:
            os.kill(other, signal.SIGCONT)


def test_two_workers_count_one_budget(server: tuple[Gunicorn, Path]) -> None:
    gunicorn, access = server
    workers = gunicorn.wait_workers(WORKERS)
    first, second = sorted(workers)
    client = "203.0.113.7"
    sent: list[tuple[int, str]] = []
    with _only(first, workers):
        sent += [_ask(gunicorn.port, client, n) for n in range(6)]
    with _only(second, workers):
        sent += [_ask(gunicorn.port, client, n) for n in range(6, 12)]
    assert [status for status, _ in sent] == [200] * BUDGET + [429] * 2
    answered_by = _pids(access, [rid for _, rid in sent])
    assert [answered_by[rid] for _, rid in sent] == [first] * 6 + [second] * 6


def _pids(access: Path, rids: list[str], timeout: float = 10.0) -> dict[str, int]:
    """The worker that answered each request, from gunicorn's access log (a line may be
    written just after its answer was read: waited for, bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        found = {}
        for fields in gunicorn_support.access_fields(access):
            if len(fields) == 3 and fields[1] in rids:
                found[fields[1]] = int(fields[0])
        if set(found) == set(rids) or time.monotonic() > deadline:
            assert set(found) == set(rids), "an answer without its access line"
            return found
        time.sleep(0.05)


@pytest.mark.parametrize(("path", "location"), [("/docs", "/docs/"), ("/docs?x=1", "/docs/?x=1")])
def test_redirects_name_no_host_the_client_wrote(
    server: tuple[Gunicorn, Path], path: str, location: str
) -> None:
    gunicorn, _ = server
    for host in ("evil.example", "evil.example:8443", f"127.0.0.1:{gunicorn.port}"):
        answer = gunicorn_support.request(gunicorn.port, "GET", path, headers={"Host": host})
        assert answer.status == 308
        assert answer.headers["location"] == location
        assert b"evil" not in answer.body
