"""Service configuration: one frozen object read from the environment.

Every field of :class:`Settings` names its environment variable once, in its declaration
(:func:`_var`): ``ARBITER_<NAME>``, except the Redis addresses and the metrics directory, which
use the conventional ``REDIS_URL``, ``REDIS_CLUSTER_URL`` and ``PROMETHEUS_MULTIPROC_DIR``.
:meth:`Settings.from_env` reads exactly those variables and :data:`VARIABLES` lists them (the
README's configuration table is checked against it). Nothing else in the package reads the
service's environment: the HTTP app, the gunicorn configuration (``deploy/gunicorn.conf.py``)
and tests all build a :class:`Settings`.

This module imports nothing heavy (the gunicorn master reads it before its workers patch the
standard library with gevent): what only a check needs is imported inside the check.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from arbiter.contract import DEFAULT_MAX_ERRORS, MAX_ERRORS_CEILING, MAX_NAME_LENGTH_LIMIT
from arbiter.engine.log import DEFAULT_LIMITS, Limits

CACHE_BACKENDS: Final = ("auto", "memory", "redis", "cluster", "off")
METRICS_MODES: Final = ("open", "protected", "off")
#: The environment variable through which the gunicorn master hands its drawn key to workers.
SERVER_STATE_KEY_VAR: Final = "ARBITER_SERVER_STATE_KEY"
#: The file in which the gunicorn master's workers share their rate-limit counters.
SERVER_LIMITS_VAR: Final = "ARBITER_SERVER_LIMITS"
#: Variables the service sets for itself and nobody should set by hand.
INTERNAL_VARIABLES: Final = (SERVER_STATE_KEY_VAR, SERVER_LIMITS_VAR, "ARBITER_OWN_METRICS_DIR")

_FALSE: Final = ("0", "false", "no", "off")


class SettingsError(ValueError):
    """A configuration the service cannot start with; the message says what to set."""


# --- how a variable's text becomes a value ------------------------------------------------


def _integer(text: str) -> int:
    return int(text)


def _number(text: str) -> float:
    return float(text)


def _text(text: str) -> str:
    return text.strip()


def _lower(text: str) -> str:
    return text.strip().lower()


def _upper(text: str) -> str:
    return text.strip().upper()


def _flag(text: str) -> bool:
    return text.strip().lower() not in _FALSE


def _listed(text: str) -> tuple[str, ...]:
    """Comma-separated values, stripped, empty ones left out."""
    return tuple(k.strip() for k in text.split(",") if k.strip())


_WHAT: Final[dict[Callable[[str], Any], str]] = {_integer: "an integer", _number: "a number"}


def _var(env: str, default: Any, parse: Callable[[str], Any]) -> Any:
    """A settings field read from ``env`` with ``parse`` (an unset or empty variable keeps
    ``default``)."""
    return dataclasses.field(default=default, metadata={"env": env, "parse": parse})


@dataclass(frozen=True, slots=True)
class Settings:
    """Limits, cache, service and HTTP-server options (each with its variable)."""

    # --- requests ---
    #: largest request body accepted (413 beyond)
    max_body_bytes: int = _var("ARBITER_MAX_BODY_BYTES", 1024 * 1024, _integer)
    #: most deals in one log (422 beyond)
    max_deals: int = _var("ARBITER_MAX_DEALS", DEFAULT_LIMITS.max_deals, _integer)
    #: longest player name (422 beyond)
    max_name_length: int = _var("ARBITER_MAX_NAME_LENGTH", DEFAULT_LIMITS.max_name_length, _integer)
    #: errors listed in one problem (the rest are counted); 1..MAX_ERRORS_CEILING
    max_errors: int = _var("ARBITER_MAX_ERRORS", DEFAULT_MAX_ERRORS, _integer)
    #: seconds a request body may take to arrive, from the end of its head (408 beyond); the
    #: time the server spends between reads (scoring a streamed batch) does not count
    body_timeout: float = _var("ARBITER_BODY_TIMEOUT", 10.0, _number)
    #: most lines in one POST /v1/scores/batch, blank ones too; the answer ends with an error
    #: line past them
    batch_max_lines: int = _var("ARBITER_BATCH_MAX_LINES", 10_000, _integer)
    #: largest body of one POST /v1/scores/batch, decoded (gzip) or not
    batch_max_bytes: int = _var("ARBITER_BATCH_MAX_BYTES", 64 * 1024 * 1024, _integer)
    #: batches one worker scores at once; one more is a 429 problem (Retry-After)
    batch_concurrency: int = _var("ARBITER_BATCH_CONCURRENCY", 2, _integer)
    #: batches one client (API key, or address) scores at once on one worker; one more is a 429
    batch_per_client: int = _var("ARBITER_BATCH_PER_CLIENT", 1, _integer)
    #: bytes per second a batch's body must arrive at, counted over the time the server waits
    #: for it past its first 2 s of waiting (408 stop line below it); 0: no minimum
    batch_min_rate: int = _var("ARBITER_BATCH_MIN_RATE", 4096, _integer)
    #: seconds a batch may take in all, its body and its answer: past them a 408 stop line
    #: while the body is read, a reset while the answer is sent
    batch_seconds: float = _var("ARBITER_BATCH_SECONDS", 300.0, _number)
    #: how many times a gzip-coded batch may expand (past its first 16 KiB decoded): more is a
    #: 413 (real archives expand 5-15 times); 0: no bound but ARBITER_BATCH_MAX_BYTES
    batch_max_ratio: float = _var("ARBITER_BATCH_MAX_RATIO", 50.0, _number)
    #: CPU milliseconds a batch may spend a KiB its client sent (and 500 ms whatever it sent):
    #: past them the answer ends with a 413 stop line; 0: no bound
    batch_cpu_ms_per_kib: float = _var("ARBITER_BATCH_CPU_MS_PER_KIB", 50.0, _number)
    #: answer bytes a batch keeps for a client that sends its whole body before it reads
    batch_buffer_bytes: int = _var("ARBITER_BATCH_BUFFER_BYTES", 16 * 1024 * 1024, _integer)
    #: seconds a batch's answer waits for the client to take its next bytes, once they are
    #: past the buffer or the body is read; past them the connection is reset
    send_timeout: float = _var("ARBITER_SEND_TIMEOUT", 10.0, _number)
    #: the send buffer (SO_SNDBUF) of each client connection, in bytes (the system doubles
    #: it); it bounds the memory an answer nobody reads holds until ARBITER_SEND_TIMEOUT resets
    #: it. 0: the system's own, which grows to megabytes
    send_buffer_bytes: int = _var("ARBITER_SEND_BUFFER_BYTES", 128 * 1024, _integer)
    # --- logs and metrics ---
    #: log level of the service's own logger (and of gunicorn's)
    log_level: str = _var("ARBITER_LOG_LEVEL", "INFO", _upper)
    #: one JSON object per log line, gunicorn's own lines too (else plain text)
    log_json: bool = _var("ARBITER_LOG_JSON", True, _flag)
    #: where gunicorn also writes its own access log ("-": standard output); the app's access
    #: lines are always written to the service log
    access_log: str | None = _var("ARBITER_ACCESS_LOG", None, _text)
    #: GET /metrics: open, protected (needs an API key) or off
    metrics: str = _var("ARBITER_METRICS", "open", _lower)
    #: directory of prometheus-client's multiprocess mode
    metrics_dir: str | None = _var("PROMETHEUS_MULTIPROC_DIR", None, _text)
    # --- access ---
    #: API keys (comma-separated); when any, /v1/ calls need one
    api_keys: tuple[str, ...] = _var("ARBITER_API_KEYS", (), _listed)
    #: rate limit per API key (or client address), e.g. "600/minute"; empty: none
    rate_limit: str = _var("ARBITER_RATE_LIMIT", "", _text)
    #: the SQLite file where the workers of one gunicorn master share the rate limit's counters
    #: without Redis (the master makes it; not meant to be set by hand)
    server_limits: str | None = _var(SERVER_LIMITS_VAR, None, _text)
    # --- state tokens and the cache ---
    #: the secret that seals state tokens and tags cached values (at least 32 bytes)
    state_key: str | None = _var("ARBITER_STATE_KEY", None, _text)
    #: several secrets for key rotation (comma-separated): the first seals, every one opens;
    #: instead of state_key
    state_keys: tuple[str, ...] = _var("ARBITER_STATE_KEYS", (), _listed)
    #: a secret the gunicorn master draws when none is configured, shared by its workers
    #: (not meant to be set by hand)
    server_state_key: str | None = _var(SERVER_STATE_KEY_VAR, None, _text)
    #: state cache: auto (cluster if REDIS_CLUSTER_URL, redis if REDIS_URL, else memory),
    #: memory, redis, cluster or off
    cache: str = _var("ARBITER_CACHE", "auto", _lower)
    redis_url: str | None = _var("REDIS_URL", None, _text)
    redis_cluster_url: str | None = _var("REDIS_CLUSTER_URL", None, _text)
    #: seconds a cached replay state lives
    cache_ttl: int = _var("ARBITER_CACHE_TTL", 3600, _integer)
    #: entries of the in-process cache
    cache_max_entries: int = _var("ARBITER_CACHE_MAX_ENTRIES", 20_000, _integer)
    #: socket and connect timeout of the Redis clients, in seconds
    cache_timeout: float = _var("ARBITER_CACHE_TIMEOUT", 0.1, _number)
    #: consecutive Redis failures that open the circuit breaker, and for how long (seconds)
    breaker_failures: int = _var("ARBITER_BREAKER_FAILURES", 3, _integer)
    breaker_cooldown: float = _var("ARBITER_BREAKER_COOLDOWN", 5.0, _number)
    #: logs with fewer events are replayed without a cache lookup; None: the backend's
    #: measured default (see arbiter.cache.DEFAULT_MIN_EVENTS)
    cache_min_events: int | None = _var("ARBITER_CACHE_MIN_EVENTS", None, _integer)
    # --- the HTTP server (gunicorn, deploy/gunicorn.conf.py) ---
    #: address the server listens on
    bind: str = _var("ARBITER_BIND", "127.0.0.1:8000", _text)
    #: worker processes; None: one per CPU this process may use
    workers: int | None = _var("ARBITER_WORKERS", None, _integer)
    #: gunicorn's worker class: arbiter.worker.Worker (gevent, with deadlines) or gthread
    worker_class: str = _var("ARBITER_WORKER_CLASS", "arbiter.worker.Worker", _text)
    #: threads per worker (gthread only); None: 4 for gthread, else 1
    threads: int | None = _var("ARBITER_THREADS", None, _integer)
    #: connections one worker holds at once
    worker_connections: int = _var("ARBITER_WORKER_CONNECTIONS", 1000, _integer)
    #: seconds a worker may stay silent before the master restarts it
    timeout: int = _var("ARBITER_TIMEOUT", 30, _integer)
    #: seconds a worker has to finish its requests after SIGTERM
    graceful_timeout: int = _var("ARBITER_GRACEFUL_TIMEOUT", 20, _integer)
    #: seconds a connection has to send each request head (and stays idle between requests)
    keepalive: int = _var("ARBITER_KEEPALIVE", 5, _integer)
    #: peers (addresses or networks, comma-separated) whose X-Forwarded-* and SCRIPT_NAME
    #: headers gunicorn trusts: a proxy in front; empty: nobody's
    forwarded_allow_ips: str = _var("ARBITER_FORWARDED_ALLOW_IPS", "", _text)
    #: requests after which a worker is replaced (plus a random jitter up to the second)
    max_requests: int = _var("ARBITER_MAX_REQUESTS", 200_000, _integer)
    max_requests_jitter: int = _var("ARBITER_MAX_REQUESTS_JITTER", 20_000, _integer)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """The settings of the environment (``os.environ`` by default), checked."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            raw = env.get(f.metadata["env"])
            if raw is None or raw.strip() == "":
                continue
            values[f.name] = _parsed(f.metadata["env"], f.metadata["parse"], raw)
        settings = cls(**values)
        settings.check()
        return settings

    @property
    def secrets(self) -> tuple[str, ...]:
        """The state secrets in force, the sealing one first (empty: draw one per process)."""
        if self.state_keys:
            return self.state_keys
        if self.state_key:
            return (self.state_key,)
        return (self.server_state_key,) if self.server_state_key else ()

    @property
    def limits(self) -> Limits:
        """The limits the log parser applies."""
        return Limits(max_deals=self.max_deals, max_name_length=self.max_name_length)

    @property
    def cache_backend(self) -> str:
        """The backend in use: memory, redis, cluster or off."""
        if self.cache != "auto":
            return self.cache
        if self.redis_cluster_url:
            return "cluster"
        if self.redis_url:
            return "redis"
        return "memory"

    def server_workers(self) -> int:
        """Worker processes: as configured, else one per CPU granted to this process."""
        if self.workers is not None:
            return self.workers
        return len(os.sched_getaffinity(0))

    def server_threads(self) -> int:
        """Threads per worker; gunicorn turns a sync worker with threads > 1 into gthread."""
        if self.threads is not None:
            return self.threads
        return 4 if self.worker_class == "gthread" else 1

    def check(self) -> None:
        """Refuse configurations the service cannot run with, saying what to set."""
        if self.cache not in CACHE_BACKENDS:
            raise SettingsError(f"ARBITER_CACHE must be one of {', '.join(CACHE_BACKENDS)}")
        backend = self.cache_backend
        if backend == "redis" and not self.redis_url:
            raise SettingsError("ARBITER_CACHE=redis needs REDIS_URL")
        if backend == "cluster" and not self.redis_cluster_url:
            raise SettingsError("ARBITER_CACHE=cluster needs REDIS_CLUSTER_URL")
        self._check_secrets()
        if backend in ("redis", "cluster") and not (self.state_key or self.state_keys):
            raise SettingsError(
                "a shared state cache needs ARBITER_STATE_KEY (the same secret on every "
                "worker and replica), so that cached values can be trusted"
            )
        if not 1 <= self.max_name_length <= MAX_NAME_LENGTH_LIMIT:
            raise SettingsError(
                f"ARBITER_MAX_NAME_LENGTH must be from 1 to {MAX_NAME_LENGTH_LIMIT} "
                "(state tokens carry the names)"
            )
        if self.metrics not in METRICS_MODES:
            raise SettingsError(f"ARBITER_METRICS must be one of {', '.join(METRICS_MODES)}")
        if self.metrics == "protected" and not self.api_keys:
            raise SettingsError("ARBITER_METRICS=protected needs ARBITER_API_KEYS")
        self._check_rate_limit()
        self._check_forwarded()
        self._check_positive()

    def _check_positive(self) -> None:
        if self.max_body_bytes <= 0:
            raise SettingsError("ARBITER_MAX_BODY_BYTES must be > 0")
        if self.batch_max_lines <= 0 or self.batch_max_bytes <= 0:
            raise SettingsError("ARBITER_BATCH_MAX_LINES and ARBITER_BATCH_MAX_BYTES must be > 0")
        if self.batch_concurrency < 1 or self.batch_buffer_bytes < 0:
            raise SettingsError(
                "ARBITER_BATCH_CONCURRENCY must be 1 or more, ARBITER_BATCH_BUFFER_BYTES >= 0"
            )
        if self.batch_max_ratio < 0 or self.batch_cpu_ms_per_kib < 0:
            raise SettingsError(
                "ARBITER_BATCH_MAX_RATIO and ARBITER_BATCH_CPU_MS_PER_KIB must be >= 0"
            )
        if self.batch_per_client < 1 or self.batch_min_rate < 0 or not self.batch_seconds > 0:
            raise SettingsError(
                "ARBITER_BATCH_PER_CLIENT must be 1 or more, ARBITER_BATCH_MIN_RATE >= 0 and "
                "ARBITER_BATCH_SECONDS > 0"
            )
        if not self.send_timeout > 0:
            raise SettingsError("ARBITER_SEND_TIMEOUT must be a number of seconds > 0")
        if self.send_buffer_bytes < 0:
            raise SettingsError("ARBITER_SEND_BUFFER_BYTES must be >= 0")
        if not 1 <= self.max_errors <= MAX_ERRORS_CEILING:
            raise SettingsError(f"ARBITER_MAX_ERRORS must be from 1 to {MAX_ERRORS_CEILING}")
        if not self.body_timeout > 0:
            raise SettingsError("ARBITER_BODY_TIMEOUT must be a number of seconds > 0")
        if self.cache_ttl <= 0 or self.cache_max_entries <= 0:
            raise SettingsError("ARBITER_CACHE_TTL and ARBITER_CACHE_MAX_ENTRIES must be > 0")
        if self.workers is not None and self.workers < 1:
            raise SettingsError("ARBITER_WORKERS must be 1 or more")
        if self.threads is not None and self.threads < 1:
            raise SettingsError("ARBITER_THREADS must be 1 or more")
        if self.worker_connections < 1 or self.timeout < 1 or self.graceful_timeout < 1:
            raise SettingsError(
                "ARBITER_WORKER_CONNECTIONS, ARBITER_TIMEOUT and ARBITER_GRACEFUL_TIMEOUT "
                "must be 1 or more"
            )
        if self.max_requests < 0 or self.max_requests_jitter < 0:
            raise SettingsError("ARBITER_MAX_REQUESTS and ARBITER_MAX_REQUESTS_JITTER must be >= 0")

    def _check_rate_limit(self) -> None:
        if not self.rate_limit:
            return
        from limits import parse_many

        try:
            parse_many(self.rate_limit)
        except ValueError:
            raise SettingsError(
                f"ARBITER_RATE_LIMIT {self.rate_limit!r} is not a limit like '600/minute'"
            ) from None

    def _check_forwarded(self) -> None:
        import ipaddress

        for name in _listed(self.forwarded_allow_ips):
            try:
                if name != "*":
                    ipaddress.ip_network(name, strict=False)
            except ValueError:
                raise SettingsError(
                    f"ARBITER_FORWARDED_ALLOW_IPS: {name!r} is not an address or a network"
                ) from None

    def _check_secrets(self) -> None:
        if self.state_key and self.state_keys:
            raise SettingsError("set ARBITER_STATE_KEYS or ARBITER_STATE_KEY, not both")
        named = [
            ("ARBITER_STATE_KEY", self.state_key),
            (SERVER_STATE_KEY_VAR, self.server_state_key),
        ]
        named += [(f"ARBITER_STATE_KEYS[{i}]", k) for i, k in enumerate(self.state_keys)]
        if all(secret is None for _, secret in named):
            return  # nothing to check: no import of tokens (cryptography, 7 MB) for nothing
        from arbiter.tokens import MIN_SECRET_BYTES

        for name, secret in named:
            if secret is not None and len(secret.encode("utf-8")) < MIN_SECRET_BYTES:
                raise SettingsError(
                    f"{name} must be at least {MIN_SECRET_BYTES} bytes long (it has "
                    f"{len(secret.encode('utf-8'))}); make one with: python -c "
                    "'import secrets; print(secrets.token_urlsafe(48))'"
                )


def _parsed(name: str, parse: Callable[[str], Any], raw: str) -> Any:
    try:
        return parse(raw)
    except ValueError:
        raise SettingsError(f"{name} must be {_WHAT.get(parse, 'valid')}, not {raw!r}") from None


#: Every variable :meth:`Settings.from_env` reads, in the order of the fields.
VARIABLES: Final[tuple[str, ...]] = tuple(f.metadata["env"] for f in dataclasses.fields(Settings))
