"""A position whose earlier tricks are known only by who led and won them, and their points
(or not even those: then the seats' card points are given), docs/api.md "The position".

- :func:`test_unknown_tricks_judge_every_move_as_the_whole_position`: random positions of
  random logs with some earlier tricks' cards left out (their points kept, or null with the
  seats' card points given) judge every move as the position does, read back from their view
  and from their JSON alike, and write the unknown tricks back as given;
- :func:`test_unknown_tricks_play_on_to_the_same_scores`: played on to the end of the deal, the
  outcome and scores are the original's;
- each check of what is known of the score is a fault at its pointer, with its code.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arbiter.engine.errors import ArbiterError, ArbiterErrors, FaultCode
from arbiter.engine.match import replay
from arbiter.engine.position import Position, Ruling
from arbiter.report import position_dict, read_position_json
from arbiter.simulate import random_log
from tests.api_support import make_client
from tests.test_position_value import every_move, pick, spoil


def blank(
    body: dict[str, Any], chosen: dict[int, bool], keep_draws: bool = False
) -> dict[str, Any]:
    """``body`` with the cards of the tricks ``chosen`` left out (their points too where
    ``chosen`` says so); the cards each seat captured no longer follow from it."""
    out = copy.deepcopy(body)
    for i, null in chosen.items():
        t = out["tricks"][i]
        out["tricks"][i] = {
            "leader": t["leader"],
            "plays": [],
            "winner": t["winner"],
            "points": None if null else t["points"],
            "draws": t["draws"] if keep_draws else [],
        }
    out.pop("captured", None)
    out.pop("sides", None)
    return out


def _as_json(position: Position) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(json.dumps(position_dict(position)))
    return body


def _blanked(data: st.DataObject) -> tuple[Position, Position, dict[int, bool]]:
    """A position of a random log, and the same read from its JSON with some tricks' cards
    (and maybe points) left out: never a trick a renuncio was made in (that needs its cards)."""
    position = pick(data)
    body = _as_json(position)
    in_renuncio = {r["trick"] for r in body["renuncios"]}
    free = [i for i in range(len(body["tricks"])) if i not in in_renuncio]
    assume(free)
    chosen = data.draw(
        st.dictionaries(st.sampled_from(free), st.booleans(), min_size=1), label="blanked"
    )
    keep_draws = data.draw(st.booleans(), label="draws kept")
    return position, read_position_json(blank(body, chosen, keep_draws)), chosen


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_unknown_tricks_judge_every_move_as_the_whole_position(data: st.DataObject) -> None:
    position, again, chosen = _blanked(data)
    for move in every_move(len(position.header.players)):
        assert again.judge(move) == position.judge(move), move
    view = again.view()
    assert Position.from_view(view).view() == view
    body = _as_json(again)
    assert position_dict(read_position_json(body)) == body
    whole = _as_json(position)
    for i, null in chosen.items():
        assert body["tricks"][i]["plays"] == []
        assert body["tricks"][i]["points"] == (None if null else whole["tricks"][i]["points"])
        assert body["tricks"][i]["winner"] == whole["tricks"][i]["winner"]
    for key in ("card_points", "tricks_won", "totals", "legal_moves", "turn", "event"):
        assert body[key] == whole[key], key
    # the captured cards are those of the known tricks only
    for seat, cards in enumerate(body["captured"]):
        known = {
            p["card"]
            for i, t in enumerate(whole["tricks"])
            if t["winner"] == seat and i not in chosen
            for p in t["plays"]
        }
        assert set(cards) == known


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_unknown_tricks_play_on_to_the_same_scores(data: st.DataObject) -> None:
    position, again, _ = _blanked(data)
    # with no stock left the cards to come are the same (a position holds no stock order)
    assume(position.deal.stock_left == 0 and not position.deal.over)
    position = position.copy()
    moves = every_move(len(position.header.players))
    while not position.deal.over:
        allowed = [m for m in moves if position.judge(m).verdict is not Ruling.ILLEGAL]
        move = data.draw(st.sampled_from(allowed), label="move")
        assert again.judge(move) == position.judge(move)
        position.apply(move)
        again.apply(move)
    for key in ("outcome", "totals", "card_points", "tricks_won", "match", "renuncios"):
        assert position_dict(again)[key] == position_dict(position)[key], key


# --- what is known of the score, checked -------------------------------------------------------


def _late_body(ruleset: str = "tute-4p", players: int = 4, tricks: int = 5) -> dict[str, Any]:
    """A position with ``tricks`` tricks completed and the next one not begun."""
    for seed in range(100):
        log = random_log(
            ruleset, random.Random(seed), players=players, finish_last=False, renuncio_rate=0
        )
        for p in _positions(log):
            d = p.deal
            if p.deals == 1 and d.trick_no == tricks and not d.trick and not d.violations:
                return _as_json(p)
    raise AssertionError("no such position")


def _positions(log: dict[str, Any]) -> list[Position]:
    seen: list[Position] = []
    replay(log, observer=lambda m: seen.append(m.position().copy()))
    return seen


def _faults(body: dict[str, Any]) -> dict[str, tuple[FaultCode, dict[str, Any]]]:
    with pytest.raises(ArbiterError) as caught:
        read_position_json(body)
    err = caught.value
    found = err.errors if isinstance(err, ArbiterErrors) else [err]
    return {e.pointer: (e.fault, e.params) for e in found}


def _known_points(body: dict[str, Any], seat: int, but: set[int]) -> int:
    return sum(
        t["points"] for i, t in enumerate(body["tricks"]) if t["winner"] == seat and i not in but
    )


def test_card_points_are_needed_when_a_trick_s_points_are_not_known() -> None:
    body = blank(_late_body(), {0: True})
    del body["card_points"]
    assert _faults(body) == {"/card_points": (FaultCode.MISSING, {})}


def test_a_seat_s_points_below_its_known_tricks_are_refused() -> None:
    whole = _late_body()
    body = blank(whole, {0: True})
    seat = whole["tricks"][0]["winner"]
    known = _known_points(whole, seat, {0})
    body["card_points"][seat] = known - 1 if known else 0
    if known:
        faults = _faults(body)
        assert faults[f"/card_points/{seat}"] == (
            FaultCode.POINTS_BELOW_KNOWN, {"seat": seat, "points": known}
        )  # fmt: skip


def test_a_seat_with_no_trick_of_unknown_points_has_its_tricks_points() -> None:
    whole = _late_body()
    body = blank(whole, {0: True})
    other = next(s for s in range(4) if s != whole["tricks"][0]["winner"])
    body["card_points"][other] += 1
    faults = _faults(body)
    points = _known_points(whole, other, set())
    assert faults[f"/card_points/{other}"] == (
        FaultCode.POINTS_NOT_KNOWN_TRICKS, {"seat": other, "points": points}
    )  # fmt: skip


def test_the_unknown_tricks_hold_the_points_of_the_unseen_cards() -> None:
    """No stock: every card seen nowhere is in a trick of unknown cards, and only those."""
    whole = _late_body()
    seat = whole["tricks"][0]["winner"]
    unseen = whole["tricks"][0]["points"]
    body = blank(whole, {0: True})
    body["card_points"][seat] += 1
    assert _faults(body)["/card_points"] == (FaultCode.UNKNOWN_POINTS_TOO_MANY, {"most": unseen})
    body["card_points"][seat] -= 2
    if whole["card_points"][seat] - 1 >= _known_points(whole, seat, {0}):
        assert _faults(body)["/card_points"] == (
            FaultCode.UNKNOWN_POINTS_NOT_ALL, {"points": unseen}
        )  # fmt: skip
    # given trick by trick, the points are checked the same way
    body = blank(whole, {0: False, 1: False})
    body["tricks"][0]["points"] += 1
    faults = _faults(body)
    both = unseen + whole["tricks"][1]["points"]
    assert faults == {"/tricks": (FaultCode.UNKNOWN_POINTS_TOO_MANY, {"most": both})}


def test_with_a_stock_the_unknown_points_are_at_most_the_unseen_ones() -> None:
    whole = _late_body("tute-2p", 2, 3)
    body = blank(whole, {0: True, 1: True, 2: True})
    body["card_points"] = [0, 0]
    del body["totals"]
    read_position_json(body)  # the unseen cards may still be in the stock
    body["card_points"] = [120, 0]
    assert _faults(body)["/card_points"][0] is FaultCode.UNKNOWN_POINTS_TOO_MANY


def test_a_trick_of_unknown_cards_needs_its_winner_and_points() -> None:
    whole = _late_body()
    body = blank(whole, {1: False})
    del body["tricks"][1]["winner"]
    assert _faults(body) == {"/tricks/1/winner": (FaultCode.MISSING, {})}
    body = blank(whole, {1: False})
    del body["tricks"][1]["points"]
    assert _faults(body) == {"/tricks/1/points": (FaultCode.MISSING, {})}
    body = blank(whole, {1: False})
    body["tricks"][1]["points"] = 45  # four cards hold at most 44 points
    assert _faults(body) == {"/tricks/1/points": (FaultCode.INT_RANGE, {"low": 0, "high": 44})}


def test_the_leader_chain_holds_through_unknown_tricks() -> None:
    whole = _late_body()
    body = blank(whole, {1: False})
    body["tricks"][1]["winner"] = (whole["tricks"][1]["winner"] + 1) % 4
    faults = _faults(body)
    assert faults["/tricks/2/leader"] == (
        FaultCode.TRICK_LEADER, {"seat": body["tricks"][1]["winner"]}
    )  # fmt: skip


def test_a_renuncio_in_a_trick_of_unknown_cards_is_refused() -> None:
    log = random_log("tute-4p", random.Random(1), finish_last=False, renuncio_rate=0.3)
    seen = _positions(log)
    position = next(
        p for p in seen if p.deal.violations and p.deal.violations[0].trick < p.deal.trick_no
    )
    body = _as_json(position)
    trick = body["renuncios"][0]["trick"]
    assert _faults(blank(body, {trick: False}))["/renuncios/0/trick"] == (
        FaultCode.RENUNCIO_IN_UNKNOWN_TRICK, {}
    )  # fmt: skip


def test_the_draws_follow_from_the_tricks_count() -> None:
    """tute-2p: the hands and the stock as the rules make them whether the draws are given
    or not; draws given must be all of them."""
    whole = _late_body("tute-2p", 2, 3)
    for i in range(3):
        assert len(whole["tricks"][i]["draws"]) == 2
    body = blank(whole, {0: False, 1: True})
    read_position_json(body)
    body = copy.deepcopy(whole)
    body["tricks"][2]["draws"] = []
    read_position_json(body)
    body["tricks"][1]["draws"] = body["tricks"][1]["draws"][:1]
    assert _faults(body)["/tricks/1/draws"] == (FaultCode.DRAW_COUNT, {"count": 2})
    body = blank(whole, {0: False})
    body["stock_left"] += 2
    assert _faults(body)["/stock_left"] == (FaultCode.STOCK_SIZE, {"count": whole["stock_left"]})


def test_validate_takes_a_position_with_tricks_of_unknown_cards_over_http() -> None:
    """The editor's start from the disputed trick: earlier tricks by their winners and the
    seats' points only; the ruling is the whole position's, and the position after the move
    writes the unknown tricks back as they were given."""
    client = make_client()
    whole = _late_body()
    body = blank(whole, dict.fromkeys(range(len(whole["tricks"])), True))
    move = whole["legal_moves"][0]
    answer = client.post("/v1/moves/validate", json={"position": body, "move": move})
    assert answer.status_code == 200, answer.get_json()
    verdict = answer.get_json()
    on_whole = client.post("/v1/moves/validate", json={"position": whole, "move": move})
    assert verdict["message"] == on_whole.get_json()["message"]
    assert verdict["legal_moves"] == on_whole.get_json()["legal_moves"]
    after = verdict["position"]
    assert [t["points"] for t in after["tricks"][: len(whole["tricks"])]] == [None] * len(
        whole["tricks"]
    )
    assert after["card_points"] == on_whole.get_json()["position"]["card_points"]
    again = client.post(
        "/v1/moves/validate", json={"position": after, "move": after["legal_moves"][0]}
    )
    assert again.status_code == 200, again.get_json()


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_a_blanked_position_with_any_field_spoilt_is_read_or_refused_never_an_error(
    data: st.DataObject,
) -> None:
    position = pick(data)
    body = _as_json(position)
    assume(body["tricks"])
    chosen = data.draw(
        st.dictionaries(st.integers(0, len(body["tricks"]) - 1), st.booleans(), min_size=1),
        label="blanked",
    )
    body = blank(body, chosen)
    spoil(data, body)
    try:
        again = read_position_json(body)
    except ArbiterError as err:
        faults = err.errors if isinstance(err, ArbiterErrors) else [err]
        assert all(isinstance(f.fault, FaultCode) for f in faults)
        json.dumps([f.params for f in faults])  # params are JSON values
        return
    for move in every_move(len(again.header.players)):
        again.judge(move)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_positions_played_on_from_unknown_tricks_read_back(data: st.DataObject) -> None:
    """Played on (in tute-2p the stock drawn as a position makes it up), every later position
    still adds up: its JSON reads back. The stock is made of unseen cards that leave the
    tricks of unknown cards the points they were given."""
    _, again, _ = _blanked(data)
    moves = every_move(len(again.header.players))
    while not again.deal.over:
        allowed = [m for m in moves if again.judge(m).verdict is Ruling.OK]
        again = again.after(data.draw(st.sampled_from(allowed), label="move"))
        body = _as_json(again)
        assert position_dict(read_position_json(body)) == body


def test_the_stock_of_a_position_with_unknown_tricks_adds_up() -> None:
    """tute-2p, the stock still long: drawn to its end, the cards left unseen are worth what
    the tricks of unknown cards were given (lowest cards first would not do, here)."""
    whole = _late_body("tute-2p", 2, 3)
    position = read_position_json(blank(whole, {0: True, 1: True, 2: True}))
    moves = every_move(2)
    while position.deal.stock_left:
        position = position.after(next(m for m in moves if position.judge(m).verdict is Ruling.OK))
    read_position_json(_as_json(position))
