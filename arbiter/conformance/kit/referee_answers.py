"""The referee's answers in the vectors' form.

:func:`referee_answer` asks ``arbiter.replay`` / ``arbiter.validate`` and shapes the answer as
an ``expect`` of docs/conformance.md; :func:`verdict_answer` is a verdict on a position of the
engine (the one of ``arbiter.validate``, or a game being played against an engine), with the
deal's outcome when the move ends it. :func:`replay_fields` picks, out of a ``POST
/v1/replays`` body (the library's ``Replay.to_dict()`` or a server's JSON), the fields a
``replay`` vector compares, under their docs/api.md names; :func:`verdict_fields` does the same
for a ``POST /v1/moves/validate`` body, and :func:`answer_of` shapes either body as the answer
to a question. Export, play-testing, the HTTP driver and the shipped adapter all use these, so
"what the referee says" has one definition.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import arbiter
from arbiter.conformance.kit.protocol import Ask
from arbiter.engine.errors import ArbiterError
from arbiter.engine.moves import TUTE, Move
from arbiter.engine.position import Judgement, Position, Ruling

#: The status of every refused log (docs/api.md, "Errors").
REFUSED: Final = 422
#: Per object of the replay body, the fields a replay vector compares.
ILLEGAL_FIELDS: Final = ("deal", "event", "code")
VIOLATION_FIELDS: Final = ("event", "seat", "obligation", "correct")
CANTE_FIELDS: Final = ("seat", "suit", "points", "trick")
SCORE_FIELDS: Final = ("seat", "total", "tricks")
OUTCOME_FIELDS: Final = ("winners", "losers", "reason")
MATCH_FIELDS: Final = ("over", "winners", "losers")


def _pick(source: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {name: source[name] for name in names}


def _maybe(source: Mapping[str, Any] | None, names: tuple[str, ...]) -> dict[str, Any] | None:
    return None if source is None else _pick(source, names)


def replay_fields(body: Mapping[str, Any]) -> dict[str, Any]:
    """The compared fields of a replay body (a ``KeyError`` or ``TypeError`` if it lacks one)."""
    return {
        "status": body["status"],
        "illegal": _maybe(body["illegal"], ILLEGAL_FIELDS),
        "deals": [
            {
                "tricks": [{"winner": t["winner"]} for t in deal["tricks"]],
                "violations": [_pick(v, VIOLATION_FIELDS) for v in deal["violations"]],
                "cantes": [_pick(c, CANTE_FIELDS) for c in deal["cantes"]],
                "scores": [_pick(s, SCORE_FIELDS) for s in deal["scores"]],
                "outcome": _maybe(deal["outcome"], OUTCOME_FIELDS),
            }
            for deal in body["deals"]
        ],
        "match": _pick(body["match"], MATCH_FIELDS),
    }


def verdict_fields(body: Mapping[str, Any]) -> dict[str, Any]:
    """``verdict``, and ``obligation`` for a renuncio or ``code`` for an illegal move."""
    out: dict[str, Any] = {"verdict": body["verdict"]}
    if body["verdict"] == "renuncio":
        out["obligation"] = body["obligation"]
    elif body["verdict"] == "illegal":
        out["code"] = body["code"]
    return out


def outcome_after(position: Position, judgement: Judgement) -> dict[str, Any] | None:
    """The deal's outcome (``winners``, ``losers``, ``reason``) when the move judged on
    ``position`` ends the deal — its last card, or a tute — else None."""
    if judgement.verdict is Ruling.ILLEGAL or not _may_end(position, judgement.move):
        return None
    after = position.after(judgement.move)
    decided = after.outcome if after.deal.over else None
    if decided is None:
        return None
    return {
        "winners": list(decided.winners),
        "losers": list(decided.losers),
        "reason": decided.reason.value,
    }


def _may_end(position: Position, move: Move) -> bool:
    """Whether ``move`` can end the deal — a tute, or the last card of the last trick — before
    the engine is asked (a copy of the position for every move judged costs play-testing a
    tenth of its time)."""
    deal = position.deal
    if move.kind == TUTE:
        return True
    return deal.trick_no == deal.total_tricks - 1 and len(deal.trick) == deal.players - 1


def verdict_answer(position: Position, judgement: Judgement) -> dict[str, Any]:
    """A verdict's ``expect`` (without its ``move``): the verdict, its ``obligation`` or
    ``code``, and the ``outcome`` of the deal when the move ends it."""
    out: dict[str, Any] = {"verdict": judgement.verdict.value}
    if judgement.renuncio is not None:
        out["obligation"] = judgement.renuncio.obligation.value
    elif judgement.code is not None:
        out["code"] = judgement.code.value
    outcome = outcome_after(position, judgement)
    if outcome is not None:
        out["outcome"] = outcome
    return out


def refusal(err: ArbiterError) -> dict[str, Any]:
    """The ``error`` answer for a log the referee refuses."""
    error: dict[str, Any] = {"status": REFUSED}
    if err.pointer:
        error["pointer"] = err.pointer
    return {"error": error}


def refusal_of_problem(status: int, problem: Any) -> dict[str, Any]:
    """The ``error`` answer for a problem+json answer of a server (its first pointer)."""
    error: dict[str, Any] = {"status": status}
    errors = problem.get("errors") if isinstance(problem, dict) else None
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        pointer = errors[0].get("pointer")
        if isinstance(pointer, str) and pointer:
            error["pointer"] = pointer
    return {"error": error}


def referee_answer(log: Any, ask: Ask, move: Any = None) -> dict[str, Any]:
    """What the referee answers to ``ask`` about ``log`` (and ``move``), as an ``expect``
    without its ``move``; ``{"error": ...}`` for a log it refuses. A ``legal_moves`` question
    on a log that is not in progress is answered with ``{"legal_moves": null}``."""
    try:
        if ask is Ask.VERDICT:
            verdict = arbiter.validate(log, move)
            return verdict_answer(verdict.position, verdict.judgement)
        body = arbiter.replay(log).to_dict()
    except ArbiterError as err:
        return refusal(err)
    return answer_of(ask, body)


def answer_of(ask: Ask, body: Mapping[str, Any]) -> dict[str, Any]:
    """The answer to ``ask`` out of the referee's body for it: a ``POST /v1/moves/validate``
    body for a verdict, a ``POST /v1/replays`` body otherwise (``{"legal_moves": null}`` when
    its ``next`` is null). A ``KeyError`` or ``TypeError`` if the body lacks a field."""
    if ask is Ask.VERDICT:
        return verdict_fields(body)
    if ask is Ask.LEGAL_MOVES:
        nxt = body["next"]
        return {"legal_moves": None if nxt is None else nxt["legal_moves"]}
    return {"replay": replay_fields(body)}
