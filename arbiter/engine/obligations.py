"""The play obligations of docs/rules.md §3: asistir, montar, fallar, pisar.

Every follower in strict play must, in order of priority:

* **asistir** — follow the suit led if they can, and **montar** — beat the card currently
  winning the trick with a card of that suit if they can (unless a trump is already winning a
  non-trump lead: then any card of the suit led will do);
* **fallar** — void in the suit led, play a trump, and **pisar** — overtrump the highest trump
  in the trick if they can (if they cannot, still play a trump, unless
  ``trump_when_cannot_overtrump`` is off);
* **contrafallar** — with neither, play any card.

A play outside the correct set is a **renuncio**, named by the first obligation it breaks.
Everything here works on int bitmasks (see :mod:`arbiter.engine.cards`).
"""

from __future__ import annotations

from enum import StrEnum

from arbiter.engine.cards import ABOVE, SUIT_MASK, Card, Mask

NO_TRUMP = -1
"""Trump suit value while no trump exists (cabrón and gana-pierde before the first call)."""


class Obligation(StrEnum):
    """The obligation a renuncio breaks."""

    ASISTIR = "asistir"  # follow suit
    MONTAR = "montar"  # beat the winning card within the suit led
    FALLAR = "fallar"  # trump when void in the suit led
    PISAR = "pisar"  # overtrump the highest trump in the trick


def correct_plays(
    hand: Mask,
    led_suit: int,
    winning: Card,
    trump: int,
    relieved: bool,
    must_trump_anyway: bool,
) -> Mask:
    """The mask of cards in ``hand`` that a follower may play without a renuncio.

    ``winning`` is the card currently winning the trick; ``relieved`` is true when the
    partner's card is winning and ``partner_relief`` is on (only asistir is then due);
    ``must_trump_anyway`` is the ``trump_when_cannot_overtrump`` option.
    """
    follow = hand & SUIT_MASK[led_suit]
    if follow:
        if relieved or (winning // 10 != led_suit):
            # A trump already wins a non-trump lead: no card of the suit led can beat it.
            return follow
        return (follow & ABOVE[winning]) or follow
    if trump == NO_TRUMP or relieved:
        return hand
    trumps = hand & SUIT_MASK[trump]
    if not trumps:
        return hand
    if winning // 10 == trump:
        over = trumps & ABOVE[winning]
        if over:
            return over
        return trumps if must_trump_anyway else hand
    return trumps


def broken_obligation(card: Card, hand: Mask, led_suit: int, trump: int) -> Obligation:
    """The first obligation broken by playing ``card``, known to be outside the correct set."""
    suit = card // 10
    if hand & SUIT_MASK[led_suit]:
        return Obligation.ASISTIR if suit != led_suit else Obligation.MONTAR
    if suit != trump:
        return Obligation.FALLAR
    # A trump outside the correct set can only have failed to overtrump.
    return Obligation.PISAR


def beats(card: Card, winning: Card, trump: int) -> bool:
    """Whether ``card`` takes the trick from ``winning``: higher in its suit, or a first trump.

    The reference definition; :meth:`DealState.apply` inlines it in the replay's hot path.
    """
    suit, win_suit = card // 10, winning // 10
    if suit == win_suit:
        return card > winning
    return suit == trump
