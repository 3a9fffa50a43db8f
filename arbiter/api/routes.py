"""The endpoints of API.md: adjudication (``/v1``) and service endpoints.

Views read the body with orjson, run one cheap marshmallow pass (:mod:`arbiter.api.schemas`),
hand the log to the engine and write the engine's dict with orjson. The ``@blp.response``
decorators document the contract; views return ready :class:`Response` objects, which
flask-smorest passes through without a second serialisation.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Response, current_app, g, request
from flask_smorest import Blueprint
from marshmallow import Schema

from arbiter.api import bodies, examples, validation
from arbiter.api import schemas as s
from arbiter.api.errors import PROBLEM_JSON, Problem
from arbiter.api.metrics import Metrics
from arbiter.cache import CachedReplay, StateCache
from arbiter.engine.errors import ArbiterError
from arbiter.engine.log import GameLog, parse_log
from arbiter.engine.rulesets import RULESETS
from arbiter.i18n import Lang, pick_lang
from arbiter.report import Replay, Verdict, validate
from arbiter.settings import Settings

v1 = Blueprint("v1", __name__, url_prefix="/v1", description="Adjudication of Tute games.")
service = Blueprint("service", __name__, description="Health, readiness, metrics, contract.")

_LOG_SCHEMA = s.GameLogSchema()
_VALIDATE_SCHEMA = s.ValidateRequestSchema()
_JSON = "application/json"


#: Keys are optional (ARBITER_API_KEYS): no key, a bearer token or the X-API-Key header.
_SECURITY: list[dict[str, list[str]]] = [{}, {"bearer": []}, {"apiKey": []}]


def _problems(*statuses: int) -> dict[str, Any]:
    text = {
        400: "The body is not JSON.",
        401: "An API key is required (Authorization: Bearer or X-API-Key) and was not valid.",
        404: "Unknown ruleset or path (or metrics turned off).",
        409: "Unknown or expired state_id: resend the full log.",
        413: "The body is over the size limit.",
        415: "The body is not application/json.",
        422: "The log is malformed or a deal is not a correct deal (errors name the fields).",
        429: "Over the rate limit of this API key or client; see Retry-After.",
    }
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


def _settings() -> Settings:
    settings: Settings = current_app.extensions["arbiter.settings"]
    return settings


def _cache() -> StateCache:
    cache: StateCache = current_app.extensions["arbiter.cache"]
    return cache


def _metrics() -> Metrics:
    metrics: Metrics = current_app.extensions["arbiter.metrics"]
    return metrics


def _read_body(schema: Schema) -> dict[str, Any]:
    """The JSON object of the request, checked by ``schema``; problems for 400/408/413/415/422
    (:mod:`arbiter.api.bodies`, :mod:`arbiter.api.validation`)."""
    body = bodies.read_json()
    if not isinstance(body, dict):
        raise Problem.invalid([{"pointer": "", "message": "The body must be a JSON object."}])
    ruleset = body.get("ruleset")
    if isinstance(ruleset, str) and len(ruleset) <= 32:
        g.ruleset = ruleset  # for the access log
    validation.check(schema, body, _settings().max_errors)
    _check_limits(body)
    return body


def _check_limits(body: dict[str, Any]) -> None:
    settings = _settings()
    for i, name in enumerate(body.get("players") or ()):
        if len(name) > settings.max_name_length:
            raise Problem.invalid(
                [
                    {
                        "pointer": f"/players/{i}",
                        "message": f"Longer than {settings.max_name_length} characters.",
                    }
                ]
            )
    deals = body.get("deals")
    if deals is not None and len(deals) > settings.max_deals:
        raise Problem.invalid(
            [{"pointer": "/deals", "message": f"At most {settings.max_deals} deals."}]
        )


def _parse(body: dict[str, Any]) -> GameLog:
    try:
        return parse_log(body, max_deals=_settings().max_deals)
    except ArbiterError as err:
        raise Problem.from_arbiter_error(err) from None


def _json(body: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status=status, mimetype=_JSON)


def _lang() -> Lang:
    return pick_lang(request.headers.get("Accept-Language"))


def _replay(log: GameLog) -> CachedReplay:
    """Replay through the state cache, counting the illegal event it stopped at."""
    cached = _cache().replay(log)
    if cached.match.illegal is not None:
        _metrics().illegal.labels(cached.match.illegal.code.value).inc()
    return cached


def _count_renuncios(body: dict[str, Any]) -> None:
    """Count the renuncios an adjudication reports (from the body: no deal is unpacked
    only to be counted)."""
    renuncios = _metrics().renuncios
    for deal in body["deals"]:
        for violation in deal["violations"]:
            renuncios.labels(violation["obligation"]).inc()


def _count_verdict(verdict: Verdict) -> None:
    j = verdict.judgement
    if j.obligation is not None:
        _metrics().renuncios.labels(j.obligation.value).inc()
    if j.code is not None:
        _metrics().illegal.labels(j.code.value).inc()


# --- /v1 --------------------------------------------------------------------------------------


@v1.route("/replays", methods=["POST"])
@v1.doc(
    summary="Adjudicate a game log",
    description="Replays the whole log: tricks, cantes, renuncios, scores, outcomes, the match.",
    security=_SECURITY,
    requestBody=_request_body(s.GameLogSchema, examples.replay_requests()),
    responses=_problems(400, 401, 413, 415, 422, 429),
)
@v1.response(200, s.ReplaySchema, example=examples.replay_response())
def post_replay() -> Response:
    cached = _replay(_parse(_read_body(_LOG_SCHEMA)))
    body = Replay(cached.match).to_dict(_lang())
    body["state_id"] = cached.state_id
    _count_renuncios(body)
    return _json(body)


@v1.route("/scores", methods=["POST"])
@v1.doc(
    summary="Score a game log",
    description="As /v1/replays, but per deal only scores, sides, outcome and violations.",
    security=_SECURITY,
    requestBody=_request_body(s.GameLogSchema, examples.replay_requests()),
    responses=_problems(400, 401, 413, 415, 422, 429),
)
@v1.response(200, s.ScoresSchema, example=examples.scores_response())
def post_scores() -> Response:
    cached = _replay(_parse(_read_body(_LOG_SCHEMA)))
    body = Replay(cached.match).scores_dict(_lang())
    _count_renuncios(body)
    return _json(body)


@v1.route("/moves/validate", methods=["POST"])
@v1.doc(
    summary="Is this move allowed now?",
    description=(
        "Judges one move at the end of a log whose last deal is unfinished (or at a state_id "
        "returned earlier): ok, renuncio (with the obligation broken) or illegal (with a code)."
    ),
    security=_SECURITY,
    requestBody=_request_body(s.ValidateRequestSchema, examples.validate_requests()),
    responses=_problems(400, 401, 409, 413, 415, 422, 429),
)
@v1.response(200, s.VerdictSchema, example=examples.validate_response())
def post_validate() -> Response:
    body = _read_body(_VALIDATE_SCHEMA)
    cache = _cache()
    if "ruleset" in body:  # the full log: authoritative even when a state_id comes along
        cached = _replay(_parse(body))
        match, game, chain = cached.match, cached.game, cached.chain
    else:
        loaded = cache.load(body["state_id"])
        if loaded is None:
            raise Problem(
                409,
                "Unknown state",
                "This state_id is unknown or has expired; resend the full log with the move.",
            )
        match, game, chain = loaded.match, cache.game_of(body["state_id"]), loaded.chain
    try:
        verdict = validate(match, body["move"])
    except ArbiterError as err:
        raise Problem.from_arbiter_error(err) from None
    _count_verdict(verdict)
    answer = verdict.to_dict(_lang())
    if verdict.legal:
        answer["state_id"] = cache.keep_after(game, chain, verdict.after(), verdict.judgement.move)
    return _json(answer)


@v1.route("/rulesets", methods=["GET"])
@v1.doc(summary="The rulesets and their options", security=_SECURITY, responses=_problems(401, 429))
@v1.response(200, s.RulesetSchema(many=True), example=[RULESETS["tute-2p"].to_dict()])
def get_rulesets() -> Response:
    return _json([r.to_dict() for r in RULESETS.values()])


@v1.route("/rulesets/<string:name>", methods=["GET"])
@v1.doc(
    summary="One ruleset and its options",
    security=_SECURITY,
    responses=_problems(401, 404, 429),
)
@v1.response(200, s.RulesetSchema, example=RULESETS["tute-cabron"].to_dict())
def get_ruleset(name: str) -> Response:
    ruleset = RULESETS.get(name)
    if ruleset is None:
        raise Problem(404, "Not Found", f"No ruleset {name!r}; known: {', '.join(RULESETS)}.")
    return _json(ruleset.to_dict())


# --- service ----------------------------------------------------------------------------------

_METRICS_EXAMPLE = (
    "# HELP arbiter_requests_total HTTP requests answered.\n"
    "# TYPE arbiter_requests_total counter\n"
    'arbiter_requests_total{endpoint="/v1/replays",method="POST",status="200"} 42.0\n'
)


@service.route("/healthz", methods=["GET"])
@service.doc(summary="The process is alive")
@service.response(200, s.HealthSchema, example={"status": "ok"})
def healthz() -> Response:
    return _json({"status": "ok"})


@service.route("/readyz", methods=["GET"])
@service.doc(summary="Ready to serve; reports the state cache")
@service.response(
    200,
    s.ReadySchema,
    example={"status": "ready", "cache": {"backend": "memory", "reachable": True}},
)
def readyz() -> Response:
    # A failing cache makes the service slower, not wrong: degraded, still ready (200).
    cache = _cache()
    reachable = cache.reachable()
    status = "ready" if reachable else "degraded"
    return _json({"status": status, "cache": {"backend": cache.backend, "reachable": reachable}})


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
