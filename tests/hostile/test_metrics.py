"""Finding 6: nothing silent — under ``make run``, ``/metrics`` adds up every worker; and (issue
22, finding 4) a client cannot make ``/metrics`` grow by inventing methods or paths.

``make run`` sets no ``PROMETHEUS_MULTIPROC_DIR``; the server makes a private directory of its
own when it starts (and removes it when it stops), so that a scrape, whichever worker answers
it, counts the requests of both. Which worker answered each request is read from gunicorn's
access log (``%(p)s``): the test goes on until both have, then every scrape must say exactly
how many requests were sent.
"""

from __future__ import annotations

import re
import socket
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.gunicorn_support import ACCESS_FORMAT, HOST, Gunicorn, access_fields, request
from tests.hostile.conftest import read_answer, served, wait_until

# Hostile clients against a live gunicorn (or the real command): the quick loop leaves them out.
pytestmark = pytest.mark.slow

_HEALTHZ_200 = re.compile(
    r'^arbiter_requests_total\{endpoint="/healthz",method="GET",status="200"\} (\S+)$', re.M
)


def _count(server: Gunicorn) -> float:
    text = request(server.port, "GET", "/metrics").body.decode()
    found = _HEALTHZ_200.search(text)
    return float(found.group(1)) if found else 0.0


def _answered_by(access_log: Path, ids: set[str]) -> set[str]:
    pids = set()
    for pid, request_id, *_ in access_fields(access_log):
        if request_id in ids:
            pids.add(pid)
    return pids


def test_metrics_add_up_every_worker() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        access_log = Path(tmp) / "access.log"
        access_log.touch()
        env = {
            "ARBITER_WORKERS": "2",
            "ARBITER_ACCESS_LOG": str(access_log),
            "GUNICORN_CMD_ARGS": f"--access-logformat '{ACCESS_FORMAT}'",
            "ARBITER_LOG_LEVEL": "info",  # the master says where its metrics go
        }
        with served(**env) as server:
            said_where = r"metrics of all workers are added up in ([^\s\"]+)"
            assert wait_until(lambda: re.search(said_where, server.output()), 10), server.tail()
            said = re.search(said_where, server.output())
            assert said is not None
            metrics_dir = Path(said.group(1))
            assert metrics_dir.is_dir() and metrics_dir.name.startswith("arbiter-metrics-")
            counted_before = _count(server)  # the readiness probes of the start
            sent: set[str] = set()

            def healthz(_: int) -> None:
                request_id = uuid.uuid4().hex
                sent.add(request_id)
                headers = {"X-Request-ID": request_id}
                assert request(server.port, "GET", "/healthz", headers=headers).status == 200

            with ThreadPoolExecutor(max_workers=4) as pool:
                while len(sent) < 400:
                    list(pool.map(healthz, range(40)))
                    # the access line may be written just after the answer
                    wait_until(lambda: len(_answered_by(access_log, sent)) == 2, 0.5)
                    if len(_answered_by(access_log, sent)) == 2:
                        break
            assert len(_answered_by(access_log, sent)) == 2, "one worker took every request"
            time.sleep(0.2)
            counts = [_count(server) for _ in range(8)]
            assert counts == [counted_before + len(sent)] * 8, (counts, len(sent))
            assert len(list(metrics_dir.glob("*.db"))) >= 2  # files of both workers
        assert not metrics_dir.exists()  # removed when the server stopped


# --- issue 22, finding 4: labels from closed sets -------------------------------------------

_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_SERIES = re.compile(r"^arbiter_requests_total\{([^}]*)\}", re.M)


def _scrape(server: Gunicorn) -> str:
    answer = request(server.port, "GET", "/metrics")
    assert answer.status == 200
    return answer.body.decode()


def _labels(text: str, name: str) -> set[str]:
    return {m for series in _SERIES.findall(text) for m in re.findall(rf'{name}="([^"]*)"', series)}


def test_random_methods_and_paths_add_no_label_sets(server: Gunicorn) -> None:
    """1,000 requests with random 20-letter methods and random paths (405s and 404s, and
    whatever gunicorn refuses) leave ``/metrics`` about as large as it was: every method no
    route knows is ``other``, every path no route matches ``unmatched``. Before, each method
    token was a label set of its own: 3,000 of them took /metrics from 34 KB to 5.1 MB."""
    import random

    rng = random.Random(22)
    for path in ("/healthz", "/nope", "/v1/replays"):  # the label sets the attack can reach
        for method in ("GET", "PUT"):
            request(server.port, method, path)
    _scrape(server)  # and /metrics itself
    before = _scrape(server)
    with socket.create_connection((HOST, server.port), timeout=10) as sock:
        for i in range(1000):
            method = "".join(rng.choice(_LETTERS) for _ in range(20))
            path = "/" + "".join(rng.choice("abcdefghij/") for _ in range(rng.randint(1, 30)))
            if i % 3 == 0:
                path = "/v1" + path
            head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Length: 0\r\n\r\n"
            try:
                sock.sendall(head.encode())
                answer = read_answer(sock)
            except OSError:
                answer = None
            if answer is None or answer.closed:
                sock.close()
                sock = socket.create_connection((HOST, server.port), timeout=10)
    after = _scrape(server)
    assert len(after) < len(before) + 4096, (len(before), len(after))
    assert _labels(after, "method") <= {"GET", "HEAD", "POST", "OPTIONS", "other"}
    # endpoints: the app's rules (no path the client made up) or unmatched/unparsed
    rules = {"unmatched", "unparsed", "/healthz", "/v1/replays", "/metrics"}
    assert _labels(after, "endpoint") - _labels(before, "endpoint") <= rules
