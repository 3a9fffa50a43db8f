"""A deal started from the disputed trick in the table editor (``/enter``, "From the disputed
trick"), in a real browser (tests/browser_support.py): Debian's Chromium against the app under
gunicorn.

The disputed trick of the tute-4p example is entered from its position — the position the
referee itself gives for that point of the log (``POST /v1/positions``), entered by taps as an
organiser would: the trick on the table, the hands now, the card that shows trump, the tricks
played — and the renuncio played there is found from the position alone, on a phone and a
laptop, in Spanish and English; the ruling says what it cannot know. A fault in the position
entered comes back in words beside the place it is about, with no pointer and no code shown; a
reload keeps the position entry and the moves. The taps are written to
``test-artifacts/editor-position.json``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests import gunicorn_support
from tests.browser_support import (
    ARTIFACTS,
    DESKTOP,
    PHONE,
    UI,
    Page,
    browser,
    load,
    no_console_errors,
    page,
    server,
)
from tests.editor_support import (
    LAPTOP,
    READ_TEXTS,
    Editor,
    around_the_table,
    codes_in_page,
    keep_shot,
    layout,
    overflows,
)

__all__ = ["browser", "page", "server"]  # the fixtures this module uses

pytestmark = pytest.mark.slow

SIZES = {"phone": PHONE, "laptop": LAPTOP}

# The ruling from the position: each move's verdict, and what it cannot know.
READ_POSITION_RULING = """
const ruling = document.getElementById('position-ruling');
return ruling ? {
  verdicts: [...ruling.querySelectorAll('[data-verdict]')].map((li) => li.dataset.verdict),
  unknown: [...ruling.querySelectorAll('#position-unknown li')].map((li) => li.textContent),
  stopped: Boolean(document.getElementById('position-stopped')),
} : null;
"""


def disputed(page: Page) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The tute-4p example's disputed trick: its log, the renuncio's event (the move), and the
    position the referee gives just before it."""
    log = load("tute-4p-renuncio.json")
    answer = gunicorn_support.post_json(page.server.port, "/v1/replays", log, {})
    violation = answer.json()["deals"][1]["violations"][0]
    asked = {**log, "deal": 1, "event": violation["event"]}
    got = gunicorn_support.post_json(page.server.port, "/v1/positions", asked, {})
    assert got.status == 200, got.body[:300]
    move = log["deals"][1]["events"][violation["event"]]
    return log, move, got.json()["position"]


def position_table(editor: Editor, position: dict[str, Any]) -> None:
    """The table form of a position start: ruleset, names, dealer, the mode, the tricks played
    and who led each (each choice one tap on a control)."""
    driver = editor.driver
    Select(driver.find_element(By.ID, "ruleset")).select_by_value(position["ruleset"])
    for seat, name in enumerate(position["players"]):
        field = driver.find_element(By.ID, f"player-{seat}")
        field.clear()
        field.send_keys(name)
    Select(driver.find_element(By.ID, "dealer")).select_by_value(str(position["dealer"]))
    driver.find_element(By.ID, "mode-position").click()
    editor.taps += 1
    Select(driver.find_element(By.ID, "position-tricks")).select_by_value(
        str(len(position["tricks"]))
    )
    editor.taps += 1
    leaders = [t["leader"] for t in position["tricks"]] + [position["trick"]["leader"]]
    for i, leader in enumerate(leaders):
        select = Select(driver.find_element(By.ID, f"lead-{i}"))
        if select.first_selected_option.get_attribute("value") != str(leader):
            select.select_by_value(str(leader))
            editor.taps += 1
    assert codes_in_page(editor) == set()  # the form's own questions, in words
    editor.tap("#to-cards")


def current_place(editor: Editor) -> str:
    found = editor.driver.find_elements(By.CSS_SELECTOR, ".target.current")
    return str(found[0].get_attribute("data-target")) if found else ""


def give(editor: Editor, place: str, cards: list[str]) -> None:
    """The cards of one place, one tap each (the place chosen first when the picker is not
    there already)."""
    if not cards:
        return
    if current_place(editor) != place:
        editor.tap(f'[data-target-choose="{place}"]')
    for code in cards:
        editor.tap(f'.picker [data-pick-card="{code}"]')


def position_cards(
    editor: Editor, position: dict[str, Any], done: frozenset[str] = frozenset()
) -> None:
    """Every place of the position, in the picker's order (the places in ``done`` left as they
    are)."""
    places = [("table", [p["card"] for p in position["trick"]["plays"]])]
    places += [(f"hand-{seat}", hand) for seat, hand in enumerate(position["hands"])]
    places.append(("shown", [position["turned"]]))
    places += [
        (f"trick-{i}", [p["card"] for p in trick["plays"]])
        for i, trick in enumerate(position["tricks"])
    ]
    for place, cards in places:
        if place not in done:
            give(editor, place, cards)


def position_ruling(editor: Editor) -> dict[str, Any]:
    found: dict[str, Any] = editor.driver.execute_script(READ_POSITION_RULING)
    return found


@pytest.mark.parametrize(
    ("size", "lang"), [("phone", "es"), ("laptop", "es"), ("phone", "en"), ("laptop", "en")]
)
def test_a_renuncio_found_from_the_disputed_trick(page: Page, size: str, lang: str) -> None:
    """Done when: a position-start deal is entered and ruled — the renuncio of the tute-4p
    example found from its trick alone — and the ruling says what it cannot know; no code shown,
    no serious accessibility fault (axe-core), nothing wider than the window."""
    page.viewport(SIZES[size])
    _, move, position = disputed(page)
    editor = Editor(page, lang)
    editor.open()
    position_table(editor, position)
    assert editor.phase() == "cards"
    position_cards(editor, position)
    assert codes_in_page(editor) == set()
    editor.tap("#start-play")
    assert editor.phase() == "play", editor.driver.find_element(By.ID, "editor").text[:600]
    assert position_ruling(editor)["verdicts"] == []
    assert codes_in_page(editor) == set()
    editor.move(move)
    verdict = editor.verdict()
    assert verdict["verdict"] == "renuncio", verdict
    ruling = position_ruling(editor)
    assert ruling["verdicts"] == ["renuncio"] and ruling["stopped"]
    words = UI["es" if lang == "es" else "en"]
    assert ruling["unknown"] == [
        words[f"position.unknown.{k}"]
        for k in ("tricks", "renuncios", "cantes", "exchanges", "stock", "match")
    ]
    assert codes_in_page(editor) == set()
    assert page.axe() == []
    shown = layout(editor)
    assert overflows(shown) == []
    if size == "laptop":
        assert around_the_table(shown) == []  # the same table round the trick
    if lang == "es":
        keep_shot(page.screenshot(f"editor-position-{size}-es.png", SIZES[size], keep=True))
    if size == "phone" and lang == "es":
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / "editor-position.json").write_text(
            json.dumps({"example": "tute-4p-renuncio.json", "deal": 2, "taps": editor.taps})
        )
    no_console_errors(page)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_fault_in_the_position_is_said_beside_its_place(page: Page, lang: str) -> None:
    """Done when: a position the referee refuses shows each fault in words beside the place
    the person typed (a hand one card short, its card given to a trick played), with no
    pointer and no code on the page."""
    page.viewport(PHONE)
    _, _, position = disputed(page)
    short = json.loads(json.dumps(position))
    lost = short["hands"][1].pop()  # bea's hand one card short...
    short["tricks"][0]["plays"][0]["card"] = lost  # ...and the card in the first trick instead
    editor = Editor(page, lang)
    editor.open()
    position_table(editor, short)
    position_cards(editor, short)
    editor.tap("#start-play")
    assert editor.phase() == "cards"
    faults = {
        str(f.get_attribute("data-fault")): f.text
        for f in editor.driver.find_elements(By.CSS_SELECTOR, "[data-fault]")
    }
    assert "hand-1" in faults, faults
    name = position["players"][1]
    assert name in faults["hand-1"]
    text = editor.driver.execute_script(READ_TEXTS)
    assert "/position" not in text and not re.search(r"/hands/\d", text)
    assert codes_in_page(editor) == set()
    assert page.axe() == []
    if lang == "es":
        keep_shot(page.screenshot("editor-position-fault-phone-es.png", PHONE, keep=True))
    no_console_errors(page, ("status of 422",))  # the refusal itself, as the network logs it


def test_a_reload_keeps_the_position_entry_and_its_moves(page: Page) -> None:
    """Done when: a reload keeps the position being entered, and once in play, the moves made
    from it (played again from the position); Back and Forward step between them."""
    page.viewport(PHONE)
    _, move, position = disputed(page)
    editor = Editor(page, "es")
    editor.open()
    position_table(editor, position)
    give(editor, "table", [p["card"] for p in position["trick"]["plays"]])
    give(editor, "hand-0", position["hands"][0])
    before = editor.driver.execute_script(
        "return [...document.querySelectorAll('.target .slots .card')].map((c) => c.dataset.card)"
    )
    editor.driver.refresh()
    editor.until_idle(0)
    assert editor.phase() == "cards"
    after = editor.driver.execute_script(
        "return [...document.querySelectorAll('.target .slots .card')].map((c) => c.dataset.card)"
    )
    assert after == before and after
    position_cards(editor, position, frozenset({"table", "hand-0"}))
    editor.tap("#start-play")
    editor.move(move)
    assert editor.verdict()["verdict"] == "renuncio"
    editor.driver.refresh()
    editor.until_idle(0)
    assert editor.phase() == "play"
    assert position_ruling(editor)["verdicts"] == ["renuncio"]
    # Back: the step before the renuncio (the position as entered); Forward: the renuncio again
    editor.driver.back()
    editor.page.until(lambda _: (position_ruling(editor) or {}).get("verdicts") == [])
    editor.driver.forward()
    editor.page.until(lambda _: (position_ruling(editor) or {}).get("verdicts") == ["renuncio"])
    no_console_errors(page)
