"""The position view of the engine and the steps of a replay (docs/api.md, "Steps").

- :meth:`Position.view` on random games of every table (hypothesis over
  :func:`arbiter.simulate.random_log`), at every step of a replay: the hands, the trick on the
  table, the cards of the finished tricks and the stock not drawn yet are the ruleset's pack,
  each card once; the stock the view counts and shows is the one left; ``turn`` is None
  exactly when the deal or the match is over; ``correct`` is a non-empty part of the hand of
  the seat to act (all of it on lead) and declarations come only on lead; the counters add up;
  open cantes are held and not sung. At the end of the log the view's plays and declarations
  are the ``legal_moves`` of the replay's ``next``, and a finished deal's totals and outcome are
  its scores' and outcome.
- ``Referee.replay(log, steps=True)`` and ``POST /v1/replays`` with ``"steps": true``: one step
  per applied event plus the first, ``event`` counting from 0; the first step is the deal as
  dealt; the last agrees with the replay body (hands rebuilt from the log and the body's tricks,
  draws and exchanges; the trick on the table; the counters; who acts and the legal moves);
  steps stop at an illegal event; the rest of the answer is the answer without steps; a cached
  state does not shorten them; and a ``steps`` that is not a boolean is refused, naming it.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from arbiter.cache import StateCache
from arbiter.cache.breaker import CircuitBreaker
from arbiter.cache.stores import MemoryStore
from arbiter.engine.cards import HORSE, KING, display_order, make_card, pack_mask
from arbiter.engine.match import MatchState, replay
from arbiter.engine.moves import Move
from arbiter.engine.position import PositionView
from arbiter.engine.state import LAST_TRICK_BONUS, DealState
from arbiter.report import Replay
from arbiter.service import LIBRARY, Referee
from arbiter.simulate import random_log
from tests import reference
from tests.api_support import ANY_STATE_ID, assert_problem, make_client
from tests.hand_built import play
from tests.positions_support import random_games, without_state_id

Seen = list[tuple[int, PositionView, DealState]]


def viewed(log: dict[str, Any]) -> tuple[MatchState, Seen]:
    """The replay of ``log`` and, at each of its steps, the deal index, the view and a copy of
    the deal's state (for its history and stock, which the view does not show in full)."""
    seen: Seen = []

    def observe(match: MatchState) -> None:
        seen.append((len(match.deals) - 1, match.position().view(), match.deals[-1].state.copy()))

    return replay(log, observer=observe), seen


def mask_of(cards: Any) -> int:
    out = 0
    for card in cards:
        out |= 1 << card
    return out


# --- the view at every step ----------------------------------------------------------------------


def check_cards(view: PositionView, state: DealState) -> None:
    """Hands + trick + finished tricks + stock not drawn are the pack, pairwise disjoint."""
    left = state.stock[state.stock_pos :]
    finished = [card for trick in state.tricks for _, card in trick.plays]
    parts = [*view.hands, mask_of(c for _, c in view.trick), mask_of(finished), mask_of(left)]
    union = 0
    for part in parts:
        assert union & part == 0, "a card is in two places"
        union |= part
    assert union == pack_mask(state.ruleset.removed_rank[state.players])
    assert sum(p.bit_count() for p in parts) == state.ruleset.pack_size(state.players)
    assert view.stock_left == len(left)
    if left:  # the turned card lies last under the stock, face up
        assert view.stock_known == (left[-1],) == (view.turned,)
    else:
        assert view.stock_known == ()


def check_turn(view: PositionView) -> None:
    assert (view.turn is None) == (view.over or view.match_over)
    if view.turn is None:
        assert view.correct == 0 and view.declarations == ()
        return
    hand = view.hands[view.turn]
    assert view.correct and view.correct & ~hand == 0, "correct plays come from the hand"
    if not view.trick:
        assert view.correct == hand, "on lead any card may be played"
    assert all(d.seat == view.turn for d in view.declarations)
    assert not view.declarations or not view.trick, "declarations only on lead"


def check_counters(view: PositionView, state: DealState) -> None:
    n = state.players
    assert view.mano == (view.dealer + 1) % n
    assert view.trick_no == len(state.tricks) == sum(view.tricks_won)
    assert sum(view.card_points) == sum(t.points for t in state.tricks)
    for seat in range(n):
        won = [t for t in state.tricks if t.winner == seat]
        assert view.tricks_won[seat] == len(won)
        assert view.card_points[seat] == sum(t.points for t in won)
        assert view.cante_points[seat] == sum(c.points for c in view.cantes if c.seat == seat)
    bonus = [0] * n
    if view.trick_no == state.total_tricks:
        bonus[state.tricks[-1].winner] = LAST_TRICK_BONUS
    expected = [c + k + b for c, k, b in zip(view.card_points, view.cante_points, bonus,
                                             strict=True)]  # fmt: skip
    assert list(view.totals) == expected
    assert view.events == state.events_applied
    for seat, suit in view.open_cantes:
        pair = 1 << make_card(KING, suit) | 1 << make_card(HORSE, suit)
        assert view.hands[seat] & pair == pair and not view.sung >> suit & 1


def legal_moves_json(view: PositionView, notation: Any = "spanish") -> list[dict[str, Any]]:
    """The view's plays (display order) then declarations, as ``next.legal_moves`` lists them."""
    assert view.turn is not None
    plays = [Move.play(view.turn, card) for card in display_order(view.correct)]
    return [m.to_json(notation) for m in (*plays, *view.declarations)]


@given(random_games())
def test_the_view_at_every_step_of_random_games(log: dict[str, Any]) -> None:
    match, seen = viewed(log)
    assert seen, "a replay begins with the first deal as dealt"
    for deal, view, state in seen:
        assert view.deal == deal
        check_cards(view, state)
        check_turn(view)
        check_counters(view, state)
    # event counts from 0 within each deal, one step per applied event
    for deal in range(len(match.deals)):
        events = [view.events for d, view, _ in seen if d == deal]
        assert events == list(range(len(events)))
        assert len(events) == match.deals[deal].state.events_applied + 1


@given(random_games())
def test_the_last_view_agrees_with_the_replay(log: dict[str, Any]) -> None:
    match, seen = viewed(log)
    body = Replay(match).to_dict()
    _, last, _ = seen[-1]
    assert last.match_over == body["match"]["over"]
    if body["next"] is None:
        assert last.turn is None
    else:
        assert last.turn == body["next"]["seat"]
        assert legal_moves_json(last) == body["next"]["legal_moves"]
    for index, deal in enumerate(body["deals"]):
        views = [view for d, view, _ in seen if d == index]
        if not deal["finished"]:
            assert not any(v.over for v in views)
            continue
        end = views[-1]
        assert end.over and [v.over for v in views].index(True) == len(views) - 1
        assert list(end.totals) == [s["total"] for s in deal["scores"]]
        assert end.outcome is not None
        assert list(end.outcome.winners) == deal["outcome"]["winners"]
        assert list(end.outcome.losers) == deal["outcome"]["losers"]


# --- steps in the answer -----------------------------------------------------------------------


def hands_from_body(raw: dict[str, Any], deal: dict[str, Any]) -> list[set[str]]:
    """Each seat's cards after the deal's body: dealt, plus draws and exchanged cards, less the
    plays and the sevens given (counted per seat: a seven given may be drawn again later)."""
    held = [Counter(hand) for hand in raw["hands"]]
    for trick in deal["tricks"]:
        for p in trick["plays"]:
            held[p["seat"]][p["card"]] -= 1
        for d in trick["draws"]:
            held[d["seat"]][d["card"]] += 1
    for e in deal["exchanges"]:
        held[e["seat"]][e["gave"]] -= 1
        held[e["seat"]][e["took"]] += 1
    assert all(count in (0, 1) for hand in held for count in hand.values())
    return [{card for card, count in hand.items() if count} for hand in held]


def events_applied(body: dict[str, Any], log: dict[str, Any], deal: int) -> int:
    illegal = body["illegal"]
    if illegal is not None and illegal["deal"] == deal:
        assert illegal["event"] is not None
        return int(illegal["event"])
    return len(log["deals"][deal]["events"])


def check_steps(log: dict[str, Any], body: dict[str, Any]) -> None:
    """The steps of ``body`` (an answer with steps) against the rest of the answer."""
    for index, deal in enumerate(body["deals"]):
        raw, steps = log["deals"][index], deal["steps"]
        assert len(steps) == events_applied(body, log, index) + 1
        assert [s["event"] for s in steps] == list(range(len(steps)))
        first, last = steps[0], steps[-1]
        assert [set(h) for h in first["hands"]] == [set(h) for h in raw["hands"]]
        assert first["trick"] == {
            "number": 0, "leader": deal["mano"], "plays": [], "led": None, "winning": None,
        }  # fmt: skip
        assert first["turn"] == deal["mano"] and not any(first["totals"])
        assert [set(h) for h in last["hands"]] == hands_from_body(raw, deal)
        assert all(len(h) == len(set(h)) for h in last["hands"])
        done = [t for t in deal["tricks"] if t["winner"] is not None]
        on_table = deal["tricks"][len(done) :]
        assert last["trick"]["number"] == len(done)
        assert last["trick"]["plays"] == (on_table[0]["plays"] if on_table else [])
        if on_table:
            assert last["trick"]["leader"] == on_table[0]["leader"]
        scores = deal["scores"]
        assert last["tricks_won"] == [s["tricks"] for s in scores]
        assert last["card_points"] == [s["card_points"] for s in scores]
        assert last["totals"] == [s["total"] for s in scores]
        assert [{k: c[k] for k in ("seat", "suit", "points", "trick")} for c in last["cantes"]] == (
            deal["cantes"]
        )
        # the position's history is the deal's: its tricks with their draws, its exchanges
        assert last["tricks"] == done and last["exchanges"] == deal["exchanges"]
        assert last["last_winner"] == (done[-1]["winner"] if done else None)
        assert last["trump"] == deal["trump"]
        assert last["over"] == deal["finished"]
        assert ("stock_left" in last) == ("stock_left" in deal)
        if "stock_left" in deal:
            assert last["stock_left"] == deal["stock_left"]
        if last["turn"] is not None:
            assert last["legal_moves"] and last["legal_moves"][0]["seat"] == last["turn"]
        else:
            assert last["legal_moves"] == []
    final = body["deals"][-1]["steps"][-1]
    if body["next"] is not None:
        assert final["turn"] == body["next"]["seat"]
        assert final["legal_moves"] == body["next"]["legal_moves"]
    elif body["status"] == "complete":
        assert final["turn"] is None and final["legal_moves"] == []


def without_steps(body: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(body)
    for deal in out["deals"]:
        del deal["steps"]
    return out


@given(random_games())
def test_steps_of_random_games(log: dict[str, Any]) -> None:
    body = LIBRARY.replay(log, steps=True).to_dict()
    check_steps(log, body)
    assert without_steps(body) == LIBRARY.replay(log).to_dict()


def off_turn_play(log: dict[str, Any]) -> dict[str, Any] | None:
    """A play by a seat not to act now, at the end of the log (None if the deal is over)."""
    nxt = LIBRARY.replay(log).to_dict()["next"]
    if nxt is None:
        return None
    seat = (nxt["seat"] + 1) % len(log["players"])
    return play(seat, next(m["card"] for m in nxt["legal_moves"] if m["type"] == "play"))


@given(random_games(), st.integers(0, 40))
def test_steps_stop_at_an_illegal_event(log: dict[str, Any], cut: int) -> None:
    events = log["deals"][-1]["events"]
    del events[cut:]
    good = len(events)
    bad = off_turn_play(log)
    if bad is None:  # the deal ended (a tute): any further event is deal_over or match_over
        bad = play(0, "1O")
    events += [bad, *copy.deepcopy(events[:2])]  # what follows an illegal event is not played
    body = LIBRARY.replay(log, steps=True).to_dict()
    assert body["status"] == "invalid"
    assert (body["illegal"]["deal"], body["illegal"]["event"]) == (len(log["deals"]) - 1, good)
    assert len(body["deals"][-1]["steps"]) == good + 1
    check_steps(log, body)
    assert without_steps(body) == LIBRARY.replay(log).to_dict()


def test_a_deal_after_the_match_is_decided_has_no_steps() -> None:
    log = random_log("tute-cabron", random.Random(2), deals=30)
    body = LIBRARY.replay(log, steps=True).to_dict()
    assert body["match"]["over"]
    extra = copy.deepcopy(log["deals"][0])
    longer = {**log, "deals": [*log["deals"], extra]}
    out = LIBRARY.replay(longer, steps=True).to_dict()
    assert out["illegal"]["code"] == "match_over" and out["illegal"]["deal"] == len(log["deals"])
    assert out["deals"] == body["deals"]


def test_a_cached_state_does_not_shorten_the_steps() -> None:
    cache = StateCache(MemoryStore(100), b"k" * 32, 60, CircuitBreaker(3, 5.0), 0)
    referee = Referee(cache=cache)
    log = random_log("tute-4p", random.Random(7), deals=2, finish_last=False, stop_after=17)
    shorter = copy.deepcopy(log)
    del shorter["deals"][-1]["events"][-3:]
    referee.replay(shorter)  # kept: the longer log resumes from it without steps
    body = referee.replay(log, steps=True).to_dict()
    assert body == LIBRARY.replay(log, steps=True).to_dict()
    assert [len(d["steps"]) for d in body["deals"]] == [len(d["events"]) + 1 for d in log["deals"]]


def french(code: str) -> str:
    return reference.code(reference.card(code), "french")


def in_french(value: Any) -> Any:
    """A log or a step with every card code (by its key) and suit letter in French."""
    if isinstance(value, list):
        return [in_french(v) for v in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key in ("card", "turned", "gave", "took") and isinstance(item, str):
            out[key] = french(item)
        elif key in ("suit", "trump", "led") and isinstance(item, str):
            out[key] = reference.FRENCH_SUITS[item]
        elif key == "sung":
            out[key] = [reference.FRENCH_SUITS[s] for s in item]
        elif key in ("stock", "stock_known", "cards"):
            out[key] = [french(c) for c in item]
        elif key in ("hands", "captured") and item is not None:
            out[key] = [[french(c) for c in hand] for hand in item]
        else:
            out[key] = in_french(item)
    return out


def test_steps_name_cards_in_the_log_notation() -> None:
    log = random_log("tute-2p", random.Random(3), finish_last=False, stop_after=31)
    relabelled = {**in_french(log), "notation": "french"}
    spanish = LIBRARY.replay(log, steps=True).to_dict()["deals"][0]["steps"]
    steps = LIBRARY.replay(relabelled, steps=True).to_dict()["deals"][0]["steps"]
    assert len(steps) == 32
    assert steps == in_french(spanish)


# --- over HTTP ---------------------------------------------------------------------------------


def test_post_replays_with_steps() -> None:
    client = make_client()
    log = random_log("tute-3p", random.Random(11), deals=2, finish_last=False, stop_after=20)
    answer = client.post("/v1/replays", json={**log, "steps": True})
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["state_id"] == ANY_STATE_ID
    assert without_state_id(body) == without_state_id(LIBRARY.replay(log, steps=True).to_dict())
    check_steps(log, body)
    plain = client.post("/v1/replays", json={**log, "steps": False}).get_json()
    assert without_state_id(plain) == without_state_id(without_steps(body))
    assert all("steps" not in d for d in client.post("/v1/replays", json=log).get_json()["deals"])


def test_steps_must_be_a_boolean() -> None:
    client = make_client()
    log = random_log("tute-2p", random.Random(1), finish_last=False, stop_after=4)
    bad: Any
    for bad in ("yes", 1, None, []):
        problem = assert_problem(
            client.post("/v1/replays", json={**log, "steps": bad}), 422, "invalid-log"
        )
        assert [e["pointer"] for e in problem["errors"]] == ["/steps"]



# --- each step's legal moves, declarations included ----------------------------------------------


def test_each_steps_legal_moves_are_those_of_the_log_cut_there() -> None:
    """A step's ``legal_moves`` are the ``next.legal_moves`` of a replay of the log cut at that
    step: plays and declarations (sing, exchange...) alike, at every step, not only the last.
    The logs are chosen to hold steps where a declaration is allowed."""
    for ruleset in ("tute-2p", "tute-4p"):
        log = random_log(ruleset, random.Random(1), finish_last=False, stop_after=30)
        events = log["deals"][-1]["events"]
        steps = LIBRARY.replay(log, steps=True).to_dict()["deals"][-1]["steps"]
        declarations = 0
        for step in steps:
            cut = copy.deepcopy(log)
            cut["deals"][-1]["events"] = events[: step["event"]]
            nxt = LIBRARY.replay(cut).to_dict()["next"]
            expected = [] if nxt is None else nxt["legal_moves"]
            assert step["legal_moves"] == expected, (ruleset, step["event"])
            declarations += any(move["type"] != "play" for move in expected)
        assert declarations, f"no step of the {ruleset} log allows a declaration"
