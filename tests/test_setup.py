"""Deal setup from ``hands`` (+ ``stock`` / ``trump_card``) and from ``deck`` (docs/api.md, log).

Every expected hand, stock and trump card is computed here by hand from the dealing convention of
docs/api.md: one card at a time, starting with the mano = (dealer + 1) mod n, in seat order; in
tute-2p the rest of the deck is the stock; the last card of the deck is the turned card (tute-2p)
or the dealer's last card and trump card (tute-3p, tute-4p).
"""

from __future__ import annotations

import copy
from pathlib import Path
from types import MappingProxyType
from typing import Any

import orjson
import pytest

import arbiter
from arbiter.engine.cards import Notation, cards_of, format_card, parse_card
from arbiter.engine.errors import ArbiterError, SetupError
from arbiter.engine.match import replay as engine_replay
from arbiter.engine.obligations import NO_TRUMP
from arbiter.engine.rulesets import get_ruleset
from arbiter.engine.setup import build_setup, deal_json
from tests import reference

EXAMPLE = Path(__file__).parent.parent / "examples" / "tute-4p-renuncio.json"

CASES = list(reference.TABLES)
SUIT_OF = {suit: i for i, suit in enumerate(reference.SUITS)}


def pack(name: str, players: int) -> list[str]:
    """The ruleset's pack in a fixed order: by suit O C E B, then rank number."""
    return reference.codes(reference.pack_of(name, players))


def to_french(code: str, suits: dict[str, str] = reference.FRENCH_SUITS) -> str:
    """A Spanish card code in French notation (suit letters, or ``FRENCH_SYMBOLS``)."""
    rank, suit = reference.card(code)
    return reference.FRENCH_RANKS[rank] + suits[suit]


def shuffled_pack(name: str, players: int) -> list[str]:
    """A deterministic, well-mixed order of the pack (stride 7 through it)."""
    cards = pack(name, players)
    n = len(cards)
    step = 7 if n % 7 else 11
    return [cards[(i * step) % n] for i in range(n)]


def hands_deal(name: str, players: int, dealer: int | None = None) -> dict[str, Any]:
    """A correct deal given as ``hands`` (+ ``stock`` / ``trump_card``), built by hand."""
    size = reference.HAND_SIZE[(name, players)]
    dealer = players - 1 if dealer is None else dealer
    cards = shuffled_pack(name, players)
    hands = [cards[s * size : (s + 1) * size] for s in range(players)]
    deal: dict[str, Any] = {"dealer": dealer, "hands": hands}
    if name == reference.STOCK:
        deal["stock"] = cards[players * size :]
    elif name in reference.DEALER_TRUMP:
        deal["trump_card"] = hands[dealer][-1]
    return deal


def setup(name: str, players: int, deal: dict[str, Any], notation: str = "spanish") -> Any:
    dealer = deal.get("dealer", players - 1)
    return build_setup(get_ruleset(name), players, dealer, deal, notation)  # type: ignore[arg-type]


def codes(mask: int) -> set[str]:
    return {format_card(c) for c in cards_of(mask)}


def log(name: str, players: int, deals: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"ruleset": name, "players": [f"p{i}" for i in range(players)], "deals": deals, **extra}


# --- correct setups from hands -------------------------------------------------------------


@pytest.mark.parametrize(("name", "players"), CASES)
def test_hands_setup(name: str, players: int) -> None:
    deal = hands_deal(name, players)
    result = setup(name, players, deal)
    assert result.dealer == players - 1
    assert [codes(h) for h in result.hands] == [set(h) for h in deal["hands"]]
    if name == reference.STOCK:
        assert [format_card(c) for c in result.stock] == deal["stock"]
        assert format_card(result.trump_card) == deal["stock"][-1]
        assert result.trump == SUIT_OF[deal["stock"][-1][-1]]
    elif name in reference.DEALER_TRUMP:
        assert result.stock == ()
        assert format_card(result.trump_card) == deal["trump_card"]
        assert result.trump == SUIT_OF[deal["trump_card"][-1]]
    else:  # cabrón and gana-pierde: no trump until the first call
        assert result.stock == ()
        assert result.trump_card is None
        assert result.trump == NO_TRUMP


def test_hands_setup_is_case_insensitive() -> None:
    deal = hands_deal("tute-4p", 4)
    lower = {
        "dealer": 3,
        "hands": [[c.lower() for c in h] for h in deal["hands"]],
        "trump_card": deal["trump_card"].lower(),
    }
    result = setup("tute-4p", 4, lower)
    assert [codes(h) for h in result.hands] == [set(h) for h in deal["hands"]]
    assert format_card(result.trump_card) == deal["trump_card"]


def test_hands_setup_in_french() -> None:
    deal = hands_deal("tute-3p", 3)
    french = {
        "dealer": 2,
        "hands": [[to_french(c) for c in h] for h in deal["hands"]],
        "trump_card": to_french(deal["trump_card"]),
    }
    result = setup("tute-3p", 3, french, "french")
    assert [codes(h) for h in result.hands] == [set(h) for h in deal["hands"]]
    assert format_card(result.trump_card) == deal["trump_card"]
    # A Spanish 2 is a French "2" too: still not in the tute-3p pack.
    french["hands"][0][0] = "2H"
    with pytest.raises(SetupError) as info:
        setup("tute-3p", 3, french, "french")
    assert info.value.path == ("hands", 0, 0)
    assert "2H" in info.value.message


def test_trump_card_may_be_any_card_of_the_dealer() -> None:
    deal = hands_deal("tute-4p", 4, dealer=1)
    deal["trump_card"] = deal["hands"][1][0]
    result = setup("tute-4p", 4, deal)
    assert format_card(result.trump_card) == deal["hands"][1][0]


# --- correct setups from a deck ------------------------------------------------------------


@pytest.mark.parametrize(("name", "players"), CASES)
@pytest.mark.parametrize("dealer_shift", [0, 1])
def test_deck_setup_deals_one_at_a_time_from_the_mano(
    name: str, players: int, dealer_shift: int
) -> None:
    size = reference.HAND_SIZE[(name, players)]
    dealer = (players - 1 + dealer_shift) % players
    mano = (dealer + 1) % players
    deck = shuffled_pack(name, players)
    result = setup(name, players, {"dealer": dealer, "deck": deck})
    # By hand: seat (mano + k) % n receives deck[k], deck[k + n], deck[k + 2n], ...
    for k in range(players):
        seat = (mano + k) % players
        expected = {deck[k + players * i] for i in range(size)}
        assert codes(result.hands[seat]) == expected, seat
    if name == reference.STOCK:
        assert [format_card(c) for c in result.stock] == deck[players * size :]
        assert len(result.stock) == len(deck) - players * size
        assert format_card(result.trump_card) == deck[-1]
    elif name in reference.DEALER_TRUMP:
        assert result.stock == ()
        assert format_card(result.trump_card) == deck[-1]
        # The last card dealt goes to the dealer.
        assert parse_card(deck[-1]) in cards_of(result.hands[dealer])
    else:
        assert result.trump_card is None


@pytest.mark.parametrize(("name", "players"), CASES)
@pytest.mark.parametrize("as_deck", [False, True])
@pytest.mark.parametrize("notation", ["spanish", "french"])
def test_a_deal_the_engine_writes_reads_back_as_dealt(
    name: str, players: int, as_deck: bool, notation: Notation
) -> None:
    """``deal_json`` (the one writer of a deal's JSON: random games, play-testing, the vectors'
    generator) writes what ``build_setup`` reads: the same hands, stock and trump card, as
    ``hands`` or as a ``deck``, for every dealer."""
    size = reference.HAND_SIZE[(name, players)]
    cards = [parse_card(c) for c in shuffled_pack(name, players)]
    hands = [cards[s * size : (s + 1) * size] for s in range(players)]
    stock = cards[players * size :]
    ruleset = get_ruleset(name)
    for dealer in range(players):
        raw = deal_json(ruleset, dealer, hands, stock, as_deck=as_deck, notation=notation)
        assert ("deck" in raw, "hands" in raw) == (as_deck, not as_deck)
        result = setup(name, players, raw, notation)
        assert result.hands == tuple(sum(1 << c for c in hand) for hand in hands)
        assert list(result.stock) == stock
        if name == reference.STOCK:
            assert result.trump_card == stock[-1]
        elif name in reference.DEALER_TRUMP:
            assert result.trump_card == hands[dealer][-1]
        else:
            assert result.trump_card is None


def test_deck_example_tute_4p() -> None:
    # dealer 0, mano 1: deck[0] -> seat 1, deck[1] -> seat 2, deck[2] -> seat 3, deck[3] -> seat 0
    deck = pack("tute-4p", 4)  # 1O 2O 3O 4O 5O 6O 7O 10O 11O 12O 1C ...
    result = setup("tute-4p", 4, {"dealer": 0, "deck": deck})
    assert codes(result.hands[1]) >= {"1O", "5O", "11O"}
    assert codes(result.hands[2]) >= {"2O", "6O", "12O"}
    assert codes(result.hands[3]) >= {"3O", "7O", "1C"}
    assert codes(result.hands[0]) >= {"4O", "10O", "2C"}
    assert format_card(result.trump_card) == "12B"
    assert "12B" in codes(result.hands[0])
    assert result.trump == 3


def test_deck_example_tute_2p() -> None:
    # dealer 1, mano 0: seat 0 takes the even places of the first 16, seat 1 the odd ones.
    deck = pack("tute-2p", 2)
    result = setup("tute-2p", 2, {"dealer": 1, "deck": deck})
    assert codes(result.hands[0]) == {"1O", "3O", "5O", "7O", "11O", "1C", "3C", "5C"}
    assert codes(result.hands[1]) == {"2O", "4O", "6O", "10O", "12O", "2C", "4C", "6C"}
    assert format_card(result.stock[0]) == "7C"
    assert format_card(result.stock[-1]) == "12B"
    assert result.trump == 3


def test_deck_and_hands_give_the_same_replay() -> None:
    deck = shuffled_pack("tute-4p", 4)
    from_deck = {"dealer": 3, "deck": deck, "events": []}
    hands = [[deck[s + 4 * i] for i in range(10)] for s in range(4)]
    from_hands = {"dealer": 3, "hands": hands, "trump_card": deck[-1], "events": []}
    a = arbiter.replay(log("tute-4p", 4, [from_deck])).to_dict()
    b = arbiter.replay(log("tute-4p", 4, [from_hands])).to_dict()
    assert a == b
    assert a["deals"][0]["trump"] == deck[-1][-1]
    assert a["next"]["seat"] == 0  # the mano leads


# --- setup errors ------------------------------------------------------------------------


def _expect(name: str, players: int, deal: dict[str, Any], path: tuple[Any, ...]) -> SetupError:
    with pytest.raises(SetupError) as info:
        setup(name, players, deal)
    assert info.value.path == path
    assert isinstance(info.value, ArbiterError)
    return info.value


@pytest.mark.parametrize(("name", "players"), CASES)
def test_wrong_number_of_hands(name: str, players: int) -> None:
    deal = hands_deal(name, players)
    deal["hands"] = deal["hands"][:-1]
    _expect(name, players, deal, ("hands",))
    deal = hands_deal(name, players)
    deal["hands"] = [*deal["hands"], []]
    _expect(name, players, deal, ("hands",))


@pytest.mark.parametrize(("name", "players"), CASES)
def test_wrong_hand_size(name: str, players: int) -> None:
    deal = hands_deal(name, players)
    moved = deal["hands"][1].pop()
    deal["hands"][0].append(moved)
    if deal.get("trump_card") == moved:
        deal["trump_card"] = deal["hands"][players - 1][0]
    err = _expect(name, players, deal, ("hands", 0))
    assert "0" in err.message


@pytest.mark.parametrize(("name", "players"), CASES)
def test_duplicate_card_names_seat_and_card(name: str, players: int) -> None:
    deal = hands_deal(name, players)
    card = deal["hands"][0][2]
    deal["hands"][1][3] = card
    err = _expect(name, players, deal, ("hands", 1, 3))
    assert card in err.message


def test_duplicate_in_the_same_hand() -> None:
    deal = hands_deal("tute-4p", 4)
    deal["hands"][2][5] = deal["hands"][2][1]
    err = _expect("tute-4p", 4, deal, ("hands", 2, 5))
    assert deal["hands"][2][1] in err.message


def test_duplicate_between_hand_and_stock() -> None:
    deal = hands_deal("tute-2p", 2)
    deal["stock"][4] = deal["hands"][1][6]
    err = _expect("tute-2p", 2, deal, ("stock", 4))
    assert deal["hands"][1][6] in err.message


@pytest.mark.parametrize(
    ("name", "players", "outsider"),
    [("tute-3p", 3, "2O"), ("tute-3p", 3, "2B"), ("tute-cabron", 3, "2C"),
     ("tute-gana-pierde", 3, "1E"), ("tute-gana-pierde", 3, "1O")],
)  # fmt: skip
def test_card_not_in_the_pack(name: str, players: int, outsider: str) -> None:
    deal = hands_deal(name, players)
    deal["hands"][1][3] = outsider
    err = _expect(name, players, deal, ("hands", 1, 3))
    assert outsider in err.message


def test_card_not_in_the_pack_in_a_deck() -> None:
    deck = shuffled_pack("tute-3p", 3)
    deck[20] = "2E"
    with pytest.raises(SetupError) as info:
        setup("tute-3p", 3, {"dealer": 2, "deck": deck})
    assert info.value.path == ("deck", 20)
    assert "2E" in info.value.message


@pytest.mark.parametrize("bad", ["9O", "8C", "XX", "", 12, None, "1Z"])
def test_bad_code(bad: object) -> None:
    deal = hands_deal("tute-4p", 4)
    deal["hands"][2][7] = bad
    err = _expect("tute-4p", 4, deal, ("hands", 2, 7))
    assert repr(bad) in err.message


def test_bad_code_in_stock_and_deck() -> None:
    deal = hands_deal("tute-2p", 2)
    deal["stock"][10] = "8E"
    _expect("tute-2p", 2, deal, ("stock", 10))
    deck = shuffled_pack("tute-2p", 2)
    deck[39] = "13B"
    with pytest.raises(SetupError) as info:
        setup("tute-2p", 2, {"dealer": 1, "deck": deck})
    assert info.value.path == ("deck", 39)
    assert "13B" in info.value.message


def test_missing_cards_from_stock() -> None:
    deal = hands_deal("tute-2p", 2)
    gone = deal["stock"].pop(5)
    err = _expect("tute-2p", 2, deal, ("stock",))
    assert gone in err.message


@pytest.mark.parametrize(("name", "players"), CASES)
def test_missing_cards_from_deck(name: str, players: int) -> None:
    deck = shuffled_pack(name, players)
    gone = deck.pop(3)
    with pytest.raises(SetupError) as info:
        setup(name, players, {"dealer": players - 1, "deck": deck})
    assert info.value.path == ("deck",)
    assert gone in info.value.message


@pytest.mark.parametrize(("name", "players"), CASES)
def test_duplicate_in_deck(name: str, players: int) -> None:
    deck = shuffled_pack(name, players)
    deck[7] = deck[2]
    with pytest.raises(SetupError) as info:
        setup(name, players, {"dealer": players - 1, "deck": deck})
    assert info.value.path == ("deck", 7)
    assert deck[2] in info.value.message


def test_deck_too_long() -> None:
    deck = [*shuffled_pack("tute-4p", 4), "1O"]
    with pytest.raises(SetupError) as info:
        setup("tute-4p", 4, {"dealer": 3, "deck": deck})
    assert info.value.path == ("deck", 40)


@pytest.mark.parametrize("name", ["tute-3p", "tute-4p"])
def test_trump_card_not_in_dealers_hand(name: str) -> None:
    players = 3 if name == "tute-3p" else 4
    deal = hands_deal(name, players)
    deal["trump_card"] = deal["hands"][0][0]  # seat 0 is not the dealer
    err = _expect(name, players, deal, ("trump_card",))
    assert deal["hands"][0][0] in err.message


def test_trump_card_bad_code() -> None:
    deal = hands_deal("tute-4p", 4)
    deal["trump_card"] = "9O"
    err = _expect("tute-4p", 4, deal, ("trump_card",))
    assert "'9O'" in err.message


@pytest.mark.parametrize("name", ["tute-3p", "tute-4p"])
def test_missing_trump_card(name: str) -> None:
    players = 3 if name == "tute-3p" else 4
    deal = hands_deal(name, players)
    del deal["trump_card"]
    _expect(name, players, deal, ("trump_card",))


def test_missing_stock() -> None:
    deal = hands_deal("tute-2p", 2)
    del deal["stock"]
    _expect("tute-2p", 2, deal, ("stock",))


@pytest.mark.parametrize(("name", "players"), [c for c in CASES if c[0] != reference.STOCK])
def test_stock_where_the_ruleset_has_none(name: str, players: int) -> None:
    deal = hands_deal(name, players)
    deal["stock"] = []
    _expect(name, players, deal, ("stock",))


@pytest.mark.parametrize(
    ("name", "players"), [c for c in CASES if c[0] not in reference.DEALER_TRUMP]
)
def test_trump_card_where_the_ruleset_has_none(name: str, players: int) -> None:
    deal = hands_deal(name, players)
    deal["trump_card"] = deal["hands"][players - 1][0]
    _expect(name, players, deal, ("trump_card",))


@pytest.mark.parametrize("extra", ["stock", "trump_card"])
def test_deck_with_stock_or_trump_card(extra: str) -> None:
    name = "tute-2p" if extra == "stock" else "tute-4p"
    players = 2 if extra == "stock" else 4
    deck = shuffled_pack(name, players)
    deal = {"dealer": players - 1, "deck": deck, extra: deck[-1:] if extra == "stock" else deck[-1]}
    _expect(name, players, deal, (extra,))


def test_both_hands_and_deck() -> None:
    deal = hands_deal("tute-4p", 4)
    deal["deck"] = shuffled_pack("tute-4p", 4)
    _expect("tute-4p", 4, deal, ())


def test_neither_hands_nor_deck() -> None:
    _expect("tute-4p", 4, {"dealer": 3}, ())


@pytest.mark.parametrize("bad", ["1O 2O", None, 5, {"0": []}])
def test_hands_not_a_list(bad: object) -> None:
    _expect("tute-4p", 4, {"dealer": 3, "hands": bad, "trump_card": "1O"}, ("hands",))


def test_a_hand_not_a_list() -> None:
    deal = hands_deal("tute-4p", 4)
    deal["hands"][2] = "1O"
    _expect("tute-4p", 4, deal, ("hands", 2))


# --- the same errors through the engine's replay: the pointer is prefixed with /deals/i -----


def test_pointer_through_the_replay_on_second_deal() -> None:
    good = hands_deal("tute-4p", 4)
    bad = hands_deal("tute-4p", 4, dealer=0)
    bad["hands"][1][3] = bad["hands"][0][2]
    with pytest.raises(SetupError) as info:
        engine_replay(log("tute-4p", 4, [good, bad]))
    assert info.value.path == ("deals", 1, "hands", 1, 3)
    assert info.value.pointer == "/deals/1/hands/1/3"


@pytest.mark.parametrize(
    ("mutate", "pointer"),
    [
        (lambda d: d["hands"][1].__setitem__(3, "2O"), "/deals/0/hands/1/3"),
        (lambda d: d["hands"][2].pop(), "/deals/0/hands/2"),
        (lambda d: d["hands"].pop(), "/deals/0/hands"),
        (lambda d: d.__setitem__("trump_card", d["hands"][0][0]), "/deals/0/trump_card"),
        (lambda d: d.pop("trump_card"), "/deals/0/trump_card"),
        (lambda d: d.__setitem__("stock", []), "/deals/0/stock"),
        (lambda d: d.__setitem__("deck", []), "/deals/0"),
        (lambda d: d["hands"][0].__setitem__(0, "9O"), "/deals/0/hands/0/0"),
    ],
)
def test_pointer_through_the_replay(mutate: Any, pointer: str) -> None:
    deal = hands_deal("tute-3p", 3)
    mutate(deal)
    with pytest.raises(SetupError) as info:
        engine_replay(log("tute-3p", 3, [deal]))
    assert info.value.pointer == pointer


def test_deck_errors_through_replay() -> None:
    deck = shuffled_pack("tute-2p", 2)
    deck[12] = deck[30]
    with pytest.raises(SetupError) as info:
        arbiter.replay(log("tute-2p", 2, [{"deck": deck}]))
    assert info.value.pointer == "/deals/0/deck/30"  # the second occurrence
    assert deck[12] in info.value.message


def test_dealer_defaults_and_rotation() -> None:
    # Without "dealer" the first mano is seat 0 (dealer n-1), and the deal rotates.
    first = hands_deal("tute-cabron", 3)
    del first["dealer"]
    assert engine_replay(log("tute-cabron", 3, [first])).deals[0].dealer == 2
    deal = copy.deepcopy(hands_deal("tute-2p", 2))
    del deal["dealer"]
    assert engine_replay(log("tute-2p", 2, [deal])).deals[0].dealer == 1


# --- case-insensitive codes everywhere, and errors found after lower-case lists ---------------


def test_deck_in_lower_case() -> None:
    deck = shuffled_pack("tute-2p", 2)
    upper = setup("tute-2p", 2, {"dealer": 1, "deck": deck})
    lower = setup("tute-2p", 2, {"dealer": 1, "deck": [c.lower() for c in deck]})
    assert lower == upper


def test_stock_in_lower_case() -> None:
    deal = hands_deal("tute-2p", 2)
    upper = setup("tute-2p", 2, deal)
    deal["stock"] = [c.lower() for c in deal["stock"]]
    assert setup("tute-2p", 2, deal) == upper


def test_mixed_case_duplicate() -> None:
    deal = hands_deal("tute-4p", 4)
    card = deal["hands"][0][4]
    deal["hands"][0] = [c.lower() for c in deal["hands"][0]]
    deal["hands"][2][6] = card  # the same card, upper case, in another hand
    err = _expect("tute-4p", 4, deal, ("hands", 2, 6))
    assert card in err.message


def test_error_after_a_lower_case_hand() -> None:
    deal = hands_deal("tute-3p", 3)
    deal["hands"][0] = [c.lower() for c in deal["hands"][0]]
    deal["hands"][1][5] = "2C"  # not in the tute-3p pack
    err = _expect("tute-3p", 3, deal, ("hands", 1, 5))
    assert "2C" in err.message
    deal = hands_deal("tute-3p", 3)
    deal["hands"][0] = [c.lower() for c in deal["hands"][0]]
    deal["hands"][2].pop()
    deal["trump_card"] = deal["hands"][2][0]
    _expect("tute-3p", 3, deal, ("hands", 2))


def test_french_deck_with_symbols() -> None:
    deck = shuffled_pack("tute-4p", 4)
    french = [to_french(c, reference.FRENCH_SYMBOLS) for c in deck]
    assert setup("tute-4p", 4, {"dealer": 3, "deck": french}, "french") == setup(
        "tute-4p", 4, {"dealer": 3, "deck": deck}
    )


# --- the shape of the JSON: objects and arrays, whatever made them ------------------------


def _example() -> dict[str, Any]:
    return orjson.loads(EXAMPLE.read_bytes())  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("spoil", "path"),
    [
        (lambda lg: ["not", "an", "object"], ()),
        (lambda lg: {**lg, "options": ["x"]}, ("options",)),
        (lambda lg: {**lg, "deals": ["a deal"]}, ()),
        (lambda lg: {**lg, "deals": [{**lg["deals"][0], "hands": "1O 2O 3O"}]}, ("hands",)),
        (lambda lg: {**lg, "deals": [{**lg["deals"][0], "hands": {"0": []}}]}, ("hands",)),
    ],
    ids=["log-array", "options-array", "deal-string", "hands-string", "hands-object"],
)
def test_a_value_of_the_wrong_json_shape_is_refused(spoil: Any, path: tuple[str, ...]) -> None:
    with pytest.raises(ArbiterError) as caught:
        engine_replay(spoil(_example()))
    assert tuple(caught.value.path[-len(path) :]) == path if path else True
    assert "object" in caught.value.message or "list" in caught.value.message


def test_any_mapping_and_sequence_read_as_json_objects_and_arrays() -> None:
    """The fast ``dict``/``list`` checks must not narrow what the library takes: read-only
    mappings (and hands as a tuple) replay as the parser's dicts and lists do."""
    plain = _example()

    def frozen(value: Any) -> Any:
        if isinstance(value, dict):
            return MappingProxyType({k: frozen(v) for k, v in value.items()})
        if isinstance(value, list):
            return [frozen(v) for v in value]
        return value

    other = frozen(plain)
    other["deals"][0] = MappingProxyType(
        {**other["deals"][0], "hands": tuple(plain["deals"][0]["hands"])}
    )
    assert arbiter.replay(other).to_dict() == arbiter.replay(plain).to_dict()
