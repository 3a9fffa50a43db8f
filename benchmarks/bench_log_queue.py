"""What a queued log line costs a live worker: its resident memory per line waiting for a log
that is not read (arbiter/logpipe.py).

Method: ``arbiter serve --workers 1`` (as ``make run``, ``ARBITER_LOG_LEVEL=info``) writing into
a pipe this script reads while the worker warms up (3,000 requests of ``PATH``), then stops
reading. 600 more requests fill the pipe (the writer's thread now waits on it), and the worker's
VmRSS (``/proc/PID/status``) is read; then ``--lines`` requests, each queueing one access line,
and VmRSS again. The difference over the lines is the figure. Requests are sequential on one
keep-alive connection, so nothing else the worker holds grows with them. With ``--before
PATH``, the same for another source tree (its own gunicorn config and package), first.

    .venv/bin/python benchmarks/bench_log_queue.py --lines 5000 10000 20000 --before /tmp/main
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devtools.gunicorn_support import HOST, environment, free_port  # noqa: E402

WARM_UP = 3000
FILL = 600
PATH = "/v1/rulesets/tute-2p"


class Server:
    """``arbiter serve --workers 1`` of ``tree``, its output into a pipe read on demand."""

    def __init__(self, tree: Path) -> None:
        self.port = free_port()
        self.read_end, write_end = os.pipe()
        os.set_blocking(self.read_end, False)
        env = environment(("ARBITER_", "REDIS_", "PROMETHEUS_"), ARBITER_LOG_LEVEL="info")
        env["PYTHONPATH"] = str(tree)
        argv = [sys.executable, "-m", "arbiter.cli", "serve", "--host", HOST]
        argv += ["--port", str(self.port), "--workers", "1"]
        self.process = subprocess.Popen(argv, cwd=tree, env=env, stdout=write_end, stderr=write_end)
        os.close(write_end)
        self.conn: http.client.HTTPConnection | None = None

    def drain(self) -> None:
        with contextlib.suppress(BlockingIOError):
            while os.read(self.read_end, 1 << 20):
                pass

    def get(self, path: str) -> int:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
        self.conn.request("GET", path)
        response = self.conn.getresponse()
        response.read()
        if response.will_close:
            self.conn.close()
            self.conn = None
        return response.status

    def worker(self) -> int:
        pid = self.process.pid
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        (child,) = children
        return int(child)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            self.drain()
            with contextlib.suppress(OSError, ValueError):
                if self.get("/healthz") == 200 and self.worker():
                    return
            self.conn = None
            time.sleep(0.1)
        raise TimeoutError("the server did not start")

    def stop(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 60
        while self.process.poll() is None and time.monotonic() < deadline:
            self.drain()  # a log read again lets it write and stop
            time.sleep(0.05)
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        os.close(self.read_end)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise LookupError("no VmRSS")


def measure(tree: Path, lines: int) -> tuple[int, int]:
    """The worker's VmRSS (KiB) with the pipe just full, and after ``lines`` more queued."""
    server = Server(tree)
    try:
        server.wait_ready()
        worker = server.worker()
        for i in range(WARM_UP):
            server.get(PATH)
            if i % 50 == 0:
                server.drain()
        time.sleep(0.3)
        server.drain()
        for _ in range(FILL):  # nobody reads from now on
            server.get(PATH)
        time.sleep(0.5)
        full = rss_kib(worker)
        for _ in range(lines):
            server.get(PATH)
        time.sleep(0.5)
        return full, rss_kib(worker)
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, nargs="+", default=[10_000])
    parser.add_argument("--before", type=Path, help="another source tree, measured first")
    args = parser.parse_args()
    trees = [("before", args.before)] if args.before else []
    for name, tree in [*trees, ("this tree", ROOT)]:
        for lines in args.lines:
            full, after = measure(tree, lines)
            grown = (after - full) * 1024
            print(
                f"{name}: {lines:,} lines queued: worker RSS {full:,} -> {after:,} KiB, "
                f"+{grown / 1e6:.1f} MB, {grown / lines:,.0f} B per line"
            )


if __name__ == "__main__":
    main()
