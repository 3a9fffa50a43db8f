"""The table editor's play on a laptop: each seat's hand round the trick, in a real browser
(tests/browser_support.py) — for tables of 2, 3, 4 and 5 seats, each hand on its side of the
trick area (checked by the elements' boxes) and nothing wider than the window; on a phone
(390x844) the one column of before, still nothing wider than the window. Screenshots go to
``test-artifacts/screenshots/`` (and, when ``ARBITER_SHOTS`` names a folder, there too).
"""

from __future__ import annotations

import itertools
import json

import pytest

from tests.browser_support import (
    PHONE,
    Page,
    browser,
    fragment,
    load,
    no_console_errors,
    page,
    server,
)
from tests.editor_support import LAPTOP, Editor, around_the_table, keep_shot, layout, overflows

__all__ = ["browser", "page", "server"]  # the fixtures this module uses

pytestmark = pytest.mark.slow

#: An example of each table size, and a point of its first deal with a trick on the table.
TABLES = {
    2: ("tute-2p-match.json", 5),
    3: ("tute-3p.json", 4),
    4: ("tute-4p-renuncio.json", 6),
    5: ("tute-gana-pierde-5p-french.json", 7),
}


def at_play(page: Page, seats: int, lang: str = "es") -> Editor:
    name, event = TABLES[seats]
    log = load(name)
    log["deals"] = log["deals"][:1]
    editor = Editor(page, lang)
    editor.open(fragment(json.dumps(log), place=f"&deal=1&event={event}"))
    assert editor.phase() == "play"
    return editor


@pytest.mark.parametrize("seats", sorted(TABLES))
def test_on_a_laptop_the_hands_sit_round_the_trick(page: Page, seats: int) -> None:
    """Done when: on a laptop (1366x768) each seat's hand is on its side of the trick area —
    2, 3, 4 and 5 seats — every seat shown once, and nothing overflows."""
    page.viewport(LAPTOP)
    editor = at_play(page, seats)
    shown = layout(editor)
    assert shown["display"] == "grid"
    assert sorted(s["seat"] for s in shown["seats"]) == list(range(seats))
    assert around_the_table(shown) == []
    assert overflows(shown) == []
    if seats == 4:
        keep_shot(page.screenshot("editor-laptop-4-es.png", LAPTOP, keep=True))
    no_console_errors(page)


@pytest.mark.parametrize("seats", sorted(TABLES))
def test_on_a_phone_the_table_stays_one_column(page: Page, seats: int) -> None:
    """Done when: on a phone (390x844) the play is the one column it was — the trick, then the
    hands one under another, each the table's width — and nothing overflows."""
    page.viewport(PHONE)
    editor = at_play(page, seats)
    shown = layout(editor)
    assert shown["display"] != "grid"
    boxes = [s["box"] for s in shown["seats"]]
    assert all(b["top"] >= shown["trick"]["bottom"] for b in boxes)
    for upper, lower in itertools.pairwise(boxes):
        assert lower["top"] >= upper["bottom"] - 0.5  # one under another
    assert all(b["width"] > shown["table"]["width"] * 0.8 for b in boxes)
    assert overflows(shown) == []
    no_console_errors(page)
