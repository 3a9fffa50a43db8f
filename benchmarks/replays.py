"""The timed batches of ``bench_engine.py``: what each mode does with a list of logs, defined
once for the benchmark's own process and for the workers that run another source tree's engine
(``harness.Worker``; this file is loaded there by its path, so it imports nothing of
``benchmarks``, and ``arbiter`` only inside the modes: the other tree may lack a module a mode
needs that it was not asked for).

Modes, each a loop over all the logs with every result discarded (as a request handler would):

* ``replay``: ``arbiter.replay(log)``, the work of ``POST /v1/replays`` without the body;
* ``to_dict``: ``arbiter.replay(log).to_dict()``, the whole API body;
* ``engine``: ``arbiter.engine.match.replay(log)``, the rules engine alone on the raw log
  (reading and playing it in one pass: no service, no answer);
* ``steps``: ``LIBRARY.replay(log, steps=True).to_dict()``, the body with every event's
  position view.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

MODES = ("replay", "to_dict", "engine", "steps")

Batch = Callable[[], None]


def batches(logs: Sequence[Any], modes: Sequence[str] = MODES) -> dict[str, Batch]:
    """One batch per mode: each replays every log once."""
    makers = {"replay": _replay, "to_dict": _to_dict, "engine": _engine, "steps": _steps}
    return {mode: makers[mode](logs) for mode in modes}


def _replay(logs: Sequence[Any]) -> Batch:
    from arbiter import replay

    def run() -> None:
        for log in logs:
            replay(log)

    return run


def _to_dict(logs: Sequence[Any]) -> Batch:
    from arbiter import replay

    def run() -> None:
        for log in logs:
            replay(log).to_dict()

    return run


def _engine(logs: Sequence[Any]) -> Batch:
    from arbiter.engine.match import replay

    def run() -> None:
        for log in logs:
            replay(log)

    return run


def _steps(logs: Sequence[Any]) -> Batch:
    from arbiter.service import LIBRARY

    replay = LIBRARY.replay

    def run() -> None:
        for log in logs:
            replay(log, steps=True).to_dict()

    return run


def batch_name(mode: str, logs: str) -> str:
    """The name of a worker's batch: ``mode`` over the set of logs named ``logs``."""
    return f"{mode} {logs}"


def worker(argument: dict[str, Any]) -> tuple[dict[str, Batch], dict[str, Any]]:
    """The setup of a ``harness.Worker``: ``argument["logs"]`` names JSON files of logs by the
    name of each set (written once by the parent, so every side replays identical inputs), and
    ``argument["modes"]`` the modes; one batch per mode and set (:func:`batch_name`). Checks
    that every log replays as ``complete`` before anything is timed."""
    import arbiter

    out: dict[str, Batch] = {}
    for name, path in argument["logs"].items():
        logs = json.loads(Path(path).read_text(encoding="utf-8"))
        bad = [n for n, log in enumerate(logs) if arbiter.replay(log).status != "complete"]
        if bad:
            raise SystemExit(f"{name}: {len(bad)} logs do not replay as complete, e.g. #{bad[0]}")
        for mode, batch in batches(logs, argument["modes"]).items():
            out[batch_name(mode, name)] = batch
    info = {
        "tree": str(Path(arbiter.__file__).resolve().parent.parent),
        "build": arbiter.BUILD,
        "version": arbiter.__version__,
    }
    return out, info
