"""Card codes as the vectors write them (docs/rules.md §1), and logs turned into French notation.

The kit builds its logs in Spanish codes (``12C``: rank number, suit letter); ``french-notation``
vectors are those logs rewritten with French codes (``KH``), whose answers the referee then
gives afresh. The pack of a table is read from :mod:`arbiter.simulate`, never listed here.
"""

from __future__ import annotations

import copy
import random
from functools import cache
from typing import Any, Final

from arbiter.simulate import random_deal_cards

#: The Spanish suit letters in the order the referee lists cards (oros, copas, espadas, bastos).
SUITS: Final = "OCEB"
#: docs/rules.md §1, French cards: J = sota, Q = caballo, K = rey; D H S C for O C E B.
FRENCH_RANKS: Final = {1: "A", 10: "J", 11: "Q", 12: "K"}
FRENCH_SUITS: Final = {"O": "D", "C": "H", "E": "S", "B": "C"}
FRENCH_SYMBOLS: Final = {"D": "\u2666", "H": "\u2665", "S": "\u2660", "C": "\u2663"}
KING, HORSE, SEVEN = 12, 11, 7


def suit_of(code: str) -> str:
    return code[-1].upper()


def rank_of(code: str) -> int:
    return int(code[:-1])


def card(rank: int, suit: str) -> str:
    return f"{rank}{suit}"


@cache
def pack(ruleset: str, players: int) -> tuple[str, ...]:
    """Every card code of the table's pack, by suit then rank."""
    deck = random_deal_cards(ruleset, players, players - 1, random.Random(0), as_deck=True)
    codes: list[str] = deck["deck"]
    return tuple(sorted(codes, key=lambda c: (SUITS.index(suit_of(c)), rank_of(c))))


def french(code: str, symbols: bool = False) -> str:
    """A Spanish card code in French notation (with the suit's symbol if ``symbols``)."""
    rank = rank_of(code)
    suit = FRENCH_SUITS[suit_of(code)]
    return FRENCH_RANKS.get(rank, str(rank)) + (FRENCH_SYMBOLS[suit] if symbols else suit)


def french_suit(letter: str) -> str:
    return FRENCH_SUITS[letter.upper()]


def _event(event: dict[str, Any], symbols: bool) -> dict[str, Any]:
    out = dict(event)
    if isinstance(out.get("card"), str):
        out["card"] = french(out["card"], symbols)
    if isinstance(out.get("suit"), str):
        suit = french_suit(out["suit"])
        out["suit"] = FRENCH_SYMBOLS[suit] if symbols else suit
    return out


def french_log(log: dict[str, Any], symbols: bool = False) -> dict[str, Any]:
    """The same game written in French notation."""
    out = copy.deepcopy(log)
    out["notation"] = "french"
    for deal in out["deals"]:
        for key in ("deck", "stock"):
            if key in deal:
                deal[key] = [french(c, symbols) for c in deal[key]]
        if "hands" in deal:
            deal["hands"] = [[french(c, symbols) for c in hand] for hand in deal["hands"]]
        if "trump_card" in deal:
            deal["trump_card"] = french(deal["trump_card"], symbols)
        deal["events"] = [_event(e, symbols) for e in deal.get("events", [])]
    return out


def french_move(move: dict[str, Any], symbols: bool = False) -> dict[str, Any]:
    return _event(move, symbols)
