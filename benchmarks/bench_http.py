"""HTTP throughput and latency of the shipped deployment against a bare-Flask floor.

Run ``.venv/bin/python benchmarks/bench_http.py`` (``--duration 2 --rounds 3 --profile 0`` for
a quick look, ``--json FILE`` to keep the figures). Everything stays on 127.0.0.1 and ends
within about ``5 * (rounds * duration + warmup) + 30`` seconds.

Three gunicorns are started with the shipped ``deploy/gunicorn.conf.py`` (its default worker
count: one sync worker per CPU) on free loopback ports, with the app's defaults (no
``ARBITER_*``/``REDIS_*`` variable of the calling shell reaches them): ``arbiter.wsgi:app``;
the same with ``ARBITER_CACHE=off``; and ``benchmarks.harness:floor_app``, a bare Flask app
with the same body limit whose one view reads the JSON body with orjson and writes it back.
A keep-alive load generator (wrk with a Lua script when installed, else Python
``http.client`` threads) posts, at ``--connections`` concurrent connections, ``--warmup``
untimed seconds per case, then ``--rounds`` rounds in which every case runs ``--duration``
seconds, one after the other (in reverse order every other round):

* (a) ``POST /v1/replays`` with one complete tute-2p deal;
* (b) ``POST /v1/moves/validate`` with the same deal cut in the middle plus its next move;
* (c) the floor, with the very body of (a) (same size and shape);
* (a0), (b0): (a) and (b) with the state cache off.

(a) and (b) send the same body every time, so from the second request on the in-memory state
cache of the shipped defaults resumes them from a stored state; (a0) and (b0) replay every
time. Printed per case: requests/s, p50 and p99 latency, the server's CPU time per request
(master and workers, from /proc: less sensitive than requests/s to the load generator and
other processes sharing the CPUs), each the median over the rounds; and the ratios to (c),
each the median of the per-round ratios (a case against the floor in the same round:
``harness.interleave``) with its range and interquartile range. The sync workers of the shipped
config do not keep connections alive (gunicorn closes the connection after every response
whatever ``keepalive`` says), so every request also pays a loopback TCP connect; the
generators reconnect as a client would.

Then ``--profile N`` requests of (a) are fed straight to the WSGI app in this process (no
sockets, cache on and off): the time per request without a profiler, split into its pieces
(the request's frame, the body read, the service, the state cache, sealing the token; the
compiled engine and to_dict are not seen by cProfile) by the cumulative times of a cProfile run
scaled to the unprofiled total, and the top cumulative entries of that profile. Where each
endpoint's microseconds go against a bare Flask app: ``bench_overhead.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import pstats
import random
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: benchmarks/ is on the path, the root is not
    sys.path.insert(0, str(ROOT))

from benchmarks import harness, overhead  # noqa: E402
from benchmarks.harness import Spread  # noqa: E402
from devtools import gunicorn_support  # noqa: E402
from devtools.gunicorn_support import HOST  # noqa: E402

JSON_MIME = "application/json"


# --- bodies ------------------------------------------------------------------------------------


def make_bodies(seed: int) -> dict[str, Any]:
    """(a) a complete tute-2p deal, (b) that deal cut in the middle + its next move."""
    import arbiter
    from arbiter.simulate import random_log

    log = random_log("tute-2p", random.Random(seed), deals=1)
    events = log["deals"][0]["events"]
    half = len(events) // 2
    cut = {**log, "deals": [{**log["deals"][0], "events": events[:half]}]}
    move = events[half]
    verdict = arbiter.validate(cut, move).to_dict()
    if verdict["verdict"] != "ok":
        raise AssertionError(f"the next move of the deal is not ok: {verdict}")
    replay_body = orjson.dumps(log)
    return {
        "log": log,
        "events": len(events),
        "replay": replay_body,
        "replay_answer": _without_state_id(arbiter.replay(log).to_dict()),
        "validate": orjson.dumps({**cut, "move": move}),
        "cut": orjson.dumps(cut),
        "move": move,
        "validate_answer": _without_state_id(verdict),
        "validate_events": half,
    }


def _without_state_id(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answer.items() if k != "state_id"}


def _post(port: int, path: str, body: bytes) -> tuple[int, dict[str, str], bytes]:
    return gunicorn_support.request(port, "POST", path, body, {"Content-Type": JSON_MIME})


# --- load generators --------------------------------------------------------------------------


def run_python(
    port: int, path: str, body: bytes, connections: int, duration: float
) -> dict[str, Any]:
    """``connections`` threads, each with one http.client connection (reopened when the
    server closes it), posting ``body`` until ``duration`` has passed."""
    all_ms, errors, seconds = gunicorn_support.closed_loop(
        port, "POST", path, lambda: body, {"Content-Type": JSON_MIME}, connections, duration
    )
    n = len(all_ms)

    def pct(p: float) -> float:
        return all_ms[min(n - 1, int(p / 100 * n))] if n else float("nan")

    return {
        "requests": n,
        "seconds": seconds,
        "rps": n / seconds,
        "p50_ms": pct(50),
        "p90_ms": pct(90),
        "p99_ms": pct(99),
        "mean_ms": statistics.fmean(all_ms) if n else float("nan"),
        "max_ms": all_ms[-1] if n else float("nan"),
        "errors": errors,
        "error_kinds": {"non_200_or_io": errors},
    }


# --- in-process profile of (a) -----------------------------------------------------------------


def wsgi_caller(app: Any, path: str, body: bytes) -> Callable[[], bytes]:
    """One POST of ``body`` straight into the WSGI ``app`` (environ built once, as gunicorn
    would hand it over: ``benchmarks/overhead.py``), checking the status."""
    return overhead.caller(app, "POST", path, body)


#: The pieces of ``POST /v1/replays`` read from the profile: (label, file, function, depth).
#: A piece's time is the cumulative time of that function; ``depth`` nests it in the piece
#: above. Functions the code no longer has are left out.
_PIECES: tuple[tuple[str, str, str, int], ...] = (
    ("view (routes.replayed, on the hot path)", "arbiter/api/routes.py", "replayed", 0),
    ("read body: orjson.loads, limits", "arbiter/api/routes.py", "body", 1),
    ("service Referee.replay_request", "arbiter/service.py", "replay_request", 1),
    ("prefix keys of the log (cache policy permitting)", "arbiter/cache/keys.py",
     "prefix_keys", 2),
    ("cache lookup (one round trip)", "arbiter/cache/states.py", "load_first", 2),
    ("engine replay (pure build only: compiled, it is not seen)", "arbiter/engine/match.py",
     "replay", 2),
    ("snapshot encode + store", "arbiter/service.py", "_keep", 2),
    ("seal the position (state_id)", "arbiter/tokens.py", "seal", 2),
    ("Replay.to_dict (pure build only)", "arbiter/report.py", "to_dict", 1),
)  # fmt: skip


def _cumulative(stats: pstats.Stats, file: str, function: str) -> float | None:
    """Cumulative seconds of ``function`` defined in a file ending with ``file``."""
    suffix = file.replace("/", os.sep)
    found = [
        row[3]
        for (filename, _line, name), row in stats.stats.items()  # type: ignore[attr-defined]
        if name == function and filename.endswith(suffix)
    ]
    return max(found) if found else None


def profile_replay(settings: Any, body: bytes, n: int, top: int) -> dict[str, Any]:
    """Where one ``POST /v1/replays`` spends its time inside one worker. The request is fed
    straight to the WSGI app (no sockets, no test client): timed without a profiler, then
    ``n`` more under cProfile, whose cumulative times of the pieces in ``_PIECES`` are scaled
    to the unprofiled time (an estimate: the profiler slows Python-heavy code more than C)."""
    from arbiter.api import create_app

    full = wsgi_caller(create_app(settings), "/v1/replays", body)
    for _ in range(100):  # warm-up (and, with a cache, the first store)
        full()
    total = overhead.per_call(full, n, loops=3)
    stats = overhead.profile_of(full, n)
    profiled = _cumulative(stats, "arbiter/api/frame.py", "__call__") or 0.0
    view = _cumulative(stats, "arbiter/api/routes.py", "replayed") or 0.0
    scale = total / (profiled / n * 1e6) if profiled else 0.0
    pieces: list[dict[str, Any]] = [
        {
            "label": "the request's frame and hot path outside the view (id, headers, "
            "metrics, access line)",
            "depth": 0,
            "us": (profiled - view) / n * 1e6 * scale,
        }
    ]
    for label, file, function, depth in _PIECES:
        seconds = _cumulative(stats, file, function)
        if seconds is not None:
            pieces.append({"label": label, "depth": depth, "us": seconds / n * 1e6 * scale})
    out = io.StringIO()
    stats.stream = out  # type: ignore[attr-defined]
    stats.sort_stats(pstats.SortKey.CUMULATIVE).print_stats(top)
    return {
        "requests": n,
        "us_per_request": total,
        "profiled_us_per_request": profiled / n * 1e6,
        "pieces": pieces,
        "cprofile_top": _trim_pstats(out.getvalue()),
    }


def profile_floor(body: bytes, n: int) -> float:
    floor = wsgi_caller(harness.floor_app, "/floor", body)
    for _ in range(100):
        floor()
    return overhead.per_call(floor, n, loops=3)


def _trim_pstats(text: str) -> str:
    """pstats output with long site-packages paths shortened."""
    prefixes = sorted({p for p in sys.path if p and p.endswith("site-packages")}, key=len)
    for prefix in [*reversed(prefixes), str(ROOT)]:
        text = text.replace(prefix + os.sep, "")
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    return "\n".join(line.rstrip() for line in lines[start:] if line.strip())


# --- main --------------------------------------------------------------------------------------


def _case(
    loadgen: str,
    wrk: str | None,
    server: harness.Server,
    path: str,
    body: bytes,
    connections: int,
    seconds: float,
    workdir: Path,
) -> dict[str, Any]:
    """One run of the load generator against one case, with the server's CPU per request."""
    cpu = server.cpu_seconds()
    if loadgen == "wrk":
        assert wrk is not None
        url = f"http://{HOST}:{server.port}{path}"
        figures = harness.wrk(url, [body], connections, seconds, workdir)
    else:
        figures = run_python(server.port, path, body, connections, seconds)
    cpu = server.cpu_seconds() - cpu
    figures["server_cpu_s"] = cpu
    figures["server_cpu_us_per_request"] = cpu / figures["requests"] * 1e6
    return figures


#: The figures of a case reported as their median over the rounds (its errors: their sum).
FIGURES = ("rps", "p50_ms", "p99_ms", "server_cpu_us_per_request", "requests")


#: key: (label, server, path, body key)
CASES: dict[str, tuple[str, str, str, str]] = {
    "a": ("POST /v1/replays, complete tute-2p deal", "api", "/v1/replays", "replay"),
    "b": ("POST /v1/moves/validate, mid-deal + move", "api", "/v1/moves/validate", "validate"),
    "c": ("floor: bare Flask orjson echo, body of (a)", "floor", "/floor", "replay"),
    "a0": ("(a) with ARBITER_CACHE=off", "nocache", "/v1/replays", "replay"),
    "b0": ("(b) with ARBITER_CACHE=off", "nocache", "/v1/moves/validate", "validate"),
    "a@before": ("(a), the --before tree's server", "before", "/v1/replays", "replay"),
    "b@before": ("(b), the --before tree's server", "before", "/v1/moves/validate", "validate"),
}


def _figure(name: str) -> Callable[[dict[str, Any]], float]:
    return lambda figures: float(figures[name])


def _check_answers(ports: dict[str, int], bodies: dict[str, Any]) -> dict[str, str]:
    """Every endpoint answers right before anything is timed; returns the API's headers."""
    headers: dict[str, str] = {}
    for server in [s for s in ("before", "nocache", "api") if s in ports]:
        status, headers, data = _post(ports[server], "/v1/replays", bodies["replay"])
        assert status == 200, data[:300]
        assert _without_state_id(orjson.loads(data)) == bodies["replay_answer"], data[:300]
        status, _, data = _post(ports[server], "/v1/moves/validate", bodies["validate"])
        assert status == 200, data[:300]
        assert _without_state_id(orjson.loads(data)) == bodies["validate_answer"], data[:300]
    status, _, data = _post(ports["floor"], "/floor", bodies["replay"])
    assert status == 200 and data == bodies["replay"], data[:300]
    return headers


def _build_of(port: int) -> str:
    """Which build of the engine the server runs (ARBITER_PURE=1 in the caller's shell: pure)."""
    status, _, data = gunicorn_support.request(port, "GET", "/healthz", b"", {})
    assert status == 200, data[:300]
    return str(orjson.loads(data)["build"])


def _ratio(key: str) -> str:
    left, right = key.split("/")
    return f"({left})/({right})"


def _floor_in_the_middle(selected: list[str]) -> list[str]:
    """The cases in the order they run in even rounds: the floor, which every ratio is taken
    against, in the middle, so that no case runs far from it in a round."""
    others = [k for k in selected if k != "c"]
    half = (len(others) + 1) // 2
    return [*others[:half], "c", *others[half:]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=4.0, help="seconds per case and round")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of every case")
    parser.add_argument("--warmup", type=float, default=2.0, help="untimed seconds per case")
    parser.add_argument("--connections", type=int, default=4, help="concurrent connections")
    parser.add_argument("--workers", type=int, default=None, help="default: the config's")
    parser.add_argument(
        "--worker-class", default=None, help="default: the config's (sync); e.g. gthread"
    )
    parser.add_argument("--loadgen", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument(
        "--cases", default="a,b,c,a0,b0", help=f"comma-separated, of {', '.join(CASES)}"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", type=int, default=500, help="requests profiled; 0: none")
    parser.add_argument("--top", type=int, default=30, help="cProfile entries printed")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument(
        "--before", type=Path, default=None,
        help="another source tree: its server takes (a@before) and (b@before) in the rounds",
    )
    parser.add_argument(
        "--tail", action="store_true",
        help="also tail latency at a constant offered rate (25/50/75%% of the maximum), "
        "token validate and its floor, for the shipped worker and gthread",
    )
    parser.add_argument("--tail-seconds", type=float, default=5.0, help="seconds per tail run")
    parser.add_argument("--tail-rounds", type=int, default=3, help="rounds of every tail run")
    parser.add_argument(
        "--tail-shares", default=",".join(f"{s:g}" for s in TAIL_SHARES),
        help="the offered rates, as shares of the shipped worker's maximum",
    )  # fmt: skip
    parser.add_argument(
        "--tail-only", action="store_true", help="only the tail latency (no rounds, no profile)"
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.tail_only:
        tail = tail_latency(args, make_bodies(args.seed))
        print_tail(tail)
        if args.json is not None:
            args.json.write_text(json.dumps({"tail": tail}, indent=2) + "\n", encoding="utf-8")
        return 0

    if args.before is not None and "a@before" not in args.cases:
        args.cases += ",a@before,b@before"
    selected = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in selected if c not in CASES]
    if unknown or "c" not in selected:
        parser.error(f"--cases: unknown {unknown}" if unknown else "--cases must include c")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    wrk = shutil.which("wrk")
    loadgen = args.loadgen
    if loadgen == "auto":
        loadgen = "wrk" if wrk else "python"
    if loadgen == "wrk" and not wrk:
        parser.error("wrk is not installed")

    bodies = make_bodies(args.seed)
    results: dict[str, Any] = {}
    notes: list[str] = []
    wc = args.worker_class
    options: list[str] = []
    if args.workers is not None:
        options += ["--workers", str(args.workers)]
    if wc is not None:
        options += ["--worker-class", wc]
    with (
        tempfile.TemporaryDirectory() as tmp,
        harness.serve(args=options) as api_port,
        harness.serve("benchmarks.harness:floor_app", "/", options) as floor_port,
        harness.serve(args=options, ARBITER_CACHE="off") as nocache_port,
        contextlib.ExitStack() as others,
    ):
        servers = {"api": api_port, "floor": floor_port, "nocache": nocache_port}
        if args.before is not None:
            servers["before"] = others.enter_context(harness.serve(args=options, tree=args.before))
        booted = set().union(*(srv.workers() for srv in servers.values()))
        workers = len(api_port.workers())
        build = _build_of(api_port.port)
        headers = _check_answers({k: srv.port for k, srv in servers.items()}, bodies)
        if headers.get("connection", "").lower() == "close":
            notes.append(
                "the server closes the connection after every response (sync workers): "
                "each request includes a loopback TCP connect"
            )

        def side(key: str, seconds: float) -> Callable[[], dict[str, Any]]:
            _, server, path, body_key = CASES[key]
            return lambda: _case(
                loadgen, wrk, servers[server], path, bodies[body_key], args.connections,
                seconds, Path(tmp),
            )  # fmt: skip

        order = _floor_in_the_middle(selected)
        if args.warmup > 0:
            for key in order:
                side(key, args.warmup)()
        measured = harness.interleave(
            {key: side(key, args.duration) for key in order},
            args.rounds,
            warmup=0,
            progress=lambda r, key: print(
                f"round {r + 1}: ({key}) {CASES[key][0]} for {args.duration:g} s ...",
                file=sys.stderr,
            ),
        )
        for key in selected:
            label, _, path, body_key = CASES[key]
            results[key] = {
                "label": label,
                "path": path,
                "body_bytes": len(bodies[body_key]),
                **{name: measured.spread(key, _figure(name)).median for name in FIGURES},
                "errors": sum(measured.values(key, _figure("errors"))),
                "rounds": measured.measurements[key],
            }
        recycled = len(set().union(*(srv.workers() for srv in servers.values())) - booted)
        if recycled:
            notes.append(
                f"{recycled} worker(s) were recycled during the run (max_requests of the "
                "config): their restarts are inside the figures, as in production"
            )

    ratios = {f"{k}/c": measured.ratio(k, "c", _figure("rps")) for k in results if k != "c"}
    cpu_ratios = {
        f"{k}/c": measured.ratio(k, "c", _figure("server_cpu_us_per_request"))
        for k in results
        if k != "c"
    }
    for k in ("a", "b"):
        if k in results and f"{k}@before" in results:
            ratios[f"{k}/{k}@before"] = measured.ratio(k, f"{k}@before", _figure("rps"))
            cpu_ratios[f"{k}/{k}@before"] = measured.ratio(
                k, f"{k}@before", _figure("server_cpu_us_per_request")
            )
    print()
    print(
        f"loadgen={loadgen} connections={args.connections} rounds={args.rounds} "
        f"duration={args.duration:g}s warmup={args.warmup:g}s workers={workers} "
        f"({wc or 'config'}) engine={build} "
        f"cpus={len(os.sched_getaffinity(0))} "
        f"deal: {bodies['events']} events ((b) after {bodies['validate_events']})"
    )
    print(f"medians over {args.rounds} rounds of {args.duration:g} s")
    header = f"{'case':<48} {'body B':>7} {'requests':>9} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}"
    header += f" {'srv CPU µs/req':>14} {'errors':>6}"
    print(header)
    print("-" * len(header))
    for key, r in results.items():
        name = f"({key}) {r['label']}"
        print(
            f"{name:<48} {r['body_bytes']:>7} {r['requests']:>9.0f} {r['rps']:>9.1f} "
            f"{r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} {r['server_cpu_us_per_request']:>14.0f} "
            f"{r['errors']:>6.0f}"
        )
    print(f"ratios: median of {args.rounds} per-round ratios (min-max, IQR)")
    print(f"  {'':<14} {'in req/s':<36} {'in server CPU per request'}")
    for key, ratio in ratios.items():
        print(f"  {_ratio(key):<14} {ratio.format(3):<36} {cpu_ratios[key].format(3)}")
    print(
        "note: (a) and (b) send the same body every time, so after the first request the "
        "shipped in-memory state cache answers them from the stored state; (a0)/(b0) replay "
        "every time"
    )
    for note in notes:
        print(f"note: {note}")
    if any(r["errors"] for r in results.values()):
        print("WARNING: some requests failed; see error counts", file=sys.stderr)

    profiles: dict[str, Any] = {}
    if args.profile > 0:
        from arbiter.settings import Settings

        floor_us = profile_floor(bodies["replay"], args.profile)
        for name, settings in (
            ("cache (shipped default, memory)", Settings(cache="memory")),
            ("cache off", Settings(cache="off")),
        ):
            profiles[name] = profile_replay(settings, bodies["replay"], args.profile, args.top)
        print()
        print(
            f"in-process profile of (a), {args.profile} requests fed to the WSGI app "
            f"(no sockets); the floor in the same harness: {floor_us:.0f} µs per request"
        )
        for name, profile in profiles.items():
            print(f"  {name}: {profile['us_per_request']:.0f} µs per request")
            base = profile["us_per_request"]
            for piece in profile["pieces"]:
                label = "  " * piece["depth"] + piece["label"]
                us = piece["us"]
                print(f"    {label:<60} {us:>7.1f} µs {us / base * 100:>5.1f} %")
        first = next(iter(profiles))
        print()
        print(f"cProfile of (a), {first}, top {args.top} by cumulative time:")
        print(profiles[first]["cprofile_top"])
        profiles["floor_us_per_request"] = floor_us

    tail: dict[str, Any] = {}
    if args.tail:
        tail = tail_latency(args, bodies)
        print_tail(tail)

    if args.json is not None:
        payload = {
            "tail": tail,
            "machine": {
                "python": sys.version.split()[0],
                "platform": platform.platform(),
                "cpus": len(os.sched_getaffinity(0)),
            },
            "params": {
                **{k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
                "loadgen": loadgen,
                "workers": workers,
                "build": build,
                "recycled_workers": recycled,
                "events": bodies["events"],
            },
            "results": results,
            "order": [list(o) for o in measured.order],
            "ratios": {k: v.to_dict() for k, v in ratios.items()},
            "server_cpu_ratios": {k: v.to_dict() for k, v in cpu_ratios.items()},
            "notes": notes,
            "profile": profiles,
        }
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


# --- tail latency at a constant offered rate --------------------------------------------------

#: The workers compared: the shipped one, the same with a listening socket per worker (the
#: kernel spreads connections over them: SO_REUSEPORT), and gunicorn's threads.
TAIL_WORKERS: dict[str, list[str]] = {
    "shipped (arbiter.worker.Worker)": [],
    "shipped + reuse_port": ["--reuse-port"],
    "gthread 4 threads": ["--worker-class", "gthread", "--threads", "4"],
}
TAIL_SHARES = (0.25, 0.5, 0.75)
TAIL_CONNECTIONS = 16
TAIL_STATE_KEY = "bench-http-tail-state-key-0123456789abcdef"


def tail_latency(args: argparse.Namespace, bodies: dict[str, Any]) -> dict[str, Any]:
    """A token validate and its bare-Flask floor (answering the same bytes) under each worker
    of :data:`TAIL_WORKERS`, all served at once: first the maximum throughput of each (closed
    loop, wrk, ``--connections``; the workers take turns in ``--tail-rounds`` rounds), then
    p50/p99/p99.9 at 25, 50 and 75 % of the shipped worker's maximum, the same offered rates
    for every worker (``harness.constant_rate``, :data:`TAIL_CONNECTIONS` keep-alive
    connections), every side taking its turn in each of ``--tail-rounds`` rounds; per round,
    p99 / p50 of the validate and its p99 / the floor's p99 under the same worker."""
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        servers: dict[str, tuple[harness.Server, harness.Server, bytes]] = {}
        for name, options in TAIL_WORKERS.items():
            if args.workers is not None:
                options = [*options, "--workers", str(args.workers)]
            api = stack.enter_context(
                harness.serve(args=options, ARBITER_STATE_KEY=TAIL_STATE_KEY)
            )
            token = api.post("/v1/replays", bodies["cut"]).json()["state_id"]
            body = orjson.dumps({"state_id": token, "move": bodies["move"]})
            answer = api.post("/v1/moves/validate", body)
            assert answer.status == 200 and answer.json()["verdict"] == "ok", answer.body[:300]
            floor_dir = Path(tmp) / f"floor-{len(servers)}"
            floor_dir.mkdir()
            (floor_dir / "token.json").write_bytes(answer.body)
            floor = stack.enter_context(
                harness.serve(
                    "benchmarks.harness:floor_app", "/", options, BENCH_FLOOR_DIR=str(floor_dir)
                )
            )
            servers[name] = (api, floor, body)

        def closed_loop(server: harness.Server, body: bytes) -> Callable[[], dict[str, Any]]:
            url = f"http://{HOST}:{server.port}/v1/moves/validate"
            return lambda: harness.wrk(url, [body], args.connections, args.tail_seconds, Path(tmp))

        print("tail: the maximum of each worker ...", file=sys.stderr)
        most = harness.interleave(
            {name: closed_loop(api, body) for name, (api, _, body) in servers.items()},
            args.tail_rounds,
        )
        for name in servers:
            out[name] = {"max_rps": most.spread(name, _figure("rps")).to_dict(), "rows": []}
        shipped = next(iter(servers))
        top = most.spread(shipped, _figure("rps")).median
        for share in (float(x) for x in args.tail_shares.split(",")):
            rate = top * share
            sides = {}
            for name, (api, floor, body) in servers.items():
                sides[f"{name}|validate"] = _paced(api, "/v1/moves/validate", body, rate, args)
                sides[f"{name}|floor"] = _paced(floor, "/floor/token", body, rate, args)
            print(f"tail: {share:.0%} of {top:.0f} req/s ...", file=sys.stderr)
            measured = harness.interleave(sides, args.tail_rounds, warmup=0)
            for name in servers:
                ours, floor_side = f"{name}|validate", f"{name}|floor"
                row: dict[str, Any] = {"share": share, "rate": rate}
                for side, label in ((ours, "validate"), (floor_side, "floor")):
                    for figure in ("p50_ms", "p99_ms", "p999_ms", "max_ms", "errors",
                                   "achieved_rps", "unanswered"):  # fmt: skip
                        row[f"{label} {figure}"] = measured.spread(side, _figure(figure)).median
                row["validate p99/p50"] = Spread.of(
                    [m["p99_ms"] / m["p50_ms"] for m in measured.measurements[ours]]
                ).to_dict()
                row["validate p99/floor p99"] = measured.ratio(
                    ours, floor_side, _figure("p99_ms")
                ).to_dict()
                row["rounds"] = {"validate": measured.measurements[ours],
                                 "floor": measured.measurements[floor_side]}  # fmt: skip
                out[name]["rows"].append(row)
    return out


def _paced(
    server: harness.Server, path: str, body: bytes, rate: float, args: argparse.Namespace
) -> Callable[[], dict[str, Any]]:
    """A side of the tail rounds: ``body`` posted to ``path`` at ``rate`` requests a second."""
    return lambda: harness.constant_rate(
        server.port, path, [body], rate, args.tail_seconds, TAIL_CONNECTIONS
    )


def print_tail(tail: dict[str, Any]) -> None:
    print()
    print(
        f"tail latency of a token validate at a constant offered rate ({TAIL_CONNECTIONS} "
        "keep-alive connections; each latency from when its request was due), the same rates "
        "for every worker (shares of the shipped worker's maximum); medians over the rounds, "
        "p99/p50 and p99 / the floor's p99: median of the per-round ratios (min-max)"
    )
    header = (
        f"{'worker':<32} {'offered':>12} {'p50 ms':>7} {'p99 ms':>7} {'p99.9':>7} "
        f"{'floor p50':>9} {'floor p99':>9} {'p99/p50':>16} {'p99/floor p99':>16}"
    )
    print(header)
    print("-" * len(header))
    for name, result in tail.items():
        for row in result["rows"]:
            share = f"{row['share']:.0%} {row['rate']:.0f}/s"
            ratio = Spread.from_dict(row["validate p99/p50"])
            floor_ratio = Spread.from_dict(row["validate p99/floor p99"])
            print(
                f"{name:<32} {share:>12} {row['validate p50_ms']:>7.2f} "
                f"{row['validate p99_ms']:>7.2f} {row['validate p999_ms']:>7.2f} "
                f"{row['floor p50_ms']:>9.2f} {row['floor p99_ms']:>9.2f} "
                f"{ratio.median:>6.2f} ({ratio.low:.1f}-{ratio.high:.1f}) "
                f"{floor_ratio.median:>6.2f} ({floor_ratio.low:.1f}-{floor_ratio.high:.1f})"
            )
            name = ""
        top = Spread.from_dict(result["max_rps"])
        print(f"{'':<32} max (closed loop): {top.format(0)} req/s")


if __name__ == "__main__":
    raise SystemExit(main())
