"""The state of one deal and the events that change it.

:class:`DealState` is the referee's table: the hands (int bitmasks), the stock, the trick on the
table, who acts, the tricks taken, the cantes, the renuncios seen. Events come in as
:class:`~arbiter.engine.moves.Move` values through one door, :meth:`DealState.apply`, and are
either applied or refused with an :class:`IllegalCode` (docs/rules.md §8). A play that breaks an
obligation is *applied* and recorded as a :class:`Renuncio`: the card is on the table and the
deal goes on.

The state's fields are declared once, below, each with its part: *derived* (follows from the
ruleset, options and players), *position* (what judging the next move and going on needs: a
sealed token carries exactly these) or *history* (the deal's record, which only reports read).
:meth:`DealState.copy`, :meth:`DealState.to_fields` and :meth:`DealState.from_fields` walk that
one list.

Vocabulary: a *baza* is a trick; the *mano* leads the first one; a *cante* is a king and horse
of one suit declared together ("las veinte", or "las cuarenta" in trumps); a *tute* is all four
kings or all four horses in one hand; the *arrastre* or *triunfo* is trump.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from arbiter.engine.cards import (
    HORSE,
    KING,
    PACK_SIZE,
    POINTS,
    RANKS,
    SEVEN,
    Card,
    Mask,
    display_order,
    make_card,
    rank_mask,
)
from arbiter.engine.moves import PLAY, SING, TUTE, Move, Seat, TuteOf
from arbiter.engine.obligations import (
    NO_TRUMP,
    Obligation,
    beats,
    broken_obligation,
    correct_plays,
)
from arbiter.engine.records import Cante, Decisive, DecisiveKind, Exchange, Renuncio, Trick
from arbiter.engine.rulesets import RULESETS, CanteStyle, Options, Ruleset, partner, zeros
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
    """Why an event cannot be applied (docs/api.md); :data:`CHECK_ORDER` says which is
    reported when several apply."""

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


_I = IllegalCode
#: For each event type, the codes in the order they are checked (docs/api.md quotes it): the
#: first that applies is reported. ``match_over`` and ``deal_over`` come first for every type.
CHECK_ORDER: Final[dict[str, tuple[IllegalCode, ...]]] = {
    "play": (_I.MATCH_OVER, _I.DEAL_OVER, _I.OUT_OF_TURN, _I.CARD_NOT_IN_HAND),
    "sing": (
        _I.MATCH_OVER, _I.DEAL_OVER, _I.NOT_IN_RULESET, _I.NOT_ON_LEAD, _I.NO_TRICK_WON,
        _I.CANTE_ALREADY_DECLARED, _I.SUIT_ALREADY_SUNG, _I.PAIR_NOT_HELD,
    ),
    "tute": (
        _I.MATCH_OVER, _I.DEAL_OVER, _I.NOT_IN_RULESET, _I.NOT_ON_LEAD, _I.NO_TRICK_WON,
        _I.TUTE_NOT_HELD,
    ),
    "exchange": (
        _I.MATCH_OVER, _I.DEAL_OVER, _I.NOT_IN_RULESET, _I.NOT_ON_LEAD, _I.NO_STOCK,
        _I.NO_TRICK_WON, _I.SEVEN_NOT_HELD,
    ),
}  # fmt: skip


_TUTE_MASKS: Final = (rank_mask(KING), rank_mask(HORSE))


def _pair_masks(low: int, high: int) -> tuple[int, ...]:
    """Per suit, the mask of the cards of ranks ``low`` and ``high``."""
    return tuple((1 << make_card(low, s)) | (1 << make_card(high, s)) for s in range(4))


#: The call pairs of every ``call_ranks`` an option can give (its two ranks, sorted).
_CALL_MASKS: Final[dict[tuple[int, int], tuple[int, ...]]] = {
    (low, high): _pair_masks(low, high) for low in RANKS for high in RANKS if low < high
}
_CANTE_MASKS: Final = _pair_masks(HORSE, KING)
_SEVENS: Final = tuple(make_card(SEVEN, s) for s in range(4))
_MAX_SEATS: Final = max(n for r in RULESETS.values() for n in r.players)
#: Every (seat, card) pair, at ``seat * PACK_SIZE + card``: the plays and draws of a trick are
#: these shared tuples, not one made per card. Typed ``Any`` so that the compiled build appends
#: the tuple itself (as ``tuple[int, int]`` it would unpack it to C values and box a new one).
_SEAT_CARD: Final[tuple[Any, ...]] = tuple(
    (seat, card) for seat in range(_MAX_SEATS) for card in range(PACK_SIZE)
)


def cante_cards(ruleset: Ruleset, options: Options, suit: int) -> Mask:
    """The cards a cante of ``suit`` rests on: its king and horse, or in rulesets of calls
    the pair of the call's ranks (``call_ranks``)."""
    if ruleset.cantes == CanteStyle.IN_TRICK:
        return _CALL_MASKS[options.call_ranks][suit]
    return _CANTE_MASKS[suit]


def declaration_cards(move: Move, trump: int) -> Mask:
    """The cards a declaration rests on: a cante its king and horse, a tute the four kings
    or the four horses, the exchange the seven of trumps (0 for a play)."""
    kind = move.kind
    if kind == SING:
        return _CANTE_MASKS[move.suit]
    if kind == TUTE:
        return _TUTE_MASKS[int(move.of)]
    if kind == PLAY or trump == NO_TRUMP:
        return 0
    return 1 << _SEVENS[trump]


def trick_standing(plays: Sequence[tuple[int, Card]], trump: int) -> tuple[int, int, int, Card]:
    """A trick's card points, the suit led, and the seat and card winning it so far
    (0, -1, -1, -1 for no plays)."""
    if not plays:
        return 0, -1, -1, -1
    win_seat, win_card = plays[0]
    points = 0
    for seat, card in plays:
        points += POINTS[card]
        if beats(card, win_card, trump):
            win_seat, win_card = seat, card
    return points, plays[0][1] // 10, win_seat, win_card


def free_play(ruleset: Ruleset, stock_left: int) -> bool:
    """Whether play is free of the obligations: while a ruleset's stock lasts."""
    return ruleset.stock and stock_left > 0


def cante_value(ruleset: Ruleset, suit: int, trump: int, calls_before: int) -> int:
    """What a cante scores: in trumps 40, else 20; a call 40 when it is the deal's first
    (it makes trump), 20 after."""
    if ruleset.cantes == CanteStyle.IN_TRICK:
        return LAS_VEINTE if calls_before else LAS_CUARENTA
    return cante_points(suit, trump)


# --- the field list ---------------------------------------------------------------------------


class Part(StrEnum):
    """Which part of a deal's state a field is (see the module docstring)."""

    POSITION = "position"
    HISTORY = "history"


POSITION, HISTORY = Part.POSITION, Part.HISTORY


@dataclass(frozen=True, slots=True)
class Codec:
    """How a field becomes plain values (ints, lists, bytes) and back, and is copied."""

    encode: Callable[[Any], Any]
    decode: Callable[[Any], Any]
    copy: Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


def _as_list(value: Any) -> list[Any]:
    return list(value)


def _pairs_bytes(pairs: Sequence[tuple[int, Card]]) -> bytes:
    """(seat, card) pairs as bytes: seat, card, seat, card..."""
    return bytes([x for pair in pairs for x in pair])


def _pairs(data: bytes) -> list[tuple[int, Card]]:
    return list(zip(data[0::2], data[1::2], strict=True))


def _decisive_out(value: Decisive | None) -> list[Any] | None:
    return None if value is None else [value.kind.value, value.seat, value.event]


def _decisive_in(value: list[Any] | None) -> Decisive | None:
    return None if value is None else Decisive(DecisiveKind(value[0]), value[1], value[2])


def _tricks_out(tricks: list[Trick]) -> list[Any]:
    return [[t.leader, _pairs_bytes(t.plays), t.winner, t.points, _pairs_bytes(t.draws)]
            for t in tricks]  # fmt: skip


def _tricks_in(raw: list[Any]) -> list[Trick]:
    return [Trick(t[0], tuple(_pairs(t[1])), t[2], t[3], tuple(_pairs(t[4]))) for t in raw]


def _renuncios_out(renuncios: list[Renuncio]) -> list[Any]:
    return [
        [v.event, v.seat, v.card, v.obligation.value, v.correct, v.trick, v.led_suit, v.winning]
        for v in renuncios
    ]


def _renuncios_in(raw: list[Any]) -> list[Renuncio]:
    return [Renuncio(v[0], v[1], v[2], Obligation(v[3]), v[4], v[5], v[6], v[7]) for v in raw]


def _cantes_in(raw: list[Any]) -> list[Cante]:
    return [Cante(*c) for c in raw]


def _exchanges_in(raw: list[Any]) -> list[Exchange]:
    return [Exchange(*e) for e in raw]


def _records_out(records: list[Any]) -> list[Any]:
    return [list(r.astuple()) for r in records]


#: Codecs by kind of field.
VALUE: Final = Codec(_same, _same, _same)
INTS: Final = Codec(_as_list, _as_list, _as_list)
CARDS: Final = Codec(bytes, _as_list, _as_list)
PAIRS: Final = Codec(_pairs_bytes, _pairs, _as_list)
DECISIVE: Final = Codec(_decisive_out, _decisive_in, _same)
TRICKS: Final = Codec(_tricks_out, _tricks_in, _as_list)
CANTES: Final = Codec(_records_out, _cantes_in, _as_list)
EXCHANGES: Final = Codec(_records_out, _exchanges_in, _as_list)
RENUNCIOS: Final = Codec(_renuncios_out, _renuncios_in, _as_list)


class DealState:
    """One deal in progress (or finished). Mutable: :meth:`copy` before speculative moves.

    Make one with :meth:`start` (from a deal's setup) or :meth:`from_fields`. Its fields are
    declared here, once, with their defaults (a deal not begun); :data:`FIELDS` gives each
    one's part and codec in the order tokens and snapshots write them (a test holds the two
    to the same names).
    """

    # --- derived: fixed by the ruleset, the options and the players ---
    ruleset: Ruleset
    options: Options
    players: int
    must_trump: bool
    relief: bool
    calls_in_trick: bool
    call_masks: tuple[int, ...]
    total_tricks: int
    #: whether each finished trick is kept as a :class:`Trick` in ``tricks`` (a replay for its
    #: scores only keeps none: its body has no tricks, and each costs a record, a tuple of
    #: plays and one of draws; a position of such a deal has tricks of unknown cards)
    keeps_tricks: bool
    # --- position ---
    dealer: int = 0
    #: each seat's hand, a mask
    hands: list[int]
    #: the stock in draw order (the turned card last); stock_pos cards of it are drawn
    stock: list[Card]
    stock_pos: int = 0
    #: the card that shows trump: turned under the stock, or the dealer's shown card; -1: none
    turned: Card = -1
    #: the trump suit, or NO_TRUMP before the first call
    trump: int
    #: the seat to act, and the one who led the trick on the table
    turn: int = 0
    leader: int = 0
    #: the trick on the table: (seat, card) in order
    trick: list[tuple[int, Card]]
    #: the card points of the trick on the table
    trick_points: int = 0
    led_suit: int = -1
    #: the card winning the trick on the table, and its seat
    win_card: int = -1
    win_seat: int = -1
    #: whether the obligations apply (tute-2p: only once the stock is exhausted)
    strict: bool = True
    #: tricks completed so far
    trick_no: int = 0
    tricks_won: list[int]
    card_points: list[int]
    cante_points: list[int]
    #: the suits sung so far, a mask of bits 1 << suit
    sung: int = 0
    cantes_this_lead: int = 0
    calls: int = 0
    last_winner: int = -1
    decisive: Decisive | None = None
    over: bool = False
    events_applied: int = 0
    # --- history ---
    tricks: list[Trick]
    cantes: list[Cante]
    exchanges: list[Exchange]
    violations: list[Renuncio]

    def __init__(self, ruleset: Ruleset, options: Options, players: int) -> None:
        self.ruleset = ruleset
        self.options = options
        self.players = players
        self.must_trump = options.trump_when_cannot_overtrump
        self.relief = ruleset.pairs and options.partner_relief
        self.calls_in_trick = ruleset.cantes is CanteStyle.IN_TRICK
        self.call_masks = _CALL_MASKS[options.call_ranks]
        self.total_tricks = ruleset.tricks(players)
        self.keeps_tricks = True
        self.trump = NO_TRUMP
        self.hands = zeros(players)
        self.stock = []
        self.trick = []
        self.tricks_won = zeros(players)
        self.card_points = zeros(players)
        self.cante_points = zeros(players)
        self.tricks = []
        self.cantes = []
        self.exchanges = []
        self.violations = []

    @staticmethod
    def start(
        ruleset: Ruleset, options: Options, players: int, setup: DealSetup, tricks: bool = True
    ) -> DealState:
        """The deal as dealt; without ``tricks`` it keeps no :class:`Trick` records."""
        state = DealState(ruleset, options, players)
        state.keeps_tricks = tricks
        state.dealer = setup.dealer
        state.hands = list(setup.hands)
        state.stock = list(setup.stock)
        state.turned = -1 if setup.trump_card is None else setup.trump_card
        state.trump = setup.trump
        state.turn = state.leader = mano(setup.dealer, players)
        state.strict = not ruleset.stock
        return state

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

    def judge_play(self, seat: Seat, card: Card) -> tuple[Renuncio | None, Mask]:
        """The renuncio that playing ``card`` now would be (as the next event), or None; and
        the mask of the seat's correct plays."""
        correct = self.correct_mask(seat)
        if correct >> card & 1:
            return None, correct
        return self._renuncio_record(seat, card, correct, self.events_applied), correct

    def check(self, move: Move) -> IllegalCode | None:
        """Why ``move`` cannot be applied now, or None (in :data:`CHECK_ORDER`, but for
        ``match_over``, which the match knows). Does not change the state."""
        if self.over:
            return IllegalCode.DEAL_OVER
        kind = move.kind
        if kind == PLAY:
            return self._check_play(move.seat, move.card)
        if kind == SING:
            return self._check_sing(move.seat, move.suit)
        if kind == TUTE:
            return self._check_tute(move.seat, int(move.of))
        return self._check_exchange(move.seat)

    def _check_play(self, seat: int, card: Card) -> IllegalCode | None:
        if seat != self.turn:
            return IllegalCode.OUT_OF_TURN
        if not self.hands[seat] >> card & 1:
            return IllegalCode.CARD_NOT_IN_HAND
        return None

    def _check_sing(self, seat: int, suit: int) -> IllegalCode | None:
        if self.ruleset.cantes != CanteStyle.DECLARED:
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

    def open_cantes(self) -> list[tuple[int, int]]:
        """(seat, suit) of every king and horse held together in a suit not sung yet: the
        cantes a seat could declare once it wins a trick (declared-cante rulesets only)."""
        if self.ruleset.cantes != CanteStyle.DECLARED:
            return []
        return [
            (seat, suit)
            for seat, hand in enumerate(self.hands)
            for suit, pair in enumerate(_CANTE_MASKS)
            if hand & pair == pair and not self.sung >> suit & 1
        ]

    def declarations(self) -> list[Move]:
        """The declarations open to the seat to act now (only on lead)."""
        if self.over or self.trick:
            return []
        seat = self.turn
        candidates = [Move.sing(seat, s) for s in range(4)]
        candidates += [Move.tute(seat, of) for of in TuteOf]
        candidates.append(Move.exchange(seat))
        return [d for d in candidates if self.check(d) is None]

    def legal_moves(self, correct: Mask | None = None) -> list[Move]:
        """Every move open to the seat to act: correct plays, then declarations. ``correct`` is
        :meth:`correct_mask` of that seat when the caller has it already."""
        if self.over:
            return []
        seat = self.turn
        if correct is None:
            correct = self.correct_mask(seat)
        return [Move.play(seat, c) for c in display_order(correct)] + self.declarations()

    # --- events: one door ------------------------------------------------------------------

    def apply(self, move: Move, index: int) -> IllegalCode | None:
        """Apply ``move`` as the ``index``-th event of the deal, or return why it is illegal
        (and change nothing)."""
        if move.kind == PLAY:
            return self.play(move.seat, move.card, index)
        code = self.check(move)
        if code is not None:
            return code
        kind, seat = move.kind, move.seat
        if kind == SING:
            self._sing(seat, move.suit)
        elif kind == TUTE:
            self._tute(seat, index)
        else:
            self._exchange(seat)
        self.events_applied += 1
        return None

    def play(self, seat: Seat, card: Card, index: int) -> IllegalCode | None:
        """:meth:`apply` of a play: the replay's hot path, which the one-pass reader calls
        with the seat and card it has just read."""
        # The checks of _check_play and the correct set of correct_mask, written out: a call
        # per play costs the pure build about 5 us a tute-4p deal (6 %). test_obligations and
        # the property tests hold both to the same answers.
        if self.over:
            return IllegalCode.DEAL_OVER
        if seat != self.turn:
            return IllegalCode.OUT_OF_TURN
        hand = self.hands[seat]
        bit = 1 << card
        if not hand & bit:
            return IllegalCode.CARD_NOT_IN_HAND
        trick = self.trick
        suit = card // 10
        if trick:
            win = self.win_card
            win_suit = win // 10  # once: the compiled build divides tagged ints by a call
            takes = card > win if suit == win_suit else suit == self.trump
            # A card of the suit led that takes the trick, or any card of the suit led once a
            # trump wins a non-trump lead, is always correct: most follows skip the correct
            # set (measured: about 0.1 us a play, a tenth of a tute-4p deal's replay).
            if self.strict and (suit != self.led_suit or not (takes or win_suit != suit)):
                relieved = self.relief and self.win_seat == partner(seat)
                correct = correct_plays(
                    hand, self.led_suit, win, self.trump, relieved, self.must_trump
                )
                if not correct & bit:
                    self._record_renuncio(seat, card, correct, index)
            if takes:
                self.win_card = card
                self.win_seat = seat
        else:
            self.leader = self.win_seat = seat
            self.win_card = card
            self.led_suit = suit
        self.hands[seat] = hand ^ bit
        self.trick_points += POINTS[card]
        trick.append(_SEAT_CARD[seat * PACK_SIZE + card])
        players = self.players
        if len(trick) == players:
            self._finish_trick()
        else:
            # the next seat round the table, without a remainder (a call, compiled)
            self.turn = seat + 1 if seat + 1 < players else 0
        self.events_applied += 1
        return None

    def _renuncio_record(self, seat: int, card: Card, correct: Mask, index: int) -> Renuncio:
        broken = broken_obligation(card, self.hands[seat], self.led_suit, self.trump)
        return Renuncio(
            index, seat, card, broken, correct, self.trick_no, self.led_suit, self.win_card
        )

    def _record_renuncio(self, seat: int, card: Card, correct: Mask, index: int) -> None:
        self.violations.append(self._renuncio_record(seat, card, correct, index))
        if self.decisive is None:
            self.decisive = Decisive(DecisiveKind.RENUNCIO, seat, index)

    def _finish_trick(self) -> None:
        winner = self.win_seat
        trick_no = self.trick_no
        points = self.trick_points
        # Item by item, not `x[i] += y`: the compiled build does augmented item assignments
        # through the generic number protocol.
        tricks_won, card_points = self.tricks_won, self.card_points
        tricks_won[winner] = tricks_won[winner] + 1
        card_points[winner] = card_points[winner] + points
        if self.calls_in_trick:
            self._calls(tuple(self.trick), winner, trick_no)
        keeps = self.keeps_tricks
        draws: tuple[tuple[int, Card], ...] = ()
        if self.stock_pos < len(self.stock):
            draws = self._draw(winner, keeps)
        if keeps:
            self.tricks.append(Trick(self.leader, tuple(self.trick), winner, points, draws))
        self.trick.clear()  # its plays are recorded; the list is kept for the next trick
        self.trick_points = 0
        self.trick_no = trick_no + 1
        self.cantes_this_lead = 0
        self.last_winner = self.turn = self.leader = winner
        if trick_no + 1 == self.total_tricks:
            self.over = True
        elif not self.strict:
            self.strict = self.stock_pos >= len(self.stock)

    def _draw(self, winner: int, keeps: bool) -> tuple[tuple[int, Card], ...]:
        """After a trick while the stock lasts every seat draws one card, the winner first;
        the draws, for the trick's record when ``keeps`` (else none)."""
        # Locals, and the hand set item by item: the compiled build does `x[i] |= y` and
        # `self.f += 1` through the generic number protocol (measured: 0.9K instructions a
        # draw, half of it there).
        players, stock, hands = self.players, self.stock, self.hands
        first = self.stock_pos
        draws = []
        seat = winner
        for k in range(players):
            card = stock[first + k]
            hands[seat] = hands[seat] | 1 << card
            if keeps:
                draws.append(_SEAT_CARD[seat * PACK_SIZE + card])
            seat = seat + 1 if seat + 1 < players else 0  # the next seat round the table
        self.stock_pos = first + players
        return tuple(draws) if keeps else ()

    def _calls(self, plays: tuple[tuple[int, Card], ...], winner: int, trick: int) -> None:
        """Calls in the trick (cabrón, gana-pierde): each king+horse pair it holds."""
        mask = 0
        for _, card in plays:
            mask |= 1 << card
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
            self.decisive = Decisive(DecisiveKind.TUTE, seat, index)
        self.over = True

    def _exchange(self, seat: int) -> None:
        seven = _SEVENS[self.trump]
        turned = self.stock[-1]
        self.stock[-1] = seven
        self.turned = seven
        self.hands[seat] = self.hands[seat] ^ (1 << seven) | (1 << turned)
        # after the trick it follows, as a sing's cante (-1: on the mano's first lead)
        self.exchanges.append(Exchange(seat, seven, turned, self.trick_no - 1))

    # --- accounting ----------------------------------------------------------------------

    def totals(self) -> list[int]:
        """Each seat's deal total: card points + cantes or calls + the last-trick 10."""
        cards, cantes = self.card_points, self.cante_points
        totals = [cards[s] + cantes[s] for s in range(self.players)]
        if self.trick_no == self.total_tricks:
            last = self.last_winner
            totals[last] = totals[last] + LAST_TRICK_BONUS
        return totals

    def last_trick_points(self, seat: int) -> int:
        return LAST_TRICK_BONUS if self.last_trick_winner == seat else 0

    # --- copies and encodings: one walk over the field list -------------------------------

    def copy(self) -> DealState:
        """An independent copy, for speculative moves. Records already appended (tricks,
        cantes...) are immutable and shared."""
        other = DealState(self.ruleset, self.options, self.players)
        other.keeps_tricks = self.keeps_tricks
        for name, codec in _COPIED:
            setattr(other, name, codec.copy(getattr(self, name)))
        return other

    def to_fields(self, *, history: bool) -> list[Any]:
        """The state as plain values (ints, lists, bytes): :data:`POSITION_FIELDS` in order,
        then with ``history`` :data:`HISTORY_FIELDS`."""
        chosen = _ENCODED_WITH_HISTORY if history else _ENCODED
        return [codec.encode(getattr(self, name)) for name, codec in chosen]

    @staticmethod
    def from_fields(
        ruleset: Ruleset,
        options: Options,
        players: int,
        values: list[Any],
        *,
        history: bool,
    ) -> DealState:
        """The state :meth:`to_fields` gave; without ``history`` the records are empty (a
        position judges and continues the deal exactly, but cannot report its past tricks)."""
        chosen = _ENCODED_WITH_HISTORY if history else _ENCODED
        if len(values) != len(chosen):
            raise ValueError(f"{len(values)} fields, expected {len(chosen)}")
        state = DealState(ruleset, options, players)
        for (name, codec), value in zip(chosen, values, strict=True):
            setattr(state, name, codec.decode(value))
        return state


#: Every field but the derived ones, with its part and codec, in the order tokens and snapshots
#: write them: first the position (what judging the next move and going on with the deal needs:
#: a sealed token carries exactly these), then the history (the deal's record, which only
#: reports read).
FIELDS: Final[tuple[tuple[str, Part, Codec], ...]] = (
    ("dealer", POSITION, VALUE),
    ("hands", POSITION, INTS),
    ("stock", POSITION, CARDS),
    ("stock_pos", POSITION, VALUE),
    ("turned", POSITION, VALUE),
    ("trump", POSITION, VALUE),
    ("turn", POSITION, VALUE),
    ("leader", POSITION, VALUE),
    ("trick", POSITION, PAIRS),
    ("trick_points", POSITION, VALUE),
    ("led_suit", POSITION, VALUE),
    ("win_card", POSITION, VALUE),
    ("win_seat", POSITION, VALUE),
    ("strict", POSITION, VALUE),
    ("trick_no", POSITION, VALUE),
    ("tricks_won", POSITION, INTS),
    ("card_points", POSITION, INTS),
    ("cante_points", POSITION, INTS),
    ("sung", POSITION, VALUE),
    ("cantes_this_lead", POSITION, VALUE),
    ("calls", POSITION, VALUE),
    ("last_winner", POSITION, VALUE),
    ("decisive", POSITION, DECISIVE),
    ("over", POSITION, VALUE),
    ("events_applied", POSITION, VALUE),
    ("tricks", HISTORY, TRICKS),
    ("cantes", HISTORY, CANTES),
    ("exchanges", HISTORY, EXCHANGES),
    ("violations", HISTORY, RENUNCIOS),
)
POSITION_FIELDS: Final = tuple(name for name, part, _ in FIELDS if part == POSITION)
HISTORY_FIELDS: Final = tuple(name for name, part, _ in FIELDS if part == HISTORY)
_ENCODED: Final = tuple((name, codec) for name, part, codec in FIELDS if part == POSITION)
_ENCODED_WITH_HISTORY: Final = tuple((name, codec) for name, _, codec in FIELDS)
_COPIED: Final = _ENCODED_WITH_HISTORY
