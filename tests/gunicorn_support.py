"""The benchmarks' gunicorn helpers (:mod:`benchmarks.gunicorn_support`) with the live tests'
defaults: ready once ``/healthz`` answers 200 (and all ``workers`` are up, if given), three tries
on a fresh port, and a :func:`stop` that fails the test when gunicorn does not stop in time.
Used by tests/test_live_server.py, tests/test_operations_live.py and tests/test_two_workers.py;
:func:`serving` is the whole life of one server for tests/test_browser.py and tests/test_readme.py.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
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
    "serving",
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
    ``args``, ``bind_option``, ``capture_stdout`` of :func:`benchmarks.gunicorn_support.start`)."""
    return shared.start(
        log,
        env,
        shared.answers("/healthz", workers=workers),
        attempts=3,  # the free port may be taken between the probe and the bind
        boot_timeout=boot_timeout,
        stop_timeout=stop_timeout,
        **options,
    )


@contextlib.contextmanager
def serving(prefix: str, **env: str) -> Iterator[Gunicorn]:
    """The shipped app, one worker unless ``env`` says otherwise (whatever the calling shell
    exports, plus ``env``), its output in a temporary directory; stopped with SIGTERM at the end,
    which must exit 0."""
    environ = environment(ARBITER_LOG_LEVEL="warning", **{"ARBITER_WORKERS": "1", **env})
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        server = start(Path(tmp) / "gunicorn.out", environ)
        try:
            yield server
        finally:
            status = stop(server)
        assert status == 0, f"gunicorn exited with {status} after SIGTERM:\n{server.tail()}"
