"""The state of one deal and the events that change it.

:class:`DealState` is the referee's table: the hands (int bitmasks), the stock, the trick on the
table, who acts, the tricks taken, the cantes, the renuncios seen. Events come in as
:class:`Move` tuples and are either applied or refused with an :class:`IllegalCode`
(docs/rules.md §8). A play that breaks an obligation is *applied* and recorded as a
:class:`Renuncio`: the card is on the table and the deal goes on.

Vocabulary: a *baza* is a trick; the *mano* leads the first one; a *cante* is a king and horse
of one suit declared together ("las veinte", or "las cuarenta" in trumps); a *tute* is all four
kings or all four horses in one hand; the *arrastre* or *triunfo* is trump.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Final, NamedTuple

from arbiter.engine.cards import (
    HORSE,
    KING,
    POINTS,
    RANKS,
    SEVEN,
    Card,
    Mask,
    display_order,
    make_card,
    pack_mask,
    rank_mask,
)
from arbiter.engine.moves import EXCHANGE, PLAY, SING, TUTE, Move, MoveCode, Seat
from arbiter.engine.obligations import Obligation, broken_obligation, correct_plays
from arbiter.engine.rulesets import Options, Ruleset, partner
from arbiter.engine.setup import DealSetup, mano

#: "Diez de últimas": the winner of the last trick scores 10.
LAST_TRICK_BONUS: Final = 10
#: "Las cuarenta": a cante in trumps, and the first call of a deal (which sets trump).
LAS_CUARENTA: Final = 40
#: "Las veinte": a cante in another suit, and every later call.
LAS_VEINTE: Final = 20


def cante_points(suit: int, trump: int) -> int:
    """What a cante declared in ``suit`` scores while ``trump`` is trump."""
    return LAS_CUARENTA if suit == trump else LAS_VEINTE


class IllegalCode(StrEnum):
    """Why an event cannot be applied (docs/api.md), in the order they are checked."""

    MATCH_OVER = "match_over"
    DEAL_OVER = "deal_over"
    OUT_OF_TURN = "out_of_turn"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    NOT_IN_RULESET = "not_in_ruleset"
    NOT_ON_LEAD = "not_on_lead"
    NO_TRICK_WON = "no_trick_won"
    CANTE_ALREADY_DECLARED = "cante_already_declared"
    SUIT_ALREADY_SUNG = "suit_already_sung"
    PAIR_NOT_HELD = "pair_not_held"
    TUTE_NOT_HELD = "tute_not_held"
    NO_STOCK = "no_stock"
    SEVEN_NOT_HELD = "seven_not_held"


class Trick(NamedTuple):
    """A completed baza: who led, the plays in order, who won, its card points, the draws."""

    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int
    points: int
    draws: tuple[tuple[int, Card], ...]


class Cante(NamedTuple):
    """A cante declared after trick ``trick``, or a call that fell in trick ``trick``."""

    seat: int
    suit: int
    points: int
    trick: int


class Exchange(NamedTuple):
    """The seven of trumps given for the turned card."""

    seat: int
    gave: Card
    took: Card


class Renuncio(NamedTuple):
    """A play that broke ``obligation``; ``correct`` is the mask of the plays that were due;
    ``led_suit`` and ``winning`` are the suit led and the card winning when it was played."""

    event: int
    seat: int
    card: Card
    obligation: Obligation
    correct: int
    trick: int
    led_suit: int
    winning: Card


class Decisive(NamedTuple):
    """The first renuncio or tute of a deal, which decides it (docs/rules.md §7)."""

    kind: str  # "renuncio" | "tute"
    seat: int
    event: int


_TUTE_MASKS = (rank_mask(KING), rank_mask(HORSE))


def _pair_masks(low: int, high: int) -> tuple[int, ...]:
    """Per suit, the mask of the cards of ranks ``low`` and ``high``."""
    return tuple((1 << make_card(low, s)) | (1 << make_card(high, s)) for s in range(4))


#: The call pairs of every ``call_ranks`` an option can give (its two ranks, sorted).
_CALL_MASKS: Final[dict[tuple[int, int], tuple[int, ...]]] = {
    (low, high): _pair_masks(low, high) for low in RANKS for high in RANKS if low < high
}
_CANTE_MASKS = _pair_masks(HORSE, KING)
_SEVENS = tuple(make_card(SEVEN, s) for s in range(4))


class DealState:
    """One deal in progress (or finished). Mutable; :meth:`copy` before speculative moves."""

    __slots__ = (
        "call_masks",
        "calls",
        "calls_in_trick",
        "cante_points",
        "cantes",
        "cantes_this_lead",
        "card_points",
        "dealer",
        "decisive",
        "events_applied",
        "exchanges",
        "hands",
        "last_winner",
        "leader",
        "led_suit",
        "must_trump",
        "options",
        "over",
        "players",
        "relief",
        "ruleset",
        "stock",
        "stock_pos",
        "strict",
        "sung",
        "total_tricks",
        "trick",
        "trick_mask",
        "trick_no",
        "trick_points",
        "tricks",
        "tricks_won",
        "trump",
        "turn",
        "violations",
        "win_card",
        "win_seat",
        "won",
    )

    def __init__(self, ruleset: Ruleset, options: Options, players: int, setup: DealSetup):
        self._derive(ruleset, options, players)
        self.dealer = setup.dealer
        self.hands = list(setup.hands)
        self.stock = list(setup.stock)
        self.stock_pos = 0
        self.trump = setup.trump
        self.turn = self.leader = mano(setup.dealer, players)
        self.trick: list[tuple[int, Card]] = []
        self.led_suit = self.win_card = self.win_seat = -1
        self.strict = not ruleset.stock
        self.trick_no = 0
        self.tricks_won = [0] * players
        self.card_points = [0] * players
        self.cante_points = [0] * players
        self.sung = 0
        self.cantes_this_lead = 0
        self.calls = 0
        self.last_winner = -1
        self.decisive: Decisive | None = None
        self.over = False
        self.events_applied = 0
        self.won = [0] * players
        self.tricks: list[Trick] = []
        self.cantes: list[Cante] = []
        self.exchanges: list[Exchange] = []
        self.violations: list[Renuncio] = []

    def _derive(self, ruleset: Ruleset, options: Options, players: int) -> None:
        """The slots fixed by the ruleset, the options and the number of players."""
        self.ruleset = ruleset
        self.options = options
        self.players = players
        self.must_trump = options.trump_when_cannot_overtrump
        self.relief = ruleset.pairs and options.partner_relief
        self.calls_in_trick = ruleset.cantes == "in_trick"
        self.call_masks = _CALL_MASKS[options.call_ranks]
        self.total_tricks = pack_mask(ruleset.removed_rank[players]).bit_count() // players
        self.trick_mask = self.trick_points = 0

    # --- queries -------------------------------------------------------------------------

    @property
    def stock_left(self) -> int:
        return len(self.stock) - self.stock_pos

    @property
    def last_trick_winner(self) -> int | None:
        return self.last_winner if self.trick_no == self.total_tricks else None

    def on_lead(self, seat: int) -> bool:
        return seat == self.turn and not self.trick and not self.over

    def correct_mask(self, seat: Seat) -> Mask:
        """The cards ``seat`` may play now without a renuncio (the whole hand on lead)."""
        hand = self.hands[seat]
        if not self.trick or not self.strict:
            return hand
        relieved = self.relief and self.win_seat == partner(seat)
        return correct_plays(
            hand, self.led_suit, self.win_card, self.trump, relieved, self.must_trump
        )

    def judge_play(self, seat: Seat, card: Card) -> tuple[Obligation | None, Mask]:
        """The obligation ``card`` would break (None if correct) and the correct mask."""
        correct = self.correct_mask(seat)
        if correct >> card & 1:
            return None, correct
        broken = broken_obligation(card, self.hands[seat], self.led_suit, self.trump)
        return broken, correct

    def check(self, event: Move) -> IllegalCode | None:
        """Why ``event`` cannot be applied now, or None. Does not change the state."""
        if self.over:
            return IllegalCode.DEAL_OVER
        kind, seat, arg = event
        if kind == PLAY:
            if seat != self.turn:
                return IllegalCode.OUT_OF_TURN
            if not self.hands[seat] >> arg & 1:
                return IllegalCode.CARD_NOT_IN_HAND
            return None
        if kind == SING:
            return self._check_sing(seat, arg)
        if kind == TUTE:
            return self._check_tute(seat, arg)
        return self._check_exchange(seat)

    def _check_sing(self, seat: int, suit: int) -> IllegalCode | None:
        if self.ruleset.cantes != "declared":
            return IllegalCode.NOT_IN_RULESET
        if not self.on_lead(seat):
            return IllegalCode.NOT_ON_LEAD
        if self.last_winner != seat:
            return IllegalCode.NO_TRICK_WON
        if self.cantes_this_lead >= self.options.cantes_per_trick:
            return IllegalCode.CANTE_ALREADY_DECLARED
        if self.sung >> suit & 1:
            return IllegalCode.SUIT_ALREADY_SUNG
        pair = _CANTE_MASKS[suit]
        if self.hands[seat] & pair != pair:
            return IllegalCode.PAIR_NOT_HELD
        return None

    def _check_tute(self, seat: int, of: int) -> IllegalCode | None:
        if not self.ruleset.tute:
            return IllegalCode.NOT_IN_RULESET
        if not self.on_lead(seat):
            return IllegalCode.NOT_ON_LEAD
        if self.options.tute_requires_trick_won and self.last_winner != seat:
            return IllegalCode.NO_TRICK_WON
        four = _TUTE_MASKS[of]
        if self.hands[seat] & four != four:
            return IllegalCode.TUTE_NOT_HELD
        return None

    def _check_exchange(self, seat: int) -> IllegalCode | None:
        if not self.ruleset.exchange:
            return IllegalCode.NOT_IN_RULESET
        if not self.on_lead(seat):
            return IllegalCode.NOT_ON_LEAD
        if self.stock_pos >= len(self.stock):
            return IllegalCode.NO_STOCK
        if self.options.exchange_requires_trick_won and self.last_winner != seat:
            return IllegalCode.NO_TRICK_WON
        if not self.hands[seat] >> _SEVENS[self.trump] & 1:
            return IllegalCode.SEVEN_NOT_HELD
        return None

    def legal_moves(self, correct: Mask | None = None) -> list[Move]:
        """Every move open to the seat to act: correct plays, then declarations. ``correct`` is
        :meth:`correct_mask` of that seat when the caller has it already."""
        if self.over:
            return []
        seat = self.turn
        if correct is None:
            correct = self.correct_mask(seat)
        moves = [Move(PLAY, seat, c) for c in display_order(correct)]
        if self.trick:
            return moves
        declarations = [Move(SING, seat, s) for s in range(4)]
        declarations += [Move(TUTE, seat, of) for of in (0, 1)]
        declarations.append(Move(EXCHANGE, seat))
        moves += [d for d in declarations if self.check(d) is None]
        return moves

    # --- events --------------------------------------------------------------------------

    def apply(self, move: Move, index: int) -> IllegalCode | None:
        """Apply ``move`` as the ``index``-th event of the deal, or return why it is illegal
        (and change nothing)."""
        if move.kind != PLAY:
            return self._declare(move, index)
        return self.apply_code(move.code, index)

    def apply_code(self, code: MoveCode, index: int) -> IllegalCode | None:
        """:meth:`apply` for a move packed in an int (as a parsed log carries them).

        Plays are the hot path of every replay: the checks of :meth:`check`, the verdict of
        :func:`correct_plays` and :func:`beats` are inlined here.
        """
        if code >> 12 != PLAY:
            return self._declare(Move.from_code(code), index)
        seat = code >> 8 & 15
        card = (code & 255) - 1
        if self.over:
            return IllegalCode.DEAL_OVER
        if seat != self.turn:
            return IllegalCode.OUT_OF_TURN
        hand = self.hands[seat]
        bit = 1 << card
        if not hand & bit:
            return IllegalCode.CARD_NOT_IN_HAND
        trick = self.trick
        if trick:
            win = self.win_card
            suit = card // 10
            takes = card > win if suit == win // 10 else suit == self.trump
            if self.strict:
                led = self.led_suit
                # A card of the suit led that takes the trick, or any card of the suit led once
                # a trump wins a non-trump lead, is always correct: no need for the full set.
                if suit != led or not (takes or win // 10 != led):
                    relieved = self.relief and self.win_seat == partner(seat)
                    correct = correct_plays(hand, led, win, self.trump, relieved, self.must_trump)
                    if not correct & bit:
                        self._renuncio(seat, card, hand, correct, index)
            if takes:
                self.win_card = card
                self.win_seat = seat
        else:
            self.leader = self.win_seat = seat
            self.win_card = card
            self.led_suit = card // 10
        self.hands[seat] = hand ^ bit
        self.trick_mask |= bit
        self.trick_points += POINTS[card]
        trick.append((seat, card))
        if len(trick) == self.players:
            self._finish_trick()
        else:
            self.turn = (seat + 1) % self.players
        self.events_applied += 1
        return None

    def _declare(self, event: Move, index: int) -> IllegalCode | None:
        code = self.check(event)
        if code is not None:
            return code
        kind, seat, arg = event
        if kind == SING:
            self._sing(seat, arg)
        elif kind == TUTE:
            self._tute(seat, index)
        else:
            self._exchange(seat)
        self.events_applied += 1
        return None

    def _renuncio(self, seat: int, card: Card, hand: int, correct: int, index: int) -> None:
        broken = broken_obligation(card, hand, self.led_suit, self.trump)
        self.violations.append(
            Renuncio(
                index, seat, card, broken, correct, self.trick_no, self.led_suit, self.win_card
            )
        )
        if self.decisive is None:
            self.decisive = Decisive("renuncio", seat, index)

    def _finish_trick(self) -> None:
        winner = self.win_seat
        plays = tuple(self.trick)
        trick_no = self.trick_no
        mask = self.trick_mask
        points = self.trick_points
        self.won[winner] |= mask
        self.tricks_won[winner] += 1
        self.card_points[winner] += points
        if self.calls_in_trick:
            self._calls(plays, mask, winner, trick_no)
        draws: tuple[tuple[int, Card], ...] = ()
        if self.stock_pos < len(self.stock):
            draws = self._draw(winner)
        # tuple.__new__ skips NamedTuple's Python-level constructor (once per trick).
        self.tricks.append(_new_tuple(Trick, (self.leader, plays, winner, points, draws)))
        self.trick = []
        self.trick_mask = self.trick_points = 0
        self.trick_no = trick_no + 1
        self.cantes_this_lead = 0
        self.last_winner = self.turn = self.leader = winner
        if trick_no + 1 == self.total_tricks:
            self.over = True
        elif not self.strict:
            self.strict = self.stock_pos >= len(self.stock)

    def _draw(self, winner: int) -> tuple[tuple[int, Card], ...]:
        """After a trick while the stock lasts every seat draws one card, the winner first."""
        draws = []
        for k in range(self.players):
            seat = (winner + k) % self.players
            card = self.stock[self.stock_pos]
            self.stock_pos += 1
            self.hands[seat] |= 1 << card
            draws.append((seat, card))
        return tuple(draws)

    def _calls(
        self, plays: tuple[tuple[int, Card], ...], mask: int, winner: int, trick: int
    ) -> None:
        """Calls in the trick (cabrón, gana-pierde): each king+horse pair it holds."""
        pairs = []
        for suit, pair in enumerate(self.call_masks):
            if mask & pair == pair:
                second = max(i for i, (_, c) in enumerate(plays) if pair >> c & 1)
                pairs.append((second, suit))
        for _, suit in sorted(pairs):
            first = self.calls == 0
            self.calls += 1
            value = LAS_CUARENTA if first else LAS_VEINTE
            if first:
                self.trump = suit  # from the next trick on: this one is already decided
            self.cante_points[winner] += value
            self.cantes.append(Cante(winner, suit, value, trick))

    def _sing(self, seat: int, suit: int) -> None:
        value = cante_points(suit, self.trump)
        self.sung |= 1 << suit
        self.cantes_this_lead += 1
        self.cante_points[seat] += value
        self.cantes.append(Cante(seat, suit, value, self.trick_no - 1))

    def _tute(self, seat: int, index: int) -> None:
        if self.decisive is None:
            self.decisive = Decisive("tute", seat, index)
        self.over = True

    def _exchange(self, seat: int) -> None:
        seven = _SEVENS[self.trump]
        turned = self.stock[-1]
        self.stock[-1] = seven
        self.hands[seat] = self.hands[seat] ^ (1 << seven) | (1 << turned)
        self.exchanges.append(Exchange(seat, seven, turned))

    # --- accounting ----------------------------------------------------------------------

    def totals(self) -> list[int]:
        """Each seat's deal total: card points + cantes or calls + the last-trick 10."""
        totals = [c + k for c, k in zip(self.card_points, self.cante_points, strict=True)]
        last = self.last_trick_winner
        if last is not None:
            totals[last] += LAST_TRICK_BONUS
        return totals

    def last_trick_points(self, seat: int) -> int:
        return LAST_TRICK_BONUS if self.last_trick_winner == seat else 0

    # --- copies and encodings ---------------------------------------------------------------

    def copy(self) -> DealState:
        """An independent copy, for speculative moves. Records already appended (tricks,
        cantes...) are immutable tuples and are shared."""
        other = DealState(self.ruleset, self.options, self.players, _blank(self.players))
        other.trick_mask, other.trick_points = self.trick_mask, self.trick_points
        other.dealer, other.hands = self.dealer, self.hands.copy()
        other.stock, other.stock_pos = self.stock.copy(), self.stock_pos
        other.trump, other.turn, other.leader = self.trump, self.turn, self.leader
        other.trick, other.led_suit = self.trick.copy(), self.led_suit
        other.win_card, other.win_seat = self.win_card, self.win_seat
        other.strict, other.trick_no = self.strict, self.trick_no
        other.tricks_won, other.card_points = self.tricks_won.copy(), self.card_points.copy()
        other.cante_points, other.sung = self.cante_points.copy(), self.sung
        other.cantes_this_lead, other.calls = self.cantes_this_lead, self.calls
        other.last_winner, other.decisive = self.last_winner, self.decisive
        other.over, other.events_applied = self.over, self.events_applied
        other.won, other.tricks = self.won.copy(), self.tricks.copy()
        other.cantes, other.exchanges = self.cantes.copy(), self.exchanges.copy()
        other.violations = self.violations.copy()
        return other

    def to_fields(self, *, history: bool) -> list[Any]:
        """The state as plain values (ints, lists, bytes): :data:`POSITION_FIELDS` in order,
        then with ``history`` :data:`HISTORY_FIELDS`."""
        out: list[Any] = [
            self.dealer,
            list(self.hands),
            bytes(self.stock),
            self.stock_pos,
            self.trump,
            self.turn,
            self.leader,
            _pairs_bytes(self.trick),
            self.led_suit,
            self.win_card,
            self.win_seat,
            self.strict,
            self.trick_no,
            list(self.tricks_won),
            list(self.card_points),
            list(self.cante_points),
            self.sung,
            self.cantes_this_lead,
            self.calls,
            self.last_winner,
            None if self.decisive is None else list(self.decisive),
            self.over,
            self.events_applied,
        ]
        if history:
            out += [
                list(self.won),
                [
                    [t.leader, _pairs_bytes(t.plays), t.winner, t.points, _pairs_bytes(t.draws)]
                    for t in self.tricks
                ],
                [list(c) for c in self.cantes],
                [list(e) for e in self.exchanges],
                [[*v[:3], v.obligation.value, *v[4:]] for v in self.violations],
            ]
        return out

    @classmethod
    def from_fields(
        cls,
        ruleset: Ruleset,
        options: Options,
        players: int,
        fields: list[Any],
        *,
        history: bool,
    ) -> DealState:
        """The state :meth:`to_fields` gave; without ``history`` the records are empty (a
        position judges and continues the deal exactly, but cannot report its past tricks)."""
        expected = len(POSITION_FIELDS) + (len(HISTORY_FIELDS) if history else 0)
        if len(fields) != expected:
            raise ValueError(f"{len(fields)} fields, expected {expected}")
        state = cls(ruleset, options, players, _blank(players))
        (
            state.dealer,
            hands,
            stock,
            state.stock_pos,
            state.trump,
            state.turn,
            state.leader,
            trick,
            state.led_suit,
            state.win_card,
            state.win_seat,
            state.strict,
            state.trick_no,
            tricks_won,
            card_points,
            cante_points,
            state.sung,
            state.cantes_this_lead,
            state.calls,
            state.last_winner,
            decisive,
            state.over,
            state.events_applied,
        ) = fields[: len(POSITION_FIELDS)]
        state.hands = list(hands)
        state.stock = list(stock)
        state.trick = _pairs(trick)
        for _, card in state.trick:
            state.trick_mask |= 1 << card
            state.trick_points += POINTS[card]
        state.tricks_won = list(tricks_won)
        state.card_points = list(card_points)
        state.cante_points = list(cante_points)
        state.decisive = None if decisive is None else Decisive(*decisive)
        if history:
            won, tricks, cantes, exchanges, violations = fields[len(POSITION_FIELDS) :]
            state.won = list(won)
            state.tricks = [
                Trick(t[0], tuple(_pairs(t[1])), t[2], t[3], tuple(_pairs(t[4]))) for t in tricks
            ]
            state.cantes = [Cante(*c) for c in cantes]
            state.exchanges = [Exchange(*e) for e in exchanges]
            state.violations = [
                Renuncio(v[0], v[1], v[2], Obligation(v[3]), v[4], v[5], v[6], v[7])
                for v in violations
            ]
        else:
            state.won = [0] * players
            state.tricks, state.cantes, state.exchanges, state.violations = [], [], [], []
        return state


#: The slots :meth:`DealState.to_fields` gives, in order: what judging the next move and going
#: on with the deal needs (a sealed position carries exactly these).
POSITION_FIELDS: Final = (
    "dealer",
    "hands",
    "stock",
    "stock_pos",
    "trump",
    "turn",
    "leader",
    "trick",
    "led_suit",
    "win_card",
    "win_seat",
    "strict",
    "trick_no",
    "tricks_won",
    "card_points",
    "cante_points",
    "sung",
    "cantes_this_lead",
    "calls",
    "last_winner",
    "decisive",
    "over",
    "events_applied",
)
#: The deal's record, which only reports read: the cards each seat won, the finished tricks,
#: the cantes, the exchanges, the renuncios.
HISTORY_FIELDS: Final = ("won", "tricks", "cantes", "exchanges", "violations")
#: Slots that follow from the ruleset, the options, the players and the other slots.
DERIVED_FIELDS: Final = (
    "ruleset",
    "options",
    "players",
    "must_trump",
    "relief",
    "calls_in_trick",
    "call_masks",
    "total_tricks",
    "trick_mask",
    "trick_points",
)


def _blank(players: int) -> DealSetup:
    """A setup for a state whose every field is about to be set from elsewhere."""
    return DealSetup(0, (0,) * players, (), None)


def _pairs_bytes(pairs: Sequence[tuple[int, Card]]) -> bytes:
    """(seat, card) pairs as bytes: seat, card, seat, card..."""
    return bytes([x for pair in pairs for x in pair])


def _pairs(data: bytes) -> list[tuple[int, Card]]:
    return list(zip(data[0::2], data[1::2], strict=True))


_new_tuple = tuple.__new__
