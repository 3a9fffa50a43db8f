"""gunicorn with the shipped ``deploy/gunicorn.conf.py`` on a free loopback port, for the live tests
(tests/test_live_server.py, tests/test_operations_live.py, tests/test_two_workers.py).

- :func:`environment`: ``os.environ`` without the calling shell's ``ARBITER_*``/``REDIS_*`` (or
  other prefixes), plus the test's own variables.
- :func:`start`: ``python -m gunicorn --config deploy/gunicorn.conf.py ... arbiter.wsgi:app`` on a
  free 127.0.0.1 port (``ARBITER_BIND``, or ``--bind``), its output in a file, once ``/healthz``
  answers 200 (and, if asked, all its workers are up); retried on another port when the one
  probed was taken meanwhile.
- :func:`stop`: SIGTERM (the graceful shutdown a process manager sends) and the exit status;
  SIGKILL and :class:`subprocess.TimeoutExpired` when it does not stop in time.
- :func:`request`, :func:`post_json`: one request on a fresh connection.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.gunicorn_support import Answer, environment, free_port, request

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "deploy" / "gunicorn.conf.py"
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
    "wait_healthy",
]

HOST = "127.0.0.1"
APP = "arbiter.wsgi:app"
BOOT_TIMEOUT = 30.0  # seconds for gunicorn to answer /healthz
STOP_TIMEOUT = 30.0  # graceful_timeout is 20 s; idle workers stop at once


def _json_bytes(payload: Any) -> bytes:
    return json.dumps(payload).encode()


def post_json(
    port: int,
    path: str,
    payload: Any,
    headers: dict[str, str] | None = None,
    *,
    dumps: Callable[[Any], bytes] = _json_bytes,
    timeout: float = 10.0,
) -> Answer:
    """``payload`` encoded by ``dumps`` as a JSON POST on a fresh connection."""
    headers = {"Content-Type": "application/json", **(headers or {})}
    return request(port, "POST", path, dumps(payload), headers, timeout=timeout)


@dataclass
class Gunicorn:
    port: int
    process: subprocess.Popen[bytes]
    log: Path  # what gunicorn wrote

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def tail(self, chars: int = 3000) -> str:
        return self.output()[-chars:]

    def workers(self) -> set[int]:
        """The pids of the master's children (its workers), from /proc."""
        pid = self.process.pid
        try:
            children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        except FileNotFoundError:
            return set()
        return {int(c) for c in children}

    def wait_workers(self, count: int, timeout: float = 15.0) -> set[int]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pids = self.workers()
            if len(pids) == count:
                return pids
            time.sleep(0.05)
        raise TimeoutError(f"gunicorn did not get to {count} workers: {self.workers()}")


def stop(server: Gunicorn, timeout: float = STOP_TIMEOUT) -> int:
    """SIGTERM (unless it has exited) and its exit status; SIGKILL and a re-raised
    :class:`subprocess.TimeoutExpired` when it is still running after ``timeout``."""
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
    try:
        return server.process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait(timeout=10)
        raise


def wait_healthy(
    server: Gunicorn, timeout: float = BOOT_TIMEOUT, workers: int | None = None
) -> None:
    """Until ``/healthz`` answers 200 (and the master has ``workers`` children, if given);
    :class:`RuntimeError` if gunicorn exits meanwhile."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            status = server.process.returncode
            raise RuntimeError(f"gunicorn exited with {status}:\n{server.tail()}")
        try:
            if request(server.port, "GET", "/healthz").status == 200 and (
                workers is None or len(server.workers()) == workers
            ):
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"gunicorn did not answer /healthz within {timeout} s:\n{server.tail()}")


def start(
    log: Path,
    env: dict[str, str],
    *,
    args: Sequence[str] = (),
    bind_option: bool = False,
    capture_stdout: bool = True,
    workers: int | None = None,
    boot_timeout: float = BOOT_TIMEOUT,
    stop_timeout: float = STOP_TIMEOUT,
) -> Gunicorn:
    """gunicorn with the shipped config, the environment ``env`` and the extra options
    ``args``, serving ``arbiter.wsgi:app`` on a free loopback port, once healthy (see
    :func:`wait_healthy`). The address goes in ``ARBITER_BIND``, or with ``bind_option`` in a
    ``--bind`` option. stderr goes to ``log``, and stdout too with ``capture_stdout`` (else to
    /dev/null). Stopped again if it does not boot."""
    env = dict(env)
    for _attempt in range(3):  # the free port may be taken between the probe and the bind
        port = free_port()
        argv = [sys.executable, "-m", "gunicorn", "--config", str(CONFIG)]
        if bind_option:
            argv += ["--bind", f"{HOST}:{port}"]
        else:
            env["ARBITER_BIND"] = f"{HOST}:{port}"
        argv += [*args, APP]
        with log.open("wb") as out:
            stdout = out if capture_stdout else subprocess.DEVNULL
            process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=stdout, stderr=out)
        server = Gunicorn(port, process, log)
        try:
            wait_healthy(server, boot_timeout, workers)
            return server
        except RuntimeError:  # exited during boot: retry on another port
            stop(server, stop_timeout)
            if "in use" not in server.output():  # gunicorn: "Connection in use"
                raise RuntimeError(f"gunicorn failed to boot:\n{server.tail()}") from None
        except BaseException:
            stop(server, stop_timeout)
            raise
    raise RuntimeError("no free loopback port for gunicorn after 3 attempts")
