"""Rate limiting of /v1/ per API key (or per client address without keys), with flask-limiter.

Counters live in the state cache's Redis (or Redis Cluster) when one is configured, so every
worker and replica shares them; in memory otherwise. Over the limit: 429 problem+json with
``Retry-After``.
"""

from __future__ import annotations

from flask import Flask, request
from flask_limiter import Limiter

from arbiter.api.frame import KEY_ID
from arbiter.settings import Settings


def _bucket() -> str:
    environ = request.environ
    key_id = environ.get(KEY_ID)
    return f"key:{key_id}" if key_id else f"addr:{environ.get('REMOTE_ADDR') or 'unknown'}"


def _storage_uri(settings: Settings) -> str:
    backend = settings.cache_backend
    if backend == "redis" and settings.redis_url:
        return settings.redis_url
    if backend == "cluster" and settings.redis_cluster_url:
        return "redis+cluster://" + settings.redis_cluster_url.split("://", 1)[-1]
    return "memory://"


def install(app: Flask, settings: Settings) -> Limiter | None:
    """A limiter on the /v1/ endpoints, or None when no limit is set."""
    if not settings.rate_limit:
        return None
    return Limiter(
        key_func=_bucket,
        app=app,
        storage_uri=_storage_uri(settings),
        # One bucket for all of /v1/ (default_limits would keep one per endpoint).
        application_limits=[settings.rate_limit],
        application_limits_exempt_when=_not_limited,
        headers_enabled=True,
        swallow_errors=True,  # a failing limiter store must not fail the requests
        strategy="moving-window",
    )


def _not_limited() -> bool:
    """Only the adjudication endpoints count (not health, metrics, docs or the contract)."""
    path = request.path
    return not path.startswith("/v1/") or path == "/v1/openapi.yaml"
