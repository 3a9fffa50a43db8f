"""The replay-state cache: snapshot bytes of log prefixes, kept in a store behind tags.

It only loads and stores bytes (the service decides what to keep and decodes it). Values are
``tag ‖ snapshot``: the 16-byte tag is a keyed BLAKE2b of the storage key and the snapshot, so a
value altered, copied to another key, or written with another secret fails it, is counted as
*rejected* and ignored — a poisoned cache can cost a replay, never change a verdict. Every
backend failure is a miss; a circuit breaker stops calling a backend that keeps failing, and the
outage is logged once when it begins and once when it ends.

Whether a log is worth a lookup is a policy by its number of events (:attr:`min_events`),
measured per backend (see ``benchmarks/bench_positions.py``): below it a lookup and a store cost
more than replaying.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Final, Protocol

from arbiter.cache.breaker import CircuitBreaker
from arbiter.cache.keys import PrefixKeys, events_in, prefix_keys
from arbiter.cache.stores import StateStore, store_errors

_TAG_BYTES: Final = 16
_log = logging.getLogger("arbiter.cache")


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


class StateCache:
    """Tagged values in a :class:`StateStore`, behind a :class:`CircuitBreaker`."""

    def __init__(
        self,
        store: StateStore,
        secret: bytes,
        ttl: int,
        breaker: CircuitBreaker,
        min_events: int,
        observer: CacheObserver | None = None,
    ) -> None:
        self.store = store
        #: logs with fewer events are replayed without the cache
        self.min_events = min_events
        self._secret = secret
        self._ttl = ttl
        self._breaker = breaker
        self._observer = observer or _Silent()
        #: what the store raises when its backend fails (redis-py's errors: imported only now,
        #: when a cache is made)
        self._errors = store_errors()

    @property
    def backend(self) -> str:
        return self.store.name

    def keys_for(self, log: object) -> PrefixKeys | None:
        """The storage keys of ``log``'s prefixes, or None when the policy skips the cache for
        it (too few events) or it is not shaped like a log."""
        if events_in(log) < self.min_events:
            return None
        return prefix_keys(self._secret, log)

    def _tag(self, key: str, snapshot: bytes) -> bytes:
        named = len(key).to_bytes(2, "big") + key.encode()
        return hashlib.blake2b(
            named + snapshot, key=self._secret, digest_size=_TAG_BYTES, person=b"tute-tag"
        ).digest()

    def load_first(self, keys: Sequence[str]) -> tuple[int, bytes] | None:
        """In one round trip, the first of ``keys`` (longest prefix first) that holds a genuine
        value: its index and the snapshot (the caller counts it with :meth:`hit` or
        :meth:`reject` once it has read it). None on a miss or when the backend fails."""
        values = self._get(keys)
        if values is None:
            return None
        for index, (key, value) in enumerate(zip(keys, values, strict=True)):
            if value is None:
                continue
            tag, snapshot = value[:_TAG_BYTES], value[_TAG_BYTES:]
            if len(value) > _TAG_BYTES and hmac.compare_digest(tag, self._tag(key, snapshot)):
                return index, snapshot
            self.reject()
        self._observer.cache_event("miss")
        return None

    def hit(self) -> None:
        """Count a lookup whose value was what its key names, and was used."""
        self._observer.cache_event("hit")

    def miss(self) -> None:
        """Count a lookup whose value could not be used after all."""
        self._observer.cache_event("miss")

    def reject(self) -> None:
        """Count a value that is not what its key names (bad tag, or not a snapshot)."""
        self._observer.cache_event("rejected")

    def keep(self, snapshots: Mapping[str, bytes]) -> None:
        """Keep each snapshot under its key (one round trip; failures are only counted)."""
        if not snapshots or not self._breaker.allow():
            return
        items = {key: self._tag(key, snapshot) + snapshot for key, snapshot in snapshots.items()}
        try:
            self.store.put_many(items, self._ttl)
        except self._errors as err:
            self._failed(err)
        else:
            self._worked()

    def reachable(self) -> bool:
        """Whether the backend answers now (the breaker is bypassed: this is a probe)."""
        try:
            return self.store.ping()
        except self._errors:
            return False

    def _get(self, keys: Sequence[str]) -> list[bytes | None] | None:
        if not self._breaker.allow():
            return None
        started = time.perf_counter()
        try:
            values = self.store.get_many(keys)
        except self._errors as err:
            self._failed(err)
            return None
        finally:
            self._observer.cache_lookup(time.perf_counter() - started)
        self._worked()
        return values

    def _failed(self, err: BaseException) -> None:
        self._observer.cache_event("error")
        if self._breaker.failure():
            _log.warning(
                "state cache (%s) unreachable: %s; answering without it until it recovers",
                self.backend,
                type(err).__name__,
                extra={"cache_backend": self.backend, "error": str(err)[:200]},
            )

    def _worked(self) -> None:
        if self._breaker.success():
            _log.info(
                "state cache (%s) reachable again",
                self.backend,
                extra={"cache_backend": self.backend},
            )
