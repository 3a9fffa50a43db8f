"""tute-arbiter: a referee for the Spanish card game Tute.

``replay(log)`` adjudicates a game log and ``validate(log, move)`` judges one proposed move;
their ``to_dict()`` are the bodies of the HTTP API (API.md). The rules engine itself is the
pure package :mod:`arbiter.engine`.
"""

from arbiter.report import Replay, Verdict, replay, validate

__all__ = ["Replay", "Verdict", "replay", "validate"]
__version__ = "0.1.0"
