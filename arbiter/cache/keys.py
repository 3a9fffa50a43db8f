"""Storage keys of log prefixes: a keyed hash of the log's canonical JSON, one pass per log.

The key of a prefix — the header, the deals before the last, the last deal's setup and its first
*m* events — is a keyed BLAKE2b of the canonical JSON of those parts (orjson with sorted keys:
whitespace and the order of fields do not matter; anything else, a lower-case card code or a
``deck`` instead of ``hands``, makes another key and so a miss, never a wrong state). A deal
counts as its setup (every field but ``events``) then its ``events`` array, whether it is the last
deal or one before, so the key under which a growing log was stored is found again when more
deals follow.

One walk over the log gives the keys worth looking up, longest first (:class:`PrefixKeys`):
the whole log, the log without its last event (the client that sends the log and its next
move), and the end of each deal; and the key of the log with one more event, for the state after
a validated move. No key needs the log parsed — a hit lets the replay skip parsing the prefix.

A storage key reads ``tute:s<snapshot version>:{<game>}:<digest>``; *game* is a tag of the
header and first deal's setup, the Redis Cluster hash tag that keeps one game's keys in one slot.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, Final

import orjson

from arbiter.engine.log import max_events_per_deal
from arbiter.engine.rulesets import RULESETS
from arbiter.engine.snapshot import SNAPSHOT_VERSION

ENGINE_TAG: Final = f"s{SNAPSHOT_VERSION}"
_SORTED: Final = orjson.OPT_SORT_KEYS
_DIGEST_BYTES: Final = 16
#: The top-level fields of a log that the replay reads besides its deals.
_HEADER_FIELDS: Final = ("ruleset", "options", "notation", "players")

#: The most events a deal of any table may hold (the log's ruleset is not read yet).
_MOST_EVENTS: Final = max(max_events_per_deal(r, n) for r in RULESETS.values() for n in r.players)

Progress = tuple[int, int]
"""(deals started, events applied in the last one), as ``MatchState.progress``."""


def _dumps(value: object) -> bytes:
    return orjson.dumps(value, option=_SORTED)


def _setup_bytes(deal: Mapping[str, Any]) -> bytes:
    return _dumps({k: v for k, v in deal.items() if k != "events"})


class PrefixKeys:
    """The storage keys of one log's prefixes (see the module docstring)."""

    __slots__ = ("_events", "_hasher", "game", "lookups", "whole")

    def __init__(self, secret: bytes, raw: Mapping[str, Any], deals: list[Any]) -> None:
        header = {k: raw[k] for k in _HEADER_FIELDS if k in raw}  # absent is not null
        hasher = hashlib.blake2b(
            _dumps(header), key=secret, digest_size=_DIGEST_BYTES, person=b"tute-key"
        )
        first = _setup_bytes(deals[0])  # names the game, and starts its first deal
        game = hasher.copy()
        game.update(first)
        self.game = game.hexdigest()[:10]
        boundaries: list[tuple[Progress, str]] = []
        for index, deal in enumerate(deals[:-1], 1):
            events = deal.get("events", [])
            hasher.update(first if index == 1 else _setup_bytes(deal))
            hasher.update(_dumps(events))
            boundaries.append(((index, len(events)), self._key(hasher.digest())))
        last = deals[-1]
        hasher.update(first if len(deals) == 1 else _setup_bytes(last))
        events = last.get("events", [])
        encoded = _dumps(events)
        count = len(deals)
        self.whole = self._key_of(hasher, encoded)
        lookups = [((count, len(events)), self.whole)]
        if events:
            trimmed = encoded[: -len(_dumps(events[-1])) - 2] + b"]" if len(events) > 1 else b"[]"
            lookups.append(((count, len(events) - 1), self._key_of(hasher, trimmed)))
        self.lookups = lookups + boundaries[::-1]
        self._hasher = hasher
        self._events = encoded

    def after(self, move: object) -> str:
        """The key of the log with ``move`` appended to its last deal."""
        open_array = self._events[:-1]
        joined = open_array + (b"," if len(open_array) > 1 else b"") + _dumps(move) + b"]"
        return self._key_of(self._hasher, joined)

    def _key_of(self, hasher: Any, events: bytes) -> str:
        prefix = hasher.copy()
        prefix.update(events)
        return self._key(prefix.digest())

    def _key(self, digest: bytes) -> str:
        return f"tute:{ENGINE_TAG}:{{{self.game}}}:{digest.hex()}"


def prefix_keys(secret: bytes, raw: object) -> PrefixKeys | None:
    """The keys of ``raw``'s prefixes, or None when it is not shaped like a log (a list of deal
    objects, each with a list of events or none): the replay then reports what is wrong."""
    if not isinstance(raw, Mapping):
        return None
    deals = raw.get("deals")
    if not isinstance(deals, list) or not deals:
        return None
    for deal in deals:
        if not isinstance(deal, Mapping) or not isinstance(deal.get("events", []), list):
            return None
    return PrefixKeys(secret, raw, deals)


def events_in(raw: object) -> int:
    """How many events a log holds (0 when it is not shaped like a log)."""
    deals = raw.get("deals") if isinstance(raw, Mapping) else None
    if not isinstance(deals, list):
        return 0
    total = 0
    for deal in deals:
        events = deal.get("events") if isinstance(deal, Mapping) else None
        if isinstance(events, list):
            total += len(events)
    return total


def within_limits(raw: object, max_deals: int) -> bool:
    """Whether a log has no more deals than ``max_deals`` and no deal more events than any
    ruleset allows: the replay refuses a log past them, and keys would cost it more first (one
    hash and one key looked up per deal). Not shaped like a log: True (the replay says why)."""
    deals = raw.get("deals") if isinstance(raw, Mapping) else None
    if not isinstance(deals, list):
        return True
    if len(deals) > max_deals:
        return False
    for deal in deals:
        events = deal.get("events") if isinstance(deal, Mapping) else None
        if isinstance(events, list) and len(events) > _MOST_EVENTS:
            return False
    return True
