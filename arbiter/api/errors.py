"""The app's problem+json answers (RFC 9457), for every status.

:class:`~arbiter.contract.Problem` is raised by views; the handlers registered by
:func:`register` turn it, any Werkzeug HTTP error (404, 405, 413...), an engine input error
(422 with ``errors: [{pointer, message}]``) and any unexpected exception (500 with the request
id, never a stack trace) into the same shape, written by :func:`arbiter.contract.problem_document`
(bounded: at most ``ARBITER_MAX_ERRORS`` errors listed, texts clipped, a document never over
:data:`~arbiter.contract.MAX_PROBLEM_BYTES`).
"""

from __future__ import annotations

import logging

from flask import Flask, current_app, has_request_context, request
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response

from arbiter.api.frame import request_id
from arbiter.contract import DEFAULT_MAX_ERRORS, PROBLEM_JSON, Problem, problem_document
from arbiter.engine.errors import ArbiterError
from arbiter.i18n import Lang, pick_lang
from arbiter.settings import Settings

_log = logging.getLogger("arbiter.api")


def problem_response(problem: Problem) -> Response:
    """The answer to ``problem`` for the request Flask is handling."""
    settings: Settings | None = current_app.extensions.get("arbiter.settings")
    max_errors = settings.max_errors if settings is not None else DEFAULT_MAX_ERRORS
    return problem_answer(problem, request_id(), max_errors)


def problem_answer(problem: Problem, rid: str | None, max_errors: int) -> Response:
    """The answer to ``problem`` for the request ``rid``, also a WSGI app (for the answers the
    request's frame and the thin path give without Flask's handling)."""
    document = problem_body(problem, rid, max_errors)
    response = Response(document, status=problem.status, mimetype=PROBLEM_JSON)
    for name, value in problem.headers.items():
        response.headers[name] = value
    return response


def problem_body(problem: Problem, rid: str | None, max_errors: int) -> bytes:
    """The problem+json document of ``problem`` for the request ``rid``."""
    return problem_document(
        problem.status,
        problem.title,
        problem.detail,
        rid,
        problem.errors,
        problem.omitted,
        max_errors,
    )


def problem_of(err: Exception, rid: str | None, lang: Lang | None = None) -> Problem:
    """The problem an exception raised by a view is answered with: its own, a 422 for an
    input error of the engine (its messages in ``lang``, by default the request's
    ``Accept-Language``), else a 500 (logged with its traceback: a fault of ours)."""
    if isinstance(err, Problem):
        return err
    if isinstance(err, ArbiterError):
        if lang is None:
            header = request.headers.get("Accept-Language") if has_request_context() else None
            lang = pick_lang(header)
        return Problem.from_arbiter_error(err, lang)
    _log.exception("unexpected error (request %s)", rid)
    detail = f"The referee failed unexpectedly; quote request id {rid}."
    return Problem(500, "Internal error", detail)


def register(app: Flask) -> None:
    """Install the problem+json handlers on ``app``."""

    @app.errorhandler(Problem)
    def _problem(problem: Problem) -> Response:
        return problem_response(problem)

    @app.errorhandler(ArbiterError)
    def _arbiter(err: ArbiterError) -> Response:
        return problem_response(problem_of(err, None))

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
        return problem_response(problem_of(err, request_id()))
