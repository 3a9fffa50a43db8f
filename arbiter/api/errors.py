"""Errors as RFC 9457 problem details (``application/problem+json``), for every status.

:class:`Problem` is raised by views; the handlers registered by :func:`register` turn it, any
Werkzeug HTTP error (404, 405, 413...), an engine input error (422 with
``errors: [{pointer, message}]``) and any unexpected exception (500 with the request id, never
a stack trace) into the same shape. :func:`problem_document` writes that shape without a Flask
request, for what the HTTP server refuses before the app (:mod:`arbiter.worker`).

Answers stay small whatever the request held: at most ``max_errors`` errors are listed
(``ARBITER_MAX_ERRORS``) and ``errors_omitted`` counts the rest; every text taken from the
request (pointers, messages, details) is cut at 300 characters; and a document is never larger
than :data:`~arbiter.problems.MAX_PROBLEM_BYTES` (the bounds of :mod:`arbiter.problems`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

import orjson
from flask import Flask, Response, current_app, g
from werkzeug.exceptions import HTTPException

from arbiter.engine.errors import ArbiterError
from arbiter.problems import MAX_PROBLEM_BYTES, clip, error_list, input_errors
from arbiter.settings import Settings

PROBLEM_JSON = "application/problem+json"
_log = logging.getLogger("arbiter.api")


#: Errors listed when no settings say otherwise (ARBITER_MAX_ERRORS).
DEFAULT_MAX_ERRORS = Settings().max_errors

_TYPES = {
    400: "bad-request",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    408: "request-timeout",
    409: "unknown-state",
    413: "body-too-large",
    414: "uri-too-long",
    415: "unsupported-media-type",
    417: "expectation-failed",
    422: "invalid-log",
    429: "too-many-requests",
    431: "header-fields-too-large",
    500: "internal-error",
    501: "not-implemented",
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
        omitted: int = 0,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.title = title
        self.detail = detail
        self.errors = errors
        self.headers = dict(headers or {})
        #: errors found beyond those in ``errors`` (counted, not listed)
        self.omitted = omitted

    @classmethod
    def invalid(
        cls, errors: list[dict[str, str]], detail: str | None = None, omitted: int = 0
    ) -> Problem:
        first = errors[0]
        return cls(
            422,
            "Invalid log",
            detail or f"{first['pointer'] or '/'}: {first['message']}",
            errors,
            omitted=omitted,
        )

    @classmethod
    def from_arbiter_error(cls, err: ArbiterError) -> Problem:
        listed, omitted = input_errors(err)
        return cls.invalid(listed, omitted=omitted)


def new_request_id() -> str:
    """A request id of our own (32 hex digits), for a request that brought none we keep."""
    return os.urandom(16).hex()


def problem_document(
    status: int,
    title: str,
    detail: str,
    request_id: str | None = None,
    errors: list[dict[str, str]] | None = None,
    omitted: int = 0,
    max_errors: int = DEFAULT_MAX_ERRORS,
) -> bytes:
    """The JSON of a problem: at most ``max_errors`` errors listed and the rest counted
    (``errors_omitted``), texts clipped, never over :data:`MAX_PROBLEM_BYTES`."""
    body: dict[str, Any] = {
        "type": f"https://tute-arbiter.example/problems/{_TYPES.get(status, 'error')}",
        "title": clip(title),
        "status": status,
        "detail": clip(detail),
    }
    if request_id:
        body["request_id"] = request_id
    if errors is None:
        return orjson.dumps(body)
    room = MAX_PROBLEM_BYTES - len(orjson.dumps(body))
    body.update(error_list(errors, omitted, max_errors, room))
    return orjson.dumps(body)


def problem_response(problem: Problem) -> Response:
    settings: Settings | None = current_app.extensions.get("arbiter.settings")
    document = problem_document(
        problem.status,
        problem.title,
        problem.detail,
        g.get("request_id"),
        problem.errors,
        problem.omitted,
        settings.max_errors if settings is not None else DEFAULT_MAX_ERRORS,
    )
    response = Response(document, status=problem.status, mimetype=PROBLEM_JSON)
    for name, value in problem.headers.items():
        response.headers[name] = value
    return response


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
