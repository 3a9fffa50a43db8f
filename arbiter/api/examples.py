"""Realistic examples for the OpenAPI document, computed by the engine itself.

The logs are random games of :mod:`arbiter.simulate` with fixed seeds, so the committed
``api_spec/openapi.yaml`` is reproducible and every example response is a true answer.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import orjson

from arbiter import replay, validate
from arbiter.archive.library import score_lines
from arbiter.frozen import thawed
from arbiter.service import LIBRARY
from arbiter.simulate import random_log

_NAMES = {"p0": "ana", "p1": "bea", "p2": "carlos", "p3": "dani"}


def _named(log: dict[str, Any]) -> dict[str, Any]:
    log["players"] = [_NAMES[p] for p in log["players"]]
    return log


@cache
def _complete_2p() -> dict[str, Any]:
    return _named(random_log("tute-2p", random.Random(7), deals=1))


@cache
def _renuncio_4p() -> dict[str, Any]:
    return _named(random_log("tute-4p", random.Random(0), deals=1, renuncio_rate=0.1))


@cache
def _unfinished_2p() -> dict[str, Any]:
    return _named(random_log("tute-2p", random.Random(7), deals=1, finish_last=False,
                             stop_after=30))  # fmt: skip


def replay_requests() -> dict[str, Any]:
    return {
        "tute-2p": {"summary": "A complete two-handed deal", "value": _complete_2p()},
        "tute-4p": {"summary": "A deal in pairs with a renuncio", "value": _renuncio_4p()},
    }


#: What a state id looks like: a sealed token (real ones depend on the server's key and on a
#: random nonce, so the committed contract shows this one).
SAMPLE_STATE_ID = (
    "AYRzH3Tpc3A9cRs-xFnMtaWqvDIcxNmLGAYuhzMKPqpEAV1eYG72kczoQjPPwL_sXghAw-iohI381_aHFI9LNj4"
    "f7Qxld7OEndsEAXtydRxhpOjkt2uc1pfQtAJP4DTHHA7x94998ydHRWGgwvEgv8sNKApzyTEW59uKsxHfct2Cg"
    "knAP__mA7dJbHpSaLVz7jUfYqc"
)


def replay_response() -> dict[str, Any]:
    # thawed: a body's plays are dicts shared by every answer, which YAML would write as aliases
    return thawed({**replay(_complete_2p()).to_dict(), "state_id": SAMPLE_STATE_ID})


def scores_response() -> dict[str, Any]:
    return replay(_renuncio_4p()).scores_dict()


def batch_request() -> str:
    """A batch of three lines: a game with its id, a line that is not JSON, a log whose id is
    not a string."""
    game = orjson.dumps({"id": "club-2024-0001", **_complete_2p()}).decode()
    wrong_id = orjson.dumps({**_complete_2p(), "id": 17}).decode()
    return f"{game}\n{{ruleset: tute-2p}}\n{wrong_id}\n"


def batch_response() -> str:
    """The answer to :func:`batch_request`."""
    lines = batch_request().splitlines()
    return "".join(orjson.dumps(line).decode() + "\n" for line in score_lines(lines))


def _next_move() -> dict[str, Any]:
    body = replay(_unfinished_2p()).to_dict()
    move: dict[str, Any] = body["next"]["legal_moves"][0]
    return move


def validate_requests() -> dict[str, Any]:
    return {
        "full-log": {
            "summary": "A log whose last deal is unfinished, and the next move",
            "value": {**_unfinished_2p(), "move": _next_move()},
        },
        "state-id": {
            "summary": "A state_id from an earlier answer, and the next move",
            "value": {"state_id": SAMPLE_STATE_ID, "move": _next_move()},
        },
        "position": {
            "summary": "A position (as /v1/positions answers it), and the next move",
            "value": {"position": _unfinished_position(), "move": _next_move()},
        },
        "next-deal": {
            "summary": "A state_id whose deal has ended, the next deal's cards, its first move",
            "value": {
                "state_id": SAMPLE_STATE_ID,
                "deal": {k: v for k, v in _complete_2p()["deals"][0].items() if k != "events"},
                "move": _complete_2p()["deals"][0]["events"][0],
            },
        },
    }


def validate_response() -> dict[str, Any]:
    return {**validate(_unfinished_2p(), _next_move()).to_dict(), "state_id": SAMPLE_STATE_ID}


def _unfinished_position() -> dict[str, Any]:
    position: dict[str, Any] = LIBRARY.position(_unfinished_2p())["position"]
    return position


def positions_requests() -> dict[str, Any]:
    return {
        "log": {"summary": "A log: the position it ends in", "value": _unfinished_2p()},
        "point": {
            "summary": "A log, and the point of it: the position after 12 events of deal 0",
            "value": {**_complete_2p(), "deal": 0, "event": 12},
        },
        "state-id": {
            "summary": "The position a state_id holds (without the deal's past tricks)",
            "value": {"state_id": SAMPLE_STATE_ID},
        },
    }


def positions_response() -> dict[str, Any]:
    return {"position": _unfinished_position()}
