"""The endpoints of docs/api.md: adjudication (``/v1``) and service endpoints.

Views read the body with orjson, hand it to the service (:mod:`arbiter.service`, which checks it
once with the engine's reader) and write the answer's dict with orjson. The marshmallow schemas
(:mod:`arbiter.api.schemas`) and the ``@blp.response`` decorators document the contract; views
return ready :class:`Response` objects, which flask-smorest passes through without a second
serialisation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

import orjson
from flask import Response, current_app, request
from flask_smorest import Blueprint
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

v1 = Blueprint("v1", __name__, url_prefix="/v1", description="Adjudication of Tute games.")
service = Blueprint("service", __name__, description="Health, readiness, metrics, contract.")

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


def _request_body(schema: type[Schema], named_examples: dict[str, Any]) -> dict[str, Any]:
    return {
        "required": True,
        "content": {_JSON: {"schema": schema, "examples": named_examples}},
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
        raise Problem(
            409,
            "Unknown state",
            "This state_id does not open on this server (another key, altered, or not a "
            "state_id); resend the full log with the move.",
        ) from None
    call.count_verdict(verdict)
    return orjson.dumps(verdict.to_dict(call.lang()))


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


#: The views of /v1 that take a JSON object and answer one, by path: without a rate limit the
#: app answers them without Flask's handling (arbiter.api.hot), with the same functions.
JSON_ANSWERS: dict[str, Callable[[Call], bytes]] = {
    "/v1/replays": replayed,
    "/v1/scores": scored,
    "/v1/moves/validate": validated,
}


def _json(body: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status=status, content_type=_JSON)


def _answer(data: bytes) -> Response:
    return Response(data, content_type=_JSON)


# --- /v1 --------------------------------------------------------------------------------------


@v1.route("/replays", methods=["POST"])
@v1.doc(
    summary="Adjudicate a game log",
    description=(
        "Replays the whole log: tricks, cantes, renuncios, scores, outcomes, the match. The "
        "state_id of the answer is a sealed token of the position the log ends in."
    ),
    security=_SECURITY,
    requestBody=_request_body(s.ReplayRequestSchema, examples.replay_requests()),
    responses=_problems(400, 401, 408, 413, 415, 422, 429),
)
@v1.response(200, s.ReplaySchema, example=examples.replay_response())
def post_replay() -> Response:
    return _answer(replayed(Call.now()))


@v1.route("/scores", methods=["POST"])
@v1.doc(
    summary="Score a game log",
    description="As /v1/replays, but per deal only scores, sides, outcome and violations.",
    security=_SECURITY,
    requestBody=_request_body(s.GameLogSchema, examples.replay_requests()),
    responses=_problems(400, 401, 408, 413, 415, 422, 429),
)
@v1.response(200, s.ScoresSchema, example=examples.scores_response())
def post_scores() -> Response:
    return _answer(scored(Call.now()))


@v1.route("/scores/batch", methods=["POST"])
@v1.doc(
    summary="Score an archive: one game log per line",
    description=(
        "The body is NDJSON (optionally gzip-coded): one game log per line, each with an "
        "optional id. The answer is NDJSON, streamed as the body is read: one line per game, in "
        "order, with its id and source (the line number) and the body of /v1/scores, or an "
        "error for a line that is not a valid log (the batch goes on). Blank lines are skipped "
        "(they count in the line numbers and the limit). Limits: ARBITER_MAX_BODY_BYTES per "
        "line, ARBITER_BATCH_MAX_LINES lines and ARBITER_BATCH_MAX_BYTES (decoded) per batch; "
        "past them, or when the body stops arriving, the answer ends with a line whose id is "
        "null and whose error says why. A worker scores ARBITER_BATCH_CONCURRENCY batches at "
        "once: one more is a 429."
    ),
    security=_SECURITY,
    requestBody={
        "required": True,
        "content": {
            bodies.NDJSON: {"schema": s.BatchLogSchema, "example": examples.batch_request()}
        },
    },
    responses={
        "200": {
            "description": "One line per game (NDJSON), then a reason if the batch stopped early",
            "content": {
                bodies.NDJSON: {"schema": s.BatchLineSchema, "example": examples.batch_response()}
            },
        },
        **_problems(
            400,
            401,
            408,
            413,
            415,
            429,
            texts={
                400: "The body is labelled gzip but is not gzip data, or is malformed.",
                413: "The body is larger than ARBITER_BATCH_MAX_BYTES (Content-Length).",
                415: "The body is not application/x-ndjson, or has a coding other than gzip.",
                429: (
                    "Over the rate limit, or this worker is scoring ARBITER_BATCH_CONCURRENCY "
                    "batches already; see Retry-After."
                ),
            },
        ),
    },
)
def post_scores_batch() -> Response:
    call = Call.now()
    return batch.answer(call.referee, call.settings, call.lang(), call.metrics)


@v1.route("/moves/validate", methods=["POST"])
@v1.doc(
    summary="Is this move allowed now?",
    description=(
        "Judges one move at the end of a log whose last deal is unfinished, or on the position "
        "a state_id names (with `deal`, at the start of the next deal): ok, renuncio (with the "
        "obligation broken) or illegal (with a code). When it is ok, state_id is the token of "
        "the position after the move."
    ),
    security=_SECURITY,
    requestBody=_request_body(s.ValidateRequestSchema, examples.validate_requests()),
    responses=_problems(400, 401, 408, 409, 413, 415, 422, 429),
)
@v1.response(200, s.VerdictSchema, example=examples.validate_response())
def post_validate() -> Response:
    return _answer(validated(Call.now()))


@v1.route("/rulesets", methods=["GET"])
@v1.doc(summary="The rulesets and their options", security=_SECURITY, responses=_problems(401, 429))
@v1.response(200, s.RulesetSchema(many=True), example=[ruleset_dict(RULESETS["tute-2p"])])
def get_rulesets() -> Response:
    return _json([ruleset_dict(r) for r in RULESETS.values()])


@v1.route("/rulesets/<string:name>", methods=["GET"])
@v1.doc(
    summary="One ruleset and its options",
    security=_SECURITY,
    responses=_problems(401, 404, 429),
)
@v1.response(200, s.RulesetSchema, example=ruleset_dict(RULESETS["tute-cabron"]))
def get_ruleset(name: str) -> Response:
    ruleset = RULESETS.get(name)
    if ruleset is None:
        raise Problem(404, "Not Found", f"No ruleset {name!r}; known: {', '.join(RULESETS)}.")
    return _json(ruleset_dict(ruleset))


# --- service ----------------------------------------------------------------------------------

_METRICS_EXAMPLE = (
    "# HELP arbiter_requests_total HTTP requests answered.\n"
    "# TYPE arbiter_requests_total counter\n"
    'arbiter_requests_total{endpoint="/v1/replays",method="POST",status="200"} 42.0\n'
)


@service.route("/healthz", methods=["GET"])
@service.doc(summary="The process is alive")
@service.response(
    200, s.HealthSchema, example={"status": "ok", "version": __version__, "build": "compiled"}
)
def healthz() -> Response:
    return Response(_HEALTHY, content_type=_JSON)


#: The answer of /healthz, the same for the life of the process.
_HEALTHY = orjson.dumps({"status": "ok", "version": __version__, "build": BUILD})


@service.route("/readyz", methods=["GET"])
@service.doc(summary="Ready to serve; reports the state cache")
@service.response(
    200,
    s.ReadySchema,
    example={"status": "ready", "cache": {"backend": "memory", "reachable": True}},
)
def readyz() -> Response:
    # A failing cache makes the service slower, not wrong: degraded, still ready (200).
    cache = _referee().cache
    reachable = cache is None or cache.reachable()
    backend = "off" if cache is None else cache.backend
    status = "ready" if reachable else "degraded"
    return _json({"status": status, "cache": {"backend": backend, "reachable": reachable}})


@service.route("/metrics", methods=["GET"])
@service.doc(
    summary="Prometheus metrics",
    description="ARBITER_METRICS=protected asks for an API key (401); =off answers 404.",
    security=_SECURITY,
    responses={
        "200": {
            "description": "Prometheus text format",
            "content": {"text/plain": {"example": _METRICS_EXAMPLE}},
        },
        **_problems(401, 404),
    },
)
def metrics() -> Response:
    settings: Settings = current_app.extensions["arbiter.settings"]
    if settings.metrics == "off":
        raise Problem(404, "Not Found", "Metrics are turned off on this server.")
    return Response(_metrics().export(), mimetype="text/plain; version=0.0.4")


@service.route("/v1/openapi.yaml", methods=["GET"])
@service.doc(
    summary="This contract (OpenAPI 3.1)",
    responses={
        "200": {
            "description": "The OpenAPI document",
            "content": {
                "application/yaml": {
                    "example": "openapi: 3.1.0\ninfo:\n  title: tute-arbiter\n",
                }
            },
        }
    },
)
def openapi_yaml() -> Response:
    from arbiter.api.spec import spec_yaml

    return Response(spec_yaml(current_app), mimetype="application/yaml")
