"""The game's tables are written once, in the engine: nothing else in the package (its Python,
the page's scripts and templates) restates the trick order of the ranks, the card points, the
suit letters or symbols, or the French rank letters (issue 18).

The patterns are first held to the engine's own tables, which they must find, so that a pattern
that finds nothing anywhere cannot pass for a clean package.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.api_support import ROOT

PACKAGE = ROOT / "arbiter"
ENGINE = PACKAGE / "engine"
SOURCES = ("*.py", "*.js", "*.html")

_SEP = r"[\s,()\[\]]{1,4}"


def _seq(*items: str) -> str:
    """A run of values separated by commas, spaces or brackets."""
    return r"(?<![\w.])" + _SEP.join(items) + r"(?![\w.])"


def _quoted(*letters: str) -> str:
    """Letters in one string or as quoted items of a list: "OCEB", 'O', 'C', 'E', 'B'."""
    q = "[\"']"
    return q + r"[\s,\"']*".join(letters) + q


TABLES = {
    "ranks by strength": _seq("2", "4", "5", "6", "7", "10", "11", "12", "3", "1"),
    "ranks by strength, highest first": _seq("1", "3", "12", "11", "10", "7", "6", "5", "4", "2"),
    "ranks": _seq("1", "2", "3", "4", "5", "6", "7", "10", "11", "12"),
    "card points": r"\b1\s*:\s*11\s*,\s*3\s*:\s*10\b",
    "Spanish suit letters": _quoted("O", "C", "E", "B"),
    "French suit letters": _quoted("D", "H", "S", "C"),
    "French suit symbols": r"♦\W{0,6}♥\W{0,6}♠\W{0,6}♣|\\u2666.{0,12}\\u2665",
    "French rank letters": r"\b1\s*:\s*[\"']A[\"']|[\"']A[\"']\s*:\s*1\b|[\"']J[\"']\s*:\s*10\b",
}


def _found(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [name for name, pattern in TABLES.items() if re.search(pattern, text)]


def _sources(root: Path) -> list[Path]:
    return sorted(p for pattern in SOURCES for p in root.rglob(pattern))


def test_the_patterns_find_the_engines_tables() -> None:
    cards = _found(ENGINE / "cards.py")
    assert set(cards) >= {
        "ranks by strength",
        "ranks",
        "card points",
        "Spanish suit letters",
        "French suit letters",
        "French suit symbols",
        "French rank letters",
    }, cards
    written = "TRICK_ORDER = (1, 3, 12, 11, 10, 7, 6, 5, 4, 2)\nSUITS = ['O', 'C', 'E', 'B']"
    assert re.search(TABLES["ranks by strength, highest first"], written)
    assert re.search(TABLES["Spanish suit letters"], written)
    assert re.search(TABLES["French suit symbols"], '"\\u2666", "H": "\\u2665"')


def test_no_table_of_the_game_outside_the_engine() -> None:
    restated = {
        str(path.relative_to(ROOT)): found
        for path in _sources(PACKAGE)
        if ENGINE not in path.parents and (found := _found(path))
    }
    assert restated == {}
