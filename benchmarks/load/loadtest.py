"""Load test of the shipped deployment with a realistic mix of requests and the real Redis.

Run ``.venv/bin/python benchmarks/load/loadtest.py`` (see README.md beside this file). Everything
stays on 127.0.0.1; a round of one configuration takes ``warmup + duration`` plus about 4 s
(a 1 s sample of the machine's background load, gunicorn's boot and stop), so the default run
(3 configurations x 3 interleaved rounds x (3 + 12) s) ends in about 3 minutes.

For each round of each configuration of ``--configs`` (default: one sync worker, two sync
workers, two gthread workers of four threads), a gunicorn is started with
``deploy/gunicorn.conf.py`` on a free loopback port, set up as in production (deploy/k8s,
deploy/Dockerfile): the shared Redis state cache (``REDIS_URL``: a throwaway ``redis-server``
that the run starts on a free loopback port, emptied before each round, and a fixed
``ARBITER_STATE_KEY``), an API key,
``PROMETHEUS_MULTIPROC_DIR``, JSON access logs at INFO (to a file). ``--clients``
load-generator processes (forked, one simulated client each, closed loop, keep-alive
``http.client`` connections that reconnect when the server closes them, as sync workers do
after every answer) then send, for ``--warmup`` untimed seconds and ``--duration`` timed
seconds, this mix:

* 70 %: a move of the client's own table, validated **by state_id** (``POST
  /v1/moves/validate`` with ``{"state_id", "move"}``). Each client plays games: it replays the
  log of a started game (``POST /v1/replays``, 0-8 events of the first deal), checks that the
  next move of its game is among the answer's ``next.legal_moves``, then validates the game's
  moves one by one with the ``state_id`` of the previous answer; when a deal is over it replays
  its grown log with the next deal's cards to get the new deal's ``state_id``; 5 % of the
  validated plays are sent for the wrong seat (an ``out_of_turn`` verdict, the state unchanged).
  The replays of these games are counted as ``replay (table)``.
* 20 %: ``POST /v1/replays`` of a complete archived log (1-3 deals of any ruleset, some with
  renuncios), a different log every time (pools generated before anything is timed).
* 10 %: ``POST /v1/scores`` of such a log.

Every answer is checked: status 200, the verdict and ``state_id`` of a validation, the next
move among the legal ones. Anything else is an error (the run exits 1 if there is any). At the
end of each round ``GET /metrics`` must count exactly the requests the clients sent.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import multiprocessing as mp
import os
import platform
import random
import secrets
import signal
import statistics
import sys
import tempfile
import time
from array import array
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arbiter.simulate import random_log  # noqa: E402
from devtools import gunicorn_support  # noqa: E402
from devtools.gunicorn_support import HOST, Gunicorn  # noqa: E402
from devtools.redis_server import RedisProcess, RedisServerError, running  # noqa: E402

API_KEY = "load-test-key-" + "0" * 16

#: Request kinds, in report order.
KINDS = ("validate", "replay (table)", "replay (archive)", "scores")
VALIDATE, TABLE_REPLAY, ARCHIVE_REPLAY, SCORES = range(4)
MIX = (0.70, 0.20, 0.10)  # validate by state_id, full-log replay, scores
WRONG_SEAT_RATE = 0.05
ARCHIVE_RULESETS = (
    ("tute-2p", 2),
    ("tute-3p", 3),
    ("tute-4p", 4),
    ("tute-cabron", 3),
    ("tute-gana-pierde", 4),
)
TABLE_RULESETS = (("tute-2p", 2), ("tute-4p", 4), ("tute-3p", 3))
NAMES = ("ana", "bea", "carlos", "dani", "elena", "fermin", "gloria", "hugo", "irene", "juan")


# --- workload, generated before anything is timed --------------------------------------------


def _names(rng: random.Random, n: int) -> list[str]:
    return [f"{name}{rng.randrange(1000)}" for name in rng.sample(NAMES, n)]


def archive_log(rng: random.Random) -> bytes:
    ruleset, players = rng.choice(ARCHIVE_RULESETS)
    log = random_log(
        ruleset,
        rng,
        players=players,
        deals=rng.choice((1, 1, 2, 3)),
        renuncio_rate=rng.choice((0.0, 0.0, 0.02, 0.1)),
    )
    log["players"] = _names(rng, players)
    return orjson.dumps(log)


def table_game(rng: random.Random) -> dict[str, Any]:
    ruleset, players = rng.choice(TABLE_RULESETS)
    game = random_log(ruleset, rng, players=players, deals=rng.choice((1, 2, 3)))
    game["players"] = _names(rng, players)
    return game


@dataclass
class Workload:
    """One client's logs: archives to replay or score, and games to play at its table."""

    archives: list[bytes]
    games: list[dict[str, Any]]


def make_workloads(clients: int, archives: int, games: int, seed: int) -> list[Workload]:
    out = []
    for index in range(clients):
        rng = random.Random(f"{seed}-{index}")
        out.append(
            Workload(
                [archive_log(rng) for _ in range(archives)],
                [table_game(rng) for _ in range(games)],
            )
        )
    return out


# --- one client ---------------------------------------------------------------------------------


class Unexpected(Exception):
    """An answer that is not what the scenario expects."""


class Http:
    """A keep-alive connection that reconnects when the server has closed it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=10)
        self.headers = {"Content-Type": "application/json", "X-API-Key": API_KEY}
        self.retries = 0
        self.connects = 0

    def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        for attempt in (0, 1):
            reused = self.conn.sock is not None
            if not reused:
                self.connects += 1
            try:
                self.conn.request("POST", path, body, self.headers)
                response = self.conn.getresponse()
                return response.status, response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.conn.close()
                # a kept-alive connection the server closed meanwhile: resend once, fresh
                if not reused or attempt:
                    raise
                self.retries += 1
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.conn.close()


class Table:
    """An online table: plays its games move by move, validating each move by state_id."""

    def __init__(self, workload: Workload, rng: random.Random) -> None:
        self.games = iter(workload.games)
        self.rng = rng
        self.game: dict[str, Any] | None = None
        self.deal = 0
        self.event = 0
        self.state_id: str | None = None
        self.generated_games = 0

    def _next_game(self) -> dict[str, Any]:
        while True:
            game = next(self.games, None)
            if game is None:  # the pool is used up: a new one (costs the client ~0.5 ms)
                self.generated_games += 1
                game = table_game(self.rng)
            if all(deal["events"] for deal in game["deals"]):
                return game

    def step(self, conn: Http) -> int:
        """One request of the table; returns its kind."""
        if self.game is None:
            self.game = self._next_game()
            self.deal = 0
            # join after 0-8 events (fewer when the deal is shorter, e.g. ended by a tute)
            self.event = self.rng.randrange(0, min(9, len(self.game["deals"][0]["events"])))
            self.state_id = None
        deals = self.game["deals"]
        if self.state_id is None:  # (re)join the table: replay the log so far
            log = dict(self.game)
            log["deals"] = [*deals[: self.deal], {**deals[self.deal], "events": []}]
            log["deals"][-1]["events"] = deals[self.deal]["events"][: self.event]
            status, data = conn.post("/v1/replays", orjson.dumps(log))
            if status != 200:
                raise Unexpected(f"table replay: {status} {data[:200]!r}")
            answer = orjson.loads(data)
            expected = deals[self.deal]["events"][self.event]
            if answer["next"] is None or expected not in answer["next"]["legal_moves"]:
                raise Unexpected(f"table replay: {expected} not in {answer['next']}")
            if not answer["state_id"]:
                raise Unexpected("table replay: no state_id")
            self.state_id = answer["state_id"]
            return TABLE_REPLAY
        move = dict(deals[self.deal]["events"][self.event])
        wrong = move["type"] == "play" and self.rng.random() < WRONG_SEAT_RATE
        if wrong:
            move["seat"] = (move["seat"] + 1) % len(self.game["players"])
        body = orjson.dumps({"state_id": self.state_id, "move": move})
        status, data = conn.post("/v1/moves/validate", body)
        if status != 200:
            raise Unexpected(f"validate: {status} {data[:200]!r}")
        answer = orjson.loads(data)
        if wrong:
            if answer["verdict"] != "illegal" or answer["code"] != "out_of_turn":
                raise Unexpected(f"validate (wrong seat): {answer}")
            return VALIDATE
        if answer["verdict"] != "ok" or not answer["state_id"]:
            raise Unexpected(f"validate: {answer}")
        self.state_id = answer["state_id"]
        self.event += 1
        if self.event == len(deals[self.deal]["events"]):  # the deal is over
            self.deal += 1
            self.event = 0
            self.state_id = None  # the next deal's cards are only in the grown log
            if self.deal == len(deals):
                self.game = None
        return VALIDATE

    def next_kind(self) -> int:
        return TABLE_REPLAY if self.game is None or self.state_id is None else VALIDATE

    def reset(self) -> None:
        """After an error: start a new game."""
        self.game = None


def client_main(
    index: int,
    port: int,
    workload: Workload,
    seed: int,
    start_at: float,
    warm_end: float,
    end_at: float,
    results: Any,
) -> None:
    """One simulated client: closed loop until ``end_at`` (``time.time()`` clock)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    rng = random.Random(f"{seed}-client-{index}")
    conn = Http(port)
    table = Table(workload, rng)
    archives = workload.archives
    next_archive = 0
    latencies = [array("d") for _ in KINDS]
    sent: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    samples: list[str] = []
    cpu_start = cpu_end = None
    reused_archives = 0
    while time.time() < start_at:
        time.sleep(0.005)
    while True:
        now = time.time()
        if now >= end_at:
            break
        if cpu_start is None and now >= warm_end:
            cpu_start = time.process_time()
        pick = rng.random()
        began = time.perf_counter()
        wall_began = time.time()
        kind = VALIDATE
        try:
            if pick < MIX[0]:
                kind = table.next_kind()
                kind = table.step(conn)
            else:
                kind = ARCHIVE_REPLAY if pick < MIX[0] + MIX[1] else SCORES
                body = archives[next_archive % len(archives)]
                if next_archive >= len(archives):
                    # the pool is used up: the same games under other names, a log the
                    # server has not seen (its state ids cover the players' names)
                    reused_archives += 1
                    lap = next_archive // len(archives)
                    body = body.replace(b'"players":["', b'"players":["r%d-' % lap, 1)
                next_archive += 1
                path = "/v1/replays" if kind == ARCHIVE_REPLAY else "/v1/scores"
                status, data = conn.post(path, body)
                if status != 200:
                    raise Unexpected(f"{path}: {status} {data[:200]!r}")
        except Exception as err:  # any failure is counted, and the client goes on
            errors[KINDS[kind]] += 1
            if len(samples) < 5:
                samples.append(f"{KINDS[kind]}: {type(err).__name__}: {err}"[:400])
            table.reset()
            conn.close()
            sent[KINDS[kind]] += 1
            continue
        finally:
            elapsed = time.perf_counter() - began
        sent[KINDS[kind]] += 1
        finished = wall_began + elapsed
        if wall_began >= warm_end and finished <= end_at:
            latencies[kind].append(elapsed)
    cpu_end = time.process_time()
    conn.close()
    results.put(
        {
            "index": index,
            "latencies": [a.tobytes() for a in latencies],
            "sent": dict(sent),
            "errors": dict(errors),
            "error_samples": samples,
            "cpu_s": cpu_end - (cpu_start if cpu_start is not None else cpu_end),
            "retries": conn.retries,
            "connects": conn.connects,
            "reused_archives": reused_archives,
            "generated_games": table.generated_games,
        }
    )


# --- the server -----------------------------------------------------------------------------------


@dataclass
class Config:
    label: str
    worker_class: str
    workers: int
    threads: int = 1


def parse_configs(text: str) -> list[Config]:
    """``sync:1,sync:2,gthread:2x4`` (class:workers[xthreads])."""
    out = []
    for item in text.split(","):
        worker_class, _, shape = item.strip().partition(":")
        workers, _, threads = shape.partition("x")
        config = Config(item.strip(), worker_class, int(workers), int(threads or 1))
        config.label = (
            f"{worker_class} {config.workers} worker{'s' if config.workers > 1 else ''}"
            + (f" x {config.threads} threads" if config.threads > 1 else "")
        )
        out.append(config)
    return out


@dataclass
class Server(Gunicorn):
    metrics_dir: Path

    def pids(self) -> list[int]:
        return [self.process.pid, *sorted(self.workers())]

    def cpu_seconds(self) -> float:
        return sum(cpu_seconds(pid) for pid in self.pids())


@dataclass
class Clients:
    """The client processes of a run (forked), the queue they report to, and the run's clock:
    they start together ``lead`` seconds from now, warm up, then are timed until ``end_at``."""

    ctx: Any
    queue: Any
    start_at: float
    warm_end: float
    end_at: float
    processes: list[Any] = field(default_factory=list)

    @classmethod
    def start(cls, lead: float, warmup: float, duration: float) -> Clients:
        ctx = mp.get_context("fork")
        start_at = time.time() + lead
        return cls(ctx, ctx.Queue(), start_at, start_at + warmup, start_at + warmup + duration)

    def spawn(self, target: Callable[..., None], *args: Any) -> None:
        """A daemon process running ``target(*args)``."""
        process = self.ctx.Process(target=target, args=args, daemon=True)
        process.start()
        self.processes.append(process)

    def table_clients(self, workloads: list[Workload], port: int, seed: int) -> None:
        """One :func:`client_main` per workload."""
        for index, workload in enumerate(workloads):
            self.spawn(client_main, index, port, workload, seed, self.start_at, self.warm_end,
                       self.end_at, self.queue)  # fmt: skip

    def reports(self, deadline: float) -> list[Any]:
        """What the processes reported, until each has or ``deadline`` (time.time()) passes."""
        reports: list[Any] = []
        while len(reports) < len(self.processes) and time.time() < deadline:
            with contextlib.suppress(Exception):
                reports.append(self.queue.get(timeout=1))
        return reports


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process (and of its reaped children), from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    ticks = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def machine_busy_seconds() -> float:
    """CPU seconds spent busy by the whole machine (every CPU), from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")  # up to steal, no guest


def start_server(config: Config, redis_url: str, state_key: str, workdir: Path) -> Server:
    metrics_dir = workdir / "prometheus"
    metrics_dir.mkdir(exist_ok=True)
    env = gunicorn_support.environment(
        ("ARBITER_", "REDIS_", "PROMETHEUS_", "GUNICORN_"),
        ARBITER_WORKERS=str(config.workers),
        ARBITER_WORKER_CLASS=config.worker_class,
        REDIS_URL=redis_url,
        ARBITER_STATE_KEY=state_key,
        ARBITER_API_KEYS=API_KEY,
        PROMETHEUS_MULTIPROC_DIR=str(metrics_dir),
        ARBITER_LOG_LEVEL="info",
        ARBITER_LOG_JSON="true",
    )
    if config.threads > 1:  # deploy/gunicorn.conf.py has no variable for it
        env["GUNICORN_CMD_ARGS"] = f"--threads {config.threads}"
    ready = gunicorn_support.answers(
        "/healthz", workers=config.workers, headers={"X-API-Key": API_KEY}
    )
    server = gunicorn_support.start(
        workdir / "gunicorn.err", env, ready, capture_stdout=False, attempts=3
    )
    if f"Using worker: {config.worker_class}" not in server.output():
        stop_server(server)
        raise RuntimeError(f"gunicorn does not use {config.worker_class}")
    return Server(server.port, server.process, server.log, metrics_dir)


def stop_server(server: Gunicorn) -> int:
    return gunicorn_support.stop(server)


def _get(port: int, path: str) -> tuple[int, bytes]:
    answer = gunicorn_support.request(port, "GET", path, headers={"X-API-Key": API_KEY})
    return answer.status, answer.body


# --- one configuration --------------------------------------------------------------------------


@dataclass
class Result:
    config: Config
    duration: float
    latencies: list[list[float]] = field(default_factory=list)
    sent: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    client_cpu_s: float = 0.0
    server_cpu_s: float = 0.0
    redis_cpu_s: float = 0.0
    machine_busy_s: float = 0.0
    background_pct: list[float] = field(default_factory=list)
    rounds_rps: list[float] = field(default_factory=list)
    retries: int = 0
    connects: int = 0
    reused_archives: int = 0
    generated_games: int = 0
    server_counted: float = 0.0
    cache_events: dict[str, float] = field(default_factory=dict)
    exit_status: int | None = None

    def all_latencies(self) -> list[float]:
        return sorted(x for kind in self.latencies for x in kind)

    def summary(self) -> dict[str, Any]:
        every = self.all_latencies()
        out: dict[str, Any] = {
            "config": self.config.label,
            "requests": len(every),
            "rps": len(every) / self.duration,
            **percentiles(every),
            "errors": sum(self.errors.values()),
            "server_cpu_pct": self.server_cpu_s / self.duration * 100,
            "server_cpu_us_per_request": self.server_cpu_s / max(len(every), 1) * 1e6,
            "client_cpu_pct": self.client_cpu_s / self.duration * 100,
            "redis_cpu_pct": self.redis_cpu_s / self.duration * 100,
            "machine_busy_pct": self.machine_busy_s / self.duration * 100,
            "other_cpu_pct": (
                self.machine_busy_s - self.server_cpu_s - self.client_cpu_s - self.redis_cpu_s
            )
            / self.duration
            * 100,
            "rounds_rps": self.rounds_rps or [len(every) / self.duration],
            "median_round_rps": statistics.median(self.rounds_rps or [len(every) / self.duration]),
            "background_cpu_pct": self.background_pct,
            "kinds": {},
        }
        for kind, values in zip(KINDS, self.latencies, strict=True):
            ordered = sorted(values)
            out["kinds"][kind] = {
                "requests": len(ordered),
                "share_pct": len(ordered) / max(len(every), 1) * 100,
                **percentiles(ordered),
            }
        return out


def percentiles(ordered: list[float]) -> dict[str, float]:
    def nearest_rank(q: float) -> float:
        if not ordered:
            return float("nan")
        rank = max(1, round(q * len(ordered) + 0.5))
        return ordered[min(rank, len(ordered)) - 1] * 1000

    return {
        "p50_ms": nearest_rank(0.50),
        "p95_ms": nearest_rank(0.95),
        "p99_ms": nearest_rank(0.99),
    }


def _metric_sum(text: str, name: str, **labels: str) -> dict[str, float]:
    """Samples of ``name`` whose labels include ``labels``, by their full label set."""
    from prometheus_client.parser import text_string_to_metric_families

    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                out[json.dumps(sample.labels, sort_keys=True)] = float(sample.value)
    return out


def run_config(
    config: Config, args: argparse.Namespace, workloads: list[Workload], redis: RedisProcess
) -> Result:
    redis.flush()  # every round starts with an empty cache
    redis_url, redis_pid = redis.url, redis.pid()
    state_key = secrets.token_hex(32)
    result = Result(config, args.duration)
    # what the rest of the machine is doing, before anything of this run starts
    busy, began = machine_busy_seconds(), time.monotonic()
    time.sleep(1.0)
    result.background_pct = [(machine_busy_seconds() - busy) / (time.monotonic() - began) * 100]
    with tempfile.TemporaryDirectory(prefix="arbiter-load-") as tmp:
        server = start_server(config, redis_url, state_key, Path(tmp))
        clients = Clients.start(0.5, args.warmup, args.duration)
        processes = clients.processes
        try:
            clients.table_clients(workloads, server.port, args.seed)
            time.sleep(max(0.0, clients.warm_end - time.time()))
            server_cpu = server.cpu_seconds()
            redis_cpu = cpu_seconds(redis_pid) if redis_pid else 0.0
            busy = machine_busy_seconds()
            time.sleep(max(0.0, clients.end_at - time.time()))
            result.server_cpu_s = server.cpu_seconds() - server_cpu
            result.redis_cpu_s = (cpu_seconds(redis_pid) - redis_cpu) if redis_pid else 0.0
            result.machine_busy_s = machine_busy_seconds() - busy
            deadline = time.time() + 30
            reports = clients.reports(deadline)
            for process in processes:
                process.join(timeout=max(0.1, deadline - time.time()))
            if len(reports) < len(processes):
                result.errors["client did not report"] += len(processes) - len(reports)
            result.latencies = [[] for _ in KINDS]
            for report in sorted(reports, key=lambda r: r["index"]):
                for kind, raw in enumerate(report["latencies"]):
                    values = array("d")
                    values.frombytes(raw)
                    result.latencies[kind].extend(values)
                result.sent.update(report["sent"])
                result.errors.update(report["errors"])
                result.error_samples.extend(report["error_samples"])
                result.client_cpu_s += report["cpu_s"]
                result.retries += report["retries"]
                result.connects += report["connects"]
                result.reused_archives += report["reused_archives"]
                result.generated_games += report["generated_games"]
            status, data = _get(server.port, "/metrics")
            if status != 200:
                result.errors["GET /metrics"] += 1
            text = data.decode()
            counted = 0.0
            for path in ("/v1/replays", "/v1/scores", "/v1/moves/validate"):
                counted += sum(_metric_sum(text, "arbiter_requests_total", endpoint=path).values())
            result.server_counted = counted
            for labels, value in _metric_sum(text, "arbiter_cache_events_total").items():
                result.cache_events[json.loads(labels)["kind"]] = value
        finally:
            for process in processes:
                if process.is_alive():
                    process.terminate()
                    process.join(timeout=5)
            result.exit_status = stop_server(server)
    return result


def merge(parts: list[Result]) -> Result:
    """The rounds of one configuration as one result (their timed windows added up)."""
    out = Result(parts[0].config, sum(p.duration for p in parts))
    out.latencies = [[x for p in parts for x in p.latencies[k]] for k in range(len(KINDS))]
    out.rounds_rps = [sum(len(k) for k in p.latencies) / p.duration for p in parts]
    for p in parts:
        out.sent.update(p.sent)
        out.errors.update(p.errors)
        out.error_samples.extend(p.error_samples)
        out.client_cpu_s += p.client_cpu_s
        out.server_cpu_s += p.server_cpu_s
        out.redis_cpu_s += p.redis_cpu_s
        out.machine_busy_s += p.machine_busy_s
        out.background_pct.extend(p.background_pct)
        out.retries += p.retries
        out.connects += p.connects
        out.reused_archives += p.reused_archives
        out.generated_games += p.generated_games
        out.server_counted += p.server_counted
        for kind, value in p.cache_events.items():
            out.cache_events[kind] = out.cache_events.get(kind, 0.0) + value
        if p.exit_status != 0:
            out.exit_status = p.exit_status
        elif out.exit_status is None:
            out.exit_status = 0
    return out


# --- main ---------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    model = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    import gunicorn

    return {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "nproc": len(os.sched_getaffinity(0)),
        "cpu": model,
        "python": platform.python_version(),
        "gunicorn": gunicorn.__version__,
        "platform": platform.platform(),
    }


def print_report(results: list[Result], info: dict[str, Any], args: argparse.Namespace) -> None:
    print()
    print(
        f"{info['date']}  nproc={info['nproc']}  cpu={info['cpu']}  python {info['python']}  "
        f"gunicorn {info['gunicorn']}  redis {info.get('redis', '?')}"
    )
    print(
        f"clients={args.clients} (closed loop, one process each)  warmup={args.warmup:g}s  "
        f"duration={args.duration:g}s x {args.rounds} round(s)  "
        "mix: 70% validate by state_id / 20% replay / 10% scores"
    )
    header = (
        f"{'configuration':<34} {'requests':>8} {'req/s':>8} {'p50 ms':>7} {'p95 ms':>7} "
        f"{'p99 ms':>7} {'errors':>6} {'srv CPU':>8} {'µs/req':>7} {'client CPU':>10} "
        f"{'redis CPU':>9} {'other CPU':>9}"
    )
    print(header)
    print("-" * len(header))
    summaries = [r.summary() for r in results]
    for s in summaries:
        print(
            f"{s['config']:<34} {s['requests']:>8} {s['rps']:>8.1f} {s['p50_ms']:>7.2f} "
            f"{s['p95_ms']:>7.2f} {s['p99_ms']:>7.2f} {s['errors']:>6} "
            f"{s['server_cpu_pct']:>7.0f}% {s['server_cpu_us_per_request']:>7.0f} "
            f"{s['client_cpu_pct']:>9.0f}% {s['redis_cpu_pct']:>8.0f}% {s['other_cpu_pct']:>8.0f}%"
        )
    print(
        "CPU columns: % of one CPU over the timed window (the machine has "
        f"{info['nproc'] * 100}%); other = the machine's busy time minus server, clients and "
        "Redis (kernel network work and any other process)"
    )
    for s in summaries:
        rounds = ", ".join(f"{x:.1f}" for x in s["rounds_rps"])
        background = ", ".join(f"{x:.0f}%" for x in s["background_cpu_pct"])
        print(
            f"  {s['config']:<32} req/s per round: {rounds} (median {s['median_round_rps']:.1f}); "
            f"machine busy in the second before each round: {background}"
        )
    print()
    print("per kind (share of the timed requests, p50 / p95 / p99 ms):")
    for s in summaries:
        parts = [
            f"{kind} {k['share_pct']:.0f}% {k['p50_ms']:.2f}/{k['p95_ms']:.2f}/{k['p99_ms']:.2f}"
            for kind, k in s["kinds"].items()
        ]
        print(f"  {s['config']:<32} " + "  ".join(parts))
    print()
    by_label = {s["config"]: s for s in summaries}
    sync = [r.config for r in results if r.config.worker_class == "sync"]
    one = next((c for c in sync if c.workers == 1), None)
    two = next((c for c in sync if c.workers == 2), None)

    def ratio(a: str, b: str) -> str:
        pooled = by_label[a]["rps"] / by_label[b]["rps"]
        median = by_label[a]["median_round_rps"] / by_label[b]["median_round_rps"]
        return f"{pooled:.2f}x requests/s (medians of the rounds: {median:.2f}x)"

    if one and two:
        print(f"scaling, sync 2 workers / 1 worker: {ratio(two.label, one.label)}")
    for r in results:
        if r.config.worker_class != "sync" and two:
            print(f"{r.config.label} / sync 2 workers: {ratio(r.config.label, two.label)}")
    print()
    for r in results:
        hits = r.cache_events.get("hit", 0.0)
        misses = r.cache_events.get("miss", 0.0)
        ratio = hits / (hits + misses) if hits + misses else float("nan")
        print(
            f"{r.config.label}: sent {sum(r.sent.values())} (warm-up included), server counted "
            f"{r.server_counted:.0f}; cache hit ratio {ratio:.2f} "
            f"(hit {hits:.0f}, miss {misses:.0f}, error {r.cache_events.get('error', 0):.0f}); "
            f"connections opened {r.connects}, resent after a server close {r.retries}; "
            f"archives renamed for reuse {r.reused_archives}; games generated in the loop "
            f"{r.generated_games}; gunicorn exit {r.exit_status}"
        )
        for sample in r.error_samples:
            print(f"  error: {sample}")


def run_rounds(
    configs: list[Config], args: argparse.Namespace, workloads: list[Workload], redis: RedisProcess
) -> tuple[dict[str, list[Result]], list[str]]:
    """Every round of every configuration, interleaved; and the rounds whose server counted
    other requests than the clients sent."""
    parts: dict[str, list[Result]] = {c.label: [] for c in configs}
    mismatches = []
    for round_ in range(args.rounds):  # rounds interleave the configurations
        for config in configs:
            print(f"round {round_ + 1}/{args.rounds}: {config.label} ...", file=sys.stderr)
            part = run_config(config, args, workloads, redis)
            if part.server_counted != sum(part.sent.values()):
                mismatches.append(
                    f"{config.label}: the server counted {part.server_counted:.0f} requests, "
                    f"the clients sent {sum(part.sent.values())}"
                )
            parts[config.label].append(part)
    return parts, mismatches


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--configs", default="sync:1,sync:2,gthread:2x4",
                        help="class:workers[xthreads], comma-separated")  # fmt: skip
    parser.add_argument("--clients", type=int, default=8, help="client processes")
    parser.add_argument("--duration", type=float, default=12.0, help="timed seconds per round")
    parser.add_argument("--warmup", type=float, default=3.0, help="untimed seconds per round")
    parser.add_argument("--archives", type=int, default=1500, help="archived logs per client")
    parser.add_argument("--games", type=int, default=60, help="table games per client")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each config, interleaved")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    configs = parse_configs(args.configs)

    info = machine()
    began = time.perf_counter()
    workloads = make_workloads(args.clients, args.archives, args.games, args.seed)
    print(
        f"workload: {args.clients} clients x ({args.archives} archived logs, {args.games} games) "
        f"generated in {time.perf_counter() - began:.1f} s",
        file=sys.stderr,
    )
    try:
        with running() as redis:
            with redis.client() as admin:
                info["redis"] = admin.info("server").get("redis_version", "?")
            parts, mismatches = run_rounds(configs, args, workloads, redis)
    except RedisServerError as err:
        print(f"cannot start a redis-server for the run: {err}", file=sys.stderr)
        return 2
    results = [merge(parts[c.label]) for c in configs]
    print_report(results, info, args)
    if args.json is not None:
        payload = {
            "machine": info,
            "params": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
            "results": [
                {
                    **r.summary(),
                    "sent": dict(r.sent),
                    "server_counted": r.server_counted,
                    "cache_events": r.cache_events,
                    "error_samples": r.error_samples,
                    "connects": r.connects,
                    "retries": r.retries,
                }
                for r in results
            ],
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    failed = False
    for r in results:
        summary = r.summary()
        if summary["errors"] or r.exit_status != 0:
            failed = True
    for mismatch in mismatches:
        print(mismatch, file=sys.stderr)
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
