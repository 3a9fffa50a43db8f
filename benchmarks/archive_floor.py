"""The floor under ``arbiter score --jobs 1``: what one core gets from the work every NDJSON
line needs (read the log with orjson, replay it, make its scores body, write it as JSON) with
nothing else around it, side by side with the command itself.

Run ``.venv/bin/python benchmarks/archive_floor.py`` (``--games 20000 --rounds 3`` for a
quick look; ``--archive FILE`` to read an archive of one's own instead of the generated one).

**Archive.** As ``bench_archive.py`` makes them: ``--distinct`` one-deal games of each of
tute-2p and tute-4p (fixed seed, renuncio_rate 0.02), shuffled together and written over and
over to ``--games`` lines, each with its own ``id``.

**Sides**, interleaved round by round (``harness.interleave``: A B C ..., then in reverse):

- ``command``: ``arbiter score ARCHIVE --jobs 1 --out FILE --quiet`` in a new process, less
  the same command on a 200-line archive run in the same round (its start: interpreter,
  imports); the CPU is the child's, all its threads (the manifest's checksums too);
- ``floor``: in this process, the archive read in 1 MiB blocks and split by the command's
  own splitter (:func:`arbiter.archive.lines.split_lines`), each line ``orjson.loads`` →
  :meth:`arbiter.Referee.score` → ``scores_dict("en")`` → ``orjson.dumps``: the four steps a
  scored line cannot do without, with the same engine;
- ``loads``, ``loads + replay``: the first one and two of those steps alone, so that the floor
  splits into reading, replaying and the body (made and written).

Figures are µs of CPU a game (``time.process_time`` for this process, ``RUSAGE_CHILDREN`` for
the command), medians over the rounds; each ratio is the median of the per-round ratios with
its range and interquartile range. The floor's games/s is the most ``--jobs 1`` could get from
this parser, engine and body on this machine if everything else it does cost nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arbiter.archive.lines import split_lines  # noqa: E402
from arbiter.settings import Settings  # noqa: E402
from benchmarks import harness  # noqa: E402
from benchmarks.bench_archive import SMALL, mixed_games, mode_side, write_archive  # noqa: E402

BLOCK = 1 << 20


def lines_of(path: Path) -> Iterator[bytes]:
    """The lines of ``path`` that hold something, read in blocks and split as the command
    splits its input."""
    with path.open("rb", buffering=0) as f:
        blocks = iter(lambda: f.read(BLOCK), b"")
        for line in split_lines(blocks, Settings().max_body_bytes):
            if isinstance(line, bytes) and line:
                yield line


def in_process(path: Path, steps: int) -> Callable[[], float]:
    """A side that runs the first ``steps`` of load, replay, body and dump on every line of
    ``path`` in this process: its CPU seconds."""
    from arbiter import Referee

    referee = Referee()
    loads, dumps, score = orjson.loads, orjson.dumps, referee.score

    def side() -> float:
        start = time.process_time()
        for line in lines_of(path):
            log = loads(line)
            if steps > 1:
                replay = score(log)
                if steps > 2:
                    dumps(replay.scores_dict("en"))
        return time.process_time() - start

    return side


def command(path: Path, small: Path, games: int, out: Path) -> Callable[[], float]:
    """A side that runs the command on ``path`` and on ``small`` (bench_archive's ``--jobs 1``
    mode): the CPU seconds of the first less those of the second (the command's start), for
    ``games`` games."""
    mode = mode_side(small, path, ["--jobs", "1"], out)

    def side() -> float:
        r = mode()
        return (r["cpu"] - r["cpu_small"]) * games / (games - SMALL)

    return side


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--distinct", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--archive", type=Path, help="an NDJSON archive to read instead")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="archive-floor-") as tmp:
        workdir = Path(tmp)
        path = args.archive or write_archive(
            workdir / "archive.ndjson", mixed_games(args.distinct), args.games, "g"
        )
        games = sum(1 for _ in lines_of(path))
        small = workdir / "small.ndjson"
        with path.open("rb") as f, small.open("wb") as s:
            s.writelines(line for _, line in zip(range(SMALL), f, strict=False))
        out = workdir / "out.ndjson"
        sides = {
            "command": command(path, small, games, out),
            "floor": in_process(path, 3),
            "loads + replay": in_process(path, 2),
            "loads": in_process(path, 1),
        }
        rounds = harness.interleave(
            sides, args.rounds, progress=lambda r, n: print(f"round {r + 1}: {n}", file=sys.stderr)
        )

    per_game = 1e6 / games
    print(f"{games:,} games, {args.rounds} rounds; µs of CPU a game, median (min-max, IQR)")
    for name in sides:
        print(f"  {name:<16} {rounds.spread(name).scaled(per_game)}")
    floor = rounds.spread("floor").median
    print(f"  floor, games/s: {games / floor:,.0f}")
    split = (("loads", "floor"), ("loads + replay", "floor"), ("floor", "command"))
    for top, bottom in split:
        print(f"  {top} / {bottom}: {rounds.ratio(top, bottom)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
