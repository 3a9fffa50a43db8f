"""Asking the referee about one log, and offering what it says to the pool.

:class:`Prober` is what every finder holds: the pool, the table being searched (ruleset and
players), and, while a finder works on one option value, the :class:`OptionProbe` that says
which value the logs set and which others to compare with. A candidate for ``option:X=v`` is
kept only when the referee's answer with ``X=v`` differs from its answer with another value —
the vector shows the value, not just that the log may set it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import arbiter
from arbiter.conformance.kit.dealing import option_values
from arbiter.conformance.kit.protocol import EXPECT_KINDS, NAMES, Ask, dumps, events_in, kind_of
from arbiter.conformance.kit.referee_answers import referee_answer
from arbiter.engine.rulesets import RULESETS, OptionSpec
from devtools.vectors.rules import option_rule, rules_for
from devtools.vectors.selection import Pool


class Table(NamedTuple):
    """A ruleset played by a number of players."""

    ruleset: str
    players: int


def tables() -> list[Table]:
    return [Table(name, n) for name, r in RULESETS.items() for n in r.players]


# --- logs -----------------------------------------------------------------------------------------


def named(log: dict[str, Any]) -> dict[str, Any]:
    """The log with the kit's player names."""
    return {**log, "players": list(NAMES[: len(log["players"])])}


def prefix(log: Mapping[str, Any], events: int) -> dict[str, Any]:
    """The log with only the first ``events`` events of its last deal."""
    *before, last = log["deals"]
    return {**log, "deals": [*before, {**last, "events": last["events"][:events]}]}


def appended(log: Mapping[str, Any], *events: dict[str, Any]) -> dict[str, Any]:
    """The log with ``events`` after the last event of its last deal."""
    *before, last = log["deals"]
    return {**log, "deals": [*before, {**last, "events": [*last["events"], *events]}]}


def with_options(log: Mapping[str, Any], options: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in log.items() if k != "options"}
    merged = {**log.get("options", {}), **options}
    if merged:
        # the header's keys in the order docs/api.md writes them
        out = {"ruleset": out.pop("ruleset"), "options": merged, **out}
    return out


def play(seat: int, code: str) -> dict[str, Any]:
    return {"type": "play", "seat": seat, "card": code}


def body_of(log: Any) -> dict[str, Any]:
    """The referee's replay body (the log must be accepted)."""
    return arbiter.replay(log).to_dict()


def moves_key(moves: Sequence[Mapping[str, Any]] | None) -> list[str] | None:
    """Legal moves in an order-free form."""
    return None if moves is None else sorted(dumps(m) for m in moves)


# --- options --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OptionProbe:
    """An option value the logs of a finder set, and the values its answers are compared with."""

    spec: OptionSpec
    value: Any
    others: tuple[Any, ...]

    @property
    def rule(self) -> str:
        return option_rule(self.spec.name, self.value)

    @classmethod
    def of(cls, spec: OptionSpec, value: Any) -> OptionProbe:
        values = option_values(spec)
        if spec.type == "ranks":
            default = list(spec.default)
            # 45 pairs: compare with the default only (and the default with the next pair)
            others = [default] if value != default else [v for v in values if v != value][:1]
        else:
            others = [v for v in values if v != value]
        return cls(spec, value, tuple(others))


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    if "legal_moves" in a and "legal_moves" in b:
        return moves_key(a["legal_moves"]) == moves_key(b["legal_moves"])
    return a == b


class Prober:
    """Offers the referee's answers about logs of one table to the pool."""

    def __init__(self, pool: Pool, table: Table, option: OptionProbe | None = None) -> None:
        self.pool = pool
        self.table = table
        self.option = option
        self.applicable = frozenset(rules_for(RULESETS[table.ruleset]))

    def under(self, option: OptionProbe | None) -> Prober:
        return Prober(self.pool, self.table, option)

    def wants(self, rules: Sequence[str], kinds: Sequence[str], size: int) -> bool:
        """Whether a candidate of one of ``rules`` (within this prober's scope: only the option
        rule while an option is probed) of these kinds and size would be kept."""
        scope = [self.option.rule] if self.option is not None else rules
        scope = [r for r in scope if r in self.applicable]
        if not scope or (self.option is not None and not rules):
            return False
        return self.pool.wants_any(self.table.ruleset, scope, kinds, self.table.players, size)

    def answer(self, log: Any, ask: Ask, move: Any = None) -> dict[str, Any]:
        """The referee's ``expect`` (with its ``move`` for a verdict)."""
        expect = referee_answer(log, ask, move)
        if ask is Ask.VERDICT:
            expect["move"] = move
        return expect

    def offer(
        self, rule: str, log: dict[str, Any], expect: dict[str, Any], ask: Ask | None = None
    ) -> bool:
        """Offer a candidate (asked ``ask``: by default what its ``expect`` answers); while an
        option is probed, only as that option's rule and only when the answer depends on its
        value. Whether it was kept."""
        ask = EXPECT_KINDS[kind_of(expect)] if ask is None else ask
        if self.option is None:
            return self.pool.offer(self.table.ruleset, rule, log, expect, ask)
        probe = self.option
        facet = Pool.facet(log, expect, ask)
        if not self.pool.wants(self.table.ruleset, probe.rule, *facet, events_in(log)):
            return False
        move = expect.get("move")
        for other in probe.others:
            changed = with_options(log, {probe.spec.name: other})
            if not _same(self.answer(changed, ask, move), expect):
                return self.pool.offer(self.table.ruleset, probe.rule, log, expect, ask)
        return False

    def offer_answer(
        self, rule: str, log: dict[str, Any], ask: Ask, move: Any = None
    ) -> dict[str, Any]:
        """Ask the referee and offer its answer; the answer."""
        expect = self.answer(log, ask, move)
        self.offer(rule, log, expect, ask)
        return expect
