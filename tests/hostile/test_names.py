"""Finding 7: player names are printable Unicode text in NFC; what is echoed stays data.

A name holding NUL, CR/LF, a right-to-left override, a zero-width or other format character,
an exotic space, or not in NFC is a 422 naming the player (``/players/i``) and the character by
code point (the name itself is not shown). A name such as ``<script>`` is text: it comes back
as a JSON string, under ``application/json`` and ``nosniff``, never as markup.
"""

from __future__ import annotations

import json
import random
import unicodedata
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import arbiter
from arbiter.engine.errors import ArbiterError
from arbiter.simulate import random_log
from tests.api_support import assert_problem
from tests.gunicorn_support import Gunicorn, post_json

# Hostile clients against a live gunicorn (or the real command): the quick loop leaves them out.
pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("ana\x00", "U+0000 is a control character"),
        ("ana\r\nbea", "U+000D is a control character"),
        ("\u202eana", "U+202E RIGHT-TO-LEFT OVERRIDE is an invisible format character"),
        ("a\u2066b", "U+2066 LEFT-TO-RIGHT ISOLATE"),
        ("an\u200ba", "U+200B ZERO WIDTH SPACE"),
        ("ana\u00a0maría", "U+00A0 NO-BREAK SPACE is a space other than the plain space"),
        ("a\u2028b", "U+2028 LINE SEPARATOR is a line separator"),
        ("Jose\u0301", "Unicode normal form NFC"),
    ],
    ids=["NUL", "CRLF", "RLO", "isolate", "zero width", "nbsp", "line separator", "NFD"],
)
def test_unfit_names_are_422_naming_the_player(
    server: Gunicorn, log: dict[str, Any], name: str, said: str
) -> None:
    from arbiter.engine.log import name_problem  # here: the module imports on main too

    hostile = {**log, "players": [log["players"][0], name]}
    problem = assert_problem(post_json(server.port, "/v1/replays", hostile), 422)
    assert problem["errors"] == [
        {"pointer": "/players/1", "message": name_problem(name), "code": "invalid", "params": {}}
    ]
    assert said in problem["errors"][0]["message"]
    assert name not in problem["detail"]


def test_markup_in_a_name_stays_data(server: Gunicorn, log: dict[str, Any]) -> None:
    name = "<script>alert('x')</script>"
    answer = post_json(server.port, "/v1/replays", {**log, "players": [name, "bea"]},
                       **{"headers": {"Accept-Language": "es"}})  # fmt: skip
    assert answer.status == 200
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert "default-src 'none'" in answer.headers["content-security-policy"]
    body = answer.json()
    assert body["match"]["standings"][0]["player"] == name
    # a name twice: the 422's message holds it, as a JSON string, in a problem
    twice = post_json(server.port, "/v1/replays", {**log, "players": [name, name]})
    problem = assert_problem(twice, 422)
    assert name in problem["errors"][0]["message"]
    assert json.loads(twice.body)["errors"][0]["message"].startswith('"<script>')


def test_accented_and_non_latin_names_are_fine(server: Gunicorn, log: dict[str, Any]) -> None:
    players = ["José María", "Ñoño 👍"]
    answer = post_json(server.port, "/v1/replays", {**log, "players": players})
    assert answer.status == 200, answer.body[:300]
    assert [s["player"] for s in answer.json()["match"]["standings"]] == players


@given(st.text(min_size=1, max_size=12).filter(lambda n: n.strip() and n != "ana"))
def test_a_name_is_accepted_exactly_when_printable_nfc(name: str) -> None:
    """The library (and so the command) checks names as the API does."""
    from arbiter.engine.log import name_problem  # here: the module imports on main too

    log = random_log("tute-2p", random.Random(1))
    log["players"] = ["ana", name]
    fit = name.isprintable() and unicodedata.is_normalized("NFC", name)
    assert (name_problem(name) is None) == fit
    if fit:
        assert arbiter.replay(log).to_dict()["match"]["standings"][1]["player"] == name
    else:
        with pytest.raises(ArbiterError) as caught:
            arbiter.replay(log)
        assert caught.value.pointer == "/players/1"
        assert caught.value.message == name_problem(name)
