"""How the referee deals and plays the games of play-testing.

A :class:`Setting` is a game's table (ruleset, players, the options its log sets — at random
with ``options_random``); :func:`deal_of` deals it, now and then giving one seat a tute or two
pairs, which random deals rarely do and the rules about declarations need. The referee plays the
deal on as a careless player would (:func:`arbiter.simulate.choose_move`, at the rates here): a
declaration now and then, sometimes any card of the hand.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence
from itertools import combinations
from typing import Any, Final, NamedTuple

from arbiter.conformance.kit.protocol import NAMES
from arbiter.engine.cards import HORSE, KING, Suit, cards_of, make_card, pack_mask
from arbiter.engine.log import Header, parse_header
from arbiter.engine.moves import PLAY, Move
from arbiter.engine.rulesets import RULESETS, CanteStyle, OptionSpec
from arbiter.engine.setup import deal_json
from arbiter.engine.state import DealState
from arbiter.simulate import choose_move, random_deal_cards

#: How many deals a game may hold (the match may end sooner): mostly one.
GAME_DEALS: Final = (1, 1, 1, 2, 3)
RENUNCIO_RATE: Final = 0.04
DECLARE_RATE: Final = 0.5
#: How often a tute, which ends the deal, is declared when it is open and chosen.
TUTE_RATE: Final = 0.3
#: How often a deal gives one seat a tute, or two pairs (which random deals rarely do).
RICH_DEALS: Final = 0.3


def play_rates(blocks: bool, declarations: str) -> tuple[float, float, float]:
    """How the referee plays on against an engine (:func:`arbiter.simulate.choose_move`'s
    rates): no renuncio at a table that blocks them — every position asked is one it can
    reach — and no declaration for an engine without any."""
    renuncio = 0.0 if blocks else RENUNCIO_RATE
    if declarations == "none":
        return renuncio, 0.0, 0.0
    return renuncio, DECLARE_RATE, TUTE_RATE


#: Directed play: the share of games that steer toward a tie, and how often such a game's last
#: card of a trick is the one that leaves the scores closest.
AIMED_GAMES: Final = 0.85
STEER_RATE: Final = 0.9
#: Options that decide rare situations, set in aimed games of an engine that plays any options
#: (each at random among its values): a tie left unbroken, partner relief by a trump.
AIMED_OPTIONS: Final = {"tie_break": ("last_trick", "none"), "partner_relief": (True, False)}


def aimed(setting: Setting, rng: random.Random) -> Setting:
    """The table of a game aimed at ties, with the options that decide the rare situations."""
    specs = {spec.name for spec in RULESETS[setting.ruleset].option_specs}
    options = dict(setting.options)
    for name, values in AIMED_OPTIONS.items():
        if name in specs:
            options[name] = rng.choice(values)
    return setting._replace(options=options)


def _gap_after(deal: DealState, move: Move) -> int:
    """How far apart the two closest sides stand once ``move`` ends the trick (the engine
    plays it on a copy: who wins the trick and what it is worth are the engine's to say)."""
    after = deal.copy()
    after.apply(move, after.events_applied)
    return min(b - a for a, b in itertools.pairwise(_sides(after)))


#: The most ways to play the rest of a deal (each hand's size, factorial, multiplied) from
#: which an aimed game looks, once a deal, for a way to a tie to the end.
SEARCHED: Final = 600


def _sides(deal: DealState) -> list[int]:
    totals = deal.totals()
    if deal.ruleset.pairs:
        return sorted([totals[0] + totals[2], totals[1] + totals[3]])
    return sorted(totals)


def tie_line(deal: DealState, rng: random.Random) -> list[Move] | None:
    """Correct plays from here to the deal's end that leave two sides tied (depth first, in a
    random order: whichever side takes the last trick), or None."""
    if deal.over:
        sides = _sides(deal)
        return [] if any(a == b for a, b in itertools.pairwise(sides)) else None
    plays = [move for move in deal.legal_moves() if move.kind == PLAY]
    rng.shuffle(plays)
    for move in plays:
        after = deal.copy()
        after.apply(move, after.events_applied)
        rest = tie_line(after, rng)
        if rest is not None:
            return [move, *rest]
    return None


class Aim:
    """Directed play's state in a deal: the way to a tie once searched for (and found)."""

    def __init__(self) -> None:
        self.searched = False
        self.line: list[Move] = []


def steered(
    deal: DealState, rng: random.Random, rates: tuple[float, float, float], aim: Aim
) -> Move:
    """The referee's move in a game aimed at ties: near the end, the next move of a way to a
    tie (searched for once, and followed); before it, the last card of a trick most often the
    correct one that leaves the scores closest; any other move as :func:`choose_move` plays."""
    if aim.line:
        return aim.line.pop(0)
    ways = math.prod(math.factorial(hand.bit_count()) for hand in deal.hands)
    if not aim.searched and not deal.trick and not deal.stock_left and ways <= SEARCHED:
        aim.searched = True
        found = tie_line(deal, rng)
        if found:
            aim.line.extend(found[1:])
            return found[0]
    if deal.trick and len(deal.trick) == deal.players - 1 and rng.random() < STEER_RATE:
        plays = [m for m in deal.legal_moves() if m.kind == PLAY]
        if plays:
            return min(plays, key=lambda m: (_gap_after(deal, m), rng.random()))
    return choose_move(deal, rng, *rates)


class Setting(NamedTuple):
    """A game's table: ruleset, number of players and the options its log sets."""

    ruleset: str
    players: int
    options: dict[str, Any]

    def head(self) -> dict[str, Any]:
        """The log's fields before its deals."""
        head: dict[str, Any] = {"ruleset": self.ruleset}
        if self.options:
            head["options"] = self.options
        head["players"] = list(NAMES[: self.players])
        return head

    def log(self, deals: Sequence[dict[str, Any]]) -> dict[str, Any]:
        return {**self.head(), "deals": list(deals)}

    def header(self) -> Header:
        return parse_header(self.head())


#: Integer options with more values than this are sampled (see :func:`option_values`).
WIDEST_FULL_RANGE: Final = 8


def option_values(spec: OptionSpec) -> tuple[Any, ...]:
    """The values of an option that play-testing and the published set exercise: all of them,
    except for an integer range wider than :data:`WIDEST_FULL_RANGE`, of which the minimum, the
    one after it, the default and the maximum; ranks are every pair of two different ranks, low
    first."""
    if spec.type == "boolean":
        return (True, False)
    if spec.type == "ranks":
        ranks = sorted(spec.to_dict()["allowed"])
        return tuple(list(pair) for pair in combinations(ranks, 2))
    if spec.allowed is not None:
        return tuple(spec.allowed)
    assert spec.minimum is not None and spec.maximum is not None
    if spec.maximum - spec.minimum < WIDEST_FULL_RANGE:
        return tuple(range(spec.minimum, spec.maximum + 1))
    return tuple(sorted({spec.minimum, spec.minimum + 1, spec.default, spec.maximum}))


def setting_of(rulesets: Sequence[str], options_random: bool, rng: random.Random) -> Setting:
    """A table of one of ``rulesets``, with options at random (``options_random``)."""
    name = rng.choice(rulesets)
    ruleset = RULESETS[name]
    options: dict[str, Any] = {}
    if options_random:
        for spec in ruleset.option_specs:
            if rng.random() < 0.5:
                options[spec.name] = rng.choice(option_values(spec))
    return Setting(name, rng.choice(ruleset.players), options)


def deal_of(setting: Setting, dealer: int, rng: random.Random) -> dict[str, Any]:
    """A deal in the log's form, with ``dealer``: shuffled, or (now and then) with a tute or
    two pairs dealt to one seat, which the rules about declarations need."""
    ruleset = RULESETS[setting.ruleset]
    n = setting.players
    declared = ruleset.cantes == CanteStyle.DECLARED
    if not declared or rng.random() >= RICH_DEALS:
        return random_deal_cards(setting.ruleset, n, dealer, rng, as_deck=rng.random() < 0.5)
    seat = rng.randrange(n)
    if ruleset.tute and rng.random() < 0.5:
        rank = rng.choice((KING, HORSE))
        given = [make_card(rank, s) for s in Suit]
    else:
        given = [make_card(r, s) for s in rng.sample(list(Suit), 2) for r in (KING, HORSE)]
    rest = [c for c in cards_of(pack_mask(ruleset.removed_rank[n])) if c not in given]
    rng.shuffle(rest)
    size = ruleset.hand_size[n]
    hands = [[] if s != seat else list(given) for s in range(n)]
    for s in range(n):
        while len(hands[s]) < size:
            hands[s].append(rest.pop())
    return deal_json(ruleset, dealer, hands, rest)
