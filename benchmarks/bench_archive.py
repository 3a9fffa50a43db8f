"""Archives: ``arbiter score`` games/s with ``--jobs 1``, ``--jobs 2`` and ``--dask local``,
against the same games posted one by one to ``/v1/scores``; and peak memory for small and huge
archives.

Run ``.venv/bin/python benchmarks/bench_archive.py`` (``--games 20000 --rounds 1
--rss-games 10000`` for a quick look; ``--json FILE`` keeps every figure). Everything stays on
127.0.0.1; the archives are generated under a temporary folder (``--workdir`` to choose it) and
removed at the end.

**Archives.** For each of tute-2p and tute-4p, ``--distinct`` games (one complete deal each,
``arbiter.simulate.random_log``, fixed seed, renuncio_rate 0.02) are generated, then written
over and over to ``--games`` lines, each with its own ``id`` (scoring has no cache: a repeated
game costs what a new one does, and the file is the size of a real archive of that many games).

**Speed.** The command is run as a user runs it (a new process, its output to a file), in
interleaved rounds (``--rounds``; every mode and, unless ``--no-http``, the HTTP baseline run
once per round, in reverse order every other round: ``harness.interleave``; a mode's figures
are its medians, every ratio the median of the per-round ratios, printed with its range and
interquartile range): ``--jobs 1``, ``--jobs 2``, and
``--dask local --jobs 2`` (a LocalCluster of two worker processes, started and stopped by the
command); and, as the ceiling of ``--jobs 2`` on this machine at that moment, two independent
``--jobs 1`` processes at once, each on half of the archive (the machine's 2 cores are shared
with other work: what two processes get from it varies). Each mode also scores a 200-game
archive; its time is the mode's fixed cost (process start, imports, the pool or cluster), and
the *marginal* rate is
``(games - 200) / (time - fixed cost)``: what a long archive gets. CPU time is the process
tree's (``RUSAGE_CHILDREN``: the command and the workers it waited for).

**Baseline.** The same distinct games posted one by one to ``POST /v1/scores`` of the shipped
server (gunicorn, ``deploy/gunicorn.conf.py``, two workers) by wrk at two keep-alive
connections (``benchmarks/harness.py``: warm-up, then ``--http-seconds``), the way a client
scores an archive today: games/s, and the server's CPU per game (from /proc; wrk's own CPU is
not counted, which favours the baseline). The server runs through the speed rounds, the
baseline taking its turn in each. Per core, the ratio is the server's CPU per game over HTTP ÷
the marginal CPU per game of ``--jobs 1`` in the same round (its CPU on the big archive less
its CPU on the small one, per game more). The batch endpoint (``POST /v1/scores/batch``,
10,000 games a request) is measured the same way, for reference.

**Memory.** ``--jobs 1`` and ``--jobs 2``, to NDJSON and to Parquet, on archives of each of
``--rss-games`` (default 10,000 and 1,000,000): the peak of the process tree's total RSS
(sampled every 50 ms from /proc) and the largest single process's peak (``ru_maxrss``), and
how long the run took. With ``--before``, each tree's peaks on each of ``--rss-games`` too.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import harness  # noqa: E402

RULESETS = ("tute-2p", "tute-4p")
MODES = {
    "jobs 1": ["--jobs", "1"],
    "jobs 2": ["--jobs", "2"],
    "dask local": ["--dask", "local", "--jobs", "2"],
}
SMALL = 200
#: The runs of the memory part: NDJSON, then Parquet, with each number of processes.
MEMORY_MODES = ("jobs 1", "jobs 2", "parquet jobs 1", "parquet jobs 2")
BATCH_LINES = 10_000


# --- archives ------------------------------------------------------------------------------


def distinct_games(ruleset: str, count: int, seed: int) -> list[bytes]:
    from arbiter.simulate import random_log

    rng = random.Random(seed)
    return [orjson.dumps(random_log(ruleset, rng, renuncio_rate=0.02)) for _ in range(count)]


def write_archive(path: Path, games: Sequence[bytes], count: int, tag: str) -> Path:
    """``count`` lines cycling through ``games``, each with its own id."""
    with path.open("wb", buffering=1 << 20) as f:
        for n in range(count):
            game = games[n % len(games)]
            f.write(b'{"id":"' + f"{tag}-{n}".encode() + b'",' + game[1:] + b"\n")
    return path


def mixed_games(per_ruleset: int) -> list[bytes]:
    """``per_ruleset`` distinct games of each ruleset, shuffled together (fixed seeds)."""
    logs = [g for r in RULESETS for g in distinct_games(r, per_ruleset, seed=20240601)]
    random.Random(7).shuffle(logs)
    return logs


# --- running the command ------------------------------------------------------------------


def _tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and its descendants, from /proc."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        with contextlib.suppress(OSError, ValueError):
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(c) for c in (task / "children").read_text().split()]
    return total


#: Runs a command and prints the resource use of its process tree as JSON: a process of its
#: own per measurement, since ru_maxrss of RUSAGE_CHILDREN is a maximum over every child ever.
_MEASURED = """
import json, resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"status": done.returncode, "err": done.stderr.decode()[-2000:],
                  "cpu": use.ru_utime + use.ru_stime, "maxrss_kib": use.ru_maxrss}))
"""


class Measured:
    """``arbiter score ARGS --quiet`` started in a process of its own (:data:`_MEASURED`),
    its tree's RSS sampled every 50 ms until :meth:`finish`."""

    def __init__(self, args: Sequence[str | Path], python: str = sys.executable) -> None:
        # paths made absolute, and the command run from the temporary folder: ``-m`` puts the
        # current folder first on sys.path, and from a checkout's root every interpreter
        # (``--before``'s too) would import that checkout's arbiter instead of its own
        paths = [str(a.absolute()) if isinstance(a, Path) else a for a in args]
        command = [python, "-m", "arbiter.cli", "score", *paths, "--quiet"]
        self.began = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _MEASURED, *command],
            stdout=subprocess.PIPE,
            text=True,
            cwd=tempfile.gettempdir(),
        )
        self.peak = 0
        self._done = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)
        self._sampler.start()

    def _sample(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, _tree_rss(self.proc.pid))
            self._done.wait(0.05)

    def finish(self) -> dict[str, float]:
        """Wall seconds, CPU seconds of the tree (the command and the workers it waited for),
        peak RSS of the tree and of its largest process."""
        out, _ = self.proc.communicate()
        seconds = time.perf_counter() - self.began
        self._done.set()
        self._sampler.join()
        use = json.loads(out)
        if use["status"] not in (0, 1, 3):  # 3: bad lines (none here, but a tree may say so)
            raise RuntimeError(f"arbiter score exited {use['status']}: {use['err']}")
        return {
            "seconds": seconds,
            "cpu_seconds": use["cpu"],
            "peak_tree_rss_mb": self.peak / 2**20,
            "max_process_rss_mb": use["maxrss_kib"] / 1024,
        }


def run(args: Sequence[str | Path], python: str = sys.executable) -> dict[str, float]:
    return Measured(args, python).finish()


def run_pair(first: Sequence[str | Path], second: Sequence[str | Path]) -> dict[str, float]:
    """Two commands at once: the slower's wall time, their CPU added up."""
    a, b = Measured(first), Measured(second)
    done = [a.finish(), b.finish()]
    return {
        "seconds": max(d["seconds"] for d in done),
        "cpu_seconds": sum(d["cpu_seconds"] for d in done),
    }


Round = dict[str, float]
RoundSide = Callable[[], Round]
CEILING = "2 x jobs 1 (ceiling)"
ONE_BY_ONE, BATCH = "http one by one", "http batch"


def _round(fixed: dict[str, float], figures: dict[str, float]) -> Round:
    """A round of a mode: the wall and CPU seconds of the small archive and of the big one."""
    return {
        "small": fixed["seconds"],
        "big": figures["seconds"],
        "cpu": figures["cpu_seconds"],
        "cpu_small": fixed["cpu_seconds"],
    }


def mode_side(small: Path, big: Path, flags: Sequence[str], target: Path) -> RoundSide:
    """One round of a mode: the small archive (its fixed cost), then the big one."""

    def side() -> Round:
        fixed = run([small, *flags, "--out", target])
        figures = run([big, *flags, "--out", target])
        return _round(fixed, figures)

    return side


def _ceiling(work: Path, halves: list[Path], small_halves: list[Path]) -> RoundSide:
    """What two independent processes get from this machine now: the ceiling of jobs 2."""

    def side() -> Round:
        pair: list[list[str | Path]] = [
            [half, "--jobs", "1", "--out", work / f"out{n}.ndjson"] for n, half in enumerate(halves)
        ]
        pair_small: list[list[str | Path]] = [
            [half, "--jobs", "1", "--out", work / f"out{n}.ndjson"]
            for n, half in enumerate(small_halves)
        ]
        fixed, figures = run_pair(*pair_small), run_pair(*pair)
        return _round(fixed, figures)

    return side


def _marginal_rate(games: int) -> Callable[[Round], float]:
    """Games/s of a round once its fixed cost is set aside."""
    return lambda r: (games - SMALL) / max(r["big"] - r["small"], 1e-9)


def _marginal_cpu_us(games: int) -> Callable[[Round], float]:
    return lambda r: (r["cpu"] - r["cpu_small"]) / (games - SMALL) * 1e6


def _rate(games: int) -> Callable[[Round], float]:
    return lambda r: games / r["big"]


def speed(
    work: Path,
    games: int,
    distinct: int,
    rounds: int,
    server: harness.Server | None,
    http_seconds: float,
) -> dict[str, Any]:
    """Per ruleset, every mode (and, with a ``server``, the same games over HTTP) in
    interleaved rounds: each mode's medians over the rounds, and every ratio as the median of
    the per-round ratios."""
    out: dict[str, Any] = {}
    for ruleset in RULESETS:
        logs = distinct_games(ruleset, distinct, seed=20240601)
        big = write_archive(work / f"{ruleset}.ndjson", logs, games, ruleset)
        small = write_archive(work / f"{ruleset}-small.ndjson", logs, SMALL, ruleset)
        halves = [
            write_archive(work / f"{ruleset}-half{n}.ndjson", logs, games // 2, ruleset)
            for n in (1, 2)
        ]
        small_halves = [
            write_archive(work / f"{ruleset}-small{n}.ndjson", logs, SMALL // 2, ruleset)
            for n in (1, 2)
        ]
        target = work / "out.ndjson"
        sides: dict[str, Callable[[], Any]] = {}
        if server is not None:  # the cases compared with jobs 1 next to it, jobs 1 in the middle
            sides.update(_http_sides(work, server, logs, http_seconds))
        sides[CEILING] = _ceiling(work, halves, small_halves)
        sides.update({mode: mode_side(small, big, flags, target) for mode, flags in MODES.items()})
        measured = harness.interleave(sides, rounds, warmup=0)
        out[ruleset] = {"games": games, "modes": {}, "order": [list(o) for o in measured.order]}
        for mode in [*MODES, CEILING]:
            t = {key: measured.values(mode, _key(key)) for key in ("big", "small", "cpu",
                                                                   "cpu_small")}  # fmt: skip
            wall, fixed = statistics.median(t["big"]), statistics.median(t["small"])
            cpu, cpu_fixed = statistics.median(t["cpu"]), statistics.median(t["cpu_small"])
            out[ruleset]["modes"][mode] = {
                "seconds": wall,
                "fixed_seconds": fixed,
                "games_per_s": games / wall,
                "marginal_games_per_s": (games - SMALL) / max(wall - fixed, 1e-9),
                "cpu_us_per_game": cpu / games * 1e6,
                "marginal_cpu_us_per_game": (cpu - cpu_fixed) / (games - SMALL) * 1e6,
                "rounds": t,
            }
        rate, marginal = _rate(games), _marginal_rate(games)
        ratios = {
            "jobs2_over_jobs1": measured.ratio("jobs 2", "jobs 1", rate),
            "jobs2_over_jobs1_marginal": measured.ratio("jobs 2", "jobs 1", marginal),
            "dask_over_jobs2": measured.ratio("dask local", "jobs 2", rate),
            "dask_over_jobs2_marginal": measured.ratio("dask local", "jobs 2", marginal),
            "ceiling_over_jobs1_marginal": measured.ratio(CEILING, "jobs 1", marginal),
        }
        if server is not None:
            out[ruleset]["http"] = {
                "one_by_one": _median_figures(measured.measurements[ONE_BY_ONE]),
                "batch": _median_figures(measured.measurements[BATCH]),
            }
            # per core: the server's CPU per game posted one by one / jobs 1's marginal CPU
            per_game = measured.values(ONE_BY_ONE, _key("server_cpu_us_per_request"))
            cli = measured.values("jobs 1", _marginal_cpu_us(games))
            ratios["one_by_one_cpu_over_jobs1_marginal_cpu"] = harness.Spread.of(
                [h / c for h, c in zip(per_game, cli, strict=True)]
            )
        out[ruleset]["ratios"] = ratios
        out[ruleset]["distinct"] = logs
    return out


def before_after(
    work: Path, games: int, distinct: int, rounds: int, before: str, sizes: Sequence[int] = ()
) -> Any:
    """``--before PYTHON``: ``--jobs 1`` of this tree against the tree of ``PYTHON`` (the
    interpreter of another checkout's venv, main's for instance), to NDJSON and to Parquet, on
    one-deal games of both rulesets, in interleaved rounds: games/s (wall, the process's start
    included), peak RSS, and the ratio after/before as the median of the per-round ratios.
    Then, for each of ``sizes`` (``--rss-games``), the peak memory of each tree and format once
    (the largest process's, and the tree's sampled from /proc)."""
    logs = mixed_games(distinct // 2)
    big = write_archive(work / "before-after.ndjson", logs, games, "ab")
    sides: dict[str, Callable[[], Any]] = {}
    for fmt in ("ndjson", "parquet"):
        for name, python in (("before", before), ("after", sys.executable)):
            target = work / f"{name}.{fmt}"
            flags = [big, "--jobs", "1", "--format", fmt, "--out", target]
            sides[f"{name} {fmt}"] = functools.partial(run, flags, python)
    measured = harness.interleave(sides, rounds, warmup=0)
    rate = _key("seconds")
    out: dict[str, Any] = {"games": games, "modes": {}}
    for name in sides:
        seconds = statistics.median(measured.values(name, rate))
        rss = statistics.median(measured.values(name, _key("max_process_rss_mb")))
        cpu = statistics.median(measured.values(name, _key("cpu_seconds")))
        out["modes"][name] = {
            "games_per_s": games / seconds,
            "games_per_cpu_s": games / cpu,  # what a core gives, however loaded the machine
            "max_process_rss_mb": rss,
        }

    def per_second(r: Round) -> float:
        return games / float(r["seconds"])

    def per_cpu_second(r: Round) -> float:
        return games / float(r["cpu_seconds"])

    out["ratios"] = {
        f"{fmt} {what}": measured.ratio(f"after {fmt}", f"before {fmt}", value).to_dict()
        for fmt in ("ndjson", "parquet")
        for what, value in (("wall", per_second), ("cpu", per_cpu_second))
    }
    out["memory"] = {}
    for size in sizes:
        archive = write_archive(work / f"rss-{size}.ndjson", logs, size, "rss")
        out["memory"][str(size)] = {
            f"{name} {fmt}": run(
                [archive, "--jobs", "1", "--format", fmt, "--out", work / f"rss.{fmt}"], python
            )
            for fmt in ("ndjson", "parquet")
            for name, python in (("before", before), ("after", sys.executable))
        }
        archive.unlink()
    return out


def _key(name: str) -> Callable[[Round], float]:
    return lambda r: float(r[name])


def _median_figures(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """Each numeric figure's median over the rounds, and every round."""
    numbers = [k for k, v in rounds[0].items() if isinstance(v, int | float)]
    return {
        **{k: statistics.median(float(r[k]) for r in rounds) for k in numbers},
        "rounds": rounds,
    }


# --- the HTTP baseline ----------------------------------------------------------------------


def _http_sides(
    work: Path, server: harness.Server, logs: list[bytes], seconds: float
) -> dict[str, Callable[[], dict[str, Any]]]:
    """The same distinct games posted one by one to ``/v1/scores`` by wrk (a warm-up, then
    ``seconds``), and in batches to ``/v1/scores/batch``: one side each."""
    body = b"".join(logs[n % len(logs)] + b"\n" for n in range(BATCH_LINES))

    def one_by_one() -> dict[str, Any]:
        return harness.measure(
            server, "/v1/scores", logs, connections=2, seconds=seconds, warmup=2, workdir=work
        )

    return {BATCH: lambda: _batches(server, body, seconds), ONE_BY_ONE: one_by_one}


def _batches(server: harness.Server, body: bytes, seconds: float) -> dict[str, float]:
    """POST /v1/scores/batch of BATCH_LINES games, one after another, for ``seconds``."""
    request = harness.gunicorn_support.request  # the harness's own helpers

    headers = {"Content-Type": "application/x-ndjson"}
    request(server.port, "POST", "/v1/scores/batch", body, headers, timeout=120)  # warm-up
    cpu, began, count = server.cpu_seconds(), time.perf_counter(), 0
    while time.perf_counter() - began < seconds:
        answer = request(server.port, "POST", "/v1/scores/batch", body, headers, timeout=120)
        assert answer.status == 200 and answer.body.count(b"\n") == BATCH_LINES
        count += BATCH_LINES
    wall = time.perf_counter() - began
    return {
        "games": count,
        "games_per_s": count / wall,
        "server_cpu_us_per_game": (server.cpu_seconds() - cpu) / count * 1e6,
    }


# --- memory ------------------------------------------------------------------------------


def memory(work: Path, sizes: Sequence[int], logs: list[bytes]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for size in sizes:
        began = time.perf_counter()
        archive = write_archive(work / f"rss-{size}.ndjson", logs, size, "rss")
        generated = time.perf_counter() - began
        out[str(size)] = {"archive_mb": archive.stat().st_size / 2**20, "generate_s": generated}
        for mode in MEMORY_MODES:
            fmt = "parquet" if mode.startswith("parquet") else "ndjson"
            target = work / f"rss-out.{fmt}"
            flags = MODES[mode.removeprefix("parquet ")]
            out[str(size)][mode] = run([archive, *flags, "--format", fmt, "--out", target])
            out[str(size)][mode]["output_mb"] = target.stat().st_size / 2**20
            target.unlink()
        archive.unlink()
    return out


# --- report ------------------------------------------------------------------------------


RATIO_TITLES = {
    "jobs2_over_jobs1": "jobs 2 / jobs 1, games/s",
    "jobs2_over_jobs1_marginal": "jobs 2 / jobs 1, marginal games/s",
    "dask_over_jobs2": "dask / jobs 2, games/s",
    "dask_over_jobs2_marginal": "dask / jobs 2, marginal games/s",
    "ceiling_over_jobs1_marginal": "two independent processes / jobs 1, marginal",
    "one_by_one_cpu_over_jobs1_marginal_cpu": "per core: one by one over HTTP / jobs 1",
}


def report(figures: dict[str, Any]) -> None:
    print(f"\narbiter score — {figures['params']['games']:,} games per archive, median of "
          f"{figures['params']['rounds']} rounds")  # fmt: skip
    print(
        f"{'':12}{'mode':12}{'games/s':>10}{'marginal':>10}{'fixed s':>9}{'CPU µs/game':>13}"
        f"{'marginal':>10}"
    )
    for ruleset in RULESETS:
        for mode, m in figures["speed"][ruleset]["modes"].items():
            print(
                f"{ruleset:12}{mode:12}{m['games_per_s']:>10,.0f}{m['marginal_games_per_s']:>10,.0f}"
                f"{m['fixed_seconds']:>9.2f}{m['cpu_us_per_game']:>13.1f}"
                f"{m['marginal_cpu_us_per_game']:>10.1f}"
            )
        r = figures["speed"][ruleset]["ratios"]
        print(f"{'':12}ratios: median of the per-round ratios (min-max, IQR)")
        for key, title in RATIO_TITLES.items():
            if key in r:
                print(f"{'':14}{title:<44} {harness.Spread.from_dict(r[key])}")
    if any("http" in figures["speed"][ruleset] for ruleset in RULESETS):
        print("\nthe same games over HTTP (gunicorn, 2 workers, wrk at 2 connections), medians")
        for ruleset in RULESETS:
            one = figures["speed"][ruleset]["http"]["one_by_one"]
            batch = figures["speed"][ruleset]["http"]["batch"]
            print(
                f"{ruleset:12}one by one: {one['rps']:,.0f} games/s, "
                f"{one['server_cpu_us_per_request']:.0f} µs server CPU/game; batch endpoint: "
                f"{batch['games_per_s']:,.0f} games/s, {batch['server_cpu_us_per_game']:.0f} µs"
            )
    if "memory" in figures:
        print("\npeak memory")
        for size, m in figures["memory"].items():
            for mode in MEMORY_MODES:
                f = m[mode]
                print(
                    f"{int(size):>10,} games ({m['archive_mb']:,.0f} MB) {mode}: tree "
                    f"{f['peak_tree_rss_mb']:.0f} MB, largest process {f['max_process_rss_mb']:.0f}"
                    f" MB, {f['seconds']:.0f} s ({int(size) / f['seconds']:,.0f} games/s)"
                )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--distinct", type=int, default=4_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--http-seconds", type=float, default=5.0)
    parser.add_argument("--rss-games", default="10000,1000000")
    parser.add_argument("--no-http", action="store_true")
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--before",
        metavar="PYTHON",
        help="only --jobs 1 of this tree against the tree of PYTHON (another checkout's venv)",
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.rss_games.split(",") if s]
    if args.before:
        with _folder(args.workdir) as work:
            compared = before_after(
                work, args.games, args.distinct, args.rounds, args.before, sizes
            )
        print(json.dumps(compared, indent=2))
        if args.json:
            args.json.write_text(json.dumps(compared, indent=2))
        return 0
    with _folder(args.workdir) as work:
        figures: dict[str, Any] = {
            "machine": {
                "python": platform.python_version(),
                "platform": platform.platform(),
                "cpus": len(os.sched_getaffinity(0)),
            },
            "params": vars(args) | {"workdir": str(args.workdir), "json": str(args.json)},
        }
        with contextlib.ExitStack() as stack:
            server = (
                None if args.no_http else stack.enter_context(harness.serve(ARBITER_WORKERS="2"))
            )
            figures["speed"] = speed(
                work, args.games, args.distinct, args.rounds, server, args.http_seconds
            )
        logs = {r: figures["speed"][r].pop("distinct") for r in RULESETS}
        for r in RULESETS:
            ratios = figures["speed"][r]["ratios"]
            figures["speed"][r]["ratios"] = {k: v.to_dict() for k, v in ratios.items()}
        if sizes:
            figures["memory"] = memory(work, sizes, logs["tute-4p"])
    report(figures)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


@contextlib.contextmanager
def _folder(given: Path | None) -> Iterator[Path]:
    if given is not None:
        given.mkdir(parents=True, exist_ok=True)
        yield given
        return
    folder = Path(tempfile.mkdtemp(prefix="bench-archive-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
