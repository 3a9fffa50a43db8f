"""The tests' reference referee (tests/reference.py) behind the conformance protocol — an engine
written apart from arbiter's, so that the published vectors are checked by a second referee —
and, with ``--break RULE``, the same engine with one rule of docs/rules.md deliberately wrong:

- ``montar``: a follower of the suit led may play any card of it (no montar);
- ``pisar``: a player void in the suit led may play any trump (pisar ignored);
- ``exchange-stock``: the seven of trumps may be exchanged with no stock left;
- ``over-100``: tute cabrón forgets that passing 100 points loses the hand;
- ``montar-trumped``: a follower must beat the best card of the suit led even when a trump
  already wins the trick (trump espadas, trick 2O 10E 11O, holding 12O 1O 3O 5O: 5O refused);
- ``tute-after-trick``: a tute only on the first lead, never after a won trick;
- ``cante-per-side``: one cante per side (per player; per pair in tute-4p) in a deal;
- ``exchange-two``: the two of trumps may be exchanged like the seven;
- ``cante-before-draw``: tute-2p's cante judged on the hand before the draw (a pair the draw
  completes cannot be sung);
- ``lead-no-trump``: too strict — no trump may be led while the leader holds another suit;
- ``omit-a-move``: the last of the legal moves is left out;
- ``tie-0-2``: a tied tute-4p deal is given to seats 0 and 2, whoever took the last trick;
- ``no-tute``: a tute is never offered (always ``tute_not_held``);
- ``free-discard``: a player void in the suit led who cannot overtrump may play any card;
- ``cante-anyone``: a cante is accepted from a player who is not on lead (who did not win
  the last trick), whatever the pair.

``--asks legal_moves,verdict`` answers only those (``unsupported`` to the others), as an engine
without full-log adjudication does.

Run as ``python -m tests.conformance_reference [--break RULE] [--asks ASK,...]`` from the
repository root. It answers French-notation logs ``unsupported`` (the reference replays Spanish
codes), and a log it cannot replay with an error: it does not check setups, so its setup answers
mean nothing.
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


def _montar_when_trumped(
    hand: set[Any], trick: list[Any], trump: str | None, *rest: Any
) -> set[Any]:
    led = trick[0][1][1]
    follow = {c for c in hand if c[1] == led}
    if follow and reference.winning(trick, trump)[1][1] != led:  # a trump wins the trick
        best = max(reference.STRENGTH[c[0]] for _, c in trick if c[1] == led)
        return {c for c in follow if reference.STRENGTH[c[0]] > best} or follow
    return _correct_plays(hand, trick, trump, *rest)


_illegal = reference.Position.illegal
_correct = reference.Position.correct


def _won_a_trick(deal: Any, seat: int) -> bool:
    return any(winner == seat for _, _, winner in deal.tricks)


def _drawn_last(deal: Any, seat: int) -> set[Any]:
    draws = deal.full_tricks[-1]["draws"] if getattr(deal, "full_tricks", None) else []
    return {reference.card(d["card"]) for d in draws if d["seat"] == seat}


def _broken_illegal(rule: str) -> Any:
    def illegal(self: Any, kind: str, seat: int, arg: Any) -> str | None:
        why = _illegal(self, kind, seat, arg)
        if rule == "tute-after-trick" and kind == "tute" and why is None:
            return "no_trick_won" if _won_a_trick(self, seat) else None
        if rule == "cante-per-side" and kind == "sing" and why is None:
            side = reference.side_of(self.name, seat)
            return "cante_already_declared" if any(c[0] in side for c in self.cantes) else None
        if rule == "exchange-two" and kind == "exchange" and why == "seven_not_held":
            return None if (2, self.trump) in self.hands[seat] else why
        if rule == "no-tute" and kind == "tute" and why is None:
            return "tute_not_held"
        if rule == "cante-anyone" and kind == "sing" and why == "not_on_lead":
            return None
        if rule == "cante-before-draw" and kind == "sing" and why is None:
            pair = {(reference.KING, arg), (reference.HORSE, arg)}
            return "pair_not_held" if pair & _drawn_last(self, seat) else None
        return why

    return illegal


def _lead_no_trump(self: Any, seat: int) -> set[Any]:
    plays = _correct(self, seat)
    if self.trick or self.trump is None:
        return plays
    others = {c for c in plays if c[1] != self.trump}
    return others or plays


def _tie_to_0_2(
    name: str, n: int, opts: dict[str, Any], totals: list[int], won: list[int], *rest: Any
) -> dict[str, Any]:
    decided = _outcome(name, n, opts, totals, won, *rest)
    if name == "tute-4p" and decided["reason"] in ("last_trick", "tie"):
        return {"winners": [0, 2], "losers": [1, 3], "reason": decided["reason"]}
    return decided


def _free_discard(
    hand: set[Any], trick: list[Any], trump: str | None, relieved: bool = False, *_: Any
) -> set[Any]:
    return _correct_plays(hand, trick, trump, relieved, False)


#: The rules broken by changing the answers rather than the reference (``omit-a-move``).
ANSWERS_BROKEN: set[str] = set()
#: The rules broken in Position.illegal.
_DECLARATIONS = (
    "tute-after-trick",
    "cante-per-side",
    "exchange-two",
    "cante-before-draw",
    "no-tute",
    "cante-anyone",
)


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
    elif rule == "tie-0-2":
        reference.outcome = _tie_to_0_2
    elif rule == "free-discard":
        reference.correct_plays = _free_discard
    elif rule == "montar-trumped":
        reference.correct_plays = _montar_when_trumped
    elif rule in _DECLARATIONS:
        reference.Position.illegal = _broken_illegal(rule)  # type: ignore[method-assign]
    elif rule == "lead-no-trump":
        reference.Position.correct = _lead_no_trump  # type: ignore[method-assign]
    elif rule == "omit-a-move":
        ANSWERS_BROKEN.add(rule)
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
    out: dict[str, Any] = {"verdict": "ok"}
    if kind == "play" and arg not in deal.correct(seat):
        obligation = reference.broken_obligation(deal.hands[seat], deal.trick, deal.trump, arg)
        out = {"verdict": "renuncio", "obligation": obligation}
    try:
        deal.apply(kind, seat, arg, len(log["deals"][-1]["events"]))
    except KeyError:  # a broken rule let through a move the reference cannot make
        return out
    if deal.over:  # the move ends the deal: its outcome
        out["outcome"] = deal.decide()
    return out


def answer(question: dict[str, Any], asks: frozenset[str] | None = None) -> dict[str, Any]:
    log, ask = question["log"], question["ask"]
    if log.get("notation", "spanish") != "spanish" or (asks is not None and ask not in asks):
        return {"unsupported": True}
    try:
        if ask == "verdict":
            return verdict(log, question["move"])
        body = reference.replay(log)
    except Exception as err:  # the reference cannot replay it: a refusal
        return {"error": {"status": 422, "detail": repr(err)}}
    if ask == "legal_moves":
        moves = body["next"]["legal_moves"] if body["next"] else None
        omit = moves and "omit-a-move" in ANSWERS_BROKEN
        return {"legal_moves": moves[:-1] if omit else moves}
    return {"replay": body}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--break", dest="broken", help="the rule to get wrong")
    parser.add_argument("--asks", help="the asks answered (comma-separated; default: all)")
    args = parser.parse_args()
    if args.broken:
        breaking(args.broken)
    asks = None if args.asks is None else frozenset(args.asks.split(","))
    for line in sys.stdin:
        question = json.loads(line)
        print(json.dumps({"id": question["id"], **answer(question, asks)}), flush=True)


if __name__ == "__main__":
    main()
