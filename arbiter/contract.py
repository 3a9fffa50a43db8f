"""The wire contract's fixed numbers and its problem documents, shared by every adapter.

docs/api.md names these limits and shapes; the HTTP app, the command, the archives, the schemas
and the settings import them from here (or, for a log's limits, from the engine's
:class:`~arbiter.engine.log.Limits`), never restate them. Flask-free: the HTTP problems
(:mod:`arbiter.api.errors`), the worker's answers to what gunicorn refuses, the page and the
archive lines all use it.

Problems are RFC 9457 documents (``application/problem+json``). However much a request or an
archive line held, what is written about it stays small: at most ``max_errors`` errors are
listed and ``errors_omitted`` counts the others, every text is cut at :data:`MAX_TEXT`
characters, and the list is dropped by halves until it fits the room given
(:data:`MAX_PROBLEM_BYTES` for a whole document).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Final

import orjson

from arbiter.engine.errors import MAX_COLLECTED, ArbiterError, ArbiterErrors
from arbiter.engine.log import DEFAULT_LIMITS, MAX_DEALS
from arbiter.i18n import Lang, fault_message

__all__ = ["DEFAULT_LIMITS", "MAX_DEALS"]

PROBLEM_JSON: Final = "application/problem+json"
#: The longest ``state_id`` accepted (and the schema's maxLength): five players with names of
#: :data:`MAX_NAME_LENGTH_LIMIT` characters of four UTF-8 bytes each still fit.
MAX_TOKEN_LENGTH: Final = 4096
#: Longest player names a server may allow (``ARBITER_MAX_NAME_LENGTH``): tokens carry them.
MAX_NAME_LENGTH_LIMIT: Final = 128
#: Longest ``id`` of an archive's game (a line of ``arbiter score`` or ``/v1/scores/batch``).
MAX_ID_LENGTH: Final = 128
#: The most errors one problem may list (``ARBITER_MAX_ERRORS`` may lower it, not raise it):
#: the engine collects no more.
MAX_ERRORS_CEILING: Final = MAX_COLLECTED
#: Errors listed when no settings say otherwise.
DEFAULT_MAX_ERRORS: Final = 50
#: Longest text of a problem (detail, title, each pointer and message), in characters.
MAX_TEXT: Final = 300
#: Largest problem document, in bytes: 100 errors of MAX_TEXT-character pointers and messages
#: fit (escaping aside); past it errors are dropped from the list and counted as omitted.
MAX_PROBLEM_BYTES: Final = 64 * 1024


def clip(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def error_list(
    errors: Sequence[dict[str, Any]],
    omitted: int,
    max_errors: int,
    room: int = MAX_PROBLEM_BYTES,
) -> dict[str, Any]:
    """``{"errors": [...]}``, plus ``"errors_omitted"`` when some are only counted: at most
    ``max_errors`` errors, texts clipped, the JSON of it within ``room`` bytes (escaping aside,
    only texts full of escaped characters ever need halving)."""
    shown = [_shown(e) for e in errors[:max_errors]]
    total = len(errors) + omitted
    while True:
        listed: dict[str, Any] = {"errors": shown}
        if total > len(shown):
            listed["errors_omitted"] = total - len(shown)
        if not shown or len(orjson.dumps(listed)) <= room:
            return listed
        shown = shown[: len(shown) // 2]


def _shown(error: dict[str, Any]) -> dict[str, Any]:
    """An error as listed: its texts clipped, and its params' (a code given may be any
    JSON value: anything but a number, a short string or a list of them is shown as text)."""
    shown: dict[str, Any] = {"pointer": clip(error["pointer"]), "message": clip(error["message"])}
    if "code" in error:
        shown["code"] = error["code"]
        shown["params"] = {k: _param(v) for k, v in error["params"].items()}
    return shown


def _param(value: Any) -> Any:
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, str):
        return clip(value)
    if isinstance(value, list) and len(value) <= 20 and all(isinstance(v, str) for v in value):
        return [clip(v, 40) for v in value]
    return clip(repr(value))


def input_errors(err: ArbiterError, lang: Lang | None = None) -> tuple[list[dict[str, Any]], int]:
    """The errors of an engine input error (one, or the several of an
    :class:`~arbiter.engine.errors.ArbiterErrors`) and how many more it only counted; with a
    ``lang`` (the API's answers), each with its ``code`` and ``params`` and its message in
    that language."""
    found = err.errors if isinstance(err, ArbiterErrors) else [err]
    omitted = err.omitted if isinstance(err, ArbiterErrors) else 0
    if lang is None:
        return [{"pointer": e.pointer, "message": e.message} for e in found], omitted
    return [
        {
            "pointer": e.pointer,
            "message": fault_message(lang, e),
            "code": e.fault.value,
            "params": e.params,
        }
        for e in found
    ], omitted


#: The last part of each problem's ``type``, by status.
PROBLEM_TYPES: Final = {
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
        errors: list[dict[str, Any]] | None = None,
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
        cls, errors: list[dict[str, Any]], detail: str | None = None, omitted: int = 0
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
    def from_arbiter_error(cls, err: ArbiterError, lang: Lang = "en") -> Problem:
        listed, omitted = input_errors(err, lang)
        return cls.invalid(listed, omitted=omitted)


def new_request_id() -> str:
    """A request id of our own (32 hex digits), for a request that brought none we keep. An
    id names a request, it guards nothing: the standard library's generator (reseeded in a
    forked worker) is enough, and spares every request a system call."""
    return f"{random.getrandbits(128):032x}"


def problem_document(
    status: int,
    title: str,
    detail: str,
    request_id: str | None = None,
    errors: list[dict[str, Any]] | None = None,
    omitted: int = 0,
    max_errors: int = DEFAULT_MAX_ERRORS,
) -> bytes:
    """The JSON of a problem: at most ``max_errors`` errors listed and the rest counted
    (``errors_omitted``), texts clipped, never over :data:`MAX_PROBLEM_BYTES`."""
    body: dict[str, Any] = {
        "type": f"https://tute-arbiter.example/problems/{PROBLEM_TYPES.get(status, 'error')}",
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
