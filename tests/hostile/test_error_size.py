"""Finding 3: a small bad body must not make a huge answer (or cost a lot to refuse).

A 1 MB body with 111,000 unknown option keys got a 6.1 MB 422 listing every key. Now the engine
names at most 100 bad options and counts the rest, at most 50 are listed (ARBITER_MAX_ERRORS)
and ``errors_omitted`` counts the others; texts taken from the body are clipped; every answer
stays under 64 KiB. Lists longer than the contract allows (players, deals) are refused from
their length, before any item is looked at.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.api_support import assert_problem
from tests.gunicorn_support import Gunicorn, post_json

# Hostile clients against a live gunicorn (or the real command): the quick loop leaves them out.
pytestmark = pytest.mark.slow

MAX_ERRORS = 50  # the default


def _short(i: int) -> str:
    """``i`` in base 36: 111,000 keys of at most 4 characters fit a 1 MB body."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        i, r = divmod(i, 36)
        out = digits[r] + out
        if not i:
            return out


def _post(server: Gunicorn, payload: Any) -> Any:
    body = json.dumps(payload, separators=(",", ":")).encode()
    assert len(body) < 1024 * 1024  # under the body limit: the schema is what refuses it
    return post_json(server.port, "/v1/replays", None, dumps=lambda _: body, timeout=30)


def test_unknown_option_keys_are_counted_not_all_listed(
    server: Gunicorn, log: dict[str, Any]
) -> None:
    hostile = {**log, "options": {_short(i): 1 for i in range(111_000)}}
    problem = assert_problem(_post(server, hostile), 422)
    assert len(problem["errors"]) == MAX_ERRORS
    assert problem["errors_omitted"] == 111_000 - MAX_ERRORS
    first = {
        "pointer": "/options/0",
        "message": "tute-2p has no option '0'",
        "code": "invalid",
        "params": {},
    }
    assert problem["errors"][0] == first
    assert problem["detail"] == "/options/0: tute-2p has no option '0'"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("players", [_short(i) for i in range(120_000)], "tute-2p is played by 2 players"),
        ("players", list(range(120_000)), "tute-2p is played by 2 players"),
        ("deals", [{}] * 150_000, "at most 100 deals"),
        ("deals", [{"dealer": "x"}] * 60_000, "at most 100 deals"),
    ],
    ids=["120k names", "120k numbers", "150k empty deals", "60k bad deals"],
)
def test_overlong_lists_are_refused_from_their_length(
    server: Gunicorn, log: dict[str, Any], field: str, value: list[Any], message: str
) -> None:
    response = _post(server, {**log, field: value})
    problem = assert_problem(response, 422)
    assert problem["errors"] == [
        {"pointer": f"/{field}", "message": message, "code": "invalid", "params": {}}
    ]


def test_a_huge_key_is_clipped_in_the_answer(server: Gunicorn, log: dict[str, Any]) -> None:
    key = "k" * 500_000
    problem = assert_problem(_post(server, {**log, "options": {key: 1}}), 422)
    pointer = problem["errors"][0]["pointer"]
    assert pointer.startswith("/options/kkk") and pointer.endswith("…")
    assert len(pointer) <= 300 and len(problem["detail"]) <= 300


def test_many_engine_pointers_with_escapes_stay_bounded(
    server: Gunicorn, log: dict[str, Any]
) -> None:
    """Unknown keys full of characters JSON escapes (six bytes each): still under 64 KiB."""
    keys = {("\x01" * 140) + str(i): 1 for i in range(1000)}
    problem = assert_problem(_post(server, {**log, "options": keys}), 422)
    assert len(problem["errors"]) + problem["errors_omitted"] == 1000
