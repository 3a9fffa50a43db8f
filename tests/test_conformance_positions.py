"""The ``position`` of protocol 2: the engine's position view — the same step the page and
``POST /v1/replays {"steps": true}`` show — with its header, renuncios and standing; its JSON
schema in the OpenAPI components and in docs/conformance.md; and the shipped adapter's engine,
set to a position read back from its JSON alone, judging every move as the referee does."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import yaml

from arbiter.api.schemas import ConformancePositionSchema
from arbiter.conformance import Judge, position_of_log
from arbiter.conformance.kit.capabilities import Capabilities
from arbiter.conformance.kit.checker import left_out_because, question_of
from arbiter.conformance.kit.dealing import TUTE_RATE, deal_of, setting_of
from arbiter.conformance.kit.engines import Reply
from arbiter.conformance.kit.grading import Grade, judge
from arbiter.conformance.kit.positions import position_json, position_of
from arbiter.conformance.kit.protocol import PROTOCOL_VERSION, Ask, Vector
from arbiter.conformance.kit.referee_answers import verdict_answer
from arbiter.conformance.kit.sampling import candidates, legal_answer
from arbiter.conformance.kit.vector_files import PUBLISHED, load
from arbiter.engine.errors import ArbiterError
from arbiter.engine.log import first_dealer, parse_deal
from arbiter.engine.position import Position
from arbiter.engine.rulesets import RULESETS
from arbiter.engine.setup import next_dealer
from arbiter.service import LIBRARY
from arbiter.simulate import choose_move
from tests import conformance_blocking, conformance_position
from tests.api_support import ROOT

#: What the question's position adds to the step of the deal.
ADDED = {"ruleset", "options", "players", "notation", "deal", "dealer", "mano"}
ADDED |= {"renuncios", "match"}


def positions(games: int, seed: int) -> Iterator[tuple[dict[str, Any], Position]]:
    """Every position of random games of every ruleset (random options, renuncios now and
    then, matches of a few deals), with the log that leads to it."""
    rng = random.Random(seed)
    for _ in range(games):
        setting = setting_of(tuple(RULESETS), True, rng)
        header = setting.header()
        deals: list[dict[str, Any]] = []
        position: Position | None = None
        dealer = first_dealer(header)
        for _ in range(rng.choice((1, 2))):
            raw = {**deal_of(setting, dealer, rng), "events": []}
            setup, _ = parse_deal(header, raw, dealer)
            position = Position.first(header, setup) if position is None else (
                position.begin_deal(setup)
            )  # fmt: skip
            deals.append(raw)
            while True:
                yield setting.log([{**d, "events": list(d["events"])} for d in deals]), position
                if position.deal.over:
                    break
                move = choose_move(position.deal, rng, 0.1, 0.5, TUTE_RATE)
                position.apply(move)
                raw["events"].append(move.to_json("spanish"))
            if position.standing.over:
                break
            dealer = next_dealer(dealer, setting.players)


def test_the_position_is_the_step_the_referee_shows() -> None:
    for log, position in positions(12, 1):
        found = position_of(log)
        assert found == position_json(position)
        step = LIBRARY.replay(log, steps=True).to_dict()["deals"][-1]["steps"][-1]
        assert {k: v for k, v in found.items() if k not in ADDED} == {
            k: v for k, v in step.items() if k != "legal_moves"
        }
        header = LIBRARY.replay(log).to_dict()
        assert [
            {k: v for k, v in r.items() if k not in ("led", "winning")} for r in found["renuncios"]
        ] == [
            {k: v[k] for k in ("event", "seat", "card", "obligation", "trick", "correct")}
            for v in header["deals"][-1]["violations"]
        ]
        assert found["match"] == header["match"]


def test_the_position_holds_exactly_its_schemas_fields() -> None:
    schema = ConformancePositionSchema()
    for log, _ in positions(8, 2):
        found = position_of(log)
        assert found is not None
        assert schema.validate(found) == {}  # unknown fields are errors too
        assert "legal_moves" not in found


def _component_and_references() -> dict[str, Any]:
    spec = yaml.safe_load((ROOT / "api_spec" / "openapi.yaml").read_text())["components"]
    schemas = spec["schemas"]
    found = {"ConformancePosition": schemas["ConformancePosition"]}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                name = value.split("/")[-1] if key == "$ref" else None
                if name is not None and name not in found:
                    found[name] = schemas[name]
                    walk(schemas[name])
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(found["ConformancePosition"])
    return found


def test_the_docs_show_the_openapi_components_of_the_position() -> None:
    doc = (ROOT / "docs" / "conformance.md").read_text()
    block = doc.split("<!-- position schema -->\n```json\n", 1)[1].split("```", 1)[0]
    expected = _component_and_references()
    assert json.loads(block) == expected, json.dumps(expected, indent=2, ensure_ascii=False)


def test_the_engine_set_to_a_position_read_back_judges_as_the_referee() -> None:
    """The shipped adapter's engine (Judge) reads nothing but the position's JSON: every
    move tried at every position gets the referee's verdict (and outcome), and the legal
    moves are the referee's."""
    asked = 0
    for _, position in positions(30, 3):
        judge = Judge(json.loads(json.dumps(position_json(position))))
        assert {"legal_moves": judge.legal_moves()} == legal_answer(position)
        if position.deal.over:
            continue
        notation = position.header.notation
        for move in candidates(position):
            expected = verdict_answer(position, position.judge(move))
            assert judge.verdict(move.to_json(notation)) == expected, move
            asked += 1
    assert asked > 1000


def test_no_position_for_a_log_refused_or_stopped_by_an_illegal_event() -> None:
    log, _ = next(positions(1, 4))
    assert position_of({**log, "players": []}) is None
    with pytest.raises(ArbiterError) as refused:
        position_of_log({**log, "players": []})
    assert refused.value.pointer == "/players"
    deal = log["deals"][0]
    twice = {**deal, "events": [{"type": "exchange", "seat": 1}]}  # nobody exchanges off lead
    invalid = {**log, "deals": [twice]}
    assert position_of(invalid) is None
    with pytest.raises(ArbiterError) as stopped:
        position_of_log(invalid)
    assert stopped.value.pointer == "/deals/0/events/0"


def _asked_without_the_log(
    answer: Callable[[dict[str, Any]], dict[str, Any]], caps: Capabilities, rulesets: list[str]
) -> Counter[Grade]:
    """Each published vector of ``rulesets`` that an engine of ``caps`` is asked (a move or the
    legal moves, at a position), put to ``answer`` with the question's ``log`` taken out: the
    grades of its answers."""
    grades: Counter[Grade] = Counter()
    for vector in load(PUBLISHED, rulesets):
        if vector.ask is Ask.REPLAY or left_out_because(vector, caps) is not None:
            continue
        question = question_of(vector, PROTOCOL_VERSION)
        if question["position"] is None:
            continue
        del question["log"]  # an engine that read it would fail here
        grades[judge(vector, Reply(answer=answer(question)), caps).grade] += 1
    return grades


def _template() -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The shipped template's ``answer`` (its definitions, without its loop on stdin)."""
    source = (ROOT / "conformance" / "adapter.py").read_text().split("for line in sys.stdin")[0]
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    answer: Callable[[dict[str, Any]], dict[str, Any]] = namespace["answer"]
    return answer


@pytest.mark.slow
def test_the_documentations_adapters_answer_from_the_position_alone() -> None:
    """The template, the third-party adapter and the blocking table of docs/conformance.md read
    no log: with it taken out of every question, every vector they are asked passes (the
    position adapter leaves out only the French logs)."""
    every = Capabilities()
    grades = _asked_without_the_log(_template(), every, list(RULESETS))
    assert set(grades) == {Grade.PASS} and grades[Grade.PASS] > 1200, grades
    grades = _asked_without_the_log(conformance_position.answer, every, list(RULESETS))
    assert grades[Grade.FAIL] == 0 and grades[Grade.PASS] > 1200, grades
    blocking = Capabilities().with_values(
        conformance_blocking.capabilities("automatic", outcomes=False)
    )
    grades = _asked_without_the_log(
        lambda q: conformance_blocking.answer(q, blocking.to_json()),
        blocking,
        ["tute-2p", "tute-4p"],
    )
    assert set(grades) == {Grade.PASS} and grades[Grade.PASS] > 150


#: The facts an adapter needs that a log would otherwise give (issue 27, item 6).
NEEDED = {"strict", "last_winner", "tricks", "captured", "decided", "outcome", "cantes_this_lead"}


def test_every_question_carries_the_facts_an_adapter_needs() -> None:
    """Protocol 2 and 3: the trick's suit led and winning card, each trick's winner, points and
    draws, the captured cards, the pairs' sides, what decided the deal, the trick each exchange
    followed — never to be worked out from the log."""
    seen: Counter[str] = Counter()
    for log, position in positions(10, 5):
        vector = Vector("v", log["ruleset"], "r", Ask.LEGAL_MOVES, log, {"legal_moves": None})
        for protocol in (2, 3):
            found = question_of(vector, protocol)["position"]
            assert found is not None and set(found) >= NEEDED
            trick, tricks = found["trick"], found["tricks"]
            assert {"led", "winning"} <= set(trick) and len(tricks) == trick["number"]
            assert (trick["winning"] is None) == (not trick["plays"])
            for done in tricks:
                assert {"leader", "plays", "winner", "points", "draws"} <= set(done)
                seen["draws"] += bool(done["draws"])
            assert len(found["captured"]) == len(found["players"])
            assert ("sides" in found) == (found["ruleset"] == "tute-4p")
            seen["decided"] += found["decided"] is not None
            seen["winning"] += trick["winning"] is not None
            # whether the exchange followed the last trick: it says which trick it followed
            made = [x.trick for x in position.deal.exchanges]
            assert [x["trick"] for x in found["exchanges"]] == made
            assert all(-1 <= t < trick["number"] for t in made)
            seen["exchange"] += bool(made)
        assert position.deal.trick_no == found["trick"]["number"]
    assert min(seen[k] for k in ("draws", "decided", "winning", "exchange")) > 0, seen
