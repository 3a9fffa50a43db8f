"""Card codes, trick order and points (docs/rules.md §1).

Expected values come from the tables of docs/rules.md as :mod:`tests.reference` writes them out,
never read back from the engine: a card is identified here by its (rank, suit) through
``make_card``, and codes, orders and points are checked against those literal tables. The
engine's suit numbers (oros 0 ... bastos 3) are written out here.
"""

from __future__ import annotations

import random

import pytest

import arbiter
from arbiter.engine.cards import (
    FULL_PACK,
    POINTS,
    card_rank,
    card_suit,
    format_card,
    format_suit,
    make_card,
    mask_points,
    pack_mask,
    parse_card,
    parse_suit,
)
from arbiter.engine.errors import ArbiterError, CardCodeError, LogError
from arbiter.engine.obligations import NO_TRUMP, beats
from arbiter.simulate import random_log
from tests import reference
from tests.reference import POINTS as POINTS_TABLE
from tests.reference import RANKS, SUITS, TRICK_ORDER

OROS, COPAS, ESPADAS, BASTOS = 0, 1, 2, 3
SPANISH_SUITS = {"O": OROS, "C": COPAS, "E": ESPADAS, "B": BASTOS}
#: French rank letters -> rank, French suit letters and symbols -> the engine's suit.
FRENCH_RANKS = {reference.FRENCH_RANKS[r]: r for r in RANKS}
FRENCH_SUITS = {reference.FRENCH_SUITS[s]: SPANISH_SUITS[s] for s in SUITS}
FRENCH_SYMBOLS = {reference.FRENCH_SYMBOLS[s]: SPANISH_SUITS[s] for s in SUITS}

ALL_SPANISH = reference.codes(reference.pack())


# --- Spanish codes ---------------------------------------------------------------------------


def test_forty_distinct_cards() -> None:
    cards = {make_card(r, s) for r in RANKS for s in range(4)}
    assert len(cards) == 40
    assert {parse_card(code) for code in ALL_SPANISH} == cards


@pytest.mark.parametrize("code", ALL_SPANISH)
def test_spanish_code_round_trip(code: str) -> None:
    rank, suit = int(code[:-1]), SPANISH_SUITS[code[-1]]
    card = parse_card(code)
    assert card == make_card(rank, suit)
    assert card_rank(card) == rank
    assert card_suit(card) == suit
    assert format_card(card) == code
    assert format_card(card, "spanish") == code


@pytest.mark.parametrize(
    ("given", "canonical"),
    [("1o", "1O"), ("12c", "12C"), ("11e", "11E"), ("10b", "10B"), ("7O", "7O"), ("3b", "3B")],
)
def test_spanish_input_is_case_insensitive_output_canonical(given: str, canonical: str) -> None:
    card = parse_card(given)
    assert card == parse_card(canonical)
    assert format_card(card) == canonical


def test_examples_of_rules_md() -> None:
    # "1O as de oros, 12C rey de copas, 11E caballo de espadas, 10B sota de bastos"
    assert parse_card("1O") == make_card(1, OROS)
    assert parse_card("12C") == make_card(12, COPAS)
    assert parse_card("11E") == make_card(11, ESPADAS)
    assert parse_card("10B") == make_card(10, BASTOS)


@pytest.mark.parametrize(("letter", "suit"), [*SPANISH_SUITS.items(), ("o", 0), ("b", 3)])
def test_spanish_suit_letters(letter: str, suit: int) -> None:
    assert parse_suit(letter) == suit
    assert format_suit(suit) == letter.upper()


# --- French codes ----------------------------------------------------------------------------


@pytest.mark.parametrize("rank_name", list(FRENCH_RANKS))
@pytest.mark.parametrize("suit_name", list(FRENCH_SUITS))
def test_french_code(rank_name: str, suit_name: str) -> None:
    card = make_card(FRENCH_RANKS[rank_name], FRENCH_SUITS[suit_name])
    code = rank_name + suit_name
    assert parse_card(code, "french") == card
    assert parse_card(code.lower(), "french") == card
    assert format_card(card, "french") == code


@pytest.mark.parametrize(("symbol", "suit"), list(FRENCH_SYMBOLS.items()))
def test_french_suit_symbols(symbol: str, suit: int) -> None:
    assert parse_card("Q" + symbol, "french") == make_card(11, suit)
    assert parse_card("a" + symbol, "french") == make_card(1, suit)
    assert parse_suit(symbol, "french") == suit
    # Output uses the letters, not the symbols.
    assert format_card(make_card(12, suit), "french") == "K" + "DHSC"[suit]


def test_jack_queen_king_stand_for_sota_caballo_rey() -> None:
    assert parse_card("JD", "french") == parse_card("10O")
    assert parse_card("QD", "french") == parse_card("11O")
    assert parse_card("KD", "french") == parse_card("12O")
    assert parse_card("AD", "french") == parse_card("1O")


def test_c_is_copas_in_spanish_but_clubs_bastos_in_french() -> None:
    assert parse_card("1C") == make_card(1, COPAS)
    assert parse_card("AC", "french") == make_card(1, BASTOS)
    assert parse_card("KC", "french") == parse_card("12B")
    assert parse_suit("C") == COPAS
    assert parse_suit("C", "french") == BASTOS
    assert format_suit(BASTOS, "french") == "C"
    assert format_suit(COPAS, "french") == "H"
    assert format_suit(COPAS) == "C"


# --- bad codes -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    ["8O", "9B", "0O", "13C", "1X", "", "O1", "11", "O", "1OO", "JO", "KC", "AD", "1 O", " 1O",
     "1♦", 1, None, 12.0, ["1O"]],
)  # fmt: skip
def test_bad_spanish_code_raises_naming_it(code: object) -> None:
    with pytest.raises(CardCodeError) as info:
        parse_card(code)
    assert info.value.code == code
    assert repr(code) in str(info.value)
    assert isinstance(info.value, ArbiterError)


@pytest.mark.parametrize("code", ["1D", "10D", "8H", "9S", "11C", "12C", "1O", "ZD", "AX", "A"])
def test_bad_french_code_raises_naming_it(code: str) -> None:
    with pytest.raises(CardCodeError) as info:
        parse_card(code, "french")
    assert info.value.code == code
    assert repr(code) in str(info.value)


@pytest.mark.parametrize(
    ("code", "notation"),
    [("X", "spanish"), ("D", "spanish"), ("O", "french"), ("OC", "spanish"), (0, "spanish")],
)
def test_bad_suit_code(code: object, notation: str) -> None:
    with pytest.raises(CardCodeError) as info:
        parse_suit(code, notation)  # type: ignore[arg-type]
    assert info.value.code == code


# --- trick order -----------------------------------------------------------------------------


@pytest.mark.parametrize("suit", range(4))
def test_trick_order_within_a_suit(suit: int) -> None:
    for i, high in enumerate(TRICK_ORDER):
        for low in TRICK_ORDER[i + 1 :]:
            high_card, low_card = make_card(high, suit), make_card(low, suit)
            assert beats(high_card, low_card, NO_TRUMP), (high, low)
            assert not beats(low_card, high_card, NO_TRUMP), (low, high)
            # The int of a card orders it within its suit (cards.py's documented invariant).
            assert high_card > low_card


def test_only_trick_order_counts_not_points() -> None:
    # Seven and six are both worth 0 but the seven wins; the three (10) beats the king (4)
    # and the sota (2) beats the seven (0).
    assert beats(parse_card("7E"), parse_card("6E"), NO_TRUMP)
    assert beats(parse_card("3E"), parse_card("12E"), NO_TRUMP)
    assert beats(parse_card("10E"), parse_card("7E"), NO_TRUMP)
    assert not beats(parse_card("12E"), parse_card("3E"), NO_TRUMP)


def test_other_suit_never_beats_unless_trump() -> None:
    led = parse_card("4O")
    assert not beats(parse_card("1C"), led, NO_TRUMP)
    assert not beats(parse_card("1C"), led, ESPADAS)
    assert beats(parse_card("2E"), led, ESPADAS)
    assert beats(parse_card("4E"), parse_card("2E"), ESPADAS)
    assert not beats(parse_card("1O"), parse_card("2E"), ESPADAS)


# --- points ----------------------------------------------------------------------------------


@pytest.mark.parametrize("code", ALL_SPANISH)
def test_points_of_each_card(code: str) -> None:
    assert POINTS[parse_card(code)] == POINTS_TABLE[int(code[:-1])]


def test_pack_holds_120_points() -> None:
    assert mask_points(FULL_PACK) == 120
    assert sum(POINTS[parse_card(c)] for c in ALL_SPANISH) == 120
    assert pack_mask(None).bit_count() == 40


def test_pack_without_twos_and_without_aces() -> None:
    no_twos = pack_mask(2)
    assert no_twos.bit_count() == 36
    assert mask_points(no_twos) == 120  # the 2s are worth nothing
    no_aces = pack_mask(1)
    assert no_aces.bit_count() == 36
    assert mask_points(no_aces) == 120 - 4 * 11 == 76
    for suit in range(4):
        assert not no_twos >> make_card(2, suit) & 1
        assert not no_aces >> make_card(1, suit) & 1
        assert no_twos >> make_card(1, suit) & 1
        assert no_aces >> make_card(2, suit) & 1


@pytest.mark.parametrize("ruleset", ["tute-2p", "tute-3p", "tute-4p", "tute-cabron"])
def test_a_whole_deal_shares_120_points_plus_10_for_the_last_trick(ruleset: str) -> None:
    log = random_log(ruleset, random.Random(7), declare_rate=0.0)
    body = arbiter.replay(log).to_dict()
    deal = body["deals"][0]
    assert deal["finished"]
    scores = deal["scores"]
    assert sum(s["card_points"] for s in scores) == 120
    assert sorted(s["last_trick"] for s in scores) == [0] * (len(scores) - 1) + [10]
    assert sum(s["card_points"] + s["last_trick"] for s in scores) == 130
    assert sum(t["points"] for t in deal["tricks"]) == 120


# --- codes in a log --------------------------------------------------------------------------


def _two_player_deal(h0: list[str], h1: list[str], turned: str) -> dict[str, object]:
    used = {c.upper() for c in [*h0, *h1, turned]}
    rest = [c for c in ALL_SPANISH if c not in used]
    return {"dealer": 1, "hands": [h0, h1], "stock": [*rest, turned]}


def test_log_codes_are_case_insensitive_and_answers_canonical() -> None:
    h0 = ["1o", "3o", "12c", "11e", "10b", "7b", "6b", "5b"]
    h1 = ["4o", "5o", "6o", "7o", "10o", "11o", "12o", "2o"]
    deal = _two_player_deal(h0, h1, "4e")
    deal["events"] = [{"type": "play", "seat": 0, "card": "1o"},
                      {"type": "play", "seat": 1, "card": "12O"}]  # fmt: skip
    body = arbiter.replay({"ruleset": "tute-2p", "players": ["a", "b"], "deals": [deal]})
    out = body.to_dict()
    assert out["status"] == "in_progress"
    trick = out["deals"][0]["tricks"][0]
    assert trick["plays"] == [{"seat": 0, "card": "1O"}, {"seat": 1, "card": "12O"}]
    assert trick["winner"] == 0
    assert trick["points"] == 11 + 4
    assert out["deals"][0]["trump"] == "E"


def test_french_log_answers_in_french() -> None:
    def fr(code: str) -> str:
        return reference.code(reference.card(code), "french")

    h0 = ["1O", "3O", "12C", "11E", "10B", "7B", "6B", "5B"]
    h1 = ["4O", "5O", "6O", "7O", "10O", "11O", "12O", "2O"]
    deal = _two_player_deal(h0, h1, "4E")
    french = {
        "dealer": 1,
        "hands": [[fr(c) for c in h] for h in deal["hands"]],  # type: ignore[attr-defined]
        "stock": [fr(c) for c in deal["stock"]],  # type: ignore[attr-defined]
        "events": [{"type": "play", "seat": 0, "card": "a♦"},
                   {"type": "play", "seat": 1, "card": "KD"}],
    }  # fmt: skip
    # Bastos are clubs in French: the seat-0 hand holds JC (sota de bastos).
    assert "JC" in french["hands"][0]
    log = {"ruleset": "tute-2p", "notation": "french", "players": ["a", "b"], "deals": [french]}
    out = arbiter.replay(log).to_dict()
    assert out["deals"][0]["trump"] == "S"
    trick = out["deals"][0]["tricks"][0]
    assert trick["plays"] == [{"seat": 0, "card": "AD"}, {"seat": 1, "card": "KD"}]
    assert trick["points"] == 15


def test_bad_code_in_an_event_is_located() -> None:
    deal = _two_player_deal(
        ["1O", "3O", "12C", "11E", "10B", "7B", "6B", "5B"],
        ["4O", "5O", "6O", "7O", "10O", "11O", "12O", "2O"],
        "4E",
    )
    deal["events"] = [{"type": "play", "seat": 0, "card": "9O"}]
    with pytest.raises((CardCodeError, LogError)) as info:
        arbiter.replay({"ruleset": "tute-2p", "players": ["a", "b"], "deals": [deal]})
    assert info.value.pointer == "/deals/0/events/0/card"
    assert "'9O'" in str(info.value)
