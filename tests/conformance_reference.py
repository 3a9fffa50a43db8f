"""The tests' reference referee (tests/reference.py) behind the conformance protocol — an engine
written apart from arbiter's, so that the published vectors are checked by a second referee —
and, with ``--break RULE``, the same engine with one rule of docs/rules.md deliberately wrong:

- ``montar``: a follower of the suit led may play any card of it (no montar);
- ``pisar``: a player void in the suit led may play any trump (pisar ignored);
- ``exchange-stock``: the seven of trumps may be exchanged with no stock left;
- ``over-100``: tute cabrón forgets that passing 100 points loses the hand.

Run as ``python -m tests.conformance_reference [--break RULE]`` from the repository root. It
answers French-notation logs ``unsupported`` (the reference replays Spanish codes), and a log it
cannot replay with an error: it does not check setups, so its setup answers mean nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tests import reference

_correct_plays = reference.correct_plays
_outcome = reference.outcome


def _no_montar(hand: set[Any], trick: list[Any], trump: str | None, *rest: Any) -> set[Any]:
    follow = {c for c in hand if c[1] == trick[0][1][1]}
    return follow or _correct_plays(hand, trick, trump, *rest)


def _any_trump(hand: set[Any], trick: list[Any], trump: str | None, *rest: Any) -> set[Any]:
    led = trick[0][1][1]
    trumps = {c for c in hand if c[1] == trump}
    void = not any(c[1] == led for c in hand)
    if trump is not None and void and trumps and any(c[1] == trump for _, c in trick):
        return trumps
    return _correct_plays(hand, trick, trump, *rest)


def _no_over_100(
    name: str, n: int, opts: dict[str, Any], totals: list[int], won: list[int], *rest: Any
) -> dict[str, Any]:
    if name == "tute-cabron" and rest[-1] is None and all(won):
        everyone = set(range(n))
        tied = {s for s in range(n) if totals.count(totals[s]) > 1}
        losers = tied or {sorted(range(n), key=totals.__getitem__)[1]}
        reason = "tied" if tied else "middle"
        winners = sorted(everyone - losers)
        return {"winners": winners, "losers": sorted(losers), "reason": reason}
    return _outcome(name, n, opts, totals, won, *rest)


def breaking(rule: str) -> None:
    """Make the reference wrong about ``rule``."""
    if rule == "montar":
        reference.correct_plays = _no_montar
    elif rule == "pisar":
        reference.correct_plays = _any_trump
    elif rule == "exchange-stock":
        reference.ILLEGAL_ORDER["exchange"] = tuple(
            c for c in reference.ILLEGAL_ORDER["exchange"] if c != "no_stock"
        )
    elif rule == "over-100":
        reference.outcome = _no_over_100
    else:
        raise SystemExit(f"nothing to break called {rule!r}")


def verdict(log: dict[str, Any], move: dict[str, Any]) -> dict[str, Any]:
    if reference.replay(log)["match"]["over"]:
        return {"verdict": "illegal", "code": "match_over"}
    deal = reference.played(log, len(log["deals"]) - 1)
    kind, seat, arg = reference.event_of(move)
    why = deal.illegal(kind, seat, arg)
    if why is not None:
        return {"verdict": "illegal", "code": why}
    if kind == "play" and arg not in deal.correct(seat):
        return {
            "verdict": "renuncio",
            "obligation": reference.broken_obligation(
                deal.hands[seat], deal.trick, deal.trump, arg
            ),
        }
    return {"verdict": "ok"}


def answer(question: dict[str, Any]) -> dict[str, Any]:
    log, ask = question["log"], question["ask"]
    if log.get("notation", "spanish") != "spanish":
        return {"unsupported": True}
    try:
        if ask == "verdict":
            return verdict(log, question["move"])
        body = reference.replay(log)
    except Exception as err:  # the reference cannot replay it: a refusal
        return {"error": {"status": 422, "detail": repr(err)}}
    if ask == "legal_moves":
        return {"legal_moves": body["next"]["legal_moves"] if body["next"] else None}
    return {"replay": body}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--break", dest="broken", help="the rule to get wrong")
    args = parser.parse_args()
    if args.broken:
        breaking(args.broken)
    for line in sys.stdin:
        question = json.loads(line)
        print(json.dumps({"id": question["id"], **answer(question)}), flush=True)


if __name__ == "__main__":
    main()
