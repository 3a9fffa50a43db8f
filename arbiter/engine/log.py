"""Reading a game log (API.md) into typed, checked engine input.

:func:`parse_log` turns the JSON-shaped ``dict`` into a :class:`GameLog`: the ruleset and its
options, the notation, the players, and per deal its :class:`DealSetup` and its events as
:class:`Event` tuples. Anything malformed raises an :class:`ArbiterError` whose ``path`` points
at the field. Whether the events are *legal* is the replay's business, not this module's.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, cast

from arbiter.engine.cards import (
    NOTATIONS,
    Notation,
    code_table,
    pack_mask,
    parse_card,
    parse_suit,
)
from arbiter.engine.errors import ArbiterError, CardCodeError, LogError
from arbiter.engine.rulesets import Options, Ruleset, get_ruleset, resolve_options
from arbiter.engine.setup import DealSetup, build_setup
from arbiter.engine.state import EVENT_TYPES, EXCHANGE, PLAY, SING, TUTE, TUTE_OF, Event

MAX_DEALS: Final = 100
#: Declarations a deal can hold at most: four cantes (one per suit), one tute, one exchange
#: (the seven then lies under the stock until the last draw).
MAX_DECLARATIONS_PER_DEAL: Final = 6


@dataclass(frozen=True, slots=True)
class DealLog:
    setup: DealSetup
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class GameLog:
    """A parsed log. ``deals`` may be empty only in a log built for a move check."""

    ruleset: Ruleset
    options: Options
    notation: Notation
    players: tuple[str, ...]
    deals: tuple[DealLog, ...]


def max_events_per_deal(ruleset: Ruleset, players: int) -> int:
    """The most events a deal can hold: every card played, every declaration, and one more
    so that an event past the end of a full deal is reported as illegal, not refused."""
    cards = pack_mask(ruleset.removed_rank[players]).bit_count()
    return cards + MAX_DECLARATIONS_PER_DEAL + 1


def parse_header(raw: object) -> tuple[Ruleset, Options, Notation, tuple[str, ...]]:
    """The ruleset, options, notation and players of a log."""
    if not isinstance(raw, Mapping):
        raise LogError("the log must be a JSON object")
    if "ruleset" not in raw:
        raise LogError("missing", ("ruleset",))
    ruleset = get_ruleset(raw["ruleset"])
    options = resolve_options(ruleset, raw.get("options"))
    notation = raw.get("notation", "spanish")
    if notation not in NOTATIONS:
        raise LogError("must be spanish or french", ("notation",))
    players = _players(ruleset, raw.get("players"))
    return ruleset, options, cast(Notation, notation), players


def _players(ruleset: Ruleset, raw: object) -> tuple[str, ...]:
    if not isinstance(raw, list):
        raise LogError("must be a list of player names", ("players",))
    if len(raw) not in ruleset.players:
        counts = " or ".join(str(n) for n in ruleset.players)
        raise LogError(f"{ruleset.name} is played by {counts} players", ("players",))
    for i, name in enumerate(raw):
        if not isinstance(name, str) or not name.strip():
            raise LogError("must be a non-empty name", ("players", i))
        unfit = name_problem(name)
        if unfit is not None:
            raise LogError(unfit, ("players", i))
        if name in raw[:i]:
            raise LogError(f"{name!r} is named twice", ("players", i))
    return tuple(raw)


#: Unicode general categories that :meth:`str.isprintable` refuses, in words.
_UNPRINTABLE = {
    "Cc": "a control character",
    "Cf": "an invisible format character",
    "Cs": "a surrogate",
    "Co": "a private-use character",
    "Cn": "an unassigned code point",
    "Zs": "a space other than the plain space",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a player's name, or None. A name is shown in every message
    about its player, in answers, terminals and pages: printable characters only (no
    control, format or bidi-override character, no exotic space) in Unicode NFC, so that
    one name has one spelling. The character at fault is named by code point, not shown."""
    if not name.isprintable():
        char = next(c for c in name if not c.isprintable())
        what = _UNPRINTABLE.get(unicodedata.category(char), "not printable")
        label = unicodedata.name(char, "")
        code = f"U+{ord(char):04X}" + (f" {label}" if label else "")
        return f"must be printable text: {code} is {what}"
    if not unicodedata.is_normalized("NFC", name):
        return "must be in Unicode normal form NFC (accents composed with their letters)"
    return None


def parse_log(raw: object, *, max_deals: int = MAX_DEALS) -> GameLog:
    """Parse and check a whole log (every deal's setup and events)."""
    ruleset, options, notation, players = parse_header(raw)
    raw_deals = cast(Mapping[str, Any], raw).get("deals")
    if not isinstance(raw_deals, list) or not raw_deals:
        raise LogError("must be a non-empty list of deals", ("deals",))
    if len(raw_deals) > max_deals:
        raise LogError(f"at most {max_deals} deals", ("deals",))
    deals = []
    dealer = len(players) - 1  # without a dealer, the first mano is seat 0
    for i, raw_deal in enumerate(raw_deals):
        try:
            deal = parse_deal(ruleset, notation, len(players), raw_deal, dealer)
        except ArbiterError as err:
            raise err.at("deals", i) from None
        deals.append(deal)
        dealer = (deal.setup.dealer + 1) % len(players)
    return GameLog(ruleset, options, notation, players, tuple(deals))


def parse_deal(
    ruleset: Ruleset, notation: Notation, players: int, raw: object, default_dealer: int
) -> DealLog:
    if not isinstance(raw, Mapping):
        raise LogError("a deal must be a JSON object")
    dealer = raw.get("dealer", default_dealer)
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players:
        raise LogError(f"must be a seat from 0 to {players - 1}", ("dealer",))
    setup = build_setup(ruleset, players, dealer, raw, notation)
    raw_events = raw.get("events", [])
    if not isinstance(raw_events, list):
        raise LogError("must be a list of events", ("events",))
    limit = max_events_per_deal(ruleset, players)
    if len(raw_events) > limit:
        raise LogError(f"a {ruleset.name} deal holds at most {limit} events", ("events",))
    return DealLog(setup, tuple(_parse_events(raw_events, players, notation)))


def _parse_events(raw_events: list[object], players: int, notation: Notation) -> list[Event]:
    table = code_table(notation)
    new = tuple.__new__  # builds the Event without NamedTuple's Python-level __new__
    events: list[Event] = []
    append = events.append
    for j, raw in enumerate(raw_events):
        # The hot path: a play with exactly type, seat and a canonical card code.
        if type(raw) is dict and len(raw) == 3 and raw.get("type") == "play":
            seat, code = raw.get("seat"), raw.get("card")
            if type(seat) is int and 0 <= seat < players and type(code) is str:
                card = table.get(code)
                if card is not None:
                    append(new(Event, (PLAY, seat, card)))
                    continue
        try:
            append(parse_event(raw, players, notation))
        except ArbiterError as err:
            raise err.at("events", j) from None
    return events


def parse_event(raw: object, players: int, notation: Notation) -> Event:
    """One event object → :class:`Event`. Paths are relative to the event."""
    if not isinstance(raw, Mapping):
        raise LogError("an event must be a JSON object")
    kind = raw.get("type")
    if kind not in EVENT_TYPES:
        raise LogError(f"must be one of {', '.join(EVENT_TYPES)}", ("type",))
    seat = raw.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
        raise LogError(f"must be a seat from 0 to {players - 1}", ("seat",))
    _check_other_fields(raw)
    try:
        if kind == "play":
            if "card" not in raw:
                raise LogError("missing", ("card",))
            return Event(PLAY, seat, parse_card(raw["card"], notation))
        if kind == "sing":
            if "suit" not in raw:
                raise LogError("missing", ("suit",))
            return Event(SING, seat, parse_suit(raw["suit"], notation))
    except CardCodeError as err:
        raise err.at("card" if kind == "play" else "suit") from None
    if kind == "tute":
        of = raw.get("of")
        if of not in TUTE_OF:
            raise LogError("must be kings or horses", ("of",))
        return Event(TUTE, seat, TUTE_OF.index(of))
    return Event(EXCHANGE, seat)


def _check_other_fields(raw: Mapping[str, object]) -> None:
    """The contract types ``card``, ``suit`` and ``of`` on every event, used or not."""
    for name in ("card", "suit"):
        if name in raw and not isinstance(raw[name], str):
            raise LogError("must be a string", (name,))
    if "of" in raw and raw["of"] not in TUTE_OF:
        raise LogError("must be kings or horses", ("of",))
