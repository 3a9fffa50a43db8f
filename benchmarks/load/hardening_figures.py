"""The figures of issue 30's findings, measured once on a source tree: run it on the tree
before the hardening and on the tree after (benchmarks/load/hardening-figures.md).

    .venv/bin/python benchmarks/load/hardening_figures.py                      # this tree
    .venv/bin/python benchmarks/load/hardening_figures.py --tree /path/to/before-tree \
        --python /path/to/before-tree/.venv/bin/python

Every figure starts ``arbiter serve`` of ``--tree`` (``--python -m arbiter.cli serve`` in that
directory: its package and its gunicorn config, that environment's dependencies) on a free
loopback port with the settings the finding needs, measures, and stops it: about three minutes
in all. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.load import attacks  # noqa: E402
from devtools.gunicorn_support import HOST, children_of, environment, free_port  # noqa: E402

NEUTRAL = ("ARBITER_", "REDIS_", "PROMETHEUS_", "GUNICORN_")
BOMBS = 30
_QUEUED = re.compile(r"skmem:\(r\d+,rb\d+,t\d+,tb\d+,f\d+,w(\d+),")


class Served:
    """``arbiter serve`` of a tree; its output into a file, or into a pipe nobody reads."""

    python = sys.executable  # the interpreter of the served tree's environment

    def __init__(self, tree: Path, workers: int, stuck: bool = False, **env: str) -> None:
        self.port = free_port()
        self.read_end, write_end = os.pipe()
        self.probe = os.open(f"/proc/self/fd/{write_end}", os.O_WRONLY | os.O_NONBLOCK)
        self.stuck = stuck
        self.chunks: list[bytes] = []
        argv = [self.python, "-m", "arbiter.cli", "serve", "--host", HOST,
                "--port", str(self.port), "--workers", str(workers)]  # fmt: skip
        environ = environment(NEUTRAL, ARBITER_LOG_LEVEL="info", **env)
        self.process = subprocess.Popen(argv, cwd=tree, env=environ, stdout=write_end,
                                        stderr=write_end)  # fmt: skip
        os.close(write_end)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reading = threading.Event()
        self.reading.set()
        self.reader.start()
        deadline = time.monotonic() + 60
        while not self._healthy() or len(children_of(self.process.pid)) != workers:
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the server did not start:\n{self.output()[-2000:]!r}")
            time.sleep(0.1)
        if stuck:  # nobody reads the pipe from now on, and it is full
            self.reading.clear()
            for _ in range(2):  # twice: the reader may have been in a read already
                time.sleep(0.3)
                with contextlib.suppress(BlockingIOError):
                    while True:
                        os.write(self.probe, b"\n")

    def _read(self) -> None:
        while True:
            self.reading.wait()
            chunk = os.read(self.read_end, 1 << 16)
            if not chunk:
                return
            self.chunks.append(chunk)

    def _healthy(self) -> bool:
        with contextlib.suppress(OSError):
            return attacks.ask(self.port, attacks.head("GET /healthz HTTP/1.1"), 5)[0] == 200
        return False

    def output(self) -> bytes:
        return b"".join(self.chunks)

    def workers(self) -> list[int]:
        return sorted(children_of(self.process.pid))

    def stop(self) -> int:
        os.close(self.probe)
        self.reading.set()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            status = self.process.wait(10)
        self.reader.join(10)
        os.close(self.read_end)
        return status


@contextlib.contextmanager
def served(tree: Path, workers: int = 2, stuck: bool = False, **env: str) -> Iterator[Served]:
    server = Served(tree, workers, stuck, **env)
    try:
        yield server
    finally:
        server.stop()


def queued_by_server(port: int) -> list[int]:
    """Bytes queued to send on each of the server's sockets of ``port``, in any state: a socket
    the server has closed with its answer still queued (FIN-WAIT-1, an orphan) holds them too."""
    out = subprocess.run(["ss", "-tmnH", f"( sport = :{port} )"],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    return [int(m.group(1)) for m in _QUEUED.finditer(out)]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --- the findings --------------------------------------------------------------------------------


def unread_answers(tree: Path) -> dict[str, Any]:
    """Finding 1: 100 unread GETs of the bundle and 100 unread steps replays (two workers, the
    defaults): what the server's sockets queue (in any state), 5 s and 25 s after
    (ARBITER_SEND_TIMEOUT is 10 s), and how many of its sockets hold any."""
    out: dict[str, Any] = {}
    with served(tree, ARBITER_API_KEYS="k") as server:
        for name, request in attacks.unread_requests("k").items():
            socks = attacks.open_unread(server.port, request, 100)
            try:
                for at in (5, 25):
                    time.sleep(at - (5 if at == 25 else 0))
                    held = queued_by_server(server.port)
                    out[f"{name}: MiB queued at {at} s"] = round(sum(held) / 2**20, 1)
                    out[f"{name}: sockets holding bytes at {at} s"] = sum(1 for w in held if w)
            finally:
                for sock in socks:
                    sock.close()
        got = attacks.ask(server.port, attacks.head(f"GET {attacks.BUNDLE} HTTP/1.1",
                                                    "Accept-Encoding: gzip"))  # fmt: skip
        out["bundle with Accept-Encoding: gzip"] = got[1].split("\r\n")[1:]
    return out


def full_log_pipe(tree: Path) -> dict[str, Any]:
    """Finding 2: the log pipe full and unread (two workers); one malformed request per worker,
    then five /healthz, each given 10 s."""
    bad = b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n"
    out: dict[str, Any] = {}
    with served(tree, stuck=True, ARBITER_TIMEOUT="30") as server:
        refused = []
        for _ in range(2):
            try:
                with socket.create_connection((HOST, server.port), timeout=10) as sock:
                    sock.sendall(bad)
                    refused.append(attacks.parse_status(sock.recv(65536))[0])
            except OSError as err:
                refused.append(type(err).__name__)  # type: ignore[arg-type]
        out["malformed requests answered"] = refused
        times = []
        for _ in range(5):
            began = time.monotonic()
            try:
                status = attacks.ask(server.port, attacks.head("GET /healthz HTTP/1.1"), 10)[0]
            except OSError as err:
                status = None
                out.setdefault("healthz failures", []).append(type(err).__name__)
            times.append((status, round(time.monotonic() - began, 2)))
        out["healthz (status, s)"] = times
    return out


def fair_batches(tree: Path) -> dict[str, Any]:
    """Finding 3: one worker; a greedy client's ten trickling connections, and an honest
    client's 3-line batch every 0.3 s, 15 of them."""
    keys = f"{attacks.GREEDY_KEY},{attacks.HONEST_KEY}"
    body = b"".join(attacks.game_line(310 + i) + b"\n" for i in range(3))
    with served(tree, workers=1, ARBITER_API_KEYS=keys) as server:
        stop = threading.Event()
        pieces = attacks._pieces(attacks.game_line(301))
        held: list[float] = []

        def greedy() -> None:
            while not stop.is_set():
                began = time.monotonic()
                with contextlib.suppress(OSError):
                    data = attacks._trickle_one(server.port, pieces, stop)
                    if attacks.parse_status(data)[0] == 200:
                        held.append(time.monotonic() - began)
                time.sleep(0.2)

        threads = [threading.Thread(target=greedy, daemon=True) for _ in range(attacks.TRICKLERS)]
        for thread in threads:
            thread.start()
        time.sleep(2 * attacks.PAUSE)
        statuses = []
        for _ in range(15):
            statuses.append(attacks.honest_batch(server.port, body)[0])
            time.sleep(0.3)
        time.sleep(5)
        stop.set()
        for thread in threads:
            thread.join(40)
    return {
        "honest batches answered 200": f"{statuses.count(200)} of {len(statuses)}",
        "honest statuses": statuses,
        "greedy batches answered, seconds held at most": round(max(held, default=0), 1),
    }


def empty_objects(tree: Path) -> dict[str, Any]:
    """Finding 4: 10,000 ``{}`` lines in 68 bytes of gzip (one worker): its CPU per bomb
    (BOMBS one after another, the worker's CPU from /proc), the answer's status and size."""
    request = attacks.empty_objects_bomb("k")
    with served(tree, workers=1, ARBITER_API_KEYS="k") as server:
        (pid,) = server.workers()
        sizes, statuses = [], []
        time.sleep(0.5)
        before = cpu_seconds(pid)
        for _ in range(BOMBS):
            with socket.create_connection((HOST, server.port), timeout=30) as sock:
                sock.sendall(request)
                data, _ = attacks.until_closed(sock)
            sizes.append(len(data))
            statuses.append(attacks.parse_status(data)[0])
        time.sleep(0.5)
        cost = (cpu_seconds(pid) - before) / BOMBS
    return {
        "bytes sent": len(request.partition(b"\r\n\r\n")[2]),
        "status": sorted(set(statuses)),
        "answer bytes": statistics.median(sizes),
        f"worker CPU ms per bomb (mean of {BOMBS})": round(cost * 1000, 2),
    }


def forwarded_clients(tree: Path) -> dict[str, Any]:
    """Finding 5: two workers, 10/minute, the proxy 127.0.0.1 trusted, no Redis: 12 clients of
    distinct X-Forwarded-For, one request each; then one client 20 requests."""
    with served(tree, ARBITER_RATE_LIMIT="10/minute",
                ARBITER_FORWARDED_ALLOW_IPS="127.0.0.1") as server:  # fmt: skip
        twelve = [attacks.ask(server.port, attacks.forwarded_request(f"10.1.0.{i + 1}"))[0]
                  for i in range(12)]  # fmt: skip
        one = [attacks.ask(server.port, attacks.forwarded_request("10.2.0.1"))[0]
               for _ in range(20)]  # fmt: skip
    return {
        "12 clients, one request each: 200s": twelve.count(200),
        "12 clients: 429s": twelve.count(429),
        "one client, 20 requests: 200s": one.count(200),
    }


def plain_logs(tree: Path) -> dict[str, Any]:
    """Finding 6: ARBITER_LOG_JSON=false and gunicorn's access lines too: a path with %0A and
    %1B[2J, and a malformed header with an ESC."""
    with served(tree, workers=1, ARBITER_LOG_JSON="false", ARBITER_ACCESS_LOG="-") as server:
        request = attacks.head(f"GET {attacks.FORGING_PATH} HTTP/1.1", "X-Request-ID: forge-1")
        status = attacks.ask(server.port, request)[0]
        with contextlib.suppress(OSError):
            attacks.ask(server.port, b"GET / HTTP/1.1\r\nHost: x\r\nBad\x1b[2J Header\r\n\r\n")
        time.sleep(2)
    output = server.output()
    faults = attacks.plain_log_faults(output)
    ours = [line for line in output.splitlines() if b"arbiter.access" in line and b"GET /x" in line]
    return {
        "status": status,
        "lines not starting with their stamp (forged)": faults["not stamped"],
        "lines with a raw control character": faults["control characters"],
        "forged [ERROR] line present": bool(re.search(rb"(?m)^2026-01-01 00:00:00,000", output)),
        "app access line has request_id, duration": bool(
            ours and b"request_id=forge-1" in ours[0] and b"duration_ms=" in ours[0]
        ),
    }


def smaller(tree: Path) -> dict[str, Any]:
    """Finding 7: a forged Host on /docs; a batch trickled over ~3 s: its access line."""
    out: dict[str, Any] = {}
    with served(tree, workers=1) as server:
        status, head = attacks.ask(server.port, attacks.forged_host())
        location = re.search(r"(?im)^location: *(.*)$", head)
        out["/docs with Host: evil.example"] = f"{status} {location and location.group(1).strip()}"
        line = attacks.game_line(401) + b"\n"
        with socket.create_connection((HOST, server.port), timeout=30) as sock:
            sock.sendall(attacks.head(f"POST {attacks.BATCH} HTTP/1.1",
                                      f"Content-Type: {attacks.NDJSON}",
                                      "Transfer-Encoding: chunked"))  # fmt: skip
            for _ in range(3):
                sock.sendall(b"%x\r\n%s\r\n" % (len(line), line))
                time.sleep(1.0)
            sock.sendall(b"0\r\n\r\n")
            attacks.until_closed(sock)
        time.sleep(1)
    access = [json.loads(x) for x in server.output().splitlines()
              if b"/v1/scores/batch" in x and x.startswith(b"{")]  # fmt: skip
    app = [a for a in access if a.get("logger") == "arbiter.access"]
    if app:
        fields = ("status", "duration_ms", "outcome", "ended")
        out["batch of ~3 s: its access line"] = {k: app[-1][k] for k in fields if k in app[-1]}
    return out


FINDINGS: dict[str, Callable[[Path], dict[str, Any]]] = {
    "1 unread answers": unread_answers,
    "2 a full log pipe": full_log_pipe,
    "3 fair batches": fair_batches,
    "4 gzip {} bomb": empty_objects,
    "5 forwarded clients": forwarded_clients,
    "6 plain logs": plain_logs,
    "7 Host, batch access line": smaller,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the source tree to serve")
    parser.add_argument("--python", default=sys.executable, help="the tree's interpreter")
    parser.add_argument("--only", nargs="*", default=None, help="findings by number")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    Served.python = args.python
    report: dict[str, Any] = {"tree": str(args.tree)}
    for name, measure in FINDINGS.items():
        if args.only and name.split()[0] not in args.only:
            continue
        began = time.monotonic()
        try:
            report[name] = measure(args.tree)
        except Exception as err:  # a figure that could not be taken is a figure too
            report[name] = {"failed": f"{type(err).__name__}: {err}"}
        print(f"{name} ({time.monotonic() - began:.0f} s): {json.dumps(report[name])}",
              flush=True)  # fmt: skip
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
