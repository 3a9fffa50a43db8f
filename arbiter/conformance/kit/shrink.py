"""Shrinking a disagreement found by play-testing to a small reproducer.

A :class:`Case` is a game's log up to the point where a question was asked, the question's move
(for a verdict) and the :class:`~arbiter.conformance.kit.sampling.Signature` — the cause — of
the engine's disagreement there. It *reproduces* when the engine, asked again at the end of the
case's log — the same move first, then other moves of the same subject — disagrees for the same
cause; the engine's answer is kept with it, so that no finding is without one. :func:`shrink`
starts from the case as found (with the engine's answer of the game) and keeps the smallest case
that reproduces, trying in turn:

1. one deal: every earlier deal left out at once, then one at a time;
2. earlier positions of the last deal (the first that reproduces);
3. other ways of playing one deal of the same table: random games (the referee playing as it
   does against this engine) up to the best case's length, asked at each position, the first
   that reproduces kept.

Every try is asked of the engine, within a budget of questions and seconds; every random choice
comes from the run's seed, so a run shrinks the same way every time.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, Final

from arbiter.conformance.kit.capabilities import Capabilities
from arbiter.conformance.kit.dealing import Setting, deal_of, play_rates
from arbiter.conformance.kit.engines import Engine
from arbiter.conformance.kit.grading import Grade, Result, judge
from arbiter.conformance.kit.positions import position_json
from arbiter.conformance.kit.protocol import Ask, Vector, question
from arbiter.conformance.kit.sampling import (
    OUTCOME,
    Asked,
    Signature,
    candidates,
    legal_answer,
    signature_of,
    subject_of,
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


#: The moves of a position tried for a verdict's cause: the case's own, then these many more.
MOVES_TRIED: Final = 3


@dataclass(frozen=True, slots=True)
class Case:
    """A log up to a question, its move (a verdict's), and the cause to reproduce there."""

    setting: Setting
    deals: list[dict[str, Any]]
    ask: Ask
    signature: Signature
    move: dict[str, Any] | None = None

    @property
    def size(self) -> tuple[int, int]:
        """Deals, then events: what a smaller case has fewer of."""
        return len(self.deals), sum(len(d["events"]) for d in self.deals)

    def log(self) -> dict[str, Any]:
        return dict(self.setting.log(self.deals))

    def with_deals(self, deals: list[dict[str, Any]]) -> Case:
        return Case(self.setting, deals, self.ask, self.signature, self.move)

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

    def moves(self, position: Position) -> list[Move]:
        """The moves to ask a verdict on here: the case's own first (when the position can
        judge it), then up to :data:`MOVES_TRIED` others of the cause's subject."""
        header = position.header
        players, notation = len(header.players), header.notation
        own: list[Move] = []
        if self.move is not None:
            with contextlib.suppress(ArbiterError):
                own.append(Move.from_json(self.move, players, notation))
        if position.deal.over or position.standing.over:
            last = self.deals[-1]["events"][-1:]
            return own + [Move.from_json(e, players, notation) for e in last]
        sig = self.signature
        others: list[Move] = []
        for move in candidates(position):
            if len(others) >= MOVES_TRIED:
                break
            judged = position.judge(move)
            if sig.how == OUTCOME:
                if "outcome" in verdict_expect(position, move, judged) and move not in own:
                    others.append(move)
            elif subject_of(position, judged) == sig.subject and move not in own:
                others.append(move)
        return own + others

    def vector(self, vid: str, expect: dict[str, Any]) -> Vector:
        rule = str(self.signature)
        return Vector(vid, self.setting.ruleset, rule, self.ask, self.log(), expect)


@dataclass
class Smallest:
    """The smallest case that reproduced, with the question, the referee's answer and the
    engine's (always there: the game's answer, or the one a reproduction got)."""

    case: Case
    expect: dict[str, Any]
    said: dict[str, Any]
    result: Result

    def outcome(self, vid: str) -> tuple[Vector, dict[str, Any], Result]:
        vector = self.case.vector(vid, self.expect)
        result = Result(vector, self.result.grade, self.said, self.result.difference,
                        parts=self.result.parts)  # fmt: skip
        return vector, self.said, result


class _Budget:
    def __init__(self) -> None:
        self.questions = 0
        self.deadline = time.monotonic() + MOST_SECONDS

    def spent(self) -> bool:
        return self.questions >= MOST_QUESTIONS or time.monotonic() >= self.deadline


@dataclass(frozen=True, slots=True)
class _Asker:
    """Asks a case's question again, as the run asked it."""

    engine: Engine
    protocol: int
    caps: Capabilities
    budget: _Budget

    def reproduces(self, case: Case) -> Smallest | None:
        """The case, with the move and the engine's answer, when the engine disagrees there
        for the case's cause."""
        position = case.position()
        if position is None:
            return None
        if case.ask is Ask.LEGAL_MOVES:
            return self._asked(case, position, None)
        for move in case.moves(position):
            if self.budget.spent():
                return None
            found = self._asked(case, position, move)
            if found is not None:
                return found
        return None

    def _asked(self, case: Case, position: Position, move: Move | None) -> Smallest | None:
        if move is None:
            expect = legal_answer(position)
        else:
            expect = verdict_expect(position, move, position.judge(move))
            case = replace(case, move=expect["move"])
        where = position_json(position) if self.protocol >= 2 else None
        q = question("shrink", case.ask, case.log(), expect.get("move"), self.protocol, where)
        self.budget.questions += 1
        reply = self.engine.ask(q)
        if reply.answer is None:
            return None
        result = judge(case.vector("shrink", expect), reply, self.caps)
        if result.grade is not Grade.FAIL:
            return None
        asked = Asked(case.ask, move, expect)
        cause = signature_of(position, asked, reply.answer, result.parts, self.caps.declares)
        if cause != case.signature:  # another disagreement: not this one's reproducer
            return None
        return Smallest(case, expect, reply.answer, result)


def shrink(
    first: Smallest, engine: Engine, protocol: int, caps: Capabilities, rng: random.Random
) -> Smallest:
    """The smallest case found that disagrees for ``first``'s cause (``first`` itself, with the
    engine's answer in the game, when nothing smaller does)."""
    asker = _Asker(engine, protocol, caps, _Budget())
    best = first
    # 1. one deal, or fewer
    while len(best.case.deals) > 1 and not asker.budget.spent():
        tries = [best.case.deals[-1:]]
        tries += [[d for j, d in enumerate(best.case.deals) if j != i]
                  for i in range(len(best.case.deals) - 1)]  # fmt: skip
        found = next(
            (f for deals in tries if (f := asker.reproduces(best.case.with_deals(deals)))), None
        )
        if found is None:
            break
        best = found
    # 2. earlier positions of the last deal
    events = best.case.deals[-1]["events"]
    for j in range(len(events)):
        if asker.budget.spent():
            break
        found = asker.reproduces(best.case.with_events(events[:j]))
        if found is not None:
            best = found
            break
    # 3. other games of the table, one deal, up to the best's length
    for deals in _playouts(best.case, rng):
        if asker.budget.spent():
            break
        found = _played_until(best, deals, asker, rng)
        if found is not None and found.case.size < best.case.size:
            best = found
    return best


def _playouts(case: Case, rng: random.Random) -> Iterator[list[dict[str, Any]]]:
    """Single deals to play at random: the last deal of the case again, then fresh ones."""
    last = case.deals[-1]
    for attempt in range(PLAYOUTS):
        if attempt % 2 == 0:
            yield [{**last, "events": []}]
        else:
            yield [{**deal_of(case.setting, last["dealer"], rng), "events": []}]


def _played_until(
    best: Smallest, deals: list[dict[str, Any]], asker: _Asker, rng: random.Random
) -> Smallest | None:
    """The first position of a random playout of ``deals``' last deal, shorter than ``best``,
    where the disagreement reproduces."""
    case = best.case.with_deals(deals)
    limit = len(best.case.deals[-1]["events"]) if len(best.case.deals) == 1 else 10**6
    rates = play_rates(asker.caps.blocks, asker.caps.declarations)
    events: list[dict[str, Any]] = []
    position = case.position()
    while position is not None and len(events) < limit and not asker.budget.spent():
        found = asker.reproduces(case.with_events(list(events)))
        if found is not None:
            return found
        if position.deal.over:
            return None
        move = choose_move(position.deal, rng, *rates)
        position.apply(move)
        events.append(move.to_json(position.header.notation))
    return None
