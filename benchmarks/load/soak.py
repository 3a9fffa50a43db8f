"""A soak: the realistic mix of loadtest.py while hostile clients attack the same server.

Run ``.venv/bin/python benchmarks/load/soak.py`` (about a minute; needs Debian's ``redis-server``:
the run starts a throwaway one of its own on a free port). Everything stays on 127.0.0.1 and
stops by itself.

``arbiter serve`` (as ``make run`` starts it: the shipped ``deploy/gunicorn.conf.py`` and its
defaults), set up as loadtest.py sets it (shared Redis cache, fixed state key, API keys,
multiprocess metrics), with plain-text logs on a pipe nobody reads during the run (issue 30),
read and checked once it is over (no forged line, no control character). For ``--warmup`` +
``--duration`` seconds (3 + 30):

* **ordinary**: ``--clients`` processes run loadtest.py's clients (70 % validations by
  ``state_id``, 20 % archived replays, 10 % scores; every answer checked);
* **slow**: one process holds 30 connections sending a request head a byte a second and 10
  announcing a 1000-byte body and sending 10 bytes, each reopened when the server drops it;
* **bad**: ``--attackers`` processes send, ``--rate`` a second each (10; a flood by volume is
  the rate limiter's business, ``ARBITER_RATE_LIMIT``), the requests of issue 12's
  findings (a 3 MiB chunked body, 111,000 unknown options, gzip on /v1/replays, a 5,000-digit
  number, NaN, a 5 KB request line, a 100 KB header, NUL in a name, a negative Content-Length,
  150,000 empty deals), each of which must get its problem status;
* **batches** (issue 22): ``--batch-attackers`` processes post, one after another, a megabyte
  of gzip holding a GiB of blank lines to ``/v1/scores/batch`` and read each answer (200 ending
  with ``Too many lines`` at line 10,001, or a 429 problem when the worker's batches are all
  taken); one process sends big batches and never reads their answers (each must be reset by
  the server, ``ARBITER_SEND_TIMEOUT`` after its body is read);
* **issue 30** (benchmarks/load/attacks.py): unread answers (the Swagger bundle, ``steps``
  replays), a greedy client trickling batches while an honest one batches, gzip bombs of
  ``{}`` lines, ``%0A``/``%1B`` in paths, a forged Host on ``/docs``, and forwarded clients
  behind a trusted proxy against a rate limit (a second, rate-limited ``arbiter serve``).

Reported: the ordinary requests' count, rate, p50/p95/p99 and errors (the run exits 1 unless
errors are 0), and per hostile request the statuses it got and whether they were the expected
problem. Figures of main and of issue 12's branch: benchmarks/load/README.md.

``--compare N``: instead, N interleaved rounds (``benchmarks/harness.py``) of ``--duration``
seconds of the ordinary traffic alone ("quiet") and with ``--batch-attackers`` blank-line
batches running ("batches"), against one server; the per-round ratios of the replays' p99 (and
of the whole mix's p99 and p50), their median and spread.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import secrets
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from array import array
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arbiter.simulate import random_log  # noqa: E402
from benchmarks import harness  # noqa: E402
from benchmarks.load import attacks  # noqa: E402
from benchmarks.load.loadtest import (  # noqa: E402
    API_KEY,
    ARCHIVE_REPLAY,
    TABLE_REPLAY,
    Clients,
    _get,
    _metric_sum,
    machine,
    make_workloads,
    percentiles,
)
from devtools import gunicorn_support  # noqa: E402
from devtools.gunicorn_support import HOST, dechunked  # noqa: E402
from devtools.redis_server import running  # noqa: E402

SLOW_HEADS, SHORT_BODIES = 30, 10
#: What the answer to a hostile request must be, from its status and head.
Check = Callable[[int | None, str], bool]
#: The rate limit of the forwarded-clients server (per client a minute).
FORWARDED_BUDGET = 10


# --- hostile requests -------------------------------------------------------------------------


def _head(line: str, *fields: str) -> bytes:
    lines = [line, f"Host: {HOST}", f"X-API-Key: {API_KEY}", *fields]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _post(body: bytes, *fields: str) -> bytes:
    fields = ("Content-Type: application/json", f"Content-Length: {len(body)}", *fields)
    return _head("POST /v1/replays HTTP/1.1", *fields) + body


def _chunked(body: bytes) -> bytes:
    step = 65536
    parts = [b"%x\r\n%s\r\n" % (len(body[i : i + step]), body[i : i + step])
             for i in range(0, len(body), step)]  # fmt: skip
    head = _head(
        "POST /v1/replays HTTP/1.1", "Content-Type: application/json", "Transfer-Encoding: chunked"
    )
    return head + b"".join(parts) + b"0\r\n\r\n"


def _problem(*statuses: int) -> Check:
    return lambda status, head: status in statuses and "application/problem+json" in head


def _relative_redirect(status: int | None, head: str) -> bool:
    location = re.search(r"(?im)^location: *(.*)$", head)
    return status in (301, 308) and location is not None and location.group(1).startswith("/")


def hostile_requests() -> dict[str, tuple[bytes, Check]]:
    """The requests of issue 12's findings and issue 30's ({} bombs, control characters in a
    path, a forged Host), as raw bytes, and what their answer must be."""
    import random

    log = random_log("tute-2p", random.Random(12))
    text = orjson.dumps(log)
    options = orjson.dumps({**log, "options": {format(i, "x"): 1 for i in range(111_000)}})
    deals = orjson.dumps({**log, "deals": [{}] * 150_000})
    seat = text.replace(b'"seat":0', b'"seat":' + b"9" * 5000, 1)
    nan = text.replace(b'"seat":0', b'"seat":NaN', 1)
    nul = orjson.dumps({**log, "players": ["ana\x00", "bea"]})
    return {
        "chunked 3 MiB body": (_chunked(b'{"pad":"' + b"x" * 3 * 1024 * 1024 + b'"}'),
                               _problem(413)),
        "111,000 unknown options": (_post(options), _problem(422)),
        "gzip on /v1/replays": (_post(text, "Content-Encoding: gzip"), _problem(415)),
        "5,000-digit seat": (_post(seat), _problem(400)),
        "NaN seat": (_post(nan), _problem(400)),
        "5 KB request line": (_head("GET /" + "a" * 5000 + " HTTP/1.1"), _problem(414)),
        "100 KB Accept-Language": (_head("GET /healthz HTTP/1.1", "A: " + "e" * 100_000),
                                   _problem(431)),
        "NUL in a name": (_post(nul), _problem(422)),
        "negative Content-Length": (
            _head("POST /v1/replays HTTP/1.1", "Content-Length: -5"),
            _problem(400),
        ),
        "150,000 empty deals": (_post(deals), _problem(422)),
        # issue 30: one problem for the bomb (429 when this client's batch slot is taken)
        "gzip 10,000 {} lines": (attacks.empty_objects_bomb(API_KEY), _problem(413, 429)),
        "%0A %1B in a path": (_head(f"GET {attacks.FORGING_PATH} HTTP/1.1"), _problem(404)),
        "forged Host on /docs": (attacks.forged_host(), _relative_redirect),
    }


def _status_of(data: bytes, sock: socket.socket) -> tuple[int | None, str]:
    """Sends ``data`` and reads the answer's status and head."""
    sock.sendall(data)
    got = b""
    while b"\r\n\r\n" not in got:
        chunk = sock.recv(65536)
        if not chunk:
            return None, ""
        got += chunk
    return attacks.parse_status(got)


def bad_main(index: int, port: int, rate: float, end_at: float, results: Any) -> None:
    """One attacker: the hostile requests in turn, each on a new connection, ``rate`` a
    second (or as fast as answered), until end_at."""
    cases = list(hostile_requests().items())
    got: dict[str, Counter[str]] = {name: Counter() for name, _ in cases}
    turn = index
    due = time.time()
    while time.time() < end_at:
        time.sleep(max(0.0, due - time.time()))
        due += 1.0 / rate
        name, (data, check) = cases[turn % len(cases)]
        turn += 1
        try:
            with socket.create_connection((HOST, port), timeout=15) as sock:
                status, head = _status_of(data, sock)
            label = f"{status}" + (" problem" if "application/problem+json" in head else "")
            ok = check(status, head)
        except OSError as err:
            label, ok = type(err).__name__, False
        got[name][("ok " if ok else "UNEXPECTED ") + label] += 1
    results.put({"kind": "bad", "got": {k: dict(v) for k, v in got.items()}})


def slow_main(port: int, end_at: float, results: Any) -> None:
    """The slow connections, kept open (and reopened when dropped) until end_at."""
    selector = selectors.DefaultSelector()
    opened: Counter[str] = Counter()
    dropped: Counter[str] = Counter()

    def open_one(kind: str) -> None:
        with contextlib.suppress(OSError):
            sock = socket.create_connection((HOST, port), timeout=5)
            if kind == "head":
                sock.sendall(f"GET /healthz HTTP/1.1\r\nHost: {HOST}\r\nX-Slow: ".encode())
            else:
                head = _head("POST /v1/replays HTTP/1.1", "Content-Type: application/json",
                             "Content-Length: 1000")  # fmt: skip
                sock.sendall(head + b'{"ruleset"')
            sock.setblocking(False)
            selector.register(sock, selectors.EVENT_READ, kind)
            opened[kind] += 1

    def drop(key: selectors.SelectorKey) -> None:
        selector.unregister(key.fileobj)
        key.fileobj.close()  # type: ignore[union-attr]
        dropped[key.data] += 1
        open_one(key.data)

    for kind, count in (("head", SLOW_HEADS), ("body", SHORT_BODIES)):
        for _ in range(count):
            open_one(kind)
    next_byte = time.time() + 1
    while time.time() < end_at:
        for key, _ in selector.select(timeout=0.1):
            try:
                data = key.fileobj.recv(65536)  # type: ignore[union-attr]
            except OSError:
                data = b""
            if not data:
                drop(key)
        if time.time() >= next_byte:
            next_byte += 1
            for key in list(selector.get_map().values()):
                if key.data == "head":
                    try:
                        key.fileobj.send(b"x")  # type: ignore[union-attr]
                    except OSError:
                        drop(key)
    for key in list(selector.get_map().values()):
        key.fileobj.close()  # type: ignore[union-attr]
    results.put({"kind": "slow", "opened": dict(opened), "dropped": dict(dropped)})


# --- hostile batches (issue 22) --------------------------------------------------------------

BATCH_LINES_LIMIT = 10_000  # ARBITER_BATCH_MAX_LINES's default
BLANK_BATCH, SILENT_BATCH = "blank-line gzip batch", "batch never read"


def blank_bomb() -> bytes:
    """About a megabyte of gzip holding a GiB of blank lines (one 8 MiB member, repeated)."""
    import gzip

    return gzip.compress(b"\n" * (8 * 1024 * 1024), compresslevel=9) * 128


def _batch_head(length: int, *fields: str) -> bytes:
    return _head(
        "POST /v1/scores/batch HTTP/1.1",
        "Content-Type: application/x-ndjson",
        f"Content-Length: {length}",
        *fields,
    )


def _until_closed(sock: socket.socket) -> bytes:
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            data += chunk
    return data


def blank_outcome(data: bytes) -> str:
    """What a blank-line batch got: its label, ``ok ...`` when it is one of the two expected."""
    head, _, rest = data.partition(b"\r\n\r\n")
    fields = head.decode("latin-1").split()
    status = int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None
    if status == 429 and b"application/problem+json" in head:
        return "ok 429 problem"
    if status == 413 and b"application/problem+json" in head and b"MAX_RATIO" in rest:
        return "ok 413 ratio problem"  # issue 30: refused before a line is scored
    body, complete = dechunked(rest) if status == 200 else (b"", False)
    if complete and body:
        last = orjson.loads(body.splitlines()[-1])
        if last["source"] == BATCH_LINES_LIMIT + 1 and last["error"]["title"] == "Too many lines":
            return "ok 200 Too many lines"
    return f"UNEXPECTED {status}"


def blank_batches_main(port: int, end_at: float, results: Any, rate: float = 0.0) -> None:
    """One client posting the blank-line bomb, reading each answer: one after another, or
    ``rate`` a second (0: as fast as they are answered)."""
    bomb = blank_bomb()
    request = _batch_head(len(bomb), "Content-Encoding: gzip") + bomb
    got: Counter[str] = Counter()
    due = time.time()
    while time.time() < end_at:
        if rate > 0:
            time.sleep(max(0.0, due - time.time()))
            due += 1.0 / rate
        try:
            with socket.create_connection((HOST, port), timeout=30) as sock:
                sock.sendall(request)
                got[blank_outcome(_until_closed(sock))] += 1
        except OSError as err:
            got[f"UNEXPECTED {type(err).__name__}"] += 1
    results.put({"kind": "bad", "got": {BLANK_BATCH: dict(got)}})


def silent_batches_main(port: int, end_at: float, results: Any) -> None:
    """Clients, one at a time, that send a batch of some 7 MB of answer and never read it: the
    server must reset each (seen as ECONNRESET in SO_ERROR, nothing read)."""
    import random

    lines = [orjson.dumps(random_log("tute-2p", random.Random(900 + i))) for i in range(200)]
    body = b"".join(line + b"\n" for line in lines) * 30
    request = _batch_head(len(body)) + body
    got: Counter[str] = Counter()
    while time.time() + 15 < end_at:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(30)
        try:
            sock.connect((HOST, port))
            with contextlib.suppress(OSError):  # a reset while sending: what is awaited
                sock.sendall(request)
            waited = time.time() + 30
            reset = False
            while not reset and time.time() < waited:
                reset = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0
                time.sleep(0.2)
            got["ok reset" if reset else "UNEXPECTED not reset in 30 s"] += 1
        except OSError as err:
            got[f"UNEXPECTED {type(err).__name__}"] += 1
        finally:
            sock.close()
    results.put({"kind": "bad", "got": {SILENT_BATCH: dict(got)}})


# --- the run ------------------------------------------------------------------------------------


def server_environment(redis_url: str, workdir: Path, **changes: str) -> dict[str, str]:
    metrics_dir = workdir / "prometheus"
    metrics_dir.mkdir()
    settings = {
        "REDIS_URL": redis_url,
        "ARBITER_STATE_KEY": secrets.token_hex(32),
        "ARBITER_API_KEYS": API_KEY,
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        "ARBITER_LOG_LEVEL": "info",  # as loadtest.py: access lines
    }
    return gunicorn_support.environment(
        ("ARBITER_", "REDIS_", "PROMETHEUS_", "GUNICORN_"), **{**settings, **changes}
    )


READY = gunicorn_support.answers("/healthz", headers={"X-API-Key": API_KEY})


def start_server(redis_url: str, workdir: Path) -> gunicorn_support.Gunicorn:
    """The server of ``--compare``: JSON logs to a file."""
    env = server_environment(redis_url, workdir)
    return gunicorn_support.start(
        workdir / "gunicorn.err", env, READY, capture_stdout=False, attempts=3
    )


class UnreadLog:
    """``arbiter serve`` (as ``make run`` starts it) whose standard output and error are a
    pipe nobody reads during the run (issue 30, finding 2): filled to the brim once the server
    is up, read only once the run is over, while the server stops."""

    def __init__(self, env: dict[str, str], workdir: Path) -> None:
        self.read_end, write_end = os.pipe()
        # our own end, to fill the pipe: opened anew, so that its O_NONBLOCK is not the server's
        self.probe = os.open(f"/proc/self/fd/{write_end}", os.O_WRONLY | os.O_NONBLOCK)
        port = gunicorn_support.free_port()
        argv = [sys.executable, "-m", "arbiter.cli", "serve", "--host", HOST, "--port", str(port)]
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=write_end, stderr=write_end)
        os.close(write_end)
        log = workdir / "server.log"  # what the pipe held, once read
        log.touch()
        self.server = gunicorn_support.Gunicorn(port, process, log)
        try:
            gunicorn_support.wait_ready(self.server, READY, "arbiter serve")
        except BaseException:
            self.stop()
            raise
        self.filled = self.fill()

    def fill(self) -> int:
        """Newlines (no line of the log) into what room the pipe has left; how many."""
        written = 0
        with contextlib.suppress(BlockingIOError):
            while True:
                written += os.write(self.probe, b"\n")
        return written

    def stop(self) -> int:
        """SIGTERM while the pipe is read to its end (SIGKILL after 60 s); the exit status."""
        os.close(self.probe)
        chunks: list[bytes] = []

        def read() -> None:
            while chunk := os.read(self.read_end, 1 << 16):
                chunks.append(chunk)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        process = self.server.process
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            status = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            status = process.wait(timeout=10)
        reader.join(30)
        os.close(self.read_end)
        self.server.log.write_bytes(b"".join(chunks))
        return status


def main_server_env(redis_url: str, workdir: Path) -> dict[str, str]:
    """The soak's server: plain-text logs, gunicorn's access lines too (ARBITER_ACCESS_LOG=-),
    the keys of the two batch clients, a batch slot a worker for each of the three clients
    that batch (the bombers, the greedy one, the honest one: each may hold one a worker)."""
    keys = ",".join((API_KEY, attacks.GREEDY_KEY, attacks.HONEST_KEY))
    return server_environment(redis_url, workdir, ARBITER_API_KEYS=keys, ARBITER_LOG_JSON="false",
                              ARBITER_ACCESS_LOG="-", ARBITER_BATCH_CONCURRENCY="3")  # fmt: skip


def start_forwarded_server(workdir: Path) -> gunicorn_support.Gunicorn:
    """``arbiter serve --workers 2`` behind a proxy on 127.0.0.1, FORWARDED_BUDGET requests a
    minute per client, no key and no Redis: the workers share the host's budget file."""
    env = gunicorn_support.environment(
        ("ARBITER_", "REDIS_", "PROMETHEUS_", "GUNICORN_"),
        ARBITER_WORKERS="2",
        ARBITER_RATE_LIMIT=f"{FORWARDED_BUDGET}/minute",
        ARBITER_FORWARDED_ALLOW_IPS="127.0.0.1",
        ARBITER_LOG_LEVEL="warning",
    )
    ready = gunicorn_support.answers("/healthz", workers=2)
    return gunicorn_support.start(workdir / "forwarded.log", env, ready, serve=True, attempts=3)


def worker_class(server: gunicorn_support.Gunicorn) -> str:
    """The worker class gunicorn says it uses (its line is a JSON object's message)."""
    return server.output().split("Using worker: ", 1)[-1].split()[0].rstrip('"}')


def spawn_hostile(clients: Clients, args: argparse.Namespace, port: int, limited: int) -> None:
    """The hostile mix against ``port`` (and the rate-limited server on ``limited``)."""
    end_at = clients.end_at
    clients.spawn(slow_main, port, end_at, clients.queue)
    for index in range(args.attackers):
        clients.spawn(bad_main, index, port, args.rate, end_at, clients.queue)
    for _ in range(args.batch_attackers):
        clients.spawn(blank_batches_main, port, end_at, clients.queue, args.batch_rate)
    clients.spawn(silent_batches_main, port, end_at, clients.queue)
    clients.spawn(attacks.unread_main, port, API_KEY, args.unread, 25.0, end_at, clients.queue)
    clients.spawn(attacks.greedy_main, port, end_at, clients.queue)
    clients.spawn(attacks.honest_batches_main, port, end_at, clients.queue)
    clients.spawn(attacks.forwarded_main, limited, FORWARDED_BUDGET, end_at, clients.queue)


def run(args: argparse.Namespace) -> dict[str, Any]:
    workloads = make_workloads(args.clients, args.archives, args.games, args.seed)
    report: dict[str, Any] = {"machine": machine(), "params": vars(args)}
    with tempfile.TemporaryDirectory(prefix="arbiter-soak-") as tmp, running() as redis:
        workdir = Path(tmp)
        served = UnreadLog(main_server_env(redis.url, workdir), workdir)
        server = served.server
        processes: list[Any] = []
        limited = None
        try:
            limited = start_forwarded_server(workdir) if args.hostile else None
            clients = Clients.start(1.0, args.warmup, args.duration)
            processes = clients.processes
            clients.table_clients(workloads, server.port, args.seed)
            if limited is not None:
                spawn_hostile(clients, args, server.port, limited.port)
            reports = clients.reports(clients.end_at + 60)
            status, data = _get(server.port, "/metrics")
            events = (
                _metric_sum(data.decode(), "arbiter_cache_events_total") if status == 200 else {}
            )
            report["cache_events"] = {json.loads(k)["kind"]: v for k, v in events.items()}
        finally:
            for process in processes:
                process.join(timeout=5)
                if process.is_alive():
                    process.terminate()
            report["gunicorn_exit"] = served.stop()
            if limited is not None:
                report["forwarded_exit"] = gunicorn_support.stop(limited)
        report["worker"] = worker_class(server)
        report["log"] = {"pipe filled with": served.filled,
                         **attacks.plain_log_faults(server.log.read_bytes())}  # fmt: skip
    report["ordinary"] = ordinary(reports, args.clients, args.duration)
    report["slow"] = (
        next((r for r in reports if r.get("kind") == "slow"), None) if args.hostile else None
    )
    report["bad"] = bad_answers(reports)
    return report


def ordinary(
    reports: list[Any], expected: int, duration: float, kinds: tuple[int, ...] | None = None
) -> dict[str, Any]:
    """The ordinary clients' figures (``kinds``: of those requests only; by index of KINDS)."""
    latencies: list[float] = []
    errors: Counter[str] = Counter()
    samples: list[str] = []
    for r in reports:
        if "latencies" in r:
            for kind, raw in enumerate(r["latencies"]):
                if kinds is None or kind in kinds:
                    values = array("d")
                    values.frombytes(raw)
                    latencies.extend(values)
            errors.update(r["errors"])
            samples.extend(r["error_samples"])
    latencies.sort()
    clients = sum(1 for r in reports if "latencies" in r)
    return {
        "requests": len(latencies),
        "rps": len(latencies) / duration,
        **percentiles(latencies),
        "max_ms": latencies[-1] * 1000 if latencies else float("nan"),
        "errors": sum(errors.values()) + (expected - clients),
        "errors_by_kind": dict(errors),
        "error_samples": samples[:5],
    }


def bad_answers(reports: list[Any]) -> dict[str, dict[str, int]]:
    bad: dict[str, Counter[str]] = {}
    for r in reports:
        if r.get("kind") == "bad":
            for name, got in r["got"].items():
                bad.setdefault(name, Counter()).update(got)
    return {name: dict(got) for name, got in bad.items()}


# --- quiet against attacked rounds ----------------------------------------------------------------

REPLAYS = (TABLE_REPLAY, ARCHIVE_REPLAY)


def compare(args: argparse.Namespace) -> dict[str, Any]:
    """``--compare`` rounds of the ordinary traffic alone and with blank-line batches running,
    interleaved (harness.interleave) against one server; each round's own workload (its seed
    is the round's), so that no round replays logs an earlier one left in the cache."""
    report: dict[str, Any] = {"machine": machine(), "params": vars(args)}
    with tempfile.TemporaryDirectory(prefix="arbiter-soak-") as tmp, running() as redis:
        server = start_server(redis.url, Path(tmp))
        report["worker"] = worker_class(server)
        seeds = iter(range(args.seed, args.seed + 1_000_000))

        def side(batches: int) -> Any:
            def one_round() -> dict[str, Any]:
                seed = next(seeds)
                workloads = make_workloads(args.clients, args.archives, args.games, seed)
                clients = Clients.start(1.0, args.warmup, args.duration)
                try:
                    clients.table_clients(workloads, server.port, seed)
                    for _ in range(batches):
                        clients.spawn(blank_batches_main, server.port, clients.end_at,
                                      clients.queue, args.batch_rate)  # fmt: skip
                    reports = clients.reports(clients.end_at + 60)
                finally:
                    for process in clients.processes:
                        process.join(timeout=5)
                        if process.is_alive():
                            process.terminate()
                return {
                    "all": ordinary(reports, args.clients, args.duration),
                    "replays": ordinary(reports, args.clients, args.duration, REPLAYS),
                    "batches": bad_answers(reports).get(BLANK_BATCH, {}),
                }

            return one_round

        try:
            sides = {"quiet": side(0), "batches": side(args.batch_attackers)}
            rounds = harness.interleave(sides, args.compare, warmup=0)
        finally:
            report["gunicorn_exit"] = gunicorn_support.stop(server)
    report["rounds"] = {name: rounds.measurements[name] for name in rounds.names}
    for label, part, figure in (
        ("replays_p99", "replays", "p99_ms"),
        ("all_p99", "all", "p99_ms"),
        ("all_p50", "all", "p50_ms"),
    ):
        ratio = rounds.ratio("batches", "quiet", lambda m, p=part, f=figure: m[p][f])
        report[label] = {
            "ratio": ratio.to_dict(),
            "quiet": rounds.spread("quiet", lambda m, p=part, f=figure: m[p][f]).to_dict(),
            "batches": rounds.spread("batches", lambda m, p=part, f=figure: m[p][f]).to_dict(),
        }
    return report


def print_comparison(report: dict[str, Any], args: argparse.Namespace) -> None:
    info = report["machine"]
    print()
    print(f"{info['date']}  nproc={info['nproc']}  python {info['python']}  "
          f"gunicorn {info['gunicorn']}  worker {report['worker']}")  # fmt: skip
    pace = f"{args.batch_rate:g}/s each" if args.batch_rate > 0 else "one after another"
    print(f"{args.compare} rounds of {args.warmup:g}+{args.duration:g} s, quiet and with "
          f"{args.batch_attackers} blank-line batch clients ({pace}), interleaved; "
          f"{args.clients} ordinary clients (loadtest.py's mix)")  # fmt: skip
    for label in ("replays_p99", "all_p99", "all_p50"):
        figures = report[label]
        quiet, attacked = (harness.Spread.from_dict(figures[k]) for k in ("quiet", "batches"))
        ratio = harness.Spread.from_dict(figures["ratio"])
        print(f"{label:<12} quiet {quiet} ms  batches {attacked} ms  ratio {ratio}")
    for name in ("quiet", "batches"):
        for n, m in enumerate(report["rounds"][name]):
            print(f"  {name:<8} round {n}: replays p99 {m['replays']['p99_ms']:.2f} ms "
                  f"({m['replays']['requests']} replays), all p99 {m['all']['p99_ms']:.2f} ms, "
                  f"errors {m['all']['errors']}, batches {m['batches']}")  # fmt: skip
    print(f"gunicorn exit {report['gunicorn_exit']}")


def print_report(report: dict[str, Any], args: argparse.Namespace) -> None:
    info = report["machine"]
    print()
    print(f"{info['date']}  nproc={info['nproc']}  python {info['python']}  "
          f"gunicorn {info['gunicorn']}  worker {report['worker']}")  # fmt: skip
    print(f"ordinary: {args.clients} clients (loadtest.py's mix)  hostile: "
          + (f"{SLOW_HEADS} slow heads + {SHORT_BODIES} short bodies, {args.attackers} "
             f"attackers of bad requests x {args.rate:g}/s" if args.hostile else "none")
          + f"  warmup={args.warmup:g}s duration={args.duration:g}s")  # fmt: skip
    o = report["ordinary"]
    print(f"ordinary requests {o['requests']}  req/s {o['rps']:.1f}  p50 {o['p50_ms']:.2f} ms  "
          f"p95 {o['p95_ms']:.2f} ms  p99 {o['p99_ms']:.2f} ms  max {o['max_ms']:.1f} ms  "
          f"errors {o['errors']}")  # fmt: skip
    for sample in o["error_samples"]:
        print(f"  error: {sample}")
    if report["slow"]:
        s = report["slow"]
        print(f"slow connections opened {s['opened']}, dropped by the server {s['dropped']}")
    for name, got in report["bad"].items():
        print(f"  {name:<26} " + ", ".join(f"{k}: {v}" for k, v in sorted(got.items())))
    print(f"state cache events (all traffic): {report.get('cache_events')}")
    print(f"log pipe, unread during the run, read after it: {report['log']}")
    print(f"gunicorn exit {report['gunicorn_exit']}, forwarded server's exit "
          f"{report.get('forwarded_exit')}")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=30.0, help="timed seconds")
    parser.add_argument("--warmup", type=float, default=3.0, help="untimed seconds first")
    parser.add_argument("--clients", type=int, default=4, help="ordinary client processes")
    parser.add_argument("--attackers", type=int, default=2, help="processes of bad requests")
    parser.add_argument("--rate", type=float, default=10.0, help="bad requests/s per attacker")
    parser.add_argument("--batch-attackers", type=int, default=2,
                        help="processes posting blank-line gzip batches")  # fmt: skip
    parser.add_argument("--batch-rate", type=float, default=0.0,
                        help="blank-line batches/s per process (0: one after another)")  # fmt: skip
    parser.add_argument("--unread", type=int, default=20,
                        help="unread bundle GETs (and steps replays) held at once")  # fmt: skip
    parser.add_argument("--compare", type=int, default=0, metavar="ROUNDS",
                        help="quiet against batch-attacked rounds, interleaved")  # fmt: skip
    parser.add_argument("--no-hostile", dest="hostile", action="store_false",
                        help="ordinary traffic only (the baseline)")  # fmt: skip
    parser.add_argument("--archives", type=int, default=1500, help="archived logs per client")
    parser.add_argument("--games", type=int, default=60, help="table games per client")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.compare:
        report = compare(args)
        print_comparison(report, args)
        if args.json is not None:
            report["params"] = {k: str(v) for k, v in vars(args).items()}
            args.json.write_text(json.dumps(report, indent=2, default=str) + "\n")
        unexpected = sum(
            n
            for rounds in report["rounds"].values()
            for m in rounds
            for k, n in m["batches"].items()
            if k.startswith("UNEXPECTED")
        )
        errors = sum(m["all"]["errors"] for rounds in report["rounds"].values() for m in rounds)
        return 1 if errors or unexpected or report["gunicorn_exit"] else 0
    report = run(args)
    print_report(report, args)
    if args.json is not None:
        report["params"] = {k: str(v) for k, v in vars(args).items()}
        args.json.write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    bad_answers = sum(
        n for got in report["bad"].values() for k, n in got.items() if k.startswith("UNEXPECTED")
    )
    log = report["log"]
    forged = log["not stamped"] + log["control characters"]
    failed = report["ordinary"]["errors"] or bad_answers or forged
    return 1 if failed or report["gunicorn_exit"] or report.get("forwarded_exit") else 0


if __name__ == "__main__":
    raise SystemExit(main())
