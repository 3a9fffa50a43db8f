"""A Tute engine behind the conformance protocol (docs/conformance.md): a template.

    arbiter conformance check --cmd "python conformance/adapter.py"
    arbiter conformance play --cmd "python conformance/adapter.py"

One question per line on standard input, one answer per line on standard output. The first asks
what the engine does (its capabilities: the kit asks and grades only that); the others carry the
position their log leads to, every fact an engine needs (tricks, draws, the winning card...):
it answers from it alone. The calls marked ENGINE are where yours goes; here, this project's.
"""

import json
import sys
from typing import Any

import arbiter
from arbiter.conformance import Judge, position_of_log, refusal, replay_fields
from arbiter.engine.errors import ArbiterError

# ENGINE: what your engine does (docs/conformance.md, "Capabilities"); this one does it all
CAPABILITIES = {"rulesets": ["tute-2p", "tute-3p", "tute-4p", "tute-cabron", "tute-gana-pierde"],
                "notations": ["spanish", "french"], "options": "any", "renuncio": "flags",
                "obligations": True, "illegal_codes": True, "declarations": "moves",
                "outcomes": True, "replay": True}  # fmt: skip
_last: dict[str, Any] = {"position": None}  # the last position, and the engine set to it


def engine_at(position: dict[str, Any]) -> Judge:
    # ENGINE: your engine, set to the position (once: the questions of a position come together)
    if position != _last["position"]:
        _last.update(position=position, engine=Judge(position))
    engine: Judge = _last["engine"]
    return engine


def legal_moves(position: dict[str, Any]) -> list[dict[str, Any]] | None:
    # ENGINE: every move open to position["turn"] (null once the deal or the match is over)
    return engine_at(position).legal_moves()


def verdict(position: dict[str, Any], move: dict[str, Any]) -> dict[str, Any]:
    # ENGINE: {"verdict": "ok" | "renuncio" | "illegal", "obligation"?, "code"?, "outcome"?}
    return engine_at(position).verdict(move)


def replay(log: dict[str, Any]) -> dict[str, Any]:
    # ENGINE: the adjudication of the whole log (or return {"unsupported": True})
    return {"replay": replay_fields(arbiter.replay(log).to_dict())}


def answer(question: dict[str, Any]) -> dict[str, Any]:
    try:
        if question["ask"] == "capabilities":
            return {"capabilities": CAPABILITIES}
        if question["ask"] == "replay":
            return replay(question["log"])
        if "position" not in question:  # protocol 1 carries none: only then read the log
            question["position"] = position_of_log(question["log"])
        position = question["position"]
        if position is None:  # the referee refuses the log: so does the engine
            return {"error": {"status": 422}}
        if question["ask"] == "legal_moves":
            return {"legal_moves": legal_moves(position)}
        return verdict(position, question["move"])
    except ArbiterError as err:  # the log (or the move) is refused: 422, and its pointer
        return refusal(err)


for line in sys.stdin:
    question = json.loads(line)
    print(json.dumps({"id": question["id"], **answer(question)}), flush=True)
