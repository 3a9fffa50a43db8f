"""Bounded lists of input errors, shared by problem documents and the error lines of archives.

An error is ``{"pointer", "message"}`` (a JSON pointer into the input and what is wrong there).
However much a request or an archive line held, what is written about it stays small: at most
``max_errors`` errors are listed and ``errors_omitted`` counts the others, every text is cut at
:data:`MAX_TEXT` characters, and the list is dropped by halves until it fits the room given
(:data:`MAX_PROBLEM_BYTES` for a whole document). Flask-free: the HTTP problems
(:mod:`arbiter.api.errors`) and the archive lines (:mod:`arbiter.archive`) both use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import orjson

from arbiter.engine.errors import ArbiterError, ArbiterErrors

#: Longest text of a problem (detail, title, each pointer and message), in characters.
MAX_TEXT: Final = 300
#: Largest problem document, in bytes: 100 errors of MAX_TEXT-character pointers and messages
#: fit (escaping aside); past it errors are dropped from the list and counted as omitted.
MAX_PROBLEM_BYTES: Final = 64 * 1024


def clip(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def error_list(
    errors: Sequence[dict[str, str]],
    omitted: int,
    max_errors: int,
    room: int = MAX_PROBLEM_BYTES,
) -> dict[str, Any]:
    """``{"errors": [...]}``, plus ``"errors_omitted"`` when some are only counted: at most
    ``max_errors`` errors, texts clipped, the JSON of it within ``room`` bytes (escaping aside,
    only texts full of escaped characters ever need halving)."""
    shown = [
        {"pointer": clip(e["pointer"]), "message": clip(e["message"])} for e in errors[:max_errors]
    ]
    total = len(errors) + omitted
    while True:
        listed: dict[str, Any] = {"errors": shown}
        if total > len(shown):
            listed["errors_omitted"] = total - len(shown)
        if not shown or len(orjson.dumps(listed)) <= room:
            return listed
        shown = shown[: len(shown) // 2]


def input_errors(err: ArbiterError) -> tuple[list[dict[str, str]], int]:
    """The errors of an engine input error (one, or the several of an
    :class:`~arbiter.engine.errors.ArbiterErrors`) and how many more it only counted."""
    found = err.errors if isinstance(err, ArbiterErrors) else [err]
    omitted = err.omitted if isinstance(err, ArbiterErrors) else 0
    return [{"pointer": e.pointer, "message": e.message} for e in found], omitted
