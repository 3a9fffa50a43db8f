"""docs/rules.md §5, §6 and §7: deal totals, deal outcomes, renuncio penalties and match systems.

Outcomes are checked two ways: on a :class:`DealState` whose counters are set by hand (to reach
every branch of §6 exactly), and on whole logs whose hands are laid out so that every trick is
known in advance. A randomized cross-check compares the engine with the reference referee's
reading of §5-§7 (:mod:`tests.reference`).
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

import arbiter
from arbiter.engine.cards import cards_of, format_card
from arbiter.engine.records import Decisive, DecisiveKind
from arbiter.engine.rulesets import (
    RULESETS,
    RenuncioAward,
    Ruleset,
    TieRule,
    get_ruleset,
    resolve_options,
)
from arbiter.engine.scoring import deal_outcome
from arbiter.engine.setup import DealSetup
from arbiter.engine.state import DealState
from arbiter.simulate import random_log
from tests import reference
from tests.hand_built import (
    TIE,
    deal_2p,
    fill,
    hands_2p,
    log_of,
    moves,
    pack,
    play,
    run,
    sing,
    tute,
)
from tests.reference import POINTS, RANKS, SUITS, rank


def outcome_of(out: dict[str, Any], deal: int = 0) -> tuple[list[int], list[int], str]:
    o = out["deals"][deal]["outcome"]
    return o["winners"], o["losers"], o["reason"]


# --- outcomes on a DealState with counters set by hand -------------------------------------


def decide(
    ruleset: str | Ruleset,
    card_points: list[int],
    *,
    cantes: list[int] | None = None,
    tricks: list[int] | None = None,
    last: int | None = None,
    decisive: tuple[str, int] | None = None,
    **options: Any,
) -> tuple[list[int], list[int], str]:
    """The outcome of a finished deal whose counters are exactly these (of the ruleset named,
    or of a ruleset value: a variant of one)."""
    rs = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    n = len(card_points)
    setup = DealSetup(n - 1, (0,) * n, (), None)
    state = DealState.start(rs, resolve_options(rs, options or None), n, setup)
    state.card_points = list(card_points)
    state.cante_points = list(cantes or [0] * n)
    state.tricks_won = list(tricks or [1] * n)
    if last is not None:
        state.trick_no, state.last_winner = state.total_tricks, last
    if decisive is not None:
        state.decisive = Decisive(DecisiveKind(decisive[0]), decisive[1], 0)
    state.over = True
    out = deal_outcome(state)
    return list(out.winners), list(out.losers), out.reason


# --- variant differences are ruleset data -------------------------------------------------------


def test_only_tute_3p_shares_an_unbroken_tie_and_gives_a_renuncio_to_the_best_other() -> None:
    """docs/rules.md §6-§7: tute-3p's tied players all win, and its renuncio goes to the better
    of the other two; every other ruleset draws the tie and gives the renuncio to the others."""
    for name, rs in RULESETS.items():
        assert (rs.unbroken_tie is TieRule.SHARED) == (name == "tute-3p"), name
        assert (rs.renuncio_award is RenuncioAward.BEST_OTHER) == (name == "tute-3p"), name


@pytest.mark.parametrize(
    ("ruleset", "rule", "cards", "kw", "as_given", "flipped"),
    [
        # 60 60 10 (the last trick to seat 2): a tie nothing breaks
        ("tute-3p", TieRule.DRAWN, [60, 60, 0], {"last": 2}, ([0, 1], [2], "tie"), ([], [], "tie")),
        # 55+10 v 65 without the tie break
        ("tute-2p", TieRule.SHARED, [55, 65], {"last": 0, "tie_break": "none"},
         ([], [], "tie"), ([0, 1], [], "tie")),
        # seat 0 reneged; seat 2 has more points than seat 1
        ("tute-3p", RenuncioAward.OTHERS, [10, 50, 60], {"last": 2, "decisive": ("renuncio", 0)},
         ([2], [0, 1], "renuncio"), ([1, 2], [0], "renuncio")),
        ("tute-cabron", RenuncioAward.BEST_OTHER, [10, 50, 60],
         {"last": 2, "decisive": ("renuncio", 0)},
         ([1, 2], [0], "renuncio"), ([2], [0, 1], "renuncio")),
    ],
)  # fmt: skip
def test_flipping_the_ruleset_data_flips_the_outcome(
    ruleset: str, rule: TieRule | RenuncioAward, cards: list[int], kw: dict[str, Any],
    as_given: Any, flipped: Any,
) -> None:  # fmt: skip
    rs = get_ruleset(ruleset)
    if isinstance(rule, TieRule):
        field, variant = "unbroken_tie", dataclasses.replace(rs, unbroken_tie=rule)
    else:
        field, variant = "renuncio_award", dataclasses.replace(rs, renuncio_award=rule)
    assert getattr(rs, field) is not rule
    assert decide(rs, cards, **kw) == decide(ruleset, cards, **kw) == as_given
    assert decide(variant, cards, **kw) == flipped
    assert getattr(get_ruleset(ruleset), field) is not rule, "the ruleset itself is unchanged"


def test_deal_total_is_card_points_plus_cantes_plus_last_trick() -> None:
    rs = get_ruleset("tute-2p")
    state = DealState.start(rs, resolve_options(rs, None), 2, DealSetup(1, (0, 0), (), None))
    state.card_points = [55, 65]
    state.cante_points = [20, 40]
    state.trick_no, state.last_winner = 20, 0  # seat 0 took the last of the 20 tricks
    assert state.totals() == [55 + 20 + 10, 65 + 40]
    assert [state.last_trick_points(s) for s in (0, 1)] == [10, 0]


@pytest.mark.parametrize(
    ("cards", "kw", "expected"),
    [
        ([70, 50], {"last": 0}, ([0], [1], "points")),
        ([50, 70], {"last": 1, "cantes": [40, 0]}, ([0], [1], "points")),  # 90 v 80
        ([60, 60], {"last": 1}, ([1], [0], "points")),  # the last trick's 10 is points
        ([55, 65], {"last": 0}, ([0], [1], "last_trick")),  # 65 v 65
        ([65, 55], {"last": 1}, ([1], [0], "last_trick")),
        ([55, 65], {"last": 0, "tie_break": "none"}, ([], [], "tie")),
        ([35, 65], {"last": 0, "cantes": [20, 0]}, ([0], [1], "last_trick")),
    ],
)
def test_tute_2p_outcome(cards: list[int], kw: dict[str, Any], expected: Any) -> None:
    assert decide("tute-2p", cards, **kw) == expected


@pytest.mark.parametrize(
    ("cards", "kw", "expected"),
    [
        ([40, 40, 40], {"last": 2}, ([2], [0, 1], "points")),
        ([60, 50, 10], {"last": 1}, ([1], [0, 2], "last_trick")),  # 60 60 10
        # a tie that the last trick does not break: the deal goes to every tied player
        ([60, 60, 0], {"last": 2}, ([0, 1], [2], "tie")),  # 60 60 10
        ([60, 50, 10], {"last": 1, "tie_break": "none"}, ([0, 1], [2], "tie")),
    ],
)
def test_tute_3p_outcome(cards: list[int], kw: dict[str, Any], expected: Any) -> None:
    assert decide("tute-3p", cards, **kw) == expected


@pytest.mark.parametrize(
    ("cards", "kw", "expected"),
    [
        # seats 30 30 30 40: side 0+2 = 60, side 1+3 = 70
        ([30, 20, 30, 40], {"last": 1}, ([1, 3], [0, 2], "points")),
        # one seat with the most points does not win: side 0+2 = 90 v 80
        ([20, 40, 20, 40], {"last": 2, "cantes": [40, 0, 0, 0]}, ([0, 2], [1, 3], "points")),
        # seats 40 35 25 30: 65 v 65
        ([30, 35, 25, 30], {"last": 0}, ([0, 2], [1, 3], "last_trick")),
        ([40, 35, 25, 20], {"last": 3}, ([1, 3], [0, 2], "last_trick")),  # 40 35 25 30
        ([30, 35, 25, 30], {"last": 0, "tie_break": "none"}, ([], [], "tie")),
    ],
)
def test_tute_4p_outcome_per_side(cards: list[int], kw: dict[str, Any], expected: Any) -> None:
    assert decide("tute-4p", cards, **kw) == expected


@pytest.mark.parametrize(
    ("cards", "kw", "expected"),
    [
        # no_tricks takes precedence over over_100 (seat 0 has 120)
        ([110, 10, 0], {"last": 0, "tricks": [10, 2, 0]}, ([0, 1], [2], "no_tricks")),
        ([120, 0, 0], {"last": 0, "tricks": [12, 0, 0]}, ([0], [1, 2], "no_tricks")),
        # over_100 takes precedence over tied (seats 1 and 2 on 10)
        ([100, 10, 10], {"last": 0, "tricks": [9, 2, 1]}, ([1, 2], [0], "over_100")),
        ([70, 30, 20], {"last": 0, "cantes": [40, 0, 0]}, ([1, 2], [0], "over_100")),  # 120
        # exactly 100 is not over 100: the middle score loses
        ([90, 20, 10], {"last": 0}, ([0, 2], [1], "middle")),
        # tied takes precedence over middle
        ([50, 50, 20], {"last": 2}, ([2], [0, 1], "tied")),  # 50 50 30
        ([80, 20, 20], {"last": 0}, ([0], [1, 2], "tied")),  # 90 20 20
        ([60, 40, 20], {"last": 0}, ([0, 2], [1], "middle")),  # 70 40 20
        ([20, 60, 40], {"last": 1}, ([0, 1], [2], "middle")),  # 20 70 40
        ([60, 20, 40], {"last": 0, "cantes": [0, 40, 0]}, ([0, 2], [1], "middle")),  # 70 60 40
    ],
)
def test_cabron_outcome(cards: list[int], kw: dict[str, Any], expected: Any) -> None:
    assert decide("tute-cabron", cards, **kw) == expected


@pytest.mark.parametrize(
    ("cards", "kw", "expected"),
    [
        # 3 players: 76 card points
        ([66, 10, 0], {"last": 1, "tricks": [11, 1, 0]}, ([0, 1], [2], "no_tricks")),
        ([46, 20, 10], {"last": 0}, ([0, 2], [1], "extremes")),  # 56 20 10
        ([33, 33, 10], {"last": 2}, ([2], [0, 1], "tied")),  # 33 33 20: the top is tied
        ([46, 15, 15], {"last": 0}, ([0], [1, 2], "tied")),  # 56 15 15: the bottom is tied
        # 4 and 5 players: 120
        ([50, 30, 25, 15], {"last": 0}, ([0, 3], [1, 2], "extremes")),  # 60 30 25 15
        ([40, 30, 25, 15, 10], {"last": 4}, ([0, 3], [1, 2, 4], "extremes")),  # .. 15 20
        ([40, 40, 20, 20], {"last": 0, "tricks": [4, 4, 2, 0]}, ([0, 1, 2], [3], "no_tricks")),
        ([40, 30, 30, 20, 0], {"last": 0, "tricks": [3, 2, 2, 1, 0]},
         ([0, 1, 2, 3], [4], "no_tricks")),
        ([60, 20, 20, 10, 10], {"last": 0, "tricks": [3, 2, 2, 1, 0]},
         ([0, 1, 2, 3], [4], "no_tricks")),
    ],
)  # fmt: skip
def test_gana_pierde_outcome(cards: list[int], kw: dict[str, Any], expected: Any) -> None:
    assert decide("tute-gana-pierde", cards, **kw) == expected


@pytest.mark.parametrize(
    ("cards", "last", "winners", "losers"),
    [
        ([50, 30, 30, 10], 3, [0, 3], [1, 2]),  # 50 30 30 20: the middle two are tied
        ([50, 50, 10, 10], 2, [3], [0, 1, 2]),  # 50 50 20 10: the top is tied
        ([20, 50, 40, 10], 3, [1], [0, 2, 3]),  # 20 50 40 20: the two lowest are tied
        ([30, 30, 30, 30], 0, [0], [1, 2, 3]),  # 40 30 30 30
    ],
)
def test_gana_pierde_anyone_tied_loses(
    cards: list[int], last: int, winners: list[int], losers: list[int]
) -> None:
    w, lo, _ = decide("tute-gana-pierde", cards, last=last)
    assert (w, lo) == (winners, losers)


@pytest.mark.parametrize(
    ("ruleset", "cards", "kw", "expected"),
    [
        # tute-2p and tute-4p: the other side wins, whatever the score
        ("tute-2p", [100, 20], {"last": 0, "decisive": ("renuncio", 0)}, ([1], [0], "renuncio")),
        ("tute-2p", [20, 100], {"last": 0, "decisive": ("renuncio", 1)}, ([0], [1], "renuncio")),
        ("tute-4p", [0, 60, 0, 60], {"last": 1, "decisive": ("renuncio", 1)},
         ([0, 2], [1, 3], "renuncio")),
        ("tute-4p", [60, 0, 60, 0], {"last": 0, "decisive": ("renuncio", 2)},
         ([1, 3], [0, 2], "renuncio")),
        # tute-3p: the offender loses and the best of the others wins
        ("tute-3p", [40, 30, 50], {"last": 0, "decisive": ("renuncio", 0)},
         ([2], [0, 1], "renuncio")),
        ("tute-3p", [60, 30, 30], {"last": 0, "decisive": ("renuncio", 0)},
         ([1, 2], [0], "renuncio")),  # others 30 v 30, not broken: both
        ("tute-3p", [70, 30, 20], {"last": 2, "decisive": ("renuncio", 0)},
         ([2], [0, 1], "renuncio")),  # others 30 v 30, broken by the last trick
        ("tute-3p", [50, 40, 30], {"last": 1, "decisive": ("renuncio", 2)},
         ([1], [0, 2], "renuncio")),  # others 50 v 50, the last trick breaks it
        # cabrón: the offender is the only loser (here seat 2 won no trick, seat 0 has 120)
        ("tute-cabron", [110, 10, 0], {"last": 0, "tricks": [10, 2, 0],
                                       "decisive": ("renuncio", 1)}, ([0, 2], [1], "renuncio")),
        # gana-pierde: the offender is the only one who does not win
        ("tute-gana-pierde", [40, 40, 40, 0], {"last": 0, "tricks": [4, 3, 3, 0],
                                               "decisive": ("renuncio", 0)},
         ([1, 2, 3], [0], "renuncio")),
        ("tute-gana-pierde", [46, 20, 10], {"last": 0, "decisive": ("renuncio", 1)},
         ([0, 2], [1], "renuncio")),
        # tute: the declarer (their side) wins, whatever the score
        ("tute-2p", [30, 0], {"decisive": ("tute", 1)}, ([1], [0], "tute")),
        ("tute-3p", [30, 10, 0], {"decisive": ("tute", 2)}, ([2], [0, 1], "tute")),
        ("tute-4p", [30, 0, 30, 0], {"decisive": ("tute", 3)}, ([1, 3], [0, 2], "tute")),
        ("tute-4p", [0, 30, 0, 30], {"decisive": ("tute", 2)}, ([0, 2], [1, 3], "tute")),
    ],
)  # fmt: skip
def test_decisive_events(ruleset: str, cards: list[int], kw: dict[str, Any], expected: Any) -> None:
    assert decide(ruleset, cards, **kw) == expected


# --- whole tute-4p deals -----------------------------------------------------------------------

P4_LEADS = ["4B", "5B", "6B", "7B", "10B", "3B", "1B", "11B", "12B"]


def p4_deal(hands: list[list[str]], first: list[str], **options: Any) -> dict[str, Any]:
    """Tute-4p, dealer 3 holding all the bastos (4B shown: trump). Trick 0 is ``first`` (seat 0
    leads, seat 3 trumps with 2B and wins); then seat 3 leads its bastos and the others, void
    in bastos and without trumps, throw the rest of their hands in order."""
    assert hands[3] == [f"{r}B" for r in RANKS]
    events = [play(s, c) for s, c in enumerate(first)]
    rest = [[c for c in hands[s] if c != first[s]] for s in range(3)]
    for k, lead in enumerate(P4_LEADS):
        events += [play(3, lead), *(play(s, rest[s][k]) for s in range(3))]
    deal = {"dealer": 3, "hands": hands, "trump_card": "4B", "events": events}
    return log_of("tute-4p", 4, [deal], **options)


SPLIT = [[f"{r}{s}" for r in RANKS] for s in SUITS]


def swap(hands: list[list[str]], a: str, b: str) -> list[list[str]]:
    """The hands with cards ``a`` and ``b`` exchanged between their holders."""
    return [[b if c == a else a if c == b else c for c in h] for h in hands]


def test_whole_4p_deal_points_per_side() -> None:
    out = run(p4_deal(SPLIT, ["1O", "1C", "1E", "2B"]))
    deal = out["deals"][0]
    assert out["status"] == "complete"
    assert deal["violations"] == []
    assert [t["winner"] for t in deal["tricks"]] == [3] * 10
    assert deal["tricks"][0]["points"] == 33
    assert sum(s["card_points"] for s in deal["scores"]) == 120
    assert deal["scores"][3] == {
        "seat": 3, "tricks": 10, "card_points": 120, "cantes": 0, "last_trick": 10, "total": 130
    }  # fmt: skip
    assert deal["sides"] == [{"seats": [0, 2], "total": 0}, {"seats": [1, 3], "total": 130}]
    assert outcome_of(out) == ([1, 3], [0, 2], "points")
    assert [s["deals_won"] for s in out["match"]["standings"]] == [0, 1, 0, 1]


def test_whole_4p_deal_renuncio_beats_points() -> None:
    # seat 1 holds 4O but throws 1C on 1O: the side with no points wins the deal
    hands = swap(SPLIT, "4O", "4C")
    out = run(p4_deal(hands, ["1O", "1C", "1E", "2B"]))
    deal = out["deals"][0]
    assert [(v["event"], v["seat"], v["obligation"]) for v in deal["violations"]] == [
        (1, 1, "asistir")
    ]
    assert deal["violations"][0]["correct"] == ["4O"]
    assert deal["sides"][1]["total"] == 130
    assert outcome_of(out) == ([0, 2], [1, 3], "renuncio")
    assert out["match"]["over"] is False
    assert [s["deals_won"] for s in out["match"]["standings"]] == [1, 0, 1, 0]


def test_the_first_renuncio_decides() -> None:
    hands = swap(swap(SPLIT, "4O", "4C"), "5O", "4E")  # seat 1 holds 4O, seat 2 holds 5O
    out = run(p4_deal(hands, ["1O", "1C", "1E", "2B"]))  # both renounce, seat 1 first
    assert [v["seat"] for v in out["deals"][0]["violations"]] == [1, 2]
    assert outcome_of(out) == ([0, 2], [1, 3], "renuncio")
    out = run(p4_deal(hands, ["1O", "4O", "1E", "2B"]))  # only seat 2 renounces
    assert [v["seat"] for v in out["deals"][0]["violations"]] == [2]
    assert outcome_of(out) == ([1, 3], [0, 2], "renuncio")


def test_renuncio_lose_match_ends_the_match_against_the_offender() -> None:
    hands = swap(SPLIT, "4O", "4C")
    log = p4_deal(hands, ["1O", "1C", "1E", "2B"], renuncio_penalty="lose_match")
    out = run(log)
    assert out["status"] == "complete"
    assert out["match"]["over"] is True
    assert out["match"]["winners"] == [0, 2]
    assert out["match"]["losers"] == [1, 3]
    assert out["next"] is None
    log["deals"].append(dict(log["deals"][0]))
    out = run(log)
    assert out["status"] == "invalid"
    assert out["illegal"]["deal"] == 1
    assert out["illegal"]["event"] == 0
    assert out["illegal"]["code"] == "match_over"


def test_sides_only_in_tute_4p() -> None:
    out = run(p4_deal(SPLIT, ["1O", "1C", "1E", "2B"]))
    assert "sides" in out["deals"][0]
    hands, _ = fill(3, 12, {2: ["4E"]}, removed=2)
    for ruleset, deal in (
        ("tute-3p", {"dealer": 2, "hands": hands, "trump_card": "4E"}),
        ("tute-cabron", {"dealer": 2, "hands": hands}),
        ("tute-2p", {**deal_2p(TIE, "2O", dealer=0), "events": []}),
    ):
        n = 2 if ruleset == "tute-2p" else 3
        out = run(log_of(ruleset, n, [deal]))
        assert "sides" not in out["deals"][0], ruleset


# --- whole tute-2p deals ---------------------------------------------------------------------

# TIE (tests/hand_built.py): a tute-2p deal tied 65 to 65, seat 0 taking the last trick.


def test_tie_broken_by_the_last_trick() -> None:
    out = run(log_of("tute-2p", 2, [deal_2p(TIE, "2O", dealer=0)]))
    deal = out["deals"][0]
    assert deal["violations"] == []
    assert [t["winner"] for t in deal["tricks"]] == [1] * 11 + [0] * 9
    assert [t["points"] for t in deal["tricks"]] == [
        11, 10, 4, 3, 2, 11, 10, 4, 3, 2, 5, 0, 11, 10, 2, 4, 3, 11, 10, 4
    ]  # fmt: skip
    assert deal["scores"] == [
        {"seat": 0, "tricks": 9, "card_points": 55, "cantes": 0, "last_trick": 10, "total": 65},
        {"seat": 1, "tricks": 11, "card_points": 65, "cantes": 0, "last_trick": 0, "total": 65},
    ]
    assert outcome_of(out) == ([0], [1], "last_trick")
    assert [s["deals_won"] for s in out["match"]["standings"]] == [1, 0]


def test_tie_with_tie_break_none_is_a_drawn_deal() -> None:
    out = run(log_of("tute-2p", 2, [deal_2p(TIE, "2O", dealer=0)], tie_break="none"))
    assert out["status"] == "complete"
    assert outcome_of(out) == ([], [], "tie")
    assert [s["deals_won"] for s in out["match"]["standings"]] == [0, 0]
    # two drawn deals: the match goes on
    log = log_of("tute-2p", 2, [deal_2p(TIE, "2O", dealer=0)] * 3, tie_break="none")
    out = run(log)
    assert out["match"]["over"] is False
    assert [s["deals_won"] for s in out["match"]["standings"]] == [0, 0]
    log = log_of("tute-2p", 2, [deal_2p(TIE, "2O", dealer=0)] * 3)
    out = run(log)
    assert out["match"]["over"] is True
    assert out["match"]["winners"] == [0]


def test_a_cante_breaks_the_tie() -> None:
    # seat 1 leads 1C, 3C, 12C, 11C in tricks 0..3: after winning trick 0 it holds the pair
    out = run(log_of("tute-2p", 2, [deal_2p(TIE, "2O", dealer=0, before={1: [sing(1, "C")]})]))
    deal = out["deals"][0]
    assert deal["cantes"] == [{"seat": 1, "suit": "C", "points": 20, "trick": 0}]
    assert [s["total"] for s in deal["scores"]] == [65, 85]
    assert outcome_of(out) == ([1], [0], "points")


# In trick 12 seat 1 throws 7B on 1O while holding five oros; it later takes the last trick
# (2O trumping 12B) and ends with more points, but the renuncio gives the deal to seat 0.
RENUNCIO_2P = [
    *TIE[:12],
    ("1O", "7B"), ("1B", "6B"), ("3B", "5B"),
    ("3O", "7O"), ("10O", "6O"), ("12O", "5O"), ("11O", "4O"), ("12B", "2O"),
]  # fmt: skip


def test_tute_2p_renuncio_beats_points() -> None:
    out = run(log_of("tute-2p", 2, [deal_2p(RENUNCIO_2P, "2O", dealer=0)]))
    deal = out["deals"][0]
    assert [(v["event"], v["seat"], v["card"], v["obligation"]) for v in deal["violations"]] == [
        (25, 1, "7B", "asistir")
    ]
    assert deal["violations"][0]["correct"] == ["2O", "4O", "5O", "6O", "7O"]
    assert deal["tricks"][19]["winner"] == 1
    assert [s["card_points"] for s in deal["scores"]] == [51, 69]
    assert [s["total"] for s in deal["scores"]] == [51, 79]
    assert outcome_of(out) == ([0], [1], "renuncio")


# --- tute-3p: renuncio and tute ----------------------------------------------------------------

# Dealer 2 shows 4E (trump). Trick 0: seat 0 leads 1O, seat 1 throws 3B holding 4O (renuncio),
# seat 2 follows with 3O: seat 0 takes 31. Trick 1: seat 0 leads 4C, seat 1 (no copas, no
# trumps) throws 5B, seat 2 takes it with 5C: 0 points. Seat 2 then holds the four horses.
R3_FIXED = {
    0: ["1O", "4C", "12O", "12C", "12E", "12B"],
    1: ["4O", "3B", "5B"],
    2: ["3O", "5C", "4E", "11O", "11C", "11E", "11B"],
}
R3_TRICKS = [play(0, "1O"), play(1, "3B"), play(2, "3O"), play(0, "4C"), play(1, "5B"),
             play(2, "5C")]  # fmt: skip


def r3_log(events: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    hands, _ = fill(3, 12, R3_FIXED, removed=2, avoid={1: "CE"})
    deal = {"dealer": 2, "hands": hands, "trump_card": "4E", "events": events}
    return log_of("tute-3p", 3, [deal], **options)


def test_tute_3p_renuncio_best_of_the_others_wins() -> None:
    out = run(r3_log([*R3_TRICKS[:3], tute(0, "kings")]))
    deal = out["deals"][0]
    assert [(v["seat"], v["obligation"]) for v in deal["violations"]] == [(1, "asistir")]
    assert [s["card_points"] for s in deal["scores"]] == [31, 0, 0]
    assert outcome_of(out) == ([0], [1, 2], "renuncio")


def test_renuncio_before_a_tute_decides_the_deal() -> None:
    # seat 2's tute ends the deal, but seat 1's renuncio came first: the best of the others,
    # seat 0 (31 points against 0), wins; the tute would have given the deal to seat 2
    out = run(r3_log([*R3_TRICKS, tute(2, "horses")]))
    deal = out["deals"][0]
    assert out["status"] == "complete"
    assert [t["winner"] for t in deal["tricks"]] == [0, 2]
    assert [s["card_points"] for s in deal["scores"]] == [31, 0, 0]
    assert outcome_of(out) == ([0], [1, 2], "renuncio")


def test_renuncio_lose_match_in_tute_3p() -> None:
    out = run(r3_log([*R3_TRICKS, tute(2, "horses")], renuncio_penalty="lose_match"))
    assert outcome_of(out) == ([0], [1, 2], "renuncio")
    assert out["match"]["over"] is True
    assert out["match"]["losers"] == [1]
    assert out["match"]["winners"] == [0, 2]


# --- cabrón and gana-pierde whole deals ---------------------------------------------------------

# Cabrón, dealer 2: seat 0 holds the nine oros and 1C 3C 1E and takes all twelve tricks; every
# king+horse pair is in one hand, so no trick holds a pair: no call, no trump.
C0_HANDS = [
    ["1O", "3O", "12O", "11O", "10O", "7O", "6O", "5O", "4O", "1C", "3C", "1E"],
    ["4C", "5C", "6C", "7C", "10C", "11C", "12C", "12E", "11E", "10E", "7E", "6E"],
    ["3E", "4E", "5E", "1B", "3B", "12B", "11B", "10B", "7B", "6B", "5B", "4B"],
]
C0_PLAYS = [
    ["1O", "3O", "12O", "11O", "10O", "7O", "6O", "5O", "4O", "1C", "3C", "1E"],
    ["12E", "11E", "10E", "7E", "6E", "12C", "11C", "10C", "7C", "6C", "5C", "4C"],
    ["1B", "3B", "12B", "11B", "10B", "7B", "6B", "5B", "4B", "3E", "4E", "5E"],
]
# the same deal, but seat 1 keeps 6C and 5C and throws 6E on 1C: a renuncio
C0R_PLAYS = [
    C0_PLAYS[0],
    ["12E", "11E", "10E", "7E", "12C", "11C", "10C", "7C", "4C", "6E", "6C", "5C"],
    C0_PLAYS[2],
]


def trick_deal(
    hands: list[list[str]], plays: list[list[str]], dealer: int, **extra: Any
) -> dict[str, Any]:
    """A deal in which seat (dealer+1) leads and wins every trick; ``plays[s][k]`` is seat s's
    card in trick k."""
    n = len(hands)
    lead = (dealer + 1) % n
    events = [
        play((lead + i) % n, plays[(lead + i) % n][k])
        for k in range(len(plays[0]))
        for i in range(n)
    ]
    return {"dealer": dealer, "hands": hands, "events": events, **extra}


def test_cabron_whole_deal_no_tricks() -> None:
    assert sorted(c for h in C0_HANDS for c in h) == sorted(pack(2))
    out = run(log_of("tute-cabron", 3, [trick_deal(C0_HANDS, C0_PLAYS, 2)]))
    deal = out["deals"][0]
    assert out["status"] == "complete"
    assert deal["violations"] == []
    assert deal["cantes"] == []
    assert deal["trump"] is None
    assert [t["winner"] for t in deal["tricks"]] == [0] * 12
    assert [s["total"] for s in deal["scores"]] == [130, 0, 0]
    assert outcome_of(out) == ([0], [1, 2], "no_tricks")
    assert [s["loser_points"] for s in out["match"]["standings"]] == [0, 1, 1]
    assert out["match"]["over"] is False


def test_cabron_renuncio_offender_is_the_only_loser() -> None:
    out = run(log_of("tute-cabron", 3, [trick_deal(C0_HANDS, C0R_PLAYS, 2)]))
    deal = out["deals"][0]
    assert [(v["event"], v["seat"], v["obligation"]) for v in deal["violations"]] == [
        (28, 1, "asistir")
    ]
    assert [t["winner"] for t in deal["tricks"]] == [0] * 12
    assert outcome_of(out) == ([0, 2], [1], "renuncio")
    assert [s["loser_points"] for s in out["match"]["standings"]] == [0, 1, 0]
    log = log_of("tute-cabron", 3, [trick_deal(C0_HANDS, C0R_PLAYS, 2)],
                 renuncio_penalty="lose_match")  # fmt: skip
    match = run(log)["match"]
    assert (match["over"], match["winners"], match["losers"]) == (True, [0, 2], [1])


@pytest.mark.parametrize(("target", "deals"), [(1, 1), (2, 2), (None, 4)])
def test_cabron_match_loser_points(target: int | None, deals: int) -> None:
    options = {} if target is None else {"loser_target": target}
    log = log_of("tute-cabron", 3, [trick_deal(C0_HANDS, C0_PLAYS, 2)] * (deals - 1), **options)
    if deals > 1:
        out = run(log)
        assert out["match"]["over"] is False
        assert out["status"] == "complete"
        assert [s["loser_points"] for s in out["match"]["standings"]] == [0, deals - 1, deals - 1]
    log["deals"].append(trick_deal(C0_HANDS, C0_PLAYS, 2))
    out = run(log)
    match = out["match"]
    assert [s["loser_points"] for s in match["standings"]] == [0, deals, deals]
    # the players who reach the target lose the match, everyone else wins it
    assert (match["over"], match["winners"], match["losers"]) == (True, [0], [1, 2])
    log["deals"].append(trick_deal(C0_HANDS, C0_PLAYS, 2))
    out = run(log)
    assert (out["status"], out["illegal"]["code"], out["illegal"]["deal"]) == (
        "invalid", "match_over", deals
    )  # fmt: skip


# Gana-pierde with 3 players (no aces, 76 points): seat 0 holds the nine oros and 3E 3B 2C;
# it takes the first eleven tricks, and seat 1 takes the last (3C over 2C). Seat 2 takes none.
GP_HANDS = [
    ["3O", "12O", "11O", "10O", "7O", "6O", "5O", "4O", "2O", "3E", "3B", "2C"],
    ["3C", "4C", "5C", "6C", "7C", "10C", "11C", "12C", "12E", "11E", "10E", "7E"],
    ["2E", "4E", "5E", "6E", "12B", "11B", "10B", "7B", "6B", "5B", "4B", "2B"],
]
GP_TRICKS = [
    ["3O", "12E", "12B"], ["12O", "11E", "11B"], ["11O", "10E", "10B"], ["10O", "7E", "7B"],
    ["7O", "12C", "6B"], ["6O", "11C", "5B"], ["5O", "10C", "4B"], ["4O", "7C", "2B"],
    ["2O", "6C", "6E"], ["3E", "5C", "5E"], ["3B", "4C", "4E"], ["2C", "3C", "2E"],
]  # fmt: skip


def gp_deal() -> dict[str, Any]:
    events = [play(s, c) for t in GP_TRICKS for s, c in enumerate(t)]
    return {"dealer": 2, "hands": GP_HANDS, "events": events}


def test_gana_pierde_whole_deal() -> None:
    assert sorted(c for h in GP_HANDS for c in h) == sorted(pack(1))
    out = run(log_of("tute-gana-pierde", 3, [gp_deal()]))
    deal = out["deals"][0]
    assert out["status"] == "complete"
    assert deal["violations"] == []
    assert deal["cantes"] == []
    assert [t["winner"] for t in deal["tricks"]] == [0] * 11 + [1]
    assert sum(s["card_points"] for s in deal["scores"]) == 76
    assert [s["card_points"] for s in deal["scores"]] == [66, 10, 0]
    assert [s["total"] for s in deal["scores"]] == [66, 20, 0]
    assert outcome_of(out) == ([0, 1], [2], "no_tricks")
    assert [s["tokens"] for s in out["match"]["standings"]] == [1, 1, 0]


@pytest.mark.parametrize(("target", "deals"), [(1, 1), (2, 2), (None, 3)])
def test_gana_pierde_match_tokens_won_together(target: int | None, deals: int) -> None:
    options = {} if target is None else {"token_target": target}
    log = log_of("tute-gana-pierde", 3, [gp_deal() for _ in range(deals)], **options)
    out = run(log)
    match = out["match"]
    assert [s["tokens"] for s in match["standings"]] == [deals, deals, 0]
    assert (match["over"], match["winners"], match["losers"]) == (True, [0, 1], [2])
    if deals > 1:
        out = run(log_of("tute-gana-pierde", 3, [gp_deal()] * (deals - 1), **options))
        assert out["match"]["over"] is False


# --- match systems of tute-2p/3p/4p -------------------------------------------------------------


def tute_deal(seat: int, n: int = 2) -> dict[str, Any]:
    """A deal in which ``seat`` is mano, holds the four kings and declares a tute at once."""
    kings = ["12O", "12C", "12E", "12B"]
    dealer = (seat - 1) % n
    if n == 2:
        deal = hands_2p({0: kings}, [], "2O")
        if seat == 1:
            deal["hands"].reverse()
        deal["dealer"] = dealer
    else:
        hands, _ = fill(n, 10, {seat: kings, dealer: ["2O"]})
        deal = {"dealer": dealer, "hands": hands, "trump_card": "2O"}
    deal["events"] = [tute(seat, "kings")]
    return deal


@pytest.mark.parametrize("target", [3, 5, 7])
def test_first_to_match_target_deals(target: int) -> None:
    opts = {"match_target": target}
    log = log_of("tute-2p", 2, [tute_deal(0) for _ in range(target - 1)], **opts)
    out = run(log)
    assert out["status"] == "complete"
    assert out["match"]["over"] is False
    assert out["next"] is None
    assert [s["deals_won"] for s in out["match"]["standings"]] == [target - 1, 0]
    log["deals"].append(tute_deal(0))
    out = run(log)
    match = out["match"]
    assert (match["over"], match["winners"], match["losers"]) == (True, [0], [1])
    assert [s["deals_won"] for s in match["standings"]] == [target, 0]
    log["deals"].append(tute_deal(1))
    out = run(log)
    assert out["status"] == "invalid"
    assert out["illegal"]["code"] == "match_over"
    assert (out["illegal"]["deal"], out["illegal"]["event"]) == (target, 0)
    assert len(out["deals"]) == target


def test_match_won_by_the_first_to_reach_the_target() -> None:
    log = log_of("tute-2p", 2, [tute_deal(s) for s in (0, 1, 1, 0, 1)])
    out = run(log)
    assert [d["outcome"]["winners"] for d in out["deals"]] == [[0], [1], [1], [0], [1]]
    match = out["match"]
    assert [s["deals_won"] for s in match["standings"]] == [2, 3]
    assert (match["over"], match["winners"], match["losers"]) == (True, [1], [0])


def test_match_over_reported_before_deal_over() -> None:
    deals = [tute_deal(0) for _ in range(3)]
    deals[-1]["events"].append(play(0, "12O"))
    out = run(log_of("tute-2p", 2, deals))
    assert out["illegal"]["code"] == "match_over"
    assert (out["illegal"]["deal"], out["illegal"]["event"]) == (2, 1)
    # with the match still open the same event is deal_over
    out = run(log_of("tute-2p", 2, deals, match_target=5))
    assert out["illegal"]["code"] == "deal_over"


def test_tute_4p_match_per_side() -> None:
    log = log_of("tute-4p", 4, [tute_deal(s, 4) for s in (1, 0, 3, 3)])
    out = run(log)
    assert [d["outcome"]["winners"] for d in out["deals"]] == [[1, 3], [0, 2], [1, 3], [1, 3]]
    match = out["match"]
    assert [s["deals_won"] for s in match["standings"]] == [1, 3, 1, 3]
    assert (match["over"], match["winners"], match["losers"]) == (True, [1, 3], [0, 2])


# --- status and next ------------------------------------------------------------------------------


def test_in_progress_next_lists_correct_plays() -> None:
    log = p4_deal(SPLIT, ["1O", "1C", "1E", "2B"])
    events = log["deals"][0]["events"]
    # seat 1, void in oros and without trumps, may play any card
    log["deals"][0]["events"] = events[:1]
    out = run(log)
    assert out["status"] == "in_progress"
    assert out["next"]["seat"] == 1
    assert sorted(m["card"] for m in moves(out)) == sorted(SPLIT[1])
    assert all(m["type"] == "play" and m["seat"] == 1 for m in moves(out))
    # seat 3, void in oros, must trump: every basto is correct
    log["deals"][0]["events"] = events[:3]
    out = run(log)
    assert out["next"]["seat"] == 3
    assert sorted(m["card"] for m in moves(out)) == sorted(SPLIT[3])
    # seat 3 won trick 0: its bastos and the cante in bastos
    log["deals"][0]["events"] = events[:4]
    out = run(log)
    assert out["next"]["seat"] == 3
    plays = sorted(m["card"] for m in moves(out) if m["type"] == "play")
    assert plays == sorted(c for c in SPLIT[3] if c != "2B")
    assert [m for m in moves(out) if m["type"] != "play"] == [
        {"type": "sing", "seat": 3, "suit": "B"}
    ]


def test_in_progress_next_follows_the_obligations() -> None:
    # seat 0 leads 10O; seat 1 holds 4O and 1O (and no other oro that beats 10O): only 1O
    hands, _ = fill(3, 12, {0: ["10O"], 1: ["4O", "1O"], 2: ["4E"]}, removed=2,
                    avoid={1: "O"})  # fmt: skip
    deal = {"dealer": 2, "hands": hands, "trump_card": "4E", "events": [play(0, "10O")]}
    out = run(log_of("tute-3p", 3, [deal]))
    assert moves(out) == [{"type": "play", "seat": 1, "card": "1O"}]


def test_status_complete_and_invalid_have_no_next() -> None:
    out = run(p4_deal(SPLIT, ["1O", "1C", "1E", "2B"]))
    assert (out["status"], out["next"], out["illegal"]) == ("complete", None, None)
    log = p4_deal(SPLIT, ["1O", "1C", "1E", "2B"])
    log["deals"][0]["events"] = [play(1, "1C")]
    out = run(log)
    assert out["status"] == "invalid"
    assert out["next"] is None
    assert out["illegal"]["code"] == "out_of_turn"


@pytest.mark.parametrize("ruleset", ["tute-2p", "tute-3p", "tute-4p", "tute-cabron",
                                     "tute-gana-pierde"])  # fmt: skip
def test_legal_moves_never_empty_and_all_accepted(ruleset: str) -> None:
    for seed in range(12):
        rng = random.Random(seed)
        players = [3, 4, 5][seed % 3] if ruleset == "tute-gana-pierde" else None
        log = random_log(ruleset, rng, players=players, finish_last=False,
                         stop_after=rng.randrange(0, 40), renuncio_rate=0.1)  # fmt: skip
        out = run(log)
        if out["status"] != "in_progress":
            continue
        legal = moves(out)
        assert legal, (ruleset, seed)
        seat = out["next"]["seat"]
        assert all(m["seat"] == seat for m in legal)
        for move in legal:
            verdict = arbiter.validate(log, move).to_dict()
            assert verdict["verdict"] == "ok", (ruleset, seed, move)
        legal_cards = {m["card"] for m in legal if m["type"] == "play"}
        state = arbiter.replay(log).match.current
        assert state is not None
        for card in (format_card(c) for c in cards_of(state.hands[seat])):
            if card not in legal_cards:
                verdict = arbiter.validate(log, play(seat, card)).to_dict()
                assert verdict["verdict"] == "renuncio", (ruleset, seed, card)


# --- a randomized cross-check against the reference's reading of §5-§7 -----------------------


@pytest.mark.parametrize("ruleset", ["tute-2p", "tute-3p", "tute-4p", "tute-cabron",
                                     "tute-gana-pierde"])  # fmt: skip
@pytest.mark.parametrize("penalty", ["lose_deal", "lose_match"])
def test_random_matches_against_an_independent_referee(ruleset: str, penalty: str) -> None:
    for seed in range(15):
        rng = random.Random(seed * 7919 + len(ruleset))
        n = [3, 4, 5][seed % 3] if ruleset == "tute-gana-pierde" else None
        options: dict[str, Any] = {"renuncio_penalty": penalty}
        if ruleset.startswith("tute-") and ruleset[5].isdigit() and seed % 2:
            options["tie_break"] = "none"
        log = random_log(ruleset, rng, players=n, deals=6, options=options,
                         renuncio_rate=0.01 if seed % 3 else 0.0, declare_rate=0.5)  # fmt: skip
        out = run(log)
        assert out["status"] == "complete"
        players = len(log["players"])
        opts = reference.options(log)
        standing = reference.Standing(ruleset, players, opts)
        for raw, deal in zip(log["deals"], out["deals"], strict=True):
            scores = deal["scores"]
            tute_at = [j for j, e in enumerate(raw["events"]) if e["type"] == "tute"]
            n_tricks = reference.tricks_per_deal(ruleset, players)
            finished = len(deal["tricks"]) == n_tricks and not tute_at
            # §5: totals and the last trick
            last = deal["tricks"][-1]["winner"] if finished else None
            for s in scores:
                assert s["last_trick"] == (10 if s["seat"] == last else 0)
                assert s["total"] == s["card_points"] + s["cantes"] + s["last_trick"]
                assert s["cantes"] == sum(c["points"] for c in deal["cantes"]
                                          if c["seat"] == s["seat"])  # fmt: skip
                won = [t for t in deal["tricks"] if t["winner"] == s["seat"]]
                assert s["tricks"] == len(won)
                assert s["card_points"] == sum(
                    POINTS[rank(p["card"])] for t in won for p in t["plays"]
                )
            if finished:
                full = reference.pack_points(ruleset, players)
                assert sum(s["card_points"] for s in scores) == full
            # §6, §7: the outcome
            decisive_events = [(v["event"], "renuncio", v["seat"]) for v in deal["violations"]]
            decisive_events += [(j, "tute", raw["events"][j]["seat"]) for j in tute_at]
            first = min(decisive_events) if decisive_events else None
            decisive = None if first is None else (first[1], first[2])
            totals = [s["total"] for s in scores]
            tricks = [s["tricks"] for s in scores]
            expected = reference.outcome(ruleset, players, opts, totals, tricks, last, decisive)
            got = outcome_of({"deals": [deal]})
            assert got == (expected["winners"], expected["losers"], expected["reason"]), (
                seed, deal["scores"], got, expected
            )  # fmt: skip
            # the match
            standing.record(expected, decisive)
            if standing.over:
                break
        match = out["match"]
        assert len(out["deals"]) == len(log["deals"])
        assert (match["over"], match["winners"], match["losers"]) == (
            standing.over, standing.winners, standing.losers
        )  # fmt: skip
        column, _ = reference.MATCH[ruleset]
        assert [s[column] for s in match["standings"]] == standing.counts[column]
