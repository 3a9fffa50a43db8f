"""``arbiter conformance check``: put every vector to an engine and judge its answers.

:func:`judge` compares one answer with the vector's ``expect`` (docs/conformance.md, "How
answers are compared"): legal moves as a set; a verdict by ``verdict`` and its ``obligation`` or
``code``; a replay field by field under the names of docs/api.md (the engine may answer the
whole ``/v1/replays`` body: only the expected fields are read; cards that are correct, winners
and losers as sets); a refusal by any ``error``. :func:`check` runs a list of vectors through an
:class:`~arbiter.conformance.engines.Engine`, and stops asking one that has failed to answer
:data:`GIVE_UP_AFTER` times in a row (the rest count as failed, so a broken engine costs at most
that many timeouts). :class:`Run` sums the results per rule and per ruleset.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fnmatch import fnmatchcase
from typing import Any, Final

from arbiter.conformance.codes import FRENCH_SYMBOLS
from arbiter.conformance.engines import Engine, Reply, Trouble
from arbiter.conformance.vectors import Vector, dumps

#: Failures to answer in a row after which the engine is not asked again.
GIVE_UP_AFTER: Final = 3
#: Fields holding card or suit codes (compared in capitals, suit symbols read as letters).
_CODES: Final = frozenset({"card", "suit", "correct"})
#: Lists compared as sets.
_ORDER_FREE: Final = frozenset({"correct", "winners", "losers"})
_SYMBOL_LETTERS: Final = {symbol: letter for letter, symbol in FRENCH_SYMBOLS.items()}
MISSING: Final = "(missing)"


class Grade(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    UNSUPPORTED = "unsupported"


@dataclass(frozen=True, slots=True)
class Difference:
    """Where an answer first departs from the expected one."""

    path: str
    expected: Any
    said: Any


@dataclass(frozen=True, slots=True)
class Result:
    vector: Vector
    grade: Grade
    said: dict[str, Any] | None = None
    difference: Difference | None = None
    trouble: Trouble | None = None
    detail: str = ""


# --- comparing ------------------------------------------------------------------------------------


def _code(value: Any) -> Any:
    if not isinstance(value, str) or not value:
        return value
    text = value.strip()
    return (text[:-1] + _SYMBOL_LETTERS.get(text[-1], text[-1])).upper()


def _normal(key: str, value: Any) -> Any:
    if key in _CODES:
        value = [_code(v) for v in value] if isinstance(value, list) else _code(value)
    if key in _ORDER_FREE and isinstance(value, list):
        return sorted(value, key=dumps)
    return value


def _same_scalar(expected: Any, said: Any) -> bool:
    # strict: true is not 1, and 1 is not 1.0
    return type(expected) is type(said) and expected == said


def difference(expected: Any, said: Any, path: str = "", key: str = "") -> Difference | None:
    """The first place where ``said`` does not hold what ``expected`` holds (extra fields in
    ``said`` are ignored), or None."""
    expected, said = _normal(key, expected), _normal(key, said)
    if isinstance(expected, dict):
        if not isinstance(said, dict):
            return Difference(path or ".", expected, said)
        for name, value in expected.items():
            where = f"{path}.{name}" if path else name
            if name not in said:
                return Difference(where, value, MISSING)
            found = difference(value, said[name], where, name)
            if found is not None:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(said, list) or len(said) != len(expected):
            return Difference(path, expected, said)
        for i, (a, b) in enumerate(zip(expected, said, strict=True)):
            found = difference(a, b, f"{path}[{i}]", key)
            if found is not None:
                return found
        return None
    return None if _same_scalar(expected, said) else Difference(path, expected, said)


def move_key(move: Any) -> str:
    """A move in a comparable form (its type, seat and card, suit or tute)."""
    if not isinstance(move, dict):
        return dumps(move)
    kept = {k: _normal(k, move[k]) for k in ("type", "seat", "card", "suit", "of") if k in move}
    return dumps(dict(sorted(kept.items())))


def _compare(expect: Mapping[str, Any], said: Mapping[str, Any]) -> Difference | None:
    if "error" in expect:
        return None if "error" in said else Difference("error", expect["error"], _summary(said))
    if "legal_moves" in expect:
        moves = said.get("legal_moves", MISSING)
        if not isinstance(moves, list):
            return Difference("legal_moves", expect["legal_moves"], moves)
        if sorted(map(move_key, moves)) != sorted(map(move_key, expect["legal_moves"])):
            return Difference("legal_moves", expect["legal_moves"], moves)
        return None
    if "verdict" in expect:
        wanted = {k: v for k, v in expect.items() if k != "move"}
        return difference(wanted, said)
    return difference(expect["replay"], said.get("replay", MISSING), "replay")


def _summary(said: Mapping[str, Any]) -> Any:
    return {k: v for k, v in said.items() if k != "id"}


def judge(vector: Vector, reply: Reply) -> Result:
    """The grade of one answer."""
    if reply.answer is None:
        return Result(vector, Grade.FAIL, trouble=reply.trouble, detail=reply.detail)
    said = reply.answer
    if said.get("unsupported") is True:
        return Result(vector, Grade.UNSUPPORTED, said)
    found = _compare(vector.expect, said)
    return Result(vector, Grade.PASS if found is None else Grade.FAIL, said, found)


# --- running --------------------------------------------------------------------------------------


@dataclass
class Run:
    """The results of one check."""

    engine: str
    results: list[Result] = field(default_factory=list)
    elapsed: float = 0.0

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

    def smallest_failures(self) -> list[tuple[Result, list[str]]]:
        """Per failing rule, its smallest failing vector (fewest events) and the rulesets in
        which the rule failed, in the order the rules were first met."""
        worst: dict[str, Result] = {}
        where: dict[str, list[str]] = {}
        for r in self.results:
            if r.grade is not Grade.FAIL:
                continue
            rule = r.vector.rule
            if r.vector.ruleset not in where.setdefault(rule, []):
                where[rule].append(r.vector.ruleset)
            best = worst.get(rule)
            if best is None or (r.vector.events, r.trouble is not None) < (
                best.vector.events,
                best.trouble is not None,
            ):
                worst[rule] = r
        return [(worst[rule], where[rule]) for rule in worst]


def select(vectors: Iterable[Vector], rules: Sequence[str] | None = None) -> list[Vector]:
    """The vectors whose rule is one of ``rules`` or matches one as a shell pattern
    (``obligation:*``)."""
    if not rules:
        return list(vectors)
    named = set(rules)
    return [v for v in vectors if v.rule in named or any(fnmatchcase(v.rule, p) for p in rules)]


def check(
    vectors: Sequence[Vector],
    engine: Engine,
    progress: Callable[[Result], None] | None = None,
) -> Run:
    """Ask ``engine`` every vector, in order."""
    run = Run(engine.name)
    failures_in_a_row = 0
    start = time.perf_counter()
    try:
        for vector in vectors:
            if failures_in_a_row >= GIVE_UP_AFTER:
                reply = Reply(trouble=Trouble.GAVE_UP, detail=f"{GIVE_UP_AFTER} in a row")
            else:
                reply = engine.ask(vector.question())
                failures_in_a_row = failures_in_a_row + 1 if reply.answer is None else 0
            result = judge(vector, reply)
            run.results.append(result)
            if progress is not None:
                progress(result)
    finally:
        engine.close()
        run.elapsed = time.perf_counter() - start
    return run
