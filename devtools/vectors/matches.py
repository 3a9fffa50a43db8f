"""Whole matches: deals put one after another so that a chosen seat reaches the match's target.

A deal's outcome does not depend on the deals before it, so a match can be assembled from
deals played apart, each with its ``dealer`` given. The deals that *count* for a seat are those
the ruleset's match system counts (``match.counter`` of ``GET /v1/rulesets``): deals won, lost
hands, or rounds won. The quickest deal that counts is a tute on the first lead (one event);
tute cabrón and gana-pierde have none, so their deals are played out.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from arbiter.engine.moves import Move, TuteOf
from arbiter.engine.rulesets import MATCH_COUNTERS, RULESETS
from arbiter.simulate import random_log
from devtools.vectors.hand_built import Deal, log_of, tute_deals
from devtools.vectors.probing import Table, body_of, named


def counter(table: Table) -> str:
    return MATCH_COUNTERS[RULESETS[table.ruleset].match][0]


def target_option(table: Table) -> str:
    return MATCH_COUNTERS[RULESETS[table.ruleset].match][1]


class DealBank:
    """Deals of one table, by the seats they count for; each deal carries its events."""

    def __init__(self, table: Table, rng: random.Random, played: int = 60) -> None:
        self.table = table
        self.rng = rng
        self.by_seats: dict[tuple[int, ...], list[Deal]] = {}
        self.renuncios: list[Deal] = []
        ruleset = RULESETS[table.ruleset]
        if ruleset.tute:
            for seat in range(table.players):
                for of in TuteOf:
                    deal = tute_deals(table, rng, seat, of)
                    if deal is not None:
                        tute = Move.tute(seat, of).to_json("spanish")
                        self._add({**deal, "events": [tute]})
        for _ in range(played):
            log = named(
                random_log(
                    table.ruleset, rng, players=table.players, renuncio_rate=0.1, as_deck=True
                )
            )
            self._add(log["deals"][0])

    def _add(self, deal: Deal) -> None:
        body = body_of(log_of(self.table, [deal]))
        outcome = body["deals"][0]["outcome"]
        # the seats the deal counts for: those whose counter the referee moved
        mine = counter(self.table)
        side = [s["seat"] for s in body["match"]["standings"] if s[mine] > 0]
        self.by_seats.setdefault(tuple(side), []).append(deal)
        if outcome["reason"] == "renuncio":
            self.renuncios.append(deal)

    def counting(self, seat: int, alone: bool = True) -> list[Deal]:
        """Deals that count for ``seat`` (and for no one else, when ``alone``), fewest events
        first."""
        side = 2 if RULESETS[self.table.ruleset].pairs else 1
        found = [
            d for seats, deals in self.by_seats.items() if seat in seats for d in deals
            if not alone or len(seats) == side
        ]  # fmt: skip
        return sorted(found, key=lambda d: len(d["events"]))

    def not_counting(self, seat: int) -> list[Deal]:
        found = [d for seats, deals in self.by_seats.items() if seats and seat not in seats
                 for d in deals]  # fmt: skip
        return sorted(found, key=lambda d: len(d["events"]))


def matches_to(bank: DealBank, target: int, max_deals: int) -> Iterator[list[Deal]]:
    """Deal sequences after which a seat reaches ``target``: that seat counting every deal,
    and (when there is room) alternating with another seat that stops one short."""
    n = bank.table.players
    for seat in range(n):
        mine = _smallest(bank.counting(seat) or bank.counting(seat, alone=False))
        if not mine or target > max_deals:
            continue
        yield [mine[i % len(mine)] for i in range(target)]
        theirs = _smallest(bank.not_counting(seat))
        if theirs and 2 * target - 1 <= max_deals and target > 1:
            pairs = [(mine[i % len(mine)], theirs[i % len(theirs)]) for i in range(target - 1)]
            yield [*(d for a, b in pairs for d in (a, b)), mine[-1]]
            yield [*(d for a, b in pairs for d in (b, a)), mine[-1]]


def _smallest(deals: list[Deal]) -> list[Deal]:
    """The deals with the fewest events (all of that size)."""
    return [d for d in deals if len(d["events"]) == len(deals[0]["events"])] if deals else []
