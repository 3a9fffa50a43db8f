"""Snapshots: a compact, versioned byte encoding of a :class:`MatchState` (never pickle).

Layout: the 4-byte magic ``b"TUTE"``, one byte :data:`SNAPSHOT_VERSION`, then a MessagePack
array of plain ints, strings, lists and maps. Each deal is packed in a nested MessagePack blob:
a finished deal is unpacked only when it is looked at, and re-encoded as the same bytes, so
resuming a long match costs only its current deal. Decoding rebuilds exactly the state that was
encoded (``encode(decode(b)) == b``), so a replay can resume from it. Anything that does not
decode — wrong magic, another version, a truncated or altered body — raises
:class:`SnapshotError`; callers treat that as a cache miss. Only states without an illegal
event are encoded: those are the ones a client can continue from.
"""

from __future__ import annotations

from typing import Any, Final

import msgpack

from arbiter.engine.cards import FULL_PACK
from arbiter.engine.match import DealRecord, MatchState
from arbiter.engine.obligations import Obligation
from arbiter.engine.rulesets import Options, Ruleset, get_ruleset, resolve_options
from arbiter.engine.scoring import Outcome
from arbiter.engine.setup import DealSetup
from arbiter.engine.state import Cante, DealState, Decisive, Exchange, Renuncio, Trick

MAGIC: Final = b"TUTE"
SNAPSHOT_VERSION: Final = 2
_HEADER: Final = MAGIC + bytes([SNAPSHOT_VERSION])

# DealState slots that are stored; the others follow from the ruleset and options.
_STORED: Final = (
    "dealer",
    "hands",
    "stock",
    "stock_pos",
    "trump",
    "turn",
    "leader",
    "trick",
    "led_suit",
    "win_card",
    "win_seat",
    "strict",
    "tricks",
    "won",
    "tricks_won",
    "card_points",
    "cante_points",
    "cantes",
    "exchanges",
    "violations",
    "sung",
    "cantes_this_lead",
    "calls",
    "last_winner",
    "decisive",
    "over",
    "events_applied",
)


class SnapshotError(ValueError):
    """Bytes that are not a snapshot of this engine version."""


def encode(match: MatchState) -> bytes:
    """The snapshot of a match state without an illegal event."""
    if match.illegal is not None:
        raise ValueError("only valid states are snapshotted")
    standing = match.standing
    standing_fields = [
        standing.deals_won,
        standing.loser_points,
        standing.tokens,
        standing.over,
        list(standing.winners),
        list(standing.losers),
    ]
    deals = [
        [
            _packed_deal(r),
            None if r.outcome is None else _outcome_fields(r.outcome),
        ]
        for r in match.deals
    ]
    body = [
        match.ruleset.name,
        match.options.overrides(),
        match.notation,
        list(match.players),
        standing_fields,
        deals,
    ]
    return _HEADER + msgpack.packb(body, use_bin_type=True)


def decode(data: bytes) -> MatchState:
    """The match state a snapshot holds."""
    if not data.startswith(_HEADER):
        raise SnapshotError("not a snapshot of this engine version")
    try:
        body = msgpack.unpackb(data[len(_HEADER) :], raw=False, strict_map_key=True)
        return _match_from(body)
    except SnapshotError:
        raise
    except Exception as err:  # any corruption of the body is the same miss to the caller
        raise SnapshotError(f"corrupt snapshot: {type(err).__name__}") from None


def _packed_deal(record: DealRecord) -> bytes:
    # A finished deal's bytes never change: reuse them when the record came from a snapshot.
    if record.outcome is not None and record.packed is not None:
        return record.packed
    packed: bytes = msgpack.packb(_deal_fields(record.state), use_bin_type=True)
    return packed


def _deal_fields(state: DealState) -> list[Any]:
    out: list[Any] = []
    for name in _STORED:
        value = getattr(state, name)
        if name == "trick":
            value = [list(p) for p in value]
        elif name == "tricks":
            value = [
                [
                    t.leader,
                    [list(p) for p in t.plays],
                    t.winner,
                    t.points,
                    [list(d) for d in t.draws],
                ]
                for t in value
            ]
        elif name == "violations":
            value = [[*v[:3], v.obligation.value, *v[4:]] for v in value]
        elif name in ("cantes", "exchanges"):
            value = [list(v) for v in value]
        elif name == "decisive":
            value = None if value is None else list(value)
        out.append(value)
    return out


def _outcome_fields(outcome: Outcome) -> list[Any]:
    return [list(outcome.winners), list(outcome.losers), outcome.reason]


def _match_from(body: list[Any]) -> MatchState:
    name, overrides, notation, players, standing_fields, deals = body
    ruleset = get_ruleset(name)
    options = resolve_options(ruleset, overrides)
    match = MatchState(ruleset, options, notation, tuple(players))
    standing = match.standing
    deals_won, loser_points, tokens, over, winners, losers = standing_fields
    standing.deals_won, standing.loser_points, standing.tokens = deals_won, loser_points, tokens
    standing.over = over
    standing.winners, standing.losers = tuple(winners), tuple(losers)
    n = len(players)

    def unpack(packed: bytes) -> DealState:
        return _deal_from(msgpack.unpackb(packed, raw=False), ruleset, options, n)

    for packed, outcome in deals:
        if not isinstance(packed, bytes):
            raise SnapshotError("corrupt snapshot: a deal is not packed")
        if outcome is None:
            match.deals.append(DealRecord(unpack(packed)))
        else:
            finished = Outcome(tuple(outcome[0]), tuple(outcome[1]), outcome[2])
            match.deals.append(DealRecord(None, finished, packed, unpack))
    return match


def _deal_from(fields: list[Any], ruleset: Ruleset, options: Options, n: int) -> DealState:
    values = dict(zip(_STORED, fields, strict=True))
    state = DealState(ruleset, options, n, DealSetup(values["dealer"], (0,) * n, (), None))
    values["trick"] = [tuple(p) for p in values["trick"]]
    values["tricks"] = [
        Trick(t[0], tuple(tuple(p) for p in t[1]), t[2], t[3], tuple(tuple(d) for d in t[4]))
        for t in values["tricks"]
    ]
    values["violations"] = [
        Renuncio(v[0], v[1], v[2], Obligation(v[3]), v[4], v[5], v[6], v[7])
        for v in values["violations"]
    ]
    values["cantes"] = [Cante(*c) for c in values["cantes"]]
    values["exchanges"] = [Exchange(*e) for e in values["exchanges"]]
    decisive = values["decisive"]
    values["decisive"] = None if decisive is None else Decisive(*decisive)
    for key, value in values.items():
        setattr(state, key, value)
    for _, card in state.trick:
        state.trick_mask |= 1 << card
    if not all(0 <= mask <= FULL_PACK for mask in (*state.hands, *state.won)):
        raise SnapshotError("corrupt snapshot: a hand is not a set of cards")
    return state
