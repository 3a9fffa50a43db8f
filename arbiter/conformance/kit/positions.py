"""The ``position`` of a question (protocol 2): what an engine needs to answer without replaying the
log, made from the engine's position (docs/conformance.md, "The position").

:func:`position_json` is the referee's whole position (:func:`arbiter.report.position_dict`: the
header, the deal's place in the match, every fact of the position view, the renuncios made so far
and the match standing) without its ``legal_moves``: those are what the engine is asked.
:func:`position_of` is the position a log leads to, or None when the referee has none to give (a
log it refuses, or one whose replay stops at an illegal event).

:class:`Judge` goes the other way, for the shipped adapter: this project's engine set to a
position read from its JSON alone (:func:`arbiter.report.read_position_json`, the engine's own
reader), answering legal moves and verdicts as the referee does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arbiter.conformance.kit.referee_answers import verdict_answer
from arbiter.engine.errors import ArbiterError, LogError
from arbiter.engine.match import replay
from arbiter.engine.moves import Move
from arbiter.engine.position import Position
from arbiter.report import position_dict, read_position_json


def position_json(position: Position) -> dict[str, Any]:
    """The ``position`` of a question asked at this point of the match."""
    return position_dict(position, legal_moves=False)


def position_of(log: object) -> dict[str, Any] | None:
    """The position ``log`` leads to, or None when the referee has none: it refuses the log, or
    its replay stops at an illegal event."""
    try:
        return position_of_log(log)
    except ArbiterError:
        return None


def position_of_log(log: object) -> dict[str, Any]:
    """The position ``log`` leads to; an :class:`ArbiterError` (with the pointer of the field
    or the event) when the referee refuses the log or its replay stops at an illegal event."""
    match = replay(log)
    illegal = match.illegal
    if illegal is not None:
        where: tuple[str | int, ...] = ("deals", illegal.deal)
        if illegal.event is not None:
            where += ("events", illegal.event)
        raise LogError(f"the log is invalid here ({illegal.code.value})", where)
    if not match.deals:
        raise LogError("no deal to play", ("deals",))
    return position_json(match.position())


# --- reading a position back: the shipped adapter's engine ----------------------------------------


def read_position(data: Mapping[str, Any]) -> Position:
    """This project's engine at the point a question's ``position`` describes."""
    return read_position_json(data)


class Judge:
    """This project's engine answering from a question's ``position`` alone."""

    def __init__(self, position: Mapping[str, Any]) -> None:
        self.position = read_position(position)

    def legal_moves(self) -> list[dict[str, Any]] | None:
        """Every move open to the seat to act (None once the deal or the match is over)."""
        position = self.position
        if position.deal.over or position.standing.over:
            return None
        notation = position.header.notation
        return [m.to_json(notation) for m in position.deal.legal_moves()]

    def verdict(self, move: object) -> dict[str, Any]:
        """The verdict on ``move`` (an event of docs/api.md), as the referee answers it."""
        header = self.position.header
        event = Move.from_json(move, len(header.players), header.notation)
        return verdict_answer(self.position, self.position.judge(event))
