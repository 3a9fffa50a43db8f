"""API keys and security headers.

Keys are compared as SHA-256 digests with :func:`hmac.compare_digest` against every configured
key, so neither the keys' contents nor their number leak through timing. A key is sent as
``Authorization: Bearer <key>`` or ``X-API-Key: <key>``. Health endpoints and the contract stay
open; ``/metrics`` follows ``ARBITER_METRICS``. The request's frame checks them
(:class:`arbiter.api.frame.Gate`) only when keys are configured: a server without keys does no
work for them.

The headers of every answer are written by the request's frame (:mod:`arbiter.api.frame`) from
the :func:`policies` made here: the API's (:data:`API_HEADERS`), the referee's page's and the
Swagger UI's (their own Content-Security-Policy), chosen by the blueprint of the route.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, MutableMapping
from typing import Any

from arbiter.api.frame import KEY_ID, HeaderPolicy, Policies
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
#: Swagger UI (/docs/, :mod:`arbiter.api.docs`): scripts from files of this origin only (its
#: initialiser is a file too) and stylesheets too; nothing inline but the one <style> element
#: swagger-ui-bundle.js adds, by its hash (of flask-swagger-ui 5.34's bundle: a bundle that
#: adds another shows a CSP error in the browser test of /docs, tests/test_browser.py).
DOCS_CSP = (
    "default-src 'self'; script-src 'self'; "
    "style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='; "
    "img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'"
)
# The referee's page, its documents and static files (arbiter.web): this origin only, scripts
# and styles from files, and no string may become markup (Trusted Types with no policy), so a
# player's name can only ever be text.
_PAGE_CSP = (
    "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'"
)


def _policy(csp: str | None = None) -> HeaderPolicy:
    """:data:`API_HEADERS`, with the Content-Security-Policy ``csp`` forced when given."""
    if csp is None:
        return HeaderPolicy(tuple(API_HEADERS.items()))
    defaults = tuple((k, v) for k, v in API_HEADERS.items() if k != "Content-Security-Policy")
    return HeaderPolicy(defaults, forced=(("Content-Security-Policy", csp),))


def policies() -> Policies:
    """The headers of each blueprint's answers (the views of /docs and of the page set their
    own Cache-Control where theirs differs from ``no-store``)."""
    return Policies(_policy(), {"swagger_ui": _policy(DOCS_CSP), "web": _policy(_PAGE_CSP)})


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode()).digest()


def presented_key(environ: Mapping[str, str]) -> str | None:
    """The API key of the request, if it carries one."""
    auth = environ.get("HTTP_AUTHORIZATION", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return environ.get("HTTP_X_API_KEY") or None


def key_id(key: str) -> str:
    """A short, non-secret name for a key (rate-limit buckets, logs)."""
    return hashlib.sha256(b"arbiter-key-id" + key.encode()).hexdigest()[:12]


class KeyCheck:
    """The API keys of a server: :meth:`check` refuses (401) a request to a path that needs
    one without a valid key, and names the key it carries in the environ (``KEY_ID``)."""

    def __init__(self, settings: Settings) -> None:
        self._digests = [_digest(k) for k in settings.api_keys]
        self._protected_metrics = settings.metrics == "protected"

    def __bool__(self) -> bool:
        return bool(self._digests)

    def needs_key(self, path: str) -> bool:
        if path.startswith("/v1/"):
            return path not in _OPEN_V1
        return path == "/metrics" and self._protected_metrics

    def valid(self, key: str | None) -> bool:
        if key is None:
            return False
        candidate = _digest(key)
        found = False
        for digest in self._digests:  # no early exit: the time does not depend on which key
            found |= hmac.compare_digest(candidate, digest)
        return found

    def check(self, environ: MutableMapping[str, Any]) -> None:
        key = presented_key(environ)
        if not self.valid(key):
            raise Problem(
                401,
                "Unauthorized",
                "Send a valid API key as 'Authorization: Bearer <key>' or 'X-API-Key: <key>'.",
                headers={"WWW-Authenticate": 'Bearer realm="tute-arbiter"'},
            )
        environ[KEY_ID] = key_id(key) if key else None
