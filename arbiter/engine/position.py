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
questions, ``POST /v1/positions`` and the table editor. It carries every fact a reader needs,
worked out here once (the trick's winner, the cards a declaration rests on, the cards drawn and
captured, what decided the deal...), and goes back: :meth:`Position.from_view` is a position that
judges every move as the one the view was taken of (:mod:`arbiter.engine.given` reads one from
its JSON).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple, final

from arbiter.engine.cards import Card, Mask, cards_of, mask_points, pack_mask
from arbiter.engine.log import Header
from arbiter.engine.moves import PLAY, Move
from arbiter.engine.obligations import Obligation
from arbiter.engine.records import Cante, Decisive, Exchange, Record, Renuncio, Trick
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
        on_table = bool(deal.trick)
        # a deal read from a token has no history: its past tricks are not known
        known = len(deal.tricks) == deal.trick_no
        return PositionView(
            header=self.header,
            standing=self.standing.copy(),
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
            led_suit=deal.led_suit if on_table else -1,
            win_seat=deal.win_seat if on_table else -1,
            win_card=deal.win_card if on_table else -1,
            last_winner=deal.last_winner,
            cantes_this_lead=deal.cantes_this_lead,
            calls=deal.calls,
            decisive=deal.decisive,
            tricks=tuple(deal.tricks) if known else None,
            captured=_captured(deal.tricks, deal.players) if known else None,
            exchanges=tuple(deal.exchanges),
            renuncios=tuple(deal.violations),
        )

    @staticmethod
    def from_view(view: PositionView) -> Position:
        """The position a view shows: it judges every move as the position the view was
        taken of, and its view is the same. The stock's unknown cards (all but those of
        ``stock_known``) are the cards nobody holds nor has captured, in the order of their
        ints: a view does not tell the order of the stock, so the cards drawn after the next
        trick may differ from the original's."""
        header = view.header
        deal = DealState(header.ruleset, header.options, len(header.players))
        deal.dealer = view.dealer
        deal.hands = list(view.hands)
        deal.stock = _stock_of(view)
        deal.turned = view.turned
        deal.trump = view.trump
        deal.leader = view.leader
        # on lead (and once over) the seat to act is the leader
        deal.turn = view.leader if view.turn is None else view.turn
        deal.trick = list(view.trick)
        deal.trick_points = mask_points(_mask_of(view.trick))
        deal.led_suit, deal.win_seat, deal.win_card = view.led_suit, view.win_seat, view.win_card
        deal.strict = view.strict
        deal.trick_no = view.trick_no
        deal.tricks_won = list(view.tricks_won)
        deal.card_points = list(view.card_points)
        deal.cante_points = list(view.cante_points)
        deal.sung = view.sung
        deal.cantes_this_lead = view.cantes_this_lead
        deal.calls = view.calls
        deal.last_winner = view.last_winner
        deal.decisive = view.decisive
        deal.over = view.over
        deal.events_applied = view.events
        deal.tricks = [] if view.tricks is None else list(view.tricks)
        deal.cantes = list(view.cantes)
        deal.exchanges = list(view.exchanges)
        deal.violations = list(view.renuncios)
        return Position(header, view.standing.copy(), view.deal + 1, deal, view.outcome)


def _mask_of(plays: tuple[tuple[int, Card], ...]) -> Mask:
    mask = 0
    for _, card in plays:
        mask |= 1 << card
    return mask


def _captured(tricks: list[Trick], players: int) -> tuple[Mask, ...]:
    """The cards of the tricks each seat has won."""
    captured = [0] * players
    for t in tricks:
        captured[t.winner] |= _mask_of(t.plays)
    return tuple(captured)


def _stock_of(view: PositionView) -> list[Card]:
    """A stock for a view: the cards nobody holds nor has captured and that are not on the
    table, lowest first, then the known ones (the turned card, drawn last)."""
    known = view.stock_known
    unknown_count = view.stock_left - len(known)
    if unknown_count <= 0:
        return list(known[-view.stock_left :]) if view.stock_left else []
    header = view.header
    seen = _mask_of(view.trick)
    for hand in view.hands:
        seen |= hand
    for mask in view.captured or ():
        seen |= mask
    for card in known:
        seen |= 1 << card
    pack = pack_mask(header.ruleset.removed_rank[len(header.players)])
    unseen = cards_of(pack & ~seen)
    hidden = _hidden_points(view)
    if hidden is not None:
        # tricks of unknown cards hold some of the unseen cards: the stock is made of the
        # others, so that the points left to those tricks are the points they were given
        stock = _cards_holding(unseen, unknown_count, mask_points(pack & ~seen) - hidden)
        if stock is not None:
            return stock + list(known)
    return unseen[:unknown_count] + list(known)


def _hidden_points(view: PositionView) -> int | None:
    """The card points of the tricks whose cards are not known (None: there are none)."""
    tricks = view.tricks
    if tricks is None or all(t.plays for t in tricks):
        return None
    return sum(view.card_points) - sum(t.points for t in tricks if t.plays)


def _cards_holding(cards: list[Card], count: int, points: int) -> list[Card] | None:
    """``count`` of ``cards`` (lowest first) worth ``points`` together, the lowest of each
    value first; None when no such cards are there."""
    by_value: dict[int, list[Card]] = {}
    for card in cards:
        by_value.setdefault(mask_points(1 << card), []).append(card)
    # how many of each value, by (cards taken, points), over the values one after the other
    ways: dict[tuple[int, int], tuple[int, ...]] = {(0, 0): ()}
    for value, group in by_value.items():
        grown: dict[tuple[int, int], tuple[int, ...]] = {}
        for (taken, worth), counts in ways.items():
            for k in range(min(len(group), count - taken) + 1):
                grown.setdefault((taken + k, worth + k * value), (*counts, k))
        ways = grown
    found = ways.get((count, points))
    if found is None:
        return None
    chosen = [c for k, group in zip(found, by_value.values(), strict=True) for c in group[:k]]
    return sorted(chosen)


def _deal_of(header: Header, setup: DealSetup) -> DealState:
    return DealState.start(header.ruleset, header.options, len(header.players), setup)


def _known_stock(deal: DealState) -> tuple[Card, ...]:
    """The stock cards whose place everyone knows: the turned card, drawn last."""
    if deal.stock_left and deal.turned >= 0:
        return (deal.turned,)
    return ()


# --- generated by `python -m devtools.records` from arbiter/engine/view_fields.py ---


@final
class PositionView(Record):
    """A point of a deal as the table sees it (every hand shown, as to the referee).

    Cards and hands are ints and masks (see :mod:`arbiter.engine.cards`); ``trump`` is
    ``NO_TRUMP`` while there is none and ``turned`` -1 without a turned card. ``turn`` is None
    once the deal (or the match) is over; ``correct`` and ``declarations`` are what the seat to
    act may do: its plays that are no renuncio, and the declarations open to it. A record, not a
    frozen dataclass (whose interpreted ``__init__`` made a view cost 41K instructions of its
    58K: the steps of a replay make one per event). Its fields are those of
    :data:`arbiter.engine.view_fields.VIEW_FIELDS`.
    """

    __slots__ = (
        "calls",
        "cante_points",
        "cantes",
        "cantes_this_lead",
        "captured",
        "card_points",
        "correct",
        "deal",
        "dealer",
        "decisive",
        "declarations",
        "events",
        "exchanges",
        "hands",
        "header",
        "last_winner",
        "leader",
        "led_suit",
        "mano",
        "match_over",
        "open_cantes",
        "outcome",
        "over",
        "renuncios",
        "standing",
        "stock_known",
        "stock_left",
        "strict",
        "sung",
        "totals",
        "trick",
        "trick_no",
        "tricks",
        "tricks_won",
        "trump",
        "turn",
        "turned",
        "win_card",
        "win_seat",
    )

    def __init__(
        self,
        *,
        header: Header,
        standing: MatchStanding,
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
        totals: tuple[int, ...] = (),
        cantes: tuple[Cante, ...],
        open_cantes: tuple[tuple[int, int], ...] = (),
        sung: int,
        strict: bool,
        turn: int | None,
        correct: Mask = 0,
        declarations: tuple[Move, ...] = (),
        events: int,
        over: bool,
        outcome: Outcome | None = None,
        match_over: bool,
        led_suit: int,
        win_seat: int,
        win_card: Card,
        last_winner: int,
        cantes_this_lead: int,
        calls: int,
        decisive: Decisive | None,
        tricks: tuple[Trick, ...] | None,
        captured: tuple[Mask, ...] | None,
        exchanges: tuple[Exchange, ...],
        renuncios: tuple[Renuncio, ...],
    ) -> None:
        #: The match's header: ruleset, options, players.
        self.header = header
        #: The match standing (a copy: the view does not change with the match).
        self.standing = standing
        #: The deal's index in the match.
        self.deal = deal
        #: The dealer's seat.
        self.dealer = dealer
        #: The seat that led the deal's first trick.
        self.mano = mano
        #: The trump suit; null while there is none.
        self.trump = trump
        #: The card that shows trump, if any.
        self.turned = turned
        #: Each seat's hand.
        self.hands = hands
        #: Cards left in the stock.
        self.stock_left = stock_left
        #: The stock cards whose place everyone knows (the turned card, drawn last).
        self.stock_known = stock_known
        #: Who led the trick on the table.
        self.leader = leader
        #: The trick on the table: (seat, card) in order.
        self.trick = trick
        #: Tricks completed so far.
        self.trick_no = trick_no
        #: Tricks won by each seat.
        self.tricks_won = tricks_won
        #: Card points of each seat's tricks (given, if a trick's are not known).
        self.card_points = card_points
        #: Points of each seat's cantes or calls.
        self.cante_points = cante_points
        #: Each seat's deal total so far (with the last trick's ten once it is won).
        self.totals = totals
        #: The cantes or calls made.
        self.cantes = cantes
        #: (seat, suit) of the cantes held and not sung (declared-cante rulesets).
        self.open_cantes = open_cantes
        #: The suits sung so far.
        self.sung = sung
        #: Whether the obligations apply (false while a stock lasts).
        self.strict = strict
        #: The seat to act; null once over.
        self.turn = turn
        #: The plays of the seat to act that are no renuncio.
        self.correct = correct
        #: The declarations open to the seat to act.
        self.declarations = declarations
        #: Events applied so far.
        self.events = events
        #: Whether the deal is over.
        self.over = over
        #: The deal's outcome once it is over.
        self.outcome = outcome
        #: Whether the match is over.
        self.match_over = match_over
        #: The suit led to the trick on the table (-1: none).
        self.led_suit = led_suit
        #: The seat winning the trick on the table (-1: none).
        self.win_seat = win_seat
        #: The card winning the trick on the table (-1: none).
        self.win_card = win_card
        #: The last completed trick's winner, who leads; null before the first.
        self.last_winner = last_winner
        #: Cantes declared on this lead.
        self.cantes_this_lead = cantes_this_lead
        #: Calls made so far (calls only).
        self.calls = calls
        #: The event that decided the deal before its end (its first renuncio or tute).
        self.decisive = decisive
        #: The tricks completed, with the cards drawn after each (None: not known).
        self.tricks = tricks
        #: The cards of each seat's tricks whose cards are known (None: not known).
        self.captured = captured
        #: The exchanges made.
        self.exchanges = exchanges
        #: The renuncios made.
        self.renuncios = renuncios

    def astuple(self) -> tuple[Any, ...]:
        return (
            self.header,
            self.standing.to_fields(),
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
            self.led_suit,
            self.win_seat,
            self.win_card,
            self.last_winner,
            self.cantes_this_lead,
            self.calls,
            self.decisive,
            self.tricks,
            self.captured,
            self.exchanges,
            self.renuncios,
        )


# --- end of the generated code ---
