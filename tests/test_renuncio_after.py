"""A renuncio is a card actually played: judged on a position or a ``state_id``, the verdict
carries ``after`` (docs/api.md, ``POST /v1/moves/validate``): the position with the card
played and the renuncio recorded, and its token, so that a client goes on from there.
``state_id`` itself stays null, and a verdict on a log has no ``after`` (its next, longer log
says the same).
"""

from __future__ import annotations

import json
import random
from typing import Any

from arbiter.engine.match import replay
from arbiter.engine.moves import Move
from arbiter.engine.position import Position, Ruling
from arbiter.report import position_dict, read_position_json
from arbiter.service import Referee
from arbiter.simulate import random_log
from tests.api_support import make_client
from tests.test_position_value import every_move


def renuncio_point(ruleset: str, players: int) -> tuple[dict[str, Any], Position, Move]:
    """An unfinished log with no renuncio yet, its last position, and a renuncio there."""
    for seed in range(200):
        log = random_log(
            ruleset, random.Random(seed), players=players, finish_last=False, renuncio_rate=0
        )
        match = replay(log)
        position = match.position()
        if position.deal.violations or position.deal.over:
            continue
        for move in every_move(players):
            if position.judge(move).verdict is Ruling.RENUNCIO:
                return log, position, move
    raise AssertionError("no renuncio found")


def test_a_renuncio_on_a_given_position_goes_on_with_the_card_played() -> None:
    _, position, move = renuncio_point("tute-4p", 4)
    body = json.loads(json.dumps(position_dict(position)))
    sent_move = move.to_json(position.header.notation)
    client = make_client()
    answer = client.post("/v1/moves/validate", json={"position": body, "move": sent_move})
    assert answer.status_code == 200, answer.get_json()
    verdict = answer.get_json()
    assert verdict["verdict"] == "renuncio" and verdict["state_id"] is None
    assert "position" not in verdict
    after = verdict["after"]
    expected = position.after(move)
    assert after["position"] == json.loads(json.dumps(position_dict(expected)))
    recorded = after["position"]["renuncios"][-1]
    assert (recorded["seat"], recorded["card"]) == (sent_move["seat"], sent_move["card"])
    assert recorded["obligation"] == verdict["obligation"]
    # the deal is decided by its first renuncio, and the card is on the table or in a trick
    assert after["position"]["decided"]["kind"] == "renuncio"
    assert sent_move["card"] not in after["position"]["hands"][sent_move["seat"]]
    # the client goes on: from the token, and from the position sent back
    next_move = after["position"]["legal_moves"][0]
    on_token = client.post(
        "/v1/moves/validate", json={"state_id": after["state_id"], "move": next_move}
    )
    assert on_token.status_code == 200 and on_token.get_json()["legal"]
    on_position = client.post(
        "/v1/moves/validate", json={"position": after["position"], "move": next_move}
    )
    assert on_position.status_code == 200 and on_position.get_json()["legal"]
    assert on_position.get_json()["message"] == on_token.get_json()["message"]


def test_a_renuncio_on_a_state_id_goes_on_with_the_card_played() -> None:
    log, position, move = renuncio_point("tute-2p", 2)
    client = make_client()
    state_id = client.post("/v1/replays", json=log).get_json()["state_id"]
    sent_move = move.to_json(position.header.notation)
    verdict = client.post(
        "/v1/moves/validate", json={"state_id": state_id, "move": sent_move}
    ).get_json()
    assert verdict["verdict"] == "renuncio" and verdict["state_id"] is None
    after = verdict["after"]
    assert isinstance(after["state_id"], str)
    assert after["position"]["tricks"] is None  # a token's position has no past tricks
    assert after["position"]["renuncios"][-1]["card"] == sent_move["card"]
    # the token keeps what decided the deal, not the past renuncios (as any token: no history)
    opened = client.post("/v1/positions", json={"state_id": after["state_id"]}).get_json()
    assert opened["position"]["decided"] == after["position"]["decided"]
    assert opened["position"]["decided"]["seat"] == sent_move["seat"]
    opened["position"]["renuncios"] = after["position"]["renuncios"]
    assert opened["position"] == after["position"]


def test_only_a_renuncio_on_a_position_or_a_token_carries_after() -> None:
    log, position, move = renuncio_point("tute-3p", 3)
    client = make_client()
    on_log = client.post(
        "/v1/moves/validate", json={**log, "move": move.to_json(position.header.notation)}
    ).get_json()
    assert on_log["verdict"] == "renuncio" and "after" not in on_log
    body = json.loads(json.dumps(position_dict(position)))
    for other in every_move(3):
        ruling = position.judge(other).verdict
        if ruling is Ruling.RENUNCIO:
            continue
        verdict = client.post(
            "/v1/moves/validate",
            json={"position": body, "move": other.to_json(position.header.notation)},
        ).get_json()
        assert "after" not in verdict, other


def test_the_library_answers_the_position_after_the_renuncio() -> None:
    _, position, move = renuncio_point("tute-cabron", 3)
    body = json.loads(json.dumps(position_dict(position)))
    referee = Referee()  # no sealer: the token is null, the position is there
    verdict = referee.validate_position(body, move.to_json(position.header.notation))
    assert verdict.judgement.verdict is Ruling.RENUNCIO
    assert verdict.played is not None and verdict.played_state_id is None
    shown: dict[str, Any] = verdict.to_dict()
    assert shown["after"] == {"position": position_dict(verdict.played), "state_id": None}
    assert (
        position_dict(read_position_json(shown["after"]["position"])) == shown["after"]["position"]
    )
    assert verdict.played.deal.violations[-1] == position.after(move).deal.violations[-1]
