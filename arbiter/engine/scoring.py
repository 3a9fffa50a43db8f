"""Who wins a deal and who wins the match (docs/rules.md §6, §7).

Three ways of deciding a deal: *most points* (tute-2p, -3p, -4p, per side in pairs), *cabrón*
(who **loses** the hand: no trick, over 100, tied, or the middle score) and *gana-pierde*
(the extremes win the round). A renuncio or a tute, whichever comes first, decides the deal
before any of these. Three match systems: first to N deals won, loser points, tokens.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Any, Final, final

from arbiter.engine.records import DecisiveKind, Record
from arbiter.engine.rulesets import (
    MatchRule,
    Options,
    OutcomeRule,
    RenuncioAward,
    Ruleset,
    TieRule,
    partner,
    zeros,
)
from arbiter.engine.state import DealState


class Reason(StrEnum):
    """Why a deal ended as it did (docs/api.md ``outcome.reason``)."""

    POINTS = "points"  # more points
    LAST_TRICK = "last_trick"  # a tie broken by the last trick
    TIE = "tie"  # a tie nothing broke
    TUTE = "tute"  # four kings or four horses declared
    RENUNCIO = "renuncio"  # the first renuncio decided it
    NO_TRICKS = "no_tricks"  # cabrón, gana-pierde: who won no trick loses
    OVER_100 = "over_100"  # cabrón: who passed 100 points loses
    TIED = "tied"  # cabrón, gana-pierde: players tied on points lose
    MIDDLE = "middle"  # cabrón: the middle score loses
    EXTREMES = "extremes"  # gana-pierde: the most and the fewest points win


@final
class Outcome(Record):
    """A finished deal: the winning and losing seats and why."""

    __slots__ = ("losers", "reason", "winners")

    def __init__(self, winners: tuple[int, ...], losers: tuple[int, ...], reason: Reason) -> None:
        self.winners = winners
        self.losers = losers
        self.reason = reason

    def astuple(self) -> tuple[tuple[int, ...], tuple[int, ...], Reason]:
        return (self.winners, self.losers, self.reason)


def sides(ruleset: Ruleset, players: int) -> tuple[tuple[int, ...], ...]:
    """The groups that share points and outcomes: pairs 0+2 and 1+3, or each seat alone."""
    return _PAIRS if ruleset.pairs else _ALONE[players]


_PAIRS: Final[tuple[tuple[int, ...], ...]] = ((0, 2), (1, 3))


_ALONE: Final[dict[int, tuple[tuple[int, ...], ...]]] = {
    n: tuple((s,) for s in range(n)) for n in range(2, 6)
}


def side_of(ruleset: Ruleset, seat: int) -> tuple[int, ...]:
    """The seats that share ``seat``'s points and outcome."""
    return tuple(sorted((seat, partner(seat)))) if ruleset.pairs else (seat,)


def _seats_mask(seats: Iterable[int]) -> int:
    """A set of seats as a mask of bits ``1 << seat``."""
    mask = 0
    for seat in seats:
        mask |= 1 << seat
    return mask


def _splits(players: int) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """By mask of winning seats, the winners and the losers in seat order."""
    return tuple(
        (
            tuple(s for s in range(players) if mask >> s & 1),
            tuple(s for s in range(players) if not mask >> s & 1),
        )
        for mask in range(1 << players)
    )


#: :func:`_splits` of every number of players: an outcome's seats are these shared tuples, not
#: two made per deal (measured under callgrind: see the commit that made them).
_SPLITS: Final[dict[int, tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]]] = {
    n: _splits(n) for n in range(2, 6)
}


def _split(players: int, winners: int, reason: Reason) -> Outcome:
    """The outcome won by the seats of the mask ``winners``, lost by the others."""
    won, lost = _SPLITS[players][winners]
    return Outcome(won, lost, reason)


def deal_outcome(state: DealState) -> Outcome:
    """The outcome of a finished deal."""
    ruleset, n = state.ruleset, state.players
    everyone = (1 << n) - 1
    decisive = state.decisive
    if decisive is not None:
        offender = _seats_mask(side_of(ruleset, decisive.seat))
        if decisive.kind is DecisiveKind.TUTE:
            return _split(n, offender, Reason.TUTE)
        if ruleset.renuncio_award is RenuncioAward.BEST_OTHER:
            others = [(s,) for s in range(n) if not offender >> s & 1]
            best, _ = _most_points(state, others)
            return _split(n, best or everyone & ~offender, Reason.RENUNCIO)
        return _split(n, everyone & ~offender, Reason.RENUNCIO)
    if ruleset.outcome is OutcomeRule.CABRON:
        return _cabron(state)
    if ruleset.outcome is OutcomeRule.GANA_PIERDE:
        return _gana_pierde(state)
    best, reason = _most_points(state, sides(ruleset, n))
    if not best and ruleset.unbroken_tie is TieRule.SHARED:
        totals = state.totals()
        top = max(totals)
        best = _seats_mask([s for s in range(n) if totals[s] == top])
    if not best:
        return Outcome((), (), reason)  # a drawn deal scores for nobody
    return _split(n, best, reason)


def _most_points(state: DealState, groups: Sequence[tuple[int, ...]]) -> tuple[int, Reason]:
    """The seats (a mask) of the group with the most points (reason ``points``), of the leading
    group that won the last trick when they tie (``last_trick``), or 0 for an unbroken tie
    (``tie``)."""
    totals = state.totals()
    # One typed loop, not sum() and max() of lists: the compiled build calls those builtins
    # on boxed ints (measured: about 3K instructions a tute-4p deal).
    top = -1
    leaders = 0  # the seats of the groups with the most points so far
    tied = 0  # how many groups have them
    for group in groups:
        points = 0
        for seat in group:
            points += totals[seat]
        if points > top:
            top = points
            leaders = _seats_mask(group)
            tied = 1
        elif points == top:
            leaders |= _seats_mask(group)
            tied += 1
    if tied == 1:
        return leaders, Reason.POINTS
    last = state.last_trick_winner
    if state.options.tie_break == "last_trick" and last is not None and leaders >> last & 1:
        for group in groups:  # the groups are disjoint: one holds the last trick's winner
            if last in group:
                return _seats_mask(group), Reason.LAST_TRICK
    return 0, Reason.TIE


def _tied_seats(totals: list[int]) -> set[int]:
    return {s for s, t in enumerate(totals) if totals.count(t) > 1}


def _losers_first(state: DealState, rules: list[tuple[Reason, set[int]]]) -> Outcome | None:
    """The first rule that names any seat decides: those seats lose, everyone else wins."""
    everyone = (1 << state.players) - 1
    for reason, losers in rules:
        if losers:
            return _split(state.players, everyone & ~_seats_mask(losers), reason)
    return None


def _cabron(state: DealState) -> Outcome:
    """Tute cabrón: who *loses* the hand, in order of precedence."""
    n, totals = state.players, state.totals()
    ranked = sorted(range(n), key=totals.__getitem__)
    outcome = _losers_first(
        state,
        [
            (Reason.NO_TRICKS, {s for s in range(n) if state.tricks_won[s] == 0}),
            (Reason.OVER_100, {s for s in range(n) if totals[s] > 100}),
            (Reason.TIED, _tied_seats(totals)),
            (Reason.MIDDLE, set(ranked[1:-1])),
        ],
    )
    assert outcome is not None  # with three players there is always a middle score
    return outcome


def _gana_pierde(state: DealState) -> Outcome:
    """Gana-pierde: no trick loses; else the most and the fewest points win, ties lose."""
    n, totals = state.players, state.totals()
    no_trick = _losers_first(
        state, [(Reason.NO_TRICKS, {s for s in range(n) if state.tricks_won[s] == 0})]
    )
    if no_trick is not None:
        return no_trick
    tied = _tied_seats(totals)
    extremes = {totals.index(max(totals)), totals.index(min(totals))}
    return _split(n, _seats_mask(extremes - tied), Reason.TIED if tied else Reason.EXTREMES)


def _count(counts: list[int], seats: tuple[int, ...]) -> None:
    """One more for each of ``seats``. Item by item, not ``counts[s] += 1``: the compiled
    build does augmented item assignments through the generic number protocol."""
    for seat in seats:
        counts[seat] = counts[seat] + 1


class MatchStanding:
    """The running standing of a match: deals won, loser points or tokens per seat."""

    __slots__ = ("deals_won", "loser_points", "losers", "over", "tokens", "winners")

    def __init__(self, players: int) -> None:
        self.deals_won = zeros(players)
        self.loser_points = zeros(players)
        self.tokens = zeros(players)
        self.over = False
        self.winners: tuple[int, ...] = ()
        self.losers: tuple[int, ...] = ()

    def copy(self) -> MatchStanding:
        return MatchStanding.from_fields(self.to_fields())

    def to_fields(self) -> list[Any]:
        """The standing as plain values (see :meth:`from_fields`)."""
        return [
            list(self.deals_won),
            list(self.loser_points),
            list(self.tokens),
            self.over,
            list(self.winners),
            list(self.losers),
        ]

    @classmethod
    def from_fields(cls, fields: list[Any]) -> MatchStanding:
        deals_won, loser_points, tokens, over, winners, losers = fields
        standing = cls(len(deals_won))
        standing.deals_won = list(deals_won)
        standing.loser_points = list(loser_points)
        standing.tokens = list(tokens)
        standing.over = bool(over)
        standing.winners, standing.losers = tuple(winners), tuple(losers)
        return standing

    def record(self, ruleset: Ruleset, options: Options, state: DealState, out: Outcome) -> None:
        """Count a finished deal and decide the match if it is over."""
        n = state.players
        if ruleset.match is MatchRule.DEALS:
            _count(self.deals_won, out.winners)
            self._decide_by(self.deals_won, options.match_target, reached_wins=True)
        elif ruleset.match is MatchRule.LOSER_POINTS:
            _count(self.loser_points, out.losers)
            self._decide_by(self.loser_points, options.loser_target, reached_wins=False)
        else:
            _count(self.tokens, out.winners)
            self._decide_by(self.tokens, options.token_target, reached_wins=True)
        decisive = state.decisive
        if (
            decisive is not None
            and decisive.kind is DecisiveKind.RENUNCIO
            and options.renuncio_penalty == "lose_match"
        ):
            offender = side_of(ruleset, decisive.seat)
            self.over = True
            self.losers = offender
            self.winners = tuple(s for s in range(n) if s not in offender)

    def _decide_by(self, counts: list[int], target: int, *, reached_wins: bool) -> None:
        reached = tuple(s for s, c in enumerate(counts) if c >= target)
        if not reached:
            return
        rest = tuple(s for s in range(len(counts)) if s not in reached)
        self.over = True
        self.winners, self.losers = (reached, rest) if reached_wins else (rest, reached)
