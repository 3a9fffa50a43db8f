"""Reading a game log (docs/api.md): its header, its deals' setups and events, checked.

:func:`parse_header` reads what a log says before its deals into a :class:`Header` (the ruleset
and its options, the notation, the players); :func:`parse_deal` and :func:`parse_events` read a
deal. The replay (:mod:`arbiter.engine.match`) reads the events itself, in the same pass that
plays them. Anything malformed raises an :class:`ArbiterError` whose ``path`` points at the
field; how much a log may hold is one :class:`Limits`. Whether the events are *legal* is the
replay's business, not this module's.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, cast, final

from arbiter.engine.cards import NOTATIONS, Notation
from arbiter.engine.errors import ArbiterError, LogError, is_object
from arbiter.engine.moves import Move
from arbiter.engine.records import Record
from arbiter.engine.rulesets import RULESETS, Options, Ruleset, get_ruleset, resolve_options
from arbiter.engine.setup import DealSetup, build_setup

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


@final
class Header(Record):
    """What a log says before its deals: the ruleset, its options, the notation, the players.

    A record (:mod:`arbiter.engine.records`) rather than a frozen dataclass, whose generated
    ``__init__`` is interpreted Python even in the compiled build (measured: 0.47 us against
    0.05 us, once per replay)."""

    __slots__ = ("notation", "options", "players", "ruleset")

    def __init__(
        self, ruleset: Ruleset, options: Options, notation: Notation, players: tuple[str, ...]
    ) -> None:
        self.ruleset = ruleset
        self.options = options
        self.notation = notation
        self.players = players

    def astuple(self) -> tuple[Ruleset, Options, Notation, tuple[str, ...]]:
        return (self.ruleset, self.options, self.notation, self.players)

    def __hash__(self) -> int:
        # a Ruleset holds mappings: it hashes by name
        return hash((self.ruleset.name, self.options, self.notation, self.players))


def max_events_per_deal(ruleset: Ruleset, players: int) -> int:
    """The most events a deal can hold: every card played, every declaration, and one more
    so that an event past the end of a full deal is reported as illegal, not refused."""
    return _MAX_EVENTS[ruleset.name][players]


#: By ruleset name, then players: two lookups of keys whose hashes are at hand, not the hash
#: of a (name, players) tuple made per deal.
_MAX_EVENTS: Final[dict[str, dict[int, int]]] = {
    r.name: {n: r.pack_size(n) + MAX_DECLARATIONS_PER_DEAL + 1 for n in r.players}
    for r in RULESETS.values()
}


def parse_header(raw: object, limits: Limits = DEFAULT_LIMITS) -> Header:
    """The ruleset, options, notation and players of a log."""
    if not is_object(raw):
        raise LogError("the log must be a JSON object")
    # read as a dict: the compiled build's dict operations, not generic calls on a Mapping
    log: dict[str, Any] = raw if type(raw) is dict else dict(raw)
    if "ruleset" not in log:
        raise LogError("missing", ("ruleset",))
    ruleset = get_ruleset(log["ruleset"])
    if "options" in log and not is_object(log["options"]):
        raise LogError("must be an object", ("options",))
    options = resolve_options(ruleset, log.get("options"))
    notation = log.get("notation", "spanish")
    if notation not in NOTATIONS:
        raise LogError("must be spanish or french", ("notation",))
    players = _players(ruleset, log.get("players"), limits.max_name_length)
    return Header(ruleset, options, cast(Notation, notation), players)


def _players(ruleset: Ruleset, raw: object, max_length: int) -> tuple[str, ...]:
    if not isinstance(raw, list):
        raise LogError("must be a list of player names", ("players",))
    if len(raw) not in ruleset.players:
        counts = " or ".join(str(n) for n in ruleset.players)
        raise LogError(f"{ruleset.name} is played by {counts} players", ("players",))
    names: list[object] = raw
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            raise LogError("must be a non-empty name", ("players", i))
        if len(name) > max_length:
            raise LogError(f"longer than {max_length} characters", ("players", i))
        unfit = name_problem(name)
        if unfit is not None:
            raise LogError(unfit, ("players", i))
        # Compared with the names before it, not looked up in a set: a set hashes each name
        # (a string fresh from JSON has no hash yet), and a log names at most five players.
        if _named_before(names, i, name):
            raise LogError(f"{name!r} is named twice", ("players", i))
    return tuple(raw)


def _named_before(names: list[object], index: int, name: str) -> bool:
    """Whether ``name`` is one of ``names[:index]`` (without the slice)."""
    return any(names[j] == name for j in range(index))


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
    if name.isascii() and name.isprintable():
        return None  # ASCII is always in NFC: the common case, without the Unicode tables
    if not name.isprintable():
        char = next(c for c in name if not c.isprintable())
        what = _UNPRINTABLE.get(unicodedata.category(char), "not printable")
        label = unicodedata.name(char, "")
        code = f"U+{ord(char):04X}" + (f" {label}" if label else "")
        return f"must be printable text: {code} is {what}"
    if not unicodedata.is_normalized("NFC", name):
        return "must be in Unicode normal form NFC (accents composed with their letters)"
    return None


def read_field(raw: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """``raw.get(key, default)``: a dict's by a dict operation, not a generic method call (the
    compiled build; a log read from JSON is dicts, a library caller's may be any mapping)."""
    if type(raw) is dict:
        fields: dict[str, Any] = raw
        return fields.get(key, default)
    return raw.get(key, default)


def raw_deals(raw: Mapping[str, Any], limits: Limits = DEFAULT_LIMITS) -> list[Any]:
    """The log's list of deals, checked for being a list of the allowed length."""
    deals = read_field(raw, "deals")
    if not isinstance(deals, list) or not deals:
        raise LogError("must be a non-empty list of deals", ("deals",))
    if len(deals) > limits.max_deals:
        raise LogError(f"at most {limits.max_deals} deals", ("deals",))
    return deals


def first_dealer(header: Header) -> int:
    """The dealer of a log's first deal when it does not say: the last seat, so that the first
    mano is seat 0."""
    return len(header.players) - 1


def read_dealer(raw: Mapping[str, Any], players: int, default: int) -> int:
    """A deal's ``dealer`` (``default`` when absent), checked. Paths are relative to the deal."""
    dealer = read_field(raw, "dealer", default)
    if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players:
        raise LogError(f"must be a seat from 0 to {players - 1}", ("dealer",))
    return dealer


def parse_deal(header: Header, raw: object, default_dealer: int) -> tuple[DealSetup, list[Move]]:
    """One deal's setup and its events, read and checked but not played (a new deal sent
    with a ``state_id``, or a tool's). Paths are relative to the deal."""
    if not is_object(raw):
        raise LogError("a deal must be a JSON object")
    players = len(header.players)
    dealer = read_dealer(raw, players, default_dealer)
    setup = build_setup(header.ruleset, players, dealer, raw, header.notation)
    return setup, parse_events(header, raw.get("events", []))


def parse_events(header: Header, raw: object) -> list[Move]:
    """A deal's ``events``, read and checked. Paths are relative to the deal."""
    if not isinstance(raw, list):
        raise LogError("must be a list of events", ("events",))
    players = len(header.players)
    check_event_count(header.ruleset, players, raw, ("events",))
    moves = []
    for j, event in enumerate(raw):
        try:
            moves.append(Move.from_json(event, players, header.notation))
        except ArbiterError as err:
            raise err.at("events", j) from None
    return moves


def check_event_count(
    ruleset: Ruleset, players: int, events: list[Any], path: tuple[str | int, ...]
) -> None:
    """A deal's events are no more than :func:`max_events_per_deal`."""
    limit = max_events_per_deal(ruleset, players)
    if len(events) > limit:
        raise LogError(f"a {ruleset.name} deal holds at most {limit} events", path)
