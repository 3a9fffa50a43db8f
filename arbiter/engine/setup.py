"""Deal setup: the cards each seat holds at the start, the stock and the trump card.

A log gives a deal either as ``hands`` (+ ``stock`` for tute-2p, + ``trump_card`` for
tute-3p/tute-4p) or as the whole ``deck`` in dealing order (docs/api.md). Both are checked against
the ruleset's pack for the number of players: every card exactly once, hands of the right size,
the trump card in the dealer's hand. Errors name the seat and the card. :func:`build_setup`
reads a deal; :func:`deal_json` writes one, in either form.

The *mano* is the seat after the dealer; it leads the first trick.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, cast, final

from arbiter.engine.cards import (
    READ_BY_CHARACTERS,
    Card,
    Mask,
    Notation,
    card_codes,
    card_suit,
    code_reader,
    code_table,
    format_card,
    pack_mask,
    parse_card,
)
from arbiter.engine.errors import CardCodeError, SetupError, is_array
from arbiter.engine.obligations import NO_TRUMP
from arbiter.engine.records import Record
from arbiter.engine.rulesets import MAX_PLAYERS, Ruleset, TrumpSource


@final
class DealSetup(Record):
    """The cards as dealt. ``hands`` are bitmasks by seat; ``stock`` is in draw order;
    ``trump_card`` is the turned card (tute-2p: last of the stock) or the dealer's shown card,
    None without. A record (see :class:`~arbiter.engine.log.Header`).
    """

    __slots__ = ("dealer", "hands", "stock", "trump_card")

    def __init__(
        self, dealer: int, hands: tuple[int, ...], stock: tuple[Card, ...], trump_card: Card | None
    ) -> None:
        self.dealer = dealer
        self.hands = hands
        self.stock = stock
        self.trump_card = trump_card

    @property
    def trump(self) -> int:
        """The trump suit the deal starts with (:data:`NO_TRUMP` until a call makes one)."""
        return NO_TRUMP if self.trump_card is None else card_suit(self.trump_card)

    def astuple(self) -> tuple[int, tuple[int, ...], tuple[Card, ...], Card | None]:
        return (self.dealer, self.hands, self.stock, self.trump_card)


def mano(dealer: int, players: int) -> int:
    """The *mano*: the seat after the dealer, who leads the first trick."""
    return (dealer + 1) % players


def next_dealer(dealer: int, players: int) -> int:
    """Who deals the next deal when a log does not say: the deal rotates to this deal's mano."""
    return mano(dealer, players)


def deal_json(
    ruleset: Ruleset,
    dealer: int,
    hands: Sequence[Sequence[Card]],
    stock: Sequence[Card] = (),
    *,
    as_deck: bool = False,
    notation: Notation = "spanish",
) -> dict[str, Any]:
    """A deal in the log's form (docs/api.md), which :func:`build_setup` reads back: each
    seat's cards in the order they were dealt, and the stock (tute-2p) in draw order, its last
    card the one turned. As the ``deck``: one card to each seat in turn from the mano, round the
    table, then the stock. Else ``hands`` (+ ``stock``, + ``trump_card`` where the dealer's
    card fixes trump: the dealer's last card, as a deck would deal it)."""
    codes = card_codes(notation)
    out: dict[str, Any] = {"dealer": dealer}
    if as_deck:
        players, first = len(hands), mano(dealer, len(hands))
        dealt = [hands[(first + i) % players][i // players] for i in range(len(hands[0]) * players)]
        out["deck"] = [codes[c] for c in (*dealt, *stock)]
        return out
    out["hands"] = [[codes[c] for c in hand] for hand in hands]
    if ruleset.stock:
        out["stock"] = [codes[c] for c in stock]
    if ruleset.trump_from == TrumpSource.DEALER:
        out["trump_card"] = codes[hands[dealer][-1]]
    return out


class _PackCounter:
    """Checks cards against a pack: known code, in the pack, not seen before.

    The fast path only reads canonical codes (:class:`~arbiter.engine.cards.CodeReader`); when
    anything else comes up, :meth:`_explain` walks every list
    taken so far again, card by card, to raise the error that names the first bad card.
    """

    def __init__(self, ruleset: Ruleset, players: int, notation: Notation) -> None:
        self.pack = pack_mask(ruleset.removed_rank[players])
        self.seen = 0
        self.ruleset = ruleset
        self.players = players
        self.notation = notation
        self.reader = code_reader(notation)
        self.table = code_table(notation)
        self.taken: list[tuple[object, tuple[str | int, ...]]] = []

    def take_list(self, codes: object, path: tuple[str | int, ...]) -> list[Card]:
        self.taken.append((codes, path))
        if type(codes) is list:
            pack, seen = self.pack, self.seen
            cards = []
            # Canonical codes only: anything else takes the slow path, which knows them all.
            # Two loops, one per build, each the cheapest there (cards.READ_BY_CHARACTERS).
            if READ_BY_CHARACTERS:
                reader = self.reader
                unseen = pack & ~seen  # as in take_hand
                for code in codes:
                    card = reader.card(code) if type(code) is str else -1
                    if card < 0:
                        break
                    bit = 1 << card
                    if not unseen & bit:
                        break
                    unseen ^= bit
                    cards.append(card)
                else:
                    self.seen = pack ^ unseen
                    return cards
            else:
                table = self.table
                for code in codes:
                    found = table.get(code) if type(code) is str else None
                    if found is None or not pack >> found & 1 or seen >> found & 1:
                        break
                    seen |= 1 << found
                    cards.append(found)
                else:
                    self.seen = seen
                    return cards
        return self._explain()

    def take_hand(self, codes: object, path: tuple[str | int, ...]) -> Mask:
        """:meth:`take_list` of a hand, as its mask: the compiled fast path makes no list of
        cards (measured under callgrind: see the commit that added it)."""
        if READ_BY_CHARACTERS and type(codes) is list:
            reader = self.reader
            # the cards of the pack not seen yet: one test and one change a card, where the
            # pack and the cards seen took two of each (seen is a part of the pack)
            unseen = self.pack & ~self.seen
            hand = 0
            for code in codes:
                card = reader.card(code) if type(code) is str else -1
                if card < 0:
                    break
                bit = 1 << card
                if not unseen & bit:
                    break
                unseen ^= bit
                hand |= bit
            else:
                self.taken.append((codes, path))
                self.seen = self.pack ^ unseen
                return hand
        hand = 0
        for card in self.take_list(codes, path):
            hand |= 1 << card
        return hand

    def _explain(self) -> list[Card]:
        """The slow path: every list again with exact errors (or lower-case codes accepted)."""
        self.seen = 0
        where: dict[Card, tuple[str | int, ...]] = {}
        cards: list[Card] = []
        for codes, path in self.taken:
            if not isinstance(codes, list):
                raise SetupError("must be a list of card codes", path)
            cards = [self._take(code, (*path, i), where) for i, code in enumerate(codes)]
        return cards

    def _take(self, code: object, path: tuple[str | int, ...], where: dict[Card, Any]) -> Card:
        try:
            card = parse_card(code, self.notation)
        except CardCodeError as err:
            raise SetupError(err.message, path) from None
        bit = 1 << card
        if not self.pack & bit:
            raise SetupError(
                f"{format_card(card, self.notation)} is not in the pack of {self.ruleset.name} "
                f"with {self.players} players",
                path,
            )
        if self.seen & bit:
            first = "/".join(str(p) for p in where[card])
            raise SetupError(
                f"{format_card(card, self.notation)} appears twice (also at {first})", path
            )
        self.seen |= bit
        where[card] = path
        return card

    def missing(self) -> list[str]:
        rest = self.pack & ~self.seen
        return [format_card(c, self.notation) for c in range(40) if rest >> c & 1]


def build_setup(
    ruleset: Ruleset, players: int, dealer: int, deal: Mapping[str, object], notation: Notation
) -> DealSetup:
    """Check one deal's cards and return its setup. Paths are relative to the deal."""
    if type(deal) is not dict:  # read as a dict: the compiled build's dict operations
        deal = dict(deal)
    return _build_setup(ruleset, players, dealer, cast(dict[str, object], deal), notation)


def _build_setup(
    ruleset: Ruleset, players: int, dealer: int, deal: dict[str, object], notation: Notation
) -> DealSetup:
    has_hands, has_deck = "hands" in deal, "deck" in deal
    if has_hands == has_deck:
        raise SetupError("give the cards either as hands or as deck (exactly one)", ())
    counter = _PackCounter(ruleset, players, notation)
    if has_deck:
        for extra in ("stock", "trump_card"):
            if extra in deal:
                raise SetupError("not allowed together with deck", (extra,))
        deck = counter.take_list(deal["deck"], ("deck",))
        return _from_deck(ruleset, players, dealer, deck, counter)
    return _from_hands(ruleset, players, dealer, deal, counter)


def _from_deck(
    ruleset: Ruleset, players: int, dealer: int, deck: list[Card], counter: _PackCounter
) -> DealSetup:
    if counter.seen != counter.pack:
        raise SetupError(
            f"the deck must hold the whole pack; missing {', '.join(counter.missing())}",
            ("deck",),
        )
    size = ruleset.hand_size[players]
    first = mano(dealer, players)
    hands = [0] * players
    for i, card in enumerate(deck[: size * players]):
        hands[(first + i) % players] |= 1 << card
    stock = tuple(deck[size * players :]) if ruleset.stock else ()
    trump_card = deck[-1] if ruleset.trump_from != "call" else None
    return DealSetup(dealer, tuple(hands), stock, trump_card)


#: Each seat's hand's path, made once (``players`` is a count a ruleset allows).
_HAND_PATHS: Final = tuple(("hands", seat) for seat in range(MAX_PLAYERS))


def _from_hands(
    ruleset: Ruleset,
    players: int,
    dealer: int,
    deal: dict[str, object],
    counter: _PackCounter,
) -> DealSetup:
    raw_hands = deal["hands"]
    if not is_array(raw_hands):
        raise SetupError("must be a list with one hand per seat", ("hands",))
    # a list's items by list operations (the compiled build), any other sequence's as a list
    listed: list[object] = raw_hands if type(raw_hands) is list else list(raw_hands)
    if len(listed) != players:
        raise SetupError(f"must hold {players} hands, one per seat", ("hands",))
    size = ruleset.hand_size[players]
    hands = []
    for seat, raw in enumerate(listed):
        mask = counter.take_hand(raw, _HAND_PATHS[seat])
        held = len(cast(list[object], raw))  # a list of as many cards, or take_hand raised
        if held != size:
            raise SetupError(
                f"seat {seat} holds {held} cards; {ruleset.name} deals {size}", ("hands", seat)
            )
        hands.append(mask)

    stock: tuple[Card, ...] = ()
    trump_card: Card | None = None
    if ruleset.stock:
        if "stock" not in deal:
            raise SetupError(f"{ruleset.name} needs the stock with hands", ("stock",))
        stock = tuple(counter.take_list(deal["stock"], ("stock",)))
        trump_card = stock[-1] if stock else None
    elif "stock" in deal:
        raise SetupError(f"{ruleset.name} has no stock", ("stock",))
    if ruleset.trump_from is TrumpSource.DEALER:
        if "trump_card" not in deal:
            raise SetupError(f"{ruleset.name} needs trump_card with hands", ("trump_card",))
        try:
            trump_card = parse_card(deal["trump_card"], notation=counter.notation)
        except CardCodeError as err:
            raise SetupError(err.message, ("trump_card",)) from None
        if not hands[dealer] >> trump_card & 1:
            raise SetupError(
                f"{format_card(trump_card, counter.notation)} is not in the dealer's hand "
                f"(seat {dealer})",
                ("trump_card",),
            )
    elif "trump_card" in deal:
        raise SetupError(f"{ruleset.name} has no trump card", ("trump_card",))

    if counter.seen != counter.pack:
        where = "stock" if ruleset.stock else "hands"
        raise SetupError(f"cards missing from the deal: {', '.join(counter.missing())}", (where,))
    return DealSetup(dealer, tuple(hands), stock, trump_card)
