"""What the replay's hand-written counting loops must keep: the draws after a trick, the
winners and losers of a deal in seat order, the match standing, and the first name a log
repeats (each of these was rewritten for speed; the property tests check the whole deal, these
name the facts)."""

from __future__ import annotations

import random

import pytest

from arbiter.engine.errors import LogError
from arbiter.engine.log import parse_header
from arbiter.engine.match import replay
from arbiter.simulate import random_log


@pytest.mark.parametrize("seed", range(20))
def test_each_seat_draws_the_stock_in_order_the_winner_first(seed: int) -> None:
    log = random_log("tute-2p", random.Random(seed), declare_rate=0.3)
    match = replay(log)
    state = match.deals[0].state
    drawn = [draw for trick in state.tricks for draw in trick.draws]
    assert [card for _, card in drawn] == state.stock[: len(drawn)]
    assert state.stock_pos == len(drawn) == len(state.stock)
    for trick in state.tricks:
        if trick.draws:
            assert [seat for seat, _ in trick.draws] == [trick.winner, 1 - trick.winner]
    assert state.hands == [0, 0]  # every card drawn was played


@pytest.mark.parametrize(("ruleset", "players"), [("tute-2p", 2), ("tute-3p", 3), ("tute-4p", 4)])
def test_winners_and_losers_are_in_seat_order_and_counted(ruleset: str, players: int) -> None:
    rng = random.Random(f"counts/{ruleset}")
    for _ in range(30):
        match = replay(random_log(ruleset, rng, players=players, renuncio_rate=0.02, deals=3))
        won = [0] * players
        for record in match.deals:
            outcome = record.outcome
            if outcome is None:
                continue
            assert list(outcome.winners) == sorted(set(outcome.winners))
            assert list(outcome.losers) == sorted(set(outcome.losers))
            assert not set(outcome.winners) & set(outcome.losers)
            if outcome.winners:
                assert sorted(outcome.winners + outcome.losers) == list(range(players))
            for seat in outcome.winners:
                won[seat] += 1
        assert match.standing.deals_won == won


@pytest.mark.parametrize(
    ("names", "index"),
    [(["a", "b", "a"], 2), (["a", "b", "c", "b"], 3), (["a", "a", "a", "a"], 1)],
)
def test_the_first_repeated_name_is_reported(names: list[str], index: int) -> None:
    ruleset = {2: "tute-2p", 3: "tute-3p", 4: "tute-4p"}[len(names)]
    with pytest.raises(LogError) as caught:
        parse_header({"ruleset": ruleset, "players": names})
    assert caught.value.path == ("players", index)
    assert caught.value.message == f"{names[index]!r} is named twice"
