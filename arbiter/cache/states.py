"""The replay-state cache: resume replays from the longest cached prefix of a log.

Values are the engine's snapshot bytes (never pickle) behind a 16-byte HMAC tag that covers
the state id, the chain value and the snapshot: a value altered, copied to another key, or
written by another engine version fails its tag or its decoding, is counted as *rejected* and
ignored — a poisoned cache can cost a replay, never change a verdict. Every backend failure
is a miss; a circuit breaker stops calling a backend that keeps failing.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import time
from dataclasses import dataclass, replace
from typing import Protocol

from arbiter.cache.breaker import CircuitBreaker
from arbiter.cache.ids import ENGINE_TAG, StateIds, lookup_positions
from arbiter.cache.stores import (
    STORE_ERRORS,
    MemoryStore,
    NullStore,
    RedisClusterStore,
    RedisStore,
    StateStore,
)
from arbiter.engine.log import GameLog
from arbiter.engine.match import MatchState, advance
from arbiter.engine.snapshot import SnapshotError, decode, encode
from arbiter.engine.state import Event
from arbiter.settings import Settings

_TAG_BYTES = 16
_CHAIN_BYTES = 32


class CacheObserver(Protocol):
    """What the cache reports (the service's metrics implement it)."""

    def cache_event(self, kind: str) -> None:
        """``hit``, ``miss``, ``error`` or ``rejected``."""

    def cache_lookup(self, seconds: float) -> None: ...


class _Silent:
    def cache_event(self, kind: str) -> None:
        return None

    def cache_lookup(self, seconds: float) -> None:
        return None


@dataclass(slots=True)
class CachedReplay:
    """A replay done through the cache: the match, and the id and chain of its final state
    (None when the log holds an illegal event: such a state is not kept)."""

    match: MatchState
    state_id: str | None
    game: str
    chain: bytes
    resumed_from: tuple[int, int] | None


@dataclass(slots=True)
class CachedState:
    """A state loaded by its id: the match, and the chain value its successors extend."""

    match: MatchState
    chain: bytes


class StateCache:
    def __init__(
        self,
        store: StateStore,
        key: bytes,
        ttl: int,
        breaker: CircuitBreaker,
        observer: CacheObserver | None = None,
        min_events: int = 0,
    ) -> None:
        self.store = store
        self.ids = StateIds(key)
        self._key = key
        self._ttl = ttl
        self._breaker = breaker
        self._observer = observer or _Silent()
        self._min_events = min_events

    @property
    def backend(self) -> str:
        return self.store.name

    # --- keys and values ------------------------------------------------------------------

    @staticmethod
    def storage_key(state_id: str) -> str:
        game, _, digest = state_id.partition(".")
        return f"tute:{ENGINE_TAG}:{{{game}}}:{digest}"

    def _tag(self, state_id: str, chain: bytes, snapshot: bytes) -> bytes:
        data = b"value" + state_id.encode() + chain + snapshot
        return hmac.new(self._key, data, hashlib.sha256).digest()[:_TAG_BYTES]

    def pack(self, state_id: str, chain: bytes, match: MatchState) -> bytes:
        snapshot = encode(match)
        return self._tag(state_id, chain, snapshot) + chain + snapshot

    def unpack(self, state_id: str, value: bytes) -> CachedState | None:
        """The state in ``value`` if it is genuinely the one named ``state_id``."""
        head = _TAG_BYTES + _CHAIN_BYTES
        tag, chain, snapshot = value[:_TAG_BYTES], value[_TAG_BYTES:head], value[head:]
        if len(value) <= head or not hmac.compare_digest(tag, self._tag(state_id, chain, snapshot)):
            self._observer.cache_event("rejected")
            return None
        try:
            match = decode(snapshot)
        except SnapshotError:
            self._observer.cache_event("rejected")
            return None
        return CachedState(match, chain)

    # --- guarded backend calls --------------------------------------------------------------

    def _get(self, keys: list[str]) -> list[bytes | None] | None:
        if not self._breaker.allow():
            return None
        started = time.perf_counter()
        try:
            values = self.store.get_many(keys)
        except STORE_ERRORS:
            self._breaker.failure()
            self._observer.cache_event("error")
            return None
        finally:
            self._observer.cache_lookup(time.perf_counter() - started)
        self._breaker.success()
        return values

    def _put(self, items: dict[str, bytes]) -> None:
        if not items or not self._breaker.allow():
            return
        try:
            self.store.put_many(items, self._ttl)
        except STORE_ERRORS:
            self._breaker.failure()
            self._observer.cache_event("error")
        else:
            self._breaker.success()

    def reachable(self) -> bool:
        """Whether the backend answers now (the breaker is bypassed: this is a probe)."""
        try:
            return self.store.ping()
        except STORE_ERRORS:
            return False

    # --- the operations ---------------------------------------------------------------------

    def replay(self, log: GameLog) -> CachedReplay:
        """Replay ``log``, resuming from its longest cached prefix, and keep its final state
        (and the state at the end of the deal before the last, when it was replayed)."""
        if isinstance(self.store, NullStore):  # no cache: no ids to name, nothing to keep
            match = advance(MatchState.for_log(log), log)
            return CachedReplay(match, None, "", b"", None)
        events = sum(len(d.events) for d in log.deals)
        positions = lookup_positions(log) if events >= self._min_events else []
        chain = self.ids.chain(log, positions)
        ids = {p: self.ids.state_id(chain.game, chain.at[p]) for p in positions}
        match, resumed = self._resume(log, ids)
        to_store: dict[str, bytes] = {}
        boundary = (len(log.deals) - 1, len(log.deals[-2].events)) if len(log.deals) > 1 else None
        if boundary is not None and (resumed is None or resumed < boundary):
            # Stop at the end of the deal before the last and keep that state too: a client
            # that corrects the last deal resumes from there.
            advance(match, replace(log, deals=log.deals[: boundary[0]]))
            if match.illegal is None and boundary in ids:
                to_store[self.storage_key(ids[boundary])] = self.pack(
                    ids[boundary], chain.at[boundary], match
                )
        advance(match, log)
        if match.illegal is not None:
            self._put(to_store)
            return CachedReplay(match, None, chain.game, chain.final, resumed)
        final = match.position
        state_id = ids.get(final) or self.ids.state_id(chain.game, chain.final)
        if resumed != final:
            to_store[self.storage_key(state_id)] = self.pack(state_id, chain.final, match)
        self._put(to_store)
        return CachedReplay(match, state_id, chain.game, chain.final, resumed)

    def _resume(
        self, log: GameLog, ids: dict[tuple[int, int], str]
    ) -> tuple[MatchState, tuple[int, int] | None]:
        """The longest prefix found in one round trip (``ids`` longest first), or a new match."""
        values = self._get([self.storage_key(i) for i in ids.values()]) if ids else None
        if values is not None:
            for (position, state_id), value in zip(ids.items(), values, strict=True):
                if value is None:
                    continue
                cached = self.unpack(state_id, value)
                if cached is not None and cached.match.position == position:
                    self._observer.cache_event("hit")
                    return cached.match, position
            self._observer.cache_event("miss")
        return MatchState.for_log(log), None

    def load(self, state_id: str) -> CachedState | None:
        """The state a client names by its id, or None (unknown, expired, rejected, or the
        backend is failing: the client resends the full log)."""
        values = self._get([self.storage_key(state_id)])
        if values is None:
            return None
        if values[0] is None:
            self._observer.cache_event("miss")
            return None
        cached = self.unpack(state_id, values[0])
        if cached is not None:
            self._observer.cache_event("hit")
        return cached

    @staticmethod
    def game_of(state_id: str) -> str:
        return state_id.partition(".")[0]

    def keep_after(self, game: str, chain: bytes, after: MatchState, move: Event) -> str | None:
        """Keep the state after ``move`` and return its id (None when the cache is off)."""
        if isinstance(self.store, NullStore):
            return None
        next_chain = self.ids.next_chain(chain, move)
        state_id = self.ids.state_id(game, next_chain)
        self._put({self.storage_key(state_id): self.pack(state_id, next_chain, after)})
        return state_id


def build_cache(settings: Settings, observer: CacheObserver | None = None) -> StateCache:
    """The cache the settings ask for."""
    backend = settings.cache_backend
    store: StateStore
    if backend == "off":
        store = NullStore()
    elif backend == "redis":
        assert settings.redis_url is not None
        store = RedisStore(settings.redis_url, settings.cache_timeout)
    elif backend == "cluster":
        assert settings.redis_cluster_url is not None
        store = RedisClusterStore(settings.redis_cluster_url, settings.cache_timeout)
    else:
        store = MemoryStore(settings.cache_max_entries)
    # Without a configured key, ids are private to this process (and die with it).
    key = settings.state_key.encode() if settings.state_key else os.urandom(32)
    breaker = CircuitBreaker(settings.breaker_failures, settings.breaker_cooldown)
    return StateCache(store, key, settings.cache_ttl, breaker, observer, settings.cache_min_events)
