"""Play obligations (docs/rules.md §3): asistir, montar, fallar, pisar, contrafallar, and renuncio.

Two levels: the pure functions ``obligations.correct_plays`` / ``broken_obligation`` on hands
given as card codes, and whole logs replayed through ``arbiter.replay`` / ``arbiter.validate``
whose deals are built here with exact hands (helpers below). Every expected correct set and
obligation name is derived by hand from docs/rules.md §3; random games are compared with the
reference referee of :mod:`tests.reference`.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import arbiter
from arbiter.engine.cards import cards_of, format_card, parse_card, parse_suit
from arbiter.engine.obligations import (
    NO_TRUMP,
    Obligation,
    beats,
    broken_obligation,
    correct_plays,
)
from arbiter.simulate import random_log
from tests import reference
from tests.hand_built import exhausted_2p, finish, log_of, pack, play, run, with_events
from tests.reference import SUITS

OROS, COPAS, ESPADAS, BASTOS = (parse_suit(s) for s in SUITS)


# --- helpers -----------------------------------------------------------------------------------


def mask(codes: str) -> int:
    out = 0
    for code in codes.split():
        out |= 1 << parse_card(code)
    return out


def codes(m: int) -> set[str]:
    return {format_card(c) for c in cards_of(m)}


def keyed_hands(
    keys: list[str], size: int, full_suits: str, removed: int | None = None
) -> list[list[str]]:
    """Hands holding exactly the given key cards of ``full_suits`` (every card of those suits
    must be placed by the caller, so who holds what in them is exact), padded with the other
    suits' cards in pack order."""
    hands = [k.split() for k in keys]
    placed = [c for h in hands for c in h]
    assert len(placed) == len(set(placed)), "a key card placed twice"
    the_pack = pack(removed)
    for card in the_pack:
        if card[-1] in full_suits:
            assert card in placed, f"{card} not placed"
    rest = [c for c in the_pack if c not in placed]
    for hand in hands:
        while len(hand) < size:
            hand.append(rest.pop(0))
        assert len(hand) == size
    assert not rest
    return hands


def log4(
    keys: list[str],
    events: list[dict[str, Any]],
    *,
    trump_card: str = "12B",
    full_suits: str = "OB",
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """tute-4p, dealer 3 (so seat 0 is mano and leads), trump = suit of ``trump_card``."""
    hands = keyed_hands(keys, 10, full_suits)
    assert trump_card in hands[3]
    deal = {"dealer": 3, "hands": hands, "trump_card": trump_card, "events": events}
    return log_of("tute-4p", 4, [deal], **(options or {}))


def log3(
    ruleset: str,
    keys: list[str],
    events: list[dict[str, Any]],
    *,
    full_suits: str,
    trump_card: str | None = None,
) -> dict[str, Any]:
    """A 3-player deal without the 2s (tute-3p, cabrón), dealer 2 (seat 0 leads)."""
    hands = keyed_hands(keys, 12, full_suits, removed=2)
    deal: dict[str, Any] = {"dealer": 2, "hands": hands, "events": events}
    if trump_card is not None:
        deal["trump_card"] = trump_card
    return log_of(ruleset, 3, [deal])


def violations(log: dict[str, Any]) -> list[tuple[int, int, str, str, set[str]]]:
    out = run(log)
    assert out["status"] != "invalid", out["illegal"]
    return [
        (v["event"], v["seat"], v["card"], v["obligation"], set(v["correct"]))
        for v in out["deals"][-1]["violations"]
    ]


def verdict(log: dict[str, Any], move: dict[str, Any]) -> dict[str, Any]:
    return arbiter.validate(log, move).to_dict()


def assert_judged(
    log: dict[str, Any], move: dict[str, Any], obligation: str | None, correct: set[str]
) -> None:
    """``move`` after the log's events: a renuncio of ``obligation`` (or ok), with the
    correct plays ``correct`` both in validate and in replay."""
    body = verdict(log, move)
    legal_plays = {m["card"] for m in body["legal_moves"] if m["type"] == "play"}
    assert legal_plays == correct
    events = log["deals"][-1]["events"]
    after = with_events(log, [move])
    if obligation is None:
        assert body["verdict"] == "ok"
        assert body["legal"] is True
        assert violations(after) == []
    else:
        assert body["verdict"] == "renuncio"
        assert body["legal"] is False
        assert body["obligation"] == obligation
        assert body["code"] is None
        assert set(body["correct"]) == correct
        assert violations(after) == [(len(events), move["seat"], move["card"], obligation, correct)]


# --- pure functions: correct_plays and broken_obligation -----------------------------------

# (hand, led suit, winning card, trump, relieved, must trump anyway, correct, {bad: obligation})
PURE_CASES = [
    # asistir + montar: beat the 4 with the 6; the 2 does not beat it
    ("2O 6O 1B 4C", OROS, "4O", BASTOS, False, True, "6O",
     {"1B": "asistir", "4C": "asistir", "2O": "montar"}),
    # montar beats the card currently winning (the sota), not only the card led
    ("6O 12O 5C", OROS, "10O", BASTOS, False, True, "12O", {"6O": "montar", "5C": "asistir"}),
    # cannot beat the winning card: any card of the suit led
    ("6O 7O 5C", OROS, "10O", BASTOS, False, True, "6O 7O", {"5C": "asistir"}),
    ("3O 12O 1B", OROS, "1O", BASTOS, False, True, "3O 12O", {"1B": "asistir"}),
    # the three beats the king
    ("3O 6O", OROS, "12O", BASTOS, False, True, "3O", {"6O": "montar"}),
    # a trump wins a non-trump lead: any card of the suit led is correct
    ("6O 12O 1B", OROS, "2B", BASTOS, False, True, "6O 12O", {"1B": "asistir"}),
    # fallar: void in the suit led, no trump in the trick yet: any trump
    ("5B 1B 1C", OROS, "4O", BASTOS, False, True, "5B 1B", {"1C": "fallar"}),
    # pisar: overtrump the highest trump in the trick
    ("4B 10B 1B 1C", OROS, "6B", BASTOS, False, True, "10B 1B", {"4B": "pisar", "1C": "fallar"}),
    # cannot overtrump: still a trump by default ...
    ("4B 5B 1C", OROS, "1B", BASTOS, False, True, "4B 5B", {"1C": "fallar"}),
    # ... any card with trump_when_cannot_overtrump = false
    ("4B 5B 1C", OROS, "1B", BASTOS, False, False, "4B 5B 1C", {}),
    # trump_when_cannot_overtrump does not relieve a player who can overtrump
    ("4B 12B 1C", OROS, "10B", BASTOS, False, False, "12B", {"4B": "pisar", "1C": "fallar"}),
    # contrafallar: neither the suit led nor trump
    ("1C 3E 12E", OROS, "4O", BASTOS, False, True, "1C 3E 12E", {}),
    ("1C 3E", OROS, "6B", BASTOS, False, True, "1C 3E", {}),
    # trump led: follow in trumps and beat the highest
    ("4B 7B 3O", BASTOS, "5B", BASTOS, False, True, "7B", {"4B": "montar", "3O": "asistir"}),
    ("2B 4B 3O", BASTOS, "5B", BASTOS, False, True, "2B 4B", {"3O": "asistir"}),
    # trump led, void in trumps: any card
    ("1O 1C", BASTOS, "5B", BASTOS, False, True, "1O 1C", {}),
    # no trump yet (cabrón / gana-pierde before the first call): asistir and montar only
    ("1C 3E 12B", OROS, "4O", NO_TRUMP, False, True, "1C 3E 12B", {}),
    ("6O 2O 1C", OROS, "4O", NO_TRUMP, False, True, "6O", {"2O": "montar", "1C": "asistir"}),
    # partner relief: asistir still applies, montar / fallar / pisar do not
    ("6O 12O 1B", OROS, "10O", BASTOS, True, True, "6O 12O", {"1B": "asistir"}),
    ("1C 5B", OROS, "1O", BASTOS, True, True, "1C 5B", {}),
    ("1C 1B 2B", OROS, "5B", BASTOS, True, True, "1C 1B 2B", {}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("hand", "led", "winning", "trump", "relieved", "must", "correct", "bad"), PURE_CASES
)
def test_correct_plays_and_broken_obligation(
    hand: str,
    led: int,
    winning: str,
    trump: int,
    relieved: bool,
    must: bool,
    correct: str,
    bad: dict[str, str],
) -> None:
    result = correct_plays(mask(hand), led, parse_card(winning), trump, relieved, must)
    assert codes(result) == set(correct.split())
    for card, obligation in bad.items():
        assert not result >> parse_card(card) & 1
        broken = broken_obligation(parse_card(card), mask(hand), led, trump)
        assert broken == Obligation(obligation)
        assert broken.value == obligation
    # every card outside the correct set has been named
    assert set(hand.split()) - set(correct.split()) == set(bad)


def test_obligation_names() -> None:
    assert {o.value for o in Obligation} == {"asistir", "montar", "fallar", "pisar"}


# --- seed 002's worked example -----------------------------------------------------------


def test_seed_002_example_pure() -> None:
    # "si la primera carta jugada ha sido un 5 de Oros y vida o arrastre es Copas":
    led = parse_card("5O")
    assert beats(parse_card("6O"), led, COPAS)  # seis de oros: gana
    assert not beats(parse_card("4O"), led, COPAS)  # cuatro de oros: pierde
    assert beats(parse_card("2C"), led, COPAS)  # dos de copas: gana, por ser triunfo
    # The seed says "Nueve de bastos", but the Spanish 40-card pack has no 9: any bastos card
    # shows the same thing (neither the suit led nor trump); we use the siete de bastos.
    assert not beats(parse_card("7B"), led, COPAS)


@pytest.mark.parametrize(
    ("second", "keys", "third", "fourth", "winner"),
    [
        # 6 de oros wins: bea holds only the 6 in oros, beats the 5 (montar is met)
        ("6O", ["1O 3O 5O 7O 10O 11O 12O 1C 3C", "6O", "",
                "2O 4O 2C 4C 5C 6C 7C 10C 11C 12C"], "1B", "2O", 1),
        # 4 de oros loses: bea cannot beat the 5, any oros is correct
        ("4O", ["1O 3O 5O 6O 7O 10O 11O 12O 1C", "4O", "",
                "2O 2C 3C 4C 5C 6C 7C 10C 11C 12C"], "1B", "2O", 0),
        # 2 de copas wins as trump: bea void in oros must trump (fallar)
        ("2C", ["1O 3O 5O 6O 7O 10O 11O 12O 1C", "2C", "",
                "2O 4O 3C 4C 5C 6C 7C 10C 11C 12C"], "1B", "4O", 1),
        # a bastos card (the seed's "nueve de bastos"; the pack has no 9, we use the 7) loses
        ("7B", ["1O 3O 5O 6O 7O 10O 11O 12O 1C 2C", "7B", "",
                "2O 4O 3C 4C 5C 6C 7C 10C 11C 12C"], "1B", "2O", 0),
    ],
)  # fmt: skip
def test_seed_002_example_replayed(
    second: str, keys: list[str], third: str, fourth: str, winner: int
) -> None:
    # tute-4p, copas trump (the dealer's shown card is the rey de copas); carla holds no oros
    # and no copas, so she plays any card.
    events = [play(0, "5O"), play(1, second), play(2, third), play(3, fourth)]
    log = log4(keys, events, trump_card="12C", full_suits="OC")
    out = run(log)
    assert out["status"] == "in_progress"
    deal = out["deals"][0]
    assert deal["trump"] == "C"
    assert deal["violations"] == []
    trick = deal["tricks"][0]
    assert [p["card"] for p in trick["plays"]] == ["5O", second, third, fourth]
    assert trick["winner"] == winner
    assert out["next"]["seat"] == winner


# --- tute-4p replays: one obligation at a time ----------------------------------------------

# Every case: trump bastos (the dealer dani shows the rey de bastos), ana (seat 0) leads; each
# seat's oros and bastos are exact, the other suits are padding. ``before`` are the plays
# before the judged one; ``cases`` maps a judged card to (obligation or None).

ASISTIR = dict(
    keys=["4O 1O 3O 5O 7O 10O 11O 12O", "2O 6O 1B", "2B 3B 4B", "5B 6B 7B 10B 11B 12B"],
    before=[play(0, "4O")],
    seat=1,
    correct={"6O"},
    cases={"1B": "asistir", "2O": "montar", "6O": None},
)
MONTAR_WINNING = dict(
    keys=["4O 1O 2O 3O 5O", "10O 7O 11O", "6O 12O 1B", "2B 3B 4B 5B 6B 7B 10B 11B 12B"],
    before=[play(0, "4O"), play(1, "10O")],
    seat=2,
    correct={"12O"},
    cases={"6O": "montar", "1B": "asistir", "12O": None},
)
TRUMPED_NON_TRUMP_LEAD = dict(
    keys=["4O 1O 2O 3O 5O 7O 10O 11O", "2B", "6O 12O 1B", "3B 4B 5B 6B 7B 10B 11B 12B"],
    before=[play(0, "4O"), play(1, "2B")],
    seat=2,
    correct={"6O", "12O"},
    cases={"1B": "asistir", "6O": None, "12O": None},
)
FALLAR = dict(
    keys=["1O 2O 3O 4O 5O 6O 7O 10O 11O 12O", "5B 1B", "", "2B 3B 4B 6B 7B 10B 11B 12B"],
    before=[play(0, "4O")],
    seat=1,
    correct={"5B", "1B"},
    cases={"1C": "fallar", "10C": "fallar", "5B": None, "1B": None},
)
PISAR = dict(
    keys=["1O 2O 3O 4O 5O 6O 7O 10O 11O 12O", "6B", "4B 10B 1B", "2B 3B 5B 7B 11B 12B"],
    before=[play(0, "4O"), play(1, "6B")],
    seat=2,
    correct={"10B", "1B"},
    cases={"4B": "pisar", "1E": "fallar", "10B": None, "1B": None},
)
CANNOT_OVERTRUMP = dict(
    keys=["1O 2O 3O 4O 5O 6O 7O 10O 11O 12O", "1B", "4B 5B", "2B 3B 6B 7B 10B 11B 12B"],
    before=[play(0, "4O"), play(1, "1B")],
    seat=2,
    correct={"4B", "5B"},
    cases={"1E": "fallar", "4B": None, "5B": None},
)
TRUMP_LED = dict(
    keys=["5B 1O 2O 4O 5O 6O 7O 10O 11O 12O", "4B 7B 3O", "", "1B 2B 3B 6B 10B 11B 12B"],
    before=[play(0, "5B")],
    seat=1,
    correct={"7B"},
    cases={"4B": "montar", "3O": "asistir", "7B": None},
)


@pytest.mark.parametrize(
    "case",
    [ASISTIR, MONTAR_WINNING, TRUMPED_NON_TRUMP_LEAD, FALLAR, PISAR, CANNOT_OVERTRUMP, TRUMP_LED],
    ids=[
        "asistir",
        "montar-winning",
        "trumped",
        "fallar",
        "pisar",
        "cannot-overtrump",
        "trump-led",
    ],
)
def test_obligation_replayed(case: dict[str, Any]) -> None:
    log = log4(case["keys"], list(case["before"]))
    hand = set(log["deals"][0]["hands"][case["seat"]])
    for card, obligation in case["cases"].items():
        assert card in hand, card
        move = play(case["seat"], card)
        assert_judged(log, move, obligation, case["correct"])


def test_cannot_overtrump_option_off_lets_any_card() -> None:
    log = log4(CANNOT_OVERTRUMP["keys"], list(CANNOT_OVERTRUMP["before"]),
               options={"trump_when_cannot_overtrump": False})  # fmt: skip
    hand = set(log["deals"][0]["hands"][2])
    assert {"4B", "5B", "1E"} <= hand
    for card in ("1E", "4B", "5B"):
        assert_judged(log, play(2, card), None, hand)


def test_cannot_overtrump_option_off_still_pisar_when_able() -> None:
    log = log4(PISAR["keys"], list(PISAR["before"]),
               options={"trump_when_cannot_overtrump": False})  # fmt: skip
    assert_judged(log, play(2, "4B"), "pisar", {"10B", "1B"})
    assert_judged(log, play(2, "1E"), "fallar", {"10B", "1B"})


def test_contrafallar_any_card() -> None:
    # bea holds neither oros nor bastos: every card of her hand is correct.
    keys = ["1O 2O 3O 4O 5O 6O 7O 10O 11O 12O", "", "", "1B 2B 3B 4B 5B 6B 7B 10B 11B 12B"]
    log = log4(keys, [play(0, "4O")])
    hand = set(log["deals"][0]["hands"][1])
    assert all(c[-1] in "CE" for c in hand)
    for card in sorted(hand)[:4]:
        assert_judged(log, play(1, card), None, hand)


# --- partner relief (tute-4p) --------------------------------------------------------------

RELIEF = {"partner_relief": True}
# ana leads the as de oros (winning), bea follows, carla (ana's partner) is void in oros.
PARTNER_WINS_VOID = ["1O 2O 3O 5O 6O 7O", "4O 10O 11O 12O", "5B 7B", "1B 2B 3B 4B 6B 10B 11B 12B"]
# the same but carla holds the 6 de oros.
PARTNER_WINS_FOLLOW = ["1O 2O 3O 5O 7O", "4O 10O 11O 12O", "6O 5B 7B",
                       "1B 2B 3B 4B 6B 10B 11B 12B"]  # fmt: skip
# ana leads the sota, bea follows low, carla holds rey and 6.
PARTNER_WINS_MONTAR = ["10O 1O 2O 3O 11O", "4O 5O 7O", "12O 6O", "1B 2B 3B 4B 5B 6B 7B 10B 11B 12B"]
# ana leads the 4, bea (opponent) wins with the sota, carla holds rey and 6.
OPPONENT_WINS = ["4O 1O 2O 3O 5O", "10O 7O 11O", "12O 6O", "1B 2B 3B 4B 5B 6B 7B 10B 11B 12B"]
# ana leads the 4, bea trumps with the 5, carla follows, dani (bea's partner) could overtrump.
PARTNER_TRUMPS = ["4O 1O 2O 3O 5O 7O 10O", "5B 6B 7B", "6O 11O 12O", "1B 2B 3B 4B 10B 11B 12B"]


def test_partner_relief_off_by_default_fallar_due() -> None:
    log = log4(PARTNER_WINS_VOID, [play(0, "1O"), play(1, "4O")])
    assert_judged(log, play(2, "1E"), "fallar", {"5B", "7B"})


def test_partner_relief_on_frees_void_player() -> None:
    log = log4(PARTNER_WINS_VOID, [play(0, "1O"), play(1, "4O")], options=RELIEF)
    hand = set(log["deals"][0]["hands"][2])
    assert_judged(log, play(2, "1E"), None, hand)
    assert_judged(log, play(2, "5B"), None, hand)


@pytest.mark.parametrize("options", [None, RELIEF])
def test_partner_relief_asistir_still_applies(options: dict[str, Any] | None) -> None:
    log = log4(PARTNER_WINS_FOLLOW, [play(0, "1O"), play(1, "4O")], options=options)
    assert_judged(log, play(2, "5B"), "asistir", {"6O"})


def test_partner_relief_montar() -> None:
    events = [play(0, "10O"), play(1, "4O")]
    assert_judged(log4(PARTNER_WINS_MONTAR, events), play(2, "6O"), "montar", {"12O"})
    relieved = log4(PARTNER_WINS_MONTAR, events, options=RELIEF)
    assert_judged(relieved, play(2, "6O"), None, {"6O", "12O"})


def test_partner_relief_only_when_the_partner_is_winning() -> None:
    log = log4(OPPONENT_WINS, [play(0, "4O"), play(1, "10O")], options=RELIEF)
    assert_judged(log, play(2, "6O"), "montar", {"12O"})


def test_partner_relief_pisar() -> None:
    events = [play(0, "4O"), play(1, "5B"), play(2, "6O")]
    over = {"10B", "11B", "12B", "3B", "1B"}  # dani's trumps above the 5
    log = log4(PARTNER_TRUMPS, events)
    assert_judged(log, play(3, "2B"), "pisar", over)
    assert_judged(log, play(3, "10E"), "fallar", over)
    relieved = log4(PARTNER_TRUMPS, events, options=RELIEF)
    hand = set(relieved["deals"][0]["hands"][3])
    assert_judged(relieved, play(3, "2B"), None, hand)
    assert_judged(relieved, play(3, "10E"), None, hand)


# --- the renuncio in the replay: recorded, not undone, decides the deal -----------------------


def test_violation_fields() -> None:
    log = log4(ASISTIR["keys"], [play(0, "4O"), play(1, "1B")])
    out = run(log)
    (v,) = out["deals"][0]["violations"]
    assert v["event"] == 1
    assert v["seat"] == 1
    assert v["card"] == "1B"
    assert v["kind"] == "renuncio"
    assert v["obligation"] == "asistir"
    assert v["correct"] == ["6O"]
    assert v["trick"] == 0
    assert isinstance(v["message"], str) and "bea" in v["message"]
    es = arbiter.replay(log).to_dict("es")["deals"][0]["violations"][0]["message"]
    assert "bea" in es and es != v["message"]


def test_renuncio_does_not_undo_the_play() -> None:
    # bea trumps with the as de bastos instead of following oros: a renuncio, but the card is
    # on the table and wins the trick; carla and dani cannot overtrump the as so they trump low.
    events = [play(0, "4O"), play(1, "1B"), play(2, "2B"), play(3, "5B"), play(1, "6O")]
    out = run(log4(ASISTIR["keys"], events))
    assert out["status"] == "in_progress"
    deal = out["deals"][0]
    assert [v["event"] for v in deal["violations"]] == [1]
    first = deal["tricks"][0]
    assert [p["card"] for p in first["plays"]] == ["4O", "1B", "2B", "5B"]
    assert first["winner"] == 1
    assert first["points"] == 11
    assert deal["scores"][1]["card_points"] == 11
    assert deal["tricks"][1]["leader"] == 1
    assert deal["tricks"][1]["plays"] == [{"seat": 1, "card": "6O"}]
    assert deal["outcome"] is None
    # the card has left bea's hand
    again = log4(ASISTIR["keys"], [*events[:4], play(1, "1B")])
    assert run(again)["illegal"]["code"] == "card_not_in_hand"


def test_first_renuncio_decides_tute_4p() -> None:
    # bea (side 1+3) renounces first, then carla (side 0+2) fails to trump.
    events = [play(0, "4O"), play(1, "1B"), play(2, "1E")]
    out = run(finish(log4(ASISTIR["keys"], events)))
    deal = out["deals"][0]
    assert [(v["seat"], v["obligation"]) for v in deal["violations"]] == [
        (1, "asistir"),
        (2, "fallar"),
    ]
    assert deal["finished"] is True
    assert deal["outcome"]["reason"] == "renuncio"
    assert deal["outcome"]["winners"] == [0, 2]
    assert deal["outcome"]["losers"] == [1, 3]
    assert out["match"]["standings"][0]["deals_won"] == 1
    assert out["match"]["standings"][1]["deals_won"] == 0


def test_first_renuncio_decides_tute_4p_other_side() -> None:
    # carla (side 0+2) plays the 4 without overtrumping; dani (side 1+3) then fails to
    # overtrump the 6 too: carla's renuncio is the first.
    events = [play(0, "4O"), play(1, "6B"), play(2, "4B"), play(3, "2B")]
    out = run(finish(log4(PISAR["keys"], events)))
    deal = out["deals"][0]
    assert [(v["seat"], v["obligation"]) for v in deal["violations"]] == [
        (2, "pisar"),
        (3, "pisar"),
    ]
    assert set(deal["violations"][1]["correct"]) == {"7B", "11B", "12B", "3B"}
    assert deal["outcome"]["reason"] == "renuncio"
    assert deal["outcome"]["winners"] == [1, 3]
    assert deal["outcome"]["losers"] == [0, 2]


def test_renuncio_penalty_lose_match() -> None:
    log = log4(ASISTIR["keys"], [play(0, "4O"), play(1, "1B")],
               options={"renuncio_penalty": "lose_match"})  # fmt: skip
    out = run(finish(log))
    assert out["status"] == "complete"
    assert out["match"]["over"] is True
    assert out["match"]["losers"] == [1, 3]
    assert out["match"]["winners"] == [0, 2]


# --- tute-3p: strict from the first trick -----------------------------------------------------


def test_tute_3p_strict_from_first_trick_and_renuncio_outcome() -> None:
    # trump bastos (dealer carla shows the 12B). ana leads the 4 de oros; bea holds oros.
    keys = ["4O 1O 3O 5O", "6O 7O", "10O 11O 12O"]
    events = [play(0, "4O"), play(1, "12C")]
    log = log3("tute-3p", keys, events, full_suits="O", trump_card="12B")
    hands = log["deals"][0]["hands"]
    assert "12B" in hands[2] and "12C" in hands[1]
    assert violations(log) == [(1, 1, "12C", "asistir", {"6O", "7O"})]
    out = run(finish(log))
    deal = out["deals"][0]
    assert deal["outcome"]["reason"] == "renuncio"
    assert 1 in deal["outcome"]["losers"]
    assert 1 not in deal["outcome"]["winners"]
    # "the offender loses and the best of the others wins"
    totals = {s["seat"]: s["total"] for s in deal["scores"]}
    assert totals[2] > totals[0]  # carla has more points than ana: she alone wins
    assert deal["outcome"]["winners"] == [2]
    assert deal["outcome"]["losers"] == [0, 1]


# --- tute cabrón and gana-pierde: no fallar before the first call ------------------------------

# ana leads the rey de oros, bea follows with the caballo (she cannot beat the rey), carla is
# void in oros: no trump exists yet, so she may play anything. The trick holds rey and caballo
# de oros: ana wins it and calls 40; oros is trump from the next trick on. Then ana leads the
# as de copas and bea, void in copas, must trump with her oros.
CABRON_KEYS = ["12O 1O 3O 4O 5O 6O 1C", "11O 10O 7O", "3C 4C 5C 6C 7C 10C 11C 12C"]


def test_cabron_no_fallar_before_the_first_call() -> None:
    log = log3("tute-cabron", CABRON_KEYS, [play(0, "12O"), play(1, "11O")], full_suits="OC")
    hands = log["deals"][0]["hands"]
    assert "7B" in hands[2]
    before = verdict(log, play(2, "7B"))
    assert before["verdict"] == "ok"
    assert {m["card"] for m in before["legal_moves"]} == set(hands[2])
    assert run(log)["deals"][0]["trump"] is None


def test_cabron_fallar_after_the_first_call() -> None:
    events = [play(0, "12O"), play(1, "11O"), play(2, "7B"), play(0, "1C")]
    log = log3("tute-cabron", CABRON_KEYS, events, full_suits="OC")
    out = run(log)
    deal = out["deals"][0]
    assert deal["tricks"][0]["winner"] == 0
    assert deal["cantes"] == [{"seat": 0, "suit": "O", "points": 40, "trick": 0}]
    assert deal["trump"] == "O"
    assert deal["violations"] == []
    assert "7E" in log["deals"][0]["hands"][1]
    assert_judged(log, play(1, "7E"), "fallar", {"10O", "7O"})
    assert_judged(log, play(1, "7O"), None, {"10O", "7O"})


def test_cabron_renuncio_offender_is_the_only_loser() -> None:
    events = [play(0, "12O"), play(1, "11O"), play(2, "7B"), play(0, "1C"), play(1, "7E")]
    out = run(finish(log3("tute-cabron", CABRON_KEYS, events, full_suits="OC")))
    deal = out["deals"][0]
    assert [v["event"] for v in deal["violations"]] == [4]
    assert deal["outcome"]["reason"] == "renuncio"
    assert deal["outcome"]["losers"] == [1]
    assert deal["outcome"]["winners"] == [0, 2]


def test_gana_pierde_no_fallar_before_the_first_call_but_montar() -> None:
    # 4 players, whole pack. ana leads the 4 de oros; bea is void in oros (any card); carla
    # must beat the 4 with her 5 (montar), the 2 is a renuncio.
    hands = keyed_hands(["4O", "", "5O 2O", "1O 3O 6O 7O 10O 11O 12O"], 10, "O")
    assert "12C" in hands[1]
    log = log_of("tute-gana-pierde", 4, [{"dealer": 3, "hands": hands, "events": [play(0, "4O")]}])
    assert_judged(log, play(1, "12C"), None, set(hands[1]))
    log["deals"][0]["events"].append(play(1, "12C"))
    assert_judged(log, play(2, "2O"), "montar", {"5O"})
    out = run(finish(with_events(log, [play(2, "2O")])))
    deal = out["deals"][0]
    assert deal["outcome"]["reason"] == "renuncio"
    assert deal["outcome"]["winners"] == [0, 1, 3]
    assert deal["outcome"]["losers"] == [2]


# --- tute-2p: free while the stock lasts, strict from the first trick without stock ----------

PACK40 = pack()


def log2(deal: dict[str, Any]) -> dict[str, Any]:
    return log_of("tute-2p", 2, [deal])


FINAL0 = "1E 3E 1C 3C 1B 3B 1O 3O"
FINAL1 = "5E 6E 12C 12O 12E 12B 7E 4O"  # turned card: the 4 de oros (oros trump)


def test_exhausted_helper_position() -> None:
    log = log2(exhausted_2p(FINAL0, FINAL1, last_pair=("2C", "2B")))
    out = run(log)
    deal = out["deals"][0]
    assert out["status"] == "in_progress"
    assert deal["trump"] == "O"
    assert deal["stock_left"] == 0
    assert len(deal["tricks"]) == 12
    assert all(t["winner"] == 0 for t in deal["tricks"])
    assert deal["tricks"][11]["draws"] == [{"seat": 0, "card": "3O"}, {"seat": 1, "card": "4O"}]
    # the free tricks hold no renuncio although bea did not follow copas in the 12th trick
    # while holding the rey de copas
    assert deal["tricks"][11]["plays"] == [{"seat": 0, "card": "2C"}, {"seat": 1, "card": "2B"}]
    assert deal["violations"] == []
    assert out["next"]["seat"] == 0


def test_free_play_while_the_stock_lasts() -> None:
    h0 = ["5E", "1O", "3O", "12O", "11O", "10O", "7O", "6O"]
    h1 = ["1E", "12B", "3E", "2O", "4O", "5O", "2C", "4C"]
    rest = [c for c in PACK40 if c not in h0 + h1 and c != "4B"]
    log = log2({"dealer": 1, "hands": [h0, h1], "stock": [*rest, "4B"], "events": [play(0, "5E")]})
    body = verdict(log, play(1, "12B"))
    assert body["verdict"] == "ok"
    assert {m["card"] for m in body["legal_moves"] if m["type"] == "play"} == set(h1)
    assert violations(with_events(log, [play(1, "2C")])) == []


def test_last_trick_with_stock_is_free() -> None:
    deal = exhausted_2p(FINAL0, FINAL1, last_pair=("2C", "2B"))
    log = log2({**deal, "events": deal["events"][:22]})
    assert verdict(with_events(log, [play(0, "2C")]), play(1, "2B"))["verdict"] == "ok"


def test_strict_from_the_first_trick_without_stock() -> None:
    deal = exhausted_2p(FINAL0, FINAL1, last_pair=("2C", "2B"))
    base = log2(deal)
    log = with_events(base, [play(0, "1E")])
    espadas = {"5E", "6E", "7E", "12E"}  # none beats the as: any espada
    assert_judged(log, play(1, "12C"), "asistir", espadas)
    assert_judged(log, play(1, "4O"), "asistir", espadas)
    assert_judged(log, play(1, "6E"), None, espadas)


def test_strict_montar_in_tute_2p() -> None:
    deal = exhausted_2p("4E 3E 1C 3C 1B 3B 1O 3O", "5E 2E 12C 12O 12E 12B 7E 4O")
    log = with_events(log2(deal), [play(0, "4E")])
    # against the 4 de espadas bea must play the 5, 7 or rey, not the 2
    assert_judged(log, play(1, "2E"), "montar", {"5E", "7E", "12E"})
    assert_judged(log, play(1, "7E"), None, {"5E", "7E", "12E"})


def test_strict_fallar_in_tute_2p() -> None:
    deal = exhausted_2p(FINAL0, "5E 6E 7E 12E 5O 11O 10O 4O")
    base = log2(deal)
    # bea is void in copas: must trump; a trump lead is followed and beaten if possible
    log = with_events(base, [play(0, "1C")])
    assert_judged(log, play(1, "5E"), "fallar", {"5O", "11O", "10O", "4O"})
    log = with_events(base, [play(0, "3O")])
    assert_judged(log, play(1, "11O"), None, {"5O", "11O", "10O", "4O"})
    log = with_events(base, [play(0, "1O")])
    assert_judged(log, play(1, "5E"), "asistir", {"5O", "11O", "10O", "4O"})


def test_first_renuncio_beats_a_later_tute_of_the_offender() -> None:
    # After the stock: ana leads the as de espadas, bea trumps with the 4 de oros while holding
    # espadas (asistir), wins the trick and declares a tute of kings on her lead. The tute ends
    # the deal, but the renuncio came first and decides it: ana wins.
    deal = exhausted_2p(FINAL0, FINAL1)
    events = [*deal["events"], play(0, "1E"), play(1, "4O"),
              {"type": "tute", "seat": 1, "of": "kings"}]  # fmt: skip
    out = run(log2({**deal, "events": events}))
    d = out["deals"][0]
    assert out["status"] == "complete"
    assert [(v["event"], v["obligation"]) for v in d["violations"]] == [(25, "asistir")]
    assert d["tricks"][12]["winner"] == 1
    assert d["finished"] is True
    assert d["outcome"]["reason"] == "renuncio"
    assert d["outcome"]["winners"] == [0]
    assert d["outcome"]["losers"] == [1]


def test_violation_in_french_notation() -> None:
    # The ASISTIR position written in French: bea trumps (clubs) on a diamond lead.
    def fr(code: str) -> str:
        return reference.code(reference.card(code), "french")

    log = log4(ASISTIR["keys"], [play(0, "4D"), play(1, "AC")])
    deal = log["deals"][0]
    deal["hands"] = [[fr(c) for c in h] for h in deal["hands"]]
    deal["trump_card"] = fr(deal["trump_card"])
    log["notation"] = "french"
    out = run(log)
    assert out["deals"][0]["trump"] == "C"  # clubs = bastos
    (v,) = out["deals"][0]["violations"]
    assert (v["card"], v["obligation"], v["correct"]) == ("AC", "asistir", ["6D"])


# --- differential check: the reference referee of §3 on random games -----------------------


def _reference_referee(log: dict[str, Any]) -> tuple[list[Any], list[int]]:
    """The violations and trick winners of the single deal of ``log``, by the reference."""
    deal = reference.played(log)
    found = [
        (v["event"], v["seat"], v["card"], v["obligation"], set(v["correct"]))
        for v in deal.violations
    ]
    return found, [winner for _, _, winner in deal.tricks]


@pytest.mark.parametrize(
    ("ruleset", "players", "options"),
    [
        ("tute-2p", 2, {}),
        ("tute-3p", 3, {}),
        ("tute-3p", 3, {"trump_when_cannot_overtrump": False}),
        ("tute-4p", 4, {}),
        ("tute-4p", 4, {"partner_relief": True}),
        ("tute-4p", 4, {"trump_when_cannot_overtrump": False, "partner_relief": True}),
        ("tute-cabron", 3, {}),
        ("tute-cabron", 3, {"trump_when_cannot_overtrump": False}),
        ("tute-gana-pierde", 3, {}),
        ("tute-gana-pierde", 4, {}),
        ("tute-gana-pierde", 5, {"trump_when_cannot_overtrump": False}),
    ],
)
def test_random_games_against_a_reference_referee(
    ruleset: str, players: int, options: dict[str, Any]
) -> None:
    rng = random.Random(f"{ruleset}-{players}-{sorted(options.items())}")
    checked = exchanges = 0
    for _ in range(12):
        log = random_log(
            ruleset, rng, players=players, options=options or None,
            renuncio_rate=0.35, declare_rate=0.3,
        )  # fmt: skip
        expected, winners = _reference_referee(log)
        out = run(log)
        deal = out["deals"][0]
        assert deal["finished"]
        exchanges += len(deal["exchanges"])
        got = [
            (v["event"], v["seat"], v["card"], v["obligation"], set(v["correct"]))
            for v in deal["violations"]
        ]
        assert got == expected
        assert [t["winner"] for t in deal["tricks"]] == winners
        checked += len(expected)
    assert checked > 0  # the random games did hold renuncios
    if ruleset == "tute-2p":
        assert exchanges > 0
