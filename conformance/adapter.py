"""This project's referee behind the conformance protocol (docs/conformance.md).

    arbiter conformance check --cmd "python conformance/adapter.py"

One question per line on standard input; one answer per line on standard output.
"""

import json
import sys
from typing import Any

import arbiter
from arbiter.conformance import refusal, replay_fields, verdict_fields
from arbiter.engine.errors import ArbiterError


def answer(question: dict[str, Any]) -> dict[str, Any]:
    log, ask = question["log"], question["ask"]
    try:
        if ask == "verdict":
            return verdict_fields(arbiter.validate(log, question["move"]).to_dict())
        body = arbiter.replay(log).to_dict()
    except ArbiterError as err:  # the log is refused: status 422, and its pointer if any
        return refusal(err)
    if ask == "legal_moves":
        after = body["next"]  # null once the game (or the match) is over
        return {"legal_moves": None if after is None else after["legal_moves"]}
    if ask == "replay":
        return {"replay": replay_fields(body)}
    return {"unsupported": True}


for line in sys.stdin:
    question = json.loads(line)
    print(json.dumps({"id": question["id"], **answer(question)}), flush=True)
