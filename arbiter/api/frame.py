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

- **Admission** (:class:`Gate`, when API keys or a rate limit are set): the API key where
  one is needed (:class:`arbiter.api.security.KeyCheck`), then the rate limit
  (:class:`arbiter.api.limits.RateLimit`) for the rules it counts; a request refused gets its
  problem+json from the frame, before Flask or the thin path sees it.

The rule a request matched reaches the frame through :class:`ApiRequest`, Flask's request
class for the app, which leaves it in ``environ[RULE]`` when Flask matches it (the gate matches
it itself when it must know it first). A request the app answers without Flask's handling (a
:class:`HotPath`: ``POST /v1/moves/validate``, :mod:`arbiter.api.hot`) gets the same frame.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol, cast

from flask import Request, request
from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map, Rule
from werkzeug.wrappers import Response

from arbiter.api.logs import AccessLog
from arbiter.api.metrics import UNMATCHED, Metrics
from arbiter.contract import Problem, new_request_id

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIEnvironment

#: What the frame and the views leave in the environ.
REQUEST_ID: Final = "arbiter.request_id"
RULE: Final = "arbiter.rule"
RULESET: Final = "arbiter.ruleset"
KEY_ID: Final = "arbiter.key_id"
#: How a streamed answer (a batch) ended, left by its view: the frame then records the request
#: once the stream is done (its real duration), and says how it ended in the access line.
STREAM_END: Final = "arbiter.stream_end"
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
    the WSGI app that answers it (``start`` is the frame's)."""

    rule: Rule

    def __call__(
        self, environ: MutableMapping[str, Any], start: Callable[..., Any]
    ) -> Iterable[bytes]: ...


class Keys(Protocol):
    """The API keys (:class:`arbiter.api.security.KeyCheck`)."""

    def needs_key(self, path: str) -> bool: ...

    def check(self, environ: MutableMapping[str, Any]) -> None: ...


class Limit(Protocol):
    """The rate limit (:class:`arbiter.api.limits.RateLimit`)."""

    def admit(self, environ: MutableMapping[str, Any]) -> Sequence[tuple[str, str]]: ...


#: What a request admitted without a rate limit adds to its answer's headers.
_NOTHING: Final[tuple[tuple[str, str], ...]] = ()


@dataclass(frozen=True, slots=True)
class Gate:
    """What a request must pass before it is answered: its API key where one is needed, then
    the rate limit if its rule is one of ``limited`` (endpoints). :meth:`admit` raises the
    :class:`Problem` of a refusal; :meth:`refusal` is its answer, by ``problem_answer``
    (:func:`arbiter.api.errors.problem_answer`, handed in: that module imports this one)."""

    keys: Keys | None
    limit: Limit | None
    limited: frozenset[str]
    url_map: Map
    max_errors: int
    problem_answer: Callable[[Problem, str | None, int], Response]

    def admit(self, environ: MutableMapping[str, Any]) -> Sequence[tuple[str, str]]:
        """The headers the rate limit adds to the answer (a Problem raised: refused)."""
        if self.keys is not None and self.keys.needs_key(_path(environ)):
            try:
                self.keys.check(environ)
            except Problem:
                self._rule(environ)  # counted under the rule it was sent to
                raise
        if self.limit is None:
            return _NOTHING
        rule = self._rule(environ)
        if rule is None or rule.endpoint not in self.limited:
            return _NOTHING
        return self.limit.admit(environ)

    def refusal(self, problem: Problem, rid: str) -> Response:
        return self.problem_answer(problem, rid, self.max_errors)

    def _rule(self, environ: MutableMapping[str, Any]) -> Rule | None:
        """The rule of the request (known already on the thin path), left in the environ."""
        if RULE in environ:
            found: Rule | None = environ[RULE]
            return found
        try:
            adapter = self.url_map.bind_to_environ(cast("WSGIEnvironment", environ))
            rule, _ = adapter.match(return_rule=True)
        except HTTPException:  # no rule: a 404, 405 or a redirect, answered by Flask
            rule = None
        environ[RULE] = rule
        return rule


class Frame:
    """The WSGI layer of the module doc around ``wsgi_app``; a POST to a path of ``hot`` is
    answered by that path instead of ``wsgi_app``, and a request the ``gate`` refuses by the
    frame itself."""

    def __init__(
        self,
        wsgi_app: WsgiApp,
        metrics: Metrics,
        access: AccessLog,
        policies: Policies,
        hot: Mapping[str, HotPath] | None = None,
        gate: Gate | None = None,
    ) -> None:
        self.wsgi_app = wsgi_app
        self.metrics = metrics
        self.access = access
        self.policies = policies
        self.hot = dict(hot or {})
        self.gate = gate

    def __call__(
        self, environ: MutableMapping[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        started = time.perf_counter()
        incoming = environ.get("HTTP_X_REQUEST_ID")
        rid = incoming if incoming is not None and fit_request_id(incoming) else new_request_id()
        environ[REQUEST_ID] = rid
        hot = self.hot.get(environ.get("PATH_INFO", ""))
        if hot is not None:
            if environ["REQUEST_METHOD"] == "POST":
                environ[RULE] = hot.rule
            else:
                hot = None
        status = ["500"]  # what the server answers if the app raises
        added: Sequence[tuple[str, str]] = _NOTHING
        streamed: _Recorded | None = None  # a stream, recorded when it is closed

        def record() -> None:
            self._record(environ, int(status[0][:3]), time.perf_counter() - started, rid)

        def start(line: str, headers: Headers, exc_info: Any = None) -> Any:
            status[0] = line
            if added:
                headers.extend(added)
            self.policies.of(environ.get(RULE)).apply(headers, rid)
            return start_response(line, headers, exc_info)

        try:
            if self.gate is not None:
                try:
                    added = self.gate.admit(environ)
                except Problem as problem:
                    refusal = self.gate.refusal(problem, rid)
                    return refusal(cast("WSGIEnvironment", environ), start)
            if hot is not None:
                return hot(environ, start)
            answer = self.wsgi_app(environ, start)
            if STREAM_END in environ:
                streamed = _Recorded(answer, record)
                return streamed
            return answer
        finally:
            if streamed is None:
                record()

    def _record(
        self, environ: MutableMapping[str, Any], status: int, seconds: float, rid: str
    ) -> None:
        method: str = environ["REQUEST_METHOD"]
        rule: Rule | None = environ.get(RULE)
        endpoint = UNMATCHED if rule is None else rule.rule
        self.metrics.observe_request(method, endpoint, status, seconds)
        self.access.write(rid, method, _path(environ), status, seconds, environ.get(RULESET),
                          environ.get(STREAM_END))  # fmt: skip


class _Recorded:
    """A streamed answer, and what to do once the server has closed it (sent, cut or reset)."""

    def __init__(self, answer: Iterable[bytes], record: Callable[[], None]) -> None:
        self.answer = answer
        self.record = record

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.answer)

    def close(self) -> None:
        try:
            close = getattr(self.answer, "close", None)
            if close is not None:
                close()
        finally:
            self.record()


def _path(environ: Mapping[str, Any]) -> str:
    """The path as werkzeug's ``Request.path`` reads it (UTF-8, one leading slash)."""
    raw: str = environ.get("PATH_INFO") or ""
    if not raw.isascii():
        raw = raw.encode("latin-1").decode("utf-8", "replace")
    return "/" + raw.lstrip("/")
