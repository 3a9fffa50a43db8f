"""Grading an engine's answer against a vector's ``expect`` (docs/conformance.md, "How answers
are compared").

:func:`judge` grades one answer in :class:`Part` s, each pass or fail, and the whole answer
passes when every part does: legal moves as two sets, its plays and its declarations; a verdict
by its kind (ok, renuncio, illegal), by its label (the ``obligation`` or ``code``) and, when
the move ends the deal, by the deal's ``outcome``; a replay field by field under the names of
docs/api.md (the engine may answer the whole ``/v1/replays`` body: only the expected fields are
read; cards that are correct, winners and losers as sets); a refusal by any ``error``. Card and
suit codes are compared in capitals, French suit symbols read as the engine's letters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from arbiter.conformance.kit.capabilities import EVERYTHING, Capabilities
from arbiter.conformance.kit.engines import Reply, Trouble
from arbiter.conformance.kit.protocol import Vector, dumps
from arbiter.engine.cards import format_suit, parse_suit
from arbiter.engine.errors import CardCodeError

#: Fields holding card or suit codes (compared in capitals, suit symbols read as letters).
_CODES: Final = frozenset({"card", "suit", "correct"})
#: Lists compared as sets.
_ORDER_FREE: Final = frozenset({"correct", "winners", "losers"})
MISSING: Final = "(missing)"


class Grade(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    UNSUPPORTED = "unsupported"
    #: a part the engine does not declare, or left out of its answer: counted apart
    NOT_GRADED = "not_graded"


class Part(StrEnum):
    """What one grade of an answer is about."""

    PLAYS = "legal_moves.plays"
    DECLARATIONS = "legal_moves.declarations"
    KIND = "verdict.kind"  # ok, renuncio or illegal
    LABEL = "verdict.label"  # the obligation of a renuncio, the code of an illegal move
    OUTCOME = "verdict.outcome"  # the deal's outcome, when the move ends it
    REPLAY = "replay"
    REFUSAL = "refusal"


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
    #: the grade of each part of the answer the vector expects
    parts: dict[Part, Grade] = field(default_factory=dict)


# --- comparing ------------------------------------------------------------------------------------


def _letter(suit: str) -> str:
    """A suit's last character as a letter: a French symbol as the engine's French letter."""
    try:
        return format_suit(parse_suit(suit, "french"), "french")
    except CardCodeError:
        return suit


def _code(value: Any) -> Any:
    if not isinstance(value, str) or not value.strip():
        return value
    text = value.strip()
    return (text[:-1] + _letter(text[-1])).upper()


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


def _plays(moves: list[Any]) -> list[str]:
    return sorted(move_key(m) for m in moves if isinstance(m, dict) and m.get("type") == "play")


def _declarations(moves: list[Any]) -> list[str]:
    return sorted(
        move_key(m) for m in moves if not (isinstance(m, dict) and m.get("type") == "play")
    )


Graded = tuple[dict[Part, Grade], Difference | None]
#: A part's check: its difference (None: it agrees), or :data:`UNGRADED`.
Check = tuple[Part, Difference | str | None]
UNGRADED: Final = "not graded"


def _grades(checks: list[Check]) -> Graded:
    """Each part's grade, and the first difference found."""
    parts = {
        part: Grade.NOT_GRADED if found == UNGRADED else Grade.PASS if found is None else Grade.FAIL
        for part, found in checks
    }
    first = next((f for _, f in checks if isinstance(f, Difference)), None)
    return parts, first


def _legal_moves(expected: list[Any] | None, said: Mapping[str, Any], caps: Capabilities) -> Graded:
    moves = said.get("legal_moves", MISSING)
    declarations: Difference | str | None
    if moves == expected:  # the referee's own order and codes: no need to normalise
        plays = declarations = None
    elif expected is None or not isinstance(moves, list):
        # null (the deal or the match is over) is answered null, and a list a list
        plays = declarations = Difference("legal_moves", expected, moves)
    else:
        wrong = Difference("legal_moves", expected, moves)
        plays = None if _plays(moves) == _plays(expected) else wrong
        declarations = None if _declarations(moves) == _declarations(expected) else wrong
    if not caps.declares:
        declarations = UNGRADED  # the engine's declarations are no moves it lists
    return _grades([(Part.PLAYS, plays), (Part.DECLARATIONS, declarations)])


#: The field that labels each verdict that has a label.
LABELS: Final = {"renuncio": "obligation", "illegal": "code"}


def _label(expect: Mapping[str, Any], said: Mapping[str, Any], caps: Capabilities) -> Any:
    """The label's check: not graded when the engine does not name it (by its capabilities,
    or by leaving it out of this answer)."""
    wanted = expect["verdict"]
    label = LABELS[wanted]
    if wanted == "renuncio" and (caps.blocks or not caps.obligations):
        return UNGRADED
    if wanted == "illegal" and not caps.illegal_codes:
        return UNGRADED
    if said.get(label) is None:
        return UNGRADED  # a partial answer
    return difference({label: expect[label]}, said)


def _verdict(expect: Mapping[str, Any], said: Mapping[str, Any], caps: Capabilities) -> Graded:
    wanted = expect["verdict"]
    # a table that blocks renuncios refuses them: any refusal, with or without its code
    kind = "illegal" if caps.blocks and wanted == "renuncio" else wanted
    checks: list[Check] = [(Part.KIND, difference({"verdict": kind}, said))]
    if wanted in LABELS:
        checks.append((Part.LABEL, checks[0][1] or _label(expect, said, caps)))
    if "outcome" in expect:
        unasked = not caps.outcomes or (caps.blocks and wanted == "renuncio")
        if unasked or said.get("outcome") is None:
            checks.append((Part.OUTCOME, UNGRADED))
        else:
            checks.append((Part.OUTCOME, difference({"outcome": expect["outcome"]}, said)))
    return _grades(checks)


def _compare(expect: Mapping[str, Any], said: Mapping[str, Any], caps: Capabilities) -> Graded:
    if "error" in expect:
        found = None if "error" in said else Difference("error", expect["error"], _summary(said))
        return _grades([(Part.REFUSAL, found)])
    if "legal_moves" in expect:
        return _legal_moves(expect["legal_moves"], said, caps)
    if "verdict" in expect:
        return _verdict(expect, said, caps)
    found = difference(expect["replay"], said.get("replay", MISSING), "replay")
    return _grades([(Part.REPLAY, found)])


def parts_of(expect: Mapping[str, Any]) -> tuple[Part, ...]:
    """The parts an answer to this ``expect`` is graded in."""
    return tuple(_compare(expect, {}, EVERYTHING)[0])


def _summary(said: Mapping[str, Any]) -> Any:
    return {k: v for k, v in said.items() if k != "id"}


def overall(parts: Mapping[Part, Grade]) -> Grade:
    """An answer's grade: failed if a part failed, passed if one passed, else not graded."""
    for grade in (Grade.FAIL, Grade.PASS):
        if grade in parts.values():
            return grade
    return Grade.NOT_GRADED


def judge(vector: Vector, reply: Reply, caps: Capabilities = EVERYTHING) -> Result:
    """The grade of one answer, part by part, of the parts ``caps`` says the engine gives."""
    if reply.answer is None:
        failed = dict.fromkeys(parts_of(vector.expect), Grade.FAIL)
        return Result(vector, Grade.FAIL, trouble=reply.trouble, detail=reply.detail, parts=failed)
    said = reply.answer
    if said.get("unsupported") is True:
        unsupported = dict.fromkeys(parts_of(vector.expect), Grade.UNSUPPORTED)
        return Result(vector, Grade.UNSUPPORTED, said, parts=unsupported)
    parts, found = _compare(vector.expect, said, caps)
    return Result(vector, overall(parts), said, found, parts=parts)
