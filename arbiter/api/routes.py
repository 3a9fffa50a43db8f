"""The endpoints of docs/api.md: adjudication (``/v1``) and service endpoints, in one table.

Each :class:`Endpoint` of :data:`V1` and :data:`SERVICE` says once what an operation is: its
method and path, the function that answers it, its request body and its answer (schema and
example), the problems it can answer and its words for the contract. From that one table
:func:`install` registers the Flask views and documents them with flask-smorest (the OpenAPI
document, ``make spec``), and :mod:`arbiter.api.hot` answers the endpoints that take a JSON object
and answer one (an :attr:`Endpoint.answers`) without Flask's handling, with the same function.
Adding an endpoint is one entry here (and its function).

The functions read the body with orjson, hand it to the service (:mod:`arbiter.service`, which
checks it once with the engine's reader) and write the answer's dict with orjson. The marshmallow
schemas (:mod:`arbiter.api.schemas`) document the contract; views return ready
:class:`Response` objects, which flask-smorest passes through without a second serialisation.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

import orjson
from flask import Flask, Response, current_app, request
from flask_smorest import Api, Blueprint
from marshmallow import Schema

from arbiter import BUILD, __version__
from arbiter.api import batch, bodies, examples
from arbiter.api import schemas as s
from arbiter.api.frame import RULESET
from arbiter.api.metrics import Metrics
from arbiter.contract import PROBLEM_JSON, Problem
from arbiter.engine.rulesets import RULESETS
from arbiter.i18n import Lang, pick_lang, ruleset_dict
from arbiter.report import Verdict
from arbiter.service import Referee, UnknownState
from arbiter.settings import Settings

_JSON = "application/json"


#: Keys are optional (ARBITER_API_KEYS): no key, a bearer token or the X-API-Key header.
_SECURITY: list[dict[str, list[str]]] = [{}, {"bearer": []}, {"apiKey": []}]


def _problems(*statuses: int, texts: Mapping[int, str] | None = None) -> dict[str, Any]:
    """The problems of an operation (``texts``: this operation's own, by status)."""
    text = {
        400: "The body is not JSON.",
        401: "An API key is required (Authorization: Bearer or X-API-Key) and was not valid.",
        404: "Unknown ruleset or path (or metrics turned off).",
        408: "The body took longer than ARBITER_BODY_TIMEOUT to arrive.",
        409: "A state_id this server cannot open (another key, altered): resend the full log.",
        413: "The body is over the size limit.",
        415: "The body is not application/json.",
        422: "The log is malformed or a deal is not a correct deal (errors name the fields).",
        429: "Over the rate limit of this API key or client; see Retry-After.",
    }
    text |= texts or {}
    return {
        str(code): {
            "description": text[code],
            "content": {PROBLEM_JSON: {"schema": s.ProblemSchema}},
        }
        for code in statuses
    }


# --- request reading ----------------------------------------------------------------------


def _referee() -> Referee:
    referee: Referee = current_app.extensions["arbiter.referee"]
    return referee


def _metrics() -> Metrics:
    metrics: Metrics = current_app.extensions["arbiter.metrics"]
    return metrics


class Call:
    """What a view of /v1 reads: the request's environ and the app's referee, metrics and
    settings, each looked up once (Flask's ``request`` and ``current_app`` are context-local
    proxies: every attribute read through them is a lookup). :meth:`now` in a view; the hot
    path (:mod:`arbiter.api.hot`) makes one from the environ and the app's extensions."""

    __slots__ = ("environ", "metrics", "referee", "settings")

    def __init__(self, environ: MutableMapping[str, Any], extensions: Mapping[str, Any]) -> None:
        self.environ = environ
        self.referee: Referee = extensions["arbiter.referee"]
        self.metrics: Metrics = extensions["arbiter.metrics"]
        self.settings: Settings = extensions["arbiter.settings"]

    @classmethod
    def now(cls) -> Call:
        """The call of the request Flask is handling."""
        return cls(request.environ, current_app.extensions)

    def body(self) -> dict[str, Any]:
        """The JSON object of the request; problems for 400/408/413/415/422 (the bytes read,
        the codings, the media types: :mod:`arbiter.api.bodies`). Its contents are checked
        once, by the engine's reader (through the service)."""
        body = bodies.read_json(self.environ, self.settings.max_body_bytes)
        if not isinstance(body, dict):
            problem = {"pointer": "", "message": "The body must be a JSON object."}
            raise Problem.invalid([problem])
        ruleset = body.get("ruleset")
        if isinstance(ruleset, str) and len(ruleset) <= 32:
            self.environ[RULESET] = ruleset  # for the access log
        return body

    def lang(self) -> Lang:
        return pick_lang(self.environ.get("HTTP_ACCEPT_LANGUAGE"))

    def count_verdict(self, verdict: Verdict) -> None:
        j = verdict.judgement
        if j.obligation is not None:
            self.metrics.renuncios.labels(j.obligation.value).inc()
        if j.code is not None:
            self.metrics.illegal.labels(j.code.value).inc()


def validated(call: Call) -> bytes:
    """The answer of ``POST /v1/moves/validate``, as JSON; a problem is raised (409 for a
    state_id that does not open here)."""
    try:
        verdict = call.referee.validate_request(call.body())
    except UnknownState:
        call.metrics.tokens_rejected.inc()
        raise _unknown_state() from None
    call.count_verdict(verdict)
    return orjson.dumps(verdict.to_dict(call.lang()))


def positioned(call: Call) -> bytes:
    """The answer of ``POST /v1/positions``, as JSON (409 for a state_id that does not open)."""
    try:
        body = call.referee.position(call.body())
    except UnknownState:
        call.metrics.tokens_rejected.inc()
        raise _unknown_state() from None
    return orjson.dumps(body)


def _unknown_state() -> Problem:
    return Problem(
        409,
        "Unknown state",
        "This state_id does not open on this server (another key, altered, or not a "
        "state_id); resend the full log.",
    )


def replayed(call: Call) -> bytes:
    """The answer of ``POST /v1/replays``, as JSON."""
    body = call.referee.replay_request(call.body()).to_dict(call.lang())
    call.metrics.count_adjudication(body)
    return orjson.dumps(body)


def scored(call: Call) -> bytes:
    """The answer of ``POST /v1/scores``, as JSON."""
    body = call.referee.score(call.body()).scores_dict(call.lang())
    call.metrics.count_adjudication(body)
    return orjson.dumps(body)


# --- the other views --------------------------------------------------------------------------


def _json(body: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status=status, content_type=_JSON)


def scores_batch() -> Response:
    call = Call.now()
    return batch.answer(call.referee, call.settings, call.lang(), call.metrics)


def rulesets() -> Response:
    return _json([ruleset_dict(r) for r in RULESETS.values()])


def ruleset(name: str) -> Response:
    found = RULESETS.get(name)
    if found is None:
        raise Problem(404, "Not Found", f"No ruleset {name!r}; known: {', '.join(RULESETS)}.")
    return _json(ruleset_dict(found))


def healthz() -> Response:
    return Response(_HEALTHY, content_type=_JSON)


#: The answer of /healthz, the same for the life of the process.
_HEALTHY = orjson.dumps({"status": "ok", "version": __version__, "build": BUILD})


def readyz() -> Response:
    # A failing cache makes the service slower, not wrong: degraded, still ready (200).
    cache = _referee().cache
    reachable = cache is None or cache.reachable()
    backend = "off" if cache is None else cache.backend
    status = "ready" if reachable else "degraded"
    return _json({"status": status, "cache": {"backend": backend, "reachable": reachable}})


def metrics() -> Response:
    settings: Settings = current_app.extensions["arbiter.settings"]
    if settings.metrics == "off":
        raise Problem(404, "Not Found", "Metrics are turned off on this server.")
    return Response(_metrics().export(), mimetype="text/plain; version=0.0.4")


def openapi_yaml() -> Response:
    from arbiter.api.spec import spec_yaml

    return Response(spec_yaml(current_app), mimetype="application/yaml")


# --- the table --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Body:
    """A request body: its media type and schema, and its examples, computed by the engine
    when an app is made (:mod:`arbiter.api.examples`): named ones ``{name: {summary, value}}``,
    or one."""

    schema: type[Schema]
    examples: Callable[[], dict[str, Any]] | None = None
    example: Callable[[], Any] | None = None
    media: str = _JSON

    def doc(self) -> dict[str, Any]:
        content: dict[str, Any] = {"schema": self.schema}
        if self.examples is not None:
            content["examples"] = self.examples()
        if self.example is not None:
            content["example"] = self.example()
        return {"required": True, "content": {self.media: content}}


@dataclass(frozen=True, slots=True)
class Answer:
    """The answer (200): its schema and an example, of a JSON object unless ``media`` says
    otherwise (then with its own ``description``)."""

    example: Callable[[], Any]
    schema: type[Schema] | Schema | None = None
    media: str = _JSON
    description: str = "OK"

    def doc(self) -> dict[str, Any]:
        """The 200 of an answer that is not a JSON object (those go through flask-smorest's
        ``response``)."""
        content: dict[str, Any] = {} if self.schema is None else {"schema": self.schema}
        content["example"] = self.example()
        return {"description": self.description, "content": {self.media: content}}


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One operation of the contract. Exactly one of ``answers`` (a JSON object in, one out:
    the function the Flask view and the thin path both call) and ``view`` (a Flask view
    returning its :class:`Response`) is given. ``problems``: the statuses of its problem
    answers, with ``texts`` of its own for some; ``keyed``: it takes the API keys (every
    endpoint of :data:`V1` does)."""

    method: str
    path: str  #: Flask's rule, the whole path
    summary: str
    description: str | None = None
    answers: Callable[[Call], bytes] | None = None
    view: Callable[..., Response] | None = None
    body: Body | None = None
    answer: Answer | None = None
    problems: tuple[int, ...] = ()
    texts: Mapping[int, str] = field(default_factory=dict)
    keyed: bool = False

    def __post_init__(self) -> None:
        if (self.answers is None) == (self.view is None):
            raise ValueError(f"{self.path}: give either answers or view")
        if self.answers is not None and self.method != "POST":
            raise ValueError(f"{self.path}: a JSON answer takes its object in a POST")

    @property
    def name(self) -> str:
        """Its Flask endpoint (in its blueprint), from its method and path."""
        words = self.path.strip("/").replace("<string:", "").replace(">", "").split("/")
        return "_".join([self.method.lower(), *(w.replace(".", "_") for w in words)])

    def doc(self, keyed: bool) -> dict[str, Any]:
        """What flask-smorest's ``doc`` records of it."""
        doc: dict[str, Any] = {"summary": self.summary}
        if self.description is not None:
            doc["description"] = self.description
        if keyed:
            doc["security"] = _SECURITY
        if self.body is not None:
            doc["requestBody"] = self.body.doc()
        responses = {}
        if self.answer is not None and self.answer.media != _JSON:
            responses["200"] = self.answer.doc()
        responses |= _problems(*self.problems, texts=self.texts) if self.problems else {}
        if responses:
            doc["responses"] = responses
        return doc


_LOG_PROBLEMS = (400, 401, 408, 413, 415, 422, 429)

#: Adjudication: API keys (when set) and the rate limit apply to all of them.
V1: tuple[Endpoint, ...] = (
    Endpoint(
        "POST",
        "/v1/replays",
        "Adjudicate a game log",
        "Replays the whole log: tricks, cantes, renuncios, scores, outcomes, the match. The "
        "state_id of the answer is a sealed token of the position the log ends in.",
        answers=replayed,
        body=Body(s.ReplayRequestSchema, examples.replay_requests),
        answer=Answer(examples.replay_response, s.ReplaySchema),
        problems=_LOG_PROBLEMS,
    ),
    Endpoint(
        "POST",
        "/v1/scores",
        "Score a game log",
        "As /v1/replays, but per deal only scores, sides, outcome and violations.",
        answers=scored,
        body=Body(s.GameLogSchema, examples.replay_requests),
        answer=Answer(examples.scores_response, s.ScoresSchema),
        problems=_LOG_PROBLEMS,
    ),
    Endpoint(
        "POST",
        "/v1/scores/batch",
        "Score an archive: one game log per line",
        "The body is NDJSON (optionally gzip-coded): one game log per line, each with an "
        "optional id. The answer is NDJSON, streamed as the body is read: one line per game, in "
        "order, with its id and source (the line number) and the body of /v1/scores, or an "
        "error for a line that is not a valid log (the batch goes on). Blank lines are skipped "
        "(they count in the line numbers and the limit); ?first_line=N numbers the lines from N "
        "(an archive sent in several batches). Limits: ARBITER_MAX_BODY_BYTES per "
        "line, ARBITER_BATCH_MAX_LINES lines and ARBITER_BATCH_MAX_BYTES (decoded) per batch; "
        "past them, or when the body stops arriving, the answer ends with a line whose id is "
        "null and whose error says why. A worker scores ARBITER_BATCH_CONCURRENCY batches at "
        "once: one more is a 429.",
        view=scores_batch,
        body=Body(s.BatchLogSchema, example=examples.batch_request, media=bodies.NDJSON),
        answer=Answer(
            examples.batch_response,
            s.BatchLineSchema,
            bodies.NDJSON,
            "One line per game (NDJSON), then a reason if the batch stopped early",
        ),
        problems=(400, 401, 408, 413, 415, 429),
        texts={
            400: "The body is labelled gzip but is not gzip data, or is malformed.",
            413: "The body is larger than ARBITER_BATCH_MAX_BYTES (Content-Length), or its "
            "gzip coding expands more than ARBITER_BATCH_MAX_RATIO times.",
            415: "The body is not application/x-ndjson, or has a coding other than gzip.",
            429: (
                "Over the rate limit, or this worker is scoring ARBITER_BATCH_CONCURRENCY "
                "batches already, or ARBITER_BATCH_PER_CLIENT of this client's; see Retry-After."
            ),
        },
    ),
    Endpoint(
        "POST",
        "/v1/moves/validate",
        "Is this move allowed now?",
        "Judges one move at the end of a log whose last deal is unfinished, on the position "
        "a state_id names (with `deal`, at the start of the next deal), or on a position given "
        "whole (`position`, as /v1/positions answers it; checked, each fault named): ok, "
        "renuncio (with the obligation broken) or illegal (with a code). When it is ok, "
        "state_id is the token of the position after the move (and, for a given position, "
        "`position` is that position).",
        answers=validated,
        body=Body(s.ValidateRequestSchema, examples.validate_requests),
        answer=Answer(examples.validate_response, s.VerdictSchema),
        problems=(400, 401, 408, 409, 413, 415, 422, 429),
    ),
    Endpoint(
        "POST",
        "/v1/positions",
        "The position a log leads to",
        'Answers {"position": ...} (docs/api.md, The position): every fact of the point a log '
        "ends in (or, with deal and event, the point after that many events of that deal), or "
        "of the point a state_id holds (a state_id carries no past tricks: tricks and captured "
        "are null). The position can be sent back to /v1/moves/validate with a move.",
        answers=positioned,
        body=Body(s.PositionRequestSchema, examples.positions_requests),
        answer=Answer(examples.positions_response, s.PositionAnswerSchema),
        problems=(400, 401, 408, 409, 413, 415, 422, 429),
    ),
    Endpoint(
        "GET",
        "/v1/rulesets",
        "The rulesets and their options",
        view=rulesets,
        answer=Answer(lambda: [ruleset_dict(RULESETS["tute-2p"])], s.RulesetSchema(many=True)),
        problems=(401, 429),
    ),
    Endpoint(
        "GET",
        "/v1/rulesets/<string:name>",
        "One ruleset and its options",
        view=ruleset,
        answer=Answer(lambda: ruleset_dict(RULESETS["tute-cabron"]), s.RulesetSchema),
        problems=(401, 404, 429),
    ),
)

_METRICS_EXAMPLE = (
    "# HELP arbiter_requests_total HTTP requests answered.\n"
    "# TYPE arbiter_requests_total counter\n"
    'arbiter_requests_total{endpoint="/v1/replays",method="POST",status="200"} 42.0\n'
)

#: Health, readiness, metrics and the contract: open (but /metrics with ARBITER_METRICS) and
#: never rate limited.
SERVICE: tuple[Endpoint, ...] = (
    Endpoint(
        "GET",
        "/healthz",
        "The process is alive",
        view=healthz,
        answer=Answer(
            lambda: {"status": "ok", "version": __version__, "build": "compiled"}, s.HealthSchema
        ),
    ),
    Endpoint(
        "GET",
        "/readyz",
        "Ready to serve; reports the state cache",
        view=readyz,
        answer=Answer(
            lambda: {"status": "ready", "cache": {"backend": "memory", "reachable": True}},
            s.ReadySchema,
        ),
    ),
    Endpoint(
        "GET",
        "/metrics",
        "Prometheus metrics",
        "ARBITER_METRICS=protected asks for an API key (401); =off answers 404.",
        view=metrics,
        answer=Answer(
            lambda: _METRICS_EXAMPLE, media="text/plain", description="Prometheus text format"
        ),
        problems=(401, 404),
        keyed=True,
    ),
    Endpoint(
        "GET",
        "/v1/openapi.yaml",
        "This contract (OpenAPI 3.1)",
        view=openapi_yaml,
        answer=Answer(
            lambda: "openapi: 3.1.0\ninfo:\n  title: tute-arbiter\n",
            media="application/yaml",
            description="The OpenAPI document",
        ),
    ),
)

#: The blueprints of the table: their names are the first part of their endpoints'
#: (``v1.post_v1_replays``), by which the frame knows a rule's headers and rate limit.
BLUEPRINTS: tuple[tuple[str, str, tuple[Endpoint, ...]], ...] = (
    ("v1", "Adjudication of Tute games.", V1),
    ("service", "Health, readiness, metrics, contract.", SERVICE),
)


def endpoints(table: tuple[Endpoint, ...]) -> frozenset[str]:
    """The Flask endpoints of a table's entries (``v1.post_v1_replays``...)."""
    (name,) = [name for name, _, each in BLUEPRINTS if each is table]
    return frozenset(f"{name}.{e.name}" for e in table)


def json_answers() -> dict[str, Callable[[Call], bytes]]:
    """The functions of the endpoints that take a JSON object and answer one, by path."""
    return {e.path: e.answers for _, _, table in BLUEPRINTS for e in table if e.answers}


def install(app: Flask, api: Api) -> None:
    """Register every endpoint of the table on ``app``, documented in ``api``."""
    for name, description, table in BLUEPRINTS:
        blueprint = Blueprint(name, __name__, description=description)
        for endpoint in table:
            _register(blueprint, endpoint, keyed=table is V1 or endpoint.keyed)
        api.register_blueprint(blueprint)
    _unwrap_views(app, tuple(f"{name}." for name, _, _ in BLUEPRINTS))


def _register(blueprint: Blueprint, endpoint: Endpoint, keyed: bool) -> None:
    view = endpoint.view if endpoint.view is not None else _json_view(endpoint.answers)
    answer = endpoint.answer
    if answer is not None and answer.media == _JSON:
        view = blueprint.response(200, answer.schema, example=answer.example())(view)
    view = blueprint.doc(**endpoint.doc(keyed))(view)
    blueprint.add_url_rule(endpoint.path, endpoint.name, view, methods=[endpoint.method])


def _json_view(answers: Callable[[Call], bytes] | None) -> Callable[[], Response]:
    assert answers is not None

    def view() -> Response:
        return Response(answers(Call.now()), content_type=_JSON)

    return view


def _unwrap_views(app: Flask, prefixes: tuple[str, ...]) -> None:
    """Serve our views without flask-smorest's decorators around them. They document the
    contract (the spec is built when the blueprint is registered, from what they recorded) and
    would dump a returned object; our views return ready Responses, so at request time they
    only add calls."""
    for endpoint, view in list(app.view_functions.items()):
        if endpoint.startswith(prefixes):
            app.view_functions[endpoint] = inspect.unwrap(view)
