"""tute-arbiter: a referee for the Spanish card game Tute.

``replay(log)`` adjudicates a game log and ``validate(log, move)`` judges one proposed move;
their ``to_dict()`` are the bodies of the HTTP API. :class:`Referee` does the same with sealed
state tokens and a state cache, as the service does. The rules engine itself is the pure package
:mod:`arbiter.engine`.
"""

from typing import Any

from arbiter.report import Replay, Verdict
from arbiter.service import LIBRARY, Referee, UnknownState

__all__ = ["Referee", "Replay", "UnknownState", "Verdict", "replay", "validate"]
__version__ = "0.1.0"


def replay(log: Any) -> Replay:
    """Adjudicate a log (the JSON object of API.md)."""
    return LIBRARY.replay(log)


def validate(log: Any, move: Any) -> Verdict:
    """Judge ``move`` (an event object of API.md) at the end of ``log``."""
    return LIBRARY.validate(log, move)
