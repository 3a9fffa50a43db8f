"""What sealed positions and the full-log cache cost and buy, over HTTP and in this process.

Run ``.venv/bin/python benchmarks/bench_positions.py`` (``--seconds 2 --rounds 1`` for a quick
look, ``--json FILE`` to keep the figures). Loopback only; needs wrk and redis-server (Debian's
packages): the benchmark starts a throwaway ``redis-server`` of its own on a free port
(:mod:`devtools.redis_server`), emptied before each part, and stops it at the end.

Games: Tute cabrón with ``loser_target`` 100, so that a match lasts 40 deals and more; a log of
*D* deals has its last deal cut after 12 events. A "1-deal game" is *D* = 1, a "40-deal match"
*D* = 40.

Over HTTP: five gunicorns with the shipped ``deploy/gunicorn.conf.py`` and the same settings
(workers, worker class, ``ARBITER_STATE_KEY``), differing only in what is measured: the cache
off, the in-process cache (the shipped default, with its default policy), Redis (its default
policy), and the bare-Flask floor of ``benchmarks/harness.py``, which parses the request and
answers a body of the size the case under test answers. Cases, timed in rounds (each round
runs every case once, in reverse order every other round, so a burst of other load hits them
alike; the median round is reported, and every ratio is the median of the per-round ratios,
with its range and interquartile range: ``harness.interleave``):

* ``token-1``, ``token-40``: ``POST /v1/moves/validate`` with ``{"state_id", "move"}`` only;
  ``floor-1``, ``floor-40``: the floor with the same bodies and answers of the same size;
* ``log-D-off``, ``log-D-memory``, ``log-D-redis`` for D = 1, 5, 20, 40: the full log and its
  next move, cycling through 12 consecutive moves of the last deal (a client that sends the
  growing log: each request is the previous log plus its move), after a warm-up.

``--before PATH`` adds ``token-1@before`` and ``token-40@before``: the same token validations
against a gunicorn of another source tree (its own config, the in-process cache), timed in the
same rounds, with their ratios to the same floors (before and after a change, in one run);
``--token-only`` times only the token cases and their floors (no full logs, nothing in
process).

In this process: µs per call of each stage of a validation by token (open, judge and shape the
answer, play and seal), and of a full-log validation with the cache off, with the in-process
cache and with Redis, warm and missed, at 0 to about 1,500 events, the five timed in turn in
every round — the policy's crossover (where a lookup starts to pay, by the median per-round
ratio to off). And the size of tokens per ruleset: typical (short names) and largest (the most
players, names of 64 four-byte characters).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: benchmarks/ is on the path, the root is not
    sys.path.insert(0, str(ROOT))

import arbiter  # noqa: E402
from arbiter.engine.moves import Move  # noqa: E402
from arbiter.service import Referee  # noqa: E402
from arbiter.settings import Settings  # noqa: E402
from arbiter.simulate import random_log  # noqa: E402
from arbiter.tokens import Sealer  # noqa: E402
from benchmarks import harness  # noqa: E402
from devtools.redis_server import RedisProcess, running  # noqa: E402

STATE_KEY = "bench-positions-state-key-0123456789abcdef"
CUT = 12  # events of the last deal in every log
CYCLE = 12  # consecutive moves a full-log case cycles through
DEALS = (1, 5, 20, 40)


# --- games -------------------------------------------------------------------------------------


def match(deals: int, seed: int, cut: int = CUT + CYCLE) -> dict[str, Any]:
    """A cabrón match of ``deals`` deals, the last one cut after ``cut`` events."""
    log = random_log(
        "tute-cabron",
        random.Random(seed),
        deals=deals,
        options={"loser_target": 100},
        finish_last=False,
        stop_after=cut,
    )
    assert len(log["deals"]) == deals
    return log


def cut_at(log: dict[str, Any], events: int) -> dict[str, Any]:
    deals = [
        *log["deals"][:-1],
        {**log["deals"][-1], "events": log["deals"][-1]["events"][:events]},
    ]
    return {**log, "deals": deals}


def growing_bodies(log: dict[str, Any]) -> list[bytes]:
    """Full-log validations of the moves ``CUT``..``CUT + CYCLE - 1`` of the last deal."""
    events = log["deals"][-1]["events"]
    return [orjson.dumps({**cut_at(log, k), "move": events[k]}) for k in range(CUT, CUT + CYCLE)]


# --- HTTP --------------------------------------------------------------------------------------


def _median_round(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of the round of median req/s (one case's own figures, not a ratio)."""
    ordered = sorted(rounds, key=lambda r: r["rps"])
    best = dict(ordered[len(ordered) // 2])
    best["rounds_rps"] = [r["rps"] for r in rounds]
    return best


def http_cases(args: argparse.Namespace, redis: RedisProcess, workdir: Path) -> dict[str, Any]:
    common = {"ARBITER_STATE_KEY": STATE_KEY}
    logs = {d: match(d, args.seed + d) for d in DEALS}
    redis_url = redis.url
    redis.flush()
    floor_dir = workdir / "floor"
    floor_dir.mkdir()
    before = args.before
    with (
        harness.serve(ARBITER_CACHE="off", **common) as off,
        harness.serve(ARBITER_CACHE="memory", **common) as memory,
        harness.serve(REDIS_URL=redis_url, **common) as redis_server,
        contextlib.ExitStack() as others,
    ):
        servers = {"off": off, "memory": memory, "redis": redis_server}
        tokens = {"": memory}  # the servers whose token validations are timed
        if before is not None:
            tokens["@before"] = others.enter_context(
                harness.serve(tree=before, ARBITER_CACHE="memory", **common)
            )
        cases: dict[str, tuple[harness.Server | str, str, list[bytes]]] = {}
        for d in (1, 40):
            log = cut_at(logs[d], CUT)
            for suffix, server in tokens.items():
                token = server.post("/v1/replays", orjson.dumps(log)).json()["state_id"]
                move = logs[d]["deals"][-1]["events"][CUT]
                body = orjson.dumps({"state_id": token, "move": move})
                answer = server.post("/v1/moves/validate", body)
                assert answer.status == 200 and answer.json()["verdict"] == "ok", answer.body[:300]
                cases[f"token-{d}{suffix}"] = (server, "/v1/moves/validate", [body])
                if not suffix:
                    (floor_dir / f"token-{d}.json").write_bytes(answer.body)
                    cases[f"floor-{d}"] = ("floor", f"/floor/token-{d}", [body])
        for d in DEALS if not args.token_only else ():
            bodies = growing_bodies(logs[d])
            for name, server in servers.items():
                for body in bodies:  # right answers, and the cache primed
                    answer = server.post("/v1/moves/validate", body)
                    assert answer.status == 200 and answer.json()["verdict"] == "ok"
                cases[f"log-{d}-{name}"] = (server, "/v1/moves/validate", bodies)
        with harness.serve(
            "benchmarks.harness:floor_app", "/", BENCH_FLOOR_DIR=str(floor_dir), **common
        ) as floor:

            def side(server: harness.Server | str, path: str, bodies: list[bytes]) -> Case:
                target = floor if server == "floor" else server
                assert isinstance(target, harness.Server)
                return lambda: harness.measure(
                    target, path, bodies, args.connections, args.seconds, args.warmup, workdir
                )

            measured = harness.interleave(
                {name: side(*case) for name, case in cases.items()},
                args.rounds,
                warmup=0,  # harness.measure warms every case up before each timed run
                progress=lambda r, name: print(f"round {r + 1}: {name}", file=sys.stderr),
            )
            workers = len(memory.workers())
    redis.flush()
    results = {name: _median_round(rs) for name, rs in measured.measurements.items()}
    for name, (_, _, bodies) in cases.items():
        results[name]["body_bytes"] = len(bodies[0])
    return {
        "workers": workers,
        "results": results,
        "ratios": http_ratios(measured),
        "order": [list(o) for o in measured.order],
        "events": {d: events(logs[d]) for d in DEALS},
    }


Case = Callable[[], dict[str, Any]]


def events(log: dict[str, Any]) -> int:
    return sum(len(d["events"]) for d in log["deals"][:-1]) + CUT


def http_ratios(measured: harness.Rounds) -> dict[str, harness.Spread]:
    """Per-round ratios of req/s, by pair of cases (those measured)."""
    pairs = [("token-1", "floor-1"), ("token-40", "floor-40"), ("token-40", "token-1"),
             ("token-40", "log-40-off")]  # fmt: skip
    for d in (1, 40):
        pairs += [(f"token-{d}@before", f"floor-{d}"), (f"token-{d}", f"token-{d}@before")]
    for d in DEALS:
        pairs += [(f"log-{d}-memory", f"log-{d}-off"), (f"log-{d}-redis", f"log-{d}-off")]
    names = set(measured.names)
    return {f"{a}/{b}": measured.ratio(a, b, _rps) for a, b in pairs if {a, b} <= names}


def _rps(figures: dict[str, Any]) -> float:
    return float(figures["rps"])


# --- in process --------------------------------------------------------------------------------


def per_call(fn: Callable[[], object], calls: int, rounds: int) -> float:
    """µs per call: the median of ``rounds`` loops of ``calls``."""
    fn()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(times)


def stages(seed: int, calls: int, rounds: int) -> dict[str, dict[str, float]]:
    """µs of each stage of a validation by token, for a 1-deal game and a 40-deal match."""
    sealer = Sealer([STATE_KEY])
    return {f"{d}-deal": _stage_times(sealer, match(d, seed + d), calls, rounds) for d in (1, 40)}


def _stage_times(sealer: Sealer, log: dict[str, Any], calls: int, rounds: int) -> dict[str, float]:
    referee = Referee(sealer=sealer)
    move_raw = log["deals"][-1]["events"][CUT]
    token = referee.replay(cut_at(log, CUT)).state_id
    assert token is not None
    position = sealer.open(token)
    move = Move.from_json(move_raw, 3, "spanish")
    after = position.after(move)
    return {
        "open": per_call(lambda: sealer.open(token), calls, rounds),
        "parse move": per_call(lambda: Move.from_json(move_raw, 3, "spanish"), calls, rounds),
        "judge": per_call(lambda: position.judge(move), calls, rounds),
        "answer (to_dict)": per_call(
            lambda: arbiter.Verdict(position, position.judge(move)).to_dict(), calls, rounds
        ),
        "play": per_call(lambda: position.after(move), calls, rounds),
        "seal": per_call(lambda: sealer.seal(after), calls, rounds),
        "whole validate_token": per_call(
            lambda: referee.validate_token(token, move_raw).to_dict(), calls, rounds
        ),
    }


def crossover(seed: int, redis: RedisProcess, rounds: int) -> dict[str, Any]:
    """µs of a warm full-log validation per backend against the cache off, by events: the
    backends (and their misses) take turns in every round; each ratio to off is the median of
    the per-round ratios."""
    redis_url = redis.url
    redis.flush()
    common = {"state_key": STATE_KEY, "cache_min_events": 0}
    referees = {
        "off": Referee.from_settings(Settings(cache="off", **common)),
        "memory": Referee.from_settings(Settings(cache="memory", **common)),
        "redis": Referee.from_settings(Settings(redis_url=redis_url, **common)),
    }
    rows = []
    for deals, cut in ((1, 1), (1, 5), (1, 10), (1, 20), (1, 30), (2, 10), (3, 20), (5, 20),
                       (10, 20), (20, 20), (40, 20)):  # fmt: skip
        log = match(deals, seed + deals, cut=cut + 1)
        row: dict[str, Any] = {"events": events(cut_at(log, 0)) - CUT + cut}
        calls = max(20, 4000 // max(1, row["events"]))
        sides: dict[str, Callable[[], float]] = {}
        for name, referee in referees.items():
            sides.update(_warm_and_miss(name, referee, log, cut, calls))
        measured = harness.interleave(sides, rounds)
        for name in sides:
            row[name] = measured.spread(name).median / calls * 1e6
        row["ratios"] = {name: measured.ratio(name, "off") for name in sides if name != "off"}
        rows.append(row)
    redis.flush()
    return {"rows": rows, "pays_from": {b: pays_from(rows, b) for b in ("memory", "redis")}}


def _warm_and_miss(
    name: str, referee: Referee, log: dict[str, Any], cut: int, calls: int
) -> dict[str, Callable[[], float]]:
    """Timed sides of ``calls`` validations of the move after ``cut`` events, the log's state
    kept by the move before (warm); and, with a cache, of the same for a game it has never
    seen (a miss, then a store)."""
    before, move = cut_at(log, cut), log["deals"][-1]["events"][cut]
    referee.validate(cut_at(log, cut - 1), log["deals"][-1]["events"][cut - 1])
    assert referee.validate(before, move).legal

    def warm() -> None:
        for _ in range(calls):
            referee.validate(before, move)

    out = {name: harness.timed(warm)}
    if name != "off":
        fresh = _renamed(before)

        def miss() -> None:
            for _ in range(calls):
                referee.validate(next(fresh), move)

        out[f"{name} miss"] = harness.timed(miss)
    return out


def _renamed(log: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """``log`` with a new name for its first player every time (other keys: a miss)."""
    for i in itertools.count():
        yield {**log, "players": [f"fresh{i}", *log["players"][1:]]}


def pays_from(rows: list[dict[str, Any]], backend: str) -> int | None:
    """The fewest events from which the warm cache is never more than 5 % slower than off (by
    the median of the per-round ratios)."""
    good = None
    for row in reversed(rows):
        if row["ratios"][backend].median > 1.05:
            break
        good = row["events"]
    return good


def token_sizes() -> dict[str, dict[str, int]]:
    sealer = Sealer([STATE_KEY])
    sizes: dict[str, dict[str, int]] = {}
    limits = Settings().limits
    for ruleset, players in (("tute-2p", 2), ("tute-3p", 3), ("tute-4p", 4), ("tute-cabron", 3),
                             ("tute-gana-pierde", 5)):  # fmt: skip
        row = {}
        for kind in ("typical", "largest"):
            log = random_log(ruleset, random.Random(1), players=players, deals=3,
                             finish_last=False, stop_after=5)  # fmt: skip
            if kind == "largest":
                log["players"] = [chr(0x1F0A1 + i) * limits.max_name_length for i in range(players)]
            else:
                log["players"] = ["ana", "bea", "carlos", "dani", "eva"][:players]
            referee = Referee(limits, sealer)
            token = referee.replay(log).state_id
            assert token is not None
            row[kind] = len(token)
        sizes[f"{ruleset} ({players})"] = row
    return sizes


# --- main ---------------------------------------------------------------------------------------


def in_process(args: argparse.Namespace, redis: RedisProcess, report: dict[str, Any]) -> None:
    """Token sizes, the stages of a validation by token, the cache's crossover."""
    report["token_sizes"] = token_sizes()
    print("token sizes (characters): typical / largest")
    for name, row in report["token_sizes"].items():
        print(f"  {name:<22} {row['typical']:>5} / {row['largest']:>5}")

    report["stages"] = stages(args.seed, args.calls, 5)
    print("\nin-process µs per call, validation by token:")
    for game, row in report["stages"].items():
        print(f"  {game}: " + ", ".join(f"{k} {v:.1f}" for k, v in row.items()))

    report["crossover"] = crossover(args.seed, redis, 5)
    print("\nin-process µs per full-log validation, warm (the log's state cached):")
    columns = ("off", "memory", "redis", "memory miss", "redis miss")
    print(
        f"  {'events':>6} " + " ".join(f"{c:>11}" for c in columns)
        + "   ÷ off: median of the per-round ratios (min-max)"
    )  # fmt: skip
    for row in report["crossover"]["rows"]:
        cells = " ".join(f"{row[c]:>11.1f}" for c in columns)
        ratios = " ".join(
            f"{r.median:.2f} ({r.low:.2f}-{r.high:.2f})"
            for r in (row["ratios"][c] for c in columns[1:])
        )
        print(f"  {row['events']:>6} {cells}   {ratios}")
        row["ratios"] = {name: r.to_dict() for name, r in row["ratios"].items()}
    print(
        f"  a lookup pays (at most 1.05 times off) from: {report['crossover']['pays_from']} events"
    )


def measure(args: argparse.Namespace, redis: RedisProcess, workdir: Path) -> dict[str, Any]:
    """Every figure, printed as it comes; Redis is the benchmark's own server."""
    report: dict[str, Any] = {
        "machine": {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "cpus": len(os.sched_getaffinity(0)),
            "date": time.strftime("%Y-%m-%d"),
            "build": arbiter.BUILD,
        },
        "params": {k: str(v) for k, v in vars(args).items()},
    }
    print(f"tute-arbiter {arbiter.__version__}, {arbiter.BUILD} engine (here and in the servers)")
    if not args.token_only:
        in_process(args, redis, report)

    if not args.no_http:
        report["http"] = http_cases(args, redis, workdir)
        results = report["http"]["results"]
        ratios = report["http"]["ratios"]
        print(f"\nHTTP (wrk, {args.connections} connections, {report['http']['workers']} workers, "
              f"median of {args.rounds} rounds of {args.seconds:g} s)")  # fmt: skip
        for name, r in results.items():
            print(
                f"  {name:<16} {r['body_bytes']:>7} B  {r['rps']:>8.1f} req/s  "
                f"p50 {r['p50_ms']:>6.2f} ms  p99 {r['p99_ms']:>6.2f} ms  "
                f"cpu {r['server_cpu_us_per_request']:>6.0f} µs/req  errors {r['errors']}"
            )
        print(f"  ratios in req/s: median of {args.rounds} per-round ratios (min-max, IQR)")
        for name, ratio in ratios.items():
            print(f"    {name:<28} {ratio}")
        report["http"]["ratios"] = {name: r.to_dict() for name, r in ratios.items()}
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="timed seconds per case")
    parser.add_argument("--warmup", type=float, default=1.0, help="untimed seconds per case")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every HTTP case")
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--seed", type=int, default=100)
    parser.add_argument("--calls", type=int, default=2000, help="calls per in-process loop")
    parser.add_argument("--no-http", action="store_true", help="in-process figures only")
    parser.add_argument(
        "--before", type=Path, default=None,
        help="another source tree: its token validations are timed in the same rounds",
    )
    parser.add_argument(
        "--token-only", action="store_true",
        help="HTTP: only the token validations and their floors (no full logs, nothing in process)",
    )  # fmt: skip
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, running(Path(tmp)) as redis:
        report = measure(args, redis, Path(tmp))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
