"""The figures of an archive run: games by status and by ruleset, deals, outcome reasons,
renuncios by obligation and by ruleset, illegal events by code, errors by kind.

A :class:`Summary` counts :class:`~arbiter.archive.records.Scored` lines; the summaries of
pieces scored apart (other processes, Dask workers) add up with :meth:`Summary.merge`. Its
:meth:`~Summary.to_dict` is what ``--summary-json`` writes, and what ``--summary`` prints as a
table (:mod:`arbiter.commands.score`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from arbiter.archive.records import Scored
from arbiter.report import ENUM_TEXT

#: The status of a line that was not scored (games by status).
ERROR = "error"
#: The outcome reason of a deal left unfinished.
UNFINISHED = "unfinished"


@dataclass(slots=True)
class Summary:
    """Counts of the lines of a run (or of part of it)."""

    games: int = 0
    #: games whose log holds a renuncio or an illegal event
    breaches: int = 0
    deals: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    outcomes: Counter[str] = field(default_factory=Counter)
    #: (ruleset, obligation) → renuncios
    renuncios: Counter[tuple[str, str]] = field(default_factory=Counter)
    illegal: Counter[str] = field(default_factory=Counter)
    #: error title → lines
    errors: Counter[str] = field(default_factory=Counter)
    #: ruleset → games scored (the lines that are errors have none)
    rulesets: Counter[str] = field(default_factory=Counter)

    def add(self, scored: Scored) -> None:
        # Once per game of a run: what it reads is bound to locals, and a deal without
        # renuncios (most of them) costs no loop. A game is counted from the engine's
        # adjudication, not from its body (which a table never makes).
        self.games += 1
        replay = scored.replay
        if replay is None:
            self.statuses[ERROR] += 1
            self.errors[scored.body["error"]["title"]] += 1
            return
        match = replay.match
        self.statuses[ENUM_TEXT[match.status]] += 1
        ruleset = scored.ruleset or ""
        self.rulesets[ruleset] += 1
        deals = match.deals
        self.deals += len(deals)
        outcomes = self.outcomes
        renuncios = 0
        for deal in deals:
            outcome = deal.outcome
            outcomes[UNFINISHED if outcome is None else ENUM_TEXT[outcome.reason]] += 1
            violations = deal.state.violations
            if violations:
                for violation in violations:
                    self.renuncios[(ruleset, ENUM_TEXT[violation.obligation])] += 1
                renuncios += len(violations)
        illegal = match.illegal
        if illegal is not None:
            self.illegal[ENUM_TEXT[illegal.code]] += 1
        if renuncios or illegal is not None:
            self.breaches += 1

    def merge(self, other: Summary) -> None:
        self.games += other.games
        self.breaches += other.breaches
        self.deals += other.deals
        self.statuses.update(other.statuses)
        self.outcomes.update(other.outcomes)
        self.renuncios.update(other.renuncios)
        self.illegal.update(other.illegal)
        self.errors.update(other.errors)
        self.rulesets.update(other.rulesets)

    def to_state(self) -> dict[str, Any]:
        """Every count, to be read back by :meth:`from_state` (a manifest keeps the figures of
        the part of a run done, for the run that continues it)."""
        return {
            "games": self.games,
            "breaches": self.breaches,
            "deals": self.deals,
            "statuses": dict(self.statuses),
            "outcomes": dict(self.outcomes),
            "renuncios": [[r, o, n] for (r, o), n in sorted(self.renuncios.items())],
            "illegal": dict(self.illegal),
            "errors": dict(self.errors),
            "rulesets": dict(self.rulesets),
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Summary:
        renuncios = Counter({(r, o): n for r, o, n in state["renuncios"]})
        return cls(
            state["games"],
            state["breaches"],
            state["deals"],
            Counter(state["statuses"]),
            Counter(state["outcomes"]),
            renuncios,
            Counter(state["illegal"]),
            Counter(state["errors"]),
            Counter(state["rulesets"]),
        )

    def copy(self) -> Summary:
        return Summary.from_state(self.to_state())

    @property
    def error_lines(self) -> int:
        return self.statuses[ERROR]

    def to_dict(self) -> dict[str, Any]:
        by_ruleset: dict[str, dict[str, int]] = {}
        by_obligation: Counter[str] = Counter()
        for (ruleset, obligation), count in sorted(self.renuncios.items()):
            by_ruleset.setdefault(ruleset, {})[obligation] = count
            by_obligation[obligation] += count
        return {
            "games": self.games,
            "games_by_status": _sorted(self.statuses),
            "games_by_ruleset": _sorted(self.rulesets),
            "games_with_breach": self.breaches,
            "deals": self.deals,
            "outcomes": _sorted(self.outcomes),
            "renuncios": {
                "total": sum(self.renuncios.values()),
                "by_obligation": _sorted(by_obligation),
                "by_ruleset": by_ruleset,
                # renuncios per game of each ruleset: rulesets of different sizes compared
                "per_game_by_ruleset": {
                    ruleset: round(sum(counts.values()) / self.rulesets[ruleset], 4)
                    for ruleset, counts in by_ruleset.items()
                    if self.rulesets[ruleset]
                },
            },
            "illegal": _sorted(self.illegal),
            "errors": _sorted(self.errors),
        }


def _sorted(counts: Counter[str]) -> dict[str, int]:
    """Most first, then by name: the same figures always read the same."""
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))
