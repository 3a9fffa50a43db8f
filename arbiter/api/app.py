"""The Flask application factory: routes (the table of :mod:`arbiter.api.routes`), pages,
problem+json errors, and the frame of every request (request ids, API keys and the rate limit,
security headers, metrics, the access line: :mod:`arbiter.api.frame`).

:func:`create_app` builds a fresh app from a :class:`~arbiter.settings.Settings` (read from the
environment when omitted). Nothing is global: the metrics registry and the generated OpenAPI
document live in ``app.extensions``.
"""

from __future__ import annotations

from typing import NoReturn
from urllib.parse import urlsplit

from flask import Flask, Request
from flask_smorest import Api
from werkzeug.routing import RequestRedirect

from arbiter import __version__
from arbiter.api import docs, errors, hot, limits, logs, routes, security
from arbiter.api.frame import ApiRequest, Frame, Gate
from arbiter.api.metrics import Metrics
from arbiter.api.schemas import ConformancePositionSchema
from arbiter.service import Referee
from arbiter.settings import Settings

API_TITLE = "tute-arbiter"
OPENAPI_PATH = "/v1/openapi.yaml"


class _Api(Api):  # type: ignore[misc]
    # Errors are documented per operation as problem+json; no generic "Default error" entry.
    DEFAULT_ERROR_RESPONSE_NAME = None


class _Flask(Flask):
    """Flask, whose redirects (``/docs`` to ``/docs/``) are relative: werkzeug would write the
    request's Host header into an absolute Location, and a Host is whatever the client says."""

    def raise_routing_exception(self, request: Request) -> NoReturn:
        redirect = request.routing_exception
        if isinstance(redirect, RequestRedirect):
            relative = RequestRedirect(_relative(redirect.new_url))
            relative.code = redirect.code
            raise relative
        super().raise_routing_exception(request)


def _relative(url: str) -> str:
    """``url``'s path and query; one leading slash (``//host/...`` would name another host)."""
    parts = urlsplit(url)
    path = "/" + parts.path.lstrip("/")
    return f"{path}?{parts.query}" if parts.query else path


def create_app(settings: Settings | None = None) -> Flask:
    """A new WSGI app serving the docs/api.md contract."""
    settings = settings or Settings.from_env()
    settings.check()
    app = _Flask("arbiter", static_folder=None)  # static files: arbiter.web's, at /static/
    app.request_class = ApiRequest  # it tells the frame which rule a request matched
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
    routes.install(app, api)
    # no route answers it: the conformance kit's questions carry it (docs/conformance.md)
    api.spec.components.schema("ConformancePosition", schema=ConformancePositionSchema)
    app.register_blueprint(docs.swagger_ui(API_TITLE, OPENAPI_PATH), url_prefix="/docs")
    from arbiter import web

    web.install(app)  # the referee's page at /, /docs/rules, /docs/api, /examples/, /static/
    for unused in ("Error", "PaginationMetadata"):  # flask-smorest's own, not in our contract
        api.spec.components.schemas.pop(unused, None)
    app.extensions["arbiter.spec"] = api.spec
    errors.register(app)
    metrics.know(method for rule in app.url_map.iter_rules() for method in rule.methods or ())
    access = logs.AccessLog(settings.log_json)
    app.extensions["arbiter.access"] = access
    frame = Frame(app.wsgi_app, metrics, access, security.policies(), hot.install(app),
                  _gate(app, settings))  # fmt: skip
    app.wsgi_app = frame  # type: ignore[method-assign]
    return app


def _gate(app: Flask, settings: Settings) -> Gate | None:
    """The frame's API keys and rate limit (None: neither is set). The key is checked first:
    a refused key is not counted, and a good one names the budget."""
    keys = security.KeyCheck(settings)
    limit = limits.install(settings)
    if not keys and limit is None:
        return None
    return Gate(
        keys=keys if keys else None,
        limit=limit,
        limited=routes.endpoints(routes.V1),
        url_map=app.url_map,
        max_errors=settings.max_errors,
        problem_answer=errors.problem_answer,
    )
