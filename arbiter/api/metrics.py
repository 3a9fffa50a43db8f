"""Prometheus metrics of the service: requests, latency, verdicts.

One :class:`Metrics` per app, on its own registry (no process-global state), exported in the
Prometheus text format on ``GET /metrics``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

#: Label sets whose metric children are kept (the labels come from closed sets: the methods
#: and rules of the app, the statuses; the bound is a second guard).
_MAX_CHILDREN = 512
_LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
#: The ``method`` label of a method no route knows, and the ``endpoint`` label of a request
#: that matched no route; ``unparsed``: one gunicorn refused before the app.
OTHER_METHOD = "other"
UNMATCHED = "unmatched"
UNPARSED = "unparsed"
#: The methods labelled as themselves until the app names its own (:meth:`Metrics.know`).
_METHODS = frozenset({"GET", "HEAD", "POST", "OPTIONS"})


class Metrics:
    """The service's metrics. With ``multiprocess_dir`` (gunicorn workers; prometheus-client
    reads PROMETHEUS_MULTIPROC_DIR itself when it is imported) every worker writes its values
    there and an export adds up all workers."""

    def __init__(self, multiprocess_dir: str | None = None) -> None:
        self.multiprocess_dir = multiprocess_dir
        self.methods = _METHODS
        self._request_children: dict[tuple[str, str, int], _RequestValues] = {}
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "arbiter_requests_total",
            "HTTP requests answered.",
            ("method", "endpoint", "status"),
            registry=self.registry,
        )
        self.latency = Histogram(
            "arbiter_request_duration_seconds",
            "Time to answer a request.",
            ("method", "endpoint"),
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.renuncios = Counter(
            "arbiter_renuncios_total",
            "Renuncios found in replayed logs or proposed moves, by obligation.",
            ("obligation",),
            registry=self.registry,
        )
        self.cache_events = Counter(
            "arbiter_cache_events_total",
            "State cache lookups and faults: hit, miss, error, rejected.",
            ("kind",),
            registry=self.registry,
        )
        self.cache_latency = Histogram(
            "arbiter_cache_lookup_seconds",
            "Time of one round trip to the state cache.",
            buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 0.25),
            registry=self.registry,
        )
        self.tokens_rejected = Counter(
            "arbiter_state_tokens_rejected_total",
            "state_id tokens that did not open (altered, garbage, or sealed with another key).",
            registry=self.registry,
        )
        self.illegal = Counter(
            "arbiter_illegal_events_total",
            "Illegal events found in logs or proposed moves, by code.",
            ("code",),
            registry=self.registry,
        )

    def cache_event(self, kind: str) -> None:
        """A cache hit, miss, error or rejected entry (see :mod:`arbiter.cache.states`)."""
        self.cache_events.labels(kind).inc()

    def cache_lookup(self, seconds: float) -> None:
        self.cache_latency.observe(seconds)

    def count_adjudication(self, body: dict[str, Any]) -> None:
        """The renuncios and the illegal event an adjudication reports (read from its body, the
        one of /v1/replays or /v1/scores: no deal is unpacked only to be counted)."""
        for deal in body["deals"]:
            for violation in deal["violations"]:
                self.renuncios.labels(violation["obligation"]).inc()
        if body["illegal"] is not None:
            self.illegal.labels(body["illegal"]["code"]).inc()

    def know(self, methods: Iterable[str]) -> None:
        """The methods the app's routes answer: the only ones labelled as themselves (any
        other is :data:`OTHER_METHOD`, so that a client cannot add label sets at will)."""
        self.methods = frozenset(methods)

    def observe_request(self, method: str, endpoint: str, status: int, seconds: float) -> None:
        """One answer: ``endpoint`` is a rule of the app, :data:`UNMATCHED` or
        :data:`UNPARSED` (never a path the client chose)."""
        if method not in self.methods:
            method = OTHER_METHOD
        key = (method, endpoint, status)
        values = self._request_children.get(key)
        if values is None:  # labels() checks and locks every time: keep the children's values
            values = _RequestValues(
                self.requests.labels(method, endpoint, str(status)),
                self.latency.labels(method, endpoint),
            )
            if len(self._request_children) < _MAX_CHILDREN:
                self._request_children[key] = values
        values.observe(seconds)

    def export(self) -> bytes:
        if self.multiprocess_dir is None:
            return generate_latest(self.registry)
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=self.multiprocess_dir)  # type: ignore[no-untyped-call]
        return generate_latest(registry)


class _RequestValues:
    """The values one answer adds to, taken from prometheus-client's children once: the count,
    the latency's sum and its bucket. ``Counter.inc`` and ``Histogram.observe`` check their
    arguments and walk the buckets on every call; with these values an answer costs three
    additions (in multiprocess mode, three writes to the worker's files), what the export
    reads being unchanged."""

    __slots__ = ("_bounds", "_buckets", "_count", "_sum")

    def __init__(self, counter: Any, histogram: Any) -> None:
        self._count = counter._value
        self._sum = histogram._sum
        self._buckets = tuple(histogram._buckets)
        self._bounds = tuple(histogram._upper_bounds)  # the last one is +Inf

    def observe(self, seconds: float) -> None:
        self._count.inc(1)
        self._sum.inc(seconds)
        self._buckets[bisect_left(self._bounds, seconds)].inc(1)
