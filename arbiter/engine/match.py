"""Replaying a whole match, and the position from which the next move is judged.

:class:`MatchState` is everything the referee knows after a prefix of a log: the deals played
so far (each a :class:`DealState` with its :class:`Outcome` once finished), the match standing,
and the illegal event that stopped the replay, if any. :func:`advance` continues a state through
the rest of a log, so a state restored from a snapshot resumes where it stopped.

:class:`Position` is the smaller thing a move is judged on: the header, the standing, how many
deals have begun and the state of the last one, without the deals' histories. It is what a
sealed state token carries; :meth:`Position.judge` says whether one more event would be correct,
a renuncio or illegal, :meth:`Position.play` makes it, :meth:`Position.begin_deal` starts the
next deal.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import NamedTuple

from arbiter.engine.errors import LogError
from arbiter.engine.log import GameLog, Header
from arbiter.engine.moves import PLAY, Move, MoveCode
from arbiter.engine.obligations import Obligation
from arbiter.engine.scoring import MatchStanding, Outcome, deal_outcome
from arbiter.engine.setup import DealSetup
from arbiter.engine.state import DealState, IllegalCode


class Status(StrEnum):
    """Where a replayed log stands (docs/api.md ``status``)."""

    COMPLETE = "complete"  # the match is decided, or every deal given is finished
    IN_PROGRESS = "in_progress"  # the last deal is unfinished
    INVALID = "invalid"  # an event could not be applied


class Ruling(StrEnum):
    """The verdict on one proposed move (docs/api.md ``verdict``)."""

    OK = "ok"
    RENUNCIO = "renuncio"
    ILLEGAL = "illegal"


class Illegal(NamedTuple):
    """The event that stopped a replay: deal and event index (None: the deal itself)."""

    deal: int
    event: int | None
    code: IllegalCode
    move: Move | None


class DealRecord:
    """A deal of the match: its state and, once finished, its outcome.

    A finished deal restored from a snapshot keeps its packed bytes and is unpacked only when
    someone looks at it: judging the next move never does, and re-encoding reuses the bytes.
    Finished deals never change, so copies of a match share their records.
    """

    __slots__ = ("_state", "_unpack", "dealer", "outcome", "packed")

    def __init__(
        self,
        state: DealState | None,
        outcome: Outcome | None = None,
        packed: bytes | None = None,
        unpack: Callable[[bytes], DealState] | None = None,
        dealer: int | None = None,
    ) -> None:
        self._state = state
        self.outcome = outcome
        self.packed = packed
        self._unpack = unpack
        if dealer is None:
            assert state is not None
            dealer = state.dealer
        self.dealer = dealer

    @property
    def state(self) -> DealState:
        if self._state is None:
            assert self.packed is not None and self._unpack is not None
            self._state = self._unpack(self.packed)
        return self._state


class MatchState:
    """A match after some prefix of its log. Mutable; the replay advances it in place."""

    __slots__ = ("deals", "header", "illegal", "standing")

    def __init__(self, header: Header) -> None:
        self.header = header
        self.deals: list[DealRecord] = []
        self.standing = MatchStanding(len(header.players))
        self.illegal: Illegal | None = None

    @property
    def current(self) -> DealState | None:
        """The deal in progress, if the last deal is unfinished."""
        if self.deals and self.deals[-1].outcome is None:
            return self.deals[-1].state
        return None

    @property
    def progress(self) -> tuple[int, int]:
        """(deals started, events applied in the last one): where this state stands in a log."""
        if not self.deals:
            return (0, 0)
        return (len(self.deals), self.deals[-1].state.events_applied)

    @property
    def status(self) -> Status:
        if self.illegal is not None:
            return Status.INVALID
        if self.current is not None and not self.standing.over:
            return Status.IN_PROGRESS
        return Status.COMPLETE

    def copy(self) -> MatchState:
        other = MatchState(self.header)
        other.deals = [
            r if r.outcome is not None else DealRecord(r.state.copy()) for r in self.deals
        ]
        other.standing = self.standing.copy()
        other.illegal = self.illegal
        return other

    def play(self, move: Move) -> None:
        """Apply a move judged ``ok`` to the current deal (finishing it if it ends there)."""
        record = self.deals[-1]
        code = record.state.apply(move, record.state.events_applied)
        if code is not None:
            raise ValueError(f"play on an illegal move: {code}")
        if record.state.over:
            self.finish_deal(record)

    def finish_deal(self, record: DealRecord) -> None:
        record.outcome = deal_outcome(record.state)
        self.standing.record(self.header.ruleset, self.header.options, record.state, record.outcome)

    def position(self) -> Position:
        """The position this prefix leaves (it shares this state's objects: do not mutate)."""
        if self.illegal is not None or not self.deals:
            raise ValueError("only a valid match with a deal has a position")
        return Position(self.header, self.standing, len(self.deals), self.deals[-1].state)


def replay(log: GameLog) -> MatchState:
    """Replay a parsed log from the start."""
    return advance(MatchState(log.header), log)


def advance(match: MatchState, log: GameLog) -> MatchState:
    """Continue ``match`` through ``log``, which continues it: the log's deals start at or
    before the match's last deal, and events the match has already applied are skipped.

    Stops at the first illegal event. A deal other than the last that is left unfinished is a
    :class:`LogError` (docs/api.md: such a log is malformed, not illegal).
    """
    if match.illegal is not None:
        return match
    if log.first_deal > len(match.deals):
        raise ValueError("the log starts after the end of this match")
    last = log.first_deal + len(log.deals) - 1
    for index, deal in enumerate(log.deals, log.first_deal):
        if index < len(match.deals) - 1:
            continue  # finished before this state was taken
        if index == len(match.deals):
            if match.standing.over:
                first_event = Move.from_code(deal.events[0]) if deal.events else None
                at = None if first_event is None else 0
                match.illegal = Illegal(index, at, IllegalCode.MATCH_OVER, first_event)
                return match
            if deal.setup is None:
                raise ValueError("a deal the match has not begun needs its setup")
            header = match.header
            state = DealState(header.ruleset, header.options, len(header.players), deal.setup)
            match.deals.append(DealRecord(state))
        if not _play_events(match, index, deal.events, deal.first_event):
            return match
        if match.deals[index].outcome is None and index < last:
            raise LogError(
                "this deal is unfinished; only the last deal of a log may be", ("deals", index)
            )
    return match


def _play_events(match: MatchState, index: int, events: tuple[MoveCode, ...], first: int) -> bool:
    """Apply deal ``index``'s events (``events[0]`` is event ``first``) that the state has not
    applied yet; False when one is illegal (recorded in ``match.illegal``)."""
    record = match.deals[index]
    if record.outcome is not None and record.packed is not None and not events:
        return True  # nothing to apply: leave a packed deal packed
    state = record.state
    skip = state.events_applied - first
    if skip < 0:
        raise ValueError("the log skips events this state has not applied")
    pending = events[skip:] if skip else events
    for j, move in enumerate(pending, state.events_applied):
        code = state.apply_code(move, j)
        if code is not None:
            # An event after the end of the deal that ended the match is match_over.
            if code is IllegalCode.DEAL_OVER and match.standing.over:
                code = IllegalCode.MATCH_OVER
            match.illegal = Illegal(index, j, code, Move.from_code(move))
            return False
        if state.over and record.outcome is None:
            match.finish_deal(record)
    return True


class MoveJudgement(NamedTuple):
    """The verdict on one proposed move; ``correct`` is the mask of correct plays."""

    verdict: Ruling
    obligation: Obligation | None
    code: IllegalCode | None
    correct: int
    move: Move


class Position:
    """The match as the next move finds it: header, standing, deals begun, the last deal.

    Immutable by convention: :meth:`play` and :meth:`begin_deal` return new positions. The
    last deal's state may come without its history (from a sealed token): judging and
    continuing need only the position fields of :class:`DealState`.
    """

    __slots__ = ("deal", "deals", "header", "standing")

    def __init__(
        self, header: Header, standing: MatchStanding, deals: int, deal: DealState
    ) -> None:
        self.header = header
        self.standing = standing
        self.deals = deals
        self.deal = deal

    @property
    def between_deals(self) -> bool:
        """The last deal is over and the match is not: the next deal may begin."""
        return self.deal.over and not self.standing.over

    def judge(self, move: Move) -> MoveJudgement:
        """Is ``move`` allowed now? Does not change the position."""
        if self.standing.over:
            return MoveJudgement(Ruling.ILLEGAL, None, IllegalCode.MATCH_OVER, 0, move)
        code = self.deal.check(move)
        if code is not None:
            return MoveJudgement(Ruling.ILLEGAL, None, code, 0, move)
        if move.kind == PLAY:
            obligation, correct = self.deal.judge_play(move.seat, move.arg)
            if obligation is not None:
                return MoveJudgement(Ruling.RENUNCIO, obligation, None, correct, move)
            return MoveJudgement(Ruling.OK, None, None, correct, move)
        return MoveJudgement(Ruling.OK, None, None, 0, move)

    def play(self, move: Move) -> Position:
        """The position after ``move``, which :meth:`judge` found ``ok``."""
        deal = self.deal.copy()
        code = deal.apply(move, deal.events_applied)
        if code is not None:
            raise ValueError(f"play on an illegal move: {code}")
        standing = self.standing
        if deal.over:
            standing = standing.copy()
            header = self.header
            standing.record(header.ruleset, header.options, deal, deal_outcome(deal))
        return Position(self.header, standing, self.deals, deal)

    def begin_deal(self, setup: DealSetup) -> Position:
        """The position at the start of the next deal (only :attr:`between_deals`)."""
        if not self.between_deals:
            raise ValueError("a deal begins only after the last one ended, match undecided")
        header = self.header
        deal = DealState(header.ruleset, header.options, len(header.players), setup)
        return Position(header, self.standing, self.deals + 1, deal)
