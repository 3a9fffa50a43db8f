"""Snapshots and positions: compact, versioned byte encodings of match states (never pickle).

Two encodings, both MessagePack arrays of plain ints, strings, bytes and lists:

* a **snapshot** (:func:`encode` / :func:`decode`) is a whole :class:`MatchState`, every deal
  with its history, so that a replay resumed from it reports exactly what a full replay would.
  Layout: the 4-byte magic ``b"TUTE"``, one byte :data:`SNAPSHOT_VERSION`, then the body. Each
  deal is packed in a nested blob: a finished deal is unpacked only when it is looked at, and
  re-encoded as the same bytes, so resuming a long match costs only its current deal;
* a **position** (:func:`encode_position` / :func:`decode_position`) is a :class:`Position`:
  the header, the standing, the number of deals begun and the last deal's state without its
  history — the smallest thing from which the next move can be judged and the match continued.

Decoding rebuilds exactly the state that was encoded (``encode(decode(b)) == b``). Anything that
does not decode — wrong magic, another version, a truncated or altered body — raises
:class:`SnapshotError`. Only states without an illegal event are encoded: those are the ones a
client can continue from.
"""

from __future__ import annotations

from typing import Any, Final

import msgpack

from arbiter.engine.cards import FULL_PACK, NOTATIONS
from arbiter.engine.log import Header
from arbiter.engine.match import DealRecord, MatchState
from arbiter.engine.position import Position
from arbiter.engine.rulesets import get_ruleset, resolve_options
from arbiter.engine.scoring import MatchStanding, Outcome, Reason
from arbiter.engine.state import DealState

MAGIC: Final = b"TUTE"
SNAPSHOT_VERSION: Final = 4
POSITION_VERSION: Final = 2
_HEADER: Final = MAGIC + bytes([SNAPSHOT_VERSION])


class SnapshotError(ValueError):
    """Bytes that are not a snapshot (or position) of this engine version."""


# --- snapshots ----------------------------------------------------------------------------------


def encode(match: MatchState) -> bytes:
    """The snapshot of a match state without an illegal event."""
    if match.illegal is not None:
        raise ValueError("only valid states are snapshotted")
    deals = [
        [_packed_deal(r), None if r.outcome is None else _outcome_fields(r.outcome), r.dealer]
        for r in match.deals
    ]
    body = [*_header_fields(match.header), match.standing.to_fields(), deals]
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
    # A finished deal's bytes never change: pack it once, reuse the bytes ever after.
    if record.outcome is not None and record.packed is not None:
        return record.packed
    packed: bytes = msgpack.packb(record.state.to_fields(history=True), use_bin_type=True)
    if record.outcome is not None:
        record.packed = packed
    return packed


def _outcome_fields(outcome: Outcome) -> list[Any]:
    return [list(outcome.winners), list(outcome.losers), outcome.reason.value]


def _outcome_from(fields: list[Any]) -> Outcome:
    winners, losers, reason = fields
    return Outcome(tuple(winners), tuple(losers), Reason(reason))


def _match_from(body: list[Any]) -> MatchState:
    *header_fields, standing_fields, deals = body
    header = _header_from(header_fields)
    match = MatchState(header)
    match.standing = MatchStanding.from_fields(standing_fields)
    n = len(header.players)

    def unpack(packed: bytes) -> DealState:
        try:
            fields = msgpack.unpackb(packed, raw=False)
            return _checked(DealState.from_fields(header.ruleset, header.options, n, fields,
                                                  history=True))  # fmt: skip
        except SnapshotError:
            raise
        except Exception as err:  # a finished deal unpacks late: fail as decode() would
            raise SnapshotError(f"corrupt snapshot: {type(err).__name__}") from None

    for packed, outcome, dealer in deals:
        if not isinstance(packed, bytes) or not isinstance(dealer, int):
            raise SnapshotError("corrupt snapshot: a deal is not packed")
        if outcome is None:
            match.deals.append(DealRecord(unpack(packed)))
        else:
            match.deals.append(DealRecord(None, _outcome_from(outcome), packed, unpack, dealer))
    if len(match.standing.deals_won) != n:
        raise SnapshotError("corrupt snapshot: the standing is not one per player")
    return match


# --- positions ----------------------------------------------------------------------------------


def encode_position(position: Position) -> bytes:
    """The position's bytes: what a sealed state token carries."""
    outcome = position.outcome
    body = [
        POSITION_VERSION,
        *_header_fields(position.header),
        position.standing.to_fields(),
        position.deals,
        position.deal.to_fields(history=False),
        None if outcome is None else _outcome_fields(outcome),
    ]
    packed: bytes = msgpack.packb(body, use_bin_type=True)
    return packed


def decode_position(data: bytes) -> Position:
    """The position :func:`encode_position` gave."""
    try:
        version, *header_fields, standing_fields, deals, deal_fields, outcome = msgpack.unpackb(
            data, raw=False, strict_map_key=True
        )
        if version != POSITION_VERSION:
            raise SnapshotError("a position of another engine version")
        header = _header_from(header_fields)
        n = len(header.players)
        standing = MatchStanding.from_fields(standing_fields)
        deal = DealState.from_fields(header.ruleset, header.options, n, deal_fields, history=False)
        if len(standing.deals_won) != n or not isinstance(deals, int) or deals < 1:
            raise SnapshotError("corrupt position")
        finished = None if outcome is None else _outcome_from(outcome)
        return Position(header, standing, deals, _checked(deal), finished)
    except SnapshotError:
        raise
    except Exception as err:
        raise SnapshotError(f"corrupt position: {type(err).__name__}") from None


# --- shared pieces ------------------------------------------------------------------------------


def _header_fields(header: Header) -> list[Any]:
    return [header.ruleset.name, header.options.overrides(), header.notation, list(header.players)]


def _header_from(fields: list[Any]) -> Header:
    name, overrides, notation, players = fields
    ruleset = get_ruleset(name)
    if notation not in NOTATIONS or len(players) not in ruleset.players:
        raise SnapshotError("corrupt header")
    return Header(ruleset, resolve_options(ruleset, overrides), notation, tuple(players))


def _checked(state: DealState) -> DealState:
    """Refuse a state whose hands are not sets of cards (a replay from it would not end)."""
    if not all(0 <= mask <= FULL_PACK for mask in state.hands):
        raise SnapshotError("corrupt snapshot: a hand is not a set of cards")
    return state
