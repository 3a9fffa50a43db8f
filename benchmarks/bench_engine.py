"""Replay throughput of the referee against an OpenSpiel baseline, and against another source
tree's engine.

Run ``.venv/bin/python benchmarks/bench_engine.py`` (or ``make bench``); ``--deals 200
--rounds 5`` for a quick look, ``--json FILE`` to keep the figures, ``--before PATH`` to time
another source tree's engine against this one. See benchmarks/README.md.

For every ruleset (and player count of tute-gana-pierde) a fixed set of random complete
single-deal logs is generated *before* any timing, then replayed in the modes of
``benchmarks/replays.py``: ``replay`` (``arbiter.replay``), ``to_dict`` (its answer's body),
``engine`` (``arbiter.engine.match.replay`` on the raw log: the engine alone) and ``steps``
(the body with every event's position view). The baseline is OpenSpiel's ``oh_hell`` (four
players, ten tricks: the same shape as tute-4p): recorded random histories replayed action by
action, checking each player's action against ``legal_actions()`` as the referee checks each
move.

Every ratio is taken round by round (``benchmarks/harness.py``): the modes of a ruleset and,
for tute-4p, OpenSpiel run one after the other in every round (in reverse every other round);
a ratio is the median of the per-round ratios, printed with its range and interquartile range.
Per-side figures are the median over the rounds, after one warm-up round, with the garbage
collector on as in production.

``--before PATH``: the same logs (written once to a JSON file) replayed by ``arbiter.replay``
and ``.to_dict()`` in four worker processes, this tree's and PATH's, compiled and pure
(``ARBITER_PURE=1``), all taking turns round by round; after/before ratios per build.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: benchmarks/ is on the path, the root is not
    sys.path.insert(0, str(ROOT))

import arbiter  # noqa: E402
from arbiter.simulate import random_log  # noqa: E402
from benchmarks import harness, replays  # noqa: E402
from benchmarks.harness import Spread  # noqa: E402

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
OPENSPIEL = "openspiel"

RENUNCIO_RATE = 0.02
DECLARE_RATE = 0.5
#: Slowest/fastest round above which a series is reported as noisy.
NOISE_SPREAD = 1.25
MODES = replays.MODES
MODE_TITLES = {
    "replay": "replay",
    "to_dict": "+to_dict",
    "engine": "engine",
    "steps": "steps",
}
#: The modes timed against another source tree: those every tree of the project has.
BEFORE_MODES = ("replay", "to_dict")
BUILDS = ("compiled", "pure")
#: Where OpenSpiel runs in a round of ``--before``: next to the compiled replays of COMPARED.
BASELINE_SLOT = ("compiled", COMPARED, "to_dict")
#: The name of the set of every benched ruleset's logs in ``--before``.
EVERY = "all"


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


def check_logs(label: str, logs: list[dict[str, Any]]) -> dict[str, Any]:
    """Every log replays to a complete match; the facts of the set (events, renuncios)."""
    results = [arbiter.replay(log) for log in logs]
    bad = [r.status for r in results if r.status != "complete"]
    if bad:
        raise SystemExit(f"{label}: {len(bad)} logs did not replay as complete: {bad[:3]}")
    events = sum(len(d["events"]) for log in logs for d in log["deals"])
    return {
        "deals": len(logs),
        "events": events,
        "events_per_deal": events / len(logs),
        "deals_with_renuncio": sum(
            1 for r in results if any(d.state.violations for d in r.match.deals)
        ),
    }


# --- OpenSpiel baseline -------------------------------------------------------------------------


def prepare_openspiel(games: int, seed: int) -> tuple[dict[str, Any], Callable[[], None]] | None:
    """Record ``games`` random oh_hell histories; return their facts and the replay batch."""
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


def _version(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


# --- timing ----------------------------------------------------------------------------------


def per_item(rounds: harness.Rounds, name: str, items: int) -> harness.Spread:
    """µs per item (deal, event, game ...) of one side, over the rounds."""
    return rounds.spread(name).scaled(1e6 / items)


def bench_ruleset(
    facts: dict[str, Any],
    logs: list[dict[str, Any]],
    baseline: tuple[dict[str, Any], Callable[[], None]] | None,
    rounds: int,
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Time every mode of one ruleset (and the baseline, if given) in interleaved rounds."""
    sides = {mode: harness.timed(batch) for mode, batch in replays.batches(logs).items()}
    if baseline is not None:
        sides[OPENSPIEL] = harness.timed(baseline[1])
    measured = harness.interleave(sides, rounds)
    result: dict[str, Any] = dict(facts)
    for mode in MODES:
        result[mode] = {
            "us_per_deal": per_item(measured, mode, facts["deals"]).to_dict(),
            "us_per_event": per_item(measured, mode, facts["events"]).to_dict(),
            "rounds_s": measured.values(mode),
        }
    if baseline is None:
        return result, None
    base_facts = baseline[0]
    base = {
        **base_facts,
        "us_per_game": per_item(measured, OPENSPIEL, base_facts["games"]).to_dict(),
        "us_per_player_move": per_item(measured, OPENSPIEL, base_facts["player_moves"]).to_dict(),
        "us_per_action": per_item(measured, OPENSPIEL, base_facts["actions"]).to_dict(),
        "rounds_s": measured.values(OPENSPIEL),
    }
    per_deal = base_facts["games"] / facts["deals"]
    per_event = base_facts["player_moves"] / facts["events"]
    base["ratios"] = {
        mode: {
            "per_deal": measured.ratio(mode, OPENSPIEL).scaled(per_deal).to_dict(),
            "per_event": measured.ratio(mode, OPENSPIEL).scaled(per_event).to_dict(),
        }
        for mode in MODES
    }
    base["order"] = [list(o) for o in measured.order]
    return result, base


# --- before / after --------------------------------------------------------------------------


def before_after(
    before: Path,
    sets: dict[str, list[dict[str, Any]]],
    baseline: tuple[dict[str, Any], Callable[[], None]] | None,
    rounds: int,
    workdir: Path,
) -> dict[str, Any]:
    """``arbiter.replay`` and ``.to_dict()`` of each set of logs with the engine of ``before``
    and of this tree, compiled and pure: four workers, every batch taking turns in every round;
    with a ``baseline``, OpenSpiel takes its turn too, next to the compiled batches of
    :data:`COMPARED`'s logs."""
    files = {}
    for name, logs in sets.items():
        files[name] = str(workdir / f"logs-{len(files)}.json")
        Path(files[name]).write_text(json.dumps(logs), encoding="utf-8")
    setup = f"{Path(replays.__file__).resolve()}:worker"
    argument = {"logs": files, "modes": list(BEFORE_MODES)}
    trees = {"after": ROOT, "before": before.resolve()}
    workers: dict[tuple[str, str], harness.Worker] = {}
    try:
        for build in BUILDS:
            env: dict[str, str | None] = {"ARBITER_PURE": "1" if build == "pure" else None}
            for side, tree in trees.items():
                worker = harness.Worker(setup, argument, tree, env)
                workers[build, side] = worker
                if worker.info["build"] != build or Path(worker.info["tree"]) != tree:
                    raise SystemExit(
                        f"{side} ({tree}) asked for the {build} build, got the "
                        f"{worker.info['build']} build of {worker.info['tree']}"
                        + ("; build it in place" if build == "compiled" else "")
                    )
        # Each after side next to its before side: they run one right after the other.
        sides: dict[str, Callable[[], float]] = {}
        for build in BUILDS:
            for name in sets:
                for mode in BEFORE_MODES:
                    if baseline is not None and (build, name, mode) == BASELINE_SLOT:
                        sides[OPENSPIEL] = harness.timed(baseline[1])
                    for side in trees:
                        batch = workers[build, side].side(replays.batch_name(mode, name))
                        sides[f"{build} {side} {mode} {name}"] = batch
        measured = harness.interleave(sides, rounds)
    finally:
        for worker in workers.values():
            worker.close()
    out: dict[str, Any] = {
        "trees": {side: str(tree) for side, tree in trees.items()},
        "versions": {f"{build} {side}": w.info["version"] for (build, side), w in workers.items()},
        "sets": {name: len(logs) for name, logs in sets.items()},
        "order": [list(o) for o in measured.order],
        "builds": {},
    }
    for build in BUILDS:
        out["builds"][build] = {name: {} for name in sets}
        for name, logs in sets.items():
            for mode in BEFORE_MODES:
                after, was = f"{build} after {mode} {name}", f"{build} before {mode} {name}"
                out["builds"][build][name][mode] = {
                    "before_us_per_deal": per_item(measured, was, len(logs)).to_dict(),
                    "after_us_per_deal": per_item(measured, after, len(logs)).to_dict(),
                    "after_over_before": measured.ratio(after, was).to_dict(),
                }
    every = next(iter(sets))
    out["pure_over_compiled_after"] = {
        mode: measured.ratio(
            f"pure after {mode} {every}", f"compiled after {mode} {every}"
        ).to_dict()
        for mode in BEFORE_MODES
    }
    if OPENSPIEL in sides and baseline is not None:
        games = baseline[0]["games"]
        per_deal = games / len(sets[COMPARED])
        out["openspiel"] = {
            "us_per_game": per_item(measured, OPENSPIEL, games).to_dict(),
            "ratios": {
                build: {
                    mode: {
                        side: measured.ratio(f"{build} {side} {mode} {COMPARED}", OPENSPIEL)
                        .scaled(per_deal)
                        .to_dict()
                        for side in ("before", "after")
                    }
                    for mode in BEFORE_MODES
                }
                for build in BUILDS
            },
        }
    return out


# --- report -----------------------------------------------------------------------------------


def print_table(results: dict[str, dict[str, Any]], base: dict[str, Any] | None) -> None:
    head = f"{'ruleset':<20} {'ev/deal':>7} {'renunc':>6}"
    for mode in MODES:
        head += f" | {MODE_TITLES[mode]:>17}"
    print(head)
    sub = f"{'':<20} {'':>7} {'deals':>6}"
    for _ in MODES:
        sub += f" | {'us/deal':>8} {'us/ev':>8}"
    print(sub)
    print("-" * len(head))
    for label, r in results.items():
        line = f"{label:<20} {r['events_per_deal']:>7.1f} {r['deals_with_renuncio']:>6}"
        for mode in MODES:
            deal, event = r[mode]["us_per_deal"]["median"], r[mode]["us_per_event"]["median"]
            line += f" | {deal:>8.1f} {event:>8.2f}"
        print(line)
    if base is not None:
        print("-" * len(head))
        print(
            f"{'openspiel oh_hell':<20} {base['player_moves_per_game']:>7.1f} {'':>6}"
            f" | {base['us_per_game']['median']:>8.1f} {base['us_per_player_move']['median']:>8.2f}"
            f"   (per game / per player move; {base['actions_per_game']:.1f} actions per game"
            f" with chance, {base['us_per_action']['median']:.2f} us per action)"
        )


def print_noise(results: dict[str, dict[str, Any]], base: dict[str, Any] | None) -> None:
    """Warn about series whose slowest round is far from the fastest (a busy machine)."""
    series = [
        (f"{label} {mode}", r[mode]["us_per_deal"])
        for label, r in results.items()
        for mode in MODES
    ]
    if base is not None:
        series.append((OPENSPIEL, base["us_per_game"]))
    noisy = [
        f"{name} x{s['max'] / s['min']:.2f}"
        for name, s in series
        if s["max"] > NOISE_SPREAD * s["min"]
    ]
    if noisy:
        print(
            f"\nnote: rounds spread more than x{NOISE_SPREAD} (slowest/fastest) in: "
            f"{', '.join(noisy)}; is another process busy? The ratios below are per round, "
            "each side against the other in the same round; --json keeps every round."
        )


def print_ratios(base: dict[str, Any], rounds: int) -> None:
    print(
        f"\n{COMPARED} / OpenSpiel {OPENSPIEL_GAME}: median of {rounds} per-round ratios "
        "(min-max, IQR); <= 1.00: ours no slower"
    )
    print(f"{'':<10} {'per deal':<34} {'per event'}")
    for mode, r in base["ratios"].items():
        deal, event = Spread.from_dict(r["per_deal"]), Spread.from_dict(r["per_event"])
        print(f"{MODE_TITLES[mode]:<10} {deal!s:<34} {event!s:<34}".rstrip())


def print_before_after(figures: dict[str, Any], rounds: int) -> None:
    sets = ", ".join(f"{name}: {deals} deals" for name, deals in figures["sets"].items())
    print(
        f"\nbefore: {figures['trees']['before']}\nafter:  {figures['trees']['after']}\n"
        f"the same logs on both sides ({sets}); us per deal (median of {rounds} rounds) and "
        "after/before: median of the per-round ratios (min-max, IQR)"
    )
    print(f"{'build':<9} {'mode':<9} {'logs':<8} {'before':>8} {'after':>8}   after/before")
    for build, named in figures["builds"].items():
        for name, modes in named.items():
            for mode, r in modes.items():
                before, after = r["before_us_per_deal"]["median"], r["after_us_per_deal"]["median"]
                ratio = Spread.from_dict(r["after_over_before"])
                print(
                    f"{build:<9} {MODE_TITLES[mode]:<9} {name:<8} {before:>8.1f} {after:>8.1f}"
                    f"   {ratio}"
                )
    print(
        f"pure/compiled (after, {next(iter(figures['sets']))}): "
        + "   ".join(
            f"{MODE_TITLES[m]} {Spread.from_dict(r)}"
            for m, r in figures["pure_over_compiled_after"].items()
        )
    )
    base = figures.get("openspiel")
    if base is None:
        return
    print(
        f"\n{COMPARED} / OpenSpiel in the same rounds (OpenSpiel "
        f"{base['us_per_game']['median']:.1f} us per game): per deal, median of the per-round "
        "ratios (min-max, IQR)"
    )
    print(f"{'build':<9} {'mode':<9} {'before':<34} after")
    for build, modes in base["ratios"].items():
        for mode, r in modes.items():
            before, after = Spread.from_dict(r["before"]), Spread.from_dict(r["after"])
            print(f"{build:<9} {MODE_TITLES[mode]:<9} {before!s:<34} {after}")


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
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=1000, help="logs per ruleset (default 1000)")
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds (default 15)")
    parser.add_argument("--seed", type=int, default=20240601, help="random seed")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    parser.add_argument(
        "--only", metavar="LABEL", action="append", help="bench only this ruleset (repeatable)"
    )
    parser.add_argument("--no-baseline", action="store_true", help="skip OpenSpiel")
    parser.add_argument(
        "--before",
        metavar="PATH",
        type=Path,
        help="also time this source tree's engine (compiled and pure) against this tree's",
    )
    args = parser.parse_args(argv)
    if args.deals < 1 or args.rounds < 1:
        parser.error("--deals and --rounds must be at least 1")
    configs = [c for c in CONFIGS if not args.only or c[0] in args.only]
    if not configs:
        parser.error(f"--only: choose among {', '.join(c[0] for c in CONFIGS)}")
    if args.before is not None and not (args.before / "arbiter" / "__init__.py").is_file():
        parser.error(f"--before: {args.before} is not a source tree of the project")

    info = machine()
    print(
        f"tute-arbiter {info['arbiter']} ({info['build']} engine) | Python {info['python']} | "
        f"{info['cpus']} CPUs | "
        f"{args.deals} deals per ruleset | {args.rounds} rounds (+1 warm-up) | "
        f"seed {args.seed}",
        flush=True,
    )
    print("generating logs and histories (not timed) ...", end="", flush=True)
    start = time.perf_counter()
    logs = {label: make_logs(ruleset, players, args.deals, args.seed)
            for label, ruleset, players in configs}  # fmt: skip
    facts = {label: {"ruleset": ruleset, "players": players, **check_logs(label, logs[label])}
             for label, ruleset, players in configs}  # fmt: skip
    baseline = None if args.no_baseline else prepare_openspiel(args.deals, args.seed)
    print(f" {time.perf_counter() - start:.1f} s", flush=True)

    results: dict[str, dict[str, Any]] = {}
    base = None
    for label, ruleset_logs in logs.items():
        print(f"  timing {label} ...", end="", flush=True)
        start = time.perf_counter()
        # The baseline takes turns with the ruleset it is compared with.
        with_base = baseline if label == COMPARED else None
        results[label], compared = bench_ruleset(facts[label], ruleset_logs, with_base, args.rounds)
        base = compared or base
        print(f" {time.perf_counter() - start:.1f} s", flush=True)
    print()
    print_table(results, base)
    print_noise(results, base)
    if base is not None:
        print_ratios(base, args.rounds)

    versus = None
    if args.before is not None:
        print(f"\ntiming the engine of {args.before} against this tree's ...", end="", flush=True)
        start = time.perf_counter()
        if len(logs) == 1:
            sets = dict(logs)
        else:
            sets = {EVERY: [log for label in logs for log in logs[label]]}
            if COMPARED in logs:
                sets[COMPARED] = logs[COMPARED]
        with tempfile.TemporaryDirectory() as tmp:
            versus = before_after(
                args.before, sets, baseline if COMPARED in logs else None, args.rounds, Path(tmp)
            )
        versus["rulesets"] = list(logs)
        print(f" {time.perf_counter() - start:.1f} s", flush=True)
        print_before_after(versus, args.rounds)

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
            "before_after": versus,
        }
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(payload, fh, indent=2)
            fh.write("\n")
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
