"""The frame of every request: its id, its clock, the API's headers, its metrics and its access
line, in one WSGI layer around Flask's own handling (``app.wsgi_app``).

Flask routes, reads and answers; :class:`Frame` does, once per request and reading only the
WSGI environ (no context-local lookups), what every answer needs:

- **Request id**: the client's ``X-Request-ID`` when it is 1-128 printable ASCII characters,
  else a new one (:func:`arbiter.contract.new_request_id`), in ``environ[REQUEST_ID]`` for the
  problems (:func:`request_id`) and echoed in the answer.
- **Headers**: the answer's security headers, chosen by the blueprint of the rule it matched
  (:class:`HeaderPolicy`, from :mod:`arbiter.api.security`), added to the WSGI header list in
  one step when the answer starts — not one by one through werkzeug's ``Headers``.
- **Metrics and the access line**: ``arbiter_requests_total`` and the latency histogram,
  labelled from closed sets (the app's methods or ``other``; the rule matched or
  ``unmatched``), and one access line (:class:`arbiter.api.logs.AccessLog`).

The rule a request matched reaches the frame through :class:`ApiRequest`, Flask's request
class for the app, which leaves it in ``environ[RULE]`` when Flask matches it. A request the app
answers without Flask's handling (a :class:`HotPath`: ``POST /v1/moves/validate``,
:mod:`arbiter.api.hot`) gets the same frame.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from flask import Request, request
from werkzeug.routing import Rule

from arbiter.api.logs import AccessLog
from arbiter.api.metrics import UNMATCHED, Metrics
from arbiter.contract import new_request_id

#: What the frame and the views leave in the environ.
REQUEST_ID: Final = "arbiter.request_id"
RULE: Final = "arbiter.rule"
RULESET: Final = "arbiter.ruleset"
KEY_ID: Final = "arbiter.key_id"
#: The longest X-Request-ID echoed.
MAX_REQUEST_ID: Final = 128

WsgiApp = Callable[[Any, Any], Iterable[bytes]]
Headers = list[tuple[str, str]]


def fit_request_id(value: str) -> bool:
    """1 to 128 printable ASCII characters (no controls, nothing a log or a terminal would
    read as more than text)."""
    return 0 < len(value) <= MAX_REQUEST_ID and value.isascii() and value.isprintable()


def request_id() -> str | None:
    """The id of the request being handled (for a problem answer)."""
    found: str | None = request.environ.get(REQUEST_ID)
    return found


class ApiRequest(Request):
    """Flask's request, which also leaves the rule Flask matched it to in the environ."""

    @property
    def url_rule(self) -> Rule | None:
        return self.environ.get(RULE)

    @url_rule.setter
    def url_rule(self, rule: Rule | None) -> None:
        self.environ[RULE] = rule


@dataclass(frozen=True, slots=True)
class HeaderPolicy:
    """The headers an answer gets: ``forced`` replace the answer's own of the same names,
    ``defaults`` are added unless the answer has its own (a static file's Cache-Control)."""

    defaults: tuple[tuple[str, str], ...]
    forced: tuple[tuple[str, str], ...] = ()
    _default_names: frozenset[str] = field(init=False)
    _forced_names: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        names = frozenset(name.lower() for name, _ in self.defaults)
        object.__setattr__(self, "_default_names", names)
        object.__setattr__(self, "_forced_names", frozenset(n.lower() for n, _ in self.forced))

    def apply(self, headers: Headers, request_id: str) -> None:
        """Add this policy's headers and the request id to a WSGI header list, in place."""
        if self.forced:
            headers[:] = [h for h in headers if h[0].lower() not in self._forced_names]
            headers.extend(self.forced)
        present = {name.lower() for name, _ in headers}
        if present.isdisjoint(self._default_names):
            headers.extend(self.defaults)
        else:
            headers.extend(h for h in self.defaults if h[0].lower() not in present)
        headers.append(("X-Request-ID", request_id))


class Policies:
    """The policy of each blueprint (by name), else the API's (``default``); the choice for an
    endpoint is made once (the endpoints are the app's)."""

    def __init__(self, default: HeaderPolicy, by_blueprint: Mapping[str, HeaderPolicy]) -> None:
        self.default = default
        self._by_blueprint = dict(by_blueprint)
        self._by_endpoint: dict[str, HeaderPolicy] = {}

    def of(self, rule: Rule | None) -> HeaderPolicy:
        if rule is None:
            return self.default
        endpoint: str = rule.endpoint
        found = self._by_endpoint.get(endpoint)
        if found is None:
            blueprint = endpoint.rpartition(".")[0]
            found = self._by_blueprint.get(blueprint, self.default)
            self._by_endpoint[endpoint] = found
        return found


class HotPath(Protocol):
    """A request answered without Flask's handling (:mod:`arbiter.api.hot`): its rule, and
    its status line, headers and body."""

    rule: Rule

    def __call__(
        self, environ: MutableMapping[str, Any], rid: str
    ) -> tuple[str, list[tuple[str, str]], bytes]: ...


class Frame:
    """The WSGI layer of the module doc around ``wsgi_app``; a POST to a path of ``hot`` is
    answered by that path instead of ``wsgi_app``."""

    def __init__(
        self,
        wsgi_app: WsgiApp,
        metrics: Metrics,
        access: AccessLog,
        policies: Policies,
        hot: Mapping[str, HotPath] | None = None,
    ) -> None:
        self.wsgi_app = wsgi_app
        self.metrics = metrics
        self.access = access
        self.policies = policies
        self.hot = dict(hot or {})

    def __call__(
        self, environ: MutableMapping[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        started = time.perf_counter()
        incoming = environ.get("HTTP_X_REQUEST_ID")
        rid = incoming if incoming is not None and fit_request_id(incoming) else new_request_id()
        environ[REQUEST_ID] = rid
        hot = self.hot.get(environ.get("PATH_INFO", ""))
        if hot is not None and environ["REQUEST_METHOD"] == "POST":
            return self._hot(hot, environ, start_response, started, rid)
        status = ["500"]  # what the server answers if the app raises

        def start(line: str, headers: Headers, exc_info: Any = None) -> Any:
            status[0] = line
            self.policies.of(environ.get(RULE)).apply(headers, rid)
            return start_response(line, headers, exc_info)

        try:
            return self.wsgi_app(environ, start)
        finally:
            self._record(environ, int(status[0][:3]), time.perf_counter() - started, rid)

    def _hot(
        self,
        hot: HotPath,
        environ: MutableMapping[str, Any],
        start_response: Callable[..., Any],
        started: float,
        rid: str,
    ) -> Iterable[bytes]:
        environ[RULE] = hot.rule
        line = "500"
        try:
            line, headers, body = hot(environ, rid)
            self.policies.of(hot.rule).apply(headers, rid)
            start_response(line, headers)
            return [body]
        finally:
            self._record(environ, int(line[:3]), time.perf_counter() - started, rid)

    def _record(
        self, environ: MutableMapping[str, Any], status: int, seconds: float, rid: str
    ) -> None:
        method: str = environ["REQUEST_METHOD"]
        rule: Rule | None = environ.get(RULE)
        endpoint = UNMATCHED if rule is None else rule.rule
        self.metrics.observe_request(method, endpoint, status, seconds)
        self.access.write(rid, method, _path(environ), status, seconds, environ.get(RULESET))


def _path(environ: Mapping[str, Any]) -> str:
    """The path as werkzeug's ``Request.path`` reads it (UTF-8, one leading slash)."""
    raw: str = environ.get("PATH_INFO") or ""
    if not raw.isascii():
        raw = raw.encode("latin-1").decode("utf-8", "replace")
    return "/" + raw.lstrip("/")
