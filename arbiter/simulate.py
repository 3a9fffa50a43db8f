"""Random games: logs that a table of careless players could have produced.

Used by the property tests, the benchmarks, the examples, play-testing and the vectors'
generator. Players pick uniformly among their correct plays and open declarations; with
``renuncio_rate`` they play any card of their hand instead (which may be a renuncio). Every log
is deterministic given the ``random.Random``.
"""

from __future__ import annotations

import random
from typing import Any

from arbiter.engine.cards import cards_of, pack_mask
from arbiter.engine.log import Header, first_dealer, parse_deal
from arbiter.engine.match import MatchState
from arbiter.engine.moves import PLAY, TUTE, Move
from arbiter.engine.rulesets import get_ruleset, resolve_options
from arbiter.engine.setup import deal_json, mano, next_dealer
from arbiter.engine.state import DealState


def random_deal_cards(
    ruleset_name: str, players: int, dealer: int, rng: random.Random, *, as_deck: bool = False
) -> dict[str, Any]:
    """A shuffled deal in the log's form: ``deck``, or ``hands`` (+ ``stock``/``trump_card``)."""
    ruleset = get_ruleset(ruleset_name)
    pack = cards_of(pack_mask(ruleset.removed_rank[players]))
    rng.shuffle(pack)
    dealt = ruleset.hand_size[players] * players
    first = mano(dealer, players)
    # dealt one at a time round the table from the mano, as a deck is
    hands = [pack[(seat - first) % players : dealt : players] for seat in range(players)]
    return deal_json(ruleset, dealer, hands, pack[dealt:], as_deck=as_deck)


def choose_move(
    state: DealState,
    rng: random.Random,
    renuncio_rate: float,
    declare_rate: float,
    tute_rate: float = 1.0,
) -> Move:
    """The move a careless player makes for the seat to act: an open declaration now and then
    (``declare_rate``; a tute, which ends the deal, only ``tute_rate`` of those times), any
    card of the hand now and then (``renuncio_rate``: it may be a renuncio), else one of the
    correct plays at random."""
    moves = state.legal_moves()
    declarations = [m for m in moves if m.kind != PLAY]
    if declarations and rng.random() < declare_rate:
        move = rng.choice(declarations)
        # a rate of 1 draws nothing: the same seed plays the same game with or without it
        if move.kind != TUTE or tute_rate >= 1 or rng.random() < tute_rate:
            return move
    if rng.random() < renuncio_rate:
        return Move.play(state.turn, rng.choice(cards_of(state.hands[state.turn])))
    return rng.choice([m for m in moves if m.kind == PLAY])


def random_log(
    ruleset_name: str,
    rng: random.Random,
    *,
    players: int | None = None,
    deals: int = 1,
    options: dict[str, Any] | None = None,
    renuncio_rate: float = 0.0,
    declare_rate: float = 0.5,
    as_deck: bool = False,
    finish_last: bool = True,
    stop_after: int | None = None,
) -> dict[str, Any]:
    """A log of up to ``deals`` deals (fewer if the match ends). With ``finish_last`` false
    the last deal stops after a random number of events (or ``stop_after``)."""
    ruleset = get_ruleset(ruleset_name)
    n = players or ruleset.players[0]
    opts = resolve_options(ruleset, options)
    names = [f"p{i}" for i in range(n)]
    log: dict[str, Any] = {"ruleset": ruleset_name, "players": names, "deals": []}
    if options:
        log["options"] = options
    header = Header(ruleset, opts, "spanish", tuple(names))
    match = MatchState(header)
    dealer = first_dealer(header)
    for index in range(deals):
        if match.standing.over:
            break
        raw = random_deal_cards(ruleset_name, n, dealer, rng, as_deck=as_deck)
        raw["events"] = []
        log["deals"].append(raw)
        setup, _ = parse_deal(header, raw, dealer)
        record = match.begin(DealState.start(ruleset, opts, n, setup))
        last = index == deals - 1
        limit = None
        if last and not finish_last:
            limit = stop_after if stop_after is not None else rng.randrange(0, 60)
        while not record.state.over and (limit is None or len(raw["events"]) < limit):
            move = choose_move(record.state, rng, renuncio_rate, declare_rate)
            match.play(move)
            raw["events"].append(move.to_json("spanish"))
        dealer = next_dealer(dealer, n)
    return log
