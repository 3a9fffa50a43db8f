"""The example logs of examples/: each replays and shows what its README line says.

The renuncios, the tute and the deal outcomes are re-derived here from docs/rules.md with a small
independent walk of the logs (plain card codes, no engine code), then compared with the referee.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import arbiter

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
ALL = sorted(p.name for p in EXAMPLES.glob("*.json"))


def load(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


def body(name: str) -> dict[str, Any]:
    return arbiter.replay(load(name)).to_dict()


# --- the rules, straight from docs/rules.md ------------------------------------------------------

#: §1: trick order, high to low, and card points.
TRICK_ORDER = [1, 3, 12, 11, 10, 7, 6, 5, 4, 2]
POINTS = {1: 11, 3: 10, 12: 4, 11: 3, 10: 2}
#: §1: French ranks and suits for "notation": "french".
FRENCH_RANK = {"A": 1, "J": 10, "Q": 11, "K": 12}
FRENCH_SUIT = {"D": "O", "H": "C", "S": "E", "C": "B"}
#: §6: cards per hand by ruleset and players; the rank removed from the pack.
HAND_SIZE = {
    ("tute-2p", 2): 8,
    ("tute-3p", 3): 12,
    ("tute-4p", 4): 10,
    ("tute-cabron", 3): 12,
    ("tute-gana-pierde", 3): 12,
    ("tute-gana-pierde", 4): 10,
    ("tute-gana-pierde", 5): 8,
}
REMOVED = {("tute-3p", 3): 2, ("tute-cabron", 3): 2, ("tute-gana-pierde", 3): 1}
CALLS = ("tute-cabron", "tute-gana-pierde")


def card(code: str, notation: str = "spanish") -> tuple[int, str]:
    """A code → (rank, Spanish suit letter)."""
    rank, suit = code[:-1].upper(), code[-1].upper()
    if notation == "french":
        return FRENCH_RANK.get(rank) or int(rank), FRENCH_SUIT[suit]
    return int(rank), suit


def stronger(a: tuple[int, str], b: tuple[int, str]) -> bool:
    """Same suit: ``a`` above ``b`` in trick order."""
    return TRICK_ORDER.index(a[0]) < TRICK_ORDER.index(b[0])


def beats(a: tuple[int, str], b: tuple[int, str], trump: str | None) -> bool:
    if a[1] == b[1]:
        return stronger(a, b)
    return a[1] == trump


def winning(trick: list[tuple[int, tuple[int, str]]], trump: str | None) -> tuple[int, Any]:
    seat, best = trick[0]
    for s, c in trick[1:]:
        if beats(c, best, trump):
            seat, best = s, c
    return seat, best


def correct_plays(hand: set[Any], trick: list[Any], trump: str | None) -> set[Any]:
    """§3 with the default options: asistir+montar, else fallar+pisar, else anything."""
    if not trick:
        return set(hand)
    led = trick[0][1][1]
    _, win = winning(trick, trump)
    follow = {c for c in hand if c[1] == led}
    if follow:
        if win[1] != led:  # a trump wins a non-trump lead: any card of the suit led
            return follow
        return {c for c in follow if stronger(c, win)} or follow
    trumps = {c for c in hand if c[1] == trump}
    if trump is None or not trumps:
        return set(hand)
    if win[1] == trump:
        return {c for c in trumps if stronger(c, win)} or trumps
    return trumps


def first_broken(played: tuple[int, str], hand: set[Any], trick: list[Any], trump: str | None):
    led = trick[0][1][1]
    if any(c[1] == led for c in hand):
        return "asistir" if played[1] != led else "montar"
    return "fallar" if played[1] != trump else "pisar"


@dataclass
class Moment:
    """The table just before event ``index``: hands, trick on the table, trump, who acts."""

    index: int
    event: dict[str, Any]
    hands: list[set[tuple[int, str]]]
    trick: list[tuple[int, tuple[int, str]]]
    trump: str | None
    turn: int
    strict: bool
    tricks_done: int
    last_winner: int | None


@dataclass
class Walk:
    moments: list[Moment] = field(default_factory=list)
    tricks_won: list[int] = field(default_factory=list)
    card_points: list[int] = field(default_factory=list)
    last_winner: int | None = None


def walk(log: dict[str, Any], d: int) -> Walk:
    """Replay deal ``d`` of ``log`` by hand (stops at the first event it cannot apply)."""
    ruleset, n = log["ruleset"], len(log["players"])
    notation = log.get("notation", "spanish")
    deal = log["deals"][d]
    dealer = deal.get("dealer", (n - 1 + d) % n)
    size = HAND_SIZE[(ruleset, n)]
    mano = (dealer + 1) % n
    if "deck" in deal:
        deck = [card(c, notation) for c in deal["deck"]]
        hands: list[set[Any]] = [set() for _ in range(n)]
        for i, c in enumerate(deck[: size * n]):
            hands[(mano + i) % n].add(c)
        stock = deck[size * n :] if ruleset == "tute-2p" else []
        shown = deck[-1]
    else:
        hands = [{card(c, notation) for c in h} for h in deal["hands"]]
        stock = [card(c, notation) for c in deal.get("stock", [])]
        shown = stock[-1] if stock else card(deal.get("trump_card", "1O"), "spanish")
        if "trump_card" in deal:
            shown = card(deal["trump_card"], notation)
    trump = None if ruleset in CALLS else shown[1]
    out = Walk(tricks_won=[0] * n, card_points=[0] * n)
    turn, trick, strict, calls, done = mano, [], ruleset != "tute-2p", 0, 0
    for j, ev in enumerate(deal["events"]):
        out.moments.append(
            Moment(j, ev, [set(h) for h in hands], list(trick), trump, turn, strict, done,
                   out.last_winner)
        )  # fmt: skip
        if ev["type"] == "exchange":
            seven = (7, trump)
            hands[ev["seat"]].remove(seven)
            hands[ev["seat"]].add(stock[-1])
            stock[-1] = seven
        if ev["type"] != "play":
            continue
        if ev["seat"] != turn:
            break
        c = card(ev["card"], notation)
        hands[turn].remove(c)
        trick.append((turn, c))
        turn = (turn + 1) % n
        if len(trick) < n:
            continue
        winner, _ = winning(trick, trump)
        cards = [c for _, c in trick]
        out.tricks_won[winner] += 1
        out.card_points[winner] += sum(POINTS.get(r, 0) for r, _ in cards)
        if ruleset in CALLS:
            for suit in sorted(
                {s for _, s in cards if (11, s) in cards and (12, s) in cards},
                key=lambda s: max(cards.index((11, s)), cards.index((12, s))),
            ):
                if calls == 0:
                    trump = suit
                calls += 1
        for k in range(n):
            if stock:
                hands[(winner + k) % n].add(stock.pop(0))
        strict = strict or not stock
        trick, turn, done = [], winner, done + 1
        out.last_winner = winner
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
    assert seen >= set(HAND_SIZE)
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
        mine = walk(log, d)
        scores = deal["scores"]
        assert [s["tricks"] for s in scores] == mine.tricks_won
        assert [s["card_points"] for s in scores] == mine.card_points
        for s in scores:
            assert s["total"] == s["card_points"] + s["cantes"] + s["last_trick"]
        if deal["outcome"]["reason"] != "tute":
            n = len(log["players"])
            removed = REMOVED.get((log["ruleset"], n))
            pack = 120 - (4 * POINTS.get(removed, 0) if removed else 0)
            assert sum(s["card_points"] for s in scores) == pack
            assert [s["last_trick"] for s in scores] == [
                10 if s == mine.last_winner else 0 for s in range(n)
            ]
            assert sum(c["points"] for c in deal["cantes"]) == sum(s["cantes"] for s in scores)


def expected_outcome(ruleset: str, totals: list[int], tricks: list[int], last: int):
    """§6 deal outcomes of a deal with no renuncio and no tute, from the scores alone."""
    n = len(totals)
    everyone = set(range(n))
    if ruleset == "tute-4p":
        sides = [totals[0] + totals[2], totals[1] + totals[3]]
        if sides[0] == sides[1]:
            return {last % 2, last % 2 + 2}, "last_trick"
        best = 0 if sides[0] > sides[1] else 1
        return {best, best + 2}, "points"
    if ruleset in ("tute-2p", "tute-3p"):
        top = [s for s in everyone if totals[s] == max(totals)]
        if len(top) == 1:
            return set(top), "points"
        return ({last}, "last_trick") if last in top else (set(top), "tie")
    tied = {s for s in everyone if totals.count(totals[s]) > 1}
    no_trick = {s for s in everyone if tricks[s] == 0}
    if ruleset == "tute-cabron":
        if no_trick:
            return everyone - no_trick, "no_tricks"
        over = {s for s in everyone if totals[s] > 100}
        if over:
            return everyone - over, "over_100"
        if tied:
            return everyone - tied, "tied"
        middle = sorted(everyone, key=totals.__getitem__)[1:-1]
        return everyone - set(middle), "middle"
    if no_trick:
        return everyone - no_trick, "no_tricks"
    extremes = {totals.index(max(totals)), totals.index(min(totals))}
    return extremes - tied, "tied" if tied else "extremes"


@pytest.mark.parametrize("name", ALL)
def test_outcomes_follow_the_rules(name: str) -> None:
    for log, d, deal in finished_deals(name):
        out = deal["outcome"]
        if out["reason"] in ("renuncio", "tute"):
            continue  # checked by hand below
        assert not deal["violations"]
        totals = [s["total"] for s in deal["scores"]]
        tricks = [s["tricks"] for s in deal["scores"]]
        last = walk(log, d).last_winner
        assert last is not None
        winners, reason = expected_outcome(log["ruleset"], totals, tricks, last)
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
            ok = correct_plays(hand, m.trick, m.trump)
            if played not in ok:
                flagged[m.index] = (
                    m.turn,
                    first_broken(played, hand, m.trick, m.trump),
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
    assert {c for c in copas if stronger(c, (3, "C"))} == {(1, "C")}  # ...and the as beats the 3
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
    assert {(11, s) for s in "OCEB"} <= m.hands[1]
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
    hands, trick = walk_after(log)
    assert [c for _, c in trick] == [(1, "B"), (11, "B")]
    ok = correct_plays(hands[3], trick, "C")
    assert ok == {(3, "B"), (10, "B")}
    moves = [(mv["type"], mv["seat"], mv["card"]) for mv in out["next"]["legal_moves"]]
    assert sorted(moves) == [("play", 3, "10B"), ("play", 3, "3B")]


def walk_after(log: dict[str, Any]) -> tuple[list[set[Any]], list[Any]]:
    """Hands and trick after the last event of the last deal (one more dummy step)."""
    padded = json.loads(json.dumps(log))
    padded["deals"][-1]["events"].append({"type": "sing", "seat": 0, "suit": "O"})
    m = walk(padded, len(log["deals"]) - 1).moments[-1]
    return m.hands, m.trick


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
