"""The Flask application factory: routes, pages, problem+json errors, metrics, request ids.

:func:`create_app` builds a fresh app from a :class:`~arbiter.settings.Settings` (read from the
environment when omitted). Nothing is global: the metrics registry and the generated OpenAPI
document live in ``app.extensions``.
"""

from __future__ import annotations

import inspect
import re
import time
from typing import Any

from flask import Flask, Response, g, request
from flask_smorest import Api
from flask_swagger_ui import get_swaggerui_blueprint

from arbiter import __version__
from arbiter.api import errors, limits, logs, security
from arbiter.api.metrics import Metrics
from arbiter.contract import new_request_id
from arbiter.service import Referee
from arbiter.settings import Settings

API_TITLE = "tute-arbiter"
#: A client's X-Request-ID is echoed only when it is 1-128 printable ASCII characters (no
#: controls, nothing a log or terminal would read as more than text); else a new id is drawn.
_REQUEST_ID = re.compile(r"[\x20-\x7e]{1,128}")
OPENAPI_PATH = "/v1/openapi.yaml"


class _Api(Api):  # type: ignore[misc]
    # Errors are documented per operation as problem+json; no generic "Default error" entry.
    DEFAULT_ERROR_RESPONSE_NAME = None


def create_app(settings: Settings | None = None) -> Flask:
    """A new WSGI app serving the docs/api.md contract."""
    settings = settings or Settings.from_env()
    settings.check()
    app = Flask("arbiter", static_folder=None)  # static files: arbiter.web's, at /static/
    app.config.update(
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        API_TITLE=API_TITLE,
        API_VERSION=__version__,
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX=None,  # the document is served as YAML by our own route
        API_SPEC_OPTIONS={
            "info": {
                "description": (
                    "A referee for the Spanish card game Tute: adjudicates game logs (renuncios, "
                    "scores, outcomes), validates proposed moves and scores archived games. "
                    "Rules: /docs/rules; contract: /docs/api; the referee's page: /."
                )
            },
            "servers": [{"url": "/"}],
        },
    )
    app.extensions["arbiter.settings"] = settings
    metrics = Metrics(settings.metrics_dir)
    app.extensions["arbiter.metrics"] = metrics
    app.extensions["arbiter.referee"] = Referee.from_settings(settings, metrics)
    logs.configure(settings.log_level, settings.log_json)

    api = _Api(app)
    # API keys are optional (ARBITER_API_KEYS): operations accept no key, a bearer or a header.
    api.spec.components.security_scheme("bearer", {"type": "http", "scheme": "bearer"})
    api.spec.components.security_scheme(
        "apiKey", {"type": "apiKey", "in": "header", "name": "X-API-Key"}
    )
    from arbiter.api.routes import service, v1

    api.register_blueprint(v1)
    api.register_blueprint(service)
    _unwrap_views(app, ("v1.", "service."))
    app.register_blueprint(
        # validatorUrl None: Swagger UI would otherwise send the contract's address to an
        # online validator whenever it is served from a host other than localhost.
        get_swaggerui_blueprint(
            "/docs", OPENAPI_PATH, config={"app_name": API_TITLE, "validatorUrl": None}
        ),
        url_prefix="/docs",
    )
    from arbiter import web

    web.install(app)  # the referee's page at /, /docs/rules, /docs/api, /examples/, /static/
    for unused in ("Error", "PaginationMetadata"):  # flask-smorest's own, not in our contract
        api.spec.components.schemas.pop(unused, None)
    app.extensions["arbiter.spec"] = api.spec
    errors.register(app)
    _instrument(app)
    security.install(app, settings)  # before the limiter: it names the key's bucket
    limits.install(app, settings)
    return app


def _unwrap_views(app: Flask, prefixes: tuple[str, ...]) -> None:
    """Serve our views without flask-smorest's decorators around them. They document the
    contract (the spec is built when the blueprint is registered, from what they recorded) and
    would dump a returned object; our views return ready Responses, so at request time they
    only add calls."""
    for endpoint, view in list(app.view_functions.items()):
        if endpoint.startswith(prefixes):
            app.view_functions[endpoint] = inspect.unwrap(view)


def _instrument(app: Flask) -> None:
    """Request ids and per-request metrics."""
    metrics: Metrics = app.extensions["arbiter.metrics"]

    @app.before_request
    def _start() -> None:
        incoming = request.headers.get("X-Request-ID", "")
        g.request_id = incoming if _REQUEST_ID.fullmatch(incoming) else new_request_id()
        g.started = time.perf_counter()

    @app.after_request
    def _finish(response: Response) -> Response:
        request_id: str = g.get("request_id", "")
        response.headers.add("X-Request-ID", request_id)  # no answer sets it before
        rule = request.url_rule
        endpoint = rule.rule if rule is not None else "unmatched"
        started: Any = g.get("started")
        elapsed = time.perf_counter() - started if started is not None else 0.0
        method, status = request.method, response.status_code
        metrics.observe_request(method, endpoint, status, elapsed)
        logs.access(request_id, method, request.path, status, elapsed, g.get("ruleset"))
        return response
