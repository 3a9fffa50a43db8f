"""Replaying a whole match: one pass over the log that reads and plays.

:class:`MatchState` is everything the referee knows after a prefix of a log: the deals played so
far (each a :class:`DealRecord`: its state, with its history, and its outcome once finished),
the match standing, and the illegal event that stopped the replay, if any. Its moves are applied
through its :meth:`MatchState.position`.

:func:`replay` reads a log (docs/api.md) and plays it in the same pass: each deal's setup is read
and checked, then each event is read and, while the replay is live, applied at once. Reading
goes on to the end even after an illegal event, so that a malformed log is always refused as
such (the first error in the log's order, with its path), whatever its play holds.
:func:`advance` continues a state restored from a snapshot through the rest of a log.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any, Final, NamedTuple

from arbiter.engine.cards import READ_BY_CHARACTERS, Notation, code_reader, code_table
from arbiter.engine.errors import ArbiterError, LogError, is_object
from arbiter.engine.log import (
    DEFAULT_LIMITS,
    Header,
    Limits,
    check_event_count,
    first_dealer,
    parse_header,
    raw_deals,
    read_dealer,
    read_field,
)
from arbiter.engine.moves import Move
from arbiter.engine.position import Position, close_deal
from arbiter.engine.scoring import MatchStanding, Outcome
from arbiter.engine.setup import build_setup, next_dealer
from arbiter.engine.state import DealState, IllegalCode


class Status(StrEnum):
    """Where a replayed log stands (docs/api.md ``status``)."""

    COMPLETE = "complete"  # the match is decided, or every deal given is finished
    IN_PROGRESS = "in_progress"  # the last deal is unfinished
    INVALID = "invalid"  # an event could not be applied


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


#: Called after a deal begins and after each event it applies (the steps of a replay).
Observer = Callable[["MatchState"], None]


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

    def position(self) -> Position:
        """The position this prefix leaves. It shares this state's deal and standing: moves
        applied to it are this match's moves."""
        if self.illegal is not None or not self.deals:
            raise ValueError("only a valid match with a deal has a position")
        last = self.deals[-1]
        return Position(self.header, self.standing, len(self.deals), last.state, last.outcome)

    def play(self, move: Move) -> None:
        """Apply a move that is not illegal to the current deal (a renuncio is recorded)."""
        position = self.position()
        code = position.apply(move)
        if code is not None:
            raise ValueError(f"play on an illegal move: {code}")
        self.deals[-1].outcome = position.outcome

    def begin(self, state: DealState) -> DealRecord:
        record = DealRecord(state)
        self.deals.append(record)
        return record

    def close(self, record: DealRecord) -> None:
        """Record the outcome of a deal that has just ended, and count it."""
        record.outcome = close_deal(self.header, self.standing, record.state)


def replay(
    raw: object,
    limits: Limits = DEFAULT_LIMITS,
    observer: Observer | None = None,
    *,
    tricks: bool = True,
) -> MatchState:
    """Read and replay a whole log (the JSON-shaped object of docs/api.md). Without ``tricks``
    its deals keep no trick records (:attr:`DealState.keeps_tricks`): a replay for its scores."""
    header = parse_header(raw, limits)
    deals = raw_deals(raw, limits)  # type: ignore[arg-type]  # parse_header checked it
    match = MatchState(header)
    return advance(match, deals, 0, 0, first_dealer(header), observer, tricks=tricks)


def advance(
    match: MatchState,
    deals: list[Any],
    first_deal: int,
    first_event: int,
    default_dealer: int,
    observer: Observer | None = None,
    *,
    tricks: bool = True,
) -> MatchState:
    """Continue ``match`` through ``deals[first_deal:]`` of a log: when ``match`` already holds
    deal ``first_deal``, its first ``first_event`` events were applied (a replay resumed from a
    cached state) and neither they nor its setup are read again. ``default_dealer`` is the
    dealer of deal ``first_deal`` when it is new and gives none (unused when it was begun);
    later deals' default dealers rotate from each deal's own.

    Stops applying at the first illegal event, but reads to the end. A deal other than the last
    left unfinished is a :class:`LogError` (docs/api.md: such a log is malformed, not illegal),
    raised once the rest of the log has been read. Without ``tricks`` the deals it begins keep
    no trick records.
    """
    reader = _Reader(match, deals, observer, tricks)
    dealer = default_dealer
    for index in range(first_deal, len(deals)):
        try:
            dealer = reader.deal(index, first_event if index == first_deal else 0, dealer)
        except ArbiterError as err:
            raise err.at("deals", index) from None
    if reader.unfinished is not None:
        raise reader.unfinished
    return match


def _event_keys(first: object) -> tuple[str, str, str]:
    """The keys type, seat and card as the log's own string objects, when its first event
    has them: a JSON parser makes one object of each key of a document, and a dict finds a key
    that *is* its own at once, where an equal one costs a comparison per lookup (the literal
    is not the parser's object). Any equal string finds the same entries: this only saves
    time."""
    type_key, seat_key, card_key = "type", "seat", "card"
    if type(first) is dict:
        event: dict[object, object] = first
        for key in event:
            if isinstance(key, str):
                if key == "type":
                    type_key = key
                elif key == "seat":
                    seat_key = key
                elif key == "card":
                    card_key = key
    return type_key, seat_key, card_key


#: The events of a deal that gives none (read, never changed).
_NO_EVENTS: Final[list[Any]] = []


class _Reader:
    """One pass over a log's deals: read each part, play it while the replay is live."""

    __slots__ = ("deals", "header", "last", "live", "match", "observer", "tricks", "unfinished")

    def __init__(
        self, match: MatchState, deals: list[Any], observer: Observer | None, tricks: bool
    ) -> None:
        self.match = match
        self.tricks = tricks
        self.header = match.header
        self.deals = deals
        self.last = len(deals) - 1
        self.live = match.illegal is None
        self.observer = observer
        self.unfinished: LogError | None = None

    def deal(self, index: int, start: int, default_dealer: int) -> int:
        """Read (and play) deal ``index`` from its event ``start``; the next default dealer."""
        raw = self.deals[index]
        match = self.match
        if index < len(match.deals):  # begun before this state was taken
            record: DealRecord | None = match.deals[index]
            events = read_field(raw, "events", _NO_EVENTS) if is_object(raw) else None
            dealer = match.deals[index].dealer
        else:
            if not is_object(raw):
                raise LogError("a deal must be a JSON object")
            dealer = read_dealer(raw, len(self.header.players), default_dealer)
            header = self.header
            setup = build_setup(header.ruleset, len(header.players), dealer, raw, header.notation)
            events = read_field(raw, "events", _NO_EVENTS)
            record = None
            if self.live:
                if match.standing.over:
                    at = 0 if isinstance(events, list) and events else None
                    first = self._first_move(events) if at is not None else None
                    match.illegal = Illegal(index, at, IllegalCode.MATCH_OVER, first)
                    self.live = False
                else:
                    state = DealState.start(header.ruleset, header.options, len(header.players),
                                            setup, self.tricks)  # fmt: skip
                    record = match.begin(state)
                    if self.observer is not None:
                        self.observer(match)
        if not isinstance(events, list):
            raise LogError("must be a list of events", ("events",))
        players = len(self.header.players)
        check_event_count(self.header.ruleset, players, events, ("events",))
        if start < len(events):
            self._events(index, events, start, record if self.live else None)
        if self.live and record is not None and record.outcome is None and index < self.last:
            self.unfinished = LogError(
                "this deal is unfinished; only the last deal of a log may be", ("deals", index)
            )
            self.live = False
        return next_dealer(dealer, players)

    def _first_move(self, events: list[Any]) -> Move | None:
        try:
            return Move.from_json(events[0], len(self.header.players), self.header.notation)
        except ArbiterError:
            return None  # reported when the events are read

    def _events(self, index: int, events: list[Any], start: int, record: DealRecord | None) -> None:
        """Read events ``start``... of deal ``index``; play them on ``record`` while live."""
        players = len(self.header.players)
        notation: Notation = self.header.notation
        table = code_table(notation)
        reader, by_characters = code_reader(notation), READ_BY_CHARACTERS
        state = None if record is None else record.state
        observer = self.observer
        type_key, seat_key, card_key = _event_keys(events[start])
        for j in range(start, len(events)):
            raw = events[j]
            # The hot path: a play with exactly type, seat and a canonical card code. The typed
            # names let the compiled build use dict, str and int operations, not generic calls.
            if type(raw) is dict and len(raw) == 3:
                event: dict[object, object] = raw
                # Three lookups by the log's own key objects (their hashes cached): cheaper than
                # one walk over the entries (measured under callgrind, compiled: 7.6K
                # instructions less a tute-4p deal read from orjson's text).
                seat_field = event.get(seat_key)
                code = event.get(card_key)
                kind = event.get(type_key)
                if type(seat_field) is int and type(code) is str:
                    seat: int = seat_field
                    # -2: not a play; -1: no card code the table knows (the slow path reports)
                    if by_characters:  # compiled: a str comparison once the type is known
                        card = reader.card(code) if isinstance(kind, str) and kind == "play" else -2
                        if card == -1:  # not canonical ASCII: the table knows the rest
                            card = table.get(code, -1)
                    else:
                        card = table.get(code, -1) if kind == "play" else -2
                    if card >= 0 and 0 <= seat < players:
                        if state is not None:
                            illegal = state.play(seat, card, j)
                            if illegal is not None:
                                self._stop(index, j, illegal, Move.play(seat, card))
                                state = None
                            elif observer is not None or state.over:
                                self._after(record, state)
                        continue
            try:
                move = Move.from_json(raw, players, notation)
            except ArbiterError as err:
                raise err.at("events", j) from None
            if state is not None:
                illegal = state.apply(move, j)
                if illegal is not None:
                    self._stop(index, j, illegal, move)
                    state = None
                else:
                    self._after(record, state)

    def _after(self, record: DealRecord | None, state: DealState) -> None:
        assert record is not None
        if state.over and record.outcome is None:
            self.match.close(record)
        if self.observer is not None:
            self.observer(self.match)

    def _stop(self, index: int, event: int, code: IllegalCode, move: Move) -> None:
        # An event after the end of the deal that ended the match is match_over.
        if code is IllegalCode.DEAL_OVER and self.match.standing.over:
            code = IllegalCode.MATCH_OVER
        self.match.illegal = Illegal(index, event, code, move)
        self.live = False
