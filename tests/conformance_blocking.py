"""The tests' reference referee as an online table: it blocks renuncios, names no obligation
and no illegal code, gives no outcome, plays tute-2p and tute-4p with their default options in
Spanish codes, makes the declarations itself, and adjudicates no whole log — the profile of the
engines that really exist. It declares so (protocol 3), and the kit asks and grades only that.

    arbiter conformance play --cmd "python -m tests.conformance_blocking"

``--declarations moves`` lists and judges declarations as moves, ``--outcomes`` gives the
outcome of the deal a move ends, and ``--break RULE`` gets a rule wrong (those of
tests/conformance_reference.py). docs/conformance.md shows it as the example of a table that
blocks renuncios.
"""

import argparse
import json
import sys
from typing import Any

from tests.conformance_position import Table
from tests.conformance_reference import breaking


def capabilities(declarations: str, outcomes: bool) -> dict[str, Any]:
    """What this table does: the question that opens protocol 3 is answered with it."""
    return {
        "rulesets": ["tute-2p", "tute-4p"],
        "notations": ["spanish"],
        "options": "defaults",
        "renuncio": "blocks",  # a renuncio is refused, as any illegal move
        "obligations": False,
        "illegal_codes": False,
        "declarations": declarations,
        "outcomes": outcomes,
        "replay": False,
    }


def legal_moves(table: Table, declares: bool) -> list[dict[str, Any]] | None:
    moves = table.legal_moves()  # the correct plays (and the declarations) of the seat to act
    if moves is None or declares:
        return moves
    return [move for move in moves if move["type"] == "play"]


def verdict(table: Table, move: dict[str, Any], outcomes: bool) -> dict[str, Any]:
    said = table.verdict(move)
    if said["verdict"] != "ok":  # a renuncio or an illegal move: refused, no reason given
        return {"verdict": "illegal"}
    if outcomes and "outcome" in said:
        return {"verdict": "ok", "outcome": said["outcome"]}
    return {"verdict": "ok"}


def answer(question: dict[str, Any], caps: dict[str, Any]) -> dict[str, Any]:
    if question["ask"] == "capabilities":
        return {"capabilities": caps}
    position = question.get("position")
    if position is None or question["ask"] == "replay":
        return {"unsupported": True}
    table = Table(position)
    if question["ask"] == "legal_moves":
        return {"legal_moves": legal_moves(table, caps["declarations"] == "moves")}
    return verdict(table, question["move"], caps["outcomes"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--declarations", choices=("moves", "automatic"), default="automatic")
    parser.add_argument("--outcomes", action="store_true", help="give the deal's outcome")
    parser.add_argument("--break", dest="broken", help="the rule to get wrong")
    args = parser.parse_args()
    if args.broken:
        breaking(args.broken)
    caps = capabilities(args.declarations, args.outcomes)
    for line in sys.stdin:
        question = json.loads(line)
        print(json.dumps({"id": question["id"], **answer(question, caps)}), flush=True)


if __name__ == "__main__":
    main()
