"""Illegal events (docs/rules.md §8, docs/api.md illegal codes and their precedence).

Each code is produced through ``arbiter.replay`` (status ``invalid``, ``illegal`` = {deal, event,
code, message}, ``deals`` showing the play up to that event) and through ``arbiter.validate``
(verdict ``illegal`` with the code). Positions are built with exact hands (helpers of
tests/hand_built.py and below); random positions are judged against the reference referee of
:mod:`tests.reference`. The engine's ``CHECK_ORDER`` is the order docs/api.md states, and the
engine follows it: for every event type and every two of its codes, a position where both
apply reports the earlier one (in ``check``, ``judge`` and ``apply``).
"""

from __future__ import annotations

import copy
import dataclasses
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import arbiter
from arbiter.engine.cards import HORSE, KING, SEVEN, make_card, parse_card, parse_suit
from arbiter.engine.errors import LogError
from arbiter.engine.match import replay as engine_replay
from arbiter.engine.moves import EVENT_TYPES, Move, TuteOf
from arbiter.engine.position import Position
from arbiter.engine.rulesets import CanteStyle
from arbiter.engine.state import CHECK_ORDER, IllegalCode
from arbiter.simulate import random_log
from tests import reference
from tests.hand_built import (
    exchange,
    exhausted_2p,
    finish,
    log_of,
    pack,
    play,
    run,
    sing,
    tute,
    with_events,
)
from tests.reference import SUITS

PACK40 = pack()
PACK36 = pack(2)  # without the 2s


# --- helpers -----------------------------------------------------------------------------------


def deal2(h0: str, h1: str, turned: str, **extra: Any) -> dict[str, Any]:
    """A tute-2p deal: the given hands, the rest of the pack as stock in pack order, then the
    turned card."""
    a, b = h0.split(), h1.split()
    rest = [c for c in PACK40 if c not in [*a, *b, turned]]
    assert len(rest) == 23
    return {"hands": [a, b], "stock": [*rest, turned], "events": [], **extra}


def assert_illegal(
    log: dict[str, Any], move: dict[str, Any], code: str, *, validate: bool = True
) -> dict[str, Any]:
    """``move`` after ``log`` is illegal with ``code``, in replay and in validate."""
    assert run(log)["status"] != "invalid", "the position itself must be valid"
    events = log["deals"][-1]["events"]
    out = run(with_events(log, [move]))
    assert out["status"] == "invalid"
    ill = out["illegal"]
    assert set(ill) == {"deal", "event", "code", "message"}
    assert ill["code"] == code
    assert ill["deal"] == len(log["deals"]) - 1
    assert ill["event"] == len(events)
    assert isinstance(ill["message"], str) and ill["message"]
    assert out["next"] is None
    # deals show the play up to that event: exactly the replay of the log without it
    assert out["deals"] == run(log)["deals"]
    if validate:
        body = arbiter.validate(log, move).to_dict()
        assert body["verdict"] == "illegal"
        assert body["legal"] is False
        assert body["code"] == code
        assert body["obligation"] is None
        assert isinstance(body["message"], str) and body["message"]
    return out


def assert_ok(log: dict[str, Any], move: dict[str, Any]) -> dict[str, Any]:
    body = arbiter.validate(log, move).to_dict()
    assert body["verdict"] == "ok", body
    out = run(with_events(log, [move]))
    assert out["status"] != "invalid", out["illegal"]
    return out


# tute-2p, trump bastos (turned 4B). ana holds rey and caballo of oros and copas, bea the seven
# of trumps. ana leads the as de espadas, bea follows with the 2: ana wins trick 0.
H0 = "12O 11O 12C 11C 1E 3E 7C 7E"
H1 = "2E 4E 5E 6E 2O 4O 5O 7B"
TRICK0 = [play(0, "1E"), play(1, "2E")]


def base2(events: list[dict[str, Any]] | None = None, **options: Any) -> dict[str, Any]:
    deal = deal2(H0, H1, "4B", dealer=1)
    deal["events"] = list(events or [])
    return log_of("tute-2p", 2, [deal], **options)


def kings_deal(mano: int) -> dict[str, Any]:
    """A tute-2p deal whose mano holds the four kings (dealer left to the default rotation)."""
    kings, other = "12O 12C 12E 12B 1E 3E 7C 7E", "2E 4E 5E 6E 2O 4O 5O 7B"
    hands = (kings, other) if mano == 0 else (other, kings)
    deal = deal2(*hands, "4B")
    deal["events"] = [tute(mano, "kings")]
    return deal


def four_by_suits(events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """tute-4p, dealer 3: ana all oros, bea all copas, carla all espadas, dani all bastos
    (trump, the 12B shown)."""
    hands = [PACK40[10 * s : 10 * s + 10] for s in range(4)]
    deal = {"dealer": 3, "hands": hands, "trump_card": "12B", "events": list(events or [])}
    return log_of("tute-4p", 4, [deal])


def three_by_chunks(ruleset: str) -> dict[str, Any]:
    hands = [PACK36[12 * s : 12 * s + 12] for s in range(3)]
    deal: dict[str, Any] = {"dealer": 2, "hands": hands, "events": []}
    if ruleset == "tute-3p":
        deal["trump_card"] = hands[2][-1]
    return log_of(ruleset, 3, [deal])


def gana_pierde_4() -> dict[str, Any]:
    hands = [PACK40[10 * s : 10 * s + 10] for s in range(4)]
    return log_of("tute-gana-pierde", 4, [{"dealer": 3, "hands": hands, "events": []}])


# --- play: out_of_turn, card_not_in_hand ----------------------------------------------------


def test_out_of_turn() -> None:
    assert_illegal(base2(), play(1, "2E"), "out_of_turn")
    out = assert_illegal(base2([play(0, "1E")]), play(0, "3E"), "out_of_turn")
    trick = out["deals"][0]["tricks"]
    assert trick == [{"leader": 0, "plays": [{"seat": 0, "card": "1E"}], "winner": None,
                      "points": None, "draws": []}]  # fmt: skip
    # after trick 0 ana (the winner) leads, not bea
    assert_illegal(base2(TRICK0), play(1, "4E"), "out_of_turn")


def test_out_of_turn_4p() -> None:
    assert_illegal(four_by_suits([play(0, "1O")]), play(2, "1E"), "out_of_turn")


def test_card_not_in_hand() -> None:
    assert_illegal(base2(), play(0, "2E"), "card_not_in_hand")  # bea's card
    assert_illegal(base2(), play(0, "1O"), "card_not_in_hand")  # in the stock
    assert_illegal(base2(), play(0, "4B"), "card_not_in_hand")  # the turned card
    # a card already played; after trick 0 ana drew the 1O (first card of the stock)
    out = assert_illegal(base2(TRICK0), play(0, "1E"), "card_not_in_hand")
    (trick,) = out["deals"][0]["tricks"]
    assert trick["winner"] == 0
    assert trick["draws"] == [{"seat": 0, "card": "1O"}, {"seat": 1, "card": "3O"}]
    assert_ok(base2(TRICK0), play(0, "1O"))


def test_out_of_turn_before_card_not_in_hand() -> None:
    assert_illegal(base2(), play(1, "12O"), "out_of_turn")


# --- sing ------------------------------------------------------------------------------------


def test_sing_ok_after_winning_a_trick() -> None:
    out = assert_ok(base2(TRICK0), sing(0, "O"))
    assert out["deals"][0]["cantes"] == [{"seat": 0, "suit": "O", "points": 20, "trick": 0}]


def test_declarations_open_are_listed_in_legal_moves() -> None:
    # after trick 0 ana may play any card (free play) or sing oros or copas
    out = run(base2(TRICK0))
    moves = out["next"]["legal_moves"]
    plays = {m["card"] for m in moves if m["type"] == "play"}
    assert plays == {"12O", "11O", "12C", "11C", "3E", "7C", "7E", "1O"}
    others = [m for m in moves if m["type"] != "play"]
    assert sorted(others, key=str) == sorted(
        [{"type": "sing", "seat": 0, "suit": "O"}, {"type": "sing", "seat": 0, "suit": "C"}],
        key=str,
    )
    # on the first lead, holding the seven of trumps: the exchange, no cante
    out = run(seven_log())
    others = [m for m in out["next"]["legal_moves"] if m["type"] != "play"]
    assert others == [{"type": "exchange", "seat": 0}]
    # holding four kings: the tute
    out = run(kings_log())
    others = [m for m in out["next"]["legal_moves"] if m["type"] != "play"]
    assert others == [{"type": "tute", "seat": 0, "of": "kings"}]


def test_sing_not_on_lead() -> None:
    assert_illegal(base2(), sing(1, "O"), "not_on_lead")
    assert_illegal(base2(TRICK0), sing(1, "O"), "not_on_lead")
    # in the middle of a trick, neither the leader nor the follower is about to lead
    assert_illegal(base2([*TRICK0, play(0, "3E")]), sing(0, "O"), "not_on_lead")
    assert_illegal(base2([*TRICK0, play(0, "3E")]), sing(1, "O"), "not_on_lead")


def test_sing_only_the_trick_winner_in_pairs() -> None:
    # dani (all bastos, void in oros) must trump the as de oros and wins the trick; her partner
    # bea holds rey and caballo de copas but cannot sing.
    trick = [play(0, "1O"), play(1, "1C"), play(2, "1E"), play(3, "2B")]
    log = four_by_suits(trick)
    assert run(log)["deals"][0]["tricks"][0]["winner"] == 3
    assert_illegal(log, sing(1, "C"), "not_on_lead")
    out = assert_ok(log, sing(3, "B"))
    assert out["deals"][0]["cantes"] == [{"seat": 3, "suit": "B", "points": 40, "trick": 0}]


def test_sing_no_trick_won() -> None:
    # ana, the mano, holds rey and caballo de oros but has won no trick yet
    assert_illegal(base2(), sing(0, "O"), "no_trick_won")


def test_sing_cante_already_declared() -> None:
    assert_illegal(base2([*TRICK0, sing(0, "O")]), sing(0, "C"), "cante_already_declared")


def test_sing_cantes_per_trick_option() -> None:
    log = base2([*TRICK0, sing(0, "O")], cantes_per_trick=2)
    assert_ok(log, sing(0, "C"))
    assert_illegal(with_events(log, [sing(0, "C")]), sing(0, "E"), "cante_already_declared")


def test_sing_suit_already_sung() -> None:
    # trick 1: ana leads the 3 de espadas, bea follows with the 4: ana wins again
    log = base2([*TRICK0, sing(0, "O"), play(0, "3E"), play(1, "4E")])
    assert run(log)["deals"][0]["tricks"][1]["winner"] == 0
    assert_illegal(log, sing(0, "O"), "suit_already_sung")
    assert_ok(log, sing(0, "C"))


def test_sing_pair_not_held() -> None:
    assert_illegal(base2(TRICK0), sing(0, "E"), "pair_not_held")
    assert_illegal(base2(TRICK0), sing(0, "B"), "pair_not_held")


# sing precedence: not_in_ruleset, not_on_lead, no_trick_won, cante_already_declared,
# suit_already_sung, pair_not_held


def test_sing_precedence_not_on_lead_before_no_trick_won() -> None:
    assert_illegal(base2(), sing(1, "E"), "not_on_lead")


def test_sing_precedence_no_trick_won_before_pair_not_held() -> None:
    assert_illegal(base2(), sing(0, "E"), "no_trick_won")


def test_sing_precedence_cante_already_declared_before_suit_already_sung() -> None:
    assert_illegal(base2([*TRICK0, sing(0, "O")]), sing(0, "O"), "cante_already_declared")


def test_sing_precedence_cante_already_declared_before_pair_not_held() -> None:
    assert_illegal(base2([*TRICK0, sing(0, "O")]), sing(0, "E"), "cante_already_declared")


def test_sing_precedence_suit_already_sung_before_pair_not_held() -> None:
    # trick 1: ana leads the 7 de copas, bea trumps with the 7 de bastos and wins; she holds
    # no pair of oros and oros has been sung
    log = base2([*TRICK0, sing(0, "O"), play(0, "7C"), play(1, "7B")])
    assert run(log)["deals"][0]["tricks"][1]["winner"] == 1
    assert_illegal(log, sing(1, "O"), "suit_already_sung")
    assert_illegal(log, sing(1, "E"), "pair_not_held")


@pytest.mark.parametrize("ruleset", ["tute-cabron", "tute-gana-pierde"])
def test_sing_not_in_ruleset(ruleset: str) -> None:
    log = three_by_chunks(ruleset) if ruleset == "tute-cabron" else gana_pierde_4()
    assert_illegal(log, sing(0, "O"), "not_in_ruleset")
    # a seat that is not on lead: not_in_ruleset comes first
    assert_illegal(log, sing(1, "C"), "not_in_ruleset")
    assert_illegal(with_events(log, [play(0, log["deals"][0]["hands"][0][0])]), sing(0, "O"),
                   "not_in_ruleset")  # fmt: skip


# --- tute ------------------------------------------------------------------------------------

KINGS_H0 = "12O 12C 12E 12B 1E 3E 7C 7E"


def kings_log(**options: Any) -> dict[str, Any]:
    return log_of("tute-2p", 2, [deal2(KINGS_H0, H1, "4B", dealer=1)], **options)


def test_tute_ok_on_first_lead() -> None:
    out = assert_ok(kings_log(), tute(0, "kings"))
    deal = out["deals"][0]
    assert deal["finished"] is True
    assert deal["outcome"]["reason"] == "tute"
    assert deal["outcome"]["winners"] == [0]


def test_tute_not_held() -> None:
    assert_illegal(kings_log(), tute(0, "horses"), "tute_not_held")
    assert_illegal(base2(TRICK0), tute(0, "kings"), "tute_not_held")


def test_tute_not_on_lead() -> None:
    assert_illegal(kings_log(), tute(1, "kings"), "not_on_lead")
    assert_illegal(with_events(kings_log(), [play(0, "1E")]), tute(0, "kings"), "not_on_lead")


def test_tute_no_trick_won_with_option() -> None:
    log = kings_log(tute_requires_trick_won=True)
    assert_illegal(log, tute(0, "kings"), "no_trick_won")
    # precedence: no_trick_won before tute_not_held
    assert_illegal(log, tute(0, "horses"), "no_trick_won")
    # precedence: not_on_lead before no_trick_won
    assert_illegal(log, tute(1, "kings"), "not_on_lead")
    # after winning a trick it is allowed
    assert_ok(with_events(log, [play(0, "1E"), play(1, "2E")]), tute(0, "kings"))


@pytest.mark.parametrize("ruleset", ["tute-cabron", "tute-gana-pierde"])
def test_tute_not_in_ruleset(ruleset: str) -> None:
    log = three_by_chunks(ruleset) if ruleset == "tute-cabron" else gana_pierde_4()
    assert_illegal(log, tute(0, "kings"), "not_in_ruleset")
    assert_illegal(log, tute(2, "horses"), "not_in_ruleset")


# --- exchange of the seven -----------------------------------------------------------------

SEVEN_H0 = "12O 11O 12C 11C 1E 3E 7C 7B"
SEVEN_H1 = "2E 4E 5E 6E 2O 4O 5O 7E"


def seven_log(events: list[dict[str, Any]] | None = None, **options: Any) -> dict[str, Any]:
    deal = deal2(SEVEN_H0, SEVEN_H1, "4B", dealer=1)
    deal["events"] = list(events or [])
    return log_of("tute-2p", 2, [deal], **options)


def test_exchange_ok() -> None:
    out = assert_ok(seven_log(), exchange(0))
    assert out["deals"][0]["exchanges"] == [{"seat": 0, "gave": "7B", "took": "4B", "trick": -1}]
    # the 4B is now in ana's hand
    assert_ok(with_events(seven_log(), [exchange(0)]), play(0, "4B"))


def test_exchange_seven_not_held() -> None:
    assert_illegal(base2(), exchange(0), "seven_not_held")  # bea holds the 7B here


def test_exchange_not_on_lead() -> None:
    assert_illegal(seven_log(), exchange(1), "not_on_lead")
    assert_illegal(seven_log([play(0, "1E")]), exchange(0), "not_on_lead")
    # bea holds the seven but ana is on lead
    assert_illegal(base2(), exchange(1), "not_on_lead")


def test_exchange_no_trick_won_with_option() -> None:
    log = seven_log(exchange_requires_trick_won=True)
    assert_illegal(log, exchange(0), "no_trick_won")
    # precedence: no_trick_won before seven_not_held
    assert_illegal(base2(exchange_requires_trick_won=True), exchange(0), "no_trick_won")
    # after winning trick 0 (1E against 2E) it is allowed
    assert_ok(with_events(log, [play(0, "1E"), play(1, "2E")]), exchange(0))


def test_exchange_when_the_turned_card_is_the_seven() -> None:
    log = log_of("tute-2p", 2, [deal2(H0, "2E 4E 5E 6E 2O 4O 5O 4B", "7B", dealer=1)])
    assert_illegal(log, exchange(0), "seven_not_held")
    out = run(log)
    assert [m for m in out["next"]["legal_moves"] if m["type"] == "exchange"] == []


def test_exchange_twice_seven_not_held() -> None:
    # after the exchange the seven lies under the stock: nobody holds it
    assert_illegal(seven_log([exchange(0)]), exchange(0), "seven_not_held")


# trump oros (bea drew the turned 4 de oros last). ana holds the 7 de oros.
FINAL0_SEVEN = "7O 3E 1C 3C 1B 3B 1O 3O"
FINAL0_NO_SEVEN = "1E 3E 1C 3C 1B 3B 1O 3O"
FINAL1 = "5E 6E 12C 12O 12E 12B 7E 4O"


def test_exchange_no_stock() -> None:
    log = log_of("tute-2p", 2, [exhausted_2p(FINAL0_SEVEN, FINAL1)])
    deal = run(log)["deals"][0]
    assert deal["stock_left"] == 0
    assert len(deal["tricks"]) == 12
    assert deal["trump"] == "O"
    assert_illegal(log, exchange(0), "no_stock")


def test_exchange_precedence_no_stock_before_seven_not_held() -> None:
    log = log_of("tute-2p", 2, [exhausted_2p(FINAL0_NO_SEVEN, FINAL1)])
    assert_illegal(log, exchange(0), "no_stock")


def test_exchange_precedence_not_on_lead_before_no_stock() -> None:
    log = log_of("tute-2p", 2, [exhausted_2p(FINAL0_SEVEN, FINAL1)])
    assert_illegal(log, exchange(1), "not_on_lead")


@pytest.mark.parametrize("ruleset", ["tute-3p", "tute-4p", "tute-cabron", "tute-gana-pierde"])
def test_exchange_not_in_ruleset(ruleset: str) -> None:
    if ruleset == "tute-4p":
        log = four_by_suits()
    elif ruleset == "tute-gana-pierde":
        log = gana_pierde_4()
    else:
        log = three_by_chunks(ruleset)
    assert_illegal(log, exchange(0), "not_in_ruleset")
    assert_illegal(log, exchange(1), "not_in_ruleset")  # not on lead either


# --- deal_over and match_over -------------------------------------------------------------


def test_deal_over_after_a_tute() -> None:
    log = with_events(kings_log(), [tute(0, "kings")])
    out = run(log)
    assert out["status"] == "complete"
    assert out["match"]["over"] is False
    # whatever comes next is refused as deal_over, before any other check
    assert_illegal(log, play(0, "1E"), "deal_over")
    assert_illegal(log, play(1, "2E"), "deal_over")
    assert_illegal(log, play(1, "12O"), "deal_over")
    assert_illegal(log, sing(0, "O"), "deal_over")
    assert_illegal(log, tute(0, "kings"), "deal_over")
    assert_illegal(log, exchange(1), "deal_over")


def test_deal_over_after_the_last_trick() -> None:
    log = finish(four_by_suits())
    out = run(log)
    deal = out["deals"][0]
    assert deal["finished"] is True
    assert len(deal["tricks"]) == 10
    assert out["match"]["over"] is False
    last_winner = deal["tricks"][-1]["winner"]
    # nobody sings after the last trick
    assert_illegal(log, sing(last_winner, "B"), "deal_over")
    assert_illegal(log, play(last_winner, "1O"), "deal_over")


def five_tute_deals() -> dict[str, Any]:
    """tute-2p, five deals each ended by the mano's tute: seats 0, 1, 0, 1, 0 win, so seat 0
    reaches the default match target (3) at the fifth deal."""
    return log_of("tute-2p", 2, [kings_deal(k % 2) for k in range(5)])


def test_match_decided_by_tutes() -> None:
    out = run(five_tute_deals())
    assert out["status"] == "complete"
    assert [d["outcome"]["winners"] for d in out["deals"]] == [[0], [1], [0], [1], [0]]
    assert out["match"]["over"] is True
    assert out["match"]["winners"] == [0]
    assert out["match"]["losers"] == [1]
    standings = {s["seat"]: s["deals_won"] for s in out["match"]["standings"]}
    assert standings == {0: 3, 1: 2}


def test_match_over_before_deal_over() -> None:
    log = five_tute_deals()
    # an event after the deal that ended the match: both apply, match_over is reported
    assert_illegal(log, play(1, "2E"), "match_over")
    assert_illegal(log, tute(0, "kings"), "match_over")


def test_match_over_for_a_new_deal() -> None:
    log = five_tute_deals()
    extra = kings_deal(1)
    out = run({**log, "deals": [*log["deals"], extra]})
    assert out["status"] == "invalid"
    assert out["illegal"]["code"] == "match_over"
    assert out["illegal"]["deal"] == 5
    assert out["illegal"]["event"] == 0
    assert isinstance(out["illegal"]["message"], str) and out["illegal"]["message"]
    assert out["deals"] == run(log)["deals"]
    empty = {**extra, "events": []}
    out = run({**log, "deals": [*log["deals"], empty]})
    assert out["illegal"]["code"] == "match_over"
    assert out["illegal"]["deal"] == 5
    assert out["illegal"]["event"] is None  # docs/api.md: null when the deal has no events
    assert out["deals"] == run(log)["deals"]  # the refused deal is not in deals


def test_match_over_after_a_renuncio_with_lose_match() -> None:
    # ana leads the 4 de oros; bea holds the 2 de oros but plays the as de copas (asistir).
    hands = [
        ["4O", "1O", "3O", "5O", "6O", "7O", "10O", "11O", "12O", "1E"],
        ["2O", "1C", "2C", "3C", "4C", "5C", "6C", "7C", "10C", "11C"],
        ["12C", "2E", "3E", "4E", "5E", "6E", "7E", "10E", "11E", "12E"],
        ["1B", "2B", "3B", "4B", "5B", "6B", "7B", "10B", "11B", "12B"],
    ]
    deal = {"dealer": 3, "hands": hands, "trump_card": "12B",
            "events": [play(0, "4O"), play(1, "1C")]}  # fmt: skip
    log = log_of("tute-4p", 4, [deal], renuncio_penalty="lose_match")
    assert [v["obligation"] for v in run(log)["deals"][0]["violations"]] == ["asistir"]
    log = finish(log)
    out = run(log)
    assert out["match"]["over"] is True
    assert out["match"]["losers"] == [1, 3]
    nxt = {"hands": copy.deepcopy(hands), "trump_card": "12B", "dealer": 3, "events": []}
    # a following deal is refused, and so is any event in the finished deal
    out2 = run({**log, "deals": [*log["deals"], nxt]})
    assert out2["illegal"]["code"] == "match_over"
    assert out2["illegal"]["deal"] == 1
    assert out2["illegal"]["event"] is None
    assert_illegal(log, play(0, "1O"), "match_over")


# --- an unfinished deal before the last ----------------------------------------------------


def test_unfinished_deal_before_the_last_is_a_log_error() -> None:
    first = deal2(H0, H1, "4B", dealer=1)
    first["events"] = TRICK0
    second = kings_deal(1)
    with pytest.raises(LogError) as info:
        arbiter.replay(log_of("tute-2p", 2, [first, second]))
    assert info.value.pointer == "/deals/0"
    with pytest.raises(LogError):
        arbiter.validate(log_of("tute-2p", 2, [first, second]), play(1, "2E"))


def test_unfinished_middle_deal_is_a_log_error() -> None:
    middle = deal2(H0, H1, "4B")
    middle["events"] = []
    with pytest.raises(LogError) as info:
        arbiter.replay(log_of("tute-2p", 2, [kings_deal(0), middle, kings_deal(0)]))
    assert info.value.pointer == "/deals/1"


def test_unfinished_last_deal_is_in_progress() -> None:
    last = deal2(H0, H1, "4B", dealer=1)  # ana is mano again
    last["events"] = TRICK0
    out = run(log_of("tute-2p", 2, [kings_deal(0), last]))
    assert out["status"] == "in_progress"
    assert out["illegal"] is None
    assert out["next"]["seat"] == 0


# --- differential check: the reference judge of §8 and the precedence of docs/api.md -------------


def _candidate_moves(rng: Any, deal: reference.Deal) -> list[dict[str, Any]]:
    moves: list[dict[str, Any]] = []
    for seat in range(deal.n):
        held = sorted(reference.codes(deal.hands[seat]))
        for card in rng.sample(PACK40, 2) + rng.sample(held, min(2, len(held))):
            moves.append(play(seat, card))
        moves += [sing(seat, s) for s in SUITS]
        moves += [tute(seat, "kings"), tute(seat, "horses"), exchange(seat)]
    return moves


@pytest.mark.parametrize(
    ("ruleset", "players", "options"),
    [
        ("tute-2p", 2, {}),
        ("tute-2p", 2, {"tute_requires_trick_won": True, "exchange_requires_trick_won": True}),
        ("tute-2p", 2, {"cantes_per_trick": 2}),
        ("tute-3p", 3, {}),
        ("tute-4p", 4, {"tute_requires_trick_won": True}),
        ("tute-cabron", 3, {}),
        ("tute-gana-pierde", 4, {}),
    ],
)
def test_random_positions_against_a_reference_judge(
    ruleset: str, players: int, options: dict[str, Any]
) -> None:
    rng = random.Random(f"illegal-{ruleset}-{sorted(options.items())}")
    seen: set[str | None] = set()
    for _ in range(14):
        log = random_log(
            ruleset, rng, players=players, options=options or None, declare_rate=0.6,
            renuncio_rate=0.1, finish_last=False, stop_after=rng.randrange(0, 45),
        )  # fmt: skip
        deal = reference.played(log)
        for move in _candidate_moves(rng, deal):
            expected = deal.illegal(*reference.event_of(move))
            body = arbiter.validate(log, move).to_dict()
            assert body["code"] == expected, (move, body["message"])
            assert (body["verdict"] == "illegal") == (expected is not None)
            seen.add(expected)
    assert len(seen) >= 4


# --- the order of the checks: exported by the engine, quoted by docs/api.md, followed ------------

API_MD = Path(__file__).resolve().parent.parent / "docs" / "api.md"


def documented_order() -> dict[str, list[str]]:
    """The check order of docs/api.md's sentence "When several apply, the first in this order
    is reported: <codes of every type>; then for a `play`: <codes>; for a `sing`: ..."."""
    text = " ".join(API_MD.read_text(encoding="utf-8").split())
    start = text.index("When several apply, the first in this order is reported:")
    sentence = text[start : text.index(". ", start)]
    every_type, per_type = sentence.split("; then ", 1)
    first = re.findall(r"`(\w+)`", every_type)
    parts = re.findall(r"for an? `(\w+)`: (.*?)(?=; for an? `|$)", per_type)
    return {kind: [*first, *re.findall(r"`(\w+)`", codes)] for kind, codes in parts}


def test_check_order_is_the_one_docs_api_md_states() -> None:
    order = documented_order()
    assert list(order) == list(EVENT_TYPES)
    assert order == {kind: [c.value for c in codes] for kind, codes in CHECK_ORDER.items()}
    text = " ".join(API_MD.read_text(encoding="utf-8").split())
    listed = text[text.index("**Illegal codes**:") : text.index("When several apply")]
    assert set(re.findall(r"`(\w+)`", listed)) == {c.value for c in IllegalCode}
    assert {c for codes in CHECK_ORDER.values() for c in codes} == set(IllegalCode)


# A position per event type in which the move is legal; each code then has a change of the
# position that makes it apply (however unreachable two of them together may be in play: a
# trick is won by whoever leads after it, so no_stock never meets no_trick_won in a game).
BASE_EVENTS: dict[str, tuple[dict[str, Any], Move]] = {
    "play": (base2(), Move.play(0, parse_card("1E"))),
    "sing": (base2(TRICK0), Move.sing(0, parse_suit("O"))),
    "tute": (kings_log(tute_requires_trick_won=True), Move.tute(0, TuteOf.KINGS)),
    "exchange": (seven_log(TRICK0, exchange_requires_trick_won=True), Move.exchange(0)),
}
BASE_EVENTS["tute"][0]["deals"][0]["events"] = list(TRICK0)
Change = Callable[[Position, Move], None]


def _drop(card: int) -> Change:
    def change(position: Position, move: Move) -> None:
        position.deal.hands[move.seat] &= ~(1 << card)

    return change


def _without(**feature: Any) -> Change:
    def change(position: Position, move: Move) -> None:
        position.deal.ruleset = dataclasses.replace(position.deal.ruleset, **feature)

    return change


def _set(name: str, value: Callable[[Position, Move], Any]) -> Change:
    def change(position: Position, move: Move) -> None:
        setattr(position.deal, name, value(position, move))

    return change


def _other_seat(position: Position, move: Move) -> int:
    return (move.seat + 1) % position.deal.players


def _match_over(position: Position, move: Move) -> None:
    position.standing.over = True


def changes(kind: str, move: Move) -> dict[IllegalCode, Change]:
    """For each code of ``kind``, the change of the position that makes it apply to ``move``."""
    over: dict[IllegalCode, Change] = {
        IllegalCode.MATCH_OVER: _match_over,
        IllegalCode.DEAL_OVER: _set("over", lambda p, m: True),
    }
    if kind == "play":
        return {**over, IllegalCode.OUT_OF_TURN: _set("turn", _other_seat),
                IllegalCode.CARD_NOT_IN_HAND: _drop(move.card)}  # fmt: skip
    common = {
        **over,
        IllegalCode.NOT_ON_LEAD: _set("turn", _other_seat),
        IllegalCode.NO_TRICK_WON: _set("last_winner", _other_seat),
    }
    if kind == "sing":
        return {
            **common,
            IllegalCode.NOT_IN_RULESET: _without(cantes=CanteStyle.IN_TRICK),
            IllegalCode.CANTE_ALREADY_DECLARED: _set(
                "cantes_this_lead", lambda p, m: p.deal.options.cantes_per_trick
            ),
            IllegalCode.SUIT_ALREADY_SUNG: _set("sung", lambda p, m: p.deal.sung | 1 << m.suit),
            IllegalCode.PAIR_NOT_HELD: _drop(make_card(HORSE, move.suit)),
        }
    if kind == "tute":
        return {**common, IllegalCode.NOT_IN_RULESET: _without(tute=False),
                IllegalCode.TUTE_NOT_HELD: _drop(make_card(KING, 3))}  # fmt: skip
    return {
        **common,
        IllegalCode.NOT_IN_RULESET: _without(exchange=False),
        IllegalCode.NO_STOCK: _set("stock_pos", lambda p, m: len(p.deal.stock)),
        IllegalCode.SEVEN_NOT_HELD: _drop(make_card(SEVEN, parse_suit("B"))),  # trump bastos
    }


def judged(kind: str, *codes: IllegalCode) -> set[IllegalCode | None]:
    """What the engine reports for the base move of ``kind`` once ``codes`` apply: its check,
    its judgement and applying it (which then changes nothing)."""
    log, move = BASE_EVENTS[kind]
    position = engine_replay(log).position()
    make = changes(kind, move)
    for code in codes:
        make[code](position, move)
    before = position.deal.to_fields(history=True)
    answers = {position.check(move), position.judge(move).code, position.apply(move)}
    assert position.deal.to_fields(history=True) == before or answers == {None}
    return answers


@pytest.mark.parametrize("kind", list(CHECK_ORDER))
def test_each_code_applies_where_its_change_is_made(kind: str) -> None:
    assert judged(kind) == {None}, "the base move is legal"
    assert set(changes(kind, BASE_EVENTS[kind][1])) == set(CHECK_ORDER[kind])
    for code in CHECK_ORDER[kind]:
        assert judged(kind, code) == {code}


PAIRS = [
    (kind, first, later)
    for kind, order in CHECK_ORDER.items()
    for i, first in enumerate(order)
    for later in order[i + 1 :]
]


@pytest.mark.parametrize(("kind", "first", "later"), PAIRS,
                         ids=[f"{k}-{a.value}-{b.value}" for k, a, b in PAIRS])  # fmt: skip
def test_where_two_codes_apply_the_first_in_check_order_is_reported(
    kind: str, first: IllegalCode, later: IllegalCode
) -> None:
    assert judged(kind, later, first) == {first}
    assert judged(kind, first, later) == {first}


@pytest.mark.parametrize("kind", list(CHECK_ORDER))
def test_where_every_code_applies_match_over_is_reported(kind: str) -> None:
    assert judged(kind, *reversed(CHECK_ORDER[kind])) == {IllegalCode.MATCH_OVER}
