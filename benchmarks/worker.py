"""The child process of ``harness.Worker``: batches of a benchmark timed in a process of their
own, so that another source tree (on ``PYTHONPATH``) or another build can take turns with this
one round by round.

Run as ``python -P benchmarks/worker.py FILE:FUNCTION ARGUMENT_JSON`` (``harness.Worker`` does):
standard library only, and nothing of this tree put on ``sys.path``, so the ``arbiter`` that
FILE imports is the one of ``PYTHONPATH``. FILE is loaded by its path; ``FUNCTION(argument)``
returns ``(batches, info)``. The first line written is ``{"batches": [...], "info": {...}}``;
then for every line ``{"run": NAME}`` read, the batch runs once and ``{"seconds": S}`` is
written (perf_counter around the call). End of input ends the process. Whatever the batches
print goes to stderr: stdout carries only these lines.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
import traceback
from typing import Any, TextIO


def _load(setup: str) -> Any:
    path, _, function = setup.rpartition(":")
    spec = importlib.util.spec_from_file_location("_benchmark_setup", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return getattr(module, function)


def _say(out: TextIO, message: dict[str, Any]) -> None:
    out.write(json.dumps(message) + "\n")
    out.flush()


def main(argv: list[str]) -> int:
    out, sys.stdout = sys.stdout, sys.stderr  # the protocol's stream is ours alone
    try:
        batches, info = _load(argv[0])(json.loads(argv[1]))
    except Exception:
        _say(out, {"error": traceback.format_exc()})
        return 1
    _say(out, {"batches": list(batches), "info": info})
    for line in sys.stdin:
        name = json.loads(line)["run"]
        run = batches[name]
        start = time.perf_counter()
        run()
        _say(out, {"seconds": time.perf_counter() - start})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
