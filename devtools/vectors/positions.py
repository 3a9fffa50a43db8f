"""What the table looks like before each event of a deal, read from the engine's position view.

The search walks played games for positions that exercise a rule. To choose which positions to
ask the referee about, it needs to know who holds what at each moment: :func:`spots` replays a
log with the engine (:func:`arbiter.engine.match.replay` with an observer) and keeps, for each
point of its last deal, the engine's :class:`~arbiter.engine.position.PositionView` in the
vectors' card codes, with the cards each seat has drawn so far (the deal's tricks record the
draws). These are only hints for the search: every vector's answer is the referee's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arbiter.engine.cards import card_codes, cards_of, format_suit
from arbiter.engine.match import MatchState, replay
from arbiter.engine.obligations import NO_TRUMP
from arbiter.engine.position import PositionView
from arbiter.engine.state import DealState
from devtools.vectors.card_codes import suit_of

_CODES = card_codes("spanish")


@dataclass(frozen=True, slots=True)
class Spot:
    """The deal before event ``index``: who acts, every hand, the trick on the table."""

    index: int
    #: the seat to act (None once the deal is over)
    turn: int | None
    hands: tuple[frozenset[str], ...]
    trick: tuple[tuple[int, str], ...]
    trump: str | None
    stock_left: int
    #: whether the play obligations apply (tute-2p: once the stock is gone)
    strict: bool
    #: the cards each seat has drawn from the stock so far
    drawn: tuple[frozenset[str], ...]
    tricks_done: int
    over: bool
    #: the engine's view itself, and what the deal's history adds to it: the draws after the
    #: last trick, and the tricks that hold a renuncio
    view: PositionView
    last_draws: tuple[tuple[int, int], ...]
    renuncio_tricks: frozenset[int]

    @staticmethod
    def of(view: PositionView, state: DealState) -> Spot:
        """The spot of the engine's view of a deal (its state's history read for the draws
        and the renuncios)."""
        drawn: list[set[str]] = [set() for _ in view.hands]
        for trick in state.tricks:
            for seat, card in trick.draws:
                drawn[seat].add(_CODES[card])
        return Spot(
            index=view.events,
            turn=view.turn,
            hands=tuple(_codes(h) for h in view.hands),
            trick=tuple((seat, _CODES[c]) for seat, c in view.trick),
            trump=None if view.trump == NO_TRUMP else format_suit(view.trump),
            stock_left=view.stock_left,
            strict=view.strict,
            drawn=tuple(frozenset(d) for d in drawn),
            tricks_done=view.trick_no,
            over=view.over,
            view=view,
            last_draws=state.tricks[-1].draws if state.tricks else (),
            renuncio_tricks=frozenset(v.trick for v in state.violations),
        )

    @property
    def seat(self) -> int:
        """The seat to act (a spot before an event: the deal is not over)."""
        if self.turn is None:
            raise ValueError("nobody acts once the deal is over")
        return self.turn

    @property
    def hand(self) -> frozenset[str]:
        return frozenset() if self.turn is None else self.hands[self.turn]

    @property
    def on_lead(self) -> bool:
        return not self.trick and not self.over

    @property
    def led(self) -> str | None:
        return suit_of(self.trick[0][1]) if self.trick else None


def _codes(mask: int) -> frozenset[str]:
    return frozenset(_CODES[c] for c in cards_of(mask))


def _spot(match: MatchState) -> Spot:
    return Spot.of(match.position().view(), match.deals[-1].state)


def spots(log: Mapping[str, Any]) -> list[Spot]:
    """The spot before each event of the log's last deal (a valid one), and the one after."""
    last = len(log["deals"])
    found: list[Spot] = []

    def observe(match: MatchState) -> None:
        if len(match.deals) == last:
            found.append(_spot(match))

    replay(log, observer=observe)
    return found
