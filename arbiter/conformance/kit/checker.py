"""``arbiter conformance check``: put every vector to an engine and grade its answers.

:func:`check` runs a list of vectors through an :class:`~arbiter.conformance.kit.engines.Engine`
(grading each answer with :func:`~arbiter.conformance.kit.grading.judge`), and stops asking one
that has failed to answer :data:`GIVE_UP_AFTER` times in a row (the rest count as failed, so a
broken engine costs at most that many timeouts). :class:`Run` sums the results per rule and per
ruleset.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any, Final

from arbiter.conformance.kit.capabilities import EVERYTHING, NOTATIONS, Capabilities
from arbiter.conformance.kit.engines import Engine, Reply, Trouble
from arbiter.conformance.kit.grading import Grade, Part, Result, judge
from arbiter.conformance.kit.positions import position_of
from arbiter.conformance.kit.protocol import PROTOCOL_VERSION, Ask, Vector
from arbiter.conformance.kit.sampling import (
    ALLOWED,
    ANSWER,
    REFUSED,
    REPLAY,
    Asked,
    Signature,
    signature_of,
)
from arbiter.engine.errors import ArbiterError
from arbiter.engine.match import replay
from arbiter.engine.moves import Move
from arbiter.engine.position import Position

#: Failures to answer in a row after which the engine is not asked again.
GIVE_UP_AFTER: Final = 3


# --- running --------------------------------------------------------------------------------------


@dataclass
class Run:
    """The results of one check."""

    engine: str
    results: list[Result] = field(default_factory=list)
    elapsed: float = 0.0
    #: how many times the engine was started again (or reconnected) after a trouble
    restarts: int = 0
    protocol: int = PROTOCOL_VERSION
    caps: Capabilities = EVERYTHING
    #: vectors not asked, by why (a ``kit.untested.*`` key)
    left_out: Counter[str] = field(default_factory=Counter)
    _causes: dict[int, Signature] = field(default_factory=dict, repr=False)

    @property
    def asked(self) -> int:
        return sum(1 for r in self.results if r.trouble is not Trouble.GAVE_UP)

    @property
    def speed(self) -> float:
        """Vectors answered per second."""
        return self.asked / self.elapsed if self.elapsed > 0 else 0.0

    def count(self, grade: Grade) -> int:
        return sum(1 for r in self.results if r.grade is grade)

    @property
    def failed(self) -> bool:
        return self.count(Grade.FAIL) > 0

    def by_cell(self) -> dict[tuple[str, str], Counter[Grade]]:
        """(rule, ruleset) → how many vectors of each grade."""
        cells: dict[tuple[str, str], Counter[Grade]] = {}
        for r in self.results:
            cells.setdefault((r.vector.rule, r.vector.ruleset), Counter())[r.grade] += 1
        return cells

    def by_ruleset(self) -> dict[str, Counter[Grade]]:
        out: dict[str, Counter[Grade]] = {}
        for r in self.results:
            out.setdefault(r.vector.ruleset, Counter())[r.grade] += 1
        return out

    def troubles(self) -> Counter[Trouble]:
        return Counter(r.trouble for r in self.results if r.trouble is not None)

    def by_part(self) -> dict[Part, Counter[Grade]]:
        """Each part of the answers (plays, declarations, verdict kind...) → its grades."""
        out: dict[Part, Counter[Grade]] = {}
        for r in self.results:
            for part, grade in r.parts.items():
                out.setdefault(part, Counter())[grade] += 1
        return {part: out[part] for part in Part if part in out}

    def failures(self) -> list[Result]:
        return [r for r in self.results if r.grade is Grade.FAIL]

    def cause(self, result: Result) -> Signature:
        """A failure's cause (:func:`cause_of`), worked out once."""
        key = id(result)
        if key not in self._causes:
            self._causes[key] = cause_of(result, self.caps)
        return self._causes[key]

    def not_graded(self) -> int:
        """Parts of answers not graded: not declared, or left out of an answer."""
        return sum(g is Grade.NOT_GRADED for r in self.results for g in r.parts.values())

    def smallest_failures(self) -> list[tuple[Result, list[str]]]:
        """Per cause of failure (:func:`cause_of`), its smallest failing vector (fewest
        events) and the rulesets in which it failed, in the order the causes were first met."""
        worst: dict[str, Result] = {}
        where: dict[str, list[str]] = {}
        for r in self.results:
            if r.grade is not Grade.FAIL:
                continue
            rule = str(self.cause(r))
            if r.vector.ruleset not in where.setdefault(rule, []):
                where[rule].append(r.vector.ruleset)
            best = worst.get(rule)
            if best is None or (r.vector.events, r.trouble is not None) < (
                best.vector.events,
                best.trouble is not None,
            ):
                worst[rule] = r
        return [(worst[rule], where[rule]) for rule in worst]


def _matches(rule: str, patterns: Sequence[str]) -> bool:
    return rule in patterns or any(fnmatchcase(rule, p) for p in patterns)


def select(
    vectors: Iterable[Vector],
    rules: Sequence[str] | None = None,
    *,
    exclude: Sequence[str] | None = None,
    asks: Sequence[Ask] | None = None,
) -> list[Vector]:
    """The vectors whose rule is one of ``rules`` or matches one as a shell pattern
    (``obligation:*``), none of ``exclude``, asked one of ``asks``."""
    return [
        v
        for v in vectors
        if (not rules or _matches(v.rule, rules))
        and not (exclude and _matches(v.rule, exclude))
        and (not asks or v.ask in asks)
    ]


def cause_of(result: Result, caps: Capabilities = EVERYTHING) -> Signature:
    """A failure's cause, as play-testing names it: from what differs, not from the rule the
    vector was written for — so that one bug is one cause however many vectors show it."""
    vector, said = result.vector, result.said
    if result.trouble is not None or said is None:
        return Signature("answer", result.trouble or "none", "")
    if "error" in vector.expect:
        return Signature("log", ALLOWED, "")  # a log the referee refuses, taken
    if "error" in said:
        return Signature("log", REFUSED, "")
    if vector.ask is Ask.REPLAY:
        path = result.difference.path if result.difference is not None else ""
        return Signature(re.sub(r"\[\d+\]", "", path), REPLAY, "")
    position = _position(vector.log)
    if position is None:
        return Signature(vector.rule, ANSWER, "")
    header = position.header
    move = None
    if vector.move is not None:
        move = Move.from_json(vector.move, len(header.players), header.notation)
    asked = Asked(vector.ask, move, vector.expect)
    return signature_of(position, asked, said, result.parts, caps.declares)


def _position(log: dict[str, Any]) -> Position | None:
    try:
        match = replay(log)
    except ArbiterError:
        return None
    return match.position() if match.illegal is None and match.deals else None


def left_out_because(vector: Vector, caps: Capabilities) -> str | None:
    """Why ``vector`` is not asked of an engine with these capabilities (a ``kit.untested.*``
    key), or None: it is asked."""
    log = vector.log
    if vector.ruleset not in caps.rulesets:
        return "rulesets"
    notation = log.get("notation", "spanish")
    if notation in NOTATIONS and notation not in caps.notations:  # (an unknown one: refused)
        return "notations"
    if caps.options == "defaults" and log.get("options"):
        return "options"
    if vector.ask is Ask.REPLAY and not caps.replay:
        return "replay"
    move = vector.move
    if move is not None and move.get("type") != "play" and not caps.declares:
        return f"declarations_{caps.declarations}"
    if caps.blocks and _renuncio_in(log):
        return "blocks"
    return None


def _renuncio_in(log: dict[str, Any]) -> bool:
    """Whether a log holds a renuncio: a position a table that blocks them never reaches."""
    try:
        match = replay(log)
    except ArbiterError:
        return False
    return any(deal.state.violations for deal in match.deals)


def question_of(vector: Vector, protocol: int = PROTOCOL_VERSION) -> dict[str, Any]:
    """The question put to the engine about ``vector``: protocol 2 carries the position the
    referee's engine sees at the end of its log."""
    position = position_of(vector.log) if protocol >= 2 else None
    return vector.question(protocol, position)


def check(
    vectors: Sequence[Vector],
    engine: Engine,
    progress: Callable[[Result], None] | None = None,
    protocol: int = PROTOCOL_VERSION,
    caps: Capabilities = EVERYTHING,
) -> Run:
    """Ask ``engine`` every vector its capabilities cover, in order, grade the parts they
    declare, and close it (on every way out)."""
    run = Run(engine.name, protocol=protocol, caps=caps)
    failures_in_a_row = 0
    start = time.perf_counter()
    try:
        for vector in vectors:
            why = left_out_because(vector, caps)
            if why is not None:
                run.left_out[why] += 1
                continue
            if failures_in_a_row >= GIVE_UP_AFTER:
                reply = Reply(trouble=Trouble.GAVE_UP, detail=f"{GIVE_UP_AFTER} in a row")
            else:
                reply = engine.ask(question_of(vector, protocol))
                failures_in_a_row = failures_in_a_row + 1 if reply.answer is None else 0
            result = judge(vector, reply, caps)
            run.results.append(result)
            if progress is not None:
                progress(result)
    finally:
        engine.close()
        run.elapsed = time.perf_counter() - start
        run.restarts = engine.restarts
    return run
