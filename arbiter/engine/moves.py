"""Moves: the events of a deal's log, as values that read, write and pack themselves.

A :class:`Move` is one entry of a deal's ``events`` (docs/api.md): a *play* of a card, a *sing*
(a cante: the king and horse of one suit declared by the winner of the trick just completed),
a *tute* (all four kings or all four horses in one hand) or an *exchange* (the seven of trumps
given for the turned card under the stock). Its payload is typed by its kind: :attr:`Move.card`
for a play, :attr:`Move.suit` for a sing, :attr:`Move.of` for a tute, nothing for an exchange.

A move packs itself into one int, :attr:`Move.code` (its hash), and only :class:`Move` knows
that layout (:meth:`Move.from_code` unpacks it).
:meth:`Move.from_json` reads an event object, naming any bad field by its path;
:meth:`Move.to_json` writes it back in a notation.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Any, Final, final

from arbiter.engine.cards import Card, Notation, format_card, format_suit, parse_card, parse_suit
from arbiter.engine.errors import CardCodeError, LogError

Seat = int
"""A seat at the table, 0..n-1 in playing order."""

MoveCode = int
"""A move packed in one int (:attr:`Move.code`)."""


class MoveKind(IntEnum):
    """What a move does; the API's ``type`` is the lower-case name."""

    PLAY = 0
    SING = 1
    TUTE = 2
    EXCHANGE = 3


class TuteOf(IntEnum):
    """What a tute is of: the four kings or the four horses."""

    KINGS = 0
    HORSES = 1


# The hot paths compare plain ints.
PLAY: Final = int(MoveKind.PLAY)
SING: Final = int(MoveKind.SING)
TUTE: Final = int(MoveKind.TUTE)
EXCHANGE: Final = int(MoveKind.EXCHANGE)

EVENT_TYPES: Final[tuple[str, ...]] = tuple(kind.name.lower() for kind in MoveKind)
TUTE_OF: Final[tuple[str, ...]] = tuple(of.name.lower() for of in TuteOf)

# The layout of a code: kind << 12 | seat << 8 | (payload + 1); payload -1 for an exchange.
_KIND_SHIFT: Final = 12
_SEAT_SHIFT: Final = 8
_SEAT_BITS: Final = 15
_PAYLOAD_BITS: Final = 255


@final
class Move:
    """One event of a deal: its kind, the acting seat and the card, suit or tute it names.

    Immutable; equal moves have equal :attr:`code`. Build one with :meth:`play`,
    :meth:`sing`, :meth:`tute` or :meth:`exchange`.
    """

    __slots__ = ("_payload", "kind", "seat")

    def __init__(self, kind: int, seat: Seat, payload: int = -1) -> None:
        self.kind = kind
        self.seat = seat
        self._payload = payload

    # --- the four kinds -----------------------------------------------------------------------

    @staticmethod
    def play(seat: Seat, card: Card) -> Move:
        return Move(PLAY, seat, card)

    @staticmethod
    def sing(seat: Seat, suit: int) -> Move:
        return Move(SING, seat, suit)

    @staticmethod
    def tute(seat: Seat, of: TuteOf) -> Move:
        return Move(TUTE, seat, int(of))

    @staticmethod
    def exchange(seat: Seat) -> Move:
        return Move(EXCHANGE, seat)

    # --- the payload, by kind -------------------------------------------------------------------

    @property
    def card(self) -> Card:
        """The card a play puts on the table."""
        if self.kind != PLAY:
            raise ValueError(f"a {EVENT_TYPES[self.kind]} plays no card")
        return self._payload

    @property
    def suit(self) -> int:
        """The suit a sing declares."""
        if self.kind != SING:
            raise ValueError(f"a {EVENT_TYPES[self.kind]} sings no suit")
        return self._payload

    @property
    def of(self) -> TuteOf:
        """What a tute is of."""
        if self.kind != TUTE:
            raise ValueError(f"a {EVENT_TYPES[self.kind]} is no tute")
        return TuteOf(self._payload)

    # --- packing -------------------------------------------------------------------------------

    @property
    def code(self) -> MoveCode:
        """This move packed in one int."""
        return self.kind << _KIND_SHIFT | self.seat << _SEAT_SHIFT | (self._payload + 1)

    @staticmethod
    def from_code(code: MoveCode) -> Move:
        """The move a :attr:`code` packs."""
        return Move(
            code >> _KIND_SHIFT, code >> _SEAT_SHIFT & _SEAT_BITS, (code & _PAYLOAD_BITS) - 1
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and self.code == other.code

    def __hash__(self) -> int:
        return self.code

    def __repr__(self) -> str:
        return f"Move({self.to_json('spanish')})"

    # --- JSON ---------------------------------------------------------------------------------

    @staticmethod
    def from_json(raw: object, players: int, notation: Notation) -> Move:
        """One event object of a log. Raises :class:`LogError` (or :class:`CardCodeError`)
        whose path is relative to the event."""
        # A dict, as JSON parsers make them, is read by the compiled build's dict operations;
        # any other mapping is read as a copy (an isinstance check of Mapping costs about 1.5K
        # instructions, more than the rest of the reading).
        if type(raw) is dict:
            event: dict[str, object] = raw
        elif isinstance(raw, Mapping):
            event = dict(raw)
        else:
            raise LogError("an event must be a JSON object")
        kind = event.get("type")
        if kind not in EVENT_TYPES:
            raise LogError(f"must be one of {', '.join(EVENT_TYPES)}", ("type",))
        seat = event.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
            raise LogError(f"must be a seat from 0 to {players - 1}", ("seat",))
        _check_other_fields(event)
        try:
            if kind == "play":
                if "card" not in event:
                    raise LogError("missing", ("card",))
                return Move(PLAY, seat, parse_card(event["card"], notation))
            if kind == "sing":
                if "suit" not in event:
                    raise LogError("missing", ("suit",))
                return Move(SING, seat, parse_suit(event["suit"], notation))
        except CardCodeError as err:
            raise err.at("card" if kind == "play" else "suit") from None
        if kind == "tute":
            of = event.get("of")
            if of not in TUTE_OF:
                raise LogError("must be kings or horses", ("of",))
            return Move(TUTE, seat, TUTE_OF.index(of))
        return Move(EXCHANGE, seat)

    def to_json(self, notation: Notation) -> dict[str, Any]:
        """The event object of a log, in ``notation``."""
        kind = self.kind
        out: dict[str, Any] = {"type": EVENT_TYPES[kind], "seat": self.seat}
        if kind == PLAY:
            out["card"] = format_card(self._payload, notation)
        elif kind == SING:
            out["suit"] = format_suit(self._payload, notation)
        elif kind == TUTE:
            out["of"] = TUTE_OF[self._payload]
        return out


def _check_other_fields(raw: dict[str, object]) -> None:
    """The contract types ``card``, ``suit`` and ``of`` on every event, used or not."""
    for name in ("card", "suit"):
        if name in raw and not isinstance(raw[name], str):
            raise LogError("must be a string", (name,))
    if "of" in raw and raw["of"] not in TUTE_OF:
        raise LogError("must be kings or horses", ("of",))
