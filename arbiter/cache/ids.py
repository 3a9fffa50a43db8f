"""State ids: keyed names for the state after a prefix of a log.

The id of a prefix is ``HMAC-SHA256(key, chain)`` where *chain* is a SHA-256 hash chain over the
canonical log: the header (ruleset, options, notation, players, engine version), then each
deal's setup, then each event, one link each (``link = SHA-256(previous ‖ bytes)``). The id of
every prefix of a log therefore costs one link more than its parent, and the id of the state
after one more move follows from the parent's chain value alone, without the log.

Canonical means parsed: lower-case codes, ``hands`` or ``deck``, the order of options — none of
that changes an id. A state id reads ``<game>.<digest>``: *game* is a short keyed tag of the
header and first deal, used as the Redis Cluster hash tag so that every state of one game lives
in one slot.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

import orjson

from arbiter.engine.log import DealLog, GameLog
from arbiter.engine.setup import DealSetup
from arbiter.engine.snapshot import SNAPSHOT_VERSION
from arbiter.engine.state import Event

ENGINE_TAG: Final = f"s{SNAPSHOT_VERSION}"
_DOMAIN: Final = b"tute-arbiter/state/" + ENGINE_TAG.encode()

Position = tuple[int, int]
"""(deals started, events applied in the last one), as ``MatchState.position``."""


def _event_bytes() -> dict[tuple[int, int, int], bytes]:
    return {
        (kind, seat, arg): bytes((kind, seat, arg & 0xFF))
        for kind in range(4)
        for seat in range(5)
        for arg in range(-1, 40)
    }


_EVENT_BYTES: Final = _event_bytes()


def _setup_bytes(setup: DealSetup) -> bytes:
    trump = 0xFF if setup.trump_card is None else setup.trump_card
    hands = b"".join(h.to_bytes(5, "big") for h in setup.hands)
    return b"D" + bytes((setup.dealer, trump, len(setup.stock))) + hands + bytes(setup.stock)


def _link(chain: bytes, data: bytes) -> bytes:
    return hashlib.sha256(chain + data).digest()


@dataclass(frozen=True, slots=True)
class LogChain:
    """The chain values of the prefixes of one log that a cache needs."""

    game: str
    #: chain value at the positions asked for, by position
    at: dict[Position, bytes]
    #: chain value of the whole log
    final: bytes


class StateIds:
    """Derives state ids with one secret key."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    def _mac(self, data: bytes) -> bytes:
        return hmac.new(self._key, data, hashlib.sha256).digest()

    def header_chain(self, log: GameLog) -> bytes:
        header = orjson.dumps(
            [log.ruleset.name, log.options.overrides(), log.notation, list(log.players)],
            option=orjson.OPT_SORT_KEYS,
        )
        return hashlib.sha256(_DOMAIN + header).digest()

    def game_tag(self, first_deal_chain: bytes) -> str:
        return self._mac(b"game" + first_deal_chain)[:5].hex()

    def state_id(self, game: str, chain: bytes) -> str:
        return f"{game}.{self._mac(b'state' + chain)[:16].hex()}"

    def chain(self, log: GameLog, positions: Iterable[Position] = ()) -> LogChain:
        """Walk the whole log once, keeping the chain values at ``positions``."""
        wanted = set(positions)
        chain = self.header_chain(log)
        at: dict[Position, bytes] = {}
        game = ""
        for index, deal in enumerate(log.deals):
            chain = _link(chain, _setup_bytes(deal.setup))
            if index == 0:
                # The game is its header and first deal: two games of the same players
                # spread over the cluster's slots.
                game = self.game_tag(chain)
            if (index + 1, 0) in wanted:
                at[(index + 1, 0)] = chain
            chain = self._events(chain, deal, index + 1, wanted, at)
        return LogChain(game, at, chain)

    def _events(
        self,
        chain: bytes,
        deal: DealLog,
        deal_no: int,
        wanted: set[Position],
        at: dict[Position, bytes],
    ) -> bytes:
        event_bytes = _EVENT_BYTES
        sha = hashlib.sha256
        for count, event in enumerate(deal.events, 1):
            chain = sha(chain + event_bytes[event]).digest()
            if (deal_no, count) in wanted:
                at[(deal_no, count)] = chain
        return chain

    @staticmethod
    def next_chain(chain: bytes, move: Event) -> bytes:
        """The chain value of the state after ``move`` (a play or declaration in the deal)."""
        return _link(chain, _EVENT_BYTES[move])


def lookup_positions(log: GameLog) -> list[Position]:
    """The prefixes worth looking up, longest first: the whole log, the log without its last
    event (the usual case of a game validated move by move), and the end of every deal."""
    last = len(log.deals)
    n = len(log.deals[-1].events)
    positions = [(last, n)]
    if n:
        positions.append((last, n - 1))
    for index in range(last - 1, 0, -1):
        positions.append((index, len(log.deals[index - 1].events)))
    return positions
