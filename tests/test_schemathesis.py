"""Schemathesis against the in-process app, driven by the committed api_spec/openapi.yaml.

* ``test_contract_positive`` / ``test_contract_negative``: every operation, every built-in check
  (no 5xx, status codes, content types, headers, response schemas, unsupported methods with
  ``Allow``, positive data accepted, negative data rejected) over the examples, coverage and
  fuzzing phases, fixed seed and derandomized. POST operations get 100 fuzzed examples per mode.
* ``test_answers_conform``: the generators above almost never build a correct deal (the schema
  cannot say "every card of the pack exactly once"), so they see 200 bodies only for the spec's
  own examples. Real games of every ruleset (complete, with renuncios, unfinished, with an illegal
  event, several deals) are sent through schemathesis cases so the same checks judge the
  200 bodies, and each body must equal what the library returns.
* ``test_state_ids_round_trip``: games continued by ``state_id`` alone, checked the same way.
* ``test_invalid_events_in_real_logs``: schemathesis' negative generator for the ``Event``
  component, spliced into otherwise correct logs, so the server's event checks are reached at
  all; every such body must be a 422 pointing at the event.
* ``test_unused_event_fields_are_checked``: the contract types ``card``, ``suit`` and ``of`` on
  every event, so a wrong value in a field the event's type does not use is a 422 too.

The one check configured away from its default is ``positive_data_acceptance`` on the POST
operations: a schema-valid log can still be a wrong deal (a missing or repeated card, a
``trump_card`` not in the dealer's hand...), which docs/api.md answers with 422 and the contract
documents per operation; a ``state_id`` the server does not know is a documented 409. 200 and
those two are accepted there, anything else (400, 413, 415, 5xx) still fails the check. The
stateful phase does not apply: the contract declares no links between operations, so
``test_state_ids_round_trip`` follows ``state_id`` by hand.
"""

from __future__ import annotations

import copy
import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import hypothesis
import jsonschema
import pytest
import schemathesis
import yaml
from hypothesis import strategies as st
from schemathesis import GenerationMode

import arbiter
from arbiter.api import create_app
from arbiter.i18n import Lang
from arbiter.settings import Settings
from arbiter.simulate import random_log
from tests.hand_built import play
from tests.positions_support import TABLES, without_state_id

# Schemathesis explores the contract against the app: tens of seconds, not in the quick loop.
pytestmark = pytest.mark.slow

SPEC_PATH = Path(__file__).resolve().parent.parent / "api_spec" / "openapi.yaml"
SPEC: dict[str, Any] = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
APP = create_app(Settings())  # the defaults, whatever the environment says (no Redis)
SEED = 20240601

BATCH = "/v1/scores/batch"
#: Statuses a schema-valid request may get on the POST operations (see the module docstring).
POST_POSITIVE_STATUSES = ["2xx", "409", "422"]


def _config(mode: str) -> schemathesis.Config:
    return schemathesis.Config.from_dict(
        {
            "seed": SEED,
            "generation": {"mode": mode, "deterministic": True, "database": "none"},
            "phases": {"stateful": {"enabled": False}},
            "operations": [
                {
                    # A batch answers 200 to any NDJSON: a line that is not a valid log is an
                    # error line (test_contract_negative checks that each is), not a 4xx.
                    "include-path": BATCH,
                    "generation": {"max-examples": 100},
                    "checks": {
                        "positive_data_acceptance": {"expected-statuses": ["2xx"]},
                        "negative_data_rejection": {"enabled": False},
                    },
                },
                {
                    "include-method": "POST",
                    "generation": {"max-examples": 100},
                    "checks": {
                        "positive_data_acceptance": {"expected-statuses": POST_POSITIVE_STATUSES}
                    },
                },
                {"include-method": "GET", "generation": {"max-examples": 25}},
            ],
        }
    )


@schemathesis.serializer("application/x-ndjson")
def _batch_of_one_line(ctx: Any, value: Any) -> bytes:
    """The batch endpoint's body: the generated log as one NDJSON line."""
    return json.dumps(value).encode() + b"\n"


@schemathesis.deserializer("application/x-ndjson")
def _the_one_line(ctx: Any, response: Any) -> Any:
    """A batch of one line is answered by one line, an instance of the line schema."""
    lines = response.content.splitlines()
    if len(lines) != 1:
        raise ValueError(f"{len(lines)} lines answer a batch of one")
    return json.loads(lines[0])


positive_schema = schemathesis.openapi.from_path(str(SPEC_PATH), config=_config("positive"))


def _has_no_body(ctx: Any) -> bool:
    """Operations without a request body have nothing schemathesis can make invalid: the GETs
    take no input but ``{name}``, a string, which any URL segment is. Their unsupported-method
    cases run in the positive test's coverage phase."""
    operation = SPEC["paths"][ctx.operation.path][ctx.operation.method.lower()]
    return "requestBody" not in operation


negative_schema = schemathesis.openapi.from_path(
    str(SPEC_PATH), config=_config("negative")
).exclude(_has_no_body)


@positive_schema.parametrize()
def test_contract_positive(case: schemathesis.Case) -> None:
    case.call_and_validate(app=APP)


@negative_schema.parametrize()
def test_contract_negative(case: schemathesis.Case) -> None:
    response = case.call_and_validate(app=APP)
    if case.operation.path == BATCH and response.status_code == 200:
        for line in response.content.splitlines():  # none for an empty body
            assert "error" in json.loads(line), f"a log against the schema scored: {case.body!r}"


# --- real games through schemathesis cases -------------------------------------------------


def _operation(method: str, path: str) -> Any:
    return positive_schema[path][method]


def _with_illegal_event(log: dict[str, Any]) -> dict[str, Any]:
    """The log with its first play made by the wrong seat (an ``out_of_turn``)."""
    log = copy.deepcopy(log)
    players = len(log["players"])
    for event in log["deals"][-1]["events"]:
        if event["type"] == "play":
            event["seat"] = (event["seat"] + 1) % players
            break
    return log


@cache
def _real_logs() -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(SEED)
    logs: list[tuple[str, dict[str, Any]]] = []
    for ruleset, players in TABLES:
        table = f"{ruleset}/{players}"
        for i in range(2):
            logs.append(
                (
                    f"{table} complete #{i}",
                    random_log(ruleset, rng, players=players, renuncio_rate=0.05),
                )
            )
        logs.append((f"{table} two deals", random_log(ruleset, rng, players=players, deals=2)))
        unfinished = random_log(ruleset, rng, players=players, finish_last=False)
        logs.append((f"{table} unfinished", unfinished))
        logs.append((f"{table} illegal event", _with_illegal_event(unfinished)))
    return logs


def _moves_to_judge(log: dict[str, Any]) -> list[dict[str, Any]]:
    """For an unfinished log: a legal move, the same by the wrong seat, and plays of two other
    cards of the deal not played yet (a renuncio when the seat holds one, else an illegal
    ``card_not_in_hand``)."""
    nxt = arbiter.replay(log).to_dict()["next"]
    if nxt is None:
        return []
    legal, seat = nxt["legal_moves"], nxt["seat"]
    wrong_seat = {**legal[0], "seat": (seat + 1) % len(log["players"])}
    deal = log["deals"][-1]
    played = {e.get("card") for e in deal["events"]}
    plays = [
        play(seat, card)
        for card in [*deal["hands"][seat], *deal.get("stock", [])]
        if card not in played
    ]
    others = [move for move in plays if move not in legal]
    return [legal[0], wrong_seat, *others[:2]]


def _real_cases() -> list[tuple[str, str, dict[str, Any], Lang]]:
    """(id, path, body, language) for every real game and every POST operation."""
    cases = []
    for n, (name, log) in enumerate(_real_logs()):
        lang: Lang = ("en", "es")[n % 2]
        cases.append((f"replays {name}", "/v1/replays", log, lang))
        cases.append((f"scores {name}", "/v1/scores", log, lang))
        if "unfinished" in name:
            for k, move in enumerate(_moves_to_judge(log)):
                cases.append(
                    (f"validate {name} move {k}", "/v1/moves/validate", {**log, "move": move}, lang)
                )
    return cases


def _expected(path: str, body: dict[str, Any], lang: Lang) -> dict[str, Any]:
    if path == "/v1/moves/validate":
        log = {k: v for k, v in body.items() if k != "move"}
        return arbiter.validate(log, body["move"]).to_dict(lang)
    result = arbiter.replay(body)
    return result.to_dict(lang) if path == "/v1/replays" else result.scores_dict(lang)


def test_answers_conform() -> None:
    """Real games, every POST operation, both languages: all checks pass, bodies as the library."""
    seen_statuses: set[str] = set()
    seen_verdicts: set[str] = set()
    for name, path, body, lang in _real_cases():
        case = _operation("POST", path).Case(
            body=body, media_type="application/json", headers={"Accept-Language": lang}
        )
        response = case.call_and_validate(app=APP)
        assert response.status_code == 200, name
        answer = response.json()
        assert without_state_id(answer) == without_state_id(_expected(path, body, lang)), name
        if "status" in answer:
            seen_statuses.add(answer["status"])
        else:
            seen_verdicts.add(answer["verdict"])
    assert seen_statuses == {"complete", "in_progress", "invalid"}
    assert seen_verdicts == {"ok", "renuncio", "illegal"}


def test_state_ids_round_trip() -> None:
    """A game continued by ``state_id`` alone, two moves deep, for every unfinished real log:
    the same verdicts as the library on the full log, all checks passing (one app, one cache:
    an id is always known here)."""
    validate_op = _operation("POST", "/v1/moves/validate")
    for name, log in _real_logs():
        if "unfinished" not in name:
            continue
        response = _operation("POST", "/v1/replays").Case(body=log).call_and_validate(app=APP)
        state_id = response.json()["state_id"]
        assert state_id, name
        current = copy.deepcopy(log)
        for step in range(2):
            nxt = arbiter.replay(current).to_dict()["next"]
            if nxt is None:
                break
            move = nxt["legal_moves"][-1]
            case = validate_op.Case(body={"state_id": state_id, "move": move})
            answer = case.call_and_validate(app=APP).json()
            expected = arbiter.validate(current, move).to_dict()
            assert without_state_id(answer) == without_state_id(expected), (name, step)
            assert answer["verdict"] == "ok" and answer["state_id"], (name, step)
            state_id = answer["state_id"]
            current["deals"][-1]["events"].append(move)


# --- schemathesis-generated invalid events inside correct logs ----------------------------

#: The only fields each event type reads (besides ``type`` and ``seat``).
USED_FIELDS = {"play": {"card"}, "sing": {"suit"}, "tute": {"of"}, "exchange": set()}
EVENT_FIELDS = ("type", "seat", "card", "suit", "of")
_EVENT_SCHEMA = SPEC["components"]["schemas"]["Event"]
_VALIDATOR = jsonschema.Draft202012Validator(
    {"$ref": "#/components/schemas/GameLog", "components": SPEC["components"]}
)
_FIELD_VALIDATORS = {
    name: jsonschema.Draft202012Validator(_EVENT_SCHEMA["properties"][name])
    for name in EVENT_FIELDS
}


def _event_operation_schema() -> Any:
    """The committed components plus one synthetic operation whose body is an ``Event``."""
    document = {
        "openapi": SPEC["openapi"],
        "info": SPEC["info"],
        "components": SPEC["components"],
        "paths": {
            "/event": {
                "post": {
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Event"}}
                        },
                    },
                    "responses": {"200": {"description": "unused"}},
                }
            }
        },
    }
    return schemathesis.openapi.from_dict(document)["/event"]["POST"]


NEGATIVE_EVENTS = _event_operation_schema().as_strategy(GenerationMode.NEGATIVE)


def _splice(original: dict[str, Any], negative: Any, *, unused_fields: bool) -> Any:
    """``original`` with the invalid parts of a generated negative event.

    A non-object replaces the event. From an object, missing required fields are removed and
    invalid values replace the original ones. With ``unused_fields`` false, invalid values of
    fields the resulting type does not read are left out: the server accepts those, see
    ``test_unused_event_fields_are_checked``.
    """
    if not isinstance(negative, dict):
        return negative
    event = dict(original)
    for name in _EVENT_SCHEMA["required"]:
        if name not in negative:
            event.pop(name, None)
    for name in EVENT_FIELDS:
        if name in negative and not _FIELD_VALIDATORS[name].is_valid(negative[name]):
            event[name] = negative[name]
    kind = event.get("type")
    if not unused_fields and kind in USED_FIELDS:
        for name in {"card", "suit", "of"} - USED_FIELDS[kind]:
            if name in event and not _FIELD_VALIDATORS[name].is_valid(event[name]):
                if name in original:
                    event[name] = original[name]
                else:
                    del event[name]
    return event


@cache
def _spliceable_logs() -> list[tuple[str, dict[str, Any]]]:
    rng = random.Random(SEED + 1)
    complete = [("/v1/replays", random_log(r, rng, players=n, declare_rate=0.9)) for r, n in TABLES]
    scores = [("/v1/scores", random_log("tute-2p", rng, declare_rate=0.9))]
    unfinished = random_log("tute-2p", rng, finish_last=False, stop_after=30, declare_rate=0.9)
    move = arbiter.replay(unfinished).to_dict()["next"]["legal_moves"][0]
    return [*complete, *scores, ("/v1/moves/validate", {**unfinished, "move": move})]


@hypothesis.settings(
    max_examples=150,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[hypothesis.HealthCheck.too_slow, hypothesis.HealthCheck.filter_too_much],
)
@hypothesis.given(data=st.data())
def test_invalid_events_in_real_logs(data: st.DataObject) -> None:
    path, log = data.draw(st.sampled_from(_spliceable_logs()), label="log")
    events = log["deals"][-1]["events"]
    j = data.draw(st.integers(0, len(events) - 1), label="event index")
    generated = data.draw(NEGATIVE_EVENTS, label="negative event").body
    hypothesis.assume(not isinstance(generated, bytes | bytearray))  # a raw body, not JSON
    event = _splice(events[j], generated, unused_fields=False)
    body = copy.deepcopy(log)
    body["deals"][-1]["events"][j] = event
    hypothesis.assume(not _VALIDATOR.is_valid({k: v for k, v in body.items() if k != "move"}))
    case = _operation("POST", path).Case(body=body, media_type="application/json")
    response = case.call_and_validate(app=APP)
    assert response.status_code == 422, (event, response.text)
    pointer = response.json()["errors"][0]["pointer"]
    deal = len(body["deals"]) - 1
    assert pointer.startswith(f"/deals/{deal}/events/{j}"), (event, pointer)


#: Minimal reproducers: a correct event plus a value its type does not read.
UNUSED_FIELD_CASES = [
    ("play", "of", ""),
    ("play", "suit", 5),
    ("play", "of", "queens"),
    ("sing", "card", 5),
    ("sing", "of", None),
    ("tute", "card", []),
    ("exchange", "suit", 7),
]


def _log_with_event(kind: str) -> tuple[dict[str, Any], int]:
    """A complete tute-2p log holding an event of type ``kind``, and that event's index."""
    rng = random.Random(SEED + 2)
    for _ in range(200):
        log = random_log("tute-2p", rng, declare_rate=1.0)
        for j, event in enumerate(log["deals"][0]["events"]):
            if event["type"] == kind:
                return log, j
    raise AssertionError(f"no {kind} event in 200 random deals")


@pytest.mark.parametrize(("kind", "field", "value"), UNUSED_FIELD_CASES)
def test_unused_event_fields_are_checked(kind: str, field: str, value: Any) -> None:
    log, j = _log_with_event(kind)
    events = log["deals"][0]["events"]
    events[j] = {**events[j], field: value}
    assert not _VALIDATOR.is_valid(log)
    case = _operation("POST", "/v1/replays").Case(body=log, media_type="application/json")
    response = case.call_and_validate(app=APP)
    assert response.status_code == 422, response.text[:200]
