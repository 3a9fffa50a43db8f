"""The Spanish 40-card pack: suits, ranks, trick order, points and card codes.

A card is a plain ``int`` 0..39 in the hot path: ``suit * 10 + strength`` where *strength*
is the card's place in the trick order of its suit (0 = the two, lowest; 9 = the as,
highest). So within one suit a higher int always beats a lower one, and a hand is an int
bitmask with bit ``card`` set for each card held. Codes (``"1O"``, ``"12C"``; French
``"AD"``, ``"QH"``) are only for input and output.

Vocabulary: *palo* is a suit (oros, copas, espadas, bastos); *as* the ace, *sota* the
jack (10), *caballo* the horse (11), *rey* the king (12).
"""

from __future__ import annotations

from enum import IntEnum
from types import FunctionType
from typing import Final, Literal, final

from arbiter.engine.errors import CardCodeError

Card = int
"""A card: ``suit * 10 + strength`` (see the module docstring)."""

Mask = int
"""A set of cards: bit ``card`` set for each card in it (a hand, a trick, the pack)."""

Notation = Literal["spanish", "french"]
NOTATIONS: Final[tuple[str, ...]] = ("spanish", "french")


class Suit(IntEnum):
    """The four palos of the Spanish pack."""

    OROS = 0
    COPAS = 1
    ESPADAS = 2
    BASTOS = 3


#: Ranks from the lowest to the highest in trick order: 2 4 5 6 7 sota caballo rey 3 as.
RANKS_BY_STRENGTH: Final[tuple[int, ...]] = (2, 4, 5, 6, 7, 10, 11, 12, 3, 1)
#: All ranks in the order a player names them (as, 2, ..., rey).
RANKS: Final[tuple[int, ...]] = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
STRENGTH_OF_RANK: Final[dict[int, int]] = {r: i for i, r in enumerate(RANKS_BY_STRENGTH)}
POINTS_OF_RANK: Final[dict[int, int]] = {1: 11, 3: 10, 12: 4, 11: 3, 10: 2}

KING: Final = 12
HORSE: Final = 11
SEVEN: Final = 7

SPANISH_SUIT_LETTERS: Final = "OCEB"
FRENCH_SUIT_LETTERS: Final = "DHSC"
_FRENCH_SUIT_SYMBOLS: Final = "♦♥♠♣"
_FRENCH_RANK_OF: Final[dict[str, int]] = {
    "A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "J": 10, "Q": 11, "K": 12,
}  # fmt: skip
_FRENCH_RANK_NAME: Final[dict[int, str]] = {r: n for n, r in _FRENCH_RANK_OF.items()}

#: Cards in the Spanish pack: ten ranks in each of four suits.
PACK_SIZE: Final = len(RANKS) * len(Suit)
SUIT_MASK: Final[tuple[int, ...]] = tuple(0x3FF << (10 * s) for s in range(4))
FULL_PACK: Final[int] = (1 << PACK_SIZE) - 1


def make_card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (1..7, 10..12) in ``suit``."""
    return suit * 10 + STRENGTH_OF_RANK[rank]


def card_suit(card: Card) -> int:
    return card // 10


def card_rank(card: Card) -> int:
    return RANKS_BY_STRENGTH[card % 10]


#: Card points of each card, indexed by card.
POINTS: Final[tuple[int, ...]] = tuple(POINTS_OF_RANK.get(card_rank(c), 0) for c in range(40))

#: ``ABOVE[c]``: the cards of c's suit that beat c (same suit, higher in trick order).
ABOVE: Final[tuple[int, ...]] = tuple(SUIT_MASK[c // 10] & ~((1 << (c + 1)) - 1) for c in range(40))


def rank_mask(rank: int) -> int:
    """The four cards of one rank, as a mask."""
    bits = 0
    for suit in Suit:
        bits |= 1 << make_card(rank, suit)
    return bits


def pack_mask(removed_rank: int | None) -> int:
    """The pack in play: the whole 40 cards, or without the four cards of ``removed_rank``."""
    return FULL_PACK if removed_rank is None else FULL_PACK & ~rank_mask(removed_rank)


def mask_points(mask: int) -> int:
    """Card points of every card in ``mask``."""
    total = 0
    while mask:
        low = mask & -mask
        total += POINTS[low.bit_length() - 1]
        mask ^= low
    return total


def cards_of(mask: int) -> list[Card]:
    """The cards of a mask, lowest int first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


#: The 40 cards as a player reads them: by suit (O C E B), then by rank number (as, 2 ... rey).
DISPLAY_ORDER: Final[tuple[Card, ...]] = tuple(
    sorted(range(PACK_SIZE), key=lambda c: (card_suit(c), card_rank(c)))
)
#: Each card's place in :data:`DISPLAY_ORDER`.
_DISPLAY_PLACE: Final[tuple[int, ...]] = tuple(DISPLAY_ORDER.index(c) for c in range(PACK_SIZE))
#: For every set of one suit's cards (its 10 bits of a mask), their strengths in display order.
_SUIT_DISPLAY: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(sorted((i for i in range(10) if bits >> i & 1), key=RANKS_BY_STRENGTH.__getitem__))
    for bits in range(1 << 10)
)


def display_order(cards: list[Card] | int) -> list[Card]:
    """Cards sorted as a player reads them: by suit (O C E B), then by rank number. A mask is
    read suit by suit through :data:`_SUIT_DISPLAY`, without sorting (a position view shows
    every hand: measured 20K instructions a view before, on a sort with a key)."""
    if not isinstance(cards, int):
        return sorted(cards, key=_DISPLAY_PLACE.__getitem__)
    out: list[Card] = []
    for base in (0, 10, 20, 30):
        for strength in _SUIT_DISPLAY[cards >> base & 0x3FF]:
            out.append(base + strength)
    return out


# --- codes ---------------------------------------------------------------------------------


def parse_suit(code: object, notation: Notation = "spanish") -> int:
    """A suit letter (``O C E B``; French ``D H S C`` or a symbol) → suit, case-insensitive."""
    if isinstance(code, str) and len(code) == 1:
        letters = SPANISH_SUIT_LETTERS if notation == "spanish" else FRENCH_SUIT_LETTERS
        index = letters.find(code.upper())
        if index < 0 and notation == "french":
            index = _FRENCH_SUIT_SYMBOLS.find(code)
        if index >= 0:
            return index
    raise CardCodeError(code, notation, what="suit")


def parse_card(code: object, notation: Notation = "spanish") -> Card:
    """A card code → card. Raises :class:`CardCodeError` naming the code."""
    if isinstance(code, str):
        card = _PARSE_CACHE[notation].get(code)
        if card is not None:
            return card
        card = _PARSE_CACHE[notation].get(code.upper())
        if card is not None:
            return card
    raise CardCodeError(code, notation, what="card")


def card_codes(notation: Notation = "spanish") -> tuple[str, ...]:
    """Every card's canonical code, indexed by card (for loops that format many cards)."""
    return _CODES[notation]


def code_table(notation: Notation = "spanish") -> dict[str, Card]:
    """Canonical (upper-case) code → card; :func:`parse_card` also accepts lower case."""
    return _PARSE_CACHE[notation]


@final
class CodeReader:
    """Reads a card code by its characters: the replay's way to read the cards of a log.

    A lookup in :func:`code_table` hashes the code (a string fresh from JSON has no hash yet)
    and compares it with the key: more than half of the cost of reading a play in the compiled
    build. The reader indexes small tables by the ``ord`` of each character instead. It knows
    the ASCII codes of its table and nothing else: for any other string :meth:`card` gives -1,
    and the caller asks the table (lower case, symbols) or reports the code.
    """

    __slots__ = ("tens_lead", "threes", "twos")

    def __init__(self, table: dict[str, Card]) -> None:
        ranks, tens, suits = [-1] * 128, [-1] * 128, [-1] * 128
        lead = -1
        for code, card in table.items():
            if not code.isascii():
                continue
            suits[ord(code[-1])] = card // 10
            prefix = code[:-1]
            if len(prefix) == 1:
                ranks[ord(prefix)] = card % 10
            elif len(prefix) == 2 and lead in (-1, ord(prefix[0])):
                lead = ord(prefix[0])
                tens[ord(prefix[1])] = card % 10
            else:
                raise ValueError(f"no character reader for the code {code!r}")
        # One table per code length, indexed by the last two characters' ords (c1 << 7 | c2):
        # one lookup a code where a table per character took two, and no arithmetic (measured
        # under callgrind: see the commit that made them).
        self.twos: Final = _ord_table(_pair_cards(ranks, suits))
        self.threes: Final = _ord_table(_pair_cards(tens, suits))
        self.tens_lead: Final = lead
        # Every code the reader accepts must be one its table holds, with the same card.
        codes = _ascii_codes(ranks, tens, lead, suits)
        for code in codes:
            if table.get(code) != self.card(code):
                raise ValueError(f"the character reader disagrees with the table on {code!r}")
        both = self.twos + self.threes
        if len(both) - both.count("\0") != len(codes):
            raise ValueError("the character reader accepts a code its table does not hold")

    def card(self, code: str) -> Card:
        """The card of a canonical ASCII code, or -1 (then ask the table)."""
        size = len(code)
        if size == 2:
            r, s = ord(code[0]), ord(code[1])
            if r < 128 and s < 128:
                return ord(self.twos[r << 7 | s]) - 1
        elif size == 3 and ord(code[0]) == self.tens_lead:
            t, s = ord(code[1]), ord(code[2])
            if t < 128 and s < 128:
                return ord(self.threes[t << 7 | s]) - 1
        return -1


def _pair_cards(strengths: list[int], suits: list[int]) -> list[int]:
    """The card of every pair of characters (first << 7 | second), -1 where either is none:
    a strength 1-10 by the first (its index in the pack's order), a suit by the second."""
    cards = [-1] * (128 * 128)
    for first, strength in enumerate(strengths):
        for second, suit in enumerate(suits):
            if strength >= 0 and suit >= 0:
                cards[first << 7 | second] = suit * 10 + strength
    return cards


def _ord_table(values: list[int]) -> str:
    """A table of small ints as a string, each value v at its index as ``chr(v + 1)`` (``chr(0)``
    for -1): the compiled build reads ``ord(table[i])`` straight from the string's buffer."""
    return "".join(chr(v + 1) for v in values)


def _ascii_codes(ranks: list[int], tens: list[int], lead: int, suits: list[int]) -> list[str]:
    """Every code a :class:`CodeReader` with these tables accepts."""
    prefixes = [chr(r) for r in range(128) if ranks[r] >= 0]
    prefixes += [chr(lead) + chr(t) for t in range(128) if tens[t] >= 0]
    return [p + chr(s) for p in prefixes for s in range(128) if suits[s] >= 0]


def _probe() -> None:
    """A function whose type tells the build: compiled by mypyc, it is no Python function."""


#: Whether the engine runs compiled. Only the compiled build reads codes by their characters
#: (:class:`CodeReader`): interpreted, the reader's few operations cost more than one lookup
#: in :func:`code_table`, which the pure build keeps.
READ_BY_CHARACTERS: Final = not isinstance(_probe, FunctionType)


def code_reader(notation: Notation = "spanish") -> CodeReader:
    """The :class:`CodeReader` of ``notation``'s canonical codes."""
    return _READERS[notation]


def format_card(card: Card, notation: Notation = "spanish") -> str:
    """A card → its canonical code in ``notation``."""
    return _CODES[notation][card]


def format_suit(suit: int, notation: Notation = "spanish") -> str:
    return (SPANISH_SUIT_LETTERS if notation == "spanish" else FRENCH_SUIT_LETTERS)[suit]


def _spanish_code(card: Card) -> str:
    return f"{card_rank(card)}{SPANISH_SUIT_LETTERS[card_suit(card)]}"


def _french_code(card: Card) -> str:
    return f"{_FRENCH_RANK_NAME[card_rank(card)]}{FRENCH_SUIT_LETTERS[card_suit(card)]}"


_CODES: Final[dict[str, tuple[str, ...]]] = {
    "spanish": tuple(_spanish_code(c) for c in range(40)),
    "french": tuple(_french_code(c) for c in range(40)),
}


def _french_inputs() -> dict[str, Card]:
    table: dict[str, Card] = {}
    for card in range(40):
        rank_name = _FRENCH_RANK_NAME[card_rank(card)]
        suit = card_suit(card)
        table[rank_name + FRENCH_SUIT_LETTERS[suit]] = card
        table[rank_name + _FRENCH_SUIT_SYMBOLS[suit]] = card
    return table


# Upper-case codes → cards; lookups try the code as given first, since most logs are canonical.
_PARSE_CACHE: Final[dict[str, dict[str, Card]]] = {
    "spanish": {code: c for c, code in enumerate(_CODES["spanish"])},
    "french": _french_inputs(),
}
_READERS: Final[dict[str, CodeReader]] = {n: CodeReader(t) for n, t in _PARSE_CACHE.items()}
