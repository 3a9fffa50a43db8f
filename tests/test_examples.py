"""The example logs of examples/: each replays and shows what its README line says.

The renuncios, the tute and the deal outcomes are re-derived from docs/rules.md by the reference
referee of :mod:`tests.reference` (plain cards, no engine code), walking each log event by
event, then compared with the referee.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import arbiter
from tests import reference
from tests.reference import Card, beats, broken_obligation, card, correct_plays

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ALL = sorted(p.name for p in EXAMPLES.glob("*.json"))


def load(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


def body(name: str) -> dict[str, Any]:
    return arbiter.replay(load(name)).to_dict()


# --- a walk of a log by the reference referee ---------------------------------------------------


@dataclass
class Moment:
    """The table just before event ``index``: hands, trick on the table, trump, who acts and
    the plays correct for them (docs/rules.md §3 with the log's options)."""

    index: int
    event: dict[str, Any]
    hands: list[set[Card]]
    trick: list[reference.Play]
    trump: str | None
    turn: int
    strict: bool
    tricks_done: int
    last_winner: int | None
    correct: set[Card]


@dataclass
class Walk:
    deal: reference.Deal
    moments: list[Moment] = field(default_factory=list)


def walk(log: dict[str, Any], d: int) -> Walk:
    """Replay deal ``d`` of ``log`` by the reference (stops at the first illegal event)."""
    notation = log.get("notation", "spanish")
    out = Walk(reference.deal_of(log, d))
    deal = out.deal
    for j, ev in enumerate(log["deals"][d]["events"]):
        turn = deal.turn()
        out.moments.append(
            Moment(j, ev, [set(h) for h in deal.hands], list(deal.trick), deal.trump, turn,
                   deal.strict, len(deal.tricks), deal.last_winner,
                   set() if deal.over else deal.correct(turn))
        )  # fmt: skip
        event = reference.event_of(ev, notation)
        if deal.illegal(*event) is not None:
            break
        deal.apply(*event, j)
    return out


def moment(log: dict[str, Any], d: int, event: int) -> Moment:
    return walk(log, d).moments[event]


# --- every example -----------------------------------------------------------------------------

STATUS = {
    "tute-2p-illegal.json": "invalid",
    "tute-4p-in-progress.json": "in_progress",
}


def test_there_is_an_example_of_every_ruleset_and_player_count() -> None:
    seen = {(load(n)["ruleset"], len(load(n)["players"])) for n in ALL}
    assert seen >= set(reference.TABLES)
    assert any(load(n).get("notation") == "french" for n in ALL)
    for n in ALL:
        assert set(load(n)["players"]) <= {"ana", "bea", "carlos", "dani", "eva"}


@pytest.mark.parametrize("name", ALL)
def test_example_replays(name: str) -> None:
    log = load(name)
    assert isinstance(log["description"], str) and log["description"]
    out = body(name)
    assert out["status"] == STATUS.get(name, "complete")
    assert (out["illegal"] is not None) == (out["status"] == "invalid")
    assert (out["next"] is not None) == (out["status"] == "in_progress")
    assert len(out["deals"]) == len(log["deals"])


@pytest.mark.parametrize("name", ALL)
def test_description_is_ignored(name: str) -> None:
    log = load(name)
    bare = {k: v for k, v in log.items() if k != "description"}
    assert arbiter.replay(log).to_dict() == arbiter.replay(bare).to_dict()
    assert arbiter.replay(log).to_dict("es") == arbiter.replay(bare).to_dict("es")


def finished_deals(name: str) -> Iterator[tuple[dict[str, Any], int, dict[str, Any]]]:
    log = load(name)
    for d, deal in enumerate(body(name)["deals"]):
        if deal["outcome"] is not None:
            yield log, d, deal


@pytest.mark.parametrize("name", ALL)
def test_points_and_tricks_match_a_hand_count(name: str) -> None:
    """Tricks and card points by hand; a deal played out holds the whole pack's points."""
    for log, d, deal in finished_deals(name):
        mine = walk(log, d).deal
        scores = deal["scores"]
        n = len(log["players"])
        assert [s["tricks"] for s in scores] == [mine.tricks_won(s) for s in range(n)]
        assert [s["card_points"] for s in scores] == [mine.card_points(s) for s in range(n)]
        for s in scores:
            assert s["total"] == s["card_points"] + s["cantes"] + s["last_trick"]
        if deal["outcome"]["reason"] != "tute":
            pack = reference.pack_points(log["ruleset"], n)
            assert sum(s["card_points"] for s in scores) == pack
            assert [s["last_trick"] for s in scores] == [
                10 if s == mine.last_winner else 0 for s in range(n)
            ]
            assert sum(c["points"] for c in deal["cantes"]) == sum(s["cantes"] for s in scores)


@pytest.mark.parametrize("name", ALL)
def test_outcomes_follow_the_rules(name: str) -> None:
    for log, d, deal in finished_deals(name):
        out = deal["outcome"]
        if out["reason"] in ("renuncio", "tute"):
            continue  # checked by hand below
        assert not deal["violations"]
        totals = [s["total"] for s in deal["scores"]]
        tricks = [s["tricks"] for s in deal["scores"]]
        last = walk(log, d).deal.last_winner
        assert last is not None
        n, opts = len(totals), reference.options(log)
        expected = reference.outcome(log["ruleset"], n, opts, totals, tricks, last, None)
        winners, reason = set(expected["winners"]), expected["reason"]
        assert (set(out["winners"]), out["reason"]) == (winners, reason)
        assert set(out["losers"]) == set(range(len(totals))) - winners


@pytest.mark.parametrize("name", ALL)
def test_every_renuncio_and_only_renuncios_are_flagged(name: str) -> None:
    """Every strict play re-judged by §3: the referee flags exactly the plays outside it,
    with the obligation first broken and the cards that were correct."""
    log = load(name)
    notation = log.get("notation", "spanish")
    for d, deal in enumerate(body(name)["deals"]):
        flagged = {}
        for m in walk(log, d).moments:
            if m.event["type"] != "play" or not m.trick or not m.strict:
                continue
            if m.event["seat"] != m.turn:
                break
            played = card(m.event["card"], notation)
            hand = m.hands[m.turn]
            ok = m.correct
            if played not in ok:
                flagged[m.index] = (
                    m.turn,
                    broken_obligation(hand, m.trick, m.trump, played),
                    sorted(ok),
                )
        got = {
            v["event"]: (
                v["seat"],
                v["obligation"],
                sorted(card(c, notation) for c in v["correct"]),
            )
            for v in deal["violations"]
        }
        assert got == flagged


# --- tute-2p: the whole match ----------------------------------------------------------------

MATCH_2P = "tute-2p-match.json"


def test_2p_match_uses_both_deal_forms() -> None:
    deals = load(MATCH_2P)["deals"]
    assert ["deck" in d for d in deals] == [False, True, False, True, False]
    assert all("stock" in d for d in deals if "hands" in d)
    assert load(MATCH_2P)["options"] == {"match_target": 3}


def test_2p_match_is_won_three_deals_to_two() -> None:
    out = body(MATCH_2P)
    reasons = [d["outcome"]["reason"] for d in out["deals"]]
    assert reasons == ["points", "points", "renuncio", "points", "tute"]
    winners = [d["outcome"]["winners"] for d in out["deals"]]
    assert winners == [[1], [1], [0], [0], [1]]
    # bea reaches match_target 3 only in the last deal, so the log is exactly a full match.
    assert [s["deals_won"] for s in out["match"]["standings"]] == [2, 3]
    assert out["match"] | {"standings": None} == {
        "standings": None,
        "over": True,
        "winners": [1],
        "losers": [0],
    }
    assert out["status"] == "complete"
    assert sum(len(d["cantes"]) for d in out["deals"]) >= 1
    assert sum(len(d["exchanges"]) for d in out["deals"]) >= 1


def test_2p_renuncio_by_hand() -> None:
    """Deal 3, event 30: ana leads the 3 of copas (trumps) with the stock exhausted; bea
    holds the as and the caballo de copas (the as beats the 3) and plays the as de bastos: a
    renuncio of asistir (§3), and the deal goes to ana although bea has more points (§7)."""
    log = load(MATCH_2P)
    m = moment(log, 2, 30)
    assert m.event == {"type": "play", "seat": 1, "card": "1B"}
    assert m.strict and m.turn == 1  # stock exhausted: strict play
    assert m.trump == "C"
    assert m.trick == [(0, (3, "C"))]
    hand = m.hands[1]
    assert (1, "B") in hand
    copas = {c for c in hand if c[1] == "C"}
    assert copas == {(1, "C"), (11, "C")}  # she held the suit led...
    assert {c for c in copas if beats(c, (3, "C"), "C")} == {(1, "C")}  # ...and the as beats the 3
    deal = body(MATCH_2P)["deals"][2]
    (v,) = deal["violations"]
    assert (v["event"], v["seat"], v["card"], v["kind"]) == (30, 1, "1B", "renuncio")
    assert (v["obligation"], v["correct"], v["trick"]) == ("asistir", ["1C"], 14)
    totals = [s["total"] for s in deal["scores"]]
    assert totals[1] > totals[0]  # whatever the score
    assert deal["outcome"]["reason"] == "renuncio"
    assert (deal["outcome"]["winners"], deal["outcome"]["losers"]) == ([0], [1])
    assert len(deal["tricks"]) == 20  # the card stays on the table and the deal goes on


def test_2p_tute_by_hand() -> None:
    """Deal 5: bea wins trick 7 and, on her lead, shows the four horses: the deal is hers
    at once, although ana has 31 points and she has none (§4)."""
    log = load(MATCH_2P)
    events = log["deals"][4]["events"]
    assert events[-1] == {"type": "tute", "seat": 1, "of": "horses"}
    m = moment(log, 4, len(events) - 1)
    assert m.trick == [] and m.turn == 1 and m.last_winner == 1  # on lead
    assert {(11, s) for s in reference.SUITS} <= m.hands[1]
    deal = body(MATCH_2P)["deals"][4]
    assert len(deal["tricks"]) == m.tricks_done == 7  # the deal ended at once
    assert deal["finished"] is True
    assert [s["total"] for s in deal["scores"]] == [31, 0]
    assert deal["outcome"]["reason"] == "tute"
    assert (deal["outcome"]["winners"], deal["outcome"]["losers"]) == ([1], [0])
    assert deal["stock_left"] > 0


# --- the other rulesets --------------------------------------------------------------------------


def test_3p_cantes() -> None:
    (deal,) = body("tute-3p.json")["deals"]
    assert deal["trump"] == "C"
    assert [(c["suit"], c["points"]) for c in deal["cantes"]] == [("C", 40), ("O", 20)]
    assert deal["outcome"]["reason"] == "points" and deal["outcome"]["winners"] == [2]
    assert not deal["violations"]


def test_4p_renuncio_by_hand() -> None:
    """Deal 2, event 30: espadas are led; ana has no espada but holds trumps (oros) and plays
    the 4 of copas: a renuncio of fallar. Her side had more points; bea and dani win."""
    log = load("tute-4p-renuncio.json")
    assert "deck" in log["deals"][1]
    m = moment(log, 1, 30)
    assert m.event == {"type": "play", "seat": 0, "card": "4C"}
    assert m.trump == "O" and m.trick[0][1][1] == "E"
    hand = m.hands[0]
    assert not any(c[1] == "E" for c in hand)
    assert {c for c in hand if c[1] == "O"} == {(4, "O"), (5, "O")}
    out = body("tute-4p-renuncio.json")
    first, second = out["deals"]
    assert not first["violations"] and first["outcome"]["reason"] == "points"
    (v,) = second["violations"]
    assert (v["event"], v["seat"], v["card"]) == (30, 0, "4C")
    assert (v["obligation"], v["correct"]) == ("fallar", ["4O", "5O"])
    sides = {tuple(s["seats"]): s["total"] for s in second["sides"]}
    assert sides[(0, 2)] > sides[(1, 3)]
    assert second["outcome"]["reason"] == "renuncio"
    assert (second["outcome"]["winners"], second["outcome"]["losers"]) == ([1, 3], [0, 2])
    assert [s["deals_won"] for s in out["match"]["standings"]] == [0, 2, 0, 2]
    assert out["match"]["over"] is False


def test_4p_in_progress() -> None:
    log = load("tute-4p-in-progress.json")
    out = body("tute-4p-in-progress.json")
    assert out["status"] == "in_progress"
    assert out["deals"][0]["outcome"] is None and out["deals"][0]["finished"] is False
    assert out["next"]["seat"] == 3 and out["next"]["player"] == "dani"
    # dani's correct plays, by §3: bastos led by the as, no bastos can beat it.
    deal = walk(log, len(log["deals"]) - 1).deal  # after the last event
    hands, trick = deal.hands, deal.trick
    assert [c for _, c in trick] == [(1, "B"), (11, "B")]
    ok = correct_plays(hands[3], trick, "C")
    assert ok == {(3, "B"), (10, "B")}
    moves = [(mv["type"], mv["seat"], mv["card"]) for mv in out["next"]["legal_moves"]]
    assert sorted(moves) == [("play", 3, "10B"), ("play", 3, "3B")]


def test_cabron_match_to_loser_target() -> None:
    out = body("tute-cabron-match.json")
    assert "options" not in load("tute-cabron-match.json")  # loser_target: the default 4
    reasons = [d["outcome"]["reason"] for d in out["deals"]]
    assert reasons == ["no_tricks", "tied", "over_100", "middle"]
    losers = [d["outcome"]["losers"] for d in out["deals"]]
    assert losers == [[0], [0, 2], [0], [0]]
    # §6: a player with no trick loses even if another passed 100.
    first = out["deals"][0]["scores"]
    assert first[0]["tricks"] == 0 and first[2]["total"] > 100
    assert [s["loser_points"] for s in out["match"]["standings"]] == [4, 0, 1]
    assert out["match"]["over"] is True
    assert (out["match"]["winners"], out["match"]["losers"]) == ([1, 2], [0])


def test_gana_pierde_3p_match_two_winners() -> None:
    log = load("tute-gana-pierde-3p-match.json")
    dealt = [c for d in log["deals"] for hand in d["hands"] for c in hand]
    assert len(dealt) == 4 * 36
    assert not [c for c in dealt if card(c)[0] == 1]  # §6: with 3 players the aces are removed
    out = body("tute-gana-pierde-3p-match.json")
    assert [d["outcome"]["winners"] for d in out["deals"]] == [[1, 2], [0, 2], [0, 1], [0, 2]]
    assert [s["tokens"] for s in out["match"]["standings"]] == [3, 2, 3]
    assert out["match"]["over"] is True
    assert (out["match"]["winners"], out["match"]["losers"]) == ([0, 2], [1])


def test_gana_pierde_4p_calls() -> None:
    (deal,) = body("tute-gana-pierde-4p.json")["deals"]
    assert [(c["suit"], c["points"]) for c in deal["cantes"]] == [("O", 40), ("B", 20)]
    assert deal["trump"] == "O"
    assert deal["outcome"]["winners"] == [0, 2]
    assert deal["scores"][0]["total"] == 0 and deal["scores"][0]["tricks"] == 1


def test_gana_pierde_5p_french() -> None:
    name = "tute-gana-pierde-5p-french.json"
    log = load(name)
    assert log["notation"] == "french" and len(log["players"]) == 5
    out = body(name)
    (deal,) = out["deals"]
    assert deal["trump"] == "H"
    assert [(c["suit"], c["points"]) for c in deal["cantes"]] == [("H", 40), ("C", 20), ("S", 20)]
    played = [p["card"] for t in deal["tricks"] for p in t["plays"]]
    assert played == [e["card"] for e in log["deals"][0]["events"]]
    assert any(c[0] in "JQKA" for c in played)
    # The same game in Spanish codes scores the same.
    spanish = json.loads(json.dumps(log))
    del spanish["notation"]

    def es(code: str) -> str:
        rank, suit = card(code, "french")
        return f"{rank}{suit}"

    spanish["deals"][0]["hands"] = [[es(c) for c in h] for h in log["deals"][0]["hands"]]
    for e in spanish["deals"][0]["events"]:
        e["card"] = es(e["card"])
    other = arbiter.replay(spanish).to_dict()
    assert other["deals"][0]["scores"] == deal["scores"]
    assert other["deals"][0]["outcome"]["winners"] == deal["outcome"]["winners"] == [0, 3]
    assert other["deals"][0]["trump"] == "C"


def test_illegal_example() -> None:
    log = load("tute-2p-illegal.json")
    out = body("tute-2p-illegal.json")
    assert out["status"] == "invalid"
    ill = out["illegal"]
    assert (ill["deal"], ill["event"], ill["code"]) == (0, 8, "out_of_turn")
    assert "bea" in ill["message"] and "ana" in ill["message"]
    m = moment(log, 0, 8)
    assert m.trick == [] and m.last_winner == 0 and m.turn == 0
    assert log["deals"][0]["events"][8]["seat"] == 1
    assert len(out["deals"][0]["tricks"]) == 4  # the play up to that event
    assert out["deals"][0]["outcome"] is None and out["next"] is None
