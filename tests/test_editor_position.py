"""A deal started from the disputed trick in the table editor (``/enter``, "From the disputed
trick"), in a real browser (tests/browser_support.py): Debian's Chromium against the app under
gunicorn.

The disputed trick of the tute-4p example is entered from its position — the position the
referee itself gives for that point of the log (``POST /v1/positions``), entered by taps as an
organiser would: the trick on the table, the hands now, the card that shows trump, and the tricks
played, either by their cards or by who won each and the points so far — and the renuncio played
there is found from the position alone, on a phone and a laptop, in Spanish and English; play
goes on after it to the end of the deal, which the ruling says the renuncio decided; the ruling
says what it cannot know (with the tricks given by points, the cards not seen). A fault in the
position entered comes back in words of the page's catalogue, from its code, beside the place it
is about, with no pointer and no code shown; a reload keeps the position entry (by points too)
and the moves. The taps are written to ``test-artifacts/editor-position.json``.
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
  unseen: [...ruling.querySelectorAll('#position-unknown .unseen .card')].map(
    (c) => c.dataset.card),
  stopped: Boolean(document.getElementById('position-stopped')),
  red: [...ruling.querySelectorAll('.renuncio-trick')].map((li) => Number(li.dataset.trick)),
  redCards: [...ruling.querySelectorAll('.renuncio-trick .play.offending .card')].map(
    (c) => c.dataset.card),
  outcome: document.getElementById('position-outcome')?.textContent ?? null,
  decided: document.querySelector('#position-outcome [data-outcome="renuncio"]')?.textContent
    ?? null,
  turn: document.querySelector('.at-table')?.dataset.turn ?? null,
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


def position_table(editor: Editor, position: dict[str, Any], known: str = "cards") -> None:
    """The table form of a position start: ruleset, names, dealer, the mode, the tricks played,
    what is known of them and who led (or won) each — each choice one tap on a control — and,
    with ``known`` "points", each seat's card points so far (a number typed: one tap on the
    field, the seats at 0 left as they are)."""
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
    if known == "points":
        driver.find_element(By.ID, "known-points").click()
        editor.taps += 1
        # the form asks again, the choice just made keeps the focus
        assert driver.switch_to.active_element.get_attribute("id") == "known-points"
    leaders = [t["leader"] for t in position["tricks"]] + [position["trick"]["leader"]]
    for i, leader in enumerate(leaders):
        select = Select(driver.find_element(By.ID, f"lead-{i}"))
        if select.first_selected_option.get_attribute("value") != str(leader):
            select.select_by_value(str(leader))
            editor.taps += 1
    if known == "points":
        for seat, points in enumerate(position["card_points"]):
            if points:
                field = driver.find_element(By.ID, f"points-{seat}")
                field.clear()
                field.send_keys(str(points))
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
    editor: Editor,
    position: dict[str, Any],
    done: frozenset[str] = frozenset(),
    known: str = "cards",
) -> None:
    """Every place of the position, in the picker's order (the places in ``done`` left as they
    are; the tricks played only when their cards are known)."""
    places = [("table", [p["card"] for p in position["trick"]["plays"]])]
    places += [(f"hand-{seat}", hand) for seat, hand in enumerate(position["hands"])]
    places.append(("shown", [position["turned"]]))
    if known == "cards":
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
    assert ruling["verdicts"] == ["renuncio"] and not ruling["stopped"]  # play goes on
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


# --- the tricks played given by who won them and the points ------------------------------------


#: The words of a key in a language (the page's catalogue, as the page reads it).
def said(lang: str, key: str, **fields: Any) -> str:
    return str(UI[lang][key]).format(**fields)


def played_cards(position: dict[str, Any]) -> list[str]:
    return [p["card"] for trick in position["tricks"] for p in trick["plays"]]


def shot(page: Page, name: str, size: str) -> None:
    keep_shot(page.screenshot(name, SIZES[size], keep=True))


@pytest.mark.parametrize(
    ("size", "lang"), [("phone", "es"), ("laptop", "es"), ("phone", "en"), ("laptop", "en")]
)
def test_a_renuncio_ruled_from_tricks_given_by_points_and_play_on_to_the_end(
    page: Page, size: str, lang: str
) -> None:
    """Done when: the tute-4p example's trick-8 renuncio is ruled from a position whose earlier
    tricks are given only by who won each and the card points so far — no card step for them —
    the ruling lists the cards it did not see; play goes on after the renuncio to the end of the
    deal (the example's own moves), the renuncio red on its trick, and the ruling at the end
    names it as what decided the deal; no code shown, axe-core clean, nothing wider than the
    window."""
    page.viewport(SIZES[size])
    log, move, position = disputed(page)
    events = log["deals"][1]["events"]
    rest = events[events.index(move) + 1 :]
    editor = Editor(page, lang)
    editor.open()
    position_table(editor, position, known="points")
    assert editor.phase() == "cards"
    assert not editor.driver.find_elements(By.CSS_SELECTOR, '[data-target^="trick-"]')
    position_cards(editor, position, known="points")
    assert codes_in_page(editor) == set()
    editor.tap("#start-play")
    assert editor.phase() == "play", editor.driver.find_element(By.ID, "editor").text[:600]
    editor.move(move)
    assert editor.verdict()["verdict"] == "renuncio"
    taps = editor.taps
    ruling = position_ruling(editor)
    assert ruling["verdicts"] == ["renuncio"] and not ruling["stopped"]
    tricks = len(position["tricks"])
    cards = said(lang, "position.unknown.cards.other", tricks=tricks, cards=4 * tricks)
    assert ruling["unknown"][0].startswith(cards), ruling["unknown"][0]
    assert sorted(ruling["unseen"]) == sorted(played_cards(position))
    points = " · ".join(
        f"{n} {p}" for n, p in zip(position["players"], position["card_points"], strict=True)
    )
    assert said(lang, "position.unknown.points", points=points) in ruling["unknown"]
    assert codes_in_page(editor) == set()
    assert page.axe() == []
    shown = layout(editor)
    assert overflows(shown) == []
    if size == "laptop":
        assert around_the_table(shown) == []
    shot(page, f"editor-position-points-renuncio-{size}-{lang}.png", size)
    for event in rest:  # the example's own moves, from the position after the renuncio
        editor.move(event)
        assert editor.verdict()["verdict"] == "ok", (event, editor.verdict())
    ruling = position_ruling(editor)
    assert ruling["turn"] == ""  # the deal is over: nobody to act
    renuncio_trick = tricks  # the trick on the table when it was played (from 0)
    assert ruling["red"] == [renuncio_trick] and ruling["redCards"] == [move["card"]]
    name = position["players"][move["seat"]]
    decided = ruling["decided"] or ""
    assert name in decided and said(lang, "failed.fallar") in decided, decided
    assert said(lang, "reason.renuncio") in (ruling["outcome"] or "")
    assert codes_in_page(editor) == set()
    assert page.axe() == []
    assert overflows(layout(editor)) == []
    shot(page, f"editor-position-points-end-{size}-{lang}.png", size)
    if size == "phone" and lang == "es":
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / "editor-position-points.json").write_text(
            json.dumps(
                {
                    "example": "tute-4p-renuncio.json",
                    "deal": 2,
                    "earlier tricks": "by who won each and the points",
                    "taps": taps,
                }
            )
        )
    no_console_errors(page)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_fault_in_the_points_is_said_from_its_code_beside_them(page: Page, lang: str) -> None:
    """Done when: card points the referee refuses (more than the cards not seen are worth) come
    back as the page's own sentence for the fault's code — not the referee's message — above
    the cards and, back at the table form, beside the points; no pointer and no code on the
    page."""
    page.viewport(PHONE)
    _, _, position = disputed(page)
    wrong = json.loads(json.dumps(position))
    wrong["card_points"][0] += 5
    editor = Editor(page, lang)
    editor.open()
    position_table(editor, wrong, known="points")
    position_cards(editor, wrong, known="points")
    editor.tap("#start-play")
    assert editor.phase() == "cards"
    sentence = said(
        lang, "position.fault.unknown_points_too_many", most=sum(position["card_points"])
    )
    box = editor.driver.find_element(By.ID, "position-faults").text
    assert sentence in box, box
    text = editor.driver.execute_script(READ_TEXTS)
    assert "/position" not in text and "card_points" not in text
    assert codes_in_page(editor) == set()
    assert page.axe() == []
    if lang == "es":
        shot(page, "editor-position-points-fault-phone-es.png", "phone")
    editor.tap('[data-action="back"]')
    assert editor.phase() == "table"
    beside = editor.driver.find_element(By.ID, "points-fault").text
    assert sentence in beside
    assert codes_in_page(editor) == set()
    assert page.axe() == []
    if lang == "es":
        shot(page, "editor-position-points-fault-form-phone-es.png", "phone")
    # the organiser corrects the points: the cards entered are kept, and play starts
    field = editor.driver.find_element(By.ID, "points-0")
    field.clear()
    field.send_keys(str(position["card_points"][0]))
    editor.tap("#to-cards")
    editor.tap("#start-play")
    assert editor.phase() == "play", editor.driver.find_element(By.ID, "editor").text[:600]
    assert codes_in_page(editor) == set()
    no_console_errors(page, ("status of 422",))


def test_a_reload_keeps_the_entry_by_points_and_its_moves(page: Page) -> None:
    """Done when: a reload keeps a position entry whose earlier tricks are given by points —
    the choice, the points typed and the cards — and, once in play, the moves made after the
    renuncio."""
    page.viewport(PHONE)
    log, move, position = disputed(page)
    events = log["deals"][1]["events"]
    after = events[events.index(move) + 1]
    editor = Editor(page, "es")
    editor.open()
    position_table(editor, position, known="points")
    give(editor, "table", [p["card"] for p in position["trick"]["plays"]])
    read_slots = (
        "return [...document.querySelectorAll('.target .slots .card')].map((c) => c.dataset.card)"
    )
    before = editor.driver.execute_script(read_slots)
    editor.driver.refresh()
    editor.until_idle(0)
    assert editor.phase() == "cards"
    assert editor.driver.execute_script(read_slots) == before and before
    assert not editor.driver.find_elements(By.CSS_SELECTOR, '[data-target^="trick-"]')
    editor.tap('[data-action="back"]')
    assert editor.driver.find_element(By.ID, "known-points").is_selected()
    typed = [
        int(editor.driver.find_element(By.ID, f"points-{seat}").get_attribute("value") or -1)
        for seat in range(len(position["players"]))
    ]
    assert typed == position["card_points"]
    editor.tap("#to-cards")
    position_cards(editor, position, frozenset({"table"}), known="points")
    editor.tap("#start-play")
    editor.move(move)
    editor.move(after)
    assert position_ruling(editor)["verdicts"] == ["renuncio", "ok"]
    editor.driver.refresh()
    editor.until_idle(0)
    assert editor.phase() == "play"
    ruling = position_ruling(editor)
    assert ruling["verdicts"] == ["renuncio", "ok"]
    assert len(ruling["unseen"]) == 4 * len(position["tricks"])
    no_console_errors(page)
