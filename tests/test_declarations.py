"""docs/rules.md §4: declared cantes, tute, the exchange of the seven of trumps, calls in the trick.

Every position is built by hand: the helpers below lay out explicit hands (and, for tute-2p, the
stock) holding every card of the ruleset's pack exactly once, and the expected values are
derived from docs/rules.md, not from the engine.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.hand_built import (
    RANKS,
    SUITS,
    TIE,
    deal_2p,
    exchange,
    fill,
    hands_2p,
    illegal_code,
    log_of,
    moves,
    play,
    rank,
    run,
    sing,
    suit,
    tute,
)

# --- tute-3p positions ----------------------------------------------------------------------

# Dealer 2 (seat 0 is mano), the dealer's card 4E makes espadas trump. Seat 0 holds the
# copas, espadas and bastos pairs; seat 1 cannot beat 1O or 3O; seat 1 beats 4C with 1C.
P3_FIXED = {
    0: ["1O", "3O", "4C", "12C", "11C", "12E", "11E", "12B", "11B"],
    1: ["4O", "6O", "12O", "1C"],
    2: ["5O", "7O", "5C", "4E"],
}
TRICK0 = [play(0, "1O"), play(1, "4O"), play(2, "5O")]  # seat 0 wins
TRICK1_WON_BY_0 = [play(0, "3O"), play(1, "6O"), play(2, "7O")]
TRICK1_WON_BY_1 = [play(0, "4C"), play(1, "1C"), play(2, "5C")]


def p3_log(events: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    hands, _ = fill(3, 12, P3_FIXED, removed=2)
    deal = {"dealer": 2, "hands": hands, "trump_card": "4E", "events": events}
    return log_of("tute-3p", 3, [deal], **options)


def test_p3_position_is_as_designed() -> None:
    hands, _ = fill(3, 12, P3_FIXED, removed=2)
    # no one but seat 0 holds a king+horse pair; only seat 1 and 2 hold the other oros
    for seat in (1, 2):
        for s in SUITS:
            assert not {f"12{s}", f"11{s}"} <= set(hands[seat])
    out = run(p3_log([*TRICK0, *TRICK1_WON_BY_0]))
    deal = out["deals"][0]
    assert deal["violations"] == []
    assert [t["winner"] for t in deal["tricks"]] == [0, 0]
    assert deal["trump"] == "E"
    out = run(p3_log([*TRICK0, *TRICK1_WON_BY_1]))
    assert [t["winner"] for t in out["deals"][0]["tricks"]] == [0, 1]
    assert out["deals"][0]["violations"] == []


# --- declared cantes ------------------------------------------------------------------------


def test_cante_in_a_plain_suit_scores_20() -> None:
    out = run(p3_log([*TRICK0, sing(0, "C")]))
    deal = out["deals"][0]
    assert out["status"] == "in_progress"
    assert deal["cantes"] == [{"seat": 0, "suit": "C", "points": 20, "trick": 0}]
    assert [s["cantes"] for s in deal["scores"]] == [20, 0, 0]
    # trick 0 held 1O (11) and two blanks
    assert [s["total"] for s in deal["scores"]] == [31, 0, 0]


def test_cante_in_trumps_scores_40() -> None:
    out = run(p3_log([*TRICK0, sing(0, "E")]))
    deal = out["deals"][0]
    assert deal["cantes"] == [{"seat": 0, "suit": "E", "points": 40, "trick": 0}]
    assert deal["scores"][0]["cantes"] == 40


def test_cante_cards_stay_in_the_hand() -> None:
    out = run(p3_log([*TRICK0, sing(0, "C")]))
    assert out["next"]["seat"] == 0
    plays = {m["card"] for m in moves(out) if m["type"] == "play"}
    assert {"12C", "11C"} <= plays
    out = run(p3_log([*TRICK0, sing(0, "C"), play(0, "12C")]))
    assert out["status"] == "in_progress"
    assert out["deals"][0]["tricks"][-1]["plays"] == [{"seat": 0, "card": "12C"}]


def test_no_cante_before_winning_a_trick() -> None:
    # seat 0 is about to lead the first trick and holds the pair, but has won nothing
    assert illegal_code(p3_log([sing(0, "C")])) == ("no_trick_won", 0)


def test_only_the_winner_of_the_trick_just_completed_sings() -> None:
    assert illegal_code(p3_log([*TRICK0, sing(1, "C")])) == ("not_on_lead", 3)
    assert illegal_code(p3_log([*TRICK0, sing(2, "O")])) == ("not_on_lead", 3)


def test_cante_after_leading_is_too_late() -> None:
    assert illegal_code(p3_log([*TRICK0, play(0, "3O"), sing(0, "C")])) == ("not_on_lead", 4)


def test_cante_for_an_earlier_trick_is_too_late() -> None:
    # seat 0 won trick 0 without singing; seat 1 won trick 1 and is on lead
    log = p3_log([*TRICK0, *TRICK1_WON_BY_1, sing(0, "C")])
    assert illegal_code(log) == ("not_on_lead", 6)
    # seat 1, on lead after winning, holds no pair
    log = p3_log([*TRICK0, *TRICK1_WON_BY_1, sing(1, "C")])
    assert illegal_code(log) == ("pair_not_held", 6)


def test_cante_without_the_pair() -> None:
    assert illegal_code(p3_log([*TRICK0, sing(0, "O")])) == ("pair_not_held", 3)


def test_one_cante_per_trick_by_default() -> None:
    log = p3_log([*TRICK0, sing(0, "C"), sing(0, "E")])
    assert illegal_code(log) == ("cante_already_declared", 4)


def test_two_cantes_per_trick_with_the_option() -> None:
    out = run(p3_log([*TRICK0, sing(0, "C"), sing(0, "E")], cantes_per_trick=2))
    deal = out["deals"][0]
    assert out["status"] == "in_progress"
    assert deal["cantes"] == [
        {"seat": 0, "suit": "C", "points": 20, "trick": 0},
        {"seat": 0, "suit": "E", "points": 40, "trick": 0},
    ]
    assert deal["scores"][0]["cantes"] == 60
    log = p3_log([*TRICK0, sing(0, "C"), sing(0, "E"), sing(0, "B")], cantes_per_trick=2)
    assert illegal_code(log) == ("cante_already_declared", 5)


def test_the_count_of_cantes_starts_again_after_each_trick() -> None:
    out = run(p3_log([*TRICK0, sing(0, "C"), *TRICK1_WON_BY_0, sing(0, "B")]))
    deal = out["deals"][0]
    assert out["status"] == "in_progress"
    assert deal["cantes"] == [
        {"seat": 0, "suit": "C", "points": 20, "trick": 0},
        {"seat": 0, "suit": "B", "points": 20, "trick": 1},
    ]


def test_each_suit_is_sung_once_per_deal() -> None:
    log = p3_log([*TRICK0, sing(0, "C"), *TRICK1_WON_BY_0, sing(0, "C")])
    assert illegal_code(log) == ("suit_already_sung", 7)
    log = p3_log([*TRICK0, sing(0, "C"), sing(0, "C")], cantes_per_trick=2)
    assert illegal_code(log) == ("suit_already_sung", 4)


def test_cante_already_declared_is_reported_before_suit_already_sung() -> None:
    log = p3_log([*TRICK0, sing(0, "C"), sing(0, "C")])
    assert illegal_code(log) == ("cante_already_declared", 4)


def test_sing_is_listed_among_the_legal_moves_only_when_open() -> None:
    out = run(p3_log(TRICK0))
    sings = sorted(m["suit"] for m in moves(out) if m["type"] == "sing")
    assert sings == ["B", "C", "E"]
    out = run(p3_log([*TRICK0, sing(0, "C")]))
    assert [m for m in moves(out) if m["type"] != "play"] == []
    out = run(p3_log([*TRICK0, sing(0, "C")], cantes_per_trick=2))
    assert sorted(m["suit"] for m in moves(out) if m["type"] == "sing") == ["B", "E"]
    out = run(p3_log([]))
    assert [m for m in moves(out) if m["type"] != "play"] == []


# --- tute-4p: only the trick winner sings ------------------------------------------------

# Each seat holds one whole suit; the dealer (seat 3) holds the bastos and shows 4B: trump.
P4_HANDS = [[f"{r}{s}" for r in RANKS] for s in SUITS]
P4_TRICK0 = [play(0, "1O"), play(1, "1C"), play(2, "1E"), play(3, "2B")]  # seat 3 trumps
P4_LEADS = ["4B", "5B", "6B", "7B", "10B", "3B", "1B", "11B", "12B"]


def p4_log(events: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    deal = {"dealer": 3, "hands": P4_HANDS, "trump_card": "4B", "events": events}
    return log_of("tute-4p", 4, [deal], **options)


def p4_rest() -> list[dict[str, Any]]:
    """Tricks 1..9: seat 3 leads its bastos, the others throw their suits."""
    others = [[f"{r}{s}" for r in RANKS if r != 1] for s in "OCE"]
    events = []
    for k, lead in enumerate(P4_LEADS):
        events += [play(3, lead), play(0, others[0][k]), play(1, others[1][k])]
        events.append(play(2, others[2][k]))
    return events


def test_in_pairs_the_partner_of_the_winner_cannot_sing() -> None:
    assert illegal_code(p4_log([*P4_TRICK0, sing(1, "C")])) == ("not_on_lead", 4)
    out = run(p4_log([*P4_TRICK0, sing(3, "B")]))
    assert out["deals"][0]["cantes"] == [{"seat": 3, "suit": "B", "points": 40, "trick": 0}]
    assert out["deals"][0]["sides"] == [
        {"seats": [0, 2], "total": 0},
        {"seats": [1, 3], "total": 33 + 40},
    ]


def test_cante_late_in_a_deal_and_none_after_the_last_trick() -> None:
    rest = p4_rest()
    # after trick 6 (events 4 + 6*4 = 28) seat 3 still holds 11B and 12B
    out = run(p4_log([*P4_TRICK0, *rest[:24], sing(3, "B"), *rest[24:]]))
    deal = out["deals"][0]
    assert out["status"] == "complete"
    assert deal["violations"] == []
    assert deal["cantes"] == [{"seat": 3, "suit": "B", "points": 40, "trick": 6}]
    assert deal["scores"][3] == {
        "seat": 3, "tricks": 10, "card_points": 120, "cantes": 40, "last_trick": 10,
        "total": 170,
    }  # fmt: skip
    # seat 3 played 11B and 12B in the last two tricks: no cante after the last trick
    assert illegal_code(p4_log([*P4_TRICK0, *rest, sing(3, "B")])) == ("deal_over", 40)


# --- tute-2p: cantes after the draws, and after the stock ---------------------------------


def test_cante_in_tute_2p_comes_after_both_draws() -> None:
    # seat 0 leads 1O and wins; it draws 11C first (completing copas), then seat 1 draws 5E
    deal = hands_2p({0: ["1O", "12C"], 1: ["4O"]}, ["11C", "5E"], "2B", avoid={0: "C"})
    deal["events"] = [play(0, "1O"), play(1, "4O"), sing(0, "C")]
    out = run(log_of("tute-2p", 2, [deal]))
    d = out["deals"][0]
    assert out["status"] == "in_progress"
    assert d["tricks"][0]["winner"] == 0
    assert d["tricks"][0]["draws"] == [{"seat": 0, "card": "11C"}, {"seat": 1, "card": "5E"}]
    assert d["cantes"] == [{"seat": 0, "suit": "C", "points": 20, "trick": 0}]
    assert d["stock_left"] == 22


def test_tute_2p_winner_draws_first_when_the_follower_wins() -> None:
    # seat 1 takes 4O with 1O: seat 1 draws 11B (its pair in trumps), then seat 0
    deal = hands_2p({0: ["4O"], 1: ["1O", "12B"]}, ["11B", "5E"], "2B", avoid={1: "B"})
    deal["events"] = [play(0, "4O"), play(1, "1O"), sing(1, "B")]
    out = run(log_of("tute-2p", 2, [deal]))
    d = out["deals"][0]
    assert d["tricks"][0]["winner"] == 1
    assert d["tricks"][0]["draws"] == [{"seat": 1, "card": "11B"}, {"seat": 0, "card": "5E"}]
    assert d["cantes"] == [{"seat": 1, "suit": "B", "points": 40, "trick": 0}]


def test_tute_2p_cante_not_by_the_loser() -> None:
    deal = hands_2p({0: ["1O", "12C", "11C"], 1: ["4O"]}, [], "2B")
    deal["events"] = [play(0, "1O"), play(1, "4O"), sing(1, "C")]
    assert illegal_code(log_of("tute-2p", 2, [deal])) == ("not_on_lead", 2)


# TIE (tests/hand_built.py): a tute-2p deal tied 65 to 65, seat 0 taking the last trick.


def tie_log(before: dict[int, list[dict[str, Any]]] | None = None, **kw: Any) -> dict[str, Any]:
    return log_of("tute-2p", 2, [deal_2p(TIE, "2O", dealer=0, before=before, **kw)])


def test_tie_deal_is_as_designed() -> None:
    out = run(tie_log())
    deal = out["deals"][0]
    assert deal["violations"] == []
    assert [t["winner"] for t in deal["tricks"]] == [1] * 11 + [0] * 9
    assert deal["tricks"][11]["draws"] == [{"seat": 0, "card": "12B"}, {"seat": 1, "card": "2O"}]
    assert [t["draws"] for t in deal["tricks"][12:]] == [[]] * 8
    assert [s["total"] for s in deal["scores"]] == [65, 65]


def test_cante_after_the_stock_is_exhausted() -> None:
    # seat 0 wins trick 12 (1O over 7O) with 12O and 11O still in hand: las cuarenta
    out = run(tie_log({13: [sing(0, "O")]}))
    deal = out["deals"][0]
    assert out["status"] == "complete"
    assert deal["cantes"] == [{"seat": 0, "suit": "O", "points": 40, "trick": 12}]
    assert [s["total"] for s in deal["scores"]] == [105, 65]
    assert deal["outcome"]["winners"] == [0]
    assert deal["outcome"]["reason"] == "points"


def test_no_cante_after_the_last_trick_of_tute_2p() -> None:
    log = tie_log({20: [sing(0, "B")]})
    assert illegal_code(log) == ("deal_over", 40)


# --- tute -----------------------------------------------------------------------------------


def test_tute_of_kings_on_the_first_lead_ends_the_deal() -> None:
    deal = hands_2p({0: ["12O", "12C", "12E", "12B"]}, [], "2O")
    deal["events"] = [tute(0, "kings")]
    out = run(log_of("tute-2p", 2, [deal]))
    d = out["deals"][0]
    assert out["status"] == "complete"
    assert d["finished"] is True
    assert d["tricks"] == []
    assert d["outcome"]["winners"] == [0]
    assert d["outcome"]["losers"] == [1]
    assert d["outcome"]["reason"] == "tute"
    assert out["match"]["standings"][0]["deals_won"] == 1


def test_tute_is_a_legal_move_on_lead() -> None:
    deal = hands_2p({0: ["12O", "12C", "12E", "12B"]}, [], "2O")
    out = run(log_of("tute-2p", 2, [deal]))
    assert {"type": "tute", "seat": 0, "of": "kings"} in moves(out)
    assert {"type": "tute", "seat": 0, "of": "horses"} not in moves(out)


def test_tute_of_horses_in_tute_3p() -> None:
    hands, _ = fill(3, 12, {0: ["11O", "11C", "11E", "11B"], 2: ["4E"]}, removed=2)
    deal = {"dealer": 2, "hands": hands, "trump_card": "4E", "events": [tute(0, "horses")]}
    out = run(log_of("tute-3p", 3, [deal]))
    outcome = out["deals"][0]["outcome"]
    assert (outcome["winners"], outcome["losers"], outcome["reason"]) == ([0], [1, 2], "tute")


def test_tute_4p_wins_the_deal_for_the_side() -> None:
    hands, _ = fill(4, 10, {0: ["12O", "12C", "12E", "12B"], 3: ["6O"]})
    deal = {"dealer": 3, "hands": hands, "trump_card": "6O", "events": [tute(0, "kings")]}
    outcome = run(log_of("tute-4p", 4, [deal]))["deals"][0]["outcome"]
    assert (outcome["winners"], outcome["losers"], outcome["reason"]) == ([0, 2], [1, 3], "tute")


T4_FIXED = {
    0: ["4O", "12O", "12C", "12E", "12B"],
    1: ["1O", "11O", "11C", "11E", "11B"],
    2: ["5O"],
    3: ["6O"],
}
T4_TRICK0 = [play(0, "4O"), play(1, "1O"), play(2, "5O"), play(3, "6O")]  # seat 1 wins


def t4_log(events: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    hands, _ = fill(4, 10, T4_FIXED)
    deal = {"dealer": 3, "hands": hands, "trump_card": "6O", "events": events}
    return log_of("tute-4p", 4, [deal], **options)


def test_tute_after_winning_a_trick_in_pairs() -> None:
    out = run(t4_log([*T4_TRICK0, tute(1, "horses")]))
    d = out["deals"][0]
    assert d["violations"] == []
    assert d["tricks"][0]["winner"] == 1
    outcome = d["outcome"]
    assert (outcome["winners"], outcome["losers"], outcome["reason"]) == ([1, 3], [0, 2], "tute")


def test_tute_not_on_lead() -> None:
    # seat 0 holds the four kings but seat 1 won trick 0 and is on lead
    assert illegal_code(t4_log([*T4_TRICK0, tute(0, "kings")])) == ("not_on_lead", 4)
    assert illegal_code(t4_log([play(0, "4O"), tute(1, "horses")])) == ("not_on_lead", 1)


def test_tute_not_held() -> None:
    assert illegal_code(t4_log([tute(0, "horses")])) == ("tute_not_held", 0)
    # three kings are not a tute
    assert illegal_code(p3_log([tute(0, "kings")])) == ("tute_not_held", 0)


def test_tute_ends_the_deal_at_once() -> None:
    log = t4_log([*T4_TRICK0, tute(1, "horses"), play(1, "11O")])
    assert illegal_code(log) == ("deal_over", 5)


def tute_2p_after_a_lost_trick(
    events: list[dict[str, Any]] | None = None, **options: Any
) -> dict[str, Any]:
    # Trick 0: seat 0 leads 1C, seat 1 trumps with 4O (11 points to seat 1); seat 0 draws 12B
    # second and so holds the four kings. Trick 1: seat 1 leads 4C, seat 0 takes it with 5C.
    deal = hands_2p({0: ["12O", "12C", "12E", "1C", "5C"], 1: ["4O", "4C"]}, ["6E", "12B"], "2O")
    deal["events"] = events if events is not None else [
        play(0, "1C"), play(1, "4O"), play(1, "4C"), play(0, "5C"), tute(0, "kings")
    ]  # fmt: skip
    return log_of("tute-2p", 2, [deal], **options)


@pytest.mark.parametrize("requires", [False, True])
def test_tute_wins_whatever_the_score(requires: bool) -> None:
    out = run(tute_2p_after_a_lost_trick(tute_requires_trick_won=requires))
    d = out["deals"][0]
    assert out["status"] == "complete"
    assert [t["winner"] for t in d["tricks"]] == [1, 0]
    assert d["tricks"][0]["draws"] == [{"seat": 1, "card": "6E"}, {"seat": 0, "card": "12B"}]
    assert [s["card_points"] for s in d["scores"]] == [0, 11]
    assert d["outcome"]["winners"] == [0]
    assert d["outcome"]["losers"] == [1]
    assert d["outcome"]["reason"] == "tute"


def test_tute_requires_trick_won_option() -> None:
    hands4 = {0: ["12O", "12C", "12E", "12B"]}
    for requires, expected in ((False, "complete"), (True, "invalid")):
        deal = hands_2p(hands4, [], "2O")
        deal["events"] = [tute(0, "kings")]
        out = run(log_of("tute-2p", 2, [deal], tute_requires_trick_won=requires))
        assert out["status"] == expected
        if requires:
            assert (out["illegal"]["code"], out["illegal"]["event"]) == ("no_trick_won", 0)
    # with the option, the tute is not among the legal moves of the first lead
    deal = hands_2p(hands4, [], "2O")
    out = run(log_of("tute-2p", 2, [deal], tute_requires_trick_won=True))
    assert [m for m in moves(out) if m["type"] == "tute"] == []
    # the one who lost the trick just completed is not on lead: not_on_lead comes first
    log = tute_2p_after_a_lost_trick(
        [play(0, "1C"), play(1, "4O"), tute(0, "kings")], tute_requires_trick_won=True
    )
    assert illegal_code(log) == ("not_on_lead", 2)


# --- exchange of the seven of trumps (tute-2p) ---------------------------------------------


def ex_log(events: list[dict[str, Any]], fixed: dict[int, list[str]] | None = None,
           turned: str = "1O", **options: Any) -> dict[str, Any]:  # fmt: skip
    # seat 0 (mano) holds 7O and 1C; seat 1 holds 4C; the turned card 1O makes oros trump
    deal = hands_2p(fixed or {0: ["7O", "1C"], 1: ["4C"]}, [], turned)
    deal["events"] = events
    return log_of("tute-2p", 2, [deal], **options)


def test_exchange_on_the_first_lead() -> None:
    out = run(ex_log([exchange(0)]))
    d = out["deals"][0]
    assert out["status"] == "in_progress"
    # made before any trick: after trick -1, as the position tells an adapter
    assert d["exchanges"] == [{"seat": 0, "gave": "7O", "took": "1O", "trick": -1}]
    assert d["trump"] == "O"
    assert d["stock_left"] == 24
    plays = {m["card"] for m in moves(out) if m["type"] == "play"}
    assert "1O" in plays
    assert "7O" not in plays
    assert illegal_code(ex_log([exchange(0), play(0, "7O")])) == ("card_not_in_hand", 1)
    out = run(ex_log([exchange(0), play(0, "1O")]))
    assert out["deals"][0]["tricks"][0]["plays"] == [{"seat": 0, "card": "1O"}]


def test_exchange_is_a_legal_move_only_with_the_seven() -> None:
    out = run(ex_log([]))
    assert {"type": "exchange", "seat": 0} in moves(out)
    out = run(ex_log([exchange(0)]))
    assert [m for m in moves(out) if m["type"] == "exchange"] == []


@pytest.mark.parametrize("requires", [False, True])
def test_exchange_requires_trick_won_option(requires: bool) -> None:
    out = run(ex_log([exchange(0)], exchange_requires_trick_won=requires))
    if requires:
        assert (out["illegal"]["code"], out["illegal"]["event"]) == ("no_trick_won", 0)
    else:
        assert out["status"] == "in_progress"
    # after winning trick 0 (1C over 4C) the exchange is allowed either way
    out = run(ex_log([play(0, "1C"), play(1, "4C"), exchange(0)],
                     exchange_requires_trick_won=requires))  # fmt: skip
    assert out["status"] == "in_progress"
    assert out["deals"][0]["exchanges"] == [{"seat": 0, "gave": "7O", "took": "1O", "trick": 0}]


def test_exchange_not_on_lead() -> None:
    assert illegal_code(ex_log([exchange(1)])) == ("not_on_lead", 0)
    assert illegal_code(ex_log([play(0, "1C"), exchange(0)])) == ("not_on_lead", 1)
    assert illegal_code(ex_log([play(0, "1C"), exchange(1)])) == ("not_on_lead", 1)


def test_exchange_without_the_seven() -> None:
    log = ex_log([exchange(0)], fixed={0: ["1C"], 1: ["7O", "4C"]})
    assert illegal_code(log) == ("seven_not_held", 0)


def test_no_exchange_when_the_turned_card_is_the_seven() -> None:
    log = ex_log([exchange(0)], fixed={0: ["1C"], 1: ["4C"]}, turned="7O")
    assert illegal_code(log) == ("seven_not_held", 0)


def test_no_exchange_once_the_stock_is_exhausted() -> None:
    # seat 0 leads trick 12 after the last draw; it holds no seven, but no_stock comes first
    assert illegal_code(tie_log({12: [exchange(0)]})) == ("no_stock", 24)


# Seat 0 (mano) wins every trick. It was dealt 7O and gives it at once for the turned 2O, which
# it leads. The seven, now last in the stock, goes to seat 1, loser of trick 11, which must
# follow with it when seat 0 leads 1O in trick 12.
G0X = [
    ("2O", "1C"),
    *zip(["1E", "3E", "12E", "11E", "10E", "7E", "6E", "5E", "4E", "2E"],
         ["3C", "12C", "11C", "10C", "7C", "6C", "5C", "4C", "2C", "4B"], strict=True),
    ("1B", "5B"),
    ("1O", "7O"),
    *zip(["3O", "12O", "11O", "10O", "6O", "5O", "4O"],
         ["2B", "3B", "6B", "7B", "10B", "11B", "12B"], strict=True),
]  # fmt: skip


def test_the_exchanged_seven_is_the_last_card_drawn() -> None:
    deal = deal_2p(G0X, "7O", before={0: [exchange(0)]}, exchanged=(0, "2O"))
    assert "7O" in deal["hands"][0]
    assert deal["stock"][-1] == "2O"
    out = run(log_of("tute-2p", 2, [deal]))
    d = out["deals"][0]
    assert out["status"] == "complete"
    assert d["violations"] == []
    assert d["exchanges"] == [{"seat": 0, "gave": "7O", "took": "2O", "trick": -1}]
    assert d["tricks"][11]["draws"] == [{"seat": 0, "card": "4O"}, {"seat": 1, "card": "7O"}]
    assert d["tricks"][12]["plays"] == [{"seat": 0, "card": "1O"}, {"seat": 1, "card": "7O"}]
    assert [t["winner"] for t in d["tricks"]] == [0] * 20
    assert [s["total"] for s in d["scores"]] == [130, 0]


def test_exchange_later_in_the_deal_by_the_trick_winner() -> None:
    # In the tie deal seat 1 wins tricks 0..10. Deal it the seven where it would draw 2O (after
    # trick 7) and make 2O the turned card: seat 1 exchanges before leading trick 9, and as the
    # loser of trick 11 it draws the seven back, then follows with it in trick 12.
    deal = deal_2p(TIE, "7O", dealer=0, before={9: [exchange(1)]}, exchanged=(1, "2O"))
    assert deal["stock"][14] == "7O"
    assert deal["stock"][-1] == "2O"
    out = run(log_of("tute-2p", 2, [deal], exchange_requires_trick_won=True))
    d = out["deals"][0]
    assert out["status"] == "complete"
    assert d["violations"] == []
    assert d["tricks"][7]["draws"] == [{"seat": 1, "card": "7O"}, {"seat": 0, "card": "12O"}]
    assert d["exchanges"] == [{"seat": 1, "gave": "7O", "took": "2O", "trick": 8}]
    assert d["tricks"][11]["draws"] == [{"seat": 0, "card": "12B"}, {"seat": 1, "card": "7O"}]
    assert d["tricks"][12]["plays"] == [{"seat": 0, "card": "1O"}, {"seat": 1, "card": "7O"}]
    assert d["outcome"]["reason"] == "last_trick"


@pytest.mark.parametrize("ruleset", ["tute-3p", "tute-cabron"])
def test_declarations_not_in_the_ruleset(ruleset: str) -> None:
    hands, _ = fill(3, 12, {0: ["7E", "12C", "11C"], 2: ["4E"]}, removed=2)
    deal: dict[str, Any] = {"dealer": 2, "hands": hands}
    if ruleset == "tute-3p":
        deal["trump_card"] = "4E"
    for event in (exchange(0), *([sing(0, "C")] if ruleset == "tute-cabron" else [])):
        deal["events"] = [event]
        assert illegal_code(log_of(ruleset, 3, [deal])) == ("not_in_ruleset", 0)
    if ruleset == "tute-cabron":
        deal["events"] = [tute(0, "kings")]
        assert illegal_code(log_of(ruleset, 3, [deal])) == ("not_in_ruleset", 0)


# --- calls in the trick (cabrón, gana-pierde) ------------------------------------------------


def cb_log(
    s1: str = "12O", s2: str = "11O", events: list[dict[str, Any]] | None = None, **options: Any
) -> dict[str, Any]:
    """Cabrón, dealer 2. Seat 0 leads 1C; seats 1 and 2, void in copas, throw ``s1``, ``s2``.
    Seat 1 is void in espadas too and holds 4O; seat 2 holds 11E; seat 0 leads 12E next."""
    fixed = {0: ["1C", "12E"], 1: [s1, "4O"], 2: [s2, "11E"]}
    hands, _ = fill(3, 12, fixed, removed=2, avoid={1: "CE", 2: "C"})
    trick0 = [play(0, "1C"), play(1, s1), play(2, s2)]
    deal = {"dealer": 2, "hands": hands, "events": trick0 if events is None else events}
    return log_of("tute-cabron", 3, [deal], **options)


def test_trump_is_null_before_the_first_call() -> None:
    out = run(cb_log(events=[]))
    assert out["deals"][0]["trump"] is None
    out = run(cb_log(events=[play(0, "1C"), play(1, "12O")]))
    assert out["deals"][0]["trump"] is None
    assert out["deals"][0]["cantes"] == []


def test_first_call_scores_40_and_fixes_trump_from_the_next_trick() -> None:
    out = run(cb_log())
    d = out["deals"][0]
    # decided without trump: 1C takes the trick though 12O would be a trump afterwards
    assert d["tricks"][0]["winner"] == 0
    assert d["cantes"] == [{"seat": 0, "suit": "O", "points": 40, "trick": 0}]
    assert d["trump"] == "O"
    assert [s["cantes"] for s in d["scores"]] == [40, 0, 0]
    assert d["scores"][0]["card_points"] == 11 + 4 + 3


def test_later_calls_score_20_and_keep_the_trump() -> None:
    # Trick 1: seat 0 leads 12E, seat 1 (void in espadas) must trump and wins with 4O, seat 2
    # follows with 11E: the espadas pair falls in trick 1 and seat 1 calls 20.
    events = [play(0, "1C"), play(1, "12O"), play(2, "11O"),
              play(0, "12E"), play(1, "4O"), play(2, "11E")]  # fmt: skip
    out = run(cb_log(events=events))
    d = out["deals"][0]
    assert d["violations"] == []
    assert [t["winner"] for t in d["tricks"]] == [0, 1]
    assert d["cantes"] == [
        {"seat": 0, "suit": "O", "points": 40, "trick": 0},
        {"seat": 1, "suit": "E", "points": 20, "trick": 1},
    ]
    assert d["trump"] == "O"
    assert [s["cantes"] for s in d["scores"]] == [40, 20, 0]


def test_after_the_call_a_void_player_must_trump() -> None:
    events = [play(0, "1C"), play(1, "12O"), play(2, "11O"),
              play(0, "12E"), play(1, "4B"), play(2, "1E")]  # fmt: skip
    hands, _ = fill(3, 12, {0: ["1C", "12E"], 1: ["12O", "4O"], 2: ["11O", "11E"]},
                    removed=2, avoid={1: "CE", 2: "C"})  # fmt: skip
    seat1_oros = sorted((c for c in hands[1] if suit(c) == "O" and c != "12O"), key=rank)
    out = run(cb_log(events=events))
    d = out["deals"][0]
    assert len(d["violations"]) == 1
    v = d["violations"][0]
    assert (v["event"], v["seat"], v["card"], v["obligation"]) == (4, 1, "4B", "fallar")
    assert v["correct"] == seat1_oros
    assert d["tricks"][1]["winner"] == 2


def test_no_call_without_the_pair_in_one_trick() -> None:
    out = run(cb_log("10O", "11O"))
    d = out["deals"][0]
    assert d["cantes"] == []
    assert d["trump"] is None


def test_call_ranks_option_changes_the_pair() -> None:
    out = run(cb_log("10O", "11O", call_ranks=[10, 11]))
    d = out["deals"][0]
    assert d["cantes"] == [{"seat": 0, "suit": "O", "points": 40, "trick": 0}]
    assert d["trump"] == "O"
    out = run(cb_log("12O", "11O", call_ranks=[11, 10]))
    assert out["deals"][0]["cantes"] == []
    assert out["deals"][0]["trump"] is None


def gp_log(n: int, trick: list[str], fixed: dict[int, list[str]], avoid: dict[int, str]) -> Any:
    hands, _ = fill(n, {4: 10, 5: 8}[n], fixed, avoid=avoid)
    events = [play(s, c) for s, c in enumerate(trick)]
    deal = {"dealer": n - 1, "hands": hands, "events": events}
    return log_of("tute-gana-pierde", n, [deal])


def test_two_pairs_in_one_trick_in_the_order_their_second_cards_fell() -> None:
    # copas pair complete at the second card, oros pair at the fourth
    trick = ["12C", "11C", "12O", "11O"]
    fixed = {0: ["12C", "1C", "3C"], 1: ["11C"], 2: ["12O"], 3: ["11O"]}
    out = run(gp_log(4, trick, fixed, {2: "C", 3: "C"}))
    d = out["deals"][0]
    assert d["violations"] == []
    assert d["tricks"][0]["winner"] == 0
    assert d["cantes"] == [
        {"seat": 0, "suit": "C", "points": 40, "trick": 0},
        {"seat": 0, "suit": "O", "points": 20, "trick": 0},
    ]
    assert d["trump"] == "C"


def test_two_pairs_in_one_trick_other_order() -> None:
    # oros pair complete at the third card, copas pair at the fourth
    trick = ["12C", "12O", "11O", "11C"]
    fixed = {0: ["12C", "1C", "3C"], 1: ["12O"], 2: ["11O"], 3: ["11C"]}
    out = run(gp_log(4, trick, fixed, {1: "C", 2: "C"}))
    d = out["deals"][0]
    assert d["violations"] == []
    assert d["tricks"][0]["winner"] == 0
    assert d["cantes"] == [
        {"seat": 0, "suit": "O", "points": 40, "trick": 0},
        {"seat": 0, "suit": "C", "points": 20, "trick": 0},
    ]
    assert d["trump"] == "O"
    assert d["scores"][0]["cantes"] == 60


def test_two_pairs_in_one_trick_with_five_players() -> None:
    trick = ["12C", "11C", "12O", "11O", "4B"]
    fixed = {0: ["12C", "1C", "3C"], 1: ["11C"], 2: ["12O"], 3: ["11O"], 4: ["4B"]}
    out = run(gp_log(5, trick, fixed, {2: "C", 3: "C", 4: "C"}))
    d = out["deals"][0]
    assert d["violations"] == []
    assert d["cantes"] == [
        {"seat": 0, "suit": "C", "points": 40, "trick": 0},
        {"seat": 0, "suit": "O", "points": 20, "trick": 0},
    ]
    assert d["trump"] == "C"
