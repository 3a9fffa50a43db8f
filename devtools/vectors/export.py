"""Search, choose and write a set of vectors (``python -m devtools.vectors``).

:func:`build` runs every search of :mod:`devtools.vectors.searches` for every table, then
chooses per ruleset and rule the smallest vectors (:class:`~devtools.vectors.selection.Pool`).
The same seed, ``per_rule`` and engine always give the same bytes: the published set in
``conformance/`` is ``build(DEFAULT_SEED, DEFAULT_PER_RULE)`` (a test writes it again and
compares).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import arbiter
from arbiter.conformance.kit import vector_files
from arbiter.conformance.kit.protocol import Vector
from devtools.vectors.probing import Prober, tables
from devtools.vectors.rules import coverage_rules
from devtools.vectors.searches import french, search_table
from devtools.vectors.selection import Pool

DEFAULT_SEED: Final = 13
DEFAULT_PER_RULE: Final = 8
#: Events per rule beyond which no further vector of that rule is published (but always one).
EVENT_BUDGET: Final = 2000


def build(seed: int = DEFAULT_SEED, per_rule: int = DEFAULT_PER_RULE) -> list[Vector]:
    """The chosen vectors of every ruleset, rule by rule in the order of the coverage table."""
    pool = Pool(per_rule, EVENT_BUDGET)
    for table in tables():
        search_table(Prober(pool, table), seed)
    out: list[Vector] = []
    for ruleset, rules in coverage_rules().items():
        french(pool, ruleset, seed)
        out += pool.vectors(ruleset, rules)
    return out


def export(directory: Path, seed: int = DEFAULT_SEED, per_rule: int = DEFAULT_PER_RULE) -> int:
    """Write a set of vectors to ``directory``; how many."""
    directory.mkdir(parents=True, exist_ok=True)  # before the search: fail early
    found = build(seed, per_rule)
    vector_files.write(directory, found, seed, arbiter.__version__)
    return len(found)
