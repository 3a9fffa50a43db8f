"""The referee's one request path: parse → resume → advance → judge → seal/keep.

:class:`Referee` is used alike by the HTTP routes, the ``arbiter`` command and the library
(``arbiter.replay``, ``arbiter.validate``). Adapters only translate: they hand it the JSON-shaped
input and shape its answers (:class:`~arbiter.report.Replay`, :class:`~arbiter.report.Verdict`).

* **parse**: every input is checked once, by the engine's reader, against one
  :class:`~arbiter.engine.log.Limits`; errors are :class:`ArbiterError` with a JSON pointer.
* **resume**: with a state cache, a log long enough to pay (its ``min_events``) is looked up by
  the keys of its prefixes in one round trip; on a hit only the rest of the log is parsed and
  replayed.
* **advance / judge**: the engine replays the log, and judges a proposed move on the position.
* **seal / keep**: the position the answer leaves is sealed into a ``state_id`` token (no store
  needed to open it again), and at most one state is kept in the cache — the one the client's
  next, longer log will start with.

A token's holder validates a whole match move by move: ``validate_token(state_id, move)``, and
``validate_token(state_id, move, deal=...)`` to begin the next deal.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from arbiter.cache import CacheObserver, PrefixKeys, StateCache, build_cache
from arbiter.cache.keys import within_limits
from arbiter.contract import MAX_TOKEN_LENGTH
from arbiter.engine.errors import ArbiterError, FaultCode, LogError
from arbiter.engine.log import DEFAULT_LIMITS, Limits, parse_deal, parse_header, raw_deals
from arbiter.engine.match import MatchState, advance, replay
from arbiter.engine.moves import Move
from arbiter.engine.position import Position, PositionView, Ruling
from arbiter.engine.setup import next_dealer
from arbiter.engine.snapshot import SnapshotError, decode, encode
from arbiter.report import Replay, Verdict, position_dict, read_position_json
from arbiter.settings import Settings

if TYPE_CHECKING:
    # tokens import cryptography (7 MB): only a referee that seals needs it, not the library's
    # nor ``arbiter score``'s
    from arbiter.tokens import Sealer

#: What the cache's secret is derived for (from the first state secret).
CACHE_PURPOSE: Final = b"tute-arbiter/cache/v1"


class UnknownState(Exception):
    """A ``state_id`` that does not open here (another key, altered, garbage): resend the log."""


class Referee:
    """Adjudicates logs and judges moves, with optional tokens and an optional cache."""

    def __init__(
        self,
        limits: Limits = DEFAULT_LIMITS,
        sealer: Sealer | None = None,
        cache: StateCache | None = None,
    ) -> None:
        self.limits = limits
        self.sealer = sealer
        self.cache = cache

    @classmethod
    def from_settings(cls, settings: Settings, observer: CacheObserver | None = None) -> Referee:
        """The service's referee: the settings' limits, a sealer with the configured secrets
        (or one drawn for this process), and the configured cache."""
        from arbiter.tokens import Sealer, derive

        secrets = settings.secrets or (os.urandom(32).hex(),)
        cache_secret = derive(secrets[0], CACHE_PURPOSE)
        cache = build_cache(settings, cache_secret, observer)
        return cls(settings.limits, Sealer(secrets), cache)

    # --- adjudication -----------------------------------------------------------------------

    def replay(self, log: object, *, steps: bool = False) -> Replay:
        """Adjudicate a whole log (the JSON-shaped object of docs/api.md); with ``steps``,
        also every deal's position as dealt and after each event (replayed from the start:
        a cached state has no steps to give)."""
        if steps:
            return self._stepped(log)
        match, keys, resumed = self._resume(log, every_deal=True)
        if keys is not None and match.illegal is None and resumed != 0:
            self._keep((keys.whole, match))
        return Replay(match, self._seal_match(match))

    def replay_request(self, body: Mapping[str, Any]) -> Replay:
        """The body of ``POST /v1/replays``: a log, and ``"steps": true`` to list every
        deal's positions."""
        steps = body.get("steps", False)
        if not isinstance(steps, bool):
            raise LogError("must be true or false", ("steps",))
        return self.replay(body, steps=steps)

    def _stepped(self, log: object) -> Replay:
        views: list[list[PositionView]] = []

        def observe(match: MatchState) -> None:
            if len(views) < len(match.deals):
                views.append([])
            views[-1].append(match.position().view())

        match = replay(log, self.limits, observe)
        return Replay(match, self._seal_match(match), views)

    def score(self, log: object) -> Replay:
        """Adjudicate a log for its scores only: no token, and no cache — scoring is for
        finished games sent once (archives), not for growing logs. Its deals keep no trick
        records (the scores have none): the replay answers :meth:`Replay.scores_dict` only."""
        return Replay(replay(log, self.limits, tricks=False), scores_only=True)

    def validate(self, log: object, move: object) -> Verdict:
        """Judge ``move`` at the end of ``log``, whose last deal must be unfinished for any
        move to be allowed."""
        match, keys, resumed = self._resume(log)
        _refuse_illegal(match, "validating a move")
        position = match.position()
        event = self._move(move, position)
        judgement = position.judge(event)
        kept = [] if keys is None or resumed == 0 else [(keys.whole, match)]
        if judgement.verdict is not Ruling.OK:
            if kept:
                self._keep(*kept)  # the client is likely to ask again with another move
            return Verdict(position, judgement)
        after = match.copy()
        after.play(event)  # the match after the move (not just its position): it is kept
        if keys is not None:
            # the state the next, longer log starts from; and this log's own, when it was not
            # kept yet, for another move validated on it (one round trip for both)
            self._keep(*kept, (keys.after(move), after))
        return Verdict(position, judgement, self._seal(after.position()))

    def validate_token(self, state_id: object, move: object, deal: object = None) -> Verdict:
        """Judge ``move`` on the position a token names; with ``deal`` (the setup of the next
        deal, without events), on the start of that deal."""
        position = self.open(state_id)
        if deal is not None and not position.standing.over:
            position = self._begin_deal(position, deal)
        event = self._move(move, position)
        judgement = position.judge(event)
        state_id_after = None
        if judgement.verdict is Ruling.OK:
            state_id_after = self._seal(position.after(event))
        elif judgement.verdict is Ruling.RENUNCIO:
            return self._played_on(Verdict(position, judgement), event)
        return Verdict(position, judgement, state_id_after)

    def validate_position(self, raw: object, move: object) -> Verdict:
        """Judge ``move`` on a position given as JSON (docs/api.md, "The position"); the verdict
        carries the position after the move when it is ok."""
        position = self.given_position(raw)
        event = self._move(move, position)
        judgement = position.judge(event)
        if judgement.verdict is Ruling.RENUNCIO:
            return self._played_on(Verdict(position, judgement), event)
        if judgement.verdict is not Ruling.OK:
            return Verdict(position, judgement)
        after = position.after(event)
        return Verdict(position, judgement, self._seal(after), after)

    def _played_on(self, verdict: Verdict, event: Move) -> Verdict:
        """A renuncio's verdict with the position after the card is played anyway, the
        renuncio recorded (a renuncio is a card on the table: the deal goes on, decided by
        its first one), and that position's token."""
        played = verdict.position.after(event)
        verdict.played = played
        verdict.played_state_id = self._seal(played)
        return verdict

    def given_position(self, raw: object) -> Position:
        """A position given as JSON, read and checked (faults under ``/position``)."""
        try:
            return read_position_json(raw, self.limits)
        except ArbiterError as err:
            raise err.at("position") from None

    def position(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The body of ``POST /v1/positions``: the position a log leads to (or, with ``deal``
        and ``event``, the one after that many events of that deal), or the one a
        ``state_id`` holds; as ``{"position": {...}}``."""
        state_id = _state_id(body) if "state_id" in body else None
        if "ruleset" not in body and state_id is not None:
            return {"position": position_dict(self.open(state_id))}
        for key in ("deal", "event"):
            value = body.get(key, 0)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise LogError("must be an integer from 0", (key,))
        deal, event = body.get("deal"), body.get("event")
        if deal is None and event is None:
            match = replay(body, self.limits)
            _refuse_illegal(match, "asking for its position")
            if not match.deals:
                raise LogError("no deal to play", ("deals",))
            return {"position": position_dict(match.position())}
        seen: list[Position] = []

        def observe(match: MatchState) -> None:
            index, count = len(match.deals) - 1, match.deals[-1].state.events_applied
            if (deal is None or index == deal) and (event is None or count == event):
                seen[:] = [match.position().copy()]

        replay(body, self.limits, observe)
        if not seen:
            where = "event" if event is not None else "deal"
            raise LogError("the log has no such point (before any illegal event)", (where,))
        return {"position": position_dict(seen[0])}

    def validate_request(self, body: Mapping[str, Any]) -> Verdict:
        """The body of ``POST /v1/moves/validate``: a log plus ``move``, ``state_id`` plus
        ``move`` (and ``deal`` to begin the next deal), or ``position`` plus ``move``. A full
        log wins over a ``state_id``."""
        if "move" not in body:
            raise LogError("missing", ("move",))
        if "position" in body and not isinstance(body["position"], Mapping):
            raise LogError("must be an object", ("position",))
        if "position" in body and "ruleset" not in body and "state_id" not in body:
            if "deal" in body:
                raise LogError(
                    "deal goes with a state_id, not with a position",
                    ("deal",),
                    FaultCode.DEAL_WITH_POSITION,
                )
            return self.validate_position(body["position"], body["move"])
        state_id = _state_id(body) if "state_id" in body else None
        if "ruleset" in body or state_id is None:
            if "deal" in body:
                raise LogError(
                    "deal goes with a state_id; with a full log, add the deal to deals",
                    ("deal",),
                )
            return self.validate(body, body["move"])
        return self.validate_token(state_id, body["move"], body.get("deal"))

    # --- tokens -------------------------------------------------------------------------------

    def open(self, state_id: object) -> Position:
        """The position a token holds, or :class:`UnknownState`."""
        if self.sealer is None:
            raise UnknownState("this referee seals no positions (it has no state key)")
        from arbiter.tokens import TokenError

        try:
            return self.sealer.open(state_id)  # type: ignore[arg-type]
        except TokenError as err:
            raise UnknownState(str(err)) from None

    def _seal(self, position: Position) -> str | None:
        return None if self.sealer is None else self.sealer.seal(position)

    def _seal_match(self, match: MatchState) -> str | None:
        if self.sealer is None or match.illegal is not None:
            return None
        return self.sealer.seal(match.position())

    # --- parsing --------------------------------------------------------------------------------

    def _move(self, raw: object, position: Position) -> Move:
        header = position.header
        try:
            return Move.from_json(raw, len(header.players), header.notation)
        except ArbiterError as err:
            raise err.at("move") from None

    def _begin_deal(self, position: Position, raw: object) -> Position:
        if not position.deal.over:
            raise LogError(
                "the deal of this state_id is unfinished: send its next move without a deal",
                ("deal",),
            )
        if position.deals >= self.limits.max_deals:
            raise LogError(f"a match holds at most {self.limits.max_deals} deals", ("deal",))
        header = position.header
        default_dealer = next_dealer(position.deal.dealer, len(header.players))
        try:
            setup, events = parse_deal(header, raw, default_dealer)
        except ArbiterError as err:
            raise err.at("deal") from None
        if events:
            raise LogError(
                "send the deal without events, then its moves one by one", ("deal", "events")
            )
        return position.begin_deal(setup)

    # --- resume and keep ------------------------------------------------------------------------

    def _resume(
        self, log: object, every_deal: bool = False
    ) -> tuple[MatchState, PrefixKeys | None, int | None]:
        """The log replayed, from its longest cached prefix when the cache pays; with the keys
        of its prefixes and the index of the one it resumed from (None: from the start). With
        ``every_deal``, every deal of a resumed state is unpacked (the report reads them all)."""
        cache = self.cache
        # A log past the limits is refused by the replay: no key is worth computing for it.
        if cache is None or not within_limits(log, self.limits.max_deals):
            return replay(log, self.limits), None, None
        keys = cache.keys_for(log)
        if keys is not None:
            found = cache.load_first([key for _, key in keys.lookups])
            if found is not None:
                index, snapshot = found
                match = self._resumed(log, keys.lookups[index][0], snapshot, every_deal)
                if match is not None:
                    cache.hit()
                    return match, keys, index
                cache.reject()
                cache.miss()
        return replay(log, self.limits), keys, None

    def _resumed(
        self, log: Any, at: tuple[int, int], snapshot: bytes, every_deal: bool
    ) -> MatchState | None:
        """The cached state continued through the rest of ``log`` (None if it is not the state
        its key names)."""
        try:
            match = decode(snapshot)
            # Finished deals unpack when first read: read now those the answer needs, so that
            # a corrupt one is a rejected value and not an error while answering.
            for record in match.deals if every_deal else match.deals[-1:]:
                _ = record.state
        except SnapshotError:
            return None
        # The same header by its key, but held to this server's limits (and checked: a value
        # is only trusted as far as it says what its key names).
        if match.progress != at or parse_header(log, self.limits) != match.header:
            return None
        deals = raw_deals(log, self.limits)
        deal, event = at
        # deal - 1 was begun in the cached state: no default dealer is needed for it
        return advance(match, deals, deal - 1, event, match.deals[-1].dealer)

    def _keep(self, *states: tuple[str, MatchState]) -> None:
        """Keep these states, in one round trip."""
        assert self.cache is not None
        self.cache.keep({key: encode(match) for key, match in states})


def _state_id(body: Mapping[str, Any]) -> str:
    """The body's ``state_id``, a string of the length a token can have."""
    state_id = body["state_id"]
    if not (isinstance(state_id, str) and 0 < len(state_id) <= MAX_TOKEN_LENGTH):
        raise LogError(f"must be a string of 1 to {MAX_TOKEN_LENGTH} characters", ("state_id",))
    return state_id


def _refuse_illegal(match: MatchState, before: str) -> None:
    """A log whose replay stops at an illegal event is refused, at that event."""
    ill = match.illegal
    if ill is None:
        return
    where: tuple[str | int, ...] = ("deals", ill.deal)
    if ill.event is not None:
        where += ("events", ill.event)
    raise LogError(f"the log is invalid here ({ill.code.value}); fix it before {before}", where)


#: The referee of the library and the command line: no tokens, no cache.
LIBRARY: Final = Referee()
