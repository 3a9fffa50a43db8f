"""How the referee deals and plays the games of play-testing.

A :class:`Setting` is a game's table (ruleset, players, the options its log sets — at random
with ``options_random``); :func:`deal_of` deals it, now and then giving one seat a tute or two
pairs, which random deals rarely do and the rules about declarations need; :func:`choose` is the
move a careless player makes: a declaration now and then, sometimes any card of the hand.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Final, NamedTuple

from arbiter.conformance.kit.protocol import NAMES
from arbiter.engine.cards import HORSE, KING, Suit, cards_of, format_card, make_card, pack_mask
from arbiter.engine.log import Header, parse_header
from arbiter.engine.moves import PLAY, TUTE, Move
from arbiter.engine.position import Position
from arbiter.engine.rulesets import RULESETS, CanteStyle, TrumpSource
from arbiter.simulate import random_deal_cards

#: How many deals a game may hold (the match may end sooner): mostly one.
GAME_DEALS: Final = (1, 1, 1, 2, 3)
RENUNCIO_RATE: Final = 0.04
DECLARE_RATE: Final = 0.5
#: How often a tute, which ends the deal, is declared when it is open and chosen.
TUTE_RATE: Final = 0.3
#: How often a deal gives one seat a tute, or two pairs (which random deals rarely do).
RICH_DEALS: Final = 0.3


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


def setting_of(rulesets: Sequence[str], options_random: bool, rng: random.Random) -> Setting:
    """A table of one of ``rulesets``, with options at random (``options_random``)."""
    from arbiter.conformance.vectors.rules import option_values  # the values the kit exercises

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
    deal: dict[str, Any] = {"dealer": dealer, "hands": [[format_card(c) for c in h] for h in hands]}
    if ruleset.stock:
        deal["stock"] = [format_card(c) for c in rest]
    elif ruleset.trump_from == TrumpSource.DEALER:
        deal["trump_card"] = deal["hands"][dealer][-1]
    return deal


def choose(
    position: Position, rng: random.Random, renuncio_rate: float, declare_rate: float
) -> Move:
    """The referee's next move, as a careless player makes it: a declaration now and then (a
    tute, which ends the deal, more rarely), sometimes any card of the hand."""
    deal = position.deal
    legal = deal.legal_moves()
    declarations = [m for m in legal if m.kind != PLAY]
    if declarations and rng.random() < declare_rate:
        move = rng.choice(declarations)
        if move.kind != TUTE or rng.random() < TUTE_RATE:
            return move
    if rng.random() < renuncio_rate:
        return Move.play(deal.turn, rng.choice(cards_of(deal.hands[deal.turn])))
    return rng.choice([m for m in legal if m.kind == PLAY])
