"""This project's referee behind the conformance protocol (docs/conformance.md).

    arbiter conformance check --cmd "python conformance/adapter.py"

One question per line on standard input; one answer per line on standard output.
"""

import json
import sys
from typing import Any

import arbiter
from arbiter.conformance import replay_fields
from arbiter.engine.errors import ArbiterError


def answer(question: dict[str, Any]) -> dict[str, Any]:
    log, ask = question["log"], question["ask"]
    try:
        if ask == "verdict":
            body = arbiter.validate(log, question["move"]).to_dict()
            said: dict[str, Any] = {"verdict": body["verdict"]}
            for name in ("obligation", "code"):
                if body[name] is not None:
                    said[name] = body[name]
            return said
        body = arbiter.replay(log).to_dict()
    except ArbiterError as err:  # the log is refused
        return {"error": {"status": 422, "pointer": err.pointer}}
    if ask == "legal_moves":
        return {"legal_moves": body["next"]["legal_moves"]}
    if ask == "replay":
        return {"replay": replay_fields(body)}
    return {"unsupported": True}


for line in sys.stdin:
    question = json.loads(line)
    print(json.dumps({"id": question["id"], **answer(question)}), flush=True)
