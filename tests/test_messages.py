"""Messages in Spanish and English (arbiter.i18n): the language picked from Accept-Language,
renuncio explanations naming the player, the trick, the cards and the obligation, a message for
every illegal code and every outcome reason, and French-suited words for French-notation logs.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import arbiter
from arbiter.engine.cards import make_card
from arbiter.i18n import Phrases, pick_lang
from arbiter.simulate import random_log
from tests import reference
from tests.hand_built import (
    NAMES,
    RANKS,
    SUITS,
    TIE,
    deal_2p,
    exchange,
    fill,
    hands_2p,
    log_of,
    play,
    run,
    sing,
    tute,
)


def both(log: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return run(log, "en"), run(log, "es")


# --- the language ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        ("es-ES,es;q=0.9", "es"),
        ("es", "es"),
        ("ES", "es"),
        ("es-AR", "es"),
        ("en", "en"),
        ("en-GB,en;q=0.8", "en"),
        ("fr", "en"),
        ("fr-FR,fr;q=0.9", "en"),
        ("fr-FR, es;q=0.5", "es"),
        ("en;q=0.3, es;q=0.8", "es"),
        ("es;q=0.3, en;q=0.8", "en"),
        ("*", "en"),
        ("", "en"),
        (None, "en"),
    ],
)
def test_pick_lang(header: str | None, lang: str) -> None:
    assert pick_lang(header) == lang


# --- renuncio messages ----------------------------------------------------------------------

# Tute-2p, dealer 0 (bea, seat 1, is mano); trump espadas (2E turned, drawn by ana after trick
# 11). Bea leads and wins tricks 0..12; in trick 13 (the 14th) she leads 4O and ana, holding
# 5O and 12O (both beat 4O), throws 4B.
MSG = [
    *zip(["2O", "3O", "6O", "7O", "10O", "11O", "1B", "3B", "12B", "11B", "10B", "7B"],
         ["3C", "12C", "11C", "10C", "7C", "6C", "5C", "4C", "1E", "3E", "12E", "11E"],
         strict=True),
    ("2C", "1C"),
    ("4B", "4O"),
    *zip(["5O", "12O", "2E", "5B", "6B", "2B"], ["10E", "7E", "6E", "5E", "4E", "1O"],
         strict=True),
]  # fmt: skip


def msg_log(stop: int = 14, before: dict[int, list[dict[str, Any]]] | None = None) -> Any:
    return log_of("tute-2p", 2, [deal_2p(MSG, "2E", dealer=0, stop=stop, before=before)])


ASISTIR_EN = (
    "Renuncio by ana in trick 14: played the four of bastos while holding oros; "
    "had to follow suit (five of oros or king of oros)"
)
ASISTIR_ES = (
    "Renuncio de ana en la baza 14: jugó el cuatro de bastos teniendo oros; "
    "debía asistir (cinco de oros o rey de oros)"
)


def test_renuncio_asistir_message_in_both_languages() -> None:
    en, es = both(msg_log())
    assert en["status"] == "in_progress"
    assert [t["winner"] for t in en["deals"][0]["tricks"][:13]] == [1] * 13
    violation = en["deals"][0]["violations"]
    assert [(v["event"], v["seat"], v["card"], v["obligation"], v["correct"])
            for v in violation] == [(27, 0, "4B", "asistir", ["5O", "12O"])]  # fmt: skip
    assert violation[0]["message"] == ASISTIR_EN
    assert es["deals"][0]["violations"][0]["message"] == ASISTIR_ES


def test_validate_gives_the_same_renuncio_message() -> None:
    log = msg_log()
    log["deals"][0]["events"].pop()  # ana is about to play in trick 13
    for lang, text in (("en", ASISTIR_EN), ("es", ASISTIR_ES)):
        verdict = arbiter.validate(log, play(0, "4B")).to_dict(lang)  # type: ignore[arg-type]
        assert verdict["verdict"] == "renuncio"
        assert verdict["obligation"] == "asistir"
        assert verdict["message"] == text
    verdict = arbiter.validate(log, play(0, "12O")).to_dict("es")
    assert verdict["verdict"] == "ok"
    assert verdict["message"]


def p3(fixed: dict[int, list[str]], avoid: dict[int, str], events: list[Any]) -> Any:
    """Tute-3p, dealer 2 showing 4E (espadas trump)."""
    fixed = {**fixed, 2: [*fixed.get(2, []), "4E"]}
    hands, _ = fill(3, 12, fixed, removed=2, avoid=avoid)
    deal = {"dealer": 2, "hands": hands, "trump_card": "4E", "events": events}
    return log_of("tute-3p", 3, [deal])


def test_renuncio_montar_message() -> None:
    # ana leads the sota de oros; bea holds 1O, which beats it, and plays 4O
    log = p3({0: ["10O"], 1: ["4O", "1O"]}, {1: "O"}, [play(0, "10O"), play(1, "4O")])
    en, es = both(log)
    v = en["deals"][0]["violations"][0]
    assert (v["obligation"], v["correct"]) == ("montar", ["1O"])
    msg_en, msg_es = v["message"], es["deals"][0]["violations"][0]["message"]
    for part in ("bea", "trick 1:", "the four of oros", "the jack of oros", "had to beat",
                 "(ace of oros)"):  # fmt: skip
        assert part in msg_en, part
    for part in ("bea", "baza 1:", "el cuatro de oros", "la sota de oros", "debía montar",
                 "(as de oros)"):  # fmt: skip
        assert part in msg_es, part


def test_renuncio_montar_names_the_card_currently_winning() -> None:
    # ana leads 4O, bea wins it so far with the sota; carla holds 1O and plays 5O, which beats
    # the card led but not the card winning: montar, and the message names the sota
    events = [play(0, "4O"), play(1, "10O"), play(2, "5O")]
    log = p3({0: ["4O"], 1: ["10O"], 2: ["1O", "5O"]}, {1: "O", 2: "O"}, events)
    en, es = both(log)
    v = en["deals"][0]["violations"][0]
    assert (v["event"], v["seat"], v["obligation"], v["correct"]) == (2, 2, "montar", ["1O"])
    assert "the five of oros, which does not beat the jack of oros" in v["message"]
    assert "la sota de oros" in es["deals"][0]["violations"][0]["message"]


def test_renuncio_fallar_message() -> None:
    # bea, with no oros, holds the 1 and 5 of trumps and throws 4C
    log = p3({0: ["4O"], 1: ["1E", "5E", "4C"]}, {1: "OE"}, [play(0, "4O"), play(1, "4C")])
    en, es = both(log)
    v = en["deals"][0]["violations"][0]
    assert (v["obligation"], v["correct"]) == ("fallar", ["1E", "5E"])
    msg_en, msg_es = v["message"], es["deals"][0]["violations"][0]["message"]
    for part in ("bea", "trick 1:", "the four of copas", "oros", "espadas", "had to trump",
                 "(ace of espadas or five of espadas)"):  # fmt: skip
        assert part in msg_en, part
    for part in ("bea", "baza 1:", "el cuatro de copas", "oros", "espadas", "debía fallar",
                 "(as de espadas o cinco de espadas)"):  # fmt: skip
        assert part in msg_es, part


def test_renuncio_pisar_message() -> None:
    # bea trumps 4O with 5E; carla, no oros, holds 1E and 4E and plays 4E
    events = [play(0, "4O"), play(1, "5E"), play(2, "4E")]
    log = p3({0: ["4O"], 1: ["5E"], 2: ["1E"]}, {1: "O", 2: "OE"}, events)
    en, es = both(log)
    v = en["deals"][0]["violations"][0]
    assert (v["seat"], v["obligation"], v["correct"]) == (2, "pisar", ["1E"])
    msg_en, msg_es = v["message"], es["deals"][0]["violations"][0]["message"]
    for part in ("carla", "trick 1:", "the four of espadas", "the five of espadas",
                 "had to overtrump", "(ace of espadas)"):  # fmt: skip
        assert part in msg_en, part
    for part in ("carla", "baza 1:", "el cuatro de espadas", "el cinco de espadas",
                 "debía pisar", "(as de espadas)"):  # fmt: skip
        assert part in msg_es, part


# --- card words -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "notation", "rank_", "suit_", "words"),
    [
        ("es", "spanish", 10, 0, "la sota de oros"),
        ("es", "spanish", 11, 1, "el caballo de copas"),
        ("es", "spanish", 12, 2, "el rey de espadas"),
        ("es", "spanish", 1, 3, "el as de bastos"),
        ("es", "spanish", 4, 3, "el cuatro de bastos"),
        ("en", "spanish", 10, 0, "the jack of oros"),
        ("en", "spanish", 11, 1, "the horse of copas"),
        ("en", "spanish", 12, 2, "the king of espadas"),
        ("en", "spanish", 4, 3, "the four of bastos"),
        ("en", "french", 11, 1, "the queen of hearts"),
        ("en", "french", 10, 0, "the jack of diamonds"),
        ("en", "french", 1, 2, "the ace of spades"),
        ("en", "french", 12, 3, "the king of clubs"),
        ("es", "french", 11, 1, "la reina de corazones"),
        ("es", "french", 10, 0, "la jota de diamantes"),
        ("es", "french", 12, 2, "el rey de picas"),
        ("es", "french", 4, 3, "el cuatro de tréboles"),
    ],
)
def test_card_words(lang: Any, notation: Any, rank_: int, suit_: int, words: str) -> None:
    phrases = Phrases(lang, notation, ("ana",))
    assert phrases.card(make_card(rank_, suit_)) == words
    bare = words.split(" ", 1)[1]
    assert phrases.card(make_card(rank_, suit_), article=False) == bare


# --- French notation ------------------------------------------------------------------------

def french(code: str) -> str:
    return reference.code(reference.card(code), "french")


def to_french(log: dict[str, Any]) -> dict[str, Any]:
    deals = []
    for deal in log["deals"]:
        out = {**deal, "hands": [[french(c) for c in h] for h in deal["hands"]]}
        if "stock" in deal:
            out["stock"] = [french(c) for c in deal["stock"]]
        if "trump_card" in deal:
            out["trump_card"] = french(deal["trump_card"])
        out["events"] = [
            {**e, "card": french(e["card"])} if e["type"] == "play"
            else {**e, "suit": reference.FRENCH_SUITS[e["suit"]]} if e["type"] == "sing" else e
            for e in deal["events"]
        ]  # fmt: skip
        deals.append(out)
    return {**log, "notation": "french", "deals": deals}


def test_french_notation_codes_and_words() -> None:
    en, es = both(to_french(msg_log()))
    deal = en["deals"][0]
    assert deal["trump"] == "S"
    assert deal["tricks"][1]["plays"] == [{"seat": 1, "card": "KH"}, {"seat": 0, "card": "3D"}]
    assert deal["tricks"][0]["draws"][0]["card"] == french(msg_log()["deals"][0]["stock"][0])
    v = deal["violations"][0]
    assert (v["card"], v["obligation"], v["correct"]) == ("4C", "asistir", ["5D", "KD"])
    assert v["message"] == (
        "Renuncio by ana in trick 14: played the four of clubs while holding diamonds; "
        "had to follow suit (five of diamonds or king of diamonds)"
    )
    assert es["deals"][0]["violations"][0]["message"] == (
        "Renuncio de ana en la baza 14: jugó el cuatro de tréboles teniendo diamantes; "
        "debía asistir (cinco de diamantes o rey de diamantes)"
    )
    # bea took trick 13 with 4O and leads: her cards in French codes (10E is the jack, JS)
    assert en["next"]["seat"] == 1
    legal = {m["card"] for m in en["next"]["legal_moves"] if m["type"] == "play"}
    assert legal == {"JS", "7S", "6S", "5S", "4S", "AD"}


def test_french_notation_illegal_message() -> None:
    log = to_french(msg_log(stop=0))
    log["deals"][0]["events"] = [play(1, "QD")]  # bea does not hold the queen of diamonds
    en, es = both(log)
    assert en["illegal"]["code"] == "card_not_in_hand"
    assert "the queen of diamonds" in en["illegal"]["message"]
    assert "la reina de diamantes" in es["illegal"]["message"]
    assert "bea" in en["illegal"]["message"]


def test_french_notation_cante_suit() -> None:
    # tute-3p in French: seat 0 takes 1O (AD) and sings hearts (copas)
    hands, _ = fill(3, 12, {0: ["1O", "12C", "11C"], 1: ["4O"], 2: ["5O", "4E"]}, removed=2)
    events = [play(0, "1O"), play(1, "4O"), play(2, "5O"), sing(0, "C")]
    log = {
        "ruleset": "tute-3p",
        "players": ["ana", "bea", "carla"],
        "deals": [{"dealer": 2, "hands": hands, "trump_card": "4E", "events": events}],
    }
    out = run(to_french(log))
    assert out["deals"][0]["cantes"] == [{"seat": 0, "suit": "H", "points": 20, "trick": 0}]
    assert out["deals"][0]["tricks"][0]["plays"][0] == {"seat": 0, "card": "AD"}
    assert {"type": "play", "seat": 0, "card": "KH"} in out["next"]["legal_moves"]


# --- a message for every illegal code -----------------------------------------------------------


def tute_deal() -> dict[str, Any]:
    deal = hands_2p({0: ["12O", "12C", "12E", "12B"]}, [], "2O")
    deal["events"] = [tute(0, "kings")]
    return deal


P3_FIXED = {
    0: ["1O", "12C", "11C", "12E", "11E", "12B", "11B", "7E"],
    1: ["4O", "12O"],
    2: ["5O", "4E"],
}
P3_TRICK0 = [play(0, "1O"), play(1, "4O"), play(2, "5O")]


def p3_log(events: list[dict[str, Any]], ruleset: str = "tute-3p") -> dict[str, Any]:
    hands, _ = fill(3, 12, P3_FIXED, removed=2)
    deal: dict[str, Any] = {"dealer": 2, "hands": hands, "events": events}
    if ruleset == "tute-3p":
        deal["trump_card"] = "4E"
    return log_of(ruleset, 3, [deal])


def exchange_log(fixed: dict[int, list[str]]) -> dict[str, Any]:
    deal = hands_2p(fixed, [], "1O")
    deal["events"] = [exchange(0)]
    return log_of("tute-2p", 2, [deal])


def _after_tute() -> dict[str, Any]:
    deal = tute_deal()
    deal["events"].append(play(1, "4O"))
    return log_of("tute-2p", 2, [deal])


ILLEGAL_LOGS = {
    "match_over": lambda: log_of("tute-2p", 2, [tute_deal() for _ in range(4)]),
    "deal_over": _after_tute,
    "out_of_turn": lambda: p3_log([play(1, "4O")]),
    "card_not_in_hand": lambda: p3_log([play(0, "4O")]),
    "not_in_ruleset": lambda: p3_log([exchange(0)]),
    "not_on_lead": lambda: p3_log([*P3_TRICK0, sing(1, "O")]),
    "no_trick_won": lambda: p3_log([sing(0, "C")]),
    "cante_already_declared": lambda: p3_log([*P3_TRICK0, sing(0, "C"), sing(0, "E")]),
    "suit_already_sung": lambda: p3_log(
        [*P3_TRICK0, sing(0, "C"), play(0, "7E"), play(1, "12O"), play(2, "4E"), sing(0, "C")]
    ),
    "pair_not_held": lambda: p3_log([*P3_TRICK0, sing(0, "O")]),
    "tute_not_held": lambda: p3_log([tute(0, "kings")]),
    "no_stock": lambda: msg_log(stop=12, before={12: [exchange(1)]}),
    "seven_not_held": lambda: exchange_log({0: ["1C"], 1: ["7O"]}),
}


def test_every_illegal_code_is_covered() -> None:
    codes = {
        "out_of_turn", "card_not_in_hand", "deal_over", "match_over", "not_on_lead",
        "no_trick_won", "cante_already_declared", "pair_not_held", "suit_already_sung",
        "tute_not_held", "no_stock", "seven_not_held", "not_in_ruleset",
    }  # fmt: skip
    assert set(ILLEGAL_LOGS) == codes


@pytest.mark.parametrize("code", sorted(ILLEGAL_LOGS))
def test_illegal_message_in_both_languages(code: str) -> None:
    log = ILLEGAL_LOGS[code]()
    en, es = both(log)
    assert en["status"] == "invalid"
    assert en["illegal"]["code"] == code
    assert es["illegal"]["code"] == code
    msg_en, msg_es = en["illegal"]["message"], es["illegal"]["message"]
    for msg in (msg_en, msg_es):
        assert msg.strip()
        assert "{" not in msg and "}" not in msg
    assert msg_en != msg_es
    deal = log["deals"][en["illegal"]["deal"]]
    actor = NAMES[deal["events"][en["illegal"]["event"]]["seat"]]
    if code != "suit_already_sung":
        assert actor in msg_en and actor in msg_es


@pytest.mark.parametrize("code", ["out_of_turn", "card_not_in_hand", "not_on_lead",
                                  "no_trick_won", "pair_not_held", "tute_not_held"])  # fmt: skip
def test_validate_illegal_message_in_both_languages(code: str) -> None:
    log = ILLEGAL_LOGS[code]()
    move = log["deals"][0]["events"].pop()
    texts = []
    for lang in ("en", "es"):
        verdict = arbiter.validate(log, move).to_dict(lang)  # type: ignore[arg-type]
        assert (verdict["verdict"], verdict["code"], verdict["legal"]) == ("illegal", code, False)
        assert verdict["message"].strip()
        texts.append(verdict["message"])
    assert texts[0] != texts[1]


# --- a message for every outcome reason ----------------------------------------------------------

# TIE (tests/hand_built.py): a tute-2p deal tied 65 to 65, seat 0 taking the last trick.


def tie_log(**options: Any) -> dict[str, Any]:
    return log_of("tute-2p", 2, [deal_2p(TIE, "2O", dealer=0)], **options)


def p4_split(renuncio: bool) -> dict[str, Any]:
    """Tute-4p: each seat holds one suit, seat 3 the bastos (trump); seat 3 takes every trick.
    With ``renuncio`` seat 1 holds 4O (seat 0 has 4C) and throws 1C on 1O."""
    hands = [[f"{r}{s}" for r in RANKS] for s in SUITS]
    if renuncio:
        hands[0][hands[0].index("4O")], hands[1][hands[1].index("4C")] = "4C", "4O"
    first = ["1O", "1C", "1E", "2B"]
    events = [play(s, c) for s, c in enumerate(first)]
    rest = [[c for c in hands[s] if c != first[s]] for s in range(3)]
    for k, lead in enumerate(["4B", "5B", "6B", "7B", "10B", "3B", "1B", "11B", "12B"]):
        events += [play(3, lead), *(play(s, rest[s][k]) for s in range(3))]
    deal = {"dealer": 3, "hands": hands, "trump_card": "4B", "events": events}
    return log_of("tute-4p", 4, [deal])


def searched(ruleset: str, reason: str) -> dict[str, Any]:
    """A random finished deal decided for ``reason`` (the reason is then checked from the
    scores by the test, not taken on trust)."""
    for seed in range(500):
        n = [3, 4, 5][seed % 3] if ruleset == "tute-gana-pierde" else None
        log = random_log(ruleset, random.Random(seed), players=n)
        if run(log)["deals"][0]["outcome"]["reason"] == reason:
            return log
    raise AssertionError(f"no {reason} deal found")


def check_reason(deal: dict[str, Any], reason: str) -> None:
    """An independent check of cabrón and gana-pierde reasons from the scores."""
    totals = [s["total"] for s in deal["scores"]]
    no_trick = [s["seat"] for s in deal["scores"] if s["tricks"] == 0]
    tied = [s for s, t in enumerate(totals) if totals.count(t) > 1]
    losers = deal["outcome"]["losers"]
    if reason == "no_tricks":
        assert no_trick and losers == no_trick
    elif reason == "over_100":
        assert not no_trick and losers == [s for s, t in enumerate(totals) if t > 100]
    elif reason == "tied":
        assert not no_trick and tied and set(tied) <= set(losers)
    elif reason == "middle":
        assert not no_trick and not tied and max(totals) <= 100
        assert losers == [sorted(range(3), key=totals.__getitem__)[1]]
    elif reason == "extremes":
        assert not no_trick and not tied
        high, low = totals.index(max(totals)), totals.index(min(totals))
        assert deal["outcome"]["winners"] == sorted({high, low})


REASON_LOGS = {
    "points": lambda: p4_split(False),
    "last_trick": tie_log,
    "tie": lambda: tie_log(tie_break="none"),
    "tute": lambda: log_of("tute-2p", 2, [tute_deal()]),
    "renuncio": lambda: p4_split(True),
    "no_tricks": lambda: searched("tute-cabron", "no_tricks"),
    "over_100": lambda: searched("tute-cabron", "over_100"),
    "tied": lambda: searched("tute-cabron", "tied"),
    "middle": lambda: searched("tute-cabron", "middle"),
    "extremes": lambda: searched("tute-gana-pierde", "extremes"),
}


def test_every_reason_is_covered() -> None:
    assert set(REASON_LOGS) == {
        "points", "last_trick", "tie", "tute", "renuncio", "no_tricks", "over_100", "tied",
        "middle", "extremes",
    }  # fmt: skip


@pytest.mark.parametrize("reason", sorted(REASON_LOGS))
def test_outcome_message_in_both_languages(reason: str) -> None:
    log = REASON_LOGS[reason]()
    en, es = both(log)
    outcome = en["deals"][0]["outcome"]
    assert outcome["reason"] == reason
    check_reason(en["deals"][0], reason)
    msg_en, msg_es = outcome["message"], es["deals"][0]["outcome"]["message"]
    for msg in (msg_en, msg_es):
        assert msg.strip()
        assert "{" not in msg and "}" not in msg
    assert msg_en != msg_es
    players = log["players"]
    named = outcome["losers"] if reason in ("no_tricks", "over_100", "tied", "middle") else (
        outcome["winners"]
    )  # fmt: skip
    for seat in named:
        assert players[seat] in msg_en and players[seat] in msg_es
    if reason == "renuncio":
        assert "bea" in msg_en and "bea" in msg_es  # the offender
    if reason == "tie":
        assert outcome["winners"] == []


def test_tie_messages_tell_a_drawn_deal_from_a_shared_one() -> None:
    en, es = both(tie_log(tie_break="none"))
    assert "drawn" in en["deals"][0]["outcome"]["message"]
    assert "tablas" in es["deals"][0]["outcome"]["message"]
