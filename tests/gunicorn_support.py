"""The benchmarks' gunicorn helpers (:mod:`benchmarks.gunicorn_support`) with the live tests'
defaults: ready once ``/healthz`` answers 200 (and all ``workers`` are up, if given), three tries
on a fresh port, and a :func:`stop` that fails the test when gunicorn does not stop in time.
Used by tests/test_live_server.py, tests/test_operations_live.py, tests/test_two_workers.py and
tests/hostile/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks import gunicorn_support as shared
from benchmarks.gunicorn_support import (
    BOOT_TIMEOUT,
    HOST,
    STOP_TIMEOUT,
    Answer,
    Gunicorn,
    environment,
    free_port,
    post_json,
    request,
)

__all__ = [
    "HOST",
    "Answer",
    "Gunicorn",
    "environment",
    "free_port",
    "post_json",
    "request",
    "start",
    "stop",
]


def stop(server: Gunicorn, timeout: float = STOP_TIMEOUT) -> int:
    """SIGTERM and the exit status; SIGKILL and :class:`subprocess.TimeoutExpired` when it
    does not stop within ``timeout``."""
    return shared.stop(server, timeout, reraise=True)


def start(
    log: Path,
    env: dict[str, str],
    *,
    workers: int | None = None,
    boot_timeout: float = BOOT_TIMEOUT,
    stop_timeout: float = STOP_TIMEOUT,
    **options: Any,
) -> Gunicorn:
    """``arbiter.wsgi:app`` under the shipped config, once ``/healthz`` answers (``options``:
    ``args``, ``bind_option``, ``capture_stdout``, ``serve`` of
    :func:`benchmarks.gunicorn_support.start`)."""
    return shared.start(
        log,
        env,
        shared.answers("/healthz", workers=workers),
        attempts=3,  # the free port may be taken between the probe and the bind
        boot_timeout=boot_timeout,
        stop_timeout=stop_timeout,
        **options,
    )
