"""tute-arbiter: a referee for the Spanish card game Tute.

``replay(log)`` adjudicates a game log and ``validate(log, move)`` judges one proposed move;
their ``to_dict()`` are the bodies of the HTTP API. :class:`Referee` does the same with sealed
state tokens and a state cache, as the service does. The rules engine itself is the pure package
:mod:`arbiter.engine`; :data:`BUILD` says whether it runs compiled (mypyc) or as Python.
"""

import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from arbiter import _build

try:  # defined once, in pyproject.toml: read back from the installed package's metadata
    __version__ = version("tute-arbiter")
except PackageNotFoundError:  # a source tree imported without being installed
    __version__ = "0+unknown"

#: "compiled" (mypyc) or "pure": decided before any engine module is imported.
BUILD, _why = _build.choose()
if _why:
    print(_why, file=sys.stderr)

from arbiter.report import Replay, Verdict  # noqa: E402
from arbiter.service import LIBRARY, Referee, UnknownState  # noqa: E402

__all__ = [
    "BUILD",
    "Referee",
    "Replay",
    "UnknownState",
    "Verdict",
    "__version__",
    "replay",
    "validate",
]


def replay(log: Any) -> Replay:
    """Adjudicate a log (the JSON object of docs/api.md)."""
    return LIBRARY.replay(log)


def validate(log: Any, move: Any) -> Verdict:
    """Judge ``move`` (an event object of docs/api.md) at the end of ``log``."""
    return LIBRARY.validate(log, move)
