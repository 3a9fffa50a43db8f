"""What the table looks like before each event of a deal, read from its log and the referee's
replay body (public API only).

The kit searches played games for positions that exercise a rule. To choose which positions to
ask the referee about, it needs to know who holds what at each moment: :func:`spots` follows the
last deal of a log through its events, taking from the replay body what the referee decided
(trick winners, draws, exchanges, the trump a call made). These are only hints for the search;
every vector's answer is the referee's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arbiter.conformance.codes import suit_of
from arbiter.engine.rulesets import RULESETS


@dataclass(frozen=True, slots=True)
class Spot:
    """The deal before event ``index``: who acts, every hand, the trick on the table."""

    index: int
    turn: int
    hands: tuple[frozenset[str], ...]
    trick: tuple[tuple[int, str], ...]
    trump: str | None
    stock_left: int | None
    #: the cards each seat has drawn from the stock so far
    drawn: tuple[frozenset[str], ...]
    tricks_done: int
    over: bool

    @property
    def hand(self) -> frozenset[str]:
        return self.hands[self.turn]

    @property
    def on_lead(self) -> bool:
        return not self.trick and not self.over

    @property
    def led(self) -> str | None:
        return suit_of(self.trick[0][1]) if self.trick else None

    @property
    def strict(self) -> bool:
        """Play obligations apply (tute-2p: once the stock is gone)."""
        return not self.stock_left


def dealt(log: Mapping[str, Any], deal: Mapping[str, Any], mano: int) -> list[set[str]]:
    """Each seat's cards as dealt (``hands``, or ``deck`` dealt one at a time from the mano)."""
    n = len(log["players"])
    if "hands" in deal:
        return [{c.upper() for c in hand} for hand in deal["hands"]]
    size = RULESETS[log["ruleset"]].hand_size[n]
    hands: list[set[str]] = [set() for _ in range(n)]
    for i, code in enumerate(deal["deck"][: size * n]):
        hands[(mano + i) % n].add(code.upper())
    return hands


def spots(log: Mapping[str, Any], body: Mapping[str, Any]) -> list[Spot]:
    """The spot before each event of the log's last deal (a valid one), and the one after."""
    ruleset = RULESETS[log["ruleset"]]
    n = len(log["players"])
    raw, judged = log["deals"][-1], body["deals"][-1]
    hands = dealt(log, raw, judged["mano"])
    drawn: list[set[str]] = [set() for _ in range(n)]
    stock_left = 40 - sum(len(h) for h in hands) if ruleset.stock else None
    if ruleset.stock and "hands" in raw:
        stock_left = len(raw["stock"])
    calls = ruleset.cantes == "in_trick"
    first_call = judged["cantes"][0] if calls and judged["cantes"] else None
    trump = None if calls else judged["trump"]
    exchanges = iter(judged["exchanges"])
    trick: list[tuple[int, str]] = []
    done, turn, over = 0, judged["mano"], False
    out: list[Spot] = []

    def spot(index: int) -> Spot:
        return Spot(
            index,
            turn,
            tuple(frozenset(h) for h in hands),
            tuple(trick),
            trump,
            stock_left,
            tuple(frozenset(d) for d in drawn),
            done,
            over,
        )

    for index, event in enumerate(raw.get("events", [])):
        out.append(spot(index))
        seat, kind = event["seat"], event["type"]
        if kind == "play":
            code = event["card"].upper()
            hands[seat].discard(code)
            trick.append((seat, code))
            if len(trick) < n:
                turn = (seat + 1) % n
                continue
            finished = judged["tricks"][done]
            for draw in finished["draws"]:
                hands[draw["seat"]].add(draw["card"])
                drawn[draw["seat"]].add(draw["card"])
            if stock_left is not None:
                stock_left -= len(finished["draws"])
            turn, trick = finished["winner"], []
            if first_call is not None and first_call["trick"] == done:
                trump = first_call["suit"]
            done += 1
        elif kind == "exchange":
            swap = next(exchanges)
            hands[seat].discard(swap["gave"])
            hands[seat].add(swap["took"])
        elif kind == "tute":
            over = True
    over = over or judged["finished"]
    out.append(spot(len(out)))
    return out
