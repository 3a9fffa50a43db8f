"""The candidates the search finds for each rule, and the choice of the published ones.

Every finder offers candidates — a log, the referee's ``expect``, and the rule it exercises —
to one :class:`Pool`. Per ruleset and rule the pool keeps the smallest (fewest events) of each
*facet* (the kind of answer, and the number of players for a ruleset that allows several), at
most ``per_rule`` of each; :meth:`Pool.vectors` then takes them smallest first, one facet after
another, up to ``per_rule`` vectors and ``budget`` events per rule (always at least one).
Ties go to the candidate offered first, so a seeded search always chooses the same vectors.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from arbiter.conformance.kit.protocol import (
    ASKED,
    EXPECT_KINDS,
    Ask,
    Kind,
    Vector,
    dumps,
    events_in,
    kind_of,
)

Facet = tuple[str, int]  # (the facet's kind, players)


def facet_kind(kind: Kind, ask: Ask) -> str:
    """A facet's kind: the kind of ``expect``, with the ask when it is not that kind's own (a
    refusal asked as ``legal_moves``: ``error@legal_moves``)."""
    return kind.value if ask is EXPECT_KINDS[kind] else f"{kind.value}@{ask.value}"


#: The order in which a rule's facets take turns.
KIND_ORDER: Final = tuple(facet_kind(kind, ask) for kind in Kind for ask in ASKED[kind])


@dataclass(order=True, frozen=True, slots=True)
class Candidate:
    size: int
    order: int
    log: dict[str, Any] = field(compare=False)
    expect: dict[str, Any] = field(compare=False)
    ask: Ask = field(compare=False)


class Pool:
    """The best candidates per (ruleset, rule, facet)."""

    def __init__(self, per_rule: int, budget: int) -> None:
        self.per_rule = per_rule
        self.budget = budget
        self._kept: dict[tuple[str, str], dict[Facet, list[Candidate]]] = {}
        self._seen: set[tuple[str, str, str]] = set()
        self._order = 0

    @staticmethod
    def facet(log: dict[str, Any], expect: dict[str, Any], ask: Ask) -> Facet:
        return facet_kind(kind_of(expect), ask), len(log["players"])

    def wants(self, ruleset: str, rule: str, kind: str, players: int, size: int) -> bool:
        """Whether a candidate of this facet and size would be kept."""
        kept = self._kept.get((ruleset, rule), {}).get((kind, players), [])
        return len(kept) < self.per_rule or kept[-1].size > size

    def wants_any(
        self, ruleset: str, rules: Iterable[str], kinds: Iterable[str], players: int, size: int
    ) -> bool:
        kinds = tuple(kinds)
        return any(self.wants(ruleset, r, k, players, size) for r in rules for k in kinds)

    def offer(
        self,
        ruleset: str,
        rule: str,
        log: dict[str, Any],
        expect: dict[str, Any],
        ask: Ask | None = None,
    ) -> bool:
        """Keep the candidate (asked ``ask``: by default what its ``expect`` answers) if it is
        among the smallest of its facet; whether it was kept."""
        ask = EXPECT_KINDS[kind_of(expect)] if ask is None else ask
        facet = self.facet(log, expect, ask)
        size = events_in(log)
        if not self.wants(ruleset, rule, *facet, size):
            return False
        key = (ruleset, rule, dumps([ask, log, expect]))
        if key in self._seen:
            return False
        self._seen.add(key)
        self._order += 1
        kept = self._kept.setdefault((ruleset, rule), {}).setdefault(facet, [])
        bisect.insort(kept, Candidate(size, self._order, log, expect, ask))
        del kept[self.per_rule :]
        return True

    def found(self, ruleset: str, rule: str) -> list[Candidate]:
        """Every candidate kept for a rule, smallest first."""
        return sorted(c for cands in self._kept.get((ruleset, rule), {}).values() for c in cands)

    def chosen(self, ruleset: str, rule: str) -> list[Candidate]:
        """The candidates published for a rule: facets in turn, each smallest first."""
        facets = self._kept.get((ruleset, rule), {})
        queues = [list(facets[f]) for f in sorted(facets, key=_facet_key)]
        out: list[Candidate] = []
        events = 0
        while any(queues) and len(out) < self.per_rule:
            for queue in queues:
                if not queue or len(out) >= self.per_rule:
                    continue
                if out and events + queue[0].size > self.budget:
                    queue.clear()
                    continue
                pick = queue.pop(0)
                out.append(pick)
                events += pick.size
        return out

    def vectors(self, ruleset: str, rules: Iterable[str]) -> list[Vector]:
        """The published vectors of a ruleset, rule by rule in ``rules`` order."""
        out = []
        for rule in rules:
            for number, cand in enumerate(self.chosen(ruleset, rule), start=1):
                vid = f"{ruleset}/{rule}/{number}"
                out.append(Vector(vid, ruleset, rule, cand.ask, cand.log, cand.expect))
        return out


def _facet_key(facet: Facet) -> tuple[int, int]:
    kind, players = facet
    return players, KIND_ORDER.index(kind)
