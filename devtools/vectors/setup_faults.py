"""Logs the referee refuses, one :class:`~devtools.vectors.rules.SetupFault` at a time.

Each fault is made by changing one thing in a correct log of the table — a card repeated, a
hand too short, a stock where there is none, an option value out of range... — in a few places
and in both ways of giving the cards (``hands`` or ``deck``). Only those the referee does
refuse become vectors (:mod:`.searches`).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from typing import Any

from arbiter.engine.cards import format_card, make_card
from arbiter.engine.rulesets import RULESETS, OptionSpec
from arbiter.engine.setup import mano
from devtools.vectors.hand_built import SUITS, pack
from devtools.vectors.probing import Table
from devtools.vectors.rules import SetupFault

Log = dict[str, Any]
Breaker = Callable[[Table, Log, random.Random], Iterator[Log]]


def _copy(log: Log) -> tuple[Log, dict[str, Any]]:
    """A deep copy of the log, and its first deal."""
    out = copy.deepcopy(log)
    deal: dict[str, Any] = out["deals"][0]
    return out, deal


def _cards(deal: dict[str, Any]) -> list[str]:
    """The deal's first list of cards (the deck, or the first hand)."""
    cards: list[str] = deal["deck"] if "deck" in deal else deal["hands"][0]
    return cards


def cards_form(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    out, deal = _copy(log)
    if "hands" in deal:
        deal["deck"] = [c for h in deal["hands"] for c in h] + deal.get("stock", [])
        yield out
    out, deal = _copy(log)
    for key in ("hands", "deck", "stock", "trump_card"):
        deal.pop(key, None)
    yield out


def hand_count(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    if "hands" in log["deals"][0]:
        out, deal = _copy(log)
        deal["hands"].pop()
        yield out
        out, deal = _copy(log)
        deal["hands"].append([])
        yield out


def hand_size(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    out, deal = _copy(log)
    if "hands" in deal:
        a, b = rng.sample(range(table.players), 2)
        deal["hands"][b].append(deal["hands"][a].pop())
    else:
        deal["deck"].append(deal["deck"][0])
    yield out


def unknown_card(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    for bad in ("99X", "13O", "0C", "1Z"):
        out, deal = _copy(log)
        cards = _cards(deal)
        cards[rng.randrange(len(cards))] = bad
        yield out


def card_not_in_pack(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    removed = RULESETS[table.ruleset].removed_rank[table.players]
    if removed is None:
        return
    for suit in rng.sample(SUITS, 2):
        out, deal = _copy(log)
        cards = _cards(deal)
        cards[rng.randrange(len(cards))] = format_card(make_card(removed, suit))
        yield out


def duplicate_card(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    out, deal = _copy(log)
    cards = _cards(deal)
    a, b = rng.sample(range(len(cards)), 2)
    cards[b] = cards[a]
    yield out
    out, deal = _copy(log)
    if "hands" in deal:
        deal["hands"][1][0] = deal["hands"][0][0]
        yield out


def missing_card(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    out, deal = _copy(log)
    if "deck" in deal:
        deal["deck"].pop(rng.randrange(len(deal["deck"])))
        yield out
    elif "stock" in deal:
        deal["stock"].pop(0)
        yield out


def stock(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    out, deal = _copy(log)
    if "stock" in deal:
        del deal["stock"]
    elif "hands" in deal:
        deal["stock"] = []
    else:
        deal["stock"] = [deal["deck"][-1]]
    yield out


def trump_card(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    out, deal = _copy(log)
    if "trump_card" not in deal:
        deal["trump_card"] = format_card(pack(table)[0])
        yield out
        return
    del deal["trump_card"]
    yield out
    out, deal = _copy(log)
    deal["trump_card"] = deal["hands"][mano(deal["dealer"], table.players)][0]
    yield out


def dealer(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    for bad in (table.players, -1, "0"):
        out, deal = _copy(log)
        deal["dealer"] = bad
        yield out


def players(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    for change in ("fewer", "twice", "empty"):
        out, _ = _copy(log)
        names = out["players"]
        if change == "fewer":
            names.pop()
        elif change == "twice":
            names[1] = names[0]
        else:
            names[0] = ""
        yield out


def notation(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    yield {**log, "notation": "german"}


def unknown_option(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    mine = {s.name for s in RULESETS[table.ruleset].option_specs}
    specs = {s.name: s for r in RULESETS.values() for s in r.option_specs}
    for name in [*sorted(set(specs) - mine)[:3], "no_such_option"]:
        spec = specs.get(name)
        yield _with_option(log, name, True if spec is None else copy.copy(spec.default))


def _bad_values(spec: OptionSpec) -> list[Any]:
    if spec.type == "boolean":
        return ["yes", 1]
    if spec.type == "ranks":
        return [[11, 11], [12], [8, 9]]
    if spec.allowed is not None:
        ints = [v for v in spec.allowed if isinstance(v, int)]
        return [max(ints) + 1 if ints else "sometimes", None]
    assert spec.minimum is not None and spec.maximum is not None
    return [spec.minimum - 1, spec.maximum + 1, str(spec.default)]


def option_value(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    for spec in RULESETS[table.ruleset].option_specs:
        for value in _bad_values(spec):
            yield _with_option(log, spec.name, value)


def _with_option(log: Log, name: str, value: Any) -> Log:
    rest = {k: v for k, v in log.items() if k != "ruleset"}
    return {"ruleset": log["ruleset"], "options": {name: value}, **rest}


def event(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    first = _cards(log["deals"][0])[0]
    bad = [
        {"type": "pass", "seat": 0},
        {"type": "play", "seat": table.players, "card": first},
        {"type": "play", "seat": 0},
        {"type": "play", "seat": 0, "card": "99X"},
        {"type": "tute", "seat": 0, "of": "queens"},
        {"type": "sing", "seat": 0, "suit": "X"},
    ]
    for raw in bad:
        out, deal = _copy(log)
        deal["events"] = [raw]
        yield out


def unfinished_deal(table: Table, log: Log, rng: random.Random) -> Iterator[Log]:
    out, deal = _copy(log)
    out["deals"].append(copy.deepcopy(deal))
    yield out


BREAKERS: dict[SetupFault, Breaker] = {
    SetupFault.CARDS_FORM: cards_form,
    SetupFault.HAND_COUNT: hand_count,
    SetupFault.HAND_SIZE: hand_size,
    SetupFault.UNKNOWN_CARD: unknown_card,
    SetupFault.CARD_NOT_IN_PACK: card_not_in_pack,
    SetupFault.DUPLICATE_CARD: duplicate_card,
    SetupFault.MISSING_CARD: missing_card,
    SetupFault.STOCK: stock,
    SetupFault.TRUMP_CARD: trump_card,
    SetupFault.DEALER: dealer,
    SetupFault.PLAYERS: players,
    SetupFault.NOTATION: notation,
    SetupFault.UNKNOWN_OPTION: unknown_option,
    SetupFault.OPTION_VALUE: option_value,
    SetupFault.EVENT: event,
    SetupFault.UNFINISHED_DEAL: unfinished_deal,
}
