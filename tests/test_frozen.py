"""The read-only dicts answers share (arbiter/frozen.py): a body's plays are one dict per seat
and card for every answer, so changing one must fail rather than change every later answer,
and what a client edits (a position) must be plain dicts of its own."""

from __future__ import annotations

import copy
import json
import pickle
import random
from typing import Any

import orjson
import pytest

import arbiter
from arbiter.engine.match import replay as engine_replay
from arbiter.frozen import FrozenDict, thawed
from arbiter.report import position_dict
from arbiter.service import LIBRARY
from arbiter.simulate import random_log


def _log() -> dict[str, Any]:
    return random_log("tute-4p", random.Random(7), players=4, deals=1)


def _plays(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for deal in body["deals"] for t in deal["tricks"] for p in t["plays"]]


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.__setitem__("seat", 3),
        lambda d: d.__delitem__("card"),
        lambda d: d.update(seat=3),
        lambda d: d.pop("seat"),
        lambda d: d.popitem(),
        lambda d: d.setdefault("x", 1),
        lambda d: d.clear(),
        lambda d: d.__ior__({"seat": 3}),
    ],
)
def test_a_shared_play_refuses_every_change(change: Any) -> None:
    body = arbiter.replay(_log()).to_dict()
    play = _plays(body)[0]
    before = dict(play)
    with pytest.raises(TypeError, match="shared"):
        change(play)
    assert play == before
    assert arbiter.replay(_log()).to_dict() == body


def test_plays_are_shared_and_read_as_plain_json() -> None:
    log = _log()
    first, second = arbiter.replay(log).to_dict(), arbiter.replay(log).to_dict()
    assert all(isinstance(p, FrozenDict) for p in _plays(first))
    assert all(a is b for a, b in zip(_plays(first), _plays(second), strict=True))
    # every encoder and reader sees plain dicts: the same bytes as without sharing
    plain = json.loads(json.dumps(first))
    assert orjson.dumps(first) == orjson.dumps(plain)
    assert json.dumps(first) == json.dumps(plain)
    assert first == plain


@pytest.mark.parametrize(
    "copier", [dict, copy.copy, copy.deepcopy, lambda d: pickle.loads(pickle.dumps(d))]
)
def test_copies_of_a_shared_dict_are_plain_and_editable(copier: Any) -> None:
    shared = FrozenDict(seat=1, card="1O")
    other = copier(shared)
    assert type(other) is dict and other == shared
    other["seat"] = 2
    assert shared == {"seat": 1, "card": "1O"}


def test_a_deep_copy_of_a_body_can_be_edited() -> None:
    body = copy.deepcopy(LIBRARY.replay(_log(), steps=True).to_dict())
    for play in _plays(body):
        play["seat"] = 9
    assert all(p["seat"] != 9 for p in _plays(arbiter.replay(_log()).to_dict()))


def test_a_position_is_plain_dicts_that_a_client_may_edit() -> None:
    log = _log()
    deal = log["deals"][0]
    deal["events"] = deal["events"][:6]  # a trick done and one on the table
    match = engine_replay(log)
    body = position_dict(match.position())

    def walk(value: Any) -> None:
        assert type(value) in (dict, list, str, int, bool, type(None))
        for item in (
            value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        ):
            walk(item)

    walk(body)
    body["trick"]["plays"][0]["card"] = "99X"
    body["tricks"][0]["plays"][0]["seat"] = 3
    assert position_dict(match.position())["trick"]["plays"][0]["card"] != "99X"


def test_thawed_copies_every_dict_and_list() -> None:
    inner = FrozenDict(seat=0, card="1O")
    body = {"a": [inner, {"b": [1, 2]}], "c": inner}
    out = thawed(body)
    assert out == body
    assert type(out["a"][0]) is dict and out["a"][0] is not inner
    assert out["a"] is not body["a"] and out["a"][1]["b"] is not body["a"][1]["b"]
