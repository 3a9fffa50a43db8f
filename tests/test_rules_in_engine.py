"""The rules live in the engine alone: no re-derivation of a rule fact outside ``arbiter/engine/``.

Everything a reader needs of a point of the game is in the engine's position (the trick's winner,
the cards a declaration rests on, whether play is free, the stock's size, the mano...): the rest
of the package, the vectors' generator (devtools/) and the page's JavaScript read it. This test
greps their sources for the marks of a rule worked out again — a trick-winner comparison, the
rank and point tables, the cards of a cante or of the exchange, the mano's seat, stock-size
arithmetic — so that a new one fails here and is moved into the engine (or read from the
position) instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "arbiter" / "engine"
STATIC = ROOT / "arbiter" / "web" / "static"

#: Marks of a rule worked out again, in Python, with what they re-derive.
PYTHON_MARKS = {
    r"\bbeats\(": "a trick's winner (the position carries it: win_seat, win_card)",
    r"(?<!\.)\b(POINTS|POINTS_OF_RANK|STRENGTH_OF_RANK|RANKS_BY_STRENGTH|ABOVE)\b": (
        "rank or point tables"
    ),
    r"\b(make_card|rank_mask)\((KING|HORSE|SEVEN)\b": "the cards a declaration rests on",
    r"\(\s*[\w\[\]\"'.]*dealer[\w\[\]\"']*\s*\+\s*1\s*\)\s*%": "the mano or the next dealer",
    r"-\s*[\w.\[\]]*hand_size\b|\bstock_pos\b": "the stock's size",
    r"_CANTE_MASKS|_TUTE_MASKS|_CALL_MASKS|_SEVENS\b": "the engine's private rule tables",
}
#: Marks of a rule worked out again, in the page's JavaScript.
JS_MARKS = {
    r"cantes\[0\]": "the call that made trump (the position's made_trump)",
    r"codeOf\(\s*(12|11|7)\s*,": "the cards a declaration rests on (the position's cards)",
    r"\b(handSize|size)\s*\*\s*players\b": "the stock's size",
    r"\b(strength|beats|POINTS)\b": "card strength or points",
}


def _sources() -> list[Path]:
    python = [
        p
        for base in (ROOT / "arbiter", ROOT / "devtools")
        for p in sorted(base.rglob("*.py"))
        if ENGINE not in p.parents
    ]
    return python + sorted(STATIC.glob("*.js"))


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """The lines of code (comments and docstring-looking lines left out: words may name
    the rules)."""
    out = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        text = line.strip()
        if text.startswith(("#", "//", "*", "/*", '"""')):
            continue
        out.append((number, line.split("#")[0] if path.suffix == ".py" else line.split("//")[0]))
    return out


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_rule_is_worked_out_outside_the_engine(path: Path) -> None:
    marks = PYTHON_MARKS if path.suffix == ".py" else JS_MARKS
    found = [
        f"{path.relative_to(ROOT)}:{number}: {why}: {line.strip()}"
        for number, line in _code_lines(path)
        for pattern, why in marks.items()
        if re.search(pattern, line)
    ]
    assert not found, "rule knowledge outside the engine:\n" + "\n".join(found)


def test_the_marks_find_what_they_are_for(tmp_path: Path) -> None:
    """Each mark catches the re-derivation it names (else the test above proves nothing)."""
    python = [
        "if beats(card, win, trump):",
        "points = sum(POINTS[c] for c in plays)",
        "pair = make_card(KING, suit)",
        "first = (dealer + 1) % players",
        "left = pack - ruleset.hand_size[n] * n",
        "left = len(state.stock) - state.stock_pos",
    ]
    js = [
        "const call = deal.cantes[0];",
        "return [deck.codeOf(12, suit), deck.codeOf(11, suit)];",
        "const stock = pack.length - size * players - 1;",
        "if (strength[a] > strength[b]) win = a;",
    ]
    for lines, marks in ((python, PYTHON_MARKS), (js, JS_MARKS)):
        for line in lines:
            assert any(re.search(p, line) for p in marks), line
