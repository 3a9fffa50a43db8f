"""The engine's one model of a deal: its field list and its moves.

- :data:`arbiter.engine.state.FIELDS` names every attribute :class:`DealState` declares but the
  derived ones — read from the source (the class's annotations), from the class the running
  build made (``__annotations__`` in pure Python, ``__mypyc_attrs__`` once compiled) — and an
  attribute it leaves out is truly derived: on every position of random games it holds what a
  fresh state of the same table holds. So a new field cannot be left out of copies, snapshots
  and tokens, which walk that list.
- On random positions (hypothesis): :meth:`DealState.copy` is equal field by field and shares no
  mutable part; ``to_fields``/``from_fields`` (through msgpack, as snapshots and tokens store
  them) give back every field, with ``history`` or without (then the records are empty).
- :class:`Move` packs and unpacks itself: every move of every kind, seat and payload comes back
  from its :attr:`Move.code`, codes are distinct, equality and hashing follow the code, JSON
  round-trips in both notations, and a payload read for the wrong kind raises.
"""

from __future__ import annotations

import ast
import inspect
import random
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

import arbiter
from arbiter.engine import state as state_module
from arbiter.engine.match import MatchState, replay
from arbiter.engine.moves import EXCHANGE, PLAY, SING, TUTE, Move, MoveKind, TuteOf
from arbiter.engine.state import FIELDS, HISTORY_FIELDS, POSITION_FIELDS, DealState
from arbiter.simulate import random_log
from tests.positions_support import TABLES, random_games, slots_of

FIELD_NAMES = [name for name, _, _ in FIELDS]
MAX_SEATS = max(n for _, n in TABLES)


def declared_in_source() -> list[str]:
    """The attributes ``class DealState`` declares in arbiter/engine/state.py, in order."""
    source = Path(arbiter.__file__).parent / "engine" / "state.py"  # the compiled build's too
    tree = ast.parse(source.read_text(encoding="utf-8"))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "DealState"]
    return [
        node.target.id
        for node in cls.body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    ]


def derived_names() -> list[str]:
    return [name for name in declared_in_source() if name not in FIELD_NAMES]


# --- the field list ------------------------------------------------------------------------------


def test_the_field_list_is_one_list_of_declared_attributes() -> None:
    assert len(FIELD_NAMES) == len(set(FIELD_NAMES)), "a field is listed twice"
    assert [*POSITION_FIELDS, *HISTORY_FIELDS] == FIELD_NAMES, "position first, then history"
    assert set(FIELD_NAMES) <= set(declared_in_source()), "a listed field is not declared"
    for name, part, codec in FIELDS:
        assert part in (state_module.POSITION, state_module.HISTORY), name
        assert isinstance(codec, state_module.Codec), name


def test_the_running_build_declares_what_the_source_does() -> None:
    """The pure build reads the class's annotations; a compiled one its ``__mypyc_attrs__``:
    either way the attributes are the source's, so FIELDS plus the derived ones are all of
    them."""
    declared = declared_in_source()
    if arbiter.BUILD == "compiled":
        attrs = [n for n in DealState.__mypyc_attrs__ if n != "__dict__"]  # type: ignore[attr-defined]
        assert sorted(attrs) == sorted(declared)
    else:
        assert list(inspect.get_annotations(DealState)) == declared
    assert sorted(slots_of(DealState)) == sorted(declared)
    assert sorted([*FIELD_NAMES, *derived_names()]) == sorted(declared)


def table_states(seed: int) -> list[tuple[MatchState, DealState]]:
    """The deal states of random games of every table, at every point of the last deal."""
    out: list[tuple[MatchState, DealState]] = []
    for ruleset, players in TABLES:
        log = random_log(
            ruleset, random.Random(f"{seed}{ruleset}{players}"), players=players, deals=2,
            renuncio_rate=0.05, finish_last=True,
        )  # fmt: skip
        replay(log, observer=lambda m: out.append((m, m.deals[-1].state.copy())))
    return out


def test_what_the_field_list_leaves_out_is_derived_from_the_table() -> None:
    """Every declared attribute not in FIELDS holds, at every point of random games, what a
    state made from the ruleset, options and players alone holds: it needs no copying."""
    derived = derived_names()
    assert derived, "a DealState derives something from its table"
    states = table_states(0)
    assert len(states) > 100
    for match, state in states:
        fresh = DealState(match.header.ruleset, match.header.options, len(match.header.players))
        for name in derived:
            assert getattr(state, name) == getattr(fresh, name), name


@st.composite
def positions(draw: st.DrawFn) -> DealState:
    """A deal state at a random point of a random game (with its history)."""
    match = replay(draw(random_games(max_deals=2)))
    return match.deals[draw(st.integers(0, len(match.deals) - 1))].state


def every_field(state: DealState) -> dict[str, Any]:
    return {name: getattr(state, name) for name in slots_of(DealState)}


def mutable_parts(state: DealState) -> list[Any]:
    return [getattr(state, name) for name in FIELD_NAMES if isinstance(getattr(state, name), list)]


@given(positions())
def test_a_copy_is_equal_and_independent(state: DealState) -> None:
    copy = state.copy()
    assert every_field(copy) == every_field(state)
    for mine, theirs in zip(mutable_parts(state), mutable_parts(copy), strict=True):
        assert mine is not theirs
    before = state.to_fields(history=True)
    if not copy.over:  # a move on the copy leaves the original as it was
        assert copy.apply(copy.legal_moves()[0], copy.events_applied) is None
        assert state.to_fields(history=True) == before
        assert copy.to_fields(history=True) != before


@given(positions(), st.booleans())
def test_fields_round_trip_through_msgpack(state: DealState, history: bool) -> None:
    values = state.to_fields(history=history)
    assert len(values) == (len(FIELDS) if history else len(POSITION_FIELDS))
    stored = msgpack.unpackb(msgpack.packb(values, use_bin_type=True), raw=False)
    back = DealState.from_fields(state.ruleset, state.options, state.players, stored,
                                 history=history)  # fmt: skip
    expected = every_field(state)
    if not history:
        expected.update({name: [] for name in HISTORY_FIELDS})
    assert every_field(back) == expected
    assert back.to_fields(history=history) == values
    assert back.legal_moves() == state.legal_moves()


def test_from_fields_refuses_a_wrong_count() -> None:
    (_, state), *_ = table_states(1)
    values = state.to_fields(history=False)
    with pytest.raises(ValueError, match="fields, expected"):
        DealState.from_fields(state.ruleset, state.options, state.players, values[:-1],
                              history=False)  # fmt: skip


# --- moves ------------------------------------------------------------------------------------


def every_move() -> list[Move]:
    """Every move of every kind, seat and payload (seats up to the largest table)."""
    moves = []
    for seat in range(MAX_SEATS):
        moves += [Move.play(seat, card) for card in range(40)]
        moves += [Move.sing(seat, suit) for suit in range(4)]
        moves += [Move.tute(seat, of) for of in TuteOf]
        moves.append(Move.exchange(seat))
    return moves


def payload(move: Move) -> tuple[str, Any]:
    """The move's payload through the accessor its kind has."""
    if move.kind == PLAY:
        return "card", move.card
    if move.kind == SING:
        return "suit", move.suit
    if move.kind == TUTE:
        return "of", move.of
    return "none", None


def packed_payload(move: Move) -> int:
    """The int :class:`Move`'s constructor takes: a card, a suit, a :class:`TuteOf`, or -1."""
    _, value = payload(move)
    return -1 if value is None else int(value)


def test_every_move_comes_back_from_its_code() -> None:
    moves = every_move()
    assert len(moves) == MAX_SEATS * (40 + 4 + 2 + 1)
    codes = [m.code for m in moves]
    assert len(set(codes)) == len(codes), "two moves pack to one code"
    for move in moves:
        back = Move.from_code(move.code)
        assert back == move and hash(back) == hash(move) == move.code
        assert (back.kind, back.seat, payload(back)) == (move.kind, move.seat, payload(move))
        assert Move(move.kind, move.seat, packed_payload(move)) == move  # the plain constructor
    assert [m.kind for m in moves[:47]] == [PLAY] * 40 + [SING] * 4 + [TUTE] * 2 + [EXCHANGE]


def test_moves_differ_by_each_part() -> None:
    assert Move.play(0, 5) != Move.play(1, 5)
    assert Move.play(0, 5) != Move.play(0, 6)
    assert Move.play(0, 1) != Move.sing(0, 1)
    assert Move.tute(2, TuteOf.KINGS) != Move.tute(2, TuteOf.HORSES)
    assert Move.exchange(0) != Move.exchange(1)
    assert Move.play(0, 5) != (PLAY, 0, 5)  # not a tuple any more


@pytest.mark.parametrize("notation", ["spanish", "french"])
def test_every_move_round_trips_through_json(notation: Any) -> None:
    for move in every_move():
        raw = move.to_json(notation)
        assert raw["type"] == MoveKind(move.kind).name.lower() and raw["seat"] == move.seat
        assert Move.from_json(raw, MAX_SEATS, notation) == move


def test_a_payload_read_for_the_wrong_kind_raises() -> None:
    for move in every_move():
        kind = move.kind
        for name, allowed in (("card", PLAY), ("suit", SING), ("of", TUTE)):
            if kind == allowed:
                getattr(move, name)
            else:
                with pytest.raises(ValueError):
                    getattr(move, name)


def test_the_payload_is_typed() -> None:
    assert Move.tute(1, TuteOf.HORSES).of is TuteOf.HORSES
    assert Move.play(3, 27).card == 27 and Move.sing(3, 2).suit == 2
