"""Service configuration: one frozen object read from the environment.

Every field has an ``ARBITER_<NAME>`` variable, except the Redis addresses, which use the
conventional ``REDIS_URL`` and ``REDIS_CLUSTER_URL``. Nothing else in the package reads the
environment, so tests build a :class:`Settings` with the values they need and pass it to
:func:`arbiter.api.create_app`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, TypeVar

from limits import parse_many

from arbiter.engine.log import Limits
from arbiter.tokens import MIN_SECRET_BYTES

T = TypeVar("T", int, float)

CACHE_BACKENDS: Final = ("auto", "memory", "redis", "cluster", "off")
#: The environment variable through which the gunicorn master hands its drawn key to workers.
SERVER_STATE_KEY_VAR: Final = "ARBITER_SERVER_STATE_KEY"
#: Longest player names a server may allow: state tokens carry them (tokens.MAX_TOKEN_LENGTH).
MAX_NAME_LENGTH_LIMIT: Final = 128
#: The most errors one problem may list (ARBITER_MAX_ERRORS may lower it, not raise it).
MAX_ERRORS_CEILING: Final = 100


class SettingsError(ValueError):
    """A configuration the service cannot start with; the message says what to set."""


def _optional_int(env: Mapping[str, str], name: str) -> int | None:
    raw = env.get(name)
    return None if raw is None or raw == "" else _number(env, name, 0, int)


def _listed(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """The comma-separated values of ``name``, stripped, empty ones left out."""
    return tuple(k.strip() for k in env.get(name, "").split(",") if k.strip())


def _number(env: Mapping[str, str], name: str, default: T, kind: Callable[[str], T]) -> T:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        return kind(raw)
    except ValueError:
        what = "an integer" if kind is int else "a number"
        raise SettingsError(f"{name} must be {what}, not {raw!r}") from None


@dataclass(frozen=True, slots=True)
class Settings:
    """Limits, cache and service options."""

    #: largest request body accepted (413 beyond)
    max_body_bytes: int = 1024 * 1024
    #: most deals in one log (422 beyond)
    max_deals: int = 100
    #: longest player name (422 beyond)
    max_name_length: int = 64
    #: errors listed in one problem (the rest are counted); 1..MAX_ERRORS_CEILING
    max_errors: int = 50
    #: seconds a request body may take to arrive, from the end of its head (408 beyond); the
    #: time the server spends between reads (scoring a streamed batch) does not count
    body_timeout: float = 10.0
    #: most games (non-blank lines) in one POST /v1/scores/batch; the answer ends with an
    #: error line past them
    batch_max_lines: int = 10_000
    #: largest body of one POST /v1/scores/batch, decoded (gzip) or not
    batch_max_bytes: int = 64 * 1024 * 1024
    #: log level of the service's own logger
    log_level: str = "INFO"
    #: state cache: auto (cluster if REDIS_CLUSTER_URL, redis if REDIS_URL, else memory),
    #: memory, redis, cluster or off
    cache: str = "auto"
    redis_url: str | None = None
    redis_cluster_url: str | None = None
    #: seconds a cached replay state lives
    cache_ttl: int = 3600
    #: entries of the in-process cache
    cache_max_entries: int = 20_000
    #: socket and connect timeout of the Redis clients, in seconds
    cache_timeout: float = 0.1
    #: consecutive Redis failures that open the circuit breaker, and for how long (seconds)
    breaker_failures: int = 3
    breaker_cooldown: float = 5.0
    #: logs with fewer events are replayed without a cache lookup; None: the backend's
    #: measured default (see arbiter.cache.DEFAULT_MIN_EVENTS)
    cache_min_events: int | None = None
    #: the secret that seals state tokens and tags cached values (at least 32 bytes)
    state_key: str | None = None
    #: several secrets for key rotation (ARBITER_STATE_KEYS, comma-separated): the first seals,
    #: every one opens; instead of state_key
    state_keys: tuple[str, ...] = ()
    #: a secret the gunicorn master draws when none is configured, shared by its workers
    #: (ARBITER_SERVER_STATE_KEY; not meant to be set by hand)
    server_state_key: str | None = None
    #: API keys (ARBITER_API_KEYS, comma-separated); when any, /v1/ calls need one
    api_keys: tuple[str, ...] = ()
    #: GET /metrics: open, protected (needs an API key) or off
    metrics: str = "open"
    #: directory of prometheus-client's multiprocess mode (PROMETHEUS_MULTIPROC_DIR)
    metrics_dir: str | None = None
    #: rate limit per API key (or client address), e.g. "600/minute"; empty: none
    rate_limit: str = ""
    #: one JSON object per log line (else plain text)
    log_json: bool = True

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        d = cls()
        settings = cls(
            max_body_bytes=_number(env, "ARBITER_MAX_BODY_BYTES", d.max_body_bytes, int),
            max_deals=_number(env, "ARBITER_MAX_DEALS", d.max_deals, int),
            max_name_length=_number(env, "ARBITER_MAX_NAME_LENGTH", d.max_name_length, int),
            max_errors=_number(env, "ARBITER_MAX_ERRORS", d.max_errors, int),
            body_timeout=_number(env, "ARBITER_BODY_TIMEOUT", d.body_timeout, float),
            batch_max_lines=_number(env, "ARBITER_BATCH_MAX_LINES", d.batch_max_lines, int),
            batch_max_bytes=_number(env, "ARBITER_BATCH_MAX_BYTES", d.batch_max_bytes, int),
            log_level=env.get("ARBITER_LOG_LEVEL", d.log_level).upper(),
            cache=env.get("ARBITER_CACHE", d.cache).lower() or d.cache,
            redis_url=env.get("REDIS_URL") or None,
            redis_cluster_url=env.get("REDIS_CLUSTER_URL") or None,
            cache_ttl=_number(env, "ARBITER_CACHE_TTL", d.cache_ttl, int),
            cache_max_entries=_number(env, "ARBITER_CACHE_MAX_ENTRIES", d.cache_max_entries, int),
            cache_timeout=_number(env, "ARBITER_CACHE_TIMEOUT", d.cache_timeout, float),
            breaker_failures=_number(env, "ARBITER_BREAKER_FAILURES", d.breaker_failures, int),
            breaker_cooldown=_number(env, "ARBITER_BREAKER_COOLDOWN", d.breaker_cooldown, float),
            cache_min_events=_optional_int(env, "ARBITER_CACHE_MIN_EVENTS"),
            state_key=env.get("ARBITER_STATE_KEY") or None,
            state_keys=_listed(env, "ARBITER_STATE_KEYS"),
            server_state_key=env.get(SERVER_STATE_KEY_VAR) or None,
            api_keys=_listed(env, "ARBITER_API_KEYS"),
            metrics=env.get("ARBITER_METRICS", d.metrics).lower(),
            metrics_dir=env.get("PROMETHEUS_MULTIPROC_DIR") or None,
            rate_limit=env.get("ARBITER_RATE_LIMIT", d.rate_limit).strip(),
            log_json=env.get("ARBITER_LOG_JSON", "true").lower() not in ("0", "false", "no"),
        )
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
        if self.metrics not in ("open", "protected", "off"):
            raise SettingsError("ARBITER_METRICS must be open, protected or off")
        if self.metrics == "protected" and not self.api_keys:
            raise SettingsError("ARBITER_METRICS=protected needs ARBITER_API_KEYS")
        if self.rate_limit:
            try:
                parse_many(self.rate_limit)
            except ValueError:
                raise SettingsError(
                    f"ARBITER_RATE_LIMIT {self.rate_limit!r} is not a limit like '600/minute'"
                ) from None
        if self.max_body_bytes <= 0:
            raise SettingsError("ARBITER_MAX_BODY_BYTES must be > 0")
        if self.batch_max_lines <= 0 or self.batch_max_bytes <= 0:
            raise SettingsError("ARBITER_BATCH_MAX_LINES and ARBITER_BATCH_MAX_BYTES must be > 0")
        if not 1 <= self.max_errors <= MAX_ERRORS_CEILING:
            raise SettingsError(f"ARBITER_MAX_ERRORS must be from 1 to {MAX_ERRORS_CEILING}")
        if not self.body_timeout > 0:
            raise SettingsError("ARBITER_BODY_TIMEOUT must be a number of seconds > 0")
        if self.cache_ttl <= 0 or self.cache_max_entries <= 0:
            raise SettingsError("ARBITER_CACHE_TTL and ARBITER_CACHE_MAX_ENTRIES must be > 0")

    def _check_secrets(self) -> None:
        if self.state_key and self.state_keys:
            raise SettingsError("set ARBITER_STATE_KEYS or ARBITER_STATE_KEY, not both")
        named = [
            ("ARBITER_STATE_KEY", self.state_key),
            (SERVER_STATE_KEY_VAR, self.server_state_key),
        ]
        named += [(f"ARBITER_STATE_KEYS[{i}]", k) for i, k in enumerate(self.state_keys)]
        for name, secret in named:
            if secret is not None and len(secret.encode("utf-8")) < MIN_SECRET_BYTES:
                raise SettingsError(
                    f"{name} must be at least {MIN_SECRET_BYTES} bytes long (it has "
                    f"{len(secret.encode('utf-8'))}); make one with: python -c "
                    "'import secrets; print(secrets.token_urlsafe(48))'"
                )
