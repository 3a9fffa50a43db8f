"""Moves: the events of a deal's log, as values that read and write their JSON.

A :class:`Move` is one entry of a deal's ``events`` (docs/api.md): a *play* of a card, a *sing*
(a cante: the king and horse of one suit declared by the winner of the trick just completed),
a *tute* (all four kings or all four horses in one hand) or an *exchange* (the seven of trumps
given for the turned card under the stock). It is a plain tuple ``(kind, seat, arg)`` — the hot
path unpacks it — whose ``arg`` is the card (play), the suit (sing), 0 = kings / 1 = horses
(tute) or -1 (exchange). :meth:`Move.from_json` reads one, naming any bad field by its path;
:meth:`Move.to_json` writes it back in a notation.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any, Final, NamedTuple

from arbiter.engine.cards import Notation, format_card, format_suit, parse_card, parse_suit
from arbiter.engine.errors import CardCodeError, LogError

Seat = int
"""A seat at the table, 0..n-1 in playing order."""

MoveCode = int
"""A move packed in one int, as the replay's hot path carries a parsed log's events:
``kind << 12 | seat << 8 | (arg + 1)`` (see :meth:`Move.code`)."""


class EventKind(IntEnum):
    """What a move does; the API's ``type`` is the lower-case name."""

    PLAY = 0
    SING = 1
    TUTE = 2
    EXCHANGE = 3


# The hot paths compare plain ints.
PLAY: Final = int(EventKind.PLAY)
SING: Final = int(EventKind.SING)
TUTE: Final = int(EventKind.TUTE)
EXCHANGE: Final = int(EventKind.EXCHANGE)

EVENT_TYPES: Final[tuple[str, ...]] = tuple(kind.name.lower() for kind in EventKind)
#: What a tute is of, by ``arg``.
TUTE_OF: Final[tuple[str, ...]] = ("kings", "horses")


class Move(NamedTuple):
    """One event of a deal: ``kind`` (an :class:`EventKind` value), the acting seat, and the
    card, suit or tute it names (see the module docstring)."""

    kind: int
    seat: Seat
    arg: int = -1

    @classmethod
    def from_json(cls, raw: object, players: int, notation: Notation) -> Move:
        """One event object of a log. Raises :class:`LogError` (or :class:`CardCodeError`)
        whose path is relative to the event."""
        if not isinstance(raw, Mapping):
            raise LogError("an event must be a JSON object")
        kind = raw.get("type")
        if kind not in EVENT_TYPES:
            raise LogError(f"must be one of {', '.join(EVENT_TYPES)}", ("type",))
        seat = raw.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
            raise LogError(f"must be a seat from 0 to {players - 1}", ("seat",))
        _check_other_fields(raw)
        try:
            if kind == "play":
                if "card" not in raw:
                    raise LogError("missing", ("card",))
                return cls(PLAY, seat, parse_card(raw["card"], notation))
            if kind == "sing":
                if "suit" not in raw:
                    raise LogError("missing", ("suit",))
                return cls(SING, seat, parse_suit(raw["suit"], notation))
        except CardCodeError as err:
            raise err.at("card" if kind == "play" else "suit") from None
        if kind == "tute":
            of = raw.get("of")
            if of not in TUTE_OF:
                raise LogError("must be kings or horses", ("of",))
            return cls(TUTE, seat, TUTE_OF.index(of))
        return cls(EXCHANGE, seat)

    @property
    def code(self) -> MoveCode:
        """This move packed in one int."""
        kind, seat, arg = self
        return kind << 12 | seat << 8 | (arg + 1)

    @classmethod
    def from_code(cls, code: MoveCode) -> Move:
        """The move a :attr:`code` packs."""
        return cls(code >> 12, code >> 8 & 15, (code & 255) - 1)

    def to_json(self, notation: Notation) -> dict[str, Any]:
        """The event object of a log, in ``notation``."""
        kind, seat, arg = self
        out: dict[str, Any] = {"type": EVENT_TYPES[kind], "seat": seat}
        if kind == PLAY:
            out["card"] = format_card(arg, notation)
        elif kind == SING:
            out["suit"] = format_suit(arg, notation)
        elif kind == TUTE:
            out["of"] = TUTE_OF[arg]
        return out


def _check_other_fields(raw: Mapping[str, object]) -> None:
    """The contract types ``card``, ``suit`` and ``of`` on every event, used or not."""
    for name in ("card", "suit"):
        if name in raw and not isinstance(raw[name], str):
            raise LogError("must be a string", (name,))
    if "of" in raw and raw["of"] not in TUTE_OF:
        raise LogError("must be kings or horses", ("of",))
