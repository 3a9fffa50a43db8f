"""What the table looks like before each event of a deal, read from the engine's position view.

The search walks played games for positions that exercise a rule. To choose which positions to
ask the referee about, it needs to know who holds what at each moment: :func:`spots` replays a
log with the engine (:func:`arbiter.engine.match.replay` with an observer) and keeps, for each
point of its last deal, the engine's :class:`~arbiter.engine.position.PositionView` (its cards
are the engine's: ints and masks), with the cards each seat has drawn so far (the deal's tricks
record the draws). These are only hints for the search: every vector's answer is the referee's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arbiter.engine.cards import SUIT_MASK, Card, card_codes, cards_of
from arbiter.engine.match import MatchState, replay
from arbiter.engine.obligations import NO_TRUMP
from arbiter.engine.position import PositionView

Mask = int

_CODES = card_codes("spanish")


def by_code(mask: Mask) -> list[Card]:
    """The cards of ``mask`` in the order of their Spanish codes as text (``10B`` before
    ``1B``): the order in which the search has always tried cards, which the published set
    depends on."""
    return sorted(cards_of(mask), key=_CODES.__getitem__)


def of_suit(mask: Mask, suit: int) -> Mask:
    """The cards of ``mask`` in ``suit`` (none of :data:`NO_TRUMP`)."""
    return 0 if suit == NO_TRUMP else mask & SUIT_MASK[suit]


@dataclass(frozen=True, slots=True)
class Spot:
    """The deal before event ``index``: the engine's view, and what the deal's history adds to
    it — the cards each seat has drawn from the stock so far (masks, by seat), the draws after
    the last trick, and the tricks that hold a renuncio."""

    index: int
    view: PositionView
    drawn: tuple[Mask, ...]
    last_draws: tuple[tuple[int, int], ...]
    renuncio_tricks: frozenset[int]

    @staticmethod
    def of(view: PositionView) -> Spot:
        """The spot of the engine's view of a deal (its tricks read for the draws, its
        renuncios for their tricks)."""
        tricks = view.tricks or ()
        drawn = [0] * len(view.hands)
        for trick in tricks:
            for seat, card in trick.draws:
                drawn[seat] |= 1 << card
        return Spot(
            index=view.events,
            view=view,
            drawn=tuple(drawn),
            last_draws=tricks[-1].draws if tricks else (),
            renuncio_tricks=frozenset(v.trick for v in view.renuncios),
        )

    @property
    def turn(self) -> int | None:
        """The seat to act (None once the deal is over)."""
        return self.view.turn

    @property
    def seat(self) -> int:
        """The seat to act (a spot before an event: the deal is not over)."""
        if self.view.turn is None:
            raise ValueError("nobody acts once the deal is over")
        return self.view.turn

    @property
    def hands(self) -> tuple[Mask, ...]:
        return self.view.hands

    @property
    def hand(self) -> Mask:
        """The cards of the seat to act (none once the deal is over)."""
        return 0 if self.view.turn is None else self.view.hands[self.view.turn]

    @property
    def trick(self) -> tuple[tuple[int, Card], ...]:
        """The trick on the table: (seat, card) in the order played."""
        return self.view.trick

    @property
    def trump(self) -> int:
        """The trump suit, or :data:`NO_TRUMP`."""
        return self.view.trump

    @property
    def strict(self) -> bool:
        """Whether the play obligations apply (tute-2p: once the stock is gone)."""
        return self.view.strict

    @property
    def stock_left(self) -> int:
        return self.view.stock_left

    @property
    def tricks_done(self) -> int:
        return self.view.trick_no

    @property
    def over(self) -> bool:
        return self.view.over

    @property
    def on_lead(self) -> bool:
        return not self.view.trick and not self.view.over

    @property
    def led(self) -> int:
        """The suit led (:data:`NO_TRUMP` before the trick's first card)."""
        return self.view.led_suit


def _spot(match: MatchState) -> Spot:
    return Spot.of(match.position().view())


def spots(log: Mapping[str, Any]) -> list[Spot]:
    """The spot before each event of the log's last deal (a valid one), and the one after."""
    last = len(log["deals"])
    found: list[Spot] = []

    def observe(match: MatchState) -> None:
        if len(match.deals) == last:
            found.append(_spot(match))

    replay(log, observer=observe)
    return found
