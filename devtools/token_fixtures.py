"""Write a fixture of state tokens as the source tree it runs in seals and judges them:
tests/tokens/v*.json, read by tests/test_tokens.py (``test_old_tokens_still_open_...``).

docs/api.md promises that an older token stays valid. Each fixture is made once, by the tree
of the version it names, with a fixed test secret, and committed: the tree of every later
version must open its tokens and judge each move on them exactly as that tree did. Run it at a
commit whose position version is not in tests/tokens/ yet (that commit's tree on PYTHONPATH,
its pure engine is enough)::

    git archive COMMIT | tar -x -C /tmp/tree
    ARBITER_PURE=1 PYTHONPATH=/tmp/tree python /tmp/tree/devtools/token_fixtures.py \\
        tests/tokens/v3.json --commit COMMIT

Only the service's public parts are used (``create_app``, ``Settings``, ``random_log``, the
HTTP answers), so that the script runs on older trees too. For each position (a log of the
tree's own simulator, kept in the fixture): the ``state_id`` of ``POST /v1/replays``, then
``POST /v1/moves/validate`` on it with every legal move, a card the seat to act does not
hold, and a card it holds that is not allowed (when there is one), each answer kept without
its ``state_id`` (sealed with a random nonce).

With ``--exchanged`` the positions are of tute-2p deals in which the seven of trumps was
exchanged (tests/tokens/v3-exchanged.json, made at the commit before an exchange recorded its
trick: a token carries no history, so those tokens open and judge alike after it).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

#: The fixtures' secret: a test secret, never a deployment's.
SECRET = "tests/tokens: the fixtures' own secret, 0123456789"

#: The rulesets of the positions, and whether a declaration must be among the legal moves.
POSITIONS = [
    ("tute-2p", True),
    ("tute-4p", False),
    ("tute-3p", False),
]
#: With ``--exchanged``: positions after an exchange of the seven (its deal's events hold one).
EXCHANGED = [
    ("tute-2p", True),
    ("tute-2p", False),
]


def _position(
    client: Any, ruleset: str, wants_declaration: bool, exchanged: bool = False, skip: int = 0
) -> tuple[dict[str, Any], Any]:
    """A log of ``ruleset`` ending in the middle of a deal (with a declaration among the legal
    moves when asked for, after an exchange with ``exchanged``; the ``skip`` first such logs
    passed over), and the answer of ``POST /v1/replays`` to it."""
    from arbiter.simulate import random_log

    for seed in range(1000):
        rng = random.Random(seed)
        log = random_log(ruleset, rng, finish_last=False, stop_after=rng.randrange(4, 30))
        if exchanged and not any(e["type"] == "exchange" for e in log["deals"][-1]["events"]):
            continue
        answer = client.post("/v1/replays", json=log)
        body = answer.get_json()
        nxt = body.get("next")
        if answer.status_code != 200 or body.get("status") != "in_progress" or nxt is None:
            continue
        if skip:
            skip -= 1
            continue
        declares = any(m["type"] != "play" for m in nxt["legal_moves"])
        if declares == wants_declaration or not wants_declaration:
            return log, body
    raise LookupError(f"no position of {ruleset} found")


def make(commit: str, exchanged: bool = False) -> dict[str, Any]:
    from arbiter.api import create_app
    from arbiter.engine import snapshot
    from arbiter.settings import Settings
    from arbiter.tokens import TOKEN_VERSION

    client = create_app(Settings(state_key=SECRET)).test_client()
    positions = []
    for k, (ruleset, wants_declaration) in enumerate(EXCHANGED if exchanged else POSITIONS):
        log, body = _position(client, ruleset, wants_declaration, exchanged, k if exchanged else 0)
        steps = client.post("/v1/replays", json={**log, "steps": True}).get_json()
        seat = body["next"]["seat"]
        held = set(steps["deals"][-1]["steps"][-1]["hands"][seat])
        questions = []
        for move in _moves(body, log, held):
            answer = client.post(
                "/v1/moves/validate", json={"state_id": body["state_id"], "move": move}
            )
            assert answer.status_code == 200, answer.get_data(as_text=True)
            judged = answer.get_json()
            sealed = judged.pop("state_id", None) is not None
            questions.append({"move": move, "answer": judged, "next_state_id": sealed})
        positions.append({"log": log, "state_id": body["state_id"], "questions": questions})
    return {
        "made_by": f"devtools/token_fixtures.py at {commit}",
        "token_version": TOKEN_VERSION,
        "position_version": snapshot.POSITION_VERSION,
        "secret": SECRET,
        "positions": positions,
    }


def _moves(body: dict[str, Any], log: dict[str, Any], held: set[str]) -> list[dict[str, Any]]:
    """Every legal move, a card not held, and a held card not allowed (if any)."""
    nxt = body["next"]
    seat = nxt["seat"]
    moves = list(nxt["legal_moves"])
    allowed = {m["card"] for m in moves if m["type"] == "play"}
    deal = log["deals"][-1]
    dealt = {card for hand in deal["hands"] for card in hand} | set(deal.get("stock", []))
    not_held = sorted(dealt - held)
    if not_held:
        moves.append({"type": "play", "seat": seat, "card": not_held[0]})
    refused = sorted(held - allowed)
    if refused:
        moves.append({"type": "play", "seat": seat, "card": refused[0]})
    return moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--commit", required=True, help="the commit of the tree that runs this")
    parser.add_argument("--exchanged", action="store_true", help="positions after an exchange")
    args = parser.parse_args()
    fixture = make(args.commit, args.exchanged)
    args.out.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n")
    print(f"{args.out}: {len(fixture['positions'])} positions", file=sys.stderr)


if __name__ == "__main__":
    main()
