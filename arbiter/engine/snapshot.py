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
  A position is what a state token seals, and its length must tell nothing of the cards
  (msgpack packs an integer at its smallest width: a hand's mask would say how high its cards
  go): its bytes are padded with zeros to the length of the widest position of its table
  (:data:`_WIDEST`), the same for every point of every deal of a match, whatever the hands,
  the stock, the scores or the number of deals.

Decoding rebuilds exactly the state that was encoded (``encode(decode(b)) == b``). Anything that
does not decode — wrong magic, another version, a truncated or altered body — raises
:class:`SnapshotError`. Only states without an illegal event are encoded: those are the ones a
client can continue from.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final

import msgpack

from arbiter.engine.cards import FULL_PACK, NOTATIONS
from arbiter.engine.log import Header
from arbiter.engine.match import DealRecord, MatchState
from arbiter.engine.position import Position
from arbiter.engine.records import DecisiveKind
from arbiter.engine.rulesets import RULESETS, get_ruleset, resolve_options
from arbiter.engine.scoring import MatchStanding, Outcome, Reason
from arbiter.engine.state import POSITION_FIELDS, DealState

MAGIC: Final = b"TUTE"
#: 5: an exchange records the trick it followed (a version-4 snapshot, a cache entry, is missed
#: and made again: its key names the version, arbiter/cache/keys.py).
SNAPSHOT_VERSION: Final = 5
POSITION_VERSION: Final = 3
#: Version 2 differs only in packing integers at their smallest width, unpadded: its positions
#: (the tokens sealed before version 3) decode the same way.
_POSITION_VERSIONS: Final = frozenset({2, POSITION_VERSION})
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
    """The position's bytes: what a sealed state token carries, as many for every position of
    its table whatever the cards (see the module docstring)."""
    header = _header_fields(position.header)
    packed: bytes = msgpack.packb(
        [
            POSITION_VERSION,
            *header,
            position.standing.to_fields(),
            position.deals,
            position.deal.to_fields(history=False),
            None if position.outcome is None else _outcome_fields(position.outcome),
        ],
        use_bin_type=True,
    )
    # the header's fields as the log's sender chose them, then the widest rest of the table
    # (the header's array head stands for the body's: one byte either way)
    wanted = _padded_length(position.header)
    return packed + bytes(max(0, wanted - len(packed)))


def decode_position(data: bytes) -> Position:
    """The position :func:`encode_position` gave."""
    try:
        version, *header_fields, standing_fields, deals, deal_fields, outcome = _unpadded(data)
        if version not in _POSITION_VERSIONS:
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


def _unpadded(data: bytes) -> Any:
    """The one msgpack value ``data`` starts with; what follows it may be zeros only."""
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=True)
    except msgpack.ExtraData as more:  # the padding (a version-2 position has none)
        value, extra = more.args  # (msgpack-types does not declare .unpacked and .extra)
        if extra.strip(b"\0"):
            raise SnapshotError("corrupt position: bytes after its end") from None
        return value


# --- the widest position of a table -------------------------------------------------------------

_STOCK: Final = POSITION_FIELDS.index("stock")
_TRICK: Final = POSITION_FIELDS.index("trick")
_DECISIVE: Final = POSITION_FIELDS.index("decisive")
_HANDS: Final = POSITION_FIELDS.index("hands")
#: Larger than any counter of a position (card points, cantes, events, deals...): msgpack packs
#: them all within its width, as it packs each of them.
_LARGEST_COUNTER: Final = 0xFFFF


def _widest_body(ruleset_name: str, players: int) -> int:
    """The most bytes a position of this table packs to, less its header fields: every hand a
    full mask, every counter at its widest, every card not dealt in the stock, a card of each
    seat on the table, a decisive event, an outcome and a standing naming every seat."""
    ruleset = get_ruleset(ruleset_name)
    state = DealState(ruleset, resolve_options(ruleset, None), players)
    fields = [
        _LARGEST_COUNTER if type(value) is int else value
        for value in state.to_fields(history=False)
    ]
    fields[_HANDS] = [FULL_PACK] * players
    for name in ("tricks_won", "card_points", "cante_points"):
        fields[POSITION_FIELDS.index(name)] = [_LARGEST_COUNTER] * players
    fields[_STOCK] = bytes(ruleset.pack_size(players) - players * ruleset.hand_size[players])
    fields[_TRICK] = bytes(2 * players)
    fields[_DECISIVE] = [max(DecisiveKind, key=len).value, _LARGEST_COUNTER, _LARGEST_COUNTER]
    seats = list(range(players))
    counters = [_LARGEST_COUNTER] * players
    standing = [counters, counters, counters, True, seats, seats]
    outcome = [seats, seats, max(Reason, key=len).value]
    body = [POSITION_VERSION, standing, _LARGEST_COUNTER, fields, outcome]
    return len(msgpack.packb(body, use_bin_type=True))


@lru_cache(maxsize=256)  # bounded: a client chooses the names of its tables
def _padded_length(header: Header) -> int:
    """How long every position of this header's table is."""
    widest = _WIDEST[header.ruleset.name, len(header.players)]
    return len(msgpack.packb(_header_fields(header), use_bin_type=True)) - 1 + widest


#: :func:`_widest_body` of every table.
_WIDEST: Final = {
    (name, n): _widest_body(name, n) for name, ruleset in RULESETS.items() for n in ruleset.players
}


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
