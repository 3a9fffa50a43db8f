"""The JSON endpoints of /v1 answered without Flask's request handling: the thin path.

The endpoints of the route table that take a JSON object and answer one
(:attr:`arbiter.api.routes.Endpoint.answers`: ``POST /v1/moves/validate``, which online tables
call on every move, ``/v1/replays``, ``/v1/scores``). Their work — the body read, the engine, the
token, the answer — is the table's own function; what this path leaves out is Flask's
per-request machinery around it (a request and an app context pushed and popped, the URL map
bound and matched, the hooks, the signals, a ``Response`` object turned into WSGI headers),
which cost a bare Flask request about 45 µs on the project's machine, more than the engine and
the token of a validation together (benchmarks/README.md, "The hot path").

The answer is the route's, byte for byte, headers included (tests/test_hot.py sends both the
same requests): the same problems for the same faults (:func:`arbiter.api.errors.problem_of`),
answered by the same werkzeug :class:`~werkzeug.wrappers.Response`
(:func:`arbiter.api.errors.problem_answer`). The path is taken only for a POST to one of those
exact paths; anything else goes through Flask. The request's frame
(:class:`arbiter.api.frame.Frame`) gives it its id, headers, metrics and access line, and checks
its API key and its rate limit, as it does for every other request.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, Final, cast

from flask import Flask
from werkzeug.routing import Rule

from arbiter.api import errors, routes
from arbiter.api.frame import REQUEST_ID
from arbiter.i18n import pick_lang
from arbiter.settings import Settings

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIEnvironment

_JSON: Final = "application/json"


class JsonRoute:
    """The thin path of one endpoint of the route table for one app."""

    def __init__(self, app: Flask, path: str, answer: Callable[[routes.Call], bytes]) -> None:
        self.extensions: Mapping[str, Any] = app.extensions
        settings: Settings = app.extensions["arbiter.settings"]
        self.max_errors = settings.max_errors
        self.rule: Rule = next(r for r in app.url_map.iter_rules() if r.rule == path)
        self.answer = answer

    def __call__(
        self, environ: MutableMapping[str, Any], start: Callable[..., Any]
    ) -> Iterable[bytes]:
        """The answer to the request ``environ``, as a WSGI app."""
        try:
            body = self.answer(routes.Call(environ, self.extensions))
        except Exception as err:
            rid: str = environ[REQUEST_ID]
            lang = pick_lang(environ.get("HTTP_ACCEPT_LANGUAGE"))
            problem = errors.problem_of(err, rid, lang)
            answer = errors.problem_answer(problem, rid, self.max_errors)
            return answer(cast("WSGIEnvironment", environ), start)
        start("200 OK", [("Content-Type", _JSON), ("Content-Length", str(len(body)))])
        return [body]


def install(app: Flask) -> dict[str, JsonRoute]:
    """The app's thin paths by path."""
    return {path: JsonRoute(app, path, answer) for path, answer in routes.json_answers().items()}
