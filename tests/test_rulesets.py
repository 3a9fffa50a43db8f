"""The five rulesets of docs/rules.md §6 and their options (docs/rules.md §3, §4, §6, §7).

The tables below are copied by hand from docs/rules.md, so a ruleset that drifts from the rulebook
fails here.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import arbiter
from arbiter.engine.cards import make_card, mask_points, pack_mask
from arbiter.engine.errors import ArbiterError, OptionError
from arbiter.engine.log import parse_header
from arbiter.engine.rulesets import RULESETS, Options, get_ruleset, resolve_options
from arbiter.i18n import ruleset_dict
from arbiter.simulate import random_deal_cards
from arbiter.words import CATALOGUE
from tests import reference
from tests.reference import DEFAULT_OPTIONS as DEFAULTS

NAMES = ("tute-2p", "tute-3p", "tute-4p", "tute-cabron", "tute-gana-pierde")

#: docs/rules.md §6: ruleset -> {players: (cards each, removed rank, pack size, pack points)}
SEATS = {
    "tute-2p": {2: (8, None, 40, 120)},
    "tute-3p": {3: (12, 2, 36, 120)},
    "tute-4p": {4: (10, None, 40, 120)},
    "tute-cabron": {3: (12, 2, 36, 120)},
    "tute-gana-pierde": {3: (12, 1, 36, 76), 4: (10, None, 40, 120), 5: (8, None, 40, 120)},
}

#: docs/rules.md: which options each ruleset has.
DECLARED = {"match_target", "tie_break", "cantes_per_trick", "trump_when_cannot_overtrump",
            "tute_requires_trick_won", "renuncio_penalty"}  # fmt: skip
OPTIONS_OF = {
    "tute-2p": DECLARED | {"exchange_requires_trick_won"},
    "tute-3p": DECLARED,
    "tute-4p": DECLARED | {"partner_relief"},
    "tute-cabron": {"trump_when_cannot_overtrump", "renuncio_penalty", "loser_target",
                    "call_ranks"},
    "tute-gana-pierde": {"trump_when_cannot_overtrump", "renuncio_penalty", "token_target",
                         "call_ranks"},
}  # fmt: skip
ALL_OPTIONS = set().union(*OPTIONS_OF.values())


#: Values docs/rules.md allows (a sample for the open-ended integers).
GOOD_VALUES: dict[str, list[Any]] = {
    "match_target": [3, 5, 7],
    "tie_break": ["last_trick", "none"],
    "cantes_per_trick": [1, 2],
    "trump_when_cannot_overtrump": [True, False],
    "partner_relief": [True, False],
    "tute_requires_trick_won": [True, False],
    "exchange_requires_trick_won": [True, False],
    "renuncio_penalty": ["lose_deal", "lose_match"],
    "loser_target": [1, 4, 10],
    "token_target": [1, 3, 10],
    "call_ranks": [[11, 12], [7, 10]],
}

BAD_VALUES: dict[str, list[Any]] = {
    "match_target": [1, 2, 4, 6, 9, 0, -3, "3", 3.0, True, None, [3]],
    "tie_break": ["random", "LAST_TRICK", "", 1, None, True],
    "cantes_per_trick": [0, -1, "1", 1.5, True, None],
    "trump_when_cannot_overtrump": [1, 0, "true", "false", None, "yes"],
    "partner_relief": [1, 0, "false", None],
    "tute_requires_trick_won": [1, "true", None],
    "exchange_requires_trick_won": [0, "no", None],
    "renuncio_penalty": ["lose_game", "deal", "", 0, None, False],
    "loser_target": [0, -4, "4", 4.0, True, None],
    "token_target": [0, -1, "3", 2.5, False, None],
    "call_ranks": [[11, 11], [8, 11], [11, 9], [11], [10, 11, 12], [], "11,12", 11, None,
                   [True, 12], ["11", "12"], [0, 12], [11.0, 12.0]],
}  # fmt: skip


def _pairs(kind: dict[str, list[Any]]) -> list[tuple[str, str, Any]]:
    return [
        (ruleset, name, value)
        for ruleset, names in OPTIONS_OF.items()
        for name in sorted(names)
        for value in kind[name]
    ]


# --- static data -------------------------------------------------------------------------------


def test_the_five_rulesets() -> None:
    assert set(RULESETS) == set(NAMES)
    for name in NAMES:
        assert get_ruleset(name).name == name


def test_the_reference_knows_every_table_of_the_engine() -> None:
    """tests/reference.py, the cross-check, states the rules of every ruleset and table the
    engine has (the tests that sample its tables would leave out one it did not know), and
    refuses a ruleset it does not know rather than judge it by another's."""
    engine = {(name, n) for name, ruleset in RULESETS.items() for n in ruleset.players}
    assert set(reference.TABLES) == engine
    assert tuple(RULESETS) == reference.KNOWN
    log = {"ruleset": "tute-6p", "players": ["a", "b"], "deals": [{"hands": [[], []]}]}
    for refused in (lambda: reference.replay(log), lambda: reference.pack_of("tute-6p", 2)):
        with pytest.raises(reference.UnknownRuleset, match="does not know the ruleset 'tute-6p'"):
            refused()


@pytest.mark.parametrize("bad", ["tute", "tute-5p", "TUTE-2P", "", None, 2])
def test_unknown_ruleset(bad: object) -> None:
    with pytest.raises(OptionError) as info:
        get_ruleset(bad)
    assert info.value.path == ("ruleset",)


@pytest.mark.parametrize(
    ("name", "players", "size", "removed", "pack", "points"),
    [(name, n, *data) for name, table in SEATS.items() for n, data in table.items()],
)
def test_players_hands_and_pack(
    name: str, players: int, size: int, removed: int | None, pack: int, points: int
) -> None:
    ruleset = get_ruleset(name)
    assert ruleset.players == tuple(SEATS[name])
    assert ruleset.hand_size[players] == size
    assert ruleset.removed_rank[players] == removed
    mask = pack_mask(ruleset.removed_rank[players])
    assert mask.bit_count() == pack
    assert mask_points(mask) == points
    dealt = size * players
    if name == "tute-2p":
        assert pack - dealt == 24  # the stock
    else:
        assert dealt == pack  # all dealt
    for rank in (1, 2):
        for suit in range(4):
            present = bool(mask >> make_card(rank, suit) & 1)
            assert present == (rank != removed)


def test_three_player_gana_pierde_removes_aces_not_twos() -> None:
    mask = pack_mask(get_ruleset("tute-gana-pierde").removed_rank[3])
    assert mask_points(mask) == 76
    cabron = pack_mask(get_ruleset("tute-cabron").removed_rank[3])
    assert mask != cabron
    assert mask_points(cabron) == 120


@pytest.mark.parametrize(
    ("name", "trump_from", "cantes", "tute", "exchange", "stock", "pairs"),
    [
        ("tute-2p", "stock", "declared", True, True, True, False),
        ("tute-3p", "dealer", "declared", True, False, False, False),
        ("tute-4p", "dealer", "declared", True, False, False, True),
        ("tute-cabron", "call", "in_trick", False, False, False, False),
        ("tute-gana-pierde", "call", "in_trick", False, False, False, False),
    ],
)
def test_trump_and_declarations(
    name: str, trump_from: str, cantes: str, tute: bool, exchange: bool, stock: bool, pairs: bool
) -> None:
    ruleset = get_ruleset(name)
    assert ruleset.trump_from == trump_from
    assert ruleset.cantes == cantes
    assert ruleset.tute is tute
    assert ruleset.exchange is exchange
    assert ruleset.stock is stock
    assert ruleset.pairs is pairs


@pytest.mark.parametrize(
    ("name", "outcome", "match"),
    [
        ("tute-2p", "most_points", "deals"),
        ("tute-3p", "most_points", "deals"),
        ("tute-4p", "most_points", "deals"),
        ("tute-cabron", "cabron", "loser_points"),
        ("tute-gana-pierde", "gana_pierde", "tokens"),
    ],
)
def test_outcome_and_match_system(name: str, outcome: str, match: str) -> None:
    ruleset = get_ruleset(name)
    assert ruleset.outcome == outcome
    assert ruleset.match == match


@pytest.mark.parametrize("name", NAMES)
def test_ruleset_description_for_the_api(name: str) -> None:
    body = ruleset_dict(get_ruleset(name))
    assert list(body)[:2] == ["name", "title"] and body["name"] == name
    # the title is words of the catalogue, English in the API (and the page's label)
    words = CATALOGUE["en"]
    assert body["title"] == words[f"ruleset.{name}"] == words[f"page.ruleset.{name}"]
    assert CATALOGUE["es"][f"ruleset.{name}"] and "title" not in get_ruleset(name).to_dict()
    assert isinstance(body["description"], str) and body["description"]
    assert body["players"] == list(SEATS[name])
    assert body["cards_per_player"] == {str(n): d[0] for n, d in SEATS[name].items()}
    assert set(body["options"]) == OPTIONS_OF[name]
    for option, spec in body["options"].items():
        default = DEFAULTS[option]
        assert spec["default"] == (list(default) if isinstance(default, tuple) else default)
        assert isinstance(spec["description"], str) and spec["description"]
        assert "type" in spec
    if "match_target" in body["options"]:
        assert body["options"]["match_target"]["allowed"] == [3, 5, 7]
    if "tie_break" in body["options"]:
        assert set(body["options"]["tie_break"]["allowed"]) == {"last_trick", "none"}
    assert set(body["options"]["renuncio_penalty"]["allowed"]) == {"lose_deal", "lose_match"}
    assert body["options"]["trump_when_cannot_overtrump"]["type"] == "boolean"


# --- options: which ruleset has which --------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_option_set_of_each_ruleset(name: str) -> None:
    ruleset = get_ruleset(name)
    assert {spec.name for spec in ruleset.option_specs} == OPTIONS_OF[name]
    for option in ALL_OPTIONS - OPTIONS_OF[name]:
        assert ruleset.option(option) is None


@pytest.mark.parametrize(
    ("name", "option"),
    [(name, option) for name in NAMES for option in sorted(ALL_OPTIONS - OPTIONS_OF[name])],
)
def test_option_of_another_ruleset_is_rejected(name: str, option: str) -> None:
    value = GOOD_VALUES[option][0]
    with pytest.raises(OptionError) as info:
        resolve_options(get_ruleset(name), {option: value})
    assert info.value.path == ("options", option)
    assert option in str(info.value)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("option", ["matchTarget", "trump", "", "renuncio", "players"])
def test_unknown_option_is_rejected(name: str, option: str) -> None:
    with pytest.raises(OptionError) as info:
        resolve_options(get_ruleset(name), {option: 1})
    assert info.value.path == ("options", option)


# --- options: defaults, allowed and bad values ---------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_defaults(name: str) -> None:
    ruleset = get_ruleset(name)
    for options in (resolve_options(ruleset, None), resolve_options(ruleset, {})):
        for option in OPTIONS_OF[name]:
            assert getattr(options, option) == DEFAULTS[option], option
            spec = ruleset.option(option)
            assert spec is not None
            assert spec.default == DEFAULTS[option]
    assert Options() == resolve_options(ruleset, None)
    for option, value in DEFAULTS.items():
        assert getattr(Options(), option) == value


@pytest.mark.parametrize(("name", "option", "value"), _pairs(GOOD_VALUES))
def test_allowed_value(name: str, option: str, value: Any) -> None:
    options = resolve_options(get_ruleset(name), {option: value})
    expected = tuple(value) if isinstance(value, list) else value
    assert getattr(options, option) == expected
    # Every other option keeps its default.
    for other in OPTIONS_OF[name] - {option}:
        assert getattr(options, other) == DEFAULTS[other]


@pytest.mark.parametrize(("name", "option", "value"), _pairs(BAD_VALUES))
def test_bad_value(name: str, option: str, value: Any) -> None:
    with pytest.raises(OptionError) as info:
        resolve_options(get_ruleset(name), {option: value})
    assert info.value.path == ("options", option)
    assert info.value.pointer == f"/options/{option}"
    assert option in str(info.value)


@pytest.mark.parametrize("name", ["tute-cabron", "tute-gana-pierde"])
def test_call_ranks_in_any_order(name: str) -> None:
    options = resolve_options(get_ruleset(name), {"call_ranks": [12, 11]})
    assert set(options.call_ranks) == {11, 12}


def test_several_options_at_once() -> None:
    options = resolve_options(
        get_ruleset("tute-4p"),
        {"match_target": 7, "partner_relief": True, "tie_break": "none", "cantes_per_trick": 2},
    )
    assert options.match_target == 7
    assert options.partner_relief is True
    assert options.tie_break == "none"
    assert options.cantes_per_trick == 2
    assert options.renuncio_penalty == "lose_deal"


@pytest.mark.parametrize("bad", [[], "match_target=5", 5, ["match_target"]])
def test_options_must_be_an_object(bad: object) -> None:
    with pytest.raises(OptionError) as info:
        resolve_options(get_ruleset("tute-2p"), bad)  # type: ignore[arg-type]
    assert info.value.path == ("options",)


# --- options in a log ----------------------------------------------------------------------


def _log(ruleset: str, players: int, options: dict[str, Any]) -> dict[str, Any]:
    deal = random_deal_cards(ruleset, players, players - 1, random.Random(1))
    deal["events"] = []
    names = [f"p{i}" for i in range(players)]
    return {"ruleset": ruleset, "options": options, "players": names, "deals": [deal]}


def test_options_of_a_log_are_applied() -> None:
    header = parse_header(_log("tute-2p", 2, {"match_target": 5, "tie_break": "none"}))
    assert header.options.match_target == 5
    assert header.options.tie_break == "none"
    assert header.options.cantes_per_trick == 1


@pytest.mark.parametrize(
    ("ruleset", "players", "options", "pointer"),
    [
        ("tute-2p", 2, {"match_target": 4}, "/options/match_target"),
        ("tute-2p", 2, {"partner_relief": True}, "/options/partner_relief"),
        ("tute-3p", 3, {"exchange_requires_trick_won": True},
         "/options/exchange_requires_trick_won"),
        ("tute-4p", 4, {"loser_target": 4}, "/options/loser_target"),
        ("tute-cabron", 3, {"match_target": 3}, "/options/match_target"),
        ("tute-cabron", 3, {"tute_requires_trick_won": False}, "/options/tute_requires_trick_won"),
        ("tute-gana-pierde", 4, {"loser_target": 4}, "/options/loser_target"),
        ("tute-gana-pierde", 5, {"token_target": 0}, "/options/token_target"),
        ("tute-cabron", 3, {"call_ranks": [11, 11]}, "/options/call_ranks"),
        ("tute-4p", 4, {"tie_break": "coin"}, "/options/tie_break"),
    ],
)  # fmt: skip
def test_bad_option_in_a_log(ruleset: str, players: int, options: dict[str, Any],
                             pointer: str) -> None:  # fmt: skip
    with pytest.raises(OptionError) as info:
        arbiter.replay(_log(ruleset, players, options))
    assert isinstance(info.value, ArbiterError)
    assert info.value.pointer == pointer
