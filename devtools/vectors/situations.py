"""Situations: positions that engines get wrong, named so that the published set covers them as it
covers the rules (docs/conformance.md, "Situations").

A rule name says what a vector checks; a situation says where: a follower of a trick that a
trump wins, holding cards of the suit led above and below its best card; a tute open after a
won trick; a cante open to a side that has sung before... Each :class:`Situation` has a
predicate over a :class:`~devtools.vectors.positions.Spot` (the engine's position
view of the point where the question is asked), the rulesets where it can arise
(:data:`ARISES`) and the move whose verdict shows it (:func:`move_of`). The search offers a
``legal_moves`` vector and a verdict on that move wherever a situation holds; the coverage
table of docs/conformance.md counts every published vector by the situations its position is
in (:func:`situations_of`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from typing import Any, Final

from arbiter.engine.cards import (
    SUIT_MASK,
    card_suit,
    cards_of,
    display_order,
    make_card,
)
from arbiter.engine.errors import ArbiterError
from arbiter.engine.log import parse_header
from arbiter.engine.moves import SING, TUTE, Move
from arbiter.engine.obligations import NO_TRUMP
from arbiter.engine.rulesets import CanteStyle, Options, Ruleset, partner
from arbiter.engine.scoring import side_of
from arbiter.engine.state import declaration_cards
from devtools.vectors.positions import Spot, spots

#: The two of a suit (the card some engines let a player exchange for the turned card).
TWO: Final = 2


class Situation(StrEnum):
    """Positions to cover, besides the rules."""

    #: a follower of a trick a trump wins (the suit led is not trump), holding cards of the suit
    #: led above and below the best card of that suit in the trick: any of them will do
    TRUMPED_SPLIT = "trumped-split"
    #: partner_relief: the partner wins the trick with a trump
    RELIEF_BY_TRUMP = "relief-by-trump"
    TUTE_AFTER_TRICK = "tute-after-trick"
    TUTE_FIRST_LEAD = "tute-first-lead"
    #: a cante in trumps (40) and one in another suit (20) open together
    TWENTY_AND_FORTY = "twenty-and-forty"
    TUTE_AND_CANTE = "tute-and-cante"
    #: a cante open to a player whose side sang in an earlier trick of the deal
    SIDE_SANG_BEFORE = "side-sang-before"
    #: cantes_per_trick cantes sung on this lead, and another pair held
    CANTES_LIMIT = "cantes-limit"
    #: a follower of a trump lead who holds no trump: any card
    CONTRAFALLAR_TRUMP_LEAD = "contrafallar-trump-lead"
    #: the last card of a deal that holds a renuncio (the last trick's ten, and the outcome)
    LAST_TRICK_RENUNCIO = "last-trick-renuncio"
    #: tute-2p: a cante open whose king or horse the player has just drawn
    CANTE_AFTER_DRAW = "cante-after-draw"
    #: tute-2p: on lead with stock left, holding the two of trumps and not the seven
    TWO_OF_TRUMPS = "two-of-trumps"
    #: a follower void in the suit led of a trick a trump wins, holding trumps that do not beat
    #: it and a card of another suit: a trump is still due (trump_when_cannot_overtrump); in a
    #: deal without renuncio, so that a table blocking them reaches it
    CANNOT_OVERTRUMP = "cannot-overtrump"


Holds = Callable[[Spot, Ruleset, Options], bool]


# --- facts of a position --------------------------------------------------------------------------


def _following(spot: Spot) -> bool:
    return spot.view.turn is not None and bool(spot.view.trick) and spot.view.strict


def _trumped(spot: Spot) -> bool:
    """A trump wins a trick whose suit led is not trump."""
    view = spot.view
    return view.trump not in (NO_TRUMP, view.led_suit) and card_suit(view.win_card) == view.trump


def _declarations(spot: Spot, kind: int) -> list[Move]:
    return [m for m in spot.view.declarations if m.kind == kind]


def _side_sang(spot: Spot, seat: int, ruleset: Ruleset) -> int:
    """How many cantes the side of ``seat`` sang before the trick just won."""
    trick = spot.view.trick_no - 1
    side = side_of(ruleset, seat)
    return sum(1 for c in spot.view.cantes if c.seat in side and c.trick < trick)


# --- the situations -------------------------------------------------------------------------------


def _trumped_split(spot: Spot, ruleset: Ruleset, options: Options) -> bool:
    if not _following(spot) or not _trumped(spot):
        return False
    led = spot.led
    best = max(c for _, c in spot.view.trick if card_suit(c) == led)
    held = cards_of(spot.hand & SUIT_MASK[led])
    return any(c > best for c in held) and any(c < best for c in held)


def _relief_by_trump(spot: Spot, ruleset: Ruleset, options: Options) -> bool:
    if not (ruleset.pairs and options.partner_relief and _following(spot)):
        return False
    turn = spot.view.turn
    return turn is not None and _trumped(spot) and spot.view.win_seat == partner(turn)


def _tute_after_trick(spot: Spot, ruleset: Ruleset, options: Options) -> bool:
    return bool(_declarations(spot, TUTE)) and spot.view.trick_no > 0


def _tute_first_lead(spot: Spot, ruleset: Ruleset, options: Options) -> bool:
    return bool(_declarations(spot, TUTE)) and spot.view.trick_no == 0


def _twenty_and_forty(spot: Spot, ruleset: Ruleset, options: Options) -> bool:
    suits = {m.suit for m in _declarations(spot, SING)}
    return spot.view.trump in suits and len(suits) >= 2


def _tute_and_cante(spot: Spot, ruleset: Ruleset, options: Options) -> bool:
    return bool(_declarations(spot, TUTE)) and bool(_declarations(spot, SING))


def _side_sang_before(spot: Spot, ruleset: Ruleset, options: Options) -> bool:
    turn = spot.view.turn
    if turn is None or not _declarations(spot, SING):
        return False
    return _side_sang(spot, turn, ruleset) > 0


def _cantes_limit(spot: Spot, ruleset: Ruleset, options: Options) -> bool:
    view = spot.view
    turn = view.turn
    if turn is None or view.trick or view.trick_no == 0 or ruleset.cantes != CanteStyle.DECLARED:
        return False
    if view.cantes_this_lead < options.cantes_per_trick:
        return False
    return any(seat == turn for seat, _ in view.open_cantes)


def _contrafallar_trump_lead(spot: Spot, ruleset: Ruleset, options: Options) -> bool:
    trump = spot.view.trump
    if not _following(spot) or trump == NO_TRUMP or spot.led != trump:
        return False
    return not spot.hand & SUIT_MASK[trump]


def _last_trick_renuncio(spot: Spot, ruleset: Ruleset, options: Options) -> bool:
    view = spot.view
    players = len(view.hands)
    last = ruleset.tricks(players) - 1
    return view.trick_no == last and len(view.trick) == players - 1 and bool(spot.renuncio_tricks)


def _cante_after_draw(spot: Spot, ruleset: Ruleset, options: Options) -> bool:
    turn = spot.view.turn
    drawn = [card for seat, card in spot.last_draws if seat == turn]
    sings = _declarations(spot, SING)
    return any(declaration_cards(m, spot.view.trump) >> card & 1 for m in sings for card in drawn)


def _two_of_trumps(spot: Spot, ruleset: Ruleset, options: Options) -> bool:
    view = spot.view
    if view.turn is None or view.trick or not view.stock_left or view.trump == NO_TRUMP:
        return False
    hand = spot.hand
    two = make_card(TWO, view.trump)
    return bool(hand >> two & 1) and not hand & declaration_cards(
        Move.exchange(view.turn), view.trump
    )


def _cannot_overtrump(spot: Spot, ruleset: Ruleset, options: Options) -> bool:
    # in a deal without renuncio: a table that blocks them must reach it (free discard is a bug
    # of such tables)
    if spot.renuncio_tricks or not _following(spot) or not _trumped(spot):
        return False
    if spot.hand & SUIT_MASK[spot.led]:
        return False
    trumps = spot.hand & SUIT_MASK[spot.view.trump]
    if not trumps or trumps == spot.hand or max(cards_of(trumps)) > spot.view.win_card:
        return False  # no trump, nothing else to discard, or an overtrump (pisar) open
    return spot.view.correct == trumps  # not relieved, and a trump still due


HOLDS: Final[dict[Situation, Holds]] = {
    Situation.TRUMPED_SPLIT: _trumped_split,
    Situation.RELIEF_BY_TRUMP: _relief_by_trump,
    Situation.TUTE_AFTER_TRICK: _tute_after_trick,
    Situation.TUTE_FIRST_LEAD: _tute_first_lead,
    Situation.TWENTY_AND_FORTY: _twenty_and_forty,
    Situation.TUTE_AND_CANTE: _tute_and_cante,
    Situation.SIDE_SANG_BEFORE: _side_sang_before,
    Situation.CANTES_LIMIT: _cantes_limit,
    Situation.CONTRAFALLAR_TRUMP_LEAD: _contrafallar_trump_lead,
    Situation.LAST_TRICK_RENUNCIO: _last_trick_renuncio,
    Situation.CANTE_AFTER_DRAW: _cante_after_draw,
    Situation.TWO_OF_TRUMPS: _two_of_trumps,
    Situation.CANNOT_OVERTRUMP: _cannot_overtrump,
}


def _declared(r: Ruleset) -> bool:
    return r.cantes == CanteStyle.DECLARED


#: Where each situation can arise. A trump can win a trick before a follower only when a third
#: player is at the table: with two, the follower meets the leader's card alone.
ARISES: Final[dict[Situation, Callable[[Ruleset], bool]]] = {
    Situation.TRUMPED_SPLIT: lambda r: max(r.players) >= 3,
    Situation.RELIEF_BY_TRUMP: lambda r: r.pairs and r.option("partner_relief") is not None,
    Situation.TUTE_AFTER_TRICK: lambda r: r.tute,
    Situation.TUTE_FIRST_LEAD: lambda r: r.tute,
    Situation.TWENTY_AND_FORTY: _declared,
    Situation.TUTE_AND_CANTE: lambda r: r.tute and _declared(r),
    Situation.SIDE_SANG_BEFORE: _declared,
    Situation.CANTES_LIMIT: _declared,
    Situation.CONTRAFALLAR_TRUMP_LEAD: lambda r: True,
    Situation.LAST_TRICK_RENUNCIO: lambda r: True,
    Situation.CANTE_AFTER_DRAW: lambda r: r.stock and _declared(r),
    Situation.TWO_OF_TRUMPS: lambda r: r.exchange,
    Situation.CANNOT_OVERTRUMP: lambda r: max(r.players) >= 3,
}
#: Options a situation needs set (the others hold under the defaults).
NEEDS: Final[dict[Situation, dict[str, Any]]] = {
    Situation.RELIEF_BY_TRUMP: {"partner_relief": True}
}


def holding(spot: Spot, ruleset: Ruleset, options: Options) -> list[Situation]:
    """The situations that hold at a spot, in the order of :class:`Situation`."""
    if spot.view.turn is None:
        return []
    return [s for s, holds in HOLDS.items() if ARISES[s](ruleset) and holds(spot, ruleset, options)]


def move_of(situation: Situation, spot: Spot) -> Move | None:
    """The move whose verdict shows the situation (None: the legal moves show it alone)."""
    view = spot.view
    turn = view.turn
    if turn is None:
        return None
    hand = spot.hand
    if situation is Situation.TRUMPED_SPLIT:
        led = spot.led
        best = max(c for _, c in view.trick if card_suit(c) == led)
        return Move.play(turn, min(c for c in cards_of(hand & SUIT_MASK[led]) if c < best))
    if situation in (Situation.TUTE_AFTER_TRICK, Situation.TUTE_FIRST_LEAD):
        return _declarations(spot, TUTE)[0]
    if situation in (
        Situation.TWENTY_AND_FORTY,
        Situation.TUTE_AND_CANTE,
        Situation.SIDE_SANG_BEFORE,
        Situation.CANTE_AFTER_DRAW,
    ):
        sings = _declarations(spot, SING)
        others = [m for m in sings if m.suit != view.trump]
        return (others or sings)[0]
    if situation is Situation.CANTES_LIMIT:
        suit = next(s for seat, s in view.open_cantes if seat == turn)
        return Move.sing(turn, suit)
    if situation is Situation.TWO_OF_TRUMPS:
        return Move.exchange(turn)
    if situation is Situation.CANNOT_OVERTRUMP:  # a discard: the renuncio a free table allows
        return Move.play(turn, display_order(hand & ~view.correct)[0])
    # a play: the lowest of the plays that are no renuncio (relief, contrafallar, the last trick)
    correct = display_order(view.correct)
    return Move.play(turn, correct[0]) if correct else None


def situations_of(log: Mapping[str, Any]) -> list[Situation]:
    """The situations of the point a (valid) log's last deal has reached."""
    try:
        header = parse_header(log)
        found = spots(log)
    except (ArbiterError, ValueError):
        return []
    events = len(log["deals"][-1].get("events", []))
    if len(found) != events + 1:  # the replay stopped at an illegal event
        return []
    return holding(found[-1], header.ruleset, header.options)
