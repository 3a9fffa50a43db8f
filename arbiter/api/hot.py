"""The JSON endpoints of /v1 answered without Flask's request handling: the hot path.

``POST /v1/moves/validate`` (online tables call it on every move), ``POST /v1/replays`` and
``POST /v1/scores``. Their work — the body read, the engine, the token, the answer — is the
routes' own functions (:data:`arbiter.api.routes.JSON_ANSWERS`); what this path leaves out is
Flask's per-request machinery around them (a request and an app context pushed and popped, the
URL map bound and matched, the hooks, the signals, a ``Response`` object turned into WSGI
headers), which cost a bare Flask request about 45 µs on the project's machine, more than the
engine and the token of a validation together (benchmarks/README.md, "The hot path").

The answer is the route's, byte for byte, headers included (tests/test_hot.py sends both the
same requests): the same problems for the same faults (:func:`arbiter.api.errors.problem_of`),
the API keys checked by the same :class:`~arbiter.api.security.KeyCheck`. The path is taken only
for a POST to one of those exact paths and only when no rate limit is set (flask-limiter works
inside Flask's handling); anything else goes through Flask. The request's frame
(:class:`arbiter.api.frame.Frame`) gives it its id, headers, metrics and access line as it does
every other request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from typing import Any, Final

from flask import Flask
from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.routing import Rule

from arbiter.api import errors, routes
from arbiter.api.security import KeyCheck
from arbiter.contract import PROBLEM_JSON
from arbiter.settings import Settings

_JSON: Final = "application/json"

Headers = list[tuple[str, str]]


def _status_line(status: int) -> str:
    """As werkzeug writes it (its reason phrases in capitals)."""
    return f"{status} {HTTP_STATUS_CODES.get(status, 'UNKNOWN').upper()}"


class JsonRoute:
    """The hot path of one route of :data:`~arbiter.api.routes.JSON_ANSWERS` for one app."""

    def __init__(
        self, app: Flask, keys: KeyCheck, path: str, answer: Callable[[routes.Call], bytes]
    ) -> None:
        self.extensions: Mapping[str, Any] = app.extensions
        settings: Settings = app.extensions["arbiter.settings"]
        self.max_errors = settings.max_errors
        self.keys = keys if keys and keys.needs_key(path) else None
        self.rule: Rule = next(r for r in app.url_map.iter_rules() if r.rule == path)
        self.answer = answer

    def __call__(self, environ: MutableMapping[str, Any], rid: str) -> tuple[str, Headers, bytes]:
        """The status line, headers and body of the answer to the request ``environ``."""
        try:
            if self.keys is not None:
                self.keys.check(environ)
            body = self.answer(routes.Call(environ, self.extensions))
        except Exception as err:
            problem = errors.problem_of(err, rid)
            document = errors.problem_body(problem, rid, self.max_errors)
            headers = [("Content-Type", PROBLEM_JSON), ("Content-Length", str(len(document)))]
            for name, value in problem.headers.items():  # as werkzeug's Headers.set does
                found = [i for i, (k, _) in enumerate(headers) if k.lower() == name.lower()]
                if found:
                    headers[found[0]] = (name, value)
                else:
                    headers.append((name, value))
            return _status_line(problem.status), headers, document
        return "200 OK", [("Content-Type", _JSON), ("Content-Length", str(len(body)))], body


def install(app: Flask, keys: KeyCheck) -> dict[str, JsonRoute]:
    """The app's hot paths by path (none when a rate limit is set)."""
    settings: Settings = app.extensions["arbiter.settings"]
    if settings.rate_limit:
        return {}
    return {
        path: JsonRoute(app, keys, path, answer) for path, answer in routes.JSON_ANSWERS.items()
    }
