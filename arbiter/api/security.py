"""API keys and security headers.

Keys are compared as SHA-256 digests with :func:`hmac.compare_digest` against every configured
key, so neither the keys' contents nor their number leak through timing. A key is sent as
``Authorization: Bearer <key>`` or ``X-API-Key: <key>``. Health endpoints and the contract stay
open; ``/metrics`` follows ``ARBITER_METRICS``.
"""

from __future__ import annotations

import hashlib
import hmac

from flask import Flask, Response, g, request

from arbiter.contract import Problem
from arbiter.settings import Settings

#: Paths under /v1/ that stay open: the contract (the /docs page reads it).
_OPEN_V1 = frozenset({"/v1/openapi.yaml"})

#: Headers of every answer (also those the worker writes before the app, arbiter.worker).
API_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    "Cache-Control": "no-store",
}
# Swagger UI (/docs/) runs an inline initialiser and inline styles, from this origin only.
_DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; frame-ancestors 'none'"
)
# The referee's page, its documents and static files (arbiter.web): this origin only, scripts
# and styles from files, and no string may become markup (Trusted Types with no policy), so a
# player's name can only ever be text.
_PAGE_CSP = (
    "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'"
)
#: Blueprint → (Content-Security-Policy, Cache-Control or None to keep the view's own).
_PAGE_POLICIES = {
    "swagger_ui": (_DOCS_CSP, "public, max-age=3600"),
    "web": (_PAGE_CSP, None),
}


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


def presented_key() -> str | None:
    """The API key of the request, if it carries one."""
    auth = request.headers.get("Authorization", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.headers.get("X-API-Key") or None


def key_id(key: str) -> str:
    """A short, non-secret name for a key (rate-limit buckets, logs)."""
    return hashlib.sha256(b"arbiter-key-id" + key.encode()).hexdigest()[:12]


def install(app: Flask, settings: Settings) -> None:
    """Require API keys where configured, and add the security headers to every answer."""
    digests = [_digest(k) for k in settings.api_keys]

    def valid(key: str | None) -> bool:
        if key is None:
            return False
        candidate = _digest(key)
        found = False
        for digest in digests:  # no early exit: the time does not depend on which key matched
            found |= hmac.compare_digest(candidate, digest)
        return found

    def needs_key(path: str) -> bool:
        if path.startswith("/v1/"):
            return path not in _OPEN_V1
        return path == "/metrics" and settings.metrics == "protected"

    @app.before_request
    def _authenticate() -> None:
        if settings.metrics == "off" and request.path == "/metrics":
            raise Problem(404, "Not Found", "Metrics are turned off on this server.")
        if not digests or not needs_key(request.path):
            return
        key = presented_key()
        if not valid(key):
            raise Problem(
                401,
                "Unauthorized",
                "Send a valid API key as 'Authorization: Bearer <key>' or 'X-API-Key: <key>'.",
                headers={"WWW-Authenticate": 'Bearer realm="tute-arbiter"'},
            )
        g.api_key_id = key_id(key) if key else None

    @app.after_request
    def _headers(response: Response) -> Response:
        headers = response.headers
        present = {name.lower() for name, _ in headers.items()}
        for name, value in API_HEADERS.items():
            if name.lower() not in present:  # an answer's own value wins (static files)
                headers.add(name, value)
        policy = _PAGE_POLICIES.get(request.blueprint or "")
        if policy is not None:
            csp, cache = policy
            headers["Content-Security-Policy"] = csp
            if cache is not None:
                headers["Cache-Control"] = cache
        return response
