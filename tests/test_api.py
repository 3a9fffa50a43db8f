"""The HTTP service against docs/api.md, in process (Flask test client).

Every response of these tests is also checked against the committed contract by the client of
:mod:`tests.api_support` (schema of the operation and status; problem bodies included).
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any
from urllib.parse import urlsplit

import orjson
import pytest

import arbiter
from arbiter.engine.cards import format_card, parse_card
from arbiter.engine.errors import ArbiterError
from tests import api_support
from tests.api_support import (
    CARLOS_OROS,
    EXAMPLES_DIR,
    JSON,
    PLAYERS_4,
    PROBLEM_JSON,
    ConformingClient,
    assert_conforms,
    assert_problem,
    expected_replay,
    four_player_log,
    make_client,
    metric_value,
    padded_body,
    random_game,
)
from tests.hand_built import play

# the fixtures of tests/api_support.py
app = api_support.app
client = api_support.client

MOVE_1O = play(1, "1O")


def assert_invalid(response: Any, pointer: str, message: str | None = None) -> dict[str, Any]:
    """A 422 whose first error points exactly at ``pointer``."""
    body = assert_problem(response, 422, "invalid-log")
    assert body["title"] == "Invalid log"
    assert body["errors"], body
    first = body["errors"][0]
    assert first["pointer"] == pointer, body["errors"]
    if message is not None:
        assert first["message"] == message
    assert body["detail"] == f"{pointer or '/'}: {first['message']}"
    return body


# --- POST /v1/replays ---------------------------------------------------------------------------


def test_replay_complete(client: ConformingClient) -> None:
    log = random_game("tute-2p", 7)
    response = client.post("/v1/replays", json=log)
    assert response.status_code == 200
    assert response.mimetype == JSON
    body = response.get_json()
    assert body == expected_replay(log)
    assert body["status"] == "complete"
    assert body["illegal"] is None
    assert body["next"] is None
    [deal] = body["deals"]
    assert deal["finished"] is True
    assert deal["outcome"] is not None
    assert "sides" not in deal  # tute-4p only
    assert deal["stock_left"] == 0
    assert sum(s["card_points"] for s in deal["scores"]) == 120
    assert sum(s["last_trick"] for s in deal["scores"]) == 10
    assert [s["player"] for s in body["match"]["standings"]] == ["p0", "p1"]


def test_replay_in_progress_says_who_acts_and_every_legal_move(client: ConformingClient) -> None:
    response = client.post("/v1/replays", json=four_player_log(play(0, "4O")))
    assert response.status_code == 200
    body = response.get_json()
    assert body["status"] == "in_progress"
    assert body["illegal"] is None
    assert body["next"] == {"seat": 1, "player": "bea", "legal_moves": [MOVE_1O]}
    [deal] = body["deals"]
    assert deal["dealer"] == 3
    assert deal["mano"] == 0
    assert deal["trump"] == "B"
    assert deal["finished"] is False
    assert deal["outcome"] is None
    open_trick = {"leader": 0, "plays": [{"seat": 0, "card": "4O"}], "winner": None}
    assert deal["tricks"] == [{**open_trick, "points": None, "draws": []}]
    assert deal["sides"] == [{"seats": [0, 2], "total": 0}, {"seats": [1, 3], "total": 0}]
    assert "stock_left" not in deal


def test_replay_with_a_renuncio_records_it_and_goes_on(client: ConformingClient) -> None:
    response = client.post("/v1/replays", json=four_player_log(play(0, "4O"), play(1, "2O")))
    body = response.get_json()
    assert body["status"] == "in_progress"
    assert body["deals"][0]["violations"] == [
        {
            "event": 1,
            "seat": 1,
            "card": "2O",
            "kind": "renuncio",
            "obligation": "montar",
            "correct": ["1O"],
            "trick": 0,
            "message": "Renuncio by bea in trick 1: played the two of oros, which does not beat "
            "the four of oros, while able to beat it; had to beat it (ace of oros)",
        }
    ]
    assert body["next"]["seat"] == 2
    assert body["next"]["legal_moves"] == [play(2, c) for c in CARLOS_OROS]


def test_replay_invalid_stops_at_the_illegal_event(client: ConformingClient) -> None:
    log = four_player_log(play(0, "4O"), play(2, "3O"), play(1, "1O"))
    response = client.post("/v1/replays", json=log)
    assert response.status_code == 200
    body = response.get_json()
    assert body["status"] == "invalid"
    assert body["illegal"] == {
        "deal": 0,
        "event": 1,
        "code": "out_of_turn",
        "message": "carlos cannot play now: it is bea's turn.",
    }
    assert body["next"] is None
    # the play up to that event only
    assert body["deals"][0]["tricks"][0]["plays"] == [{"seat": 0, "card": "4O"}]
    assert body == expected_replay(log)


def test_replay_card_not_in_hand(client: ConformingClient) -> None:
    body = client.post("/v1/replays", json=four_player_log(play(0, "4O"), play(1, "3O"))).json
    assert body["status"] == "invalid"
    assert body["illegal"]["code"] == "card_not_in_hand"
    assert body["illegal"]["message"] == "bea does not hold the three of oros."


@pytest.mark.parametrize(
    ("ruleset", "seed", "kwargs"),
    [
        ("tute-2p", 1, {"deals": 3}),
        ("tute-2p", 2, {"as_deck": True, "finish_last": False}),
        ("tute-3p", 3, {"renuncio_rate": 0.2}),
        ("tute-4p", 0, {"renuncio_rate": 0.1}),
        ("tute-cabron", 5, {"deals": 2}),
        ("tute-cabron", 6, {"finish_last": False, "stop_after": 0}),
        ("tute-gana-pierde", 7, {"players": 5, "as_deck": True}),
        ("tute-gana-pierde", 8, {"players": 3, "finish_last": False}),
    ],
)
def test_replay_is_the_library_answer(
    client: ConformingClient, ruleset: str, seed: int, kwargs: dict[str, Any]
) -> None:
    log = random_game(ruleset, seed, **kwargs)
    response = client.post("/v1/replays", json=log)
    assert response.status_code == 200
    assert response.get_json() == expected_replay(log)


def test_no_trump_is_null(client: ConformingClient) -> None:
    log = random_game("tute-cabron", 6, finish_last=False, stop_after=0)
    body = client.post("/v1/replays", json=log).get_json()
    assert body["status"] == "in_progress"
    assert body["deals"][0]["trump"] is None


def test_replay_french_notation_answers_in_french_codes(client: ConformingClient) -> None:
    log = four_player_log(play(0, "4O"), play(1, "2O"))
    french = copy.deepcopy(log)
    french["notation"] = "french"
    deal = french["deals"][0]
    deal["hands"] = [[format_card(parse_card(c), "french") for c in h] for h in deal["hands"]]
    deal["trump_card"] = format_card(parse_card("1B"), "french")
    for event in deal["events"]:
        event["card"] = format_card(parse_card(event["card"]), "french")
    body = client.post("/v1/replays", json=french).get_json()
    assert body["deals"][0]["trump"] == "C"
    [violation] = body["deals"][0]["violations"]
    assert violation["card"] == "2D"
    assert violation["correct"] == ["AD"]
    assert "the two of diamonds" in violation["message"]


# --- Accept-Language ----------------------------------------------------------------------------

ES_RENUNCIO = (
    "Renuncio de bea en la baza 1: jugó el dos de oros, que no supera el cuatro de oros, "
    "pudiendo superarla; debía montar (as de oros)"
)
EN_RENUNCIO = (
    "Renuncio by bea in trick 1: played the two of oros, which does not beat the four of oros, "
    "while able to beat it; had to beat it (ace of oros)"
)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ({"Accept-Language": "es"}, ES_RENUNCIO),
        ({"Accept-Language": "es-ES,es;q=0.9"}, ES_RENUNCIO),
        ({"Accept-Language": "fr, es;q=0.5"}, ES_RENUNCIO),
        ({"Accept-Language": "en"}, EN_RENUNCIO),
        ({"Accept-Language": "en-GB, es;q=0.5"}, EN_RENUNCIO),
        ({"Accept-Language": "fr"}, EN_RENUNCIO),
        ({}, EN_RENUNCIO),
    ],
)
def test_messages_follow_accept_language(
    client: ConformingClient, header: dict[str, str], expected: str
) -> None:
    log = four_player_log(play(0, "4O"), play(1, "2O"))
    for path in ("/v1/replays", "/v1/scores"):
        body = client.post(path, json=log, headers=header).get_json()
        assert body["deals"][0]["violations"][0]["message"] == expected
    move = {**four_player_log(play(0, "4O")), "move": play(1, "2O")}
    verdict = client.post("/v1/moves/validate", json=move, headers=header)
    assert verdict.get_json()["message"] == expected


# --- POST /v1/scores ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "seed", "keys"),
    [
        ("tute-4p", 0, {"scores", "sides", "outcome", "violations"}),
        ("tute-2p", 7, {"scores", "outcome", "violations"}),
    ],
)
def test_scores_keep_only_scores_sides_outcome_violations(
    client: ConformingClient, ruleset: str, seed: int, keys: set[str]
) -> None:
    log = random_game(ruleset, seed, renuncio_rate=0.1)
    response = client.post("/v1/scores", json=log)
    assert response.status_code == 200
    body = response.get_json()
    full = arbiter.replay(log).to_dict()
    assert set(body) == {"status", "illegal", "deals", "match"}
    assert body["status"] == full["status"] == "complete"
    assert body["illegal"] is None
    assert body["match"] == full["match"]
    assert len(body["deals"]) == len(full["deals"]) == 1
    for got, deal in zip(body["deals"], full["deals"], strict=True):
        assert set(got) == keys
        assert got == {k: deal[k] for k in keys}


def test_scores_of_a_deal_decided_by_a_renuncio(client: ConformingClient) -> None:
    log = random_game("tute-4p", 0, renuncio_rate=0.1)
    [deal] = client.post("/v1/scores", json=log).get_json()["deals"]
    assert [(v["obligation"], v["event"], v["seat"]) for v in deal["violations"]] == [
        ("asistir", 11, 3)
    ]
    assert deal["outcome"] == {
        "winners": [0, 2],
        "losers": [1, 3],
        "reason": "renuncio",
        "message": "p3's renuncio decided the deal: p0 and p2 won it.",
    }
    assert deal["sides"][0]["seats"] == [0, 2]


def test_scores_of_an_invalid_log(client: ConformingClient) -> None:
    body = client.post("/v1/scores", json=four_player_log(play(1, "1O"))).get_json()
    assert body["status"] == "invalid"
    assert body["illegal"]["code"] == "out_of_turn"
    assert body["illegal"]["deal"] == 0
    assert body["illegal"]["event"] == 0
    assert body["deals"][0]["outcome"] is None


# --- POST /v1/moves/validate --------------------------------------------------------------------


def validate(client: ConformingClient, move: dict[str, Any], lang: str | None = None) -> Any:
    headers = {} if lang is None else {"Accept-Language": lang}
    body = {**four_player_log(play(0, "4O")), "move": move}
    return client.post("/v1/moves/validate", json=body, headers=headers)


@pytest.mark.parametrize(
    ("lang", "message"),
    [("es", "bea puede jugar el as de oros."), ("en", "bea may play the ace of oros."),
     (None, "bea may play the ace of oros.")],
)  # fmt: skip
def test_validate_ok(client: ConformingClient, lang: str | None, message: str) -> None:
    response = validate(client, MOVE_1O, lang)
    assert response.status_code == 200
    body = response.get_json()
    assert {k: v for k, v in body.items() if k != "state_id"} == {
        "legal": True,
        "verdict": "ok",
        "obligation": None,
        "code": None,
        "message": message,
        "correct": None,
        "legal_moves": [MOVE_1O],
    }


@pytest.mark.parametrize(
    ("card", "obligation", "lang", "message"),
    [
        ("2O", "montar", "en", EN_RENUNCIO),
        ("2O", "montar", "es", ES_RENUNCIO),
        ("12C", "asistir", "en", "Renuncio by bea in trick 1: played the king of copas while "
         "holding oros; had to follow suit (ace of oros)"),
        ("12C", "asistir", "es", "Renuncio de bea en la baza 1: jugó el rey de copas teniendo "
         "oros; debía asistir (as de oros)"),
    ],
)  # fmt: skip
def test_validate_renuncio_names_the_obligation(
    client: ConformingClient, card: str, obligation: str, lang: str, message: str
) -> None:
    body = validate(client, play(1, card), lang).get_json()
    assert body == {
        "legal": False,
        "verdict": "renuncio",
        "obligation": obligation,
        "code": None,
        "message": message,
        "correct": ["1O"],
        "legal_moves": [MOVE_1O],
        "state_id": None,
    }


@pytest.mark.parametrize(
    ("move", "code", "lang", "message"),
    [
        (play(1, "3O"), "card_not_in_hand", "en", "bea does not hold the three of oros."),
        (play(1, "3O"), "card_not_in_hand", "es", "bea no tiene el tres de oros."),
        (play(2, "3O"), "out_of_turn", None, "carlos cannot play now: it is bea's turn."),
        (play(2, "3O"), "out_of_turn", "es", "carlos no puede jugar ahora: es el turno de bea."),
        ({"type": "sing", "seat": 1, "suit": "O"}, "not_on_lead", "en",
         "bea cannot sing in oros: only the player about to lead a trick may do so."),
        ({"type": "exchange", "seat": 1}, "not_in_ruleset", "en",
         "tute-4p has no such declaration: bea cannot exchange the seven of trumps."),
    ],
)  # fmt: skip
def test_validate_illegal_gives_the_code(
    client: ConformingClient, move: dict[str, Any], code: str, lang: str | None, message: str
) -> None:
    body = validate(client, move, lang).get_json()
    assert body == {
        "legal": False,
        "verdict": "illegal",
        "obligation": None,
        "code": code,
        "message": message,
        "correct": None,
        "legal_moves": [MOVE_1O],
        "state_id": None,
    }


def test_validate_on_a_finished_deal_is_deal_over(client: ConformingClient) -> None:
    log = random_game("tute-2p", 7)
    body = client.post("/v1/moves/validate", json={**log, "move": play(1, "1O")}).get_json()
    assert body["verdict"] == "illegal"
    assert body["code"] == "deal_over"
    assert body["legal_moves"] == []


def test_validate_unknown_state_id_is_409(client: ConformingClient) -> None:
    response = client.post(
        "/v1/moves/validate", json={"state_id": "v1.no-such-state", "move": MOVE_1O}
    )
    body = assert_problem(response, 409, "unknown-state")
    assert "errors" not in body


def test_validate_on_an_invalid_log_points_at_the_illegal_event(client: ConformingClient) -> None:
    body = {**four_player_log(play(0, "4O"), play(2, "3O")), "move": MOVE_1O}
    assert_invalid(client.post("/v1/moves/validate", json=body), "/deals/0/events/1")


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        ({"move": MOVE_1O}, "/ruleset"),
        (four_player_log(), "/move"),
        ({"state_id": "", "move": MOVE_1O}, "/state_id"),
        ({**four_player_log(play(0, "4O")), "move": play(4, "1O")}, "/move/seat"),
        ({**four_player_log(play(0, "4O")), "move": play(7, "1O")}, "/move/seat"),
        ({**four_player_log(play(0, "4O")), "move": {"type": "play", "seat": 1}}, "/move/card"),
        ({**four_player_log(play(0, "4O")), "move": {"type": "fold", "seat": 1}}, "/move/type"),
        ({**four_player_log(play(0, "4O")), "move": {"type": "tute", "seat": 1, "of": "x"}},
         "/move/of"),
    ],
)  # fmt: skip
def test_validate_malformed_body_is_422(
    client: ConformingClient, body: dict[str, Any], pointer: str
) -> None:
    assert_invalid(client.post("/v1/moves/validate", json=body), pointer)


@pytest.mark.parametrize(
    ("move", "pointer", "message"),
    [
        (play(1, "99Z"), "/move/card", "'99Z' is not a spanish card code"),
        ({"type": "sing", "seat": 1, "suit": "Z"}, "/move/suit", "'Z' is not a spanish suit code"),
    ],
)
def test_validate_bad_code_in_move_points_at_the_field(
    client: ConformingClient, move: dict[str, Any], pointer: str, message: str
) -> None:
    # regression: this was reported at "/move" with the message "/card: ..." (fixed in 3d9ee85)
    assert_invalid(validate(client, move), pointer, message)


def test_validate_move_by_move_with_state_ids(client: ConformingClient) -> None:
    first = validate(client, MOVE_1O).get_json()
    assert first["verdict"] == "ok"
    assert isinstance(first["state_id"], str)
    response = client.post(
        "/v1/moves/validate", json={"state_id": first["state_id"], "move": play(2, "3O")}
    )
    assert response.status_code == 200
    assert response.get_json()["verdict"] == "ok"


def test_replay_in_progress_returns_a_usable_state_id(client: ConformingClient) -> None:
    body = client.post("/v1/replays", json=four_player_log(play(0, "4O"))).get_json()
    assert isinstance(body["state_id"], str)
    response = client.post(
        "/v1/moves/validate", json={"state_id": body["state_id"], "move": MOVE_1O}
    )
    assert response.status_code == 200
    assert response.get_json()["verdict"] == "ok"


# --- rulesets -----------------------------------------------------------------------------------

RULESET_NAMES = ["tute-2p", "tute-3p", "tute-4p", "tute-cabron", "tute-gana-pierde"]


def test_rulesets(client: ConformingClient) -> None:
    response = client.get("/v1/rulesets")
    assert response.status_code == 200
    body = response.get_json()
    assert [r["name"] for r in body] == RULESET_NAMES
    by_name = {r["name"]: r for r in body}
    assert by_name["tute-gana-pierde"]["players"] == [3, 4, 5]
    assert by_name["tute-gana-pierde"]["cards_per_player"] == {"3": 12, "4": 10, "5": 8}
    assert by_name["tute-2p"]["cards_per_player"] == {"2": 8}
    assert by_name["tute-2p"]["options"]["match_target"] == {
        "type": "integer",
        "default": 3,
        "allowed": [3, 5, 7],
        "description": "Deals a player (or side) must win to win the match.",
    }
    assert by_name["tute-4p"]["options"]["partner_relief"]["default"] is False
    for ruleset in body:
        assert set(ruleset) >= {"name", "title", "players", "cards_per_player", "description"}
        for option in ruleset["options"].values():
            assert {"type", "default", "description"} <= set(option)


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_one_ruleset(client: ConformingClient, name: str) -> None:
    response = client.get(f"/v1/rulesets/{name}")
    assert response.status_code == 200
    everything = client.get("/v1/rulesets").get_json()
    assert response.get_json() == next(r for r in everything if r["name"] == name)


@pytest.mark.parametrize("name", ["tute-5p", "TUTE-2P", "%00", "x" * 300])
def test_unknown_ruleset_is_404(client: ConformingClient, name: str) -> None:
    body = assert_problem(client.get(f"/v1/rulesets/{name}"), 404, "not-found")
    assert body["title"] == "Not Found"


# --- errors -------------------------------------------------------------------------------------

POST_PATHS = ["/v1/replays", "/v1/scores", "/v1/moves/validate", "/v1/positions"]


@pytest.mark.parametrize("path", POST_PATHS)
@pytest.mark.parametrize(
    "raw", [b"", b"{", b"{'ruleset': 1}", b'{"a": NaN}', b"\xff\xfe{}", b"[" * 2000]
)
def test_body_not_json_is_400(client: ConformingClient, path: str, raw: bytes) -> None:
    body = assert_problem(client.post(path, data=raw, content_type=JSON), 400, "bad-request")
    assert body["title"] == "Bad Request"
    assert "errors" not in body


@pytest.mark.parametrize("path", POST_PATHS)
@pytest.mark.parametrize(
    "content_type", [None, "text/plain", "application/x-www-form-urlencoded", "application/xml"]
)
def test_wrong_content_type_is_415(
    client: ConformingClient, path: str, content_type: str | None
) -> None:
    raw = orjson.dumps(four_player_log())
    kwargs = {} if content_type is None else {"content_type": content_type}
    body = assert_problem(client.post(path, data=raw, **kwargs), 415, "unsupported-media-type")
    assert body["title"] == "Unsupported Media Type"


@pytest.mark.parametrize("content_type", ["application/json; charset=utf-8", "application/x+json"])
def test_json_content_types_are_accepted(client: ConformingClient, content_type: str) -> None:
    raw = orjson.dumps(four_player_log())
    assert client.post("/v1/replays", data=raw, content_type=content_type).status_code == 200


MIB = 1024 * 1024


@pytest.mark.parametrize("path", POST_PATHS)
def test_body_over_the_default_limit_is_413(client: ConformingClient, path: str) -> None:
    log = {**four_player_log(play(0, "4O")), "move": MOVE_1O}
    assert client.post(path, data=padded_body(log, MIB), content_type=JSON).status_code == 200
    response = client.post(path, data=padded_body(log, MIB + 1), content_type=JSON)
    body = assert_problem(response, 413, "body-too-large")
    assert body["detail"] == "The request body is larger than the limit of 1048576 bytes."


def test_body_over_a_configured_limit_is_413() -> None:
    client = make_client(max_body_bytes=1000)
    log = four_player_log()
    at_limit = client.post("/v1/replays", data=padded_body(log, 1000), content_type=JSON)
    assert at_limit.status_code == 200
    assert at_limit.get_json()["status"] == "in_progress"
    response = client.post("/v1/replays", data=padded_body(log, 1001), content_type=JSON)
    body = assert_problem(response, 413, "body-too-large")
    assert body["detail"] == "The request body is larger than the limit of 1000 bytes."


def mutate(log: dict[str, Any], change: Any) -> dict[str, Any]:
    out = copy.deepcopy(log)
    change(out)
    return out


BASE_2P = random_game("tute-2p", 7)
BASE_4P = four_player_log(play(0, "4O"))
BASE_3P = random_game("tute-3p", 3)
STOCK_0 = BASE_2P["deals"][0]["stock"][0]
EXCHANGE_0 = {"type": "exchange", "seat": 0}


@pytest.mark.parametrize(
    ("body", "pointer", "message"),
    [
        ([1, 2], "", "The body must be a JSON object."),
        ({}, "/ruleset", "missing"),
        (mutate(BASE_2P, lambda b: b.update(ruleset="tute-9p")), "/ruleset", None),
        (mutate(BASE_2P, lambda b: b.update(options={"foo": 1})), "/options/foo",
         "tute-2p has no option 'foo'"),
        (mutate(BASE_2P, lambda b: b.update(options={"match_target": 4})),
         "/options/match_target", None),
        (mutate(BASE_2P, lambda b: b.update(options={"loser_target": 2})),
         "/options/loser_target", "tute-2p has no option 'loser_target'"),
        (mutate(BASE_2P, lambda b: b.update(options=None)), "/options", None),
        (mutate(BASE_2P, lambda b: b.update(notation="german")), "/notation", None),
        (mutate(BASE_2P, lambda b: b.update(players=[1, "b"])), "/players/0", None),
        (mutate(BASE_2P, lambda b: b.update(players=["a", "a"])), "/players/1", None),
        (mutate(BASE_2P, lambda b: b.update(players=["a", " "])), "/players/1", None),
        (mutate(BASE_2P, lambda b: b.update(players=["a", "b", "c"])), "/players",
         "tute-2p is played by 2 players"),
        (mutate(BASE_2P, lambda b: b.update(deals=[])), "/deals", None),
        (mutate(BASE_2P, lambda b: b.update(deals=b["deals"] * 101)), "/deals", None),
        (mutate(BASE_2P, lambda b: b.update(deals=[1])), "/deals/0", None),
        (mutate(BASE_2P, lambda b: b["deals"][0]["hands"][1].__setitem__(3, "13O")),
         "/deals/0/hands/1/3", "'13O' is not a spanish card code"),
        (mutate(BASE_2P, lambda b: b["deals"][0]["hands"][1].__setitem__(3, STOCK_0)),
         "/deals/0/stock/0", None),
        (mutate(BASE_2P, lambda b: b["deals"][0]["hands"][1].pop()), "/deals/0/hands/1", None),
        (mutate(BASE_2P, lambda b: b["deals"][0]["hands"].append([])), "/deals/0/hands", None),
        (mutate(BASE_2P, lambda b: b["deals"][0].pop("stock")), "/deals/0/stock", None),
        (mutate(BASE_2P, lambda b: b["deals"][0]["stock"].pop(0)), "/deals/0/stock", None),
        (mutate(BASE_2P, lambda b: b["deals"][0].update(trump_card="1O")),
         "/deals/0/trump_card", None),
        (mutate(BASE_2P, lambda b: b["deals"][0].update(deck=[])), "/deals/0", None),
        (mutate(BASE_2P, lambda b: b["deals"][0].update(dealer=2)), "/deals/0/dealer", None),
        (mutate(BASE_2P, lambda b: b["deals"][0].update(events="x")), "/deals/0/events", None),
        (mutate(BASE_2P, lambda b: b["deals"][0]["events"].__setitem__(5, 1)),
         "/deals/0/events/5", None),
        (mutate(BASE_2P, lambda b: b["deals"][0]["events"][5].update(card="1X")),
         "/deals/0/events/5/card", "'1X' is not a spanish card code"),
        (mutate(BASE_2P, lambda b: b["deals"][0]["events"][5].update(seat=2)),
         "/deals/0/events/5/seat", None),
        (mutate(BASE_2P, lambda b: b["deals"][0]["events"][5].update(type="fold")),
         "/deals/0/events/5/type", None),
        (mutate(BASE_2P, lambda b: b["deals"][0]["events"].extend([EXCHANGE_0] * 40)),
         "/deals/0/events", None),
        (mutate(BASE_2P, lambda b: b["deals"].insert(0, {**b["deals"][0], "events": []})),
         "/deals/0", "this deal is unfinished; only the last deal of a log may be"),
        (mutate(BASE_4P, lambda b: b["deals"][0].update(trump_card="1O")),
         "/deals/0/trump_card", "1O is not in the dealer's hand (seat 3)"),
        (mutate(BASE_4P, lambda b: b["deals"][0].pop("trump_card")), "/deals/0/trump_card",
         None),
        (mutate(BASE_3P, lambda b: b["deals"][0]["hands"][2].__setitem__(0, "2O")),
         "/deals/0/hands/2/0", "2O is not in the pack of tute-3p with 3 players"),
    ],
)  # fmt: skip
def test_schema_and_setup_errors_are_422_pointing_at_the_field(
    client: ConformingClient, body: Any, pointer: str, message: str | None
) -> None:
    for path in ("/v1/replays", "/v1/scores"):
        assert_invalid(client.post(path, json=body), pointer, message)


def test_a_duplicated_card_is_named(client: ConformingClient) -> None:
    hands = BASE_2P["deals"][0]["hands"]
    log = mutate(BASE_2P, lambda b: b["deals"][0]["hands"][1].__setitem__(3, hands[0][0]))
    message = f"{hands[0][0]} appears twice (also at hands/0/0)"
    assert_invalid(client.post("/v1/replays", json=log), "/deals/0/hands/1/3", message)


def test_too_long_player_name_with_a_configured_limit() -> None:
    client = make_client(max_name_length=5)
    ok = mutate(BASE_2P, lambda b: b.update(players=["aaaaa", "b"]))
    assert client.post("/v1/replays", json=ok).status_code == 200
    log = mutate(BASE_2P, lambda b: b.update(players=["aaaaaa", "b"]))
    assert_invalid(client.post("/v1/replays", json=log), "/players/0", "longer than 5 characters")
    log = mutate(BASE_2P, lambda b: b.update(players=["a", "bbbbbb"]))
    assert_invalid(client.post("/v1/replays", json=log), "/players/1")


def test_too_long_player_name_with_the_default_limit(client: ConformingClient) -> None:
    ok = mutate(BASE_2P, lambda b: b.update(players=["a" * 64, "b"]))
    assert client.post("/v1/replays", json=ok).status_code == 200
    log = mutate(BASE_2P, lambda b: b.update(players=["a" * 65, "b"]))
    assert_invalid(client.post("/v1/replays", json=log), "/players/0", "longer than 64 characters")


def test_too_many_deals_with_a_configured_limit() -> None:
    client = make_client(max_deals=1)
    log = random_game("tute-2p", 1, deals=2)
    assert len(log["deals"]) == 2
    assert_invalid(client.post("/v1/replays", json=log), "/deals", "at most 1 deals")
    response = client.post("/v1/moves/validate", json={**log, "move": MOVE_1O})
    assert_invalid(response, "/deals", "at most 1 deals")
    assert client.post("/v1/replays", json=random_game("tute-2p", 1)).status_code == 200


@pytest.mark.parametrize(
    ("method", "path"),
    [("get", "/nope"), ("post", "/v1/replay"), ("get", "/v1"), ("get", "/v2/rulesets")],
)
def test_unknown_path_is_404(client: ConformingClient, method: str, path: str) -> None:
    assert_problem(client.open(path, method=method.upper()), 404, "not-found")


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("GET", "/v1/replays", {"POST", "OPTIONS"}),
        ("PUT", "/v1/scores", {"POST", "OPTIONS"}),
        ("GET", "/v1/moves/validate", {"POST", "OPTIONS"}),
        ("POST", "/v1/rulesets", {"GET", "HEAD", "OPTIONS"}),
        ("DELETE", "/v1/rulesets/tute-2p", {"GET", "HEAD", "OPTIONS"}),
        ("POST", "/healthz", {"GET", "HEAD", "OPTIONS"}),
        ("POST", "/metrics", {"GET", "HEAD", "OPTIONS"}),
    ],
)
def test_wrong_method_is_405(
    client: ConformingClient, method: str, path: str, allowed: set[str]
) -> None:
    response = client.open(path, method=method)
    body = assert_problem(response, 405, "method-not-allowed")
    assert body["title"] == "Method Not Allowed"
    assert {m.strip() for m in response.headers["Allow"].split(",")} == allowed


# --- request ids --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "kwargs"),
    [
        ("GET", "/healthz", {}),
        ("POST", "/v1/replays", {"json": BASE_4P}),
        ("POST", "/v1/replays", {"data": b"{", "content_type": JSON}),
        ("GET", "/nope", {}),
    ],
)
def test_request_id_is_echoed(
    client: ConformingClient, method: str, path: str, kwargs: dict[str, Any]
) -> None:
    response = client.open(path, method=method, headers={"X-Request-ID": "test-42"}, **kwargs)
    assert response.headers["X-Request-ID"] == "test-42"
    if response.mimetype == PROBLEM_JSON:
        assert response.get_json()["request_id"] == "test-42"


def test_request_id_is_made_when_missing_or_unusable(client: ConformingClient) -> None:
    seen = set()
    for header in ({}, {"X-Request-ID": "x" * 129}, {"X-Request-ID": "a\tb"}):
        response = client.get("/v1/rulesets/nope", headers=header)
        request_id = response.headers["X-Request-ID"]
        assert re.fullmatch(r"[0-9a-f]{32}", request_id), request_id
        assert response.get_json()["request_id"] == request_id
        seen.add(request_id)
    assert len(seen) == 3
    longest = "y" * 128
    response = client.get("/healthz", headers={"X-Request-ID": longest})
    assert response.headers["X-Request-ID"] == longest


# --- service endpoints --------------------------------------------------------------------------


def test_healthz(client: ConformingClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.mimetype == JSON
    assert response.get_json() == {
        "status": "ok",
        "version": arbiter.__version__,
        "build": arbiter.BUILD,
    }


def test_readyz(client: ConformingClient) -> None:
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.get_json()
    assert set(body) == {"status", "cache"}
    assert set(body["cache"]) == {"backend", "reachable"}
    assert isinstance(body["cache"]["backend"], str)
    assert body["cache"]["backend"]
    assert body["cache"]["reachable"] is True
    assert body["status"] == "ready"


def test_metrics_count_requests_and_verdicts(client: ConformingClient) -> None:
    before = client.get("/metrics")
    assert before.status_code == 200
    assert before.mimetype == "text/plain"
    assert "version=0.0.4" in before.headers["Content-Type"]
    text = before.get_data(as_text=True)
    healthz = {"method": "GET", "endpoint": "/healthz", "status": "200"}
    assert metric_value(text, "arbiter_requests_total", **healthz) == 0

    for _ in range(3):
        client.get("/healthz")
    client.post("/v1/replays", json=four_player_log(play(0, "4O"), play(1, "2O")))
    client.post("/v1/scores", json=four_player_log(play(0, "4O"), play(1, "12C")))
    validate(client, play(1, "2O"))
    client.post("/v1/replays", json=four_player_log(play(0, "4O"), play(2, "3O")))
    validate(client, play(1, "3O"))
    client.post("/v1/replays", data=b"{", content_type=JSON)
    client.get("/nope")
    client.get("/v1/rulesets/nope")

    text = client.get("/metrics").get_data(as_text=True)

    def requests(method: str, endpoint: str, status: str) -> float:
        return metric_value(
            text, "arbiter_requests_total", method=method, endpoint=endpoint, status=status
        )

    assert requests("GET", "/healthz", "200") == 3
    assert requests("GET", "/metrics", "200") == 1
    assert requests("POST", "/v1/replays", "200") == 2
    assert requests("POST", "/v1/replays", "400") == 1
    assert requests("POST", "/v1/scores", "200") == 1
    assert requests("POST", "/v1/moves/validate", "200") == 2
    assert requests("GET", "/v1/rulesets/<string:name>", "404") == 1
    assert requests("GET", "unmatched", "404") == 1  # not one series per unknown path
    assert metric_value(text, "arbiter_renuncios_total", obligation="montar") == 2
    assert metric_value(text, "arbiter_renuncios_total", obligation="asistir") == 1
    assert metric_value(text, "arbiter_illegal_events_total", code="out_of_turn") == 1
    assert metric_value(text, "arbiter_illegal_events_total", code="card_not_in_hand") == 1
    assert (
        metric_value(
            text, "arbiter_request_duration_seconds_count", method="GET", endpoint="/healthz"
        )
        == 3
    )


def test_metrics_are_per_app(client: ConformingClient) -> None:
    client.get("/healthz")
    other = make_client().get("/metrics").get_data(as_text=True)
    healthz = {"method": "GET", "endpoint": "/healthz", "status": "200"}
    assert metric_value(other, "arbiter_requests_total", **healthz) == 0
    assert metric_value(client.get("/metrics").text, "arbiter_requests_total", **healthz) == 1


URL = re.compile(r"""(?:https?:)?//[^\s"'<>)]+""", re.IGNORECASE)


def test_docs_page_uses_only_local_assets() -> None:
    client = make_client()
    host = "arbiter.internal:8080"
    assert client.get("/docs").status_code in {301, 308}
    response = client.get("/docs/", base_url=f"http://{host}")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    foreign = [u for u in URL.findall(html) if urlsplit(u).netloc != host]
    assert foreign == [], f"/docs references other hosts: {foreign}"
    assert "/v1/openapi.yaml" in html
    assets = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", html)
    scripts = [a for a in assets if a.endswith(".js")]
    assert scripts, "the page loads no script"
    for asset in assets:
        path = urlsplit(asset).path
        if not path.startswith("/"):
            path = "/docs/" + path
        asset_response = client.get(path, base_url=f"http://{host}")
        assert asset_response.status_code == 200, asset
        assert asset_response.get_data(), asset
    spec_response = client.get("/v1/openapi.yaml", base_url=f"http://{host}")
    assert spec_response.status_code == 200


def test_no_request_gets_a_500_or_a_stack_trace(client: ConformingClient) -> None:
    weird: list[Any] = [
        {"ruleset": "tute-2p", "players": ["a", "b"], "deals": [{"hands": [[1], [None]]}]},
        {"ruleset": "tute-2p", "players": ["a", "b"], "deals": [{"deck": "x"}]},
        {"ruleset": "tute-2p", "players": ["a", "b"], "deals": [{"deck": [[], {}]}]},
        {
            "ruleset": "tute-4p",
            "players": PLAYERS_4,
            "deals": [{"hands": [[]] * 4, "trump_card": ["1B"]}],
        },
        {
            "ruleset": "tute-2p",
            "players": ["a", "b"],
            "options": {"call_ranks": "x"},
            "deals": [{}],
        },
        {
            "ruleset": "tute-cabron",
            "players": ["a", "b", "c"],
            "options": {"call_ranks": [1, 1]},
            "deals": [{}],
        },
        {**BASE_4P, "move": {"type": "play", "seat": 1, "card": ["1O"]}},
        {**BASE_4P, "move": None},
        {**BASE_4P, "state_id": 5, "move": MOVE_1O},
        {"ruleset": "tute-2p", "players": ["a", "b"], "deals": [{"dealer": True, "deck": []}]},
    ]
    for body in weird:
        for path in POST_PATHS:
            response = client.post(path, json=body)
            assert response.status_code in {200, 409, 422}, (path, body, response.json)
            assert "Traceback" not in response.get_data(as_text=True)


# --- examples/ ----------------------------------------------------------------------------------

EXAMPLE_FILES = sorted(EXAMPLES_DIR.rglob("*.json")) if EXAMPLES_DIR.is_dir() else []


@pytest.mark.parametrize(
    "path",
    EXAMPLE_FILES
    or [pytest.param(None, marks=pytest.mark.skip(reason="no JSON file in examples/ yet"))],
    ids=lambda p: "none" if p is None else str(p.relative_to(EXAMPLES_DIR)),
)
def test_example_files_replay_as_the_library_does(client: ConformingClient, path: Any) -> None:
    log = json.loads(path.read_text(encoding="utf-8"))
    try:
        expected = expected_replay(log)
    except ArbiterError as err:
        body = assert_problem(client.post("/v1/replays", json=log), 422, "invalid-log")
        assert body["errors"][0]["pointer"] == err.pointer
        return
    response = client.post("/v1/replays", json=log)
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    assert response.get_json() == expected


def test_assert_conforms_catches_a_wrong_body(client: ConformingClient) -> None:
    """The conformance helper itself can fail (so the checks above mean something)."""
    response = client.get("/healthz")
    response.set_data(b'{"status": 1}')
    with pytest.raises(AssertionError):
        assert_conforms(response, "/healthz", "get")
    problem = client.get("/v1/rulesets/nope")
    problem.set_data(orjson.dumps({**problem.get_json(), "status": "404"}))
    with pytest.raises(AssertionError):
        assert_conforms(problem, "/v1/rulesets/{name}", "get")
    with pytest.raises(AssertionError, match="does not document"):
        assert_conforms(problem, "/healthz", "get")
