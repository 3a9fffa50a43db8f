"""tute-arbiter: a referee for the Spanish card game Tute.

``replay(log)`` adjudicates a game log and ``validate(log, move)`` judges one proposed move;
their ``to_dict()`` are the bodies of the HTTP API. :class:`Referee` does the same with sealed
state tokens and a state cache, as the service does. ``score_lines(lines)`` and
``score_file(path)`` score archives, one game per line (:mod:`arbiter.archive`). The rules
engine itself is the pure package :mod:`arbiter.engine`; :data:`BUILD` says whether it runs
compiled (mypyc) or as Python.

The service layer (and with it Redis and the crypto) and the archives are imported when first
used, not by ``import arbiter``: the gunicorn master imports the package before gevent patches
the workers.
"""

import sys
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

from arbiter import _build

try:  # defined once, in pyproject.toml: read back from the installed package's metadata
    __version__ = version("tute-arbiter")
except PackageNotFoundError:  # a source tree imported without being installed
    __version__ = "0+unknown"

#: "compiled" (mypyc) or "pure": decided before any engine module is imported.
BUILD, _why = _build.choose()
if _why:
    print(_why, file=sys.stderr)

if TYPE_CHECKING:
    from arbiter.archive.library import score_file, score_lines
    from arbiter.report import Replay, Verdict
    from arbiter.service import Referee, UnknownState

__all__ = [
    "BUILD",
    "Referee",
    "Replay",
    "UnknownState",
    "Verdict",
    "__version__",
    "replay",
    "score_file",
    "score_lines",
    "validate",
]


def replay(log: Any) -> "Replay":
    """Adjudicate a log (the JSON object of docs/api.md)."""
    # `import arbiter.service`, not `from arbiter.service import LIBRARY`: run on every call,
    # the `from` form cost more than the rest of the service layer (measured with timeit:
    # about 6 us against 0.6 us a call).
    import arbiter.service

    return arbiter.service.LIBRARY.replay(log)


def validate(log: Any, move: Any) -> "Verdict":
    """Judge ``move`` (an event object of docs/api.md) at the end of ``log``."""
    import arbiter.service  # not `from ... import`: see replay

    return arbiter.service.LIBRARY.validate(log, move)


def __getattr__(name: str) -> Any:
    if name in ("Replay", "Verdict"):
        from arbiter import report

        return getattr(report, name)
    if name in ("Referee", "UnknownState"):
        from arbiter import service

        return getattr(service, name)
    if name in ("score_lines", "score_file"):
        from arbiter.archive import library

        return getattr(library, name)
    raise AttributeError(f"module 'arbiter' has no attribute {name!r}")
