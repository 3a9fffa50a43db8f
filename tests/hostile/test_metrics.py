"""Finding 6: nothing silent — under ``make run``, ``/metrics`` adds up every worker.

``make run`` sets no ``PROMETHEUS_MULTIPROC_DIR``; the server makes a private directory of its
own when it starts (and removes it when it stops), so that a scrape, whichever worker answers
it, counts the requests of both. Which worker answered each request is read from gunicorn's
access log (``%(p)s``): the test goes on until both have, then every scrape must say exactly
how many requests were sent.
"""

from __future__ import annotations

import re
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.gunicorn_support import ACCESS_FORMAT, Gunicorn, access_fields, request
from tests.hostile.conftest import served, wait_until

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
            said = re.search(r"metrics of all workers are added up in ([^\s\"]+)", server.output())
            assert said, server.tail()
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
