"""How fast ``arbiter conformance play`` asks positions of the shipped adapter.

Run ``.venv/bin/python benchmarks/bench_play.py`` (``--games 40 --rounds 3`` for a quick look,
``--json FILE`` to keep the figures). Each round plays the same games (the same seed) against
``conformance/adapter.py`` run as a command (protocol 3: asked its capabilities first, then
answering from the position; the speed counted from its first answer), twice: as shipped,
with the next position's questions sent before the answers of the last are read
(``pipelined``), and with each position's answers read before the next is prepared
(``serial``); the two are timed one right after the other, in reverse order every other round
(``harness.interleave``). Reported: positions asked per second of each (the median round, with
its range and interquartile range), the per-round ratio of the two, and the CPU time each side
spends per position (the checker's threads, the adapter's process): on a loaded machine the
rate falls, the CPU per position much less. The checker and the adapter run the same build of
the engine (compiled or pure, said first).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import ROOT, interleave

import arbiter
from arbiter.conformance.kit import play as playing
from arbiter.conformance.kit.capabilities import ask
from arbiter.conformance.kit.engines import CommandEngine
from arbiter.conformance.kit.play import Plan, PlayRun

ADAPTER = f"{sys.executable} {ROOT / 'conformance' / 'adapter.py'}"


@dataclass
class Measured:
    """One run: its positions per second, and the CPU time per position of each side (the
    checker's, all its threads; the adapter's, read when it has exited)."""

    run: PlayRun
    checker_cpu: float
    adapter_cpu: float

    @property
    def speed(self) -> float:
        return self.run.speed

    def per_position(self, seconds: float) -> float:
        return seconds / self.run.positions * 1e6


def side(games: int, seed: int, ahead: int) -> Any:
    def run() -> Measured:
        playing.AHEAD = ahead  # the module's constant, as the Player reads it
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = time.process_time()
        try:
            engine = CommandEngine(ADAPTER, 30)
            plan = Plan(games=games, seed=seed, caps=ask(engine))
            played = playing.play(engine, plan)
        finally:
            playing.AHEAD = 1
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        adapter = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
        return Measured(played, time.process_time() - cpu, adapter)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", dest="json_file")
    args = parser.parse_args()
    print(f"build: {arbiter.BUILD}; {args.games} games a round, {args.rounds} rounds")
    rounds = interleave(
        {
            "pipelined": side(args.games, args.seed, 1),
            "serial": side(args.games, args.seed, 0),
        },
        args.rounds,
    )
    first = rounds.measurements["pipelined"][0].run
    print(f"a round: {first.positions} positions, {first.questions} questions")
    figures: dict[str, Any] = {"build": arbiter.BUILD, "games": args.games}
    for name in rounds.names:
        speed = rounds.spread(name, lambda m: m.speed)
        checker = rounds.spread(name, lambda m: m.per_position(m.checker_cpu))
        adapter = rounds.spread(name, lambda m: m.per_position(m.adapter_cpu))
        print(f"{name:>10}: {speed.format(0)} positions/s; CPU per position: checker "
              f"{checker.format(0)} µs, adapter {adapter.format(0)} µs")  # fmt: skip
        figures[name] = {
            "positions_per_second": speed.to_dict(),
            "checker_cpu_us": checker.to_dict(),
            "adapter_cpu_us": adapter.to_dict(),
        }
    ratio = rounds.ratio("pipelined", "serial", lambda m: m.speed)
    print(f"pipelined / serial, per round: {ratio}")
    figures["ratio"] = ratio.to_dict()
    if args.json_file:
        Path(args.json_file).write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
