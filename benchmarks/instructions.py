"""Instructions per deal under callgrind: a count that does not depend on the machine's load.

Run ``.venv/bin/python benchmarks/instructions.py`` (valgrind must be installed; Debian's
``valgrind`` package). Timings on the project's shared 2-core machine swing by rounds; the number
of instructions a replay executes does not, so a change to the engine or the answers is counted
here before it is timed (benchmarks/README.md, "Instructions").

``--deals`` random tute-4p logs (as ``bench_engine.py`` makes them: the same seed, rates and
generator) are written one JSON document each; a child process started with ``python -P`` and
``PYTHONPATH`` set to the tree (this one, or ``--tree PATH``) reads them back with ``orjson`` as a
request handler gets them, warms every mode up on the first log, then runs one mode over all the
logs. It runs under ``valgrind --tool=callgrind`` once per mode, and once running no mode; the
difference divided by the deals is the mode's count per deal. ``PYTHONHASHSEED`` is fixed per run
(``--hash-seeds``): the counts move by about 1 % from one hash seed to another, and the figure is
the mean over the seeds given.

Modes: ``replay`` (``arbiter.replay(log)``), ``to_dict`` (``.to_dict()`` of it), ``bytes``
(``orjson.dumps`` of that: the answer's bytes, as the API writes them), ``engine``
(``arbiter.engine.match.replay(log)``, no service, no answer) and ``scores``
(``Referee().score(log).scores_dict("en")``: a line's body as ``arbiter score`` makes it).

``--archive PATH`` takes the logs from an NDJSON archive instead: its first ``--deals`` lines
of ``--ruleset`` (tute-4p unless told), e.g. ``--archive /tmp/ar/20k.ndjson --ruleset tute-2p``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODES = ("replay", "to_dict", "bytes", "engine", "scores")
NONE = "none"


def _child(tree: str, mode: str, path: str) -> int:
    """Run in the child: the logs read back, every mode warmed up, then ``mode`` over all."""
    import orjson

    import arbiter

    if arbiter.__file__ is None or not arbiter.__file__.startswith(tree):
        raise SystemExit(f"arbiter imported from {arbiter.__file__}, not from {tree}")
    from arbiter.engine.match import replay as engine

    referee = arbiter.Referee()

    texts = Path(path).read_bytes().splitlines()
    logs = [orjson.loads(text) for text in texts]
    first = orjson.loads(texts[0])
    arbiter.replay(first)
    orjson.dumps(arbiter.replay(first).to_dict())
    engine(first)
    referee.score(first).scores_dict("en")
    if mode == "replay":
        for log in logs:
            arbiter.replay(log)
    elif mode == "to_dict":
        for log in logs:
            arbiter.replay(log).to_dict()
    elif mode == "bytes":
        for log in logs:
            orjson.dumps(arbiter.replay(log).to_dict())
    elif mode == "engine":
        for log in logs:
            engine(log)
    elif mode == "scores":
        for log in logs:
            referee.score(log).scores_dict("en")
    print(arbiter.BUILD)
    return 0


def _write_logs(deals: int, seed: int, path: Path) -> None:
    sys.path.insert(0, str(ROOT))
    import orjson

    from benchmarks.bench_engine import make_logs

    logs = make_logs("tute-4p", 4, deals, seed)
    path.write_bytes(b"".join(orjson.dumps(log) + b"\n" for log in logs))


def _copy_logs(archive: Path, ruleset: str, deals: int, path: Path) -> None:
    """The first ``deals`` lines of ``archive`` that are logs of ``ruleset``, as they are."""
    import orjson

    kept: list[bytes] = []
    with archive.open("rb") as lines:
        for line in lines:
            if orjson.loads(line).get("ruleset") == ruleset:
                kept.append(line.rstrip(b"\n") + b"\n")
                if len(kept) == deals:
                    break
    path.write_bytes(b"".join(kept))


def _count(tree: Path, mode: str, logs: Path, hash_seed: int, pure: bool, work: Path) -> int:
    out = work / f"callgrind.{mode}.{hash_seed}.out"
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": str(hash_seed)}
    env.pop("ARBITER_PURE", None)
    if pure:
        env["ARBITER_PURE"] = "1"
    command = [
        "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
        sys.executable, "-P", str(Path(__file__).resolve()),
        "--child", str(tree), mode, str(logs),
    ]  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    build = done.stdout.strip()
    if build != ("pure" if pure else "compiled"):
        raise SystemExit(f"{tree}: the {build} build ran\n{done.stderr}")
    for line in out.read_text().splitlines():
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    raise SystemExit(f"no totals in {out}")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "--child":
        return _child(*args[1:4])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="source tree (default: this)")
    parser.add_argument("--deals", type=int, default=200, help="tute-4p logs (default 200)")
    parser.add_argument("--seed", type=int, default=20240601, help="seed of the logs")
    parser.add_argument("--hash-seeds", default="0", help="PYTHONHASHSEED values, e.g. 0,1,2")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated modes")
    parser.add_argument("--jobs", type=int, default=4, help="valgrind runs at once (default 4)")
    parser.add_argument("--archive", type=Path, help="take the logs from this NDJSON archive")
    parser.add_argument("--ruleset", default="tute-4p", help="the archive's logs of this ruleset")
    parser.add_argument("--pure", action="store_true", help="the pure build (ARBITER_PURE=1)")
    ns = parser.parse_args(args)
    modes = [m for m in ns.modes.split(",") if m]
    unknown = set(modes) - set(MODES)
    if unknown:
        parser.error(f"unknown modes: {sorted(unknown)}")
    seeds = [int(s) for s in ns.hash_seeds.split(",")]
    tree = ns.tree.resolve()
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary)
        logs = work / "logs.jsonl"
        if ns.archive is None:
            _write_logs(ns.deals, ns.seed, logs)
        else:
            _copy_logs(ns.archive, ns.ruleset, ns.deals, logs)
        # every run at once: a count does not depend on what else the machine does
        runs = [(mode, s) for mode in (NONE, *modes) for s in seeds]
        with ThreadPoolExecutor(max_workers=ns.jobs) as pool:
            done = pool.map(lambda run: _count(tree, run[0], logs, run[1], ns.pure, work), runs)
            counts = dict(zip(runs, done, strict=True))
        build = "pure" if ns.pure else "compiled"
        source = "" if ns.archive is None else f" of {ns.archive}"
        what = f"{ns.deals} {ns.ruleset if ns.archive else 'tute-4p'} deals{source}"
        print(f"{tree} ({build}), {what}, hash seeds {ns.hash_seeds}:")
        print("instructions per deal (mean over the seeds), the seeds' own in brackets")
        for mode in modes:
            per = [(counts[mode, s] - counts[NONE, s]) / ns.deals for s in seeds]
            each = " ".join(f"{p / 1000:.1f}K" for p in per)
            print(f"  {mode:8} {sum(per) / len(per) / 1000:8.1f}K   ({each})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
