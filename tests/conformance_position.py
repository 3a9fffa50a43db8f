"""A third-party engine behind the conformance protocol, answering from the question's position.

The engine is the tests' reference referee (tests/reference.py), written apart from arbiter: its
``Position`` knows the rules (correct plays, illegal codes, declarations) and its ``outcome`` who
wins a deal. This adapter never reads the log for a move: it sets the reference's position from
the question's ``position`` (protocol 2) — the tricks with their winners, who is to act, whether
play is strict, the card winning the trick on the table, the cantes with their tricks, what
decided the deal — and works out only what the move itself changes (the last trick's winner and
points, and so the outcome). A question without a position (protocol 1, or a log the referee
refuses) is ``unsupported``: this engine does not read logs move by move. Whole logs
(``replay``) it adjudicates with the reference's own replay.

    arbiter conformance check --cmd "python -m tests.conformance_position"
    arbiter conformance play --cmd "python -m tests.conformance_position"

docs/conformance.md shows it as the example of an adapter written against the position.
"""

import json
import sys
from typing import Any

from tests import reference as engine


class Table(engine.Position):
    """The engine's position, set from the question's."""

    def __init__(self, position: dict[str, Any]) -> None:
        self.name = position["ruleset"]
        self.n = len(position["players"])
        self.opts = engine.options(position)
        self.mano = position["mano"]
        self.hands = [{engine.card(c) for c in hand} for hand in position["hands"]]
        self.trick = [(p["seat"], engine.card(p["card"])) for p in position["trick"]["plays"]]
        self.tricks = [(t["leader"], [(p["seat"], engine.card(p["card"])) for p in t["plays"]],
                        t["winner"]) for t in position["tricks"]]  # fmt: skip
        self.cantes = [(c["seat"], c["suit"], c["points"], c["trick"]) for c in position["cantes"]]
        self.trump = position["trump"]
        self.stock_left = position.get("stock_left", 0)
        self.over = position["over"] or position["match"]["over"]
        self.position = position

    # what the position says, read rather than worked out again
    @property
    def strict(self) -> bool:
        strict: bool = self.position["strict"]
        return strict

    def turn(self) -> int:
        seat: int = self.position["turn"]
        return seat

    def relieved(self, seat: int) -> bool:
        winning = self.position["trick"]["winning"]
        relief = self.name == engine.PAIRS and self.opts["partner_relief"]
        return relief and winning is not None and winning["seat"] == engine.partner(seat)

    def legal_moves(self) -> list[dict[str, Any]] | None:
        if self.over:
            return None
        seat = self.turn()
        moves = [{"type": "play", "seat": seat, "card": engine.code(c)}
                 for c in engine.display(self.correct(seat))]  # fmt: skip
        for kind, _, arg in self.declarations(seat):
            move: dict[str, Any] = {"type": kind, "seat": seat}
            if kind != "exchange":
                move["suit" if kind == "sing" else "of"] = arg
            moves.append(move)
        return moves

    def verdict(self, move: dict[str, Any]) -> dict[str, Any]:
        if self.position["match"]["over"]:
            return {"verdict": "illegal", "code": "match_over"}
        kind, seat, arg = engine.event_of(move)
        why = self.illegal(kind, seat, arg)
        if why is not None:
            return {"verdict": "illegal", "code": why}
        answer: dict[str, Any] = {"verdict": "ok"}
        renuncio = kind == "play" and arg not in self.correct(seat)
        if renuncio:
            broken = engine.broken_obligation(self.hands[seat], self.trick, self.trump, arg)
            answer = {"verdict": "renuncio", "obligation": broken}
        ends = kind == "tute" or (kind == "play" and sum(map(len, self.hands)) == 1)
        if ends:
            answer["outcome"] = self.outcome_after(kind, seat, arg, renuncio)
        return answer

    def outcome_after(self, kind: str, seat: int, arg: Any, renuncio: bool) -> dict[str, Any]:
        """The deal's outcome once this move (its last card, or a tute) ends it."""
        position = self.position
        totals, won = list(position["totals"]), list(position["tricks_won"])
        last = None
        if kind == "play":  # the last trick: its points, its calls, and the last trick's ten
            plays = [*self.trick, (seat, arg)]
            last = engine.winning(plays, self.trump)[0]
            won[last] += 1
            totals[last] += engine.trick_points(plays) + engine.LAST_TRICK
            if self.name in engine.CALLS:
                for i, _ in enumerate(engine.calls(plays, self.opts["call_ranks"])):
                    totals[last] += 40 if position["calls"] == 0 and i == 0 else 20
        decided = position["decided"]  # its first renuncio (a tute ends the deal at once)
        decisive = (decided["kind"], decided["seat"]) if decided else None
        if decisive is None and (renuncio or kind == "tute"):
            decisive = ("renuncio" if renuncio else "tute", seat)
        return engine.outcome(self.name, self.n, self.opts, totals, won, last, decisive)


def answer(question: dict[str, Any]) -> dict[str, Any]:
    if question["ask"] == "replay":  # a whole log to adjudicate: the only question of a log
        return replay(question["log"])
    position = question.get("position")
    if position is None or position["notation"] != "spanish":
        return {"unsupported": True}  # the engine reads Spanish codes only
    table = Table(position)
    if question["ask"] == "legal_moves":
        return {"legal_moves": table.legal_moves()}
    return table.verdict(question["move"])


def replay(log: dict[str, Any]) -> dict[str, Any]:
    if log.get("notation", "spanish") != "spanish":
        return {"unsupported": True}
    try:
        return {"replay": engine.replay(log)}
    except Exception as err:  # the engine cannot replay it: a refusal
        return {"error": {"status": 422, "detail": repr(err)}}


if __name__ == "__main__":
    for line in sys.stdin:
        question = json.loads(line)
        print(json.dumps({"id": question["id"], **answer(question)}), flush=True)
