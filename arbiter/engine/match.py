"""Replaying a whole match: deals in order, the standing, and the first illegal event.

:class:`MatchState` is everything the referee knows after a prefix of a log: the deals played
so far (each a :class:`DealState` with its :class:`Outcome` once finished), the match standing,
and the illegal event that stopped the replay, if any. :func:`advance` continues a state through
the rest of a log, so a state restored from a snapshot resumes where it stopped.
:func:`judge_move` says whether one more event would be correct, a renuncio or illegal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from arbiter.engine.cards import Notation
from arbiter.engine.errors import LogError
from arbiter.engine.log import GameLog
from arbiter.engine.obligations import Obligation
from arbiter.engine.rulesets import Options, Ruleset
from arbiter.engine.scoring import MatchStanding, Outcome, deal_outcome
from arbiter.engine.state import PLAY, DealState, Event, IllegalCode


class Illegal(NamedTuple):
    """The event that stopped a replay: deal and event index (None: the deal itself)."""

    deal: int
    event: int | None
    code: IllegalCode
    move: Event | None


class DealRecord:
    """A deal of the match: its state and, once finished, its outcome.

    A finished deal restored from a snapshot keeps its packed bytes and is unpacked only when
    someone looks at it: judging the next move never does, and re-encoding reuses the bytes.
    Finished deals never change, so copies of a match share their records.
    """

    __slots__ = ("_state", "_unpack", "outcome", "packed")

    def __init__(
        self,
        state: DealState | None,
        outcome: Outcome | None = None,
        packed: bytes | None = None,
        unpack: Callable[[bytes], DealState] | None = None,
    ) -> None:
        self._state = state
        self.outcome = outcome
        self.packed = packed
        self._unpack = unpack

    @property
    def state(self) -> DealState:
        if self._state is None:
            assert self.packed is not None and self._unpack is not None
            self._state = self._unpack(self.packed)
        return self._state


class MatchState:
    """A match after some prefix of its log. Mutable; the replay advances it in place."""

    __slots__ = ("deals", "illegal", "notation", "options", "players", "ruleset", "standing")

    def __init__(
        self, ruleset: Ruleset, options: Options, notation: Notation, players: tuple[str, ...]
    ) -> None:
        self.ruleset = ruleset
        self.options = options
        self.notation: Notation = notation
        self.players = players
        self.deals: list[DealRecord] = []
        self.standing = MatchStanding(len(players))
        self.illegal: Illegal | None = None

    @classmethod
    def for_log(cls, log: GameLog) -> MatchState:
        return cls(log.ruleset, log.options, log.notation, log.players)

    @property
    def current(self) -> DealState | None:
        """The deal in progress, if the last deal is unfinished."""
        if self.deals and self.deals[-1].outcome is None:
            return self.deals[-1].state
        return None

    @property
    def position(self) -> tuple[int, int]:
        """(deals started, events applied in the last one): where this state stands in a log."""
        if not self.deals:
            return (0, 0)
        return (len(self.deals), self.deals[-1].state.events_applied)

    @property
    def status(self) -> str:
        if self.illegal is not None:
            return "invalid"
        if self.current is not None and not self.standing.over:
            return "in_progress"
        return "complete"

    def copy(self) -> MatchState:
        other = MatchState(self.ruleset, self.options, self.notation, self.players)
        other.deals = [
            r if r.outcome is not None else DealRecord(r.state.copy()) for r in self.deals
        ]
        standing = other.standing
        standing.deals_won = self.standing.deals_won.copy()
        standing.loser_points = self.standing.loser_points.copy()
        standing.tokens = self.standing.tokens.copy()
        standing.over = self.standing.over
        standing.winners, standing.losers = self.standing.winners, self.standing.losers
        other.illegal = self.illegal
        return other

    def finish_deal(self, record: DealRecord) -> None:
        record.outcome = deal_outcome(record.state)
        self.standing.record(self.ruleset, self.options, record.state, record.outcome)


def replay(log: GameLog) -> MatchState:
    """Replay a parsed log from the start."""
    return advance(MatchState.for_log(log), log)


def advance(match: MatchState, log: GameLog) -> MatchState:
    """Continue ``match`` through the rest of ``log`` (whose prefix it already holds).

    Stops at the first illegal event. A deal other than the last that is left unfinished is a
    :class:`LogError` (docs/api.md: such a log is malformed, not illegal).
    """
    if match.illegal is not None:
        return match
    started, _ = match.position
    first = started - 1 if match.deals else 0
    last = len(log.deals) - 1
    for index in range(first, len(log.deals)):
        deal = log.deals[index]
        if index == len(match.deals):
            if match.standing.over:
                first_event = deal.events[0] if deal.events else None
                at = None if first_event is None else 0
                match.illegal = Illegal(index, at, IllegalCode.MATCH_OVER, first_event)
                return match
            state = DealState(match.ruleset, match.options, len(match.players), deal.setup)
            match.deals.append(DealRecord(state))
        record = match.deals[index]
        state = record.state
        events = deal.events
        start = state.events_applied
        apply = state.apply
        for j, move in enumerate(events[start:] if start else events, start):
            code = apply(move, j)
            if code is not None:
                # An event after the end of the deal that ended the match is match_over.
                if code is IllegalCode.DEAL_OVER and match.standing.over:
                    code = IllegalCode.MATCH_OVER
                match.illegal = Illegal(index, j, code, move)
                return match
            if state.over and record.outcome is None:
                match.finish_deal(record)
        if record.outcome is None and index < last:
            raise LogError(
                "this deal is unfinished; only the last deal of a log may be", ("deals", index)
            )
    return match


class MoveJudgement(NamedTuple):
    """The verdict on one proposed move: ``ok``, ``renuncio`` or ``illegal``."""

    verdict: str
    obligation: Obligation | None
    code: IllegalCode | None
    correct: int
    move: Event


def judge_move(match: MatchState, move: Event) -> MoveJudgement:
    """Is ``move`` allowed now? Does not change ``match``."""
    if match.illegal is not None:
        raise ValueError("the match state is invalid; judge moves only on valid states")
    if match.standing.over:
        return MoveJudgement("illegal", None, IllegalCode.MATCH_OVER, 0, move)
    state = match.current
    if state is None:
        return MoveJudgement("illegal", None, IllegalCode.DEAL_OVER, 0, move)
    code = state.check(move)
    if code is not None:
        return MoveJudgement("illegal", None, code, 0, move)
    if move.kind == PLAY:
        obligation, correct = state.judge_play(move.seat, move.arg)
        if obligation is not None:
            return MoveJudgement("renuncio", obligation, None, correct, move)
        return MoveJudgement("ok", None, None, correct, move)
    return MoveJudgement("ok", None, None, 0, move)


def apply_move(match: MatchState, move: Event) -> MatchState:
    """A copy of ``match`` with ``move`` (already judged legal) applied to the current deal."""
    after = match.copy()
    record = after.deals[-1]
    code = record.state.apply(move, record.state.events_applied)
    if code is not None:
        raise ValueError(f"apply_move on an illegal move: {code}")
    if record.state.over:
        after.finish_deal(record)
    return after
