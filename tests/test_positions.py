"""Positions and their tokens: what a sealed ``state_id`` carries is exactly what a replay knows.

- For every example log, at every event (and between deals): the position a replay reaches,
  sealed and opened again, equals the replayed one field by field (every position and derived
  slot of the deal, the standing, the header, the deals begun), and every candidate move — the
  log's next event, every card of the hand of the seat to act, every declaration of every seat —
  is judged the same on both. Between deals, the next deal begun on either gives the same.
- That the field list covers every slot of :class:`DealState` but the derived ones is checked
  in tests/test_model.py.
- Random games of every table (hypothesis): validating the whole match move by move through
  tokens alone, deals begun with ``deal``, gives the verdicts of the full log and ends in the
  replay's standing; played through :meth:`Position.after` the position equals the replay's.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import arbiter
from arbiter.engine.log import first_dealer, parse_deal, parse_header
from arbiter.engine.match import MatchState, advance
from arbiter.engine.moves import Move, TuteOf
from arbiter.engine.position import Position, Ruling
from arbiter.engine.setup import next_dealer
from arbiter.engine.state import HISTORY_FIELDS, DealState
from arbiter.service import Referee
from arbiter.simulate import random_log
from arbiter.tokens import Sealer
from tests.api_support import EXAMPLES_DIR
from tests.positions_support import TABLES, prefix, slots_of, without_state_id

SECRET = "positions-tests-secret-0123456789abcdef"
SEALER = Sealer([SECRET])
REFEREE = Referee(sealer=SEALER)
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    log: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return log


def walk(log: dict[str, Any]) -> Iterator[tuple[MatchState, Move | None]]:
    """The match after every prefix of ``log`` that is a valid state (a copy each time), with
    the event that follows it in the log (None at the end of a deal). Each step continues the
    last one through :func:`advance`, given the log cut one event further."""
    header = parse_header(log)
    n = len(header.players)
    match = MatchState(header)
    dealer = first_dealer(header)
    for index, deal in enumerate(log["deals"]):
        begun = advance(match.copy(), prefix(log, index, 0)["deals"], index, 0, dealer)
        if begun.illegal is not None:
            return
        match = begun
        for j, event in enumerate(deal["events"]):
            yield match.copy(), Move.from_json(event, n, header.notation)
            nxt = advance(match.copy(), prefix(log, index, j + 1)["deals"], index, j, dealer)
            if nxt.illegal is not None:
                return
            match = nxt
        yield match.copy(), None
        dealer = next_dealer(match.deals[-1].dealer, n)


def deal_slots(state: DealState) -> dict[str, Any]:
    """Every slot a position must restore: what it carries and what it derives (all but the
    history)."""
    names = [name for name in slots_of(DealState) if name not in HISTORY_FIELDS]
    return {name: getattr(state, name) for name in names}


def standing_of(position: Position) -> list[Any]:
    return position.standing.to_fields()


def candidates(position: Position) -> list[Move]:
    """Moves worth judging: every card of the seat to act, a card of another seat, and every
    declaration by every seat."""
    deal = position.deal
    n = len(position.header.players)
    moves = [Move.play(deal.turn, card) for card in range(40) if deal.hands[deal.turn] >> card & 1]
    moves.append(Move.play((deal.turn + 1) % n, 0))
    for seat in range(n):
        moves += [Move.sing(seat, suit) for suit in range(4)]
        moves += [Move.tute(seat, of) for of in TuteOf] + [Move.exchange(seat)]
    return moves


def assert_same_position(opened: Position, replayed: Position) -> None:
    assert opened.header == replayed.header
    assert opened.deals == replayed.deals
    assert standing_of(opened) == standing_of(replayed)
    assert deal_slots(opened.deal) == deal_slots(replayed.deal)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_every_example_position_round_trips_through_a_token(path: Path) -> None:
    log = load(path)
    header = parse_header(log)
    seen = 0
    for match, following in walk(log):
        replayed = match.position()
        opened = SEALER.open(SEALER.seal(replayed))
        assert_same_position(opened, replayed)
        assert opened.deal.tricks == [] and opened.deal.violations == []  # reports only
        moves = candidates(replayed) + ([following] if following is not None else [])
        for move in moves:
            assert opened.judge(move) == replayed.judge(move), (path.name, seen, move)
            if replayed.judge(move).verdict is Ruling.OK:
                assert_same_position(opened.after(move), replayed.after(move))
        if following is None and replayed.between_deals and replayed.deals < len(log["deals"]):
            dealer = next_dealer(replayed.deal.dealer, len(header.players))
            setup, _ = parse_deal(header, log["deals"][replayed.deals], dealer)
            assert_same_position(opened.begin_deal(setup), replayed.begin_deal(setup))
        seen += 1
    assert seen >= sum(len(d["events"]) for d in log["deals"]) // 2 or "illegal" in path.name


# --- whole matches by token ----------------------------------------------------------------------


def play_by_tokens(referee: Referee, log: dict[str, Any]) -> list[dict[str, Any]]:
    """Validate every event of ``log`` through tokens alone, checking each verdict against the
    full log's; returns the verdicts. The first token comes from the replay of the first deal
    without events; every later deal begins with ``deal``."""
    first = prefix(log, 0, 0)
    token = referee.replay(first).state_id
    assert token is not None
    verdicts = []
    for d, raw in enumerate(log["deals"]):
        setup = {k: v for k, v in raw.items() if k != "events"}
        for j, move in enumerate(raw["events"]):
            deal = setup if (j == 0 and d > 0) else None
            by_token = referee.validate_token(token, move, deal).to_dict()
            by_log = arbiter.validate(prefix(log, d, j), move).to_dict()
            # a renuncio on a token answers the position with the card played, and its token
            after = by_token.pop("after", None)
            assert (after is not None) is (by_token["verdict"] == "renuncio"), (d, j, move)
            assert without_state_id(by_token) == without_state_id(by_log), (d, j, move)
            verdicts.append(by_token)
            if by_token["verdict"] == "illegal":
                return verdicts  # an illegal event: the log goes on without us
            token = by_token["state_id"] if after is None else after["state_id"]
            assert isinstance(token, str)
    return verdicts


@pytest.mark.parametrize(("ruleset", "players"), TABLES, ids=[f"{r}-{n}" for r, n in TABLES])
def test_a_whole_match_validates_move_by_move_by_token(ruleset: str, players: int) -> None:
    options = {"match_target": 3} if ruleset in ("tute-2p", "tute-3p", "tute-4p") else None
    log = random_log(ruleset, random.Random(5), players=players, deals=12, options=options)
    verdicts = play_by_tokens(REFEREE, log)
    assert len(verdicts) == sum(len(d["events"]) for d in log["deals"])
    assert all(v["verdict"] == "ok" for v in verdicts)
    assert arbiter.replay(log).to_dict()["match"]["over"], "the match was decided"


def test_the_token_after_the_last_move_of_a_match_says_match_over() -> None:
    log = random_log("tute-cabron", random.Random(2), deals=30)
    assert arbiter.replay(log).to_dict()["match"]["over"]
    token = REFEREE.replay(log).state_id
    move = {"type": "play", "seat": 0, "card": "1O"}
    deal = {k: v for k, v in log["deals"][0].items() if k != "events"}
    for extra in (None, deal):
        verdict = REFEREE.validate_token(token, move, extra).to_dict()
        assert (verdict["verdict"], verdict["code"]) == ("illegal", "match_over")


@settings(deadline=None)
@given(st.sampled_from(TABLES), st.integers(0, 10**6), st.floats(0, 0.2))
def test_random_matches_by_token_agree_with_the_full_log(
    table: tuple[str, int], seed: int, renuncio_rate: float
) -> None:
    ruleset, players = table
    log = random_log(
        ruleset, random.Random(seed), players=players, deals=3, renuncio_rate=renuncio_rate
    )
    play_by_tokens(REFEREE, log)
