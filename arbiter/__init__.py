"""tute-arbiter: a referee for the Spanish card game Tute.

``replay(log)`` adjudicates a game log and ``validate(log, move)`` judges one proposed move;
their ``to_dict()`` are the bodies of the HTTP API (docs/api.md). The rules engine itself is the
pure package :mod:`arbiter.engine`.
"""

from importlib.metadata import PackageNotFoundError, version

try:  # defined once, in pyproject.toml: read back from the installed package's metadata
    __version__ = version("tute-arbiter")
except PackageNotFoundError:  # a source tree imported without being installed
    __version__ = "0+unknown"

from arbiter.report import Replay, Verdict, replay, validate

__all__ = ["Replay", "Verdict", "__version__", "replay", "validate"]
