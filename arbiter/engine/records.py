"""The records a deal leaves: its tricks, cantes, exchanges, renuncios, and what decided it.

Each is an immutable value, equal to another when its fields are, that unpacks like a tuple
(``leader, plays, winner, points, draws = trick``). They are plain classes rather than
``NamedTuple``\\ s because a named tuple's constructor is interpreted Python even in the
compiled build: a replay makes about a dozen of them per deal (measured: a ``Trick`` cost 0.12 us
through ``tuple.__new__``, 0.05 us as a compiled class).
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum
from typing import Any, final

from arbiter.engine.cards import Card, Mask
from arbiter.engine.obligations import Obligation

#: (seat, card) in the order they were played or drawn.
Plays = tuple[tuple[int, Card], ...]


class Record:
    """Base of the records: compared, hashed, printed and unpacked by :meth:`astuple`."""

    __slots__ = ()

    def astuple(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.astuple() == other.astuple()

    def __hash__(self) -> int:
        return hash(self.astuple())

    def __iter__(self) -> Iterator[Any]:
        return iter(self.astuple())

    def __repr__(self) -> str:
        return f"{type(self).__name__}{self.astuple()!r}"


@final
class Trick(Record):
    """A completed baza: who led, the plays in order, who won, its card points, the draws."""

    __slots__ = ("draws", "leader", "plays", "points", "winner")

    def __init__(self, leader: int, plays: Plays, winner: int, points: int, draws: Plays) -> None:
        self.leader = leader
        self.plays = plays
        self.winner = winner
        self.points = points
        self.draws = draws

    def astuple(self) -> tuple[int, Plays, int, int, Plays]:
        return (self.leader, self.plays, self.winner, self.points, self.draws)


@final
class Cante(Record):
    """A cante declared after trick ``trick``, or a call that fell in trick ``trick``."""

    __slots__ = ("points", "seat", "suit", "trick")

    def __init__(self, seat: int, suit: int, points: int, trick: int) -> None:
        self.seat = seat
        self.suit = suit
        self.points = points
        self.trick = trick

    def astuple(self) -> tuple[int, int, int, int]:
        return (self.seat, self.suit, self.points, self.trick)


@final
class Exchange(Record):
    """The seven of trumps given for the turned card."""

    __slots__ = ("gave", "seat", "took")

    def __init__(self, seat: int, gave: Card, took: Card) -> None:
        self.seat = seat
        self.gave = gave
        self.took = took

    def astuple(self) -> tuple[int, Card, Card]:
        return (self.seat, self.gave, self.took)


@final
class Renuncio(Record):
    """A play that broke ``obligation``; ``correct`` is the mask of the plays that were due;
    ``led_suit`` and ``winning`` are the suit led and the card winning when it was played;
    ``event`` and ``trick`` count from 0."""

    __slots__ = ("card", "correct", "event", "led_suit", "obligation", "seat", "trick", "winning")

    def __init__(
        self,
        event: int,
        seat: int,
        card: Card,
        obligation: Obligation,
        correct: Mask,
        trick: int,
        led_suit: int,
        winning: Card,
    ) -> None:
        self.event = event
        self.seat = seat
        self.card = card
        self.obligation = obligation
        self.correct = correct
        self.trick = trick
        self.led_suit = led_suit
        self.winning = winning

    def astuple(self) -> tuple[int, int, Card, Obligation, Mask, int, int, Card]:
        return (
            self.event, self.seat, self.card, self.obligation, self.correct, self.trick,
            self.led_suit, self.winning,
        )  # fmt: skip


class DecisiveKind(StrEnum):
    """What decided a deal before its end (docs/rules.md §7)."""

    RENUNCIO = "renuncio"
    TUTE = "tute"


@final
class Decisive(Record):
    """The first renuncio or tute of a deal, which decides it (docs/rules.md §7)."""

    __slots__ = ("event", "kind", "seat")

    def __init__(self, kind: DecisiveKind, seat: int, event: int) -> None:
        self.kind = kind
        self.seat = seat
        self.event = event

    def astuple(self) -> tuple[DecisiveKind, int, int]:
        return (self.kind, self.seat, self.event)
