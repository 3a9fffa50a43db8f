"""Every fault of a position given from outside has its stable code and the params its
message names (docs/api.md, "Errors"): one engine enum, :class:`FaultCode`, whose values the
OpenAPI spec lists; the 422 answers carry them beside a message in the request's language.

- :func:`test_each_fault_has_its_code`: each fault path of arbiter/engine/given.py (and the
  fields that follow from the facts) spoilt on purpose yields its code and params at its pointer;
- :func:`test_every_code_is_met`: the table of cases covers every code but ``invalid``;
- :func:`test_the_answers_carry_code_and_params_in_both_languages`: over HTTP, the 422's entries
  carry ``code`` and ``params``, the message in Spanish with ``Accept-Language: es`` (the
  catalogue's ``fault.<code>``) and the engine's own English otherwise;
- :func:`test_the_english_words_are_the_engine_s_message`: the catalogue's English words say
  what the engine's message says, for every case.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from functools import cache
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arbiter.contract import MAX_PROBLEM_BYTES, MAX_TEXT, problem_document
from arbiter.engine.errors import ArbiterError, ArbiterErrors, FaultCode
from arbiter.engine.match import replay
from arbiter.engine.position import Position
from arbiter.i18n import _fault_words, fault_message, text
from arbiter.report import position_dict, read_position_json
from arbiter.simulate import random_log
from arbiter.words import CATALOGUE
from tests.api_support import assert_problem, make_client
from tests.test_position_unknown import blank

Body = dict[str, Any]
TABLE_LEADER = FaultCode.TABLE_LEADER


@cache
def _body(ruleset: str, players: int, tricks: int, renuncio: bool = False) -> str:
    """A position's JSON (as text, to be copied): ``tricks`` tricks completed, the next not
    begun, a renuncio made before when asked."""
    for seed in range(300):
        log = random_log(
            ruleset,
            random.Random(seed),
            players=players,
            finish_last=False,
            renuncio_rate=0.3 if renuncio else 0,
        )
        seen: list[Position] = []
        replay(log, observer=lambda m: seen.append(m.position().copy()))  # noqa: B023
        for p in seen:
            d = p.deal
            if (
                p.deals == 1
                and d.trick_no == tricks
                and not d.trick
                and bool(d.violations) is renuncio
            ):
                return json.dumps(position_dict(p))
    raise AssertionError("no such position")


def body(
    ruleset: str = "tute-4p", players: int = 4, tricks: int = 3, renuncio: bool = False
) -> Body:
    out: Body = json.loads(_body(ruleset, players, tricks, renuncio))
    return out


def _2p(tricks: int = 3) -> Body:
    return body("tute-2p", 2, tricks)


def _set(b: Body, path: tuple[Any, ...], value: Any) -> Body:
    target = b
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return b


def _del(b: Body, *path: Any) -> Body:
    target = b
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return b


def _swap_seats(b: Body) -> Body:
    plays = b["tricks"][0]["plays"]
    plays[0]["seat"], plays[1]["seat"] = plays[1]["seat"], plays[0]["seat"]
    return b


def _exchange(b: Body, seat_shift: int, trick: int) -> Body:
    leader = b["tricks"][trick]["winner"] if trick >= 0 else b["mano"]
    b["exchanges"] = [
        {"seat": (leader + seat_shift) % 2, "gave": "7O", "took": "1O", "trick": trick}
    ]
    return b


def _decided_tute_after_renuncio() -> Body:
    b = body(renuncio=True)
    b["decided"] = {"kind": "tute", "seat": 0, "event": 199}
    return b


def _unknown(null: bool = True) -> Body:
    return blank(body(), {0: null})


def _shift(b: Body, *path: Any, by: int = 1, mod: int = 4) -> Body:
    target = b
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = (target[path[-1]] + by) % mod
    return b


def _other_trump(b: Body) -> Body:
    b["trump"] = "C" if b["trump"] != "C" else "O"
    return b


def _removed_card(b: Body) -> Body:
    b["hands"][0][0] = "2" + b["hands"][0][0][-1]
    return b


def _repeat(b: Body) -> Body:
    b["hands"][1][0] = b["hands"][0][0]
    return b


def _won(b: Body, seat: int) -> int:
    return sum(t["points"] for t in b["tricks"] if t["winner"] == seat)


def _below_known(b: Body) -> Body:
    """Trick 0's points unknown; a seat that won another trick with points given below them."""
    seat = next(
        t["winner"]
        for t in b["tricks"][1:]
        if t["points"] and t["winner"] != b["tricks"][0]["winner"]
    )
    b = blank(b, {0: True})
    b["card_points"][seat] = 0
    return b


def _too_many(b: Body) -> Body:
    b = blank(b, {0: True})
    b["card_points"][b["tricks"][0]["winner"]] += 1
    return b


def _not_all(b: Body) -> Body:
    b = blank(b, {0: False, 1: False})
    b["tricks"][0]["points"] = max(0, b["tricks"][0]["points"] - 2)
    b["tricks"][1]["points"] = max(0, b["tricks"][1]["points"] - 2)
    return b


def _not_known_tricks(b: Body) -> Body:
    b = blank(b, {0: True})
    other = next(s for s in range(4) if s != b["tricks"][0]["winner"])
    b["card_points"][other] += 1
    return b


#: (name, the spoilt position, the pointer, the code): each fault path of a given position.
CASES: list[tuple[str, Callable[[], Body], str, FaultCode]] = [
    ("missing", lambda: _del(body(), "dealer"), "/dealer", FaultCode.MISSING),
    ("not_object", lambda: _set(body(), ("trick",), 5), "/trick", FaultCode.NOT_OBJECT),
    ("list_size", lambda: _set(body(), ("hands",), [[]]), "/hands", FaultCode.LIST_SIZE),
    ("int_range", lambda: _set(body(), ("dealer",), 9), "/dealer", FaultCode.INT_RANGE),
    ("card_code", lambda: _set(body(), ("hands", 0, 0), "99X"), "/hands/0/0",
     FaultCode.CARD_CODE),
    ("one_of", lambda: _set(body(), ("decided",), {"kind": "x", "seat": 0, "event": 0}),
     "/decided/kind", FaultCode.ONE_OF),
    ("boolean", lambda: _set(body(), ("match", "over"), "no"), "/match/over", FaultCode.BOOLEAN),
    ("must_be", lambda: _shift(body(), "tricks", 0, "points", by=1, mod=99),
     "/tricks/0/points", FaultCode.MUST_BE),
    ("does_not_follow", lambda: _shift(body(), "turn"), "/turn", FaultCode.DOES_NOT_FOLLOW),
    ("play_seat", lambda: _swap_seats(body()), "/tricks/0/plays/0/seat", FaultCode.PLAY_SEAT),
    ("draw_seat", lambda: _shift(_2p(), "tricks", 0, "draws", 0, "seat", mod=2),
     "/tricks/0/draws/0/seat", FaultCode.DRAW_SEAT),
    ("draw_count", lambda: _del(_2p(), "tricks", 0, "draws", 1), "/tricks/0/draws",
     FaultCode.DRAW_COUNT),
    ("trick_leader", lambda: _shift(body(), "tricks", 1, "leader"), "/tricks/1/leader",
     FaultCode.TRICK_LEADER),
    ("table_leader", lambda: _shift(body(), "trick", "leader"), "/trick/leader",
     FaultCode.TABLE_LEADER),
    ("no_stock", lambda: _set(body(), ("stock_left",), 3), "/stock_left", FaultCode.NO_STOCK),
    ("no_exchange", lambda: _exchange(body(), 0, 0), "/exchanges", FaultCode.NO_EXCHANGE),
    ("no_turned_card", lambda: _set(body("tute-cabron", 3), ("turned",), "1O"), "/turned",
     FaultCode.NO_TURNED_CARD),
    ("trump_by_call", lambda: _set(_del(body("tute-cabron", 3), "cantes"), ("trump",), "O"),
     "/trump", FaultCode.TRUMP_BY_CALL),
    ("turned_missing", lambda: _set(_2p(), ("turned",), None), "/turned",
     FaultCode.TURNED_MISSING),
    ("trump_of_turned", lambda: _other_trump(_2p()), "/trump", FaultCode.TRUMP_OF_TURNED),
    ("exchange_before_trick",
     lambda: _set(_exchange(_2p(), 0, -1), ("options", "exchange_requires_trick_won"), True),
     "/exchanges/0/trick", FaultCode.EXCHANGE_BEFORE_TRICK),
    ("exchange_not_leader", lambda: _exchange(_2p(), 1, 0), "/exchanges/0/trick",
     FaultCode.EXCHANGE_NOT_LEADER),
    ("exchange_not_leader_first", lambda: _exchange(_2p(), 1, -1), "/exchanges/0/trick",
     FaultCode.EXCHANGE_NOT_LEADER),
    ("exchange_no_stock", lambda: _exchange(_2p(13), 0, 12), "/exchanges/0/trick",
     FaultCode.EXCHANGE_NO_STOCK),
    ("renuncio_not_played",
     lambda: _set(body(renuncio=True), ("renuncios", 0, "card"), body()["hands"][0][0]),
     "/renuncios/0/card", FaultCode.RENUNCIO_NOT_PLAYED),
    ("renuncio_in_unknown_trick",
     lambda: blank(body(renuncio=True), {body(renuncio=True)["renuncios"][0]["trick"]: False}),
     "/renuncios/0/trick", FaultCode.RENUNCIO_IN_UNKNOWN_TRICK),
    ("decided_by_renuncio", _decided_tute_after_renuncio, "/decided",
     FaultCode.DECIDED_BY_RENUNCIO),
    ("renuncio_decides",
     lambda: _set(body(), ("decided",), {"kind": "renuncio", "seat": 0, "event": 1}),
     "/decided", FaultCode.RENUNCIO_DECIDES),
    ("card_not_in_pack", lambda: _removed_card(body("tute-3p", 3)), "/hands/0/0",
     FaultCode.CARD_NOT_IN_PACK),
    ("repeated", lambda: _repeat(body()), "/hands/1/0", FaultCode.REPEATED),
    ("hand_size", lambda: _set(body(), ("hands", 2), body()["hands"][2][1:]), "/hands/2",
     FaultCode.HAND_SIZE),
    ("stock_size", lambda: _shift(_2p(), "stock_left", by=2, mod=99), "/stock_left",
     FaultCode.STOCK_SIZE),
    ("card_points_missing", lambda: _del(_unknown(), "card_points"), "/card_points",
     FaultCode.MISSING),
    ("points_below_known", lambda: _below_known(body()), "", FaultCode.POINTS_BELOW_KNOWN),
    ("points_not_known_tricks", lambda: _not_known_tricks(body()), "",
     FaultCode.POINTS_NOT_KNOWN_TRICKS),
    ("unknown_points_too_many", lambda: _too_many(body()), "/card_points",
     FaultCode.UNKNOWN_POINTS_TOO_MANY),
    ("unknown_points_not_all", lambda: _not_all(body()), "/tricks",
     FaultCode.UNKNOWN_POINTS_NOT_ALL),
]  # fmt: skip


def _faults(b: Body) -> list[ArbiterError]:
    with pytest.raises(ArbiterError) as caught:
        read_position_json(b)
    err = caught.value
    return list(err.errors) if isinstance(err, ArbiterErrors) else [err]


def _the_fault(b: Body, pointer: str, code: FaultCode) -> ArbiterError:
    """The fault of code ``code`` (at ``pointer``, when not empty) among those of ``b``."""
    found = [e for e in _faults(b) if e.fault is code and (not pointer or e.pointer == pointer)]
    assert found, [(e.pointer, e.fault) for e in _faults(b)]
    return found[0]


@pytest.mark.parametrize(("name", "spoil", "pointer", "code"), CASES, ids=[c[0] for c in CASES])
def test_each_fault_has_its_code(
    name: str, spoil: Callable[[], Body], pointer: str, code: FaultCode
) -> None:
    fault = _the_fault(spoil(), pointer, code)
    # the params are JSON values, and name what the message names
    assert json.loads(json.dumps(fault.params)) == fault.params
    # (the seat that leads is the one thing a message leaves out, as it always has)
    for value in fault.params.values():
        if isinstance(value, int) and not isinstance(value, bool) and code is not TABLE_LEADER:
            assert str(value) in fault.message


def test_every_code_is_met() -> None:
    assert {c[3] for c in CASES} | {FaultCode.INVALID, FaultCode.DEAL_WITH_POSITION} == set(
        FaultCode
    )


@pytest.mark.parametrize(("name", "spoil", "pointer", "code"), CASES, ids=[c[0] for c in CASES])
def test_the_english_words_are_the_engine_s_message(
    name: str, spoil: Callable[[], Body], pointer: str, code: FaultCode
) -> None:
    fault = _the_fault(spoil(), pointer, code)
    key, fields = _fault_words("en", fault.fault, fault.params)
    assert text("en", key, **fields) == fault.message
    assert fault_message("en", fault) == fault.message
    key, fields = _fault_words("es", fault.fault, fault.params)
    spanish = fault_message("es", fault)
    assert spanish == text("es", key, **fields) and spanish != fault.message


def test_every_code_has_words_in_both_languages() -> None:
    for code in FaultCode:
        if code is not FaultCode.INVALID:
            assert (
                f"fault.{code.value}" in CATALOGUE["en"]
                and f"fault.{code.value}" in CATALOGUE["es"]
            )


def test_the_answers_carry_code_and_params_in_both_languages() -> None:
    client = make_client()
    spoilt = copy.deepcopy(body())
    spoilt["hands"][2] = spoilt["hands"][2][1:]
    spoilt["hands"][1][0] = spoilt["hands"][0][0]
    move = {"type": "play", "seat": spoilt["turn"], "card": spoilt["hands"][spoilt["turn"]][0]}
    sent = {"position": spoilt, "move": move}
    english = assert_problem(client.post("/v1/moves/validate", json=sent), 422)
    spanish = assert_problem(
        client.post("/v1/moves/validate", json=sent, headers={"Accept-Language": "es-ES,es;q=0.9"}),
        422,
    )
    by_pointer = {e["pointer"]: e for e in english["errors"]}
    hand = by_pointer["/position/hands/2"]
    assert hand["code"] == "hand_size"
    assert hand["params"] == {"seat": 2, "count": len(body()["hands"][2])}
    assert hand["message"] == f"seat 2 holds {hand['params']['count']} cards at this point"
    repeated = by_pointer["/position/hands/1/0"]
    assert repeated == {
        "pointer": "/position/hands/1/0",
        "message": "this card is already at /position/hands/0/0",
        "code": "repeated",
        "params": {"first": "/position/hands/0/0"},
    }
    es = {e["pointer"]: e for e in spanish["errors"]}
    assert es["/position/hands/2"]["message"] == (
        f"el asiento 2 tiene {hand['params']['count']} cartas en este punto"
    )
    assert es["/position/hands/1/0"]["message"] == "esta carta ya está en /position/hands/0/0"
    assert [(e["code"], e["params"]) for e in spanish["errors"]] == [
        (e["code"], e["params"]) for e in english["errors"]
    ]


def test_other_faults_carry_the_generic_code_and_a_deal_with_a_position_its_own() -> None:
    client = make_client()
    problem = assert_problem(client.post("/v1/replays", json={"ruleset": "tute-9p"}), 422)
    assert all(e["code"] for e in problem["errors"])
    b = body()
    move = {"type": "play", "seat": b["turn"], "card": b["hands"][b["turn"]][0]}
    problem = assert_problem(
        client.post(
            "/v1/moves/validate",
            json={"position": b, "move": move, "deal": {}},
            headers={"Accept-Language": "es"},
        ),
        422,
    )
    assert problem["errors"] == [
        {
            "pointer": "/deal",
            "message": "deal va con un state_id, no con una posición",
            "code": "deal_with_position",
            "params": {},
        }
    ]


_texts = st.text(alphabet=st.characters(max_codepoint=0x40), min_size=0, max_size=2000)


@given(
    st.lists(st.tuples(_texts, _texts, _texts), max_size=150),
    st.integers(1, 100),
    st.sampled_from(["es", "en"]),
)
def test_problem_documents_with_codes_and_params_stay_bounded(
    errors: list[tuple[str, str, str]], max_errors: int, lang: str
) -> None:
    """Params carry what the request held (a card code of any length, say): clipped, the
    document stays within its bound as without them."""
    listed = [
        {"pointer": p, "message": m, "code": "card_code", "params": {"code": c, "what": [c] * 30}}
        for p, m, c in errors
    ]
    document = problem_document(422, "Invalid log", "detail", "id", listed, 5, max_errors)
    assert len(document) <= MAX_PROBLEM_BYTES
    body = orjson.loads(document)
    assert len(body["errors"]) + body.get("errors_omitted", 0) == len(errors) + 5
    for entry in body["errors"]:
        assert entry["code"] == "card_code" and len(entry["params"]["code"]) <= MAX_TEXT
