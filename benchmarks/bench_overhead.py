"""What the service costs per request around its work: each endpoint in process against a bare
Flask app doing the same I/O.

Run ``.venv/bin/python benchmarks/bench_overhead.py`` (``--rounds 5 --n 500`` for a quick look;
``--before PATH`` to time another source tree's service against this one in the same rounds;
``--json FILE`` to keep the figures). No server and no sockets: the requests are prepared WSGI
environs fed straight to the app (``benchmarks/overhead.py``, which defines the endpoints, the
floor and the batches).

Sides run in ``harness.Worker`` processes, one per source tree and log destination (standard
error to ``/dev/null``, and to a pipe drained by another process, as a container's log is):
each has the service as shipped (the access log on, metrics in multiprocess mode) and the
floor, and every round runs, for each endpoint, every worker's endpoint and floor one after the
other (``harness.interleave``: in reverse every other round). Printed per endpoint and side: µs
per request (the median over the rounds), x floor (the median of the per-round ratios of the
endpoint to the floor measured next to it, in the same process, with its spread) and, with
``--before``, after ÷ before; for an endpoint the tree answers without Flask's handling (its
hot path), that path ÷ the same request through the Flask route, and the route x floor. Then,
per endpoint (``--profile``), where the microseconds go: cProfile's own time of every function
summed by package and scaled to the unprofiled time.
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
from contextlib import ExitStack
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: benchmarks/ is on the path, the root is not
    sys.path.insert(0, str(ROOT))

from benchmarks import harness  # noqa: E402
from benchmarks.overhead import ENDPOINTS, PATHS  # noqa: E402

SIDES = Path(__file__).resolve().parent / "overhead.py"
LOGS = ("devnull", "pipe")


def make_inputs(seed: int) -> dict[str, Any]:
    """A tute-4p log cut in the middle of its deal, and the next move (an ok one)."""
    import arbiter
    from arbiter.simulate import random_log

    log = random_log("tute-4p", random.Random(seed), deals=1, finish_last=False, stop_after=21)
    answer = arbiter.replay(log).to_dict()
    assert answer["status"] == "in_progress", answer["status"]
    move = answer["next"]["legal_moves"][0]
    assert arbiter.validate(log, move).to_dict()["verdict"] == "ok"
    return {"log": log, "move": move}


def _side(tree: str, log: str, endpoint: str) -> str:
    return f"{tree} {log}: {endpoint}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15, help="timed rounds")
    parser.add_argument("--n", type=int, default=2000, help="requests per batch")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--log", default=",".join(LOGS), help="devnull, pipe or both")
    parser.add_argument("--before", type=Path, default=None, help="another source tree")
    parser.add_argument(
        "--after", type=Path, default=ROOT, help="the tree compared with it (default: this one)"
    )
    parser.add_argument("--profile", type=int, default=2000, help="requests profiled; 0: none")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    logs = [w.strip() for w in args.log.split(",") if w.strip()]
    if not logs or any(w not in LOGS for w in logs):
        parser.error(f"--log: {', '.join(LOGS)}")
    trees = {"after": args.after.resolve()}
    if args.before is not None:
        trees["before"] = args.before.resolve()

    with tempfile.TemporaryDirectory(prefix="bench-overhead-") as tmp, ExitStack() as stack:
        inputs = Path(tmp) / "inputs.json"
        inputs.write_text(json.dumps(make_inputs(args.seed)), encoding="utf-8")
        workers: dict[tuple[str, str], harness.Worker] = {}
        for tree, path in trees.items():
            for log in logs:
                metrics_dir = Path(tmp) / f"metrics-{tree}-{log}"
                metrics_dir.mkdir()
                argument = {"bodies": str(inputs), "n": args.n, "log": log}
                if log == logs[0]:
                    argument["profile"] = args.profile
                env = {"PROMETHEUS_MULTIPROC_DIR": str(metrics_dir), "ARBITER_PURE": None}
                env |= {name: None for name in os.environ if name.startswith("ARBITER_")}
                workers[tree, log] = stack.enter_context(
                    harness.Worker(f"{SIDES}:worker", argument, path, env)
                )
                info = workers[tree, log].info
                if Path(info["tree"]) != path:
                    raise SystemExit(f"the {tree} worker imported {info['tree']}, not {path}")
        sides = {}
        for endpoint in ENDPOINTS:
            for (tree, log), worker in workers.items():
                sides[_side(tree, log, endpoint)] = worker.side(endpoint)
                sides[_side(tree, log, f"floor {endpoint}")] = worker.side(f"floor {endpoint}")
                if f"route {endpoint}" in worker.batches and log == logs[0]:
                    sides[_side(tree, log, f"route {endpoint}")] = worker.side(f"route {endpoint}")
        began = time.monotonic()
        measured = harness.interleave(
            sides,
            args.rounds,
            progress=lambda r, name: print(f"round {r + 1}: {name}", file=sys.stderr)
            if name.endswith(ENDPOINTS[0]) and name.startswith("after")
            else None,
        )
        seconds = time.monotonic() - began
        infos = {f"{tree} {log}": w.info for (tree, log), w in workers.items()}

    report = summarise(measured, trees, logs, args.n)
    first = next(iter(infos.values()))
    print(
        f"\ntute-arbiter {first['version']}, {first['build']} engine | Python "
        f"{sys.version.split()[0]} | {len(os.sched_getaffinity(0))} CPUs | {args.rounds} rounds "
        f"of {args.n} requests per side ({seconds:.0f} s) | load average "
        f"{os.getloadavg()[0]:.2f}"
    )
    print_table(report, trees, logs)
    for name, info in infos.items():
        if "profile" in info:
            print_profile(name, info)
    if args.json is not None:
        payload = {
            "machine": {
                "python": sys.version.split()[0],
                "platform": platform.platform(),
                "cpus": len(os.sched_getaffinity(0)),
                "date": time.strftime("%Y-%m-%d"),
            },
            "params": {k: str(v) for k, v in vars(args).items()},
            "workers": infos,
            "figures": report,
            "order": [list(o) for o in measured.order],
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


def summarise(
    measured: harness.Rounds, trees: dict[str, Path], logs: list[str], n: int
) -> dict[str, Any]:
    """µs per request of every side, x floor of every tree and log, after ÷ before."""
    out: dict[str, Any] = {}
    for endpoint in ENDPOINTS:
        row: dict[str, Any] = {}
        for tree in trees:
            for log in logs:
                ours, floor = _side(tree, log, endpoint), _side(tree, log, f"floor {endpoint}")
                row[f"{tree} {log}"] = {
                    "us": measured.spread(ours).scaled(1e6 / n).to_dict(),
                    "floor_us": measured.spread(floor).scaled(1e6 / n).to_dict(),
                    "x_floor": measured.ratio(ours, floor).to_dict(),
                }
        for tree in trees:
            route = _side(tree, logs[0], f"route {endpoint}")
            if route in measured.measurements:
                row[f"{tree} {logs[0]}: hot path/route"] = measured.ratio(
                    _side(tree, logs[0], endpoint), route
                ).to_dict()
                row[f"{tree} {logs[0]}: route x floor"] = measured.ratio(
                    route, _side(tree, logs[0], f"floor {endpoint}")
                ).to_dict()
        if "before" in trees:
            for log in logs:
                row[f"after/before {log}"] = measured.ratio(
                    _side("after", log, endpoint), _side("before", log, endpoint)
                ).to_dict()
        out[endpoint] = row
    return out


def print_table(report: dict[str, Any], trees: dict[str, Path], logs: list[str]) -> None:
    print("µs per request: median over the rounds; x floor: median of the per-round ratios")
    print("(min-max, IQR) to the bare-Flask floor doing the same I/O, in the same process")
    header = f"{'endpoint':<30} {'side':<16} {'µs':>7} {'floor µs':>9}  x floor"
    print(header)
    print("-" * (len(header) + 30))
    for endpoint, row in report.items():
        label = f"{_method(endpoint)} {PATHS[endpoint]}"
        for tree in trees:
            for log in logs:
                cell = row[f"{tree} {log}"]
                ratio = harness.Spread.from_dict(cell["x_floor"])
                print(
                    f"{label:<30} {tree + ' ' + log:<16} {cell['us']['median']:>7.1f} "
                    f"{cell['floor_us']['median']:>9.1f}  {ratio}"
                )
                label = ""
        for log in logs:
            if f"after/before {log}" in row:
                ratio = harness.Spread.from_dict(row[f"after/before {log}"])
                print(f"{'':<30} {'after/before ' + log:<26}    {ratio}")
        for key, figures in row.items():
            if key.endswith(("hot path/route", "route x floor")):
                label = key.replace(": ", " ", 1)
                print(f"{'':<30} {label:<36}{harness.Spread.from_dict(figures)}")


def _method(endpoint: str) -> str:
    return "GET" if endpoint == "healthz" else "POST"


def print_profile(name: str, info: dict[str, Any]) -> None:
    print(f"\nwhere the µs go ({name} tree: {info['tree']}), cProfile own time by package,")
    print("scaled to the request's unprofiled time:")
    for endpoint, profile in info["profile"].items():
        print(
            f"  {_method(endpoint)} {PATHS[endpoint]}: {profile['us']:.1f} µs "
            f"(floor {profile['floor_us']:.1f} µs)"
        )
        for label, us in profile["groups_us"].items():
            if us >= 0.05:
                print(f"    {label:<66} {us:>6.1f} µs")
        print("    functions of most own time:")
        for us, function in profile["top_us"][:10]:
            print(f"      {us:>6.1f} µs  {function}")


if __name__ == "__main__":
    raise SystemExit(main())
