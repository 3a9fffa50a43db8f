"""Shrinking a disagreement found by play-testing to a small reproducer.

A :class:`Case` is a game's log up to the point where a question was asked, and the
:class:`~arbiter.conformance.kit.play.Signature` of the engine's disagreement there. It
*reproduces* when the engine, asked the same kind of question at the end of the case's log (the
legal moves, or the verdict on a move the referee judges alike and by the same rule), disagrees
the same way. :func:`shrink` keeps the smallest case that reproduces, trying in turn:

1. fewer deals (each earlier deal left out while it still reproduces);
2. earlier positions of the last deal (the first that reproduces);
3. other ways of playing the last deal, and other deals of the same table: random games played
   up to the best case's length, asked at each position, the first that reproduces kept.

Every try is asked of the engine, within a budget of questions and seconds; every random choice
comes from the run's seed, so a run shrinks the same way every time.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from arbiter.conformance.kit.dealing import (
    DECLARE_RATE,
    RENUNCIO_RATE,
    TUTE_RATE,
    Setting,
    deal_of,
)
from arbiter.conformance.kit.engines import Engine, Reply
from arbiter.conformance.kit.grading import Grade, Result, judge
from arbiter.conformance.kit.positions import position_json
from arbiter.conformance.kit.protocol import Ask, Vector, question
from arbiter.conformance.kit.sampling import (
    Asked,
    Signature,
    candidates,
    label,
    legal_answer,
    rule_of,
    signature_of,
    verdict_expect,
)
from arbiter.engine.errors import ArbiterError
from arbiter.engine.match import replay
from arbiter.engine.moves import Move
from arbiter.engine.position import Position
from arbiter.simulate import choose_move

#: The most questions and seconds one shrink may spend.
MOST_QUESTIONS: Final = 2000
MOST_SECONDS: Final = 30.0
#: Random games played in step 3: half of them the same deal, half fresh deals.
PLAYOUTS: Final = 24


@dataclass(frozen=True, slots=True)
class Case:
    """A log up to a question, and the disagreement to reproduce there."""

    setting: Setting
    deals: list[dict[str, Any]]
    ask: Ask
    signature: Signature

    @property
    def size(self) -> tuple[int, int]:
        """Deals, then events: what a smaller case has fewer of."""
        return len(self.deals), sum(len(d["events"]) for d in self.deals)

    def log(self) -> dict[str, Any]:
        return dict(self.setting.log(self.deals))

    def with_deals(self, deals: list[dict[str, Any]]) -> Case:
        return Case(self.setting, deals, self.ask, self.signature)

    def with_events(self, events: list[dict[str, Any]]) -> Case:
        *before, last = self.deals
        return self.with_deals([*before, {**last, "events": events}])

    def position(self) -> Position | None:
        try:
            match = replay(self.log())
        except ArbiterError:
            return None
        if match.illegal is not None or not match.deals:
            return None
        return match.position()

    def expect(self, position: Position) -> dict[str, Any] | None:
        """The referee's answer to the question this case asks (None: this position has no
        move the referee judges as the signature says)."""
        if self.ask is Ask.LEGAL_MOVES:
            return legal_answer(position)
        sig = self.signature
        header = position.header
        if position.deal.over or position.standing.over:  # the last move, tried again
            last = self.deals[-1]["events"][-1:]
            moves = [Move.from_json(e, len(header.players), header.notation) for e in last]
        else:
            moves = candidates(position)
        about_outcome = sig.referee.startswith("outcome:")
        for move in moves:
            judged = position.judge(move)
            if rule_of(position, judged) != sig.rule:
                continue
            if about_outcome:  # any move the referee lets end the deal
                expect = verdict_expect(position, move, judged)
                if "outcome" in expect:
                    return expect
            elif label(judged) == sig.referee:
                return verdict_expect(position, move, judged)
        return None

    def vector(self, vid: str, expect: dict[str, Any]) -> Vector:
        return Vector(vid, self.setting.ruleset, self.signature.rule, self.ask, self.log(), expect)


@dataclass
class Smallest:
    """The smallest case that reproduced, with the question, the referee's answer and the
    engine's."""

    case: Case
    expect: dict[str, Any]
    said: dict[str, Any] | None
    result: Result

    def outcome(self, vid: str) -> tuple[Vector, dict[str, Any] | None, Result]:
        vector = self.case.vector(vid, self.expect)
        result = judge(vector, Reply(answer=self.said)) if self.said is not None else self.result
        return vector, self.said, result


class _Budget:
    def __init__(self) -> None:
        self.questions = 0
        self.deadline = time.monotonic() + MOST_SECONDS

    def spent(self) -> bool:
        return self.questions >= MOST_QUESTIONS or time.monotonic() >= self.deadline


def _reproduces(case: Case, engine: Engine, protocol: int, budget: _Budget) -> Smallest | None:
    position = case.position()
    if position is None:
        return None
    expect = case.expect(position)
    if expect is None:
        return None
    header = position.header
    move_json = expect.get("move")
    moved = None
    if move_json is not None:
        moved = Move.from_json(move_json, len(header.players), header.notation)
    asked = Asked(case.ask, moved, expect)
    where = position_json(position) if protocol >= 2 else None
    q = question("shrink", case.ask, case.log(), move_json, protocol, where)
    budget.questions += 1
    reply = engine.ask(q)
    if reply.answer is None:
        return None
    vector = case.vector("shrink", expect)
    result = judge(vector, reply)
    if result.grade is not Grade.FAIL:
        return None
    if signature_of(position, asked, reply.answer) != case.signature:
        return None
    return Smallest(case, expect, reply.answer, result)


def _playouts(case: Case, rng: random.Random) -> Iterator[list[dict[str, Any]]]:
    """Deals to play at random: the last deal of the case again, then fresh ones."""
    last = case.deals[-1]
    for attempt in range(PLAYOUTS):
        if attempt % 2 == 0:
            yield [*case.deals[:-1], {**last, "events": []}]
        else:
            fresh = deal_of(case.setting, last["dealer"], rng)
            yield [*case.deals[:-1], {**fresh, "events": []}]


def shrink(
    case: Case, engine: Engine, protocol: int, rng: random.Random, seen: dict[str, Any]
) -> Smallest:
    """The smallest case found that reproduces ``case``'s disagreement (``case`` itself when
    nothing smaller does, or the engine no longer disagrees: then with ``seen``, the referee's
    answer to the question first asked)."""
    budget = _Budget()
    best = _reproduces(case, engine, protocol, budget)
    if best is None:  # an engine that changed its mind: report what was seen
        return Smallest(case, seen, None, Result(case.vector("shrink", seen), Grade.FAIL))
    # 1. fewer deals
    shrunk = True
    while shrunk and len(best.case.deals) > 1 and not budget.spent():
        shrunk = False
        for i in range(len(best.case.deals) - 1):
            deals = [d for j, d in enumerate(best.case.deals) if j != i]
            found = _reproduces(best.case.with_deals(deals), engine, protocol, budget)
            if found is not None:
                best, shrunk = found, True
                break
    # 2. earlier positions of the last deal
    events = best.case.deals[-1]["events"]
    for j in range(len(events)):
        if budget.spent():
            break
        found = _reproduces(best.case.with_events(events[:j]), engine, protocol, budget)
        if found is not None:
            best = found
            break
    # 3. other games of the table, up to the best's length
    for deals in _playouts(best.case, rng):
        if budget.spent():
            break
        found = _played_until(best, deals, engine, protocol, budget, rng)
        if found is not None:
            best = found
    return best


def _played_until(
    best: Smallest,
    deals: list[dict[str, Any]],
    engine: Engine,
    protocol: int,
    budget: _Budget,
    rng: random.Random,
) -> Smallest | None:
    """The first position of a random playout of ``deals``' last deal, shorter than ``best``,
    where the disagreement reproduces."""
    case = best.case.with_deals(deals)
    limit = len(best.case.deals[-1]["events"])
    events: list[dict[str, Any]] = []
    position = case.position()
    while position is not None and len(events) < limit and not budget.spent():
        candidate = case.with_events(list(events))
        if candidate.expect(position) is not None:
            found = _reproduces(candidate, engine, protocol, budget)
            if found is not None:
                return found
        if position.deal.over:
            return None
        move = choose_move(position.deal, rng, RENUNCIO_RATE, DECLARE_RATE, TUTE_RATE)
        position.apply(move)
        events.append(move.to_json(position.header.notation))
    return None
