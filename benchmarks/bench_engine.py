"""Replay throughput of the referee against an OpenSpiel baseline.

Run ``.venv/bin/python benchmarks/bench_engine.py`` (or ``make bench``); ``--deals 200
--rounds 3`` for a quick look, ``--json FILE`` to keep the figures. See benchmarks/README.md.

For every ruleset (and player count of tute-gana-pierde) a fixed set of random complete
single-deal logs is generated *before* any timing, then replayed in three ways:

* ``replay``   ``arbiter.replay(log)``: parse + replay, the work of ``POST /v1/replays``
  without the response body;
* ``+to_dict`` ``arbiter.replay(log).to_dict()``: the whole API body;
* ``core``     ``arbiter.engine.match.replay(parsed)`` on logs parsed beforehand: the engine
  alone.

``parse`` (``parse_log`` alone) is measured too. The baseline is OpenSpiel's ``oh_hell``
(four players, ten tricks: the same shape as tute-4p): recorded random histories replayed
action by action, checking each player's action against ``legal_actions()`` as the referee
checks each move. Every figure is the median over ``--rounds`` timed rounds after one
warm-up round, with the garbage collector on as in production.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import arbiter
from arbiter.engine.log import GameLog, parse_log
from arbiter.engine.match import replay as core_replay
from arbiter.simulate import random_log

#: (label, ruleset, players)
CONFIGS: tuple[tuple[str, str, int], ...] = (
    ("tute-2p", "tute-2p", 2),
    ("tute-3p", "tute-3p", 3),
    ("tute-4p", "tute-4p", 4),
    ("tute-cabron", "tute-cabron", 3),
    ("tute-gana-pierde/3", "tute-gana-pierde", 3),
    ("tute-gana-pierde/4", "tute-gana-pierde", 4),
    ("tute-gana-pierde/5", "tute-gana-pierde", 5),
)
#: The ruleset compared with the baseline (same table: four players, ten tricks each).
COMPARED = "tute-4p"
OPENSPIEL_GAME = "oh_hell(players=4,num_tricks_fixed=10)"

RENUNCIO_RATE = 0.02
DECLARE_RATE = 0.5
#: Slowest/fastest round above which a series is reported as noisy.
NOISE_SPREAD = 1.25
MODES = ("replay", "to_dict", "core", "parse")
MODE_TITLES = {
    "replay": "(a) replay",
    "to_dict": "(b) +to_dict",
    "core": "(c) core",
    "parse": "parse only",
}


# --- timing ----------------------------------------------------------------------------------


def time_interleaved(runs: dict[str, Callable[[], object]], rounds: int) -> dict[str, list[float]]:
    """Seconds per call of each runner, for each of ``rounds`` rounds, after one warm-up call
    of each. The runners take turns within a round, so that a burst of load from another
    process slows all of them alike instead of one mode's whole series."""
    for run in runs.values():
        run()
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return times


def summary(times: list[float], items: int, events: int) -> dict[str, Any]:
    median = statistics.median(times)
    return {
        "us_per_deal": median / items * 1e6,
        "us_per_event": median / events * 1e6,
        "median_s": median,
        "min_s": min(times),
        "max_s": max(times),
        "rounds_s": times,
    }


# --- ours --------------------------------------------------------------------------------------


def make_logs(ruleset: str, players: int, deals: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(f"{seed}/{ruleset}/{players}")
    return [
        random_log(
            ruleset,
            rng,
            players=players,
            deals=1,
            renuncio_rate=RENUNCIO_RATE,
            declare_rate=DECLARE_RATE,
        )
        for _ in range(deals)
    ]


Runners = dict[str, Callable[[], object]]


def prepare_ruleset(
    label: str, ruleset: str, players: int, deals: int, seed: int
) -> tuple[dict[str, Any], Runners]:
    """Generate (and check) the logs of one ruleset; return their facts and the runners."""
    logs = make_logs(ruleset, players, deals, seed)
    events = sum(len(d["events"]) for log in logs for d in log["deals"])
    parsed: list[GameLog] = [parse_log(log) for log in logs]

    # Sanity: every log replays to a complete match; count the deals holding a renuncio.
    results = [arbiter.replay(log) for log in logs]
    bad = [r.status for r in results if r.status != "complete"]
    if bad:
        raise SystemExit(f"{label}: {len(bad)} logs did not replay as complete: {bad[:3]}")
    renuncio_deals = sum(1 for r in results if any(d.state.violations for d in r.match.deals))
    del results

    replay, parse = arbiter.replay, parse_log

    def run_replay() -> None:
        for log in logs:
            replay(log)

    def run_to_dict() -> None:
        for log in logs:
            replay(log).to_dict()

    def run_core() -> None:
        for p in parsed:
            core_replay(p)

    def run_parse() -> None:
        for log in logs:
            parse(log)

    facts = {
        "ruleset": ruleset,
        "players": players,
        "deals": deals,
        "events": events,
        "events_per_deal": events / deals,
        "deals_with_renuncio": renuncio_deals,
    }
    runs: Runners = {
        "replay": run_replay,
        "to_dict": run_to_dict,
        "core": run_core,
        "parse": run_parse,
    }
    return facts, runs


# --- OpenSpiel baseline -------------------------------------------------------------------------


def prepare_openspiel(games: int, seed: int) -> tuple[dict[str, Any], Callable[[], None]] | None:
    """Record ``games`` random oh_hell histories; return their facts and the replay runner."""
    try:
        import pyspiel
    except ImportError:
        print("OpenSpiel (pyspiel) is not installed: `make install-bench`; baseline skipped.")
        return None
    game = pyspiel.load_game(OPENSPIEL_GAME)
    rng = random.Random(f"{seed}/openspiel")
    histories: list[list[int]] = []
    player_moves = 0
    for _ in range(games):
        state = game.new_initial_state()
        actions = []
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                action = rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]
            else:
                action = rng.choice(state.legal_actions())
                player_moves += 1
            state.apply_action(action)
            actions.append(action)
        histories.append(actions)
    total_actions = sum(len(h) for h in histories)
    for history in histories:  # sanity: the recorded histories replay to the end
        state = game.new_initial_state()
        for action in history:
            state.apply_action(action)
        if not state.is_terminal():
            raise SystemExit("openspiel: a recorded history does not end the game")

    new_state = game.new_initial_state

    def run() -> None:
        for history in histories:
            state = new_state()
            for action in history:
                if not state.is_chance_node() and action not in state.legal_actions():
                    raise AssertionError(f"recorded action {action} is not legal")
                state.apply_action(action)

    facts = {
        "game": OPENSPIEL_GAME,
        "parameters": dict(game.get_parameters()),
        "open_spiel_version": _version("open_spiel"),
        "games": games,
        "player_moves": player_moves,
        "actions": total_actions,
        "player_moves_per_game": player_moves / games,
        "actions_per_game": total_actions / games,
    }
    return facts, run


def openspiel_summary(facts: dict[str, Any], times: list[float]) -> dict[str, Any]:
    stats = summary(times, facts["games"], facts["player_moves"])
    return {
        **facts,
        "us_per_game": stats["us_per_deal"],
        "us_per_player_move": stats["us_per_event"],
        "us_per_action": stats["median_s"] / facts["actions"] * 1e6,
        "median_s": stats["median_s"],
        "min_s": stats["min_s"],
        "max_s": stats["max_s"],
        "rounds_s": times,
    }


def _version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


# --- report -----------------------------------------------------------------------------------


def print_table(results: dict[str, dict[str, Any]], base: dict[str, Any] | None) -> None:
    head = f"{'ruleset':<20} {'ev/deal':>7} {'renunc':>6}"
    for mode in MODES:
        head += f" | {MODE_TITLES[mode]:>20}"
    print(head)
    sub = f"{'':<20} {'':>7} {'deals':>6}"
    for _ in MODES:
        sub += f" | {'us/deal':>10} {'us/event':>9}"
    print(sub)
    print("-" * len(head))
    for label, r in results.items():
        line = f"{label:<20} {r['events_per_deal']:>7.1f} {r['deals_with_renuncio']:>6}"
        for mode in MODES:
            line += f" | {r[mode]['us_per_deal']:>10.1f} {r[mode]['us_per_event']:>9.2f}"
        print(line)
    if base is not None:
        print("-" * len(head))
        print(
            f"{'openspiel oh_hell':<20} {base['player_moves_per_game']:>7.1f} {'':>6}"
            f" | {base['us_per_game']:>10.1f} {base['us_per_player_move']:>9.2f}"
            f"   (per game / per player move; {base['actions_per_game']:.1f} actions per game"
            f" with chance, {base['us_per_action']:.2f} us per action)"
        )


def print_noise(results: dict[str, dict[str, Any]], base: dict[str, Any] | None) -> None:
    """Warn about series whose slowest round is far from the fastest (a busy machine)."""
    series = [(f"{label} {mode}", r[mode]) for label, r in results.items() for mode in MODES]
    if base is not None:
        series.append(("openspiel", base))
    noisy = [
        f"{name} x{s['max_s'] / s['min_s']:.2f}"
        for name, s in series
        if s["max_s"] > NOISE_SPREAD * s["min_s"]
    ]
    if noisy:
        print(
            f"\nnote: rounds spread more than x{NOISE_SPREAD} (slowest/fastest) in: "
            f"{', '.join(noisy)}; is another process busy? Medians are shown; --json keeps "
            "every round."
        )


def ratios(ours: dict[str, Any], base: dict[str, Any]) -> dict[str, dict[str, float]]:
    return {
        mode: {
            "per_deal": ours[mode]["us_per_deal"] / base["us_per_game"],
            "per_event": ours[mode]["us_per_event"] / base["us_per_player_move"],
        }
        for mode in ("replay", "to_dict", "core")
    }


def print_ratios(table: dict[str, dict[str, float]]) -> None:
    print(f"\n{COMPARED} / OpenSpiel {OPENSPIEL_GAME}  (<= 1.00: ours no slower)")
    print(f"{'':<14} {'per deal':>9} {'per event':>10}")
    for mode, r in table.items():
        flag = "ok" if r["per_deal"] <= 1.0 else "SLOWER"
        print(f"{MODE_TITLES[mode]:<14} {r['per_deal']:>9.2f} {r['per_event']:>10.2f}  {flag}")


def machine() -> dict[str, Any]:
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "arbiter": arbiter.__version__,
        "build": arbiter.BUILD,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=1000, help="logs per ruleset (default 1000)")
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds (default 7)")
    parser.add_argument("--seed", type=int, default=20240601, help="random seed")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument(
        "--only", metavar="LABEL", action="append", help="bench only this ruleset (repeatable)"
    )
    parser.add_argument("--no-baseline", action="store_true", help="skip OpenSpiel")
    args = parser.parse_args(argv)
    if args.deals < 1 or args.rounds < 1:
        parser.error("--deals and --rounds must be at least 1")
    configs = [c for c in CONFIGS if not args.only or c[0] in args.only]
    if not configs:
        parser.error(f"--only: choose among {', '.join(c[0] for c in CONFIGS)}")

    info = machine()
    print(
        f"tute-arbiter {info['arbiter']} ({info['build']} engine) | Python {info['python']} | "
        f"{info['cpus']} CPUs | "
        f"{args.deals} deals per ruleset | median of {args.rounds} rounds (+1 warm-up) | "
        f"seed {args.seed}",
        flush=True,
    )
    print("generating logs and histories (not timed) ...", end="", flush=True)
    start = time.perf_counter()
    prepared = {
        label: prepare_ruleset(label, ruleset, players, args.deals, args.seed)
        for label, ruleset, players in configs
    }
    baseline = None if args.no_baseline else prepare_openspiel(args.deals, args.seed)
    print(f" {time.perf_counter() - start:.1f} s", flush=True)

    results: dict[str, dict[str, Any]] = {}
    base = None
    for label, (facts, runs) in prepared.items():
        print(f"  timing {label} ...", end="", flush=True)
        start = time.perf_counter()
        if label == COMPARED and baseline is not None:
            # The baseline takes turns with the ruleset it is compared with.
            runs = {**runs, "openspiel": baseline[1]}
        times = time_interleaved(runs, args.rounds)
        results[label] = {
            **facts,
            **{mode: summary(times[mode], facts["deals"], facts["events"]) for mode in MODES},
        }
        if "openspiel" in times and baseline is not None:
            base = openspiel_summary(baseline[0], times["openspiel"])
        print(f" {time.perf_counter() - start:.1f} s", flush=True)
    if baseline is not None and base is None:
        print("  timing openspiel oh_hell ...", end="", flush=True)
        start = time.perf_counter()
        times = time_interleaved({"openspiel": baseline[1]}, args.rounds)
        base = openspiel_summary(baseline[0], times["openspiel"])
        print(f" {time.perf_counter() - start:.1f} s", flush=True)
    print()
    print_table(results, base)
    print_noise(results, base)
    table = None
    if base is not None and COMPARED in results:
        table = ratios(results[COMPARED], base)
        print_ratios(table)

    if args.json:
        payload = {
            "machine": info,
            "params": {
                "deals": args.deals,
                "rounds": args.rounds,
                "seed": args.seed,
                "renuncio_rate": RENUNCIO_RATE,
                "declare_rate": DECLARE_RATE,
            },
            "rulesets": results,
            "openspiel": base,
            "ratios": None if table is None else {"ruleset": COMPARED, **table},
        }
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(payload, fh, indent=2)
            fh.write("\n")
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
