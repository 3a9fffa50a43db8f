"""What the Redis state cache buys over HTTP, and below how many events it is not worth a lookup.

Run ``.venv/bin/python benchmarks/bench_cache.py`` (``--duration 3`` for a quick look,
``--json FILE`` to keep the figures). Loopback only: three gunicorns with the shipped
``deploy/gunicorn.conf.py`` (its default worker count) on free 127.0.0.1 ports, and the Redis
on 127.0.0.1:6379, database ``--db`` (default 14), flushed before and after. The run takes
about ``12 * (duration + warmup) + 40`` seconds.

Servers: **off** (``ARBITER_CACHE=off``), **redis** (``REDIS_URL``, ``ARBITER_STATE_KEY``,
``ARBITER_CACHE_MIN_EVENTS=0``) and **skip** (the same Redis with
``ARBITER_CACHE_MIN_EVENTS=1000000``: every log skips the lookup, states are still written, so
that the state ids it returns work).

Cases, all ``POST /v1/moves/validate`` of one legal next move, each timed for ``--duration``
seconds after ``--warmup`` seconds, at ``--connections`` concurrent connections:

* the match: a tute-2p log of 5 deals (match_target 5), the last one unfinished (about 190
  events). (a) the full log, cache off; (b) the full log, warm cache (the log's state is in
  Redis: a hit on the whole log); (c) ``{"state_id", "move"}`` only.
* single deals of about 20 and 40 events, full log: ``off``; ``skip`` (lookup skipped by
  ``ARBITER_CACHE_MIN_EVENTS``); ``warm`` (hit on the whole log); ``cold`` (every request a
  new game, made by renaming a player, so every lookup misses and the state is written).
* the floor: ``GET /healthz`` on the same server (HTTP, gunicorn, Flask; no body, no engine,
  no cache): the most requests/s any case can reach, so ``floor/(a)`` bounds ``(c)/(a)``.

Then, in this process, without HTTP: ``StateCache.replay`` on the real Redis for logs of 10 to
190 events, per call: ``off`` (a plain replay), ``skip``, ``hit`` (the whole log cached),
``hit-1`` (the log without its last event cached: a game validated move by move with the full
log) and ``miss``; and ``decode``, the snapshot decoding alone that every hit pays. Each is the
best of ``--inprocess-rounds`` rounds of 200 calls, the modes taking turns within a round.
These isolate what ``ARBITER_CACHE_MIN_EVENTS`` changes: ``skip`` against ``hit``/``hit-1``.

Load generator: wrk (one thread, a Lua script; a per-request body for ``cold``) when installed,
else Python ``http.client`` threads. Every case's answer is checked against the library before
it is timed; non-200 answers are counted as errors.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

import arbiter
from arbiter.simulate import random_log

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: benchmarks/ is on the path, the root is not
    sys.path.insert(0, str(ROOT))

from benchmarks import gunicorn_support  # noqa: E402
from benchmarks.gunicorn_support import HOST  # noqa: E402

REDIS_PORT = 6379
STATE_KEY = "bench-cache-state-key"
MARKER = "@@COLD@@"  # replaced by a fresh player name in every request of a cold case
JSON_MIME = "application/json"


# --- bodies --------------------------------------------------------------------------------------


def _next_move(log: dict[str, Any]) -> dict[str, Any]:
    answer = arbiter.replay(log).to_dict()
    if answer["status"] != "in_progress":
        raise AssertionError(f"the log is {answer['status']}, not in progress")
    move: dict[str, Any] = answer["next"]["legal_moves"][0]
    return move


def match_log(seed: int) -> dict[str, Any]:
    """5 deals of tute-2p, the last unfinished after 24 events (about 190 in all)."""
    log = random_log(
        "tute-2p",
        random.Random(seed),
        deals=5,
        finish_last=False,
        stop_after=24,
        options={"match_target": 5},
    )
    assert len(log["deals"]) == 5
    return log


def deal_log(seed: int, events: int) -> dict[str, Any]:
    log = random_log("tute-2p", random.Random(seed), finish_last=False, stop_after=events)
    assert len(log["deals"][0]["events"]) == events
    return log


def events_of(log: dict[str, Any]) -> int:
    return sum(len(d["events"]) for d in log["deals"])


def validate_body(log: dict[str, Any]) -> bytes:
    return orjson.dumps({**log, "move": _next_move(log)})


def cold_template(log: dict[str, Any]) -> bytes:
    """The validate body with the first player renamed to :data:`MARKER`."""
    renamed = {**log, "players": [MARKER, *log["players"][1:]]}
    return orjson.dumps({**renamed, "move": _next_move(log)})


# --- servers -------------------------------------------------------------------------------------


def _request(port: int, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
    headers = {"Content-Type": JSON_MIME} if body is not None else {}
    answer = gunicorn_support.request(port, method, path, body, headers)
    return answer.status, answer.body


def worker_count(pid: int) -> int:
    return len(Path(f"/proc/{pid}/task/{pid}/children").read_text().split())


@dataclass
class Server:
    name: str
    port: int
    pid: int


@contextlib.contextmanager
def gunicorn(name: str, extra_env: dict[str, str]) -> Iterator[Server]:
    """``arbiter.wsgi:app`` under the shipped config on a free port (ARBITER_BIND), with the
    environment's ARBITER_*/REDIS_* replaced by ``extra_env``; stopped with SIGTERM."""
    env = gunicorn_support.environment(**{**extra_env, "ARBITER_LOG_LEVEL": "warning"})
    expected = int(env.get("ARBITER_WORKERS", len(os.sched_getaffinity(0))))
    ready = gunicorn_support.answers("/healthz", workers=expected)
    with gunicorn_support.running(env, ready, name=name) as server:
        yield Server(name, server.port, server.process.pid)


# --- load generators -----------------------------------------------------------------------------

_WRK_SCRIPT = """
wrk.method = os.getenv("BENCH_METHOD") or "POST"
if wrk.method == "POST" then
  wrk.headers["Content-Type"] = "application/json"
end
local f = assert(io.open(os.getenv("BENCH_BODY_FILE"), "rb"))
local body = f:read("*a")
f:close()
local marker = os.getenv("BENCH_MARKER") or ""
local s, e = nil, nil
if marker ~= "" then
  s, e = string.find(body, marker, 1, true)
end
if s then
  local prefix, suffix = string.sub(body, 1, s - 1), string.sub(body, e + 1)
  local counter = tonumber(os.getenv("BENCH_COUNTER_BASE") or "0")
  request = function()
    counter = counter + 1
    return wrk.format(nil, nil, nil, prefix .. "c" .. counter .. suffix)
  end
elseif wrk.method == "POST" then
  wrk.body = body
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, ' ..
    '"errors": %d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.status + e.timeout))
end
"""


@dataclass
class Load:
    """One case's request: a fixed body, or a template whose MARKER changes every time."""

    path: str
    body: bytes
    cold: bool = False
    method: str = "POST"


_COUNTER = [0]  # cold bodies never repeat within a run, whatever the case


def run_wrk(wrk: str, port: int, load: Load, conns: int, seconds: float, tmp: Path) -> Any:
    script, body_file = tmp / "post.lua", tmp / "body.json"
    script.write_text(_WRK_SCRIPT, encoding="utf-8")
    body_file.write_bytes(load.body)
    env = {**os.environ, "BENCH_BODY_FILE": str(body_file), "BENCH_METHOD": load.method}
    if load.cold:
        env.update(BENCH_MARKER=MARKER, BENCH_COUNTER_BASE=str(_COUNTER[0]))
        _COUNTER[0] += 10_000_000
    whole = max(1, round(seconds))
    argv = [wrk, "-t1", f"-c{conns}", f"-d{whole}s", "--timeout", "10s", "-s", str(script)]
    done = subprocess.run(
        [*argv, f"http://{HOST}:{port}{load.path}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=whole + 60,
        check=True,
    )
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("BENCH_JSON "))
    raw = json.loads(line.removeprefix("BENCH_JSON "))
    secs = raw["duration_us"] / 1e6
    return {
        "requests": raw["requests"],
        "seconds": secs,
        "rps": raw["requests"] / secs,
        "p50_ms": raw["p50_us"] / 1000,
        "p99_ms": raw["p99_us"] / 1000,
        "errors": raw["errors"],
    }


def run_python(port: int, load: Load, conns: int, seconds: float) -> Any:
    """``conns`` threads with one keep-alive http.client connection each (reopened when the
    server closes it), posting until ``seconds`` have passed."""
    lock = threading.Lock()
    prefix, _, suffix = load.body.partition(MARKER.encode())

    def body() -> bytes | None:
        if load.method == "GET":
            return None
        if not load.cold:
            return load.body
        with lock:
            _COUNTER[0] += 1
            n = _COUNTER[0]
        return prefix + f"c{n}".encode() + suffix

    headers = {"Content-Type": JSON_MIME}
    ms, errors, secs = gunicorn_support.closed_loop(
        port, load.method, load.path, body, headers, conns, seconds
    )
    n = len(ms)
    return {
        "requests": n,
        "seconds": secs,
        "rps": n / secs,
        "p50_ms": ms[min(n - 1, n // 2)] if n else float("nan"),
        "p99_ms": ms[min(n - 1, int(0.99 * n))] if n else float("nan"),
        "errors": errors,
    }


# --- the HTTP cases ------------------------------------------------------------------------------


@dataclass
class Case:
    key: str
    label: str
    server: str
    load: Load
    events: int
    expected: dict[str, Any]


def _check(port: int, case: Case) -> None:
    """The case's answer is the library's (state_id aside) before anything is timed."""
    body: bytes | None = case.load.body
    if case.load.method == "GET":
        body = None
    elif case.load.cold:
        body = case.load.body.replace(MARKER.encode(), b"p0")  # the name the library saw
    status, data = _request(port, case.load.method, case.load.path, body)
    if status != 200:
        raise AssertionError(f"({case.key}) answered {status}: {data[:300]!r}")
    answer = orjson.loads(data)
    answer.pop("state_id", None)
    if answer != case.expected:
        raise AssertionError(f"({case.key}) differs from the library: {answer} != {case.expected}")


def build_cases(seed: int, state_ids: dict[str, str]) -> list[Case]:
    """The HTTP cases in running order (single deals first, then the match)."""
    cases: list[Case] = []
    path = "/v1/moves/validate"
    for events in (20, 40):
        log = deal_log(seed + events, events)
        move = _next_move(log)
        expected = arbiter.validate(log, move).to_dict()
        expected.pop("state_id")
        body = validate_body(log)
        n = events_of(log)
        cases += [
            Case(f"{events}-off", f"{n} events, full log, cache off", "off", Load(path, body), n,
                 expected),
            Case(f"{events}-skip", f"{n} events, full log, lookup skipped (MIN_EVENTS)", "skip",
                 Load(path, body), n, expected),
            Case(f"{events}-warm", f"{n} events, full log, warm Redis cache", "redis",
                 Load(path, body), n, expected),
            Case(f"{events}-cold", f"{n} events, full log, every lookup a miss", "redis",
                 Load(path, cold_template(log), cold=True), n, expected),
        ]  # fmt: skip
    log = match_log(seed)
    move = _next_move(log)
    expected = arbiter.validate(log, move).to_dict()
    expected.pop("state_id")
    n = events_of(log)
    sid_body = orjson.dumps({"state_id": state_ids["match"], "move": move})
    cases += [
        Case("a", f"match {n} events, full log, cache off", "off", Load(path, validate_body(log)),
             n, expected),
        Case("b", f"match {n} events, full log, warm Redis cache", "redis",
             Load(path, validate_body(log)), n, expected),
        Case("c", f"match {n} events, state_id + move", "redis", Load(path, sid_body), n,
             expected),
        Case("floor", "GET /healthz (HTTP, Flask, no body, no engine)", "redis",
             Load("/healthz", b"", method="GET"), 0,
             {"status": "ok", "version": arbiter.__version__}),
    ]  # fmt: skip
    return cases


def warm_up_cache(port: int, seed: int) -> dict[str, str]:
    """Replay every warm log once on the redis server; the match's state id."""
    ids = {}
    for events in (20, 40):
        status, data = _request(
            port, "POST", "/v1/replays", orjson.dumps(deal_log(seed + events, events))
        )
        assert status == 200, data[:300]
    status, data = _request(port, "POST", "/v1/replays", orjson.dumps(match_log(seed)))
    assert status == 200, data[:300]
    ids["match"] = orjson.loads(data)["state_id"]
    return ids


# --- in-process: StateCache.replay alone ---------------------------------------------------------


Timed = tuple[Callable[[], object], Callable[[], object] | None]


def _time_modes(modes: dict[str, Timed], rounds: int, calls: int) -> dict[str, float]:
    """µs per call of each mode's function: the best of ``rounds`` rounds of ``calls`` calls,
    the modes taking turns within each round (so a burst of load from elsewhere hits them
    alike); the optional second function runs untimed before each call."""
    best = dict.fromkeys(modes, float("inf"))
    for _ in range(rounds):
        for mode, (fn, before) in modes.items():
            gc.collect()
            spent = 0.0
            for _ in range(calls):
                if before is not None:
                    before()
                t0 = time.perf_counter()
                fn()
                spent += time.perf_counter() - t0
            best[mode] = min(best[mode], spent / calls * 1e6)
    return best


def _time_log(caches: dict[str, Any], raw: dict[str, Any], rounds: int, calls: int) -> Any:
    from arbiter.engine.log import parse_log
    from arbiter.engine.snapshot import decode, encode

    off, on, skip = caches["off"], caches["on"], caches["skip"]
    log = parse_log(raw)
    n_last = len(raw["deals"][-1]["events"])
    last = {**raw["deals"][-1], "events": raw["deals"][-1]["events"][:-1]}
    on.replay(parse_log({**raw, "deals": [*raw["deals"][:-1], last]}))  # the log minus one
    full_key = on.storage_key(on.replay(log).state_id or "")
    client = on.store._client.get()
    fresh = iter(
        [
            parse_log({**raw, "players": [f"miss{i}", *raw["players"][1:]]})
            for i in range(rounds * calls)
        ]
    )  # new games: every lookup misses (parsed beforehand, not timed)

    def drop_full() -> None:  # hit-1: the log minus its last event is cached, not the log
        client.delete(full_key)

    snapshot = encode(off.replay(log).match)
    modes: dict[str, Timed] = {
        "off": (lambda: off.replay(log), None),
        "decode": (lambda: decode(snapshot), None),
        "skip": (lambda: skip.replay(log), None),
        "hit": (lambda: on.replay(log), None),
        "hit-1": (lambda: on.replay(log), drop_full),
        "miss": (lambda: on.replay(next(fresh)), None),
    }
    timings = _time_modes(modes, rounds, calls)
    # the modes did what they say
    assert on.replay(log).resumed_from == (len(raw["deals"]), n_last)
    drop_full()
    assert on.replay(log).resumed_from == (len(raw["deals"]), n_last - 1)
    assert skip.replay(log).resumed_from is None
    return timings


def inprocess(db: int, seed: int, rounds: int, calls: int) -> dict[str, dict[str, float]]:
    """µs per ``StateCache.replay`` on the real Redis, per mode, for logs of 10..190 events
    (no HTTP, no parsing: what ARBITER_CACHE_MIN_EVENTS trades, a lookup against a replay)."""
    from arbiter.cache.breaker import CircuitBreaker
    from arbiter.cache.states import StateCache
    from arbiter.cache.stores import NullStore, RedisStore

    url = f"redis://{HOST}:{REDIS_PORT}/{db}"

    def cache(store: Any, min_events: int = 0) -> StateCache:
        breaker = CircuitBreaker(3, 5.0)
        return StateCache(store, STATE_KEY.encode(), 600, breaker, min_events=min_events)

    caches = {
        "off": cache(NullStore()),
        "on": cache(RedisStore(url, 0.5)),
        "skip": cache(RedisStore(url, 0.5), min_events=10**6),
    }
    out: dict[str, dict[str, float]] = {}
    for events in (10, 20, 40):
        raw = deal_log(seed + 1000 + events, events)
        out[str(events_of(raw))] = _time_log(caches, raw, rounds, calls)
    for deals, last in ((2, 36), (3, 36), (5, 24)):  # about 80, 120, 190 events
        raw = random_log(
            "tute-2p", random.Random(seed + deals), deals=deals, finish_last=False,
            stop_after=last, options={"match_target": 5},
        )  # fmt: skip
        out[str(events_of(raw))] = _time_log(caches, raw, rounds, calls)
    return out


def pays_from(inproc: dict[str, dict[str, float]], mode: str) -> int | None:
    """The smallest measured size from which a lookup of kind ``mode`` is cheaper than
    skipping it, at every larger measured size too (None: at no measured size)."""
    sizes = sorted(int(n) for n in inproc)
    pays = [inproc[str(n)][mode] < inproc[str(n)]["skip"] for n in sizes]
    return next((n for i, n in enumerate(sizes) if all(pays[i:])), None)


def suggest_min_events(inproc: dict[str, dict[str, float]]) -> list[str]:
    """What the in-process figures say about ARBITER_CACHE_MIN_EVENTS, per kind of traffic."""
    largest = max(int(n) for n in inproc)
    lines = []
    for mode, traffic in (
        ("hit", "the whole log cached (validate move by move with the full log: the state "
                "after the validated move is the next log)"),
        ("hit-1", "the log minus its last event cached (replays of a growing log)"),
    ):  # fmt: skip
        n = pays_from(inproc, mode)
        verdict = f"pays from {n} events" if n is not None else f"never pays up to {largest}"
        lines.append(f"lookup with {traffic}: {verdict}")
    return lines


# --- main ----------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=8.0, help="seconds per case")
    parser.add_argument("--warmup", type=float, default=1.0, help="untimed seconds per case")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--db", type=int, default=14, help="Redis database (flushed)")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--loadgen", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument("--inprocess-rounds", type=int, default=7, help="0: skip that part")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)

    from redis import Redis

    redis_db = Redis(host=HOST, port=REDIS_PORT, db=args.db, socket_timeout=2)
    redis_db.ping()
    redis_db.flushdb()
    wrk = shutil.which("wrk") if args.loadgen in ("auto", "wrk") else None
    if args.loadgen == "wrk" and wrk is None:
        parser.error("wrk is not installed")
    loadgen = "wrk" if wrk else "python"
    redis_env = {
        "ARBITER_CACHE": "redis",
        "REDIS_URL": f"redis://{HOST}:{REDIS_PORT}/{args.db}",
        "ARBITER_STATE_KEY": STATE_KEY,
    }
    envs = {
        "off": {"ARBITER_CACHE": "off"},
        "redis": {**redis_env, "ARBITER_CACHE_MIN_EVENTS": "0"},
        "skip": {**redis_env, "ARBITER_CACHE_MIN_EVENTS": "1000000"},
    }
    results: dict[str, dict[str, Any]] = {}
    load_before = os.getloadavg()[0]
    try:
        with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
            servers = {name: stack.enter_context(gunicorn(name, env)) for name, env in envs.items()}
            workers = worker_count(servers["off"].pid)
            state_ids = warm_up_cache(servers["redis"].port, args.seed)
            cases = build_cases(args.seed, state_ids)
            for case in cases:
                _check(servers[case.server].port, case)
            for case in cases:
                port = servers[case.server].port
                keys_before = redis_db.dbsize()
                print(f"running ({case.key}) {case.label} ...", file=sys.stderr)

                def once(seconds: float, case: Case = case, port: int = port) -> Any:
                    if wrk is not None:
                        return run_wrk(wrk, port, case.load, args.connections, seconds, Path(tmp))
                    return run_python(port, case.load, args.connections, seconds)

                if args.warmup > 0:
                    once(args.warmup)
                figures = once(args.duration)
                time.sleep(0.5)  # requests still in the workers when the generator stopped
                figures["new_keys"] = redis_db.dbsize() - keys_before
                results[case.key] = {
                    "label": case.label,
                    "server": case.server,
                    "events": case.events,
                    "body_bytes": len(case.load.body),
                    **figures,
                }
        inproc = (
            inprocess(args.db, args.seed, args.inprocess_rounds, 200)
            if args.inprocess_rounds > 0
            else {}
        )
    finally:
        redis_db.flushdb()

    load_after = os.getloadavg()[0]
    rps = {k: r["rps"] for k, r in results.items()}
    ratios = {
        "c/a": rps["c"] / rps["a"],
        "b/a": rps["b"] / rps["a"],
        "floor/a": rps["floor"] / rps["a"],
    }
    for events in (20, 40):
        for mode in ("skip", "warm", "cold"):
            ratios[f"{events}-{mode}/{events}-off"] = rps[f"{events}-{mode}"] / rps[f"{events}-off"]
        ratios[f"{events}-warm/{events}-skip"] = rps[f"{events}-warm"] / rps[f"{events}-skip"]

    print()
    print(
        f"loadgen={loadgen} connections={args.connections} duration={args.duration:g}s "
        f"warmup={args.warmup:g}s workers={workers} cpus={len(os.sched_getaffinity(0))} "
        f"redis db={args.db} load average (1 min) before/after: {load_before:.2f}/{load_after:.2f}"
    )
    header = f"{'case':<62} {'requests':>8} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'err':>4}"
    print(header + f" {'new keys':>8}")
    print("-" * (len(header) + 9))
    for key, r in results.items():
        print(
            f"({key}) {r['label']:<{59 - len(key)}} {r['requests']:>8} {r['rps']:>8.1f} "
            f"{r['p50_ms']:>7.2f} {r['p99_ms']:>7.2f} {r['errors']:>4} {r['new_keys']:>8}"
        )
    print(
        f"ratio (c)/(a) req/s: {ratios['c/a']:.2f} (target >= 5)   "
        f"ratio (b)/(a) req/s: {ratios['b/a']:.2f} (target >= 1)   "
        f"ceiling (floor)/(a): {ratios['floor/a']:.2f}"
    )
    for events in (20, 40):
        print(
            f"{events} events, req/s relative to cache off: "
            + "  ".join(
                f"{m} {ratios[f'{events}-{m}/{events}-off']:.2f}" for m in ("skip", "warm", "cold")
            )
            + f"   warm/skip {ratios[f'{events}-warm/{events}-skip']:.2f}"
        )
    if inproc:
        print()
        print("in-process StateCache.replay on the real Redis, µs per call (best of rounds):")
        modes = ("off", "decode", "skip", "hit", "hit-1", "miss")
        print(
            f"{'events':>6} " + " ".join(f"{m:>8}" for m in modes)
            + f" {'hit-skip':>9} {'hit-1-skip':>10}"
        )  # fmt: skip
        for n, t in inproc.items():
            print(
                f"{n:>6} " + " ".join(f"{t[m]:>8.1f}" for m in modes)
                + f" {t['hit'] - t['skip']:>+9.1f} {t['hit-1'] - t['skip']:>+10.1f}"
            )  # fmt: skip
        for line in suggest_min_events(inproc):
            print(f"ARBITER_CACHE_MIN_EVENTS: {line}")
    if any(r["errors"] for r in results.values()):
        print("WARNING: some requests failed; see the err column", file=sys.stderr)

    if args.json is not None:
        payload = {
            "machine": {
                "python": sys.version.split()[0],
                "platform": platform.platform(),
                "cpus": len(os.sched_getaffinity(0)),
            },
            "params": {
                **{k: v for k, v in vars(args).items() if k != "json"},
                "loadgen": loadgen,
                "workers": workers,
                "load_average_before_after": [load_before, load_after],
            },
            "results": results,
            "ratios": ratios,
            "inprocess_us": inproc,
            "min_events": suggest_min_events(inproc) if inproc else [],
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
