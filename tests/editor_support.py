"""The table editor's browser-test helpers, shared by tests/test_editor*.py: the page driven
as an organiser drives it (:class:`Editor`, one tap at a time, each waited for), the scan of the
texts a person can see for codes and the script's values, and the play's layout round the trick
(the boxes of the hands against the trick area). Not a test module: nothing here is collected.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.browser_support import DESKTOP, Page

#: A laptop's window (the hands round the trick); the phone is browser_support's PHONE.
LAPTOP = {**DESKTOP, "width": 1366, "height": 768}

# The verdict on the last move, as the live region shows it.
READ_VERDICT = """
const v = document.querySelector('#verdict [data-verdict]');
const box = document.getElementById('verdict');
return v ? {
  verdict: v.dataset.verdict, text: v.textContent,
  role: box.getAttribute('role'), live: box.getAttribute('aria-live'),
  correct: [...v.querySelectorAll('.correct .card')].map((c) => c.dataset.card),
  color: getComputedStyle(v).backgroundColor,
} : null;
"""


class Editor:
    """The editor page, driven as an organiser does: one tap at a time, each waited for."""

    def __init__(self, page: Page, lang: str = "en") -> None:
        self.page = page
        self.driver = page.driver
        self.lang = lang
        self.taps = 0

    def open(self, fragment_: str = "") -> None:
        self.page.open(f"?lang={self.lang}", fragment_, path="/enter")
        self.until_idle(0)

    def renders(self) -> int:
        return int(
            self.driver.execute_script(
                "return document.getElementById('editor').dataset.render || 0"
            )
        )

    def until_idle(self, before: int) -> None:
        self.page.until(
            lambda d: d.execute_script(
                "const e = document.getElementById('editor');"
                "return !e.dataset.busy && Number(e.dataset.render || 0) > arguments[0]",
                before,
            ),
            "the editor",
        )

    def tap(self, css: str) -> None:
        before = self.renders()
        self.driver.find_element(By.CSS_SELECTOR, css).click()
        self.taps += 1
        self.until_idle(before)

    def phase(self) -> str:
        return str(self.driver.find_element(By.ID, "editor").get_attribute("data-phase"))

    # --- 1. the table --------------------------------------------------------------------------

    def table(self, log: dict[str, Any], deal: dict[str, Any], mode: str) -> None:
        """The table form filled from the log (names typed; every choice a tap on a control)."""
        Select(self.driver.find_element(By.ID, "ruleset")).select_by_value(log["ruleset"])
        if self.driver.find_elements(By.ID, "players-count"):
            Select(self.driver.find_element(By.ID, "players-count")).select_by_value(
                str(len(log["players"]))
            )
        for seat, name in enumerate(log["players"]):
            self.driver.find_element(By.ID, f"player-{seat}").send_keys(name)
        Select(self.driver.find_element(By.ID, "notation")).select_by_value(
            log.get("notation", "spanish")
        )
        for name, value in (log.get("options") or {}).items():
            if isinstance(value, list):
                for i, v in enumerate(value):
                    Select(self.driver.find_element(By.ID, f"option-{name}-{i}")).select_by_value(
                        str(v)
                    )
                continue
            control = self.driver.find_element(By.ID, f"option-{name}")
            shown = str(value).lower() if isinstance(value, bool) else str(value)
            if control.tag_name == "select":
                Select(control).select_by_value(shown)
            else:
                control.clear()
                control.send_keys(shown)
        Select(self.driver.find_element(By.ID, "dealer")).select_by_value(str(deal["dealer"]))
        self.driver.find_element(By.ID, f"mode-{mode}").click()
        self.tap("#to-cards")

    # --- 2. the cards ----------------------------------------------------------------------------

    def cards(self, deal: dict[str, Any], unknown: frozenset[str] = frozenset()) -> None:
        """Every card of the deal, one tap each, in the order the picker asks for them: the
        hands seat by seat (a card in ``unknown`` is entered as an unknown card), then the
        shown card or the turned card and the stock, or the deck."""
        if "deck" in deal:
            order = list(deal["deck"])
        else:
            order = [c for hand in deal["hands"] for c in hand]
            if "trump_card" in deal:
                order.append(deal["trump_card"])
            if "stock" in deal:
                order += [deal["stock"][-1], *deal["stock"][:-1]]
        for code in order:
            if code not in unknown and self.given(code) and not self.asks_trump():
                continue  # the last hand filled itself
            self.tap('[data-action="unknown"]' if code in unknown else f'[data-pick-card="{code}"]')

    def given(self, code: str) -> bool:
        found = self.driver.find_elements(By.CSS_SELECTOR, f'.picker [data-pick-card="{code}"]')
        return bool(found) and "given" in str(found[0].get_attribute("class"))

    def asks_trump(self) -> bool:
        """Whether the place being filled is the dealer's shown card."""
        return bool(self.driver.find_elements(By.CSS_SELECTOR, '[data-target="trump"].current'))

    def start(self) -> None:
        self.tap("#start-play")
        assert self.phase() == "play"

    def at_table(self, log: dict[str, Any], deal: dict[str, Any]) -> None:
        """The editor opened, the table filled and every card entered: play begins."""
        self.open()
        self.table(log, deal, "deck" if "deck" in deal else "hands")
        self.cards(deal)
        self.start()

    # --- 3. play ---------------------------------------------------------------------------------

    def move(self, event: dict[str, Any]) -> None:
        seat = f'.seat[data-seat="{event["seat"]}"]'
        if event["type"] == "play":
            self.tap(f'{seat} .hand-now button[data-card="{event["card"]}"]')
        elif event["type"] == "sing":
            self.tap(f'{seat} [data-action="sing"][data-suit="{event["suit"]}"]')
        elif event["type"] == "tute":
            self.tap(f'{seat} [data-action="tute"][data-of="{event["of"]}"]')
        else:
            self.tap(f'{seat} [data-action="exchange"]')

    def verdict(self) -> dict[str, Any]:
        found: dict[str, Any] = self.driver.execute_script(READ_VERDICT)
        return found

    def log(self) -> dict[str, Any]:
        text = self.driver.execute_script("return document.getElementById('log-text').value")
        log: dict[str, Any] = json.loads(text)
        return log


# --- no code shown to a person --------------------------------------------------------------

# A code as programs write it (snake_case: lose_deal, out_of_turn, match_target).
CODE = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")

# Every text a person can see or hear: the page's text with every <details> open, the choices of
# every list, and the accessible names, titles and placeholders.
READ_TEXTS = """
for (const d of document.querySelectorAll('details')) d.open = true;
const out = [document.body.innerText];
for (const n of document.querySelectorAll('[aria-label], [title], [placeholder]')) {
  out.push(n.getAttribute('aria-label') || '', n.title || '', n.getAttribute('placeholder') || '');
}
for (const o of document.querySelectorAll('option')) out.push(o.textContent);
return out.join('\\n');
"""


#: A value of the script's shown as text ("null" where nothing was meant).
LEAKED = re.compile(r"\b(null|undefined|NaN|\[object Object\])")


def codes_in_page(editor: Editor) -> set[str]:
    """The codes (and the script's values) among every text a person can see or hear."""
    text = editor.driver.execute_script(READ_TEXTS)
    return set(CODE.findall(text)) | set(LEAKED.findall(text))


# --- the play round the trick ---------------------------------------------------------------

# The boxes of the trick area and of each seat's hand, and how wide the page is.
READ_LAYOUT = """
const box = (e) => { const r = e.getBoundingClientRect();
  return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width}; };
const table = document.querySelector('.at-table');
const cards = (seat) => [...seat.querySelectorAll('.hand-now .card')].map(box);
return {
  display: getComputedStyle(table).display,
  table: box(table),
  trick: box(table.querySelector('.table-now')),
  seats: [...table.querySelectorAll('.seat[data-place]')].map((s) => ({
    seat: Number(s.dataset.seat), place: s.dataset.place, box: box(s), cards: cards(s),
  })),
  scrollWidth: document.documentElement.scrollWidth,
  innerWidth: window.innerWidth,
};
"""

#: Where a seat's hand is, by its place, against the trick area's box.
SIDES = {
    "bottom": lambda s, t: s["top"] >= t["bottom"],
    "top": lambda s, t: s["bottom"] <= t["top"],
    "left": lambda s, t: s["right"] <= t["left"],
    "right": lambda s, t: s["left"] >= t["right"],
    "top-left": lambda s, t: s["bottom"] <= t["top"] and s["right"] <= t["left"],
    "top-right": lambda s, t: s["bottom"] <= t["top"] and s["left"] >= t["right"],
}


def layout(editor: Editor) -> dict[str, Any]:
    found: dict[str, Any] = editor.driver.execute_script(READ_LAYOUT)
    return found


def overflows(shown: dict[str, Any]) -> list[str]:
    """What is wider than the window, or a card outside its seat's box."""
    out = []
    if shown["scrollWidth"] > shown["innerWidth"]:
        out.append(f"the page is {shown['scrollWidth']} px wide in {shown['innerWidth']}")
    for seat in shown["seats"]:
        box = seat["box"]
        for card in seat["cards"]:
            if card["left"] < box["left"] - 0.5 or card["right"] > box["right"] + 0.5:
                out.append(f"seat {seat['seat']}: a card outside its hand's box")
    return out


def around_the_table(shown: dict[str, Any]) -> list[str]:
    """Each seat's hand that is not on its side of the trick area."""
    trick = shown["trick"]
    return [
        f"seat {s['seat']} ({s['place']}) is not on its side: {s['box']} / trick {trick}"
        for s in shown["seats"]
        if not SIDES[s["place"]](s["box"], trick)
    ]


def keep_shot(path: Path) -> None:
    """A copy of a screenshot where ``ARBITER_SHOTS`` says (the notes of a review)."""
    folder = os.environ.get("ARBITER_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(folder) / path.name)
