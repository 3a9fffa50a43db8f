"""Logs rewritten in French notation, with the engine's one table of cards
(:mod:`arbiter.engine.cards`).

The search builds its logs in Spanish codes (``12C``: rank number, suit letter);
``french-notation`` vectors are those logs rewritten with French codes (``KH``, or ``K♥`` with
the suit's symbol), whose answers the referee then gives afresh. Nothing here lists a suit, a
rank or a card: every code comes from the engine.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from arbiter.engine.cards import (
    Suit,
    card_suit,
    code_table,
    format_card,
    format_suit,
    make_card,
    parse_card,
    parse_suit,
)


def _suit_symbols() -> tuple[str, ...]:
    """The French suit symbols by suit, as the engine's French code table reads them: the code
    of a card that is not its canonical one ends with its suit's symbol."""
    table = code_table("french")
    symbols = []
    for suit in Suit:
        ace = make_card(1, suit)
        canonical = format_card(ace, "french")
        symbols.append(next(c[-1] for c, found in table.items() if found == ace and c != canonical))
    return tuple(symbols)


SUIT_SYMBOLS: Final = _suit_symbols()


def french(code: str, symbols: bool = False) -> str:
    """A Spanish card code in French notation (with the suit's symbol if ``symbols``)."""
    found = parse_card(code)
    text = format_card(found, "french")
    return text[:-1] + SUIT_SYMBOLS[card_suit(found)] if symbols else text


def french_suit(letter: str, symbols: bool = False) -> str:
    suit = parse_suit(letter)
    return SUIT_SYMBOLS[suit] if symbols else format_suit(suit, "french")


def _event(event: dict[str, Any], symbols: bool) -> dict[str, Any]:
    out = dict(event)
    if isinstance(out.get("card"), str):
        out["card"] = french(out["card"], symbols)
    if isinstance(out.get("suit"), str):
        out["suit"] = french_suit(out["suit"], symbols)
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
