"""The position: the one state moves are judged on and applied to.

A :class:`Position` is the match as the next move finds it: the header, the standing, how many
deals have begun and the state of the last one. :meth:`Position.judge` says whether a move would
be correct, a renuncio or illegal (a :class:`Judgement`, with the :class:`Renuncio` the answer
needs); :meth:`Position.apply` makes it (in place, as python-chess's ``push``), closing the deal
and counting it in the standing when it ends; :meth:`Position.copy` is for speculation;
:meth:`Position.begin_deal` starts the next deal. A replayed match
(:class:`~arbiter.engine.match.MatchState`) applies its moves through its position, and a
sealed state token carries one.

:meth:`Position.view` is what a person (or another engine) sees at that point: a
:class:`PositionView`, the one source for the page's step-through, the conformance kit's
questions and the table editor.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple, final

from arbiter.engine.cards import Card, Mask
from arbiter.engine.log import Header
from arbiter.engine.moves import PLAY, Move
from arbiter.engine.obligations import Obligation
from arbiter.engine.records import Cante, Record, Renuncio
from arbiter.engine.scoring import MatchStanding, Outcome, deal_outcome
from arbiter.engine.setup import DealSetup, mano
from arbiter.engine.state import DealState, IllegalCode


class Ruling(StrEnum):
    """The verdict on one proposed move (docs/api.md ``verdict``)."""

    OK = "ok"
    RENUNCIO = "renuncio"
    ILLEGAL = "illegal"


class Judgement(NamedTuple):
    """The verdict on one proposed move: the renuncio it would be, or why it is illegal.
    ``correct`` is the mask of the seat's correct plays (0 when illegal or a declaration)."""

    verdict: Ruling
    move: Move
    code: IllegalCode | None = None
    renuncio: Renuncio | None = None
    correct: Mask = 0

    @property
    def obligation(self) -> Obligation | None:
        return None if self.renuncio is None else self.renuncio.obligation


def close_deal(header: Header, standing: MatchStanding, deal: DealState) -> Outcome:
    """The outcome of a deal that has just ended, counted in the match standing."""
    outcome = deal_outcome(deal)
    standing.record(header.ruleset, header.options, deal, outcome)
    return outcome


class Position:
    """The match as the next move finds it: header, standing, deals begun, the last deal.

    The last deal's state may come without its history (from a sealed token): judging and
    continuing need only the position fields of :class:`DealState`.
    """

    __slots__ = ("deal", "deals", "header", "outcome", "standing")

    def __init__(
        self,
        header: Header,
        standing: MatchStanding,
        deals: int,
        deal: DealState,
        outcome: Outcome | None = None,
    ) -> None:
        self.header = header
        self.standing = standing
        self.deals = deals
        self.deal = deal
        #: the last deal's outcome once it has ended (None for a position from a token)
        self.outcome = outcome

    @staticmethod
    def first(header: Header, setup: DealSetup) -> Position:
        """The start of a match: its first deal as dealt."""
        standing = MatchStanding(len(header.players))
        return Position(header, standing, 1, _deal_of(header, setup))

    @property
    def between_deals(self) -> bool:
        """The last deal is over and the match is not: the next deal may begin."""
        return self.deal.over and not self.standing.over

    def check(self, move: Move) -> IllegalCode | None:
        """Why ``move`` cannot be applied now (in the order of ``CHECK_ORDER``), or None."""
        if self.standing.over:
            return IllegalCode.MATCH_OVER
        return self.deal.check(move)

    def judge(self, move: Move) -> Judgement:
        """Is ``move`` allowed now? Does not change the position."""
        code = self.check(move)
        if code is not None:
            return Judgement(Ruling.ILLEGAL, move, code)
        if move.kind != PLAY:
            return Judgement(Ruling.OK, move)
        renuncio, correct = self.deal.judge_play(move.seat, move.card)
        if renuncio is None:
            return Judgement(Ruling.OK, move, correct=correct)
        return Judgement(Ruling.RENUNCIO, move, renuncio=renuncio, correct=correct)

    def apply(self, move: Move) -> IllegalCode | None:
        """Apply ``move`` as the deal's next event (a renuncio is applied and recorded), or
        return why it is illegal and change nothing. A deal that ends here is closed: its
        outcome set and counted in the standing."""
        if self.standing.over:
            return IllegalCode.MATCH_OVER
        code = self.deal.apply(move, self.deal.events_applied)
        if code is None and self.deal.over:
            self.outcome = close_deal(self.header, self.standing, self.deal)
        return code

    def copy(self) -> Position:
        """An independent copy (the header is immutable and shared)."""
        return Position(
            self.header, self.standing.copy(), self.deals, self.deal.copy(), self.outcome
        )

    def after(self, move: Move) -> Position:
        """A new position: this one after ``move``, which :meth:`judge` did not find illegal."""
        other = self.copy()
        code = other.apply(move)
        if code is not None:
            raise ValueError(f"apply on an illegal move: {code}")
        return other

    def begin_deal(self, setup: DealSetup) -> Position:
        """The position at the start of the next deal (only :attr:`between_deals`)."""
        if not self.between_deals:
            raise ValueError("a deal begins only after the last one ended, match undecided")
        return Position(self.header, self.standing, self.deals + 1, _deal_of(self.header, setup))

    def view(self) -> PositionView:
        """What can be seen at this point of the deal (the whole table, as the referee does)."""
        deal = self.deal
        over = deal.over or self.standing.over
        correct = 0 if over else deal.correct_mask(deal.turn)
        return PositionView(
            deal=self.deals - 1,
            dealer=deal.dealer,
            mano=mano(deal.dealer, deal.players),
            trump=deal.trump,
            turned=deal.turned,
            hands=tuple(deal.hands),
            stock_left=deal.stock_left,
            stock_known=_known_stock(deal),
            leader=deal.leader,
            trick=tuple(deal.trick),
            trick_no=deal.trick_no,
            tricks_won=tuple(deal.tricks_won),
            card_points=tuple(deal.card_points),
            cante_points=tuple(deal.cante_points),
            totals=tuple(deal.totals()),
            cantes=tuple(deal.cantes),
            open_cantes=tuple(deal.open_cantes()),
            sung=deal.sung,
            strict=deal.strict,
            turn=None if over else deal.turn,
            correct=correct,
            declarations=() if over else tuple(deal.declarations()),
            events=deal.events_applied,
            over=deal.over,
            outcome=self.outcome,
            match_over=self.standing.over,
        )


def _deal_of(header: Header, setup: DealSetup) -> DealState:
    return DealState.start(header.ruleset, header.options, len(header.players), setup)


def _known_stock(deal: DealState) -> tuple[Card, ...]:
    """The stock cards whose place everyone knows: the turned card, drawn last."""
    if deal.stock_left and deal.turned >= 0:
        return (deal.turned,)
    return ()


@final
class PositionView(Record):
    """A point of a deal as the table sees it (every hand shown, as to the referee).

    Cards and hands are ints and masks (see :mod:`arbiter.engine.cards`); ``trump`` is
    ``NO_TRUMP`` while there is none and ``turned`` -1 without a turned card. ``turn`` is None
    once the deal (or the match) is over; ``correct`` and ``declarations`` are what the seat to
    act may do: its plays that are no renuncio, and the declarations open to it. A record, not a
    frozen dataclass (whose interpreted ``__init__`` made a view cost 41K instructions of its
    58K: the steps of a replay make one per event).
    """

    __slots__ = (
        "cante_points",
        "cantes",
        "card_points",
        "correct",
        "deal",
        "dealer",
        "declarations",
        "events",
        "hands",
        "leader",
        "mano",
        "match_over",
        "open_cantes",
        "outcome",
        "over",
        "stock_known",
        "stock_left",
        "strict",
        "sung",
        "totals",
        "trick",
        "trick_no",
        "tricks_won",
        "trump",
        "turn",
        "turned",
    )

    def __init__(
        self,
        *,
        deal: int,
        dealer: int,
        mano: int,
        trump: int,
        turned: Card,
        hands: tuple[Mask, ...],
        stock_left: int,
        stock_known: tuple[Card, ...],
        leader: int,
        trick: tuple[tuple[int, Card], ...],
        trick_no: int,
        tricks_won: tuple[int, ...],
        card_points: tuple[int, ...],
        cante_points: tuple[int, ...],
        totals: tuple[int, ...],
        cantes: tuple[Cante, ...],
        open_cantes: tuple[tuple[int, int], ...],
        sung: int,
        strict: bool,
        turn: int | None,
        correct: Mask,
        declarations: tuple[Move, ...],
        events: int,
        over: bool,
        outcome: Outcome | None,
        match_over: bool,
    ) -> None:
        self.deal = deal
        self.dealer = dealer
        self.mano = mano
        self.trump = trump
        self.turned = turned
        self.hands = hands
        self.stock_left = stock_left
        self.stock_known = stock_known
        self.leader = leader
        self.trick = trick
        self.trick_no = trick_no
        self.tricks_won = tricks_won
        self.card_points = card_points
        self.cante_points = cante_points
        #: each seat's deal total so far (with the last trick's ten once it is won)
        self.totals = totals
        self.cantes = cantes
        #: (seat, suit) of the cantes held and not sung (declared-cante rulesets)
        self.open_cantes = open_cantes
        self.sung = sung
        self.strict = strict
        self.turn = turn
        self.correct = correct
        self.declarations = declarations
        self.events = events
        self.over = over
        self.outcome = outcome
        self.match_over = match_over

    def astuple(self) -> tuple[Any, ...]:
        return (
            self.deal,
            self.dealer,
            self.mano,
            self.trump,
            self.turned,
            self.hands,
            self.stock_left,
            self.stock_known,
            self.leader,
            self.trick,
            self.trick_no,
            self.tricks_won,
            self.card_points,
            self.cante_points,
            self.totals,
            self.cantes,
            self.open_cantes,
            self.sung,
            self.strict,
            self.turn,
            self.correct,
            self.declarations,
            self.events,
            self.over,
            self.outcome,
            self.match_over,
        )
