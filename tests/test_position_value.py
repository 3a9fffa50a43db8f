"""The position as a value: read back from its view and from its JSON, it judges every move as the
original does; and a position given from outside is checked, each fault named by its pointer.

- :func:`test_from_view_judges_every_move_alike` / :func:`test_json_judges_every_move_alike`
  (hypothesis, every ruleset and table size, renuncios and declarations in the games): at a random
  point of a random match, every move of every seat (each card, each declaration) is judged the
  same on ``Position.from_view(p.view())`` and on the position read from ``position_dict(p)``;
  both give the same view (and JSON) again;
- the facts the position carries (the trick's winner, the cards a declaration rests on, the
  captured cards, the draws, what decided the deal) are the replay's;
- each kind of fault of a position given from outside is refused with its JSON pointer.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.engine.errors import ArbiterError, ArbiterErrors
from arbiter.engine.match import replay
from arbiter.engine.moves import Move
from arbiter.engine.position import Position
from arbiter.report import position_dict, read_position_json, view_dict
from arbiter.simulate import random_log
from tests.api_support import ANY_STATE_ID, assert_problem, make_client
from tests.reference import TABLES
from tests.test_model import every_move as all_moves


def game(ruleset: str, players: int, seed: int) -> dict[str, Any]:
    """A random match (renuncios and declarations among its moves)."""
    return random_log(
        ruleset, random.Random(seed), players=players, deals=3, renuncio_rate=0.1, declare_rate=0.8
    )


def positions(ruleset: str, players: int, seed: int) -> list[Position]:
    """Every position of :func:`game`."""
    log = game(ruleset, players, seed)
    seen: list[Position] = []
    replay(log, observer=lambda m: seen.append(m.position().copy()))
    return seen


def every_move(players: int) -> list[Move]:
    """Every move of every seat: each card, each cante, both tutes, the exchange."""
    return [m for m in all_moves() if m.seat < players]


def pick(data: st.DataObject) -> Position:
    ruleset, players = data.draw(st.sampled_from(TABLES), label="table")
    seed = data.draw(st.integers(0, 10_000), label="seed")
    found = positions(ruleset, players, seed)
    return found[data.draw(st.integers(0, len(found) - 1), label="point")]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_from_view_judges_every_move_alike(data: st.DataObject) -> None:
    position = pick(data)
    view = position.view()
    again = Position.from_view(view)
    assert again.view() == view
    for move in every_move(len(position.header.players)):
        assert again.judge(move) == position.judge(move), move


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_json_judges_every_move_alike(data: st.DataObject) -> None:
    position = pick(data)
    body = json.loads(json.dumps(position_dict(position)))
    again = read_position_json(body)
    assert position_dict(again) == body
    for move in every_move(len(position.header.players)):
        assert again.judge(move) == position.judge(move), move


def test_a_judged_position_goes_on_as_the_original() -> None:
    """Moves applied to the position read back give the same views while no card is drawn
    (the stock's order is not in a position): here a whole tute-4p deal, which has no stock."""
    seen = positions("tute-4p", 4, 3)
    start = Position.from_view(seen[0].view())
    log = game("tute-4p", 4, 3)
    events = log["deals"][0]["events"]
    for event, later in zip(events, seen[1:], strict=False):
        start.apply(Move.from_json(event, 4, "spanish"))
        assert view_dict(start.view(), start.header) == view_dict(later.view(), later.header)


# --- the facts carried --------------------------------------------------------------------------


def _mid_trick(ruleset: str, players: int) -> Position:
    for seed in range(50):
        for p in positions(ruleset, players, seed):
            if len(p.deal.trick) >= min(2, players - 1) and p.deal.trick_no >= 2:
                return p
    raise AssertionError("no position in the middle of a trick")


@pytest.mark.parametrize(("ruleset", "players"), TABLES)
def test_the_trick_on_the_table_says_its_suit_led_and_who_wins(ruleset: str, players: int) -> None:
    position = _mid_trick(ruleset, players)
    body = position_dict(position)
    trick = body["trick"]
    assert trick["led"] == trick["plays"][0]["card"][-1]
    deal = position.deal
    assert trick["winning"]["seat"] == deal.win_seat
    assert body["last_winner"] == deal.tricks[-1].winner == trick["leader"]
    captured = [set(c) for c in body["captured"]]
    for t in body["tricks"]:
        assert {p["card"] for p in t["plays"]} <= captured[t["winner"]]
    assert body["strict"] is deal.strict


def test_declarations_carry_their_cards() -> None:
    for seed in range(200):
        for p in positions("tute-2p", 2, seed):
            body = position_dict(p)
            for d in body["declarations"]:
                hand = set(body["hands"][d["seat"]])
                assert set(d["cards"]) <= hand
                if d["type"] == "sing":
                    assert sorted(d["cards"]) == sorted([f"11{d['suit']}", f"12{d['suit']}"])
                if d["type"] == "exchange":
                    assert d["cards"] == [f"7{body['trump']}"]
            if any(d["type"] == "exchange" for d in body["declarations"]):
                return
    raise AssertionError("no exchange open in 200 games")


def test_draws_and_the_deciding_renuncio_are_in_the_position() -> None:
    for seed in range(100):
        for p in positions("tute-2p", 2, seed):
            body = position_dict(p)
            if body["renuncios"] and body["tricks"] and body["tricks"][0]["draws"]:
                first = body["renuncios"][0]
                assert body["decided"] == {"kind": "renuncio", "seat": first["seat"],
                                           "event": first["event"]}  # fmt: skip
                assert body["tricks"][0]["draws"][0]["seat"] == body["tricks"][0]["winner"]
                return
    raise AssertionError("no renuncio after a draw in 100 games")


# --- a position given from outside ----------------------------------------------------------------


def _body() -> dict[str, Any]:
    return json.loads(json.dumps(position_dict(_mid_trick("tute-2p", 2))))


def _pointers(body: dict[str, Any]) -> set[str]:
    with pytest.raises(ArbiterError) as caught:
        read_position_json(body)
    err = caught.value
    errors = err.errors if isinstance(err, ArbiterErrors) else [err]
    return {e.pointer for e in errors}


def test_a_card_twice_is_refused_where_it_is_the_second_time() -> None:
    body = _body()
    card = body["hands"][0][0]
    body["hands"][1][0] = card
    assert "/hands/1/0" in _pointers(body)


def test_a_hand_of_the_wrong_size_is_refused() -> None:
    body = _body()
    body["hands"][1].pop()
    assert _pointers(body) == {"/hands/1"}


def test_plays_out_of_turn_in_the_trick_are_refused() -> None:
    body = _body()
    body["tricks"][1]["plays"].reverse()
    assert "/tricks/1/plays/0/seat" in _pointers(body)


def test_the_known_stock_card_in_a_hand_is_refused() -> None:
    for seed in range(50):
        for p in positions("tute-2p", 2, seed):
            body = json.loads(json.dumps(position_dict(p)))
            if body["stock_left"] > 2 and body["hands"][0]:
                body["hands"][0][0] = body["turned"]
                assert "/turned" in _pointers(body)
                return
    raise AssertionError("no position with a stock")


def test_scores_that_do_not_follow_from_the_captured_cards_are_refused() -> None:
    body = _body()
    body["card_points"][0] += 10
    body["totals"][1] += 1
    assert _pointers(body) == {"/card_points/0", "/totals/1"}
    body = _body()
    body["tricks"][0]["points"] += 1
    body["tricks"][1]["winner"] = 1 - body["tricks"][1]["winner"]
    assert {"/tricks/0/points", "/tricks/1/winner"} <= _pointers(body)


def test_a_stock_size_that_does_not_agree_with_the_draws_is_refused() -> None:
    body = _body()
    body["stock_left"] += 2
    assert "/stock_left" in _pointers(body)


def _faults(body: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(ArbiterError) as caught:
        read_position_json(body)
    err = caught.value
    return {e.pointer: e.message for e in (err.errors if isinstance(err, ArbiterErrors) else [err])}


def test_the_fields_of_records_are_read_by_their_tables() -> None:
    """Each record a position gives is read by its field table (arbiter/engine/view_fields.py):
    a field it needs is missing at its own pointer, one it may leave out is empty, one the rules
    make must be what they make, and a closed set names its values."""
    from arbiter.engine.obligations import Obligation
    from arbiter.engine.view_fields import RENUNCIO, TRICK

    body = _body()
    trick = body["tricks"][0]
    for f in TRICK.fields:
        if f.read == "need":
            broken = json.loads(json.dumps(body))
            del broken["tricks"][0][f.json]
            assert _faults(broken) == {f"/tricks/0/{f.json}": "missing"}
        if f.read == "check":
            broken = json.loads(json.dumps(body))
            broken["tricks"][0][f.json] = trick[f.json] + 1
            assert _faults(broken)[f"/tricks/0/{f.json}"] == f"must be {trick[f.json]}"
    # the fields a position may leave out: read as empty (no draws without a stock), or made
    body = json.loads(json.dumps(position_dict(_mid_trick("tute-4p", 4))))
    for t in body["tricks"]:
        for f in TRICK.fields:
            if f.read in ("may", "check"):
                del t[f.json]
    made = read_position_json(body).view().tricks
    assert made is not None
    assert made == _mid_trick("tute-4p", 4).view().tricks
    given = next(
        p for seed in range(50) for p in positions("tute-2p", 2, seed) if p.view().renuncios
    )
    shown = json.loads(json.dumps(position_dict(given)))
    assert {f.json for f in RENUNCIO.fields if f.read == "need"} <= set(shown["renuncios"][0])
    shown["renuncios"][0]["obligation"] = "robar"
    values = [o.value for o in Obligation]
    message = f"must be {', '.join(values[:-1])} or {values[-1]}"
    assert _faults(shown) == {"/renuncios/0/obligation": message}
    shown["renuncios"][0]["obligation"] = values[0]
    shown["decided"] = {"kind": "tute", "seat": 9, "event": 0}
    assert _faults(shown) == {"/decided/seat": "must be an integer from 0 to 1"}


def test_malformed_positions_name_the_field() -> None:
    body = _body()
    del body["hands"]
    assert _pointers(body) == {"/hands"}
    body = _body()
    body["trick"]["plays"][0]["card"] = "99X"
    assert _pointers(body) == {"/trick/plays/0/card"}
    body = _body()
    body["ruleset"] = "tute-9p"
    assert _pointers(body) == {"/ruleset"}
    assert _pointers({"x": 1}) == {"/ruleset"}


# --- over HTTP: POST /v1/positions and a position given to /v1/moves/validate ---------------------


def test_post_positions_answers_the_position_a_log_leads_to() -> None:
    client = make_client()
    log = random_log("tute-2p", random.Random(5), finish_last=False, stop_after=17)
    answer = client.post("/v1/positions", json=log)
    assert answer.status_code == 200, answer.get_json()
    position = answer.get_json()["position"]
    steps = client.post("/v1/replays", json={**log, "steps": True}).get_json()
    step = steps["deals"][-1]["steps"][-1]
    assert {k: position[k] for k in step} == step
    assert position["event"] == 17 and position["ruleset"] == "tute-2p"
    at = client.post("/v1/positions", json={**log, "deal": 0, "event": 4}).get_json()["position"]
    assert {k: at[k] for k in step} == steps["deals"][0]["steps"][4]


def test_post_positions_from_a_state_id_has_no_past_tricks() -> None:
    client = make_client()
    log = random_log("tute-4p", random.Random(5), finish_last=False, stop_after=9)
    state_id = client.post("/v1/replays", json=log).get_json()["state_id"]
    position = client.post("/v1/positions", json={"state_id": state_id}).get_json()["position"]
    whole = client.post("/v1/positions", json=log).get_json()["position"]
    assert position["tricks"] is None and position["captured"] is None
    assert position["hands"] == whole["hands"] and position["legal_moves"] == whole["legal_moves"]
    assert_problem(client.post("/v1/positions", json={"state_id": "x" * 40}), 409)


def test_post_positions_refuses_a_point_the_log_does_not_reach() -> None:
    client = make_client()
    log = random_log("tute-2p", random.Random(5), finish_last=False, stop_after=5)
    problem = assert_problem(client.post("/v1/positions", json={**log, "event": 9}), 422)
    assert problem["errors"][0]["pointer"] == "/event"
    problem = assert_problem(client.post("/v1/positions", json={**log, "deal": "x"}), 422)
    assert problem["errors"][0]["pointer"] == "/deal"


def test_validate_on_a_given_position_answers_as_on_the_log_and_goes_on() -> None:
    client = make_client()
    log = random_log("tute-3p", random.Random(8), finish_last=False, stop_after=13)
    position = client.post("/v1/positions", json=log).get_json()["position"]
    for move in position["legal_moves"][:3] + [
        {"type": "play", "seat": position["turn"], "card": c}
        for hand in position["hands"] for c in hand[:2]
    ]:  # fmt: skip
        on_log = client.post("/v1/moves/validate", json={**log, "move": move}).get_json()
        given = client.post("/v1/moves/validate", json={"position": position, "move": move})
        assert given.status_code == 200, given.get_json()
        body = given.get_json()
        assert {k: v for k, v in body.items() if k not in ("state_id", "position", "after")} == {
            k: v for k, v in on_log.items() if k != "state_id"
        }
        # a renuncio goes on too (tests/test_renuncio_after.py), on a position only
        assert ("after" in body) is (body["verdict"] == "renuncio") and "after" not in on_log
        if body["verdict"] == "ok":
            assert body["state_id"] == ANY_STATE_ID
            longer = {**log, "deals": [{**log["deals"][0],
                                        "events": [*log["deals"][0]["events"], move]}]}  # fmt: skip
            after = client.post("/v1/positions", json=longer).get_json()["position"]
            assert body["position"] == after
            then = client.post(
                "/v1/moves/validate",
                json={"state_id": body["state_id"], "move": after["legal_moves"][0]},
            )
            assert then.get_json()["verdict"] == "ok"
        else:
            assert "position" not in body


def test_validate_refuses_an_inconsistent_position_naming_each_field() -> None:
    client = make_client()
    log = random_log("tute-4p", random.Random(8), finish_last=False, stop_after=13)
    position = client.post("/v1/positions", json=log).get_json()["position"]
    move = position["legal_moves"][0]
    position["hands"][2] = position["hands"][2][1:]
    position["totals"][0] += 5
    problem = assert_problem(
        client.post("/v1/moves/validate", json={"position": position, "move": move}), 422
    )
    assert {e["pointer"] for e in problem["errors"]} == {"/position/hands/2"}
    position = client.post("/v1/positions", json=log).get_json()["position"]
    position["totals"][0] += 5
    position["turn"] = (position["turn"] + 1) % 4
    problem = assert_problem(
        client.post("/v1/moves/validate", json={"position": position, "move": move}), 422
    )
    assert {e["pointer"] for e in problem["errors"]} >= {"/position/totals/0", "/position/turn"}


JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 50), st.sampled_from(["1O", "12B", "O", "x", ""]),
    st.lists(st.integers(-1, 5), max_size=3), st.dictionaries(st.sampled_from(["seat", "card"]),
                                                              st.integers(-1, 5), max_size=2),
)  # fmt: skip


def _places(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a JSON value."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _places(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _places(item, (*path, i))
    return found


def spoil(data: st.DataObject, body: Any) -> None:
    """Delete, or replace with junk, one to three places of a position's JSON, in place."""
    for _ in range(data.draw(st.integers(1, 3), label="spoils")):
        path = data.draw(st.sampled_from(_places(body)[1:]), label="path")
        parent = body
        for key in path[:-1]:
            parent = parent[key]
        if data.draw(st.booleans(), label="delete") and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = data.draw(JUNK, label="junk")


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_position_with_any_field_spoilt_is_read_or_refused_never_an_error(
    data: st.DataObject,
) -> None:
    body = json.loads(json.dumps(position_dict(pick(data))))
    spoil(data, body)
    try:
        position = read_position_json(body)
    except ArbiterError:
        return
    for move in every_move(len(position.header.players)):
        position.judge(move)


@pytest.mark.parametrize(
    ("kind", "table"),
    [
        ("tute", ("tute-2p", 2)),
        ("exchange", ("tute-2p", 2)),
        ("renuncio", ("tute-4p", 4)),
        ("call", ("tute-cabron", 3)),
    ],
)
def test_positions_after_each_kind_of_event_read_back(kind: str, table: tuple[str, int]) -> None:
    """A position after a tute, an exchange, a renuncio, a call reads back whole (the random
    positions of the properties above hold them only by chance)."""

    def shows(p: Position) -> bool:
        deal = p.deal
        return {
            "tute": deal.decisive is not None and deal.decisive.kind.value == "tute",
            "exchange": bool(deal.exchanges),
            "renuncio": bool(deal.violations) and bool(deal.trick),
            "call": deal.calls > 1 and not deal.over,
        }[kind]

    for seed in range(400):
        found = [p for p in positions(*table, seed) if shows(p)]
        if found:
            body = json.loads(json.dumps(position_dict(found[0])))
            again = read_position_json(body)
            assert position_dict(again) == body
            for move in every_move(table[1]):
                assert again.judge(move) == found[0].judge(move)
            return
    raise AssertionError(f"no {kind} in 400 games")


def test_post_positions_refuses_a_state_id_that_is_not_a_string_and_an_illegal_log() -> None:
    client = make_client()
    problem = assert_problem(client.post("/v1/positions", json={"state_id": 7}), 422)
    assert problem["errors"][0]["pointer"] == "/state_id"
    log = random_log("tute-2p", random.Random(5), finish_last=False, stop_after=5)
    events = log["deals"][0]["events"]
    events.append({**events[-1]})  # the same card again: not in the hand any more
    problem = assert_problem(client.post("/v1/positions", json=log), 422)
    assert problem["errors"][0]["pointer"] == "/deals/0/events/5"


def test_validate_refuses_a_deal_with_a_position() -> None:
    client = make_client()
    log = random_log("tute-2p", random.Random(8), finish_last=False, stop_after=3)
    position = client.post("/v1/positions", json=log).get_json()["position"]
    body = {"position": position, "move": position["legal_moves"][0], "deal": log["deals"][0]}
    problem = assert_problem(client.post("/v1/moves/validate", json=body), 422)
    assert problem["errors"][0]["pointer"] == "/deal"
    problem = assert_problem(
        client.post("/v1/moves/validate", json={**log, "position": 3, "move": body["move"]}), 422
    )
    assert problem["errors"][0]["pointer"] == "/position"


def test_the_view_record_is_what_its_field_table_makes() -> None:
    """PositionView and its one-to-one JSON are written from the field table
    (``python -m devtools.records``): the committed code is what the table makes now, every
    field the JSON writes one to one has its schema, and the JSON holds each of them."""
    from arbiter.api.schemas import StepSchema
    from arbiter.engine.view_fields import VIEW_FIELDS
    from devtools.records import SECTIONS, rewritten

    for path in SECTIONS:
        assert rewritten(path) == path.read_text(encoding="utf-8"), (
            f"{path.name} is stale: run python -m devtools.records"
        )
    keys = {f.json for f in VIEW_FIELDS if f.json is not None}
    assert keys <= set(StepSchema().fields)
    position = positions("tute-2p", 2, 1)[7]
    assert keys <= set(view_dict(position.view(), position.header))


def test_the_view_names_every_field_of_the_table() -> None:
    """:meth:`Position.view` gives every field of the table its value: a field with a default
    (for the view a given position makes) cannot be left out of it unseen."""
    from pathlib import Path

    from arbiter.engine.view_fields import VIEW_FIELDS

    module = Path(__file__).resolve().parent.parent / "arbiter" / "engine" / "position.py"
    source = module.read_text(encoding="utf-8")
    made = source.split("def view(self)", 1)[1].split("return PositionView(", 1)[1]
    made = made.split("\n        )\n", 1)[0]
    named = {line.strip().split("=", 1)[0] for line in made.splitlines() if "=" in line}
    assert named == {f.name for f in VIEW_FIELDS}


def test_each_answer_record_is_what_its_field_table_makes() -> None:
    """Each record of ``RECORDS`` (a trick, a cante, an exchange, a renuncio, what decided a
    deal, a score line, a violation, an outcome, a side, a move, a declaration, a step and its
    parts, a deal and its scores, the replay and scores bodies): its class holds the table's
    fields, and its schema and the JSON the referee writes of it have the table's keys in the
    JSON's order, those written only under a condition (``when``) left out when it does not
    hold (the code is checked against the table by the test above)."""
    from arbiter.api import schemas
    from arbiter.engine import records
    from arbiter.engine.view_fields import RECORDS

    client = make_client()

    def steps_of(body: dict[str, Any]) -> list[dict[str, Any]]:
        return [step for deal in body["deals"] for step in deal["steps"]]

    for seed in range(100):  # a deal with a renuncio, a cante, an exchange and an open cante
        log = random_log("tute-2p", random.Random(seed), renuncio_rate=0.3, declare_rate=0.5)
        body = client.post("/v1/replays", json={**log, "steps": True}).get_json()
        deal = body["deals"][0]
        steps = steps_of(body)
        if (
            deal["violations"]
            and deal["cantes"]
            and deal["exchanges"]
            and any(step["open_cantes"] for step in steps)
            and any(step["declarations"] for step in steps)
        ):
            break
    pairs = random_log("tute-4p", random.Random(1), renuncio_rate=0.3)
    pairs_body = client.post("/v1/replays", json={**pairs, "steps": True}).get_json()
    position = client.post("/v1/positions", json={**log, "deal": 0}).get_json()["position"]
    step = next(step for step in steps if step["open_cantes"])
    scores = client.post("/v1/scores", json=log).get_json()
    written = {
        "TrickSchema": deal["tricks"][0],
        "CanteSchema": deal["cantes"][0],
        "ExchangeSchema": deal["exchanges"][0],
        "PositionRenuncioSchema": position["renuncios"][0],
        "DecidedSchema": position["decided"],
        "ScoreSchema": deal["scores"][0],
        "ReplaySchema": body,
        "OutcomeFactsSchema": position["outcome"],
        "OutcomeSchema": deal["outcome"],
        "ViolationSchema": deal["violations"][0],
        "SideSchema": pairs_body["deals"][0]["sides"][0],
        "ScoresSchema": scores,
        "DealScoresSchema": scores["deals"][0],
        "DealResultSchema": deal,
        "MoveSchema": steps[0]["legal_moves"][0],
        "DeclarationSchema": next(s["declarations"][0] for s in steps if s["declarations"]),
        "StepTrickSchema": step["trick"],
        "StepCanteSchema": steps[-1]["cantes"][0],
        "OpenCanteSchema": step["open_cantes"][0],
        "StepSideSchema": steps_of(pairs_body)[-1]["sides"][0],
        "StepSchema": step,
    }
    for record in RECORDS:
        by_name = {f.name: f for f in record.fields}
        fields = [by_name[n] for n in record.json_order or by_name if by_name[n].json]
        keys = [f.json for f in fields]
        assert list(getattr(schemas, record.schema)().fields) == keys, record.schema
        if record.cls:
            cls = getattr(records, record.cls)
            assert all(hasattr(cls, name) for name in by_name), record.cls
        made = written[record.schema]
        assert list(made) == [f.json for f in fields if f.when is None or f.json in made], (
            record.schema
        )
