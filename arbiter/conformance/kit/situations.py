"""The situations that decide rulings and are rare at random (docs/conformance.md, "Directed
play"): which of them a question of play-testing meets, so that every run can say how often it
asked about each and how often the engine agreed.

:func:`situations_at` names those of a position (a trumped trick with cards of the suit led
above and below, partner relief by a trump, contrafallar); :func:`situations_of` adds those of
one question — a tute, a cante at the last lead, and the outcome the move decides (each
tie-break, the last trick's ten deciding, over 100, cabrón's middle player, no tricks).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from arbiter.engine.cards import SUIT_MASK
from arbiter.engine.moves import SING, TUTE, Move
from arbiter.engine.obligations import NO_TRUMP
from arbiter.engine.position import Position
from arbiter.engine.rulesets import partner
from arbiter.engine.state import LAST_TRICK_BONUS

#: Every situation the coverage table lists, in its order.
SITUATIONS: Final = (
    "tie_last_trick",
    "tie_unbroken",
    "tied",
    "last_trick_ten",
    "tute",
    "over_100",
    "middle",
    "no_tricks",
    "trumped_above_below",
    "relief_by_trump",
    "cante_last_lead",
    "contrafallar",
)
#: The outcome's reason that is each situation.
_REASONS: Final = {
    "last_trick": "tie_last_trick",
    "tie": "tie_unbroken",
    "tied": "tied",
    "tute": "tute",
    "over_100": "over_100",
    "middle": "middle",
    "no_tricks": "no_tricks",
}


def situations_at(position: Position) -> tuple[str, ...]:
    """The situations of the seat to act at a trick already led."""
    deal = position.deal
    if deal.over or position.standing.over or not deal.trick:
        return ()
    hand, led, trump = deal.hands[deal.turn], deal.led_suit, deal.trump
    trumped = trump not in (NO_TRUMP, led) and deal.win_card // 10 == trump
    out = []
    if trumped:
        best = max(card for _, card in deal.trick if card // 10 == led)
        follow = hand & SUIT_MASK[led]
        if follow >> (best + 1) and follow & ((1 << best) - 1):
            out.append("trumped_above_below")
        if deal.relief and deal.win_seat == partner(deal.turn):
            out.append("relief_by_trump")
    if not hand & SUIT_MASK[led] and (trump == NO_TRUMP or not hand & SUIT_MASK[trump]):
        out.append("contrafallar")
    return tuple(out)


def situations_of(
    position: Position, move: Move | None, expect: Mapping[str, Any], at: tuple[str, ...]
) -> tuple[str, ...]:
    """The situations of one question: the position's (``at``), and the move's own."""
    if move is None:
        return at
    deal = position.deal
    out = list(at)
    if move.kind == TUTE and expect.get("verdict") == "ok":
        out.append("tute")
    if move.kind == SING and not deal.trick and deal.trick_no == deal.total_tricks - 1:
        out.append("cante_last_lead")
    outcome = expect.get("outcome")
    if isinstance(outcome, Mapping):
        reason = _REASONS.get(str(outcome.get("reason")))
        if reason is not None and reason not in out:
            out.append(reason)
        elif outcome.get("reason") == "points" and _ten_decides(position, move, outcome):
            out.append("last_trick_ten")
    return tuple(out)


def _ten_decides(position: Position, move: Move, outcome: Mapping[str, Any]) -> bool:
    """Whether the last trick's ten decided a deal won on points: its winners took the last
    trick and lead by no more than the ten."""
    after = position.after(move).deal
    if after.trick_no != after.total_tricks:
        return False
    totals = after.totals()
    pairs = position.header.ruleset.pairs
    sides = [(0, 2), (1, 3)] if pairs else [(s,) for s in range(after.players)]
    winners = set(outcome.get("winners") or ())
    if after.last_winner not in winners:
        return False
    sums = [sum(totals[s] for s in side) for side in sides]
    ours = max(t for side, t in zip(sides, sums, strict=True) if set(side) <= winners)
    others = [t for side, t in zip(sides, sums, strict=True) if not set(side) & winners]
    return bool(others) and ours - max(others) <= LAST_TRICK_BONUS
