"""Errors as RFC 9457 problem details (``application/problem+json``), for every status.

:class:`Problem` is raised by views; the handlers registered by :func:`register` turn it, any
Werkzeug HTTP error (404, 405, 413...), a marshmallow or engine input error (422 with
``errors: [{pointer, message}]``) and any unexpected exception (500 with the request id, never
a stack trace) into the same shape.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import orjson
from flask import Flask, Response, g
from werkzeug.exceptions import HTTPException

from arbiter.engine.errors import ArbiterError

PROBLEM_JSON = "application/problem+json"
_log = logging.getLogger("arbiter.api")

_TYPES = {
    400: "bad-request",
    401: "unauthorized",
    404: "not-found",
    405: "method-not-allowed",
    409: "unknown-state",
    413: "body-too-large",
    415: "unsupported-media-type",
    422: "invalid-log",
    429: "too-many-requests",
    500: "internal-error",
}


class Problem(Exception):
    """An error answer: status, title, detail and, for 422, the offending fields."""

    def __init__(
        self,
        status: int,
        title: str,
        detail: str,
        errors: list[dict[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.title = title
        self.detail = detail
        self.errors = errors
        self.headers = dict(headers or {})

    @classmethod
    def invalid(cls, errors: list[dict[str, str]], detail: str | None = None) -> Problem:
        first = errors[0]
        return cls(
            422,
            "Invalid log",
            detail or f"{first['pointer'] or '/'}: {first['message']}",
            errors,
        )

    @classmethod
    def from_arbiter_error(cls, err: ArbiterError, prefix: str = "") -> Problem:
        return cls.invalid([{"pointer": prefix + err.pointer, "message": err.message}])


def problem_response(problem: Problem) -> Response:
    body: dict[str, Any] = {
        "type": f"https://tute-arbiter.example/problems/{_TYPES.get(problem.status, 'error')}",
        "title": problem.title,
        "status": problem.status,
        "detail": problem.detail,
    }
    request_id = g.get("request_id")
    if request_id:
        body["request_id"] = request_id
    if problem.errors is not None:
        body["errors"] = problem.errors
    response = Response(orjson.dumps(body), status=problem.status, mimetype=PROBLEM_JSON)
    for name, value in problem.headers.items():
        response.headers[name] = value
    return response


def marshmallow_errors(messages: Any, path: str = "") -> list[dict[str, str]]:
    """Flatten marshmallow's nested error messages into ``[{pointer, message}]``."""
    out: list[dict[str, str]] = []
    if isinstance(messages, Mapping):
        for key, value in messages.items():
            if key == "_schema":
                out.extend(marshmallow_errors(value, path))
            else:
                escaped = str(key).replace("~", "~0").replace("/", "~1")
                out.extend(marshmallow_errors(value, f"{path}/{escaped}"))
    elif isinstance(messages, list | tuple):
        for item in messages:
            out.extend(marshmallow_errors(item, path))
    else:
        out.append({"pointer": path, "message": str(messages)})
    return out


def register(app: Flask) -> None:
    """Install the problem+json handlers on ``app``."""

    @app.errorhandler(Problem)
    def _problem(problem: Problem) -> Response:
        return problem_response(problem)

    @app.errorhandler(ArbiterError)
    def _arbiter(err: ArbiterError) -> Response:
        return problem_response(Problem.from_arbiter_error(err))

    @app.errorhandler(HTTPException)
    def _http(err: HTTPException) -> Response:
        status = err.code or 500
        headers = {}
        if status == 405 and err.valid_methods:  # type: ignore[attr-defined]
            headers["Allow"] = ", ".join(err.valid_methods)  # type: ignore[attr-defined]
        detail = err.description or err.name
        if status == 429:
            detail = f"Too many requests: the limit is {err.description}. Retry later."
        if status == 413:
            limit = app.config.get("MAX_CONTENT_LENGTH")
            detail = f"The request body is larger than the limit of {limit} bytes."
        return problem_response(Problem(status, err.name, detail, headers=headers))

    @app.errorhandler(Exception)
    def _unexpected(err: Exception) -> Response:
        _log.exception("unexpected error (request %s)", g.get("request_id"))
        return problem_response(
            Problem(
                500,
                "Internal error",
                f"The referee failed unexpectedly; quote request id {g.get('request_id')}.",
            )
        )
