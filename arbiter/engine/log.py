"""Reading a game log (docs/api.md) into typed, checked engine input.

:func:`parse_log` turns the JSON-shaped ``dict`` into a :class:`GameLog`: its :class:`Header`
(the ruleset and its options, the notation, the players) and per deal its :class:`DealSetup`
and its events, as packed :data:`~arbiter.engine.moves.MoveCode` ints. :func:`parse_rest` reads
only what follows a prefix already replayed. Anything malformed raises an
:class:`ArbiterError` whose ``path`` points at the field; how much a log may hold is one
:class:`Limits`. Whether the events are *legal* is the replay's business, not this module's.
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
)
from arbiter.engine.errors import ArbiterError, LogError
from arbiter.engine.moves import PLAY, Move, MoveCode
from arbiter.engine.rulesets import RULESETS, Options, Ruleset, get_ruleset, resolve_options
from arbiter.engine.setup import DealSetup, build_setup, next_dealer

_PLAY_CODE: Final = PLAY << 12

MAX_DEALS: Final = 100
MAX_NAME_LENGTH: Final = 64
#: Declarations a deal can hold at most: four cantes (one per suit), one tute, one exchange
#: (the seven then lies under the stock until the last draw).
MAX_DECLARATIONS_PER_DEAL: Final = 6


@dataclass(frozen=True, slots=True)
class Limits:
    """How much a log may hold: the one limits object that reaches the parser."""

    max_deals: int = MAX_DEALS
    max_name_length: int = MAX_NAME_LENGTH


DEFAULT_LIMITS: Final = Limits()


@dataclass(frozen=True, slots=True)
class Header:
    """What a log says before its deals: the ruleset, its options, the notation, the players."""

    ruleset: Ruleset
    options: Options
    notation: Notation
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DealLog:
    """One deal of a log: its setup and its events from ``first_event`` on.

    A deal whose first events were already applied (a replay resumed from a cached state)
    carries no setup and only the events that follow them.
    """

    setup: DealSetup | None
    events: tuple[MoveCode, ...]
    first_event: int = 0


@dataclass(frozen=True, slots=True)
class GameLog:
    """A parsed log, or the part of one still to replay: ``deals[0]`` is deal ``first_deal``."""

    header: Header
    deals: tuple[DealLog, ...]
    first_deal: int = 0


def max_events_per_deal(ruleset: Ruleset, players: int) -> int:
    """The most events a deal can hold: every card played, every declaration, and one more
    so that an event past the end of a full deal is reported as illegal, not refused."""
    return _MAX_EVENTS[ruleset.name, players]


_MAX_EVENTS: Final[dict[tuple[str, int], int]] = {
    (r.name, n): pack_mask(r.removed_rank[n]).bit_count() + MAX_DECLARATIONS_PER_DEAL + 1
    for r in RULESETS.values()
    for n in r.players
}


def parse_header(raw: object, limits: Limits = DEFAULT_LIMITS) -> Header:
    """The ruleset, options, notation and players of a log."""
    if not isinstance(raw, Mapping):
        raise LogError("the log must be a JSON object")
    if "ruleset" not in raw:
        raise LogError("missing", ("ruleset",))
    ruleset = get_ruleset(raw["ruleset"])
    if "options" in raw and not isinstance(raw["options"], Mapping):
        raise LogError("must be an object", ("options",))
    options = resolve_options(ruleset, raw.get("options"))
    notation = raw.get("notation", "spanish")
    if notation not in NOTATIONS:
        raise LogError("must be spanish or french", ("notation",))
    players = _players(ruleset, raw.get("players"), limits.max_name_length)
    return Header(ruleset, options, cast(Notation, notation), players)


def _players(ruleset: Ruleset, raw: object, max_length: int) -> tuple[str, ...]:
    if not isinstance(raw, list):
        raise LogError("must be a list of player names", ("players",))
    if len(raw) not in ruleset.players:
        counts = " or ".join(str(n) for n in ruleset.players)
        raise LogError(f"{ruleset.name} is played by {counts} players", ("players",))
    for i, name in enumerate(raw):
        if not isinstance(name, str) or not name.strip():
            raise LogError("must be a non-empty name", ("players", i))
        if len(name) > max_length:
            raise LogError(f"longer than {max_length} characters", ("players", i))
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


def raw_deals(raw: Mapping[str, Any], limits: Limits = DEFAULT_LIMITS) -> list[Any]:
    """The log's list of deals, checked for being a list of the allowed length."""
    deals = raw.get("deals")
    if not isinstance(deals, list) or not deals:
        raise LogError("must be a non-empty list of deals", ("deals",))
    if len(deals) > limits.max_deals:
        raise LogError(f"at most {limits.max_deals} deals", ("deals",))
    return deals


def parse_log(raw: object, limits: Limits = DEFAULT_LIMITS) -> GameLog:
    """Parse and check a whole log (every deal's setup and events)."""
    header = parse_header(raw, limits)
    deals = raw_deals(cast(Mapping[str, Any], raw), limits)
    first_dealer = len(header.players) - 1  # without a dealer, the first mano is seat 0
    return GameLog(header, parse_deals(header, deals, 0, first_dealer), 0)


def parse_rest(header: Header, deals: list[Any], deal: int, event: int, dealer: int) -> GameLog:
    """The part of a log after its first ``event`` events of deal ``deal``, already applied
    (a replay resumed from a cached state): the rest of that deal's events, then the deals
    after it, whose default dealers follow on from ``dealer`` (the next deal's)."""
    raw = deals[deal]
    try:
        rest = _deal_events(
            header, raw.get("events", []) if isinstance(raw, Mapping) else None, event
        )
    except ArbiterError as err:
        raise err.at("deals", deal) from None
    later = parse_deals(header, deals[deal + 1 :], deal + 1, dealer)
    return GameLog(header, (DealLog(None, rest, event), *later), deal)


def parse_deals(
    header: Header, raw: list[Any], first: int, default_dealer: int
) -> tuple[DealLog, ...]:
    """Deals ``first``, ``first + 1``... of a log, the default dealer rotating from
    ``default_dealer`` (the seat after the previous deal's dealer)."""
    deals = []
    dealer = default_dealer
    for i, raw_deal in enumerate(raw, first):
        try:
            setup, events = _parse_deal(header, raw_deal, dealer)
        except ArbiterError as err:
            raise err.at("deals", i) from None
        deals.append(DealLog(setup, events))
        dealer = next_dealer(setup.dealer, len(header.players))
    return tuple(deals)


def parse_deal(header: Header, raw: object, default_dealer: int) -> DealLog:
    """One deal's setup and events. Paths are relative to the deal."""
    setup, events = _parse_deal(header, raw, default_dealer)
    return DealLog(setup, events)


def _parse_deal(
    header: Header, raw: object, default_dealer: int
) -> tuple[DealSetup, tuple[MoveCode, ...]]:
    if not isinstance(raw, Mapping):
        raise LogError("a deal must be a JSON object")
    players = len(header.players)
    ruleset = header.ruleset
    dealer = raw.get("dealer", default_dealer)
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players:
        raise LogError(f"must be a seat from 0 to {players - 1}", ("dealer",))
    setup = build_setup(ruleset, players, dealer, raw, header.notation)
    return setup, _deal_events(header, raw.get("events", []))


def _deal_events(header: Header, raw: object, start: int = 0) -> tuple[MoveCode, ...]:
    """A deal's ``events`` from the ``start``-th on (those before it already applied). Paths
    are relative to the deal."""
    if not isinstance(raw, list):
        raise LogError("must be a list of events", ("events",))
    players = len(header.players)
    _check_event_count(header.ruleset, players, raw, ("events",))
    return tuple(_parse_events(raw, players, header.notation, start=start))


def _check_event_count(
    ruleset: Ruleset, players: int, events: list[Any], path: tuple[str | int, ...]
) -> None:
    limit = max_events_per_deal(ruleset, players)
    if len(events) > limit:
        raise LogError(f"a {ruleset.name} deal holds at most {limit} events", path)


def _parse_events(
    raw_events: list[object], players: int, notation: Notation, start: int = 0
) -> list[MoveCode]:
    table = code_table(notation)
    events: list[MoveCode] = []
    for j, raw in enumerate(raw_events[start:] if start else raw_events, start):
        # The hot path: a play with exactly type, seat and a canonical card code.
        if type(raw) is dict and len(raw) == 3 and raw.get("type") == "play":
            seat, code = raw.get("seat"), raw.get("card")
            if type(seat) is int and 0 <= seat < players and type(code) is str:
                card = table.get(code)
                if card is not None:
                    events.append(_PLAY_CODE | seat << 8 | (card + 1))  # Move(PLAY...).code
                    continue
        try:
            events.append(Move.from_json(raw, players, notation).code)
        except ArbiterError as err:
            raise err.at("events", j) from None
    return events
