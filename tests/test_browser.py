"""The referee's page in a real browser: Debian's Chromium, headless, driven through Debian's
chromedriver by Selenium, against the app under gunicorn with the shipped configuration.

gunicorn (one worker, a free loopback port) rather than a werkzeug thread: it is what ``make run``
and the container serve, so the page, its static files and its headers are tested as users get
them. One server and one browser serve the whole module; every wait is bounded.

Each bundled example is opened through the file picker and through ``#log=`` and what the page
shows — deals, tricks with leader and winner, renuncios with the cards that were correct, the
running and final scores, outcome, illegal event, match standing — is checked against the API's
own answer for the same log. A deal is stepped through with the keyboard and its hands compared,
step by step, with the engine's. Language switching, drag and drop, paste, errors, escaping of
player names, the API key prompt and print layout are checked too; the browser's network log
must show no request to any other host, and its console no error. Screenshots of every example,
desktop and phone sized, are written to ``test-artifacts/screenshots/`` (not committed).

Chromium and chromedriver come from Debian (``apt-get install chromium chromium-driver``, which
``.ci/run`` does when they are missing). Selenium is given both paths, so Selenium Manager never
looks for, let alone downloads, a browser or a driver. Without them these tests fail, never skip.
"""

from __future__ import annotations

import base64
import copy
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

import arbiter
from arbiter.engine.cards import cards_of, format_card
from arbiter.engine.rulesets import RULESETS
from arbiter.engine.scoring import sides
from arbiter.i18n import LANGS, area
from tests import gunicorn_support
from tests.api_support import EXAMPLES_DIR, ROOT
from tests.gunicorn_support import Gunicorn

UI = {lang: area(lang, "page") for lang in LANGS}

# A headless Chromium drives the page served by a live gunicorn: not in the quick loop.
pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARTIFACTS = ROOT / "test-artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
WAIT = 15.0  # seconds for any one thing the page must do
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,900",
)
DESKTOP = {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True}
EXAMPLES = sorted(p.name for p in EXAMPLES_DIR.glob("*.json"))


# --- the server and the browser ---------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[Gunicorn]:
    with gunicorn_support.serving("arbiter-browser-") as served:
        yield served


def chromium(user_data: Path) -> WebDriver:
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not p.is_file()]
    if missing:
        pytest.fail(
            f"the browser tests need Debian's Chromium and chromedriver ({', '.join(missing)} "
            "missing): apt-get install chromium chromium-driver (.ci/run does it when missing)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={user_data}"):
        options.add_argument(flag)
    options.add_experimental_option("prefs", {"intl.accept_languages": "en-GB,en"})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    ARTIFACTS.mkdir(exist_ok=True)
    service = Service(
        executable_path=str(CHROMEDRIVER), log_output=str(ARTIFACTS / "chromedriver.log")
    )
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(30)
    return driver


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    with pytest.MonkeyPatch.context() as patch, tempfile.TemporaryDirectory() as profile:
        patch.setenv("SE_OFFLINE", "true")  # Selenium Manager, were it asked, stays offline
        driver = chromium(Path(profile))
        try:
            yield driver
        finally:
            driver.quit()


@pytest.fixture
def page(browser: WebDriver, server: Gunicorn) -> Iterator[Page]:
    opened = Page(browser, server)
    yield opened
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    opened.console_errors()  # drained: each test sees its own


class Page:
    """The referee's page in the module's browser, and what it shows."""

    def __init__(self, driver: WebDriver, server: Gunicorn) -> None:
        self.driver = driver
        self.server = server
        self.origin = f"http://{gunicorn_support.HOST}:{server.port}"

    def open(self, query: str = "", fragment: str = "") -> None:
        """A fresh load of the page (never a mere change of the fragment)."""
        self.driver.get("about:blank")
        self.driver.get(f"{self.origin}/{query}{fragment}")
        self.until(lambda d: d.execute_script("return document.documentElement.dataset.ready"))

    def until(self, check: Callable[[WebDriver], Any], what: str = "the page") -> Any:
        try:
            return WebDriverWait(self.driver, WAIT, poll_frequency=0.05).until(check)
        except TimeoutException:
            state = self.driver.execute_script(
                "const r = document.getElementById('ruling');"
                "return r ? r.dataset.state + ': ' + r.textContent.slice(0, 400) : 'no #ruling'"
            )
            raise AssertionError(f"{what} did not happen within {WAIT} s ({state})") from None

    def renders(self) -> int:
        value = self.driver.execute_script(
            "return document.getElementById('ruling').dataset.render || '0'"
        )
        return int(value)

    def wait_ruling(self, before: int, state: str = "ready") -> None:
        def done(driver: WebDriver) -> bool:
            ruling = driver.find_element(By.ID, "ruling")
            rendered = int(ruling.get_attribute("data-render") or 0) > before
            return rendered and ruling.get_attribute("data-state") in ("ready", "error")

        self.until(done, "the ruling")
        got = self.driver.find_element(By.ID, "ruling").get_attribute("data-state")
        assert got == state, self.driver.find_element(By.ID, "ruling").text[:800]

    def pick_file(self, path: Path) -> None:
        before = self.renders()
        self.driver.find_element(By.ID, "log-file").send_keys(str(path))
        self.wait_ruling(before)

    def keys(self, *keys: str) -> None:
        """Keys typed by the user (to whatever has the focus, as a person types)."""
        ActionChains(self.driver).send_keys(*keys).perform()

    def shown(self) -> dict[str, Any]:
        return self.driver.execute_script(READ_RULING)  # type: ignore[no-any-return]

    def console_errors(self) -> list[dict[str, Any]]:
        return [e for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]

    def requests(self) -> list[str]:
        """The URLs the browser asked for since the last call (from the DevTools log)."""
        urls = []
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                urls.append(message["params"]["request"]["url"])
        return urls

    def screenshot(self, name: str, metrics: dict[str, Any]) -> Path:
        """A full-page PNG at the given viewport, under test-artifacts/screenshots/."""
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
        layout = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
        size = layout["cssContentSize"]
        clip = {
            "x": 0,
            "y": 0,
            "width": max(size["width"], metrics["width"]),
            "height": min(size["height"], 16000),
            "scale": 1,
        }
        shot = self.driver.execute_cdp_cmd(
            "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}
        )
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / name
        path.write_bytes(base64.b64decode(shot["data"]))
        self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        return path


# What the page shows, read in one go: test hooks and the text around them.
READ_RULING = """
const text = (node) => node ? node.textContent.trim() : null;
const cards = (root, selector) => [...root.querySelectorAll(selector)].map((c) => c.dataset.card);
const ruling = document.getElementById('ruling');
return {
  status: ruling.querySelector('[data-status]')?.dataset.status ?? null,
  deals: [...ruling.querySelectorAll('[data-deal]')].map((deal) => ({
    index: Number(deal.dataset.deal),
    tricks: [...deal.querySelectorAll('[data-trick]')].map((trick) => ({
      index: Number(trick.dataset.trick),
      plays: [...trick.querySelectorAll('.plays > .play')].map((p) => ({
        seat: Number(p.dataset.seat), card: p.querySelector('.card').dataset.card,
        lead: p.classList.contains('lead'), win: p.classList.contains('win'),
        offending: p.classList.contains('offending'),
        visible: p.getBoundingClientRect().width > 0,
      })),
      points: text(trick.querySelector('.points')),
      draws: cards(trick, '.draws .card'),
      running: trick.querySelector('[data-running]')?.dataset.running ?? null,
      renuncio: trick.classList.contains('has-renuncio'),
    })),
    violations: [...deal.querySelectorAll('[data-violation]')].map((v) => ({
      obligation: v.dataset.violation,
      trick: Number(v.closest('[data-trick]').dataset.trick),
      message: text(v.querySelector('.message')),
      correct: cards(v, '.correct .card'),
    })),
    outcome: deal.querySelector('[data-outcome]') ? {
      reason: deal.querySelector('[data-outcome]').dataset.outcome,
      message: text(deal.querySelector('[data-outcome] .message')),
    } : null,
    illegal: deal.querySelector('[data-illegal]') ? {
      code: deal.querySelector('[data-illegal]').dataset.illegal,
      message: text(deal.querySelector('[data-illegal] .message')),
    } : null,
    scores: [...deal.querySelectorAll('table.scores tbody tr')].map((row) => ({
      seat: Number(row.dataset.seat),
      values: Object.fromEntries([...row.querySelectorAll('td[data-column]')]
        .map((td) => [td.dataset.column, Number(td.textContent)])),
    })),
    sides: [...deal.querySelectorAll('table.scores tfoot tr')].map((row) => ({
      seats: row.dataset.side,
      total: Number(row.querySelector('td[data-column="total"]').textContent),
    })),
    cantes: [...deal.querySelectorAll('.tricks .note.cante')].map((n) => n.textContent),
    exchanges: [...deal.querySelectorAll('.tricks .note.exchange')].map((n) => cards(n, '.card')),
    stepperOpen: !deal.querySelector('.stepper').hidden,
  })),
  violationElements: ruling.querySelectorAll('[data-violation]').length,
  cardsWithHooks: ruling.querySelectorAll(
    '.card[data-violation], .card[data-trick], .card[data-deal]').length,
  illegalElements: [...ruling.querySelectorAll('[data-illegal]')].map((e) => e.dataset.illegal),
  outcomeElements: ruling.querySelectorAll('[data-outcome]').length,
  standing: [...ruling.querySelectorAll('table.standing tbody tr')].map((row) => ({
    seats: row.dataset.seats,
    counter: row.querySelector('[data-counter]').dataset.counter,
    value: Number(row.querySelector('[data-counter]').textContent),
    result: ['winner', 'loser'].find((r) => row.querySelector('.result').classList.contains(r))
      ?? null,
  })),
  matchOver: ruling.querySelector('[data-over]')?.dataset.over ?? null,
  nextMoves: [...ruling.querySelectorAll('.next .moves > *:not(.label)')].length,
  shadowRoots: [...document.querySelectorAll('*')].filter((e) => e.shadowRoot).length,
  lang: document.documentElement.lang,
};
"""


# --- what the API says ------------------------------------------------------------------------


def load(name: str) -> dict[str, Any]:
    log: dict[str, Any] = json.loads((EXAMPLES_DIR / name).read_text())
    return log


def api_answer(server: Gunicorn, log: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    answer = gunicorn_support.post_json(server.port, "/v1/replays", log, {"Accept-Language": lang})
    assert answer.status == 200, answer.body[:300]
    body: dict[str, Any] = answer.json()
    return body


def fragment(log_text: str, padding: bool = False) -> str:
    encoded = base64.urlsafe_b64encode(log_text.encode()).decode()
    return "#log=" + (encoded if padding else encoded.rstrip("="))


def assert_shows(shown: dict[str, Any], answer: dict[str, Any], log: dict[str, Any]) -> None:
    """The page shows exactly the ruling of ``answer`` (the API's body for ``log``)."""
    ruleset = RULESETS[log["ruleset"]].to_dict()
    assert shown["status"] == answer["status"]
    assert shown["shadowRoots"] == 0
    assert shown["cardsWithHooks"] == 0, "a hook sits on a card"
    assert len(shown["deals"]) == len(answer["deals"])
    total_violations = 0
    for index, (deal, expected) in enumerate(zip(shown["deals"], answer["deals"], strict=True)):
        where = f"deal {index}"
        assert deal["index"] == index
        assert not deal["stepperOpen"], "stepping must be opt-in"
        assert [t["index"] for t in deal["tricks"]] == list(range(len(expected["tricks"])))
        for trick, want in zip(deal["tricks"], expected["tricks"], strict=True):
            at = f"{where}, trick {trick['index']}"
            assert [(p["seat"], p["card"]) for p in trick["plays"]] == [
                (p["seat"], p["card"]) for p in want["plays"]
            ], at
            assert all(p["visible"] for p in trick["plays"]), f"{at}: a card is not shown"
            assert [p["seat"] for p in trick["plays"] if p["lead"]] == [want["leader"]], at
            winners = [p["seat"] for p in trick["plays"] if p["win"]]
            assert winners == ([] if want["winner"] is None else [want["winner"]]), at
            if want["points"] is not None:
                assert str(want["points"]) in trick["points"], at
            assert trick["draws"] == [d["card"] for d in want["draws"]], at
            offences = [v for v in expected["violations"] if v["trick"] == trick["index"]]
            assert trick["renuncio"] == bool(offences), at
            assert sorted(p["card"] for p in trick["plays"] if p["offending"]) == sorted(
                v["card"] for v in offences
            ), at
        assert deal["violations"] == [
            {
                "obligation": v["obligation"],
                "trick": v["trick"],
                "message": v["message"],
                "correct": v["correct"],
            }
            for v in expected["violations"]
        ], where
        total_violations += len(expected["violations"])
        assert len(deal["cantes"]) == len(expected["cantes"]), where
        for note, cante in zip(deal["cantes"], expected["cantes"], strict=True):
            assert str(cante["points"]) in note, where
        assert deal["exchanges"] == [[x["gave"], x["took"]] for x in expected["exchanges"]], where
        if expected["outcome"] is None:
            assert deal["outcome"] is None, where
        else:
            assert deal["outcome"] == {
                "reason": expected["outcome"]["reason"],
                "message": expected["outcome"]["message"],
            }, where
        assert deal["scores"] == [
            {"seat": s["seat"], "values": {k: v for k, v in s.items() if k != "seat"}}
            for s in expected["scores"]
        ], where
        sides = expected.get("sides")
        assert deal["sides"] == [
            {"seats": ",".join(map(str, s["seats"])), "total": s["total"]} for s in sides or []
        ], where
        if expected["finished"] and deal["tricks"]:
            groups = (
                [s["seats"] for s in sides] if sides else [[s["seat"]] for s in expected["scores"]]
            )
            totals = {s["seat"]: s["total"] for s in expected["scores"]}
            final = ",".join(str(sum(totals[s] for s in g)) for g in groups)
            assert deal["tricks"][-1]["running"] == final, f"{where}: running score"
        illegal = answer["illegal"]
        if illegal is not None and illegal["deal"] == index:
            assert deal["illegal"] == {"code": illegal["code"], "message": illegal["message"]}
        else:
            assert deal["illegal"] is None, where
    assert shown["violationElements"] == total_violations, "one element per renuncio"
    expected_illegal = [] if answer["illegal"] is None else [answer["illegal"]["code"]]
    assert shown["illegalElements"] == expected_illegal
    assert shown["outcomeElements"] == sum(d["outcome"] is not None for d in answer["deals"])

    counter = ruleset["match"]["counter"]
    standings = {s["seat"]: s for s in answer["match"]["standings"]}
    if ruleset["pairs"]:
        groups = [d["seats"] for d in answer["deals"][0]["sides"]]
    else:
        groups = [[seat] for seat in standings]
    match = answer["match"]

    def result(seats: list[int]) -> str | None:
        if match["over"] and set(seats) <= set(match["winners"]):
            return "winner"
        if match["over"] and set(seats) <= set(match["losers"]):
            return "loser"
        return None

    assert shown["standing"] == [
        {
            "seats": ",".join(map(str, g)),
            "counter": counter,
            "value": standings[g[0]][counter],
            "result": result(g),
        }
        for g in groups
    ]
    assert shown["matchOver"] == ("true" if answer["match"]["over"] else "false")
    next_moves = 0 if answer["next"] is None else len(answer["next"]["legal_moves"])
    assert shown["nextMoves"] == next_moves


def no_console_errors(page: Page, allowed: tuple[str, ...] = ()) -> None:
    errors = [e for e in page.console_errors() if not any(a in e["message"] for a in allowed)]
    assert not errors, errors


# --- opening the examples -----------------------------------------------------------------------


@pytest.mark.parametrize("name", EXAMPLES)
def test_each_example_through_the_file_picker(page: Page, name: str) -> None:
    log = load(name)
    page.open("?lang=en")
    page.pick_file(EXAMPLES_DIR / name)
    assert_shows(page.shown(), api_answer(page.server, log, "en"), log)
    # The ruling can be shared: the address now carries the log.
    url = urlsplit(page.driver.current_url)
    assert url.fragment.startswith("log=")
    encoded = url.fragment.removeprefix("log=")
    decoded = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
    assert json.loads(decoded) == log
    assert page.driver.find_element(By.ID, "share-link").get_attribute("value") == (
        page.driver.current_url
    )
    page.screenshot(name.replace(".json", "-desktop.png"), DESKTOP)
    no_console_errors(page)


@pytest.mark.parametrize("name", EXAMPLES)
def test_each_example_through_the_link(page: Page, name: str) -> None:
    log = load(name)
    text = (EXAMPLES_DIR / name).read_text()
    page.open("?lang=es", fragment(text))
    page.wait_ruling(0)
    shown = page.shown()
    assert shown["lang"] == "es"
    assert_shows(shown, api_answer(page.server, log, "es"), log)
    page.screenshot(name.replace(".json", "-phone.png"), PHONE)
    no_console_errors(page)


def test_a_link_with_padding_and_one_without(page: Page) -> None:
    log = load("tute-3p.json")
    log["players"] = ["ñoño", "björk", "小林"]  # UTF-8 beyond ASCII
    answer = api_answer(page.server, log)
    text = json.dumps(log, ensure_ascii=False)
    while len(text.encode()) % 3 == 0:  # base64 of it then ends in '=' padding
        text += " "
    for padding in (True, False):
        link = fragment(text, padding=padding)
        assert link.endswith("=") == padding
        page.open("", link)
        page.wait_ruling(0)
        assert_shows(page.shown(), answer, log)
    # A new fragment on the open page is opened too.
    other = load("tute-gana-pierde-4p.json")
    before = page.renders()
    page.driver.execute_script("location.hash = arguments[0]", fragment(json.dumps(other)))
    page.wait_ruling(before)
    assert_shows(page.shown(), api_answer(page.server, other), other)


def test_a_bundled_example_from_the_list(page: Page) -> None:
    page.open("?lang=en")
    before = page.renders()
    Select(page.driver.find_element(By.ID, "example")).select_by_value("tute-cabron-match.json")
    page.wait_ruling(before)
    log = load("tute-cabron-match.json")
    assert_shows(page.shown(), api_answer(page.server, log), log)


def test_drop_and_paste(page: Page) -> None:
    log = load("tute-gana-pierde-4p.json")
    answer = api_answer(page.server, log)
    page.open("?lang=en")
    before = page.renders()
    page.driver.execute_script(
        """
        const data = new DataTransfer();
        data.items.add(new File([arguments[0]], 'dropped.json', {type: 'application/json'}));
        const init = {dataTransfer: data, bubbles: true, cancelable: true};
        document.body.dispatchEvent(new DragEvent('dragover', init));
        document.body.dispatchEvent(new DragEvent('drop', init));
        """,
        json.dumps(log),
    )
    page.wait_ruling(before)
    assert_shows(page.shown(), answer, log)

    other = load("tute-3p.json")
    before = page.renders()
    page.driver.execute_script(
        """
        const data = new DataTransfer();
        data.setData('text/plain', arguments[0]);
        const init = {clipboardData: data, bubbles: true, cancelable: true};
        document.body.dispatchEvent(new ClipboardEvent('paste', init));
        """,
        json.dumps(other),
    )
    page.wait_ruling(before)
    assert_shows(page.shown(), api_answer(page.server, other), other)

    before = page.renders()
    box = page.driver.find_element(By.ID, "paste")
    box.clear()
    page.driver.execute_script("arguments[0].value = arguments[1]", box, json.dumps(log))
    page.driver.find_element(By.CSS_SELECTOR, "#paste-form button").click()
    page.wait_ruling(before)
    assert_shows(page.shown(), answer, log)
    no_console_errors(page)


# --- step by step -------------------------------------------------------------------------------


def engine_position(log: dict[str, Any], deal: int, events: int) -> tuple[list[list[str]], str]:
    """Every seat's cards after the first ``events`` events of deal ``deal``, and the score
    then (by side in pairs), by the engine."""
    cut = copy.deepcopy(log)
    cut["deals"] = cut["deals"][: deal + 1]
    cut["deals"][deal]["events"] = cut["deals"][deal].get("events", [])[:events]
    match = arbiter.replay(cut).match
    state = match.deals[-1].state
    notation = log.get("notation", "spanish")
    hands = [sorted(format_card(c, notation) for c in cards_of(hand)) for hand in state.hands]
    totals = state.totals()
    groups = sides(match.header.ruleset, len(totals))
    return hands, ",".join(str(sum(totals[s] for s in g)) for g in groups)


READ_STEP = """
const stepper = document.querySelector(`[data-deal="${arguments[0]}"] .stepper`);
return {
  hidden: stepper.hidden,
  step: stepper.dataset.step === undefined ? null : Number(stepper.dataset.step),
  hands: [...stepper.querySelectorAll('[data-hand]')].map((hand) =>
    [...hand.querySelectorAll('.card')].map((c) => c.dataset.card)),
  nextPlay: [...stepper.querySelectorAll('.card.next-play')].map((c) => c.dataset.card),
  correct: [...stepper.querySelectorAll('.hand .card.correct')].map((c) => c.dataset.card),
  text: stepper.querySelector('.step-text')?.textContent ?? '',
  score: stepper.querySelector('.step-score')?.dataset.running ?? null,
};
"""


@pytest.mark.parametrize(
    ("name", "deal"),
    [("tute-2p-match.json", 2), ("tute-4p-renuncio.json", 1), ("tute-2p-illegal.json", 0)],
)
def test_step_through_a_deal(page: Page, name: str, deal: int) -> None:
    """Every step's hands and score are the engine's; arrows, Home and End move; renuncios and
    the illegal event are shown where they happen."""
    log = load(name)
    answer = api_answer(page.server, log)
    page.open("?lang=en", fragment(json.dumps(log)))
    page.wait_ruling(0)
    read = lambda: page.driver.execute_script(READ_STEP, deal)  # noqa: E731
    assert read()["hidden"], "the steps are closed until asked for"
    page.driver.find_element(By.CSS_SELECTOR, f'[data-deal="{deal}"] .step-toggle').click()
    events = log["deals"][deal]["events"]
    illegal = answer["illegal"]
    stop = illegal["event"] if illegal and illegal["deal"] == deal else len(events)
    violations = {v["event"]: v for v in answer["deals"][deal]["violations"]}
    for step in range(stop + 1):
        shown = read()
        assert shown["step"] == step
        hands, score = engine_position(log, deal, step)
        assert [sorted(h) for h in shown["hands"]] == hands, step
        assert shown["score"] == score, step
        event = events[step] if step < len(events) else None
        if step < stop and event["type"] == "play":
            assert shown["nextPlay"] == [event["card"]], step
        if step in violations:
            assert sorted(shown["correct"]) == sorted(violations[step]["correct"]), step
            assert violations[step]["message"] in shown["text"]
        if step == stop and illegal and illegal["deal"] == deal:
            assert illegal["message"] in shown["text"]
        page.keys(Keys.ARROW_RIGHT)
    assert read()["step"] == stop, "no step past the end"
    page.keys(Keys.ARROW_LEFT)
    assert read()["step"] == stop - 1
    page.keys(Keys.HOME)
    assert read()["step"] == 0
    page.keys(Keys.END)
    assert read()["step"] == stop
    page.driver.find_element(By.CSS_SELECTOR, '[data-step-move="first"]').click()
    assert read()["step"] == 0
    page.driver.find_element(By.CSS_SELECTOR, '[data-step-move="next"]').click()
    assert read()["step"] == 1
    page.driver.find_element(By.CSS_SELECTOR, f'[data-deal="{deal}"] .step-toggle').click()
    assert read()["hidden"]
    assert_shows(page.shown(), answer, log)  # stepping left the ruling as it was
    no_console_errors(page)


# --- languages ----------------------------------------------------------------------------------


def test_switching_language(page: Page) -> None:
    log = load("tute-4p-renuncio.json")
    page.open("?lang=en", fragment(json.dumps(log)))
    page.wait_ruling(0)
    assert_shows(page.shown(), api_answer(page.server, log, "en"), log)
    before = page.renders()
    page.driver.find_element(By.CSS_SELECTOR, '[data-lang-switch="es"]').click()
    page.wait_ruling(before)
    shown = page.shown()
    assert shown["lang"] == "es"
    assert_shows(shown, api_answer(page.server, log, "es"), log)
    url = urlsplit(page.driver.current_url)
    assert parse_qs(url.query)["lang"] == ["es"] and url.fragment.startswith("log=")
    title = page.driver.find_element(By.CSS_SELECTOR, 'h1[data-t="title"]').text
    assert title == UI["es"]["title"]
    label = page.driver.find_element(By.CSS_SELECTOR, "label[for=log-file]").text
    assert label == UI["es"]["load.file"]
    # A reload keeps the language (it is in the address) and the log (in the fragment).
    page.driver.refresh()
    page.until(lambda d: d.execute_script("return document.documentElement.dataset.ready"))
    page.wait_ruling(0)
    assert page.shown()["lang"] == "es"
    no_console_errors(page)


def test_the_browsers_language_decides_without_lang(page: Page) -> None:
    agent = page.driver.execute_script("return navigator.userAgent")
    page.driver.execute_cdp_cmd(
        "Emulation.setUserAgentOverride", {"userAgent": agent, "acceptLanguage": "es-ES,es"}
    )
    try:
        page.open()
        assert page.driver.execute_script("return document.documentElement.lang") == "es"
        log = load("tute-2p-illegal.json")
        page.pick_file(EXAMPLES_DIR / "tute-2p-illegal.json")
        assert_shows(page.shown(), api_answer(page.server, log, "es"), log)
        page.open("?lang=en")
        assert page.driver.execute_script("return document.documentElement.lang") == "en"
    finally:
        page.driver.execute_cdp_cmd(
            "Emulation.setUserAgentOverride", {"userAgent": agent, "acceptLanguage": "en-GB,en"}
        )


# --- safety -------------------------------------------------------------------------------------

HOSTILE = [
    "<script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned = 2">',
    '"><svg onload="window.__pwned = 3">',
    "ana & <b>bea</b>",
]


def test_player_names_are_only_text(page: Page) -> None:
    log = load("tute-4p-renuncio.json")
    log["players"] = list(HOSTILE)
    answer = api_answer(page.server, log)
    page.open("?lang=en")
    before = page.renders()
    page.driver.execute_script(
        "document.getElementById('paste').value = arguments[0]", json.dumps(log)
    )
    page.driver.find_element(By.CSS_SELECTOR, "#paste-form button").click()
    page.wait_ruling(before)
    assert_shows(page.shown(), answer, log)
    found = page.driver.execute_script(
        """
        const ruling = document.getElementById('ruling');
        return {
          pwned: window.__pwned ?? null,
          elements: ruling.querySelectorAll('script, img, b, [onerror], [onload]').length,
          foreignSvg: [...ruling.querySelectorAll('svg')].filter((s) => !s.closest('.card')).length,
          text: ruling.textContent,
        };
        """
    )
    assert found["pwned"] is None
    assert found["elements"] == 0 and found["foreignSvg"] == 0
    for name in HOSTILE:
        assert name in found["text"], name
    with pytest.raises(NoAlertPresentException):
        page.driver.switch_to.alert.text  # noqa: B018
    no_console_errors(page)


def test_bad_input_is_explained(page: Page) -> None:
    page.open("?lang=en")
    before = page.renders()
    page.driver.execute_script("document.getElementById('paste').value = '{not json'")
    page.driver.find_element(By.CSS_SELECTOR, "#paste-form button").click()
    page.wait_ruling(before, state="error")
    assert "This is not JSON" in page.driver.find_element(By.ID, "ruling").text

    log = load("tute-3p.json")
    log["deals"][0]["hands"][0][0] = "99X"
    before = page.renders()
    page.driver.execute_script(
        "document.getElementById('paste').value = arguments[0]", json.dumps(log)
    )
    page.driver.find_element(By.CSS_SELECTOR, "#paste-form button").click()
    page.wait_ruling(before, state="error")
    problem = page.driver.find_element(By.ID, "ruling").text
    assert "422" in problem and "/deals/0/hands/0/0" in problem and "99X" in problem

    page.open("", "#log=%%%not-base64")
    page.wait_ruling(0, state="error")
    assert "base64url" in page.driver.find_element(By.ID, "ruling").text
    no_console_errors(page, allowed=("status of 422",))


def test_an_api_key_is_asked_for_when_the_server_needs_one(browser: WebDriver) -> None:
    with gunicorn_support.serving("arbiter-browser-keys-", ARBITER_API_KEYS="page-key-1") as keyed:
        page = Page(browser, keyed)
        page.open("?lang=en")
        before = page.renders()
        page.driver.find_element(By.ID, "log-file").send_keys(str(EXAMPLES_DIR / "tute-3p.json"))
        page.wait_ruling(before, state="error")
        assert "401" in page.driver.find_element(By.ID, "ruling").text
        assert page.driver.find_element(By.ID, "key-form").is_displayed()
        before = page.renders()
        page.driver.find_element(By.ID, "api-key").send_keys("page-key-1")
        page.driver.find_element(By.CSS_SELECTOR, "#key-form button").click()
        page.wait_ruling(before)
        log = load("tute-3p.json")
        expected = gunicorn_support.post_json(
            keyed.port, "/v1/replays", log, {"X-API-Key": "page-key-1"}
        ).json()
        assert_shows(page.shown(), expected, log)
        assert not page.driver.find_element(By.ID, "key-form").is_displayed()
        page.console_errors()  # the 401 is logged by the browser, as it should be


def test_nothing_is_requested_from_another_host(page: Page) -> None:
    """A whole session — page, example list, a link, steps, language, print — asks this server
    only (Chrome's DevTools network events), and breaks no Content-Security-Policy rule."""
    page.requests()  # drain what earlier tests left
    log = load("tute-2p-match.json")
    page.open("?lang=en", fragment(json.dumps(log)))
    page.wait_ruling(0)
    before = page.renders()
    Select(page.driver.find_element(By.ID, "example")).select_by_value("tute-4p-renuncio.json")
    page.wait_ruling(before)
    page.driver.find_element(By.CSS_SELECTOR, '[data-deal="1"] .step-toggle').click()
    page.keys(Keys.END)
    before = page.renders()
    page.driver.find_element(By.CSS_SELECTOR, '[data-lang-switch="es"]').click()
    page.wait_ruling(before)
    for path in ("/docs/rules", "/docs/api", "/docs/"):
        page.driver.get(page.origin + path)
        page.until(lambda d: d.execute_script("return document.readyState") == "complete")
    time.sleep(0.3)  # let late subresources (Swagger UI fetches the contract) show up
    urls = page.requests()
    assert any(u.endswith("/v1/replays") for u in urls)
    assert any("/examples/tute-4p-renuncio.json" in u for u in urls)
    foreign = [u for u in urls if urlsplit(u).netloc != urlsplit(page.origin).netloc]
    assert not [u for u in foreign if not u.startswith(("data:", "about:", "blob:"))], foreign
    csp = [e for e in page.console_errors() if "Content Security Policy" in e["message"]]
    assert not csp, csp


def test_printing_shows_the_ruling_only(page: Page) -> None:
    log = load("tute-2p-match.json")
    page.open("?lang=es", fragment(json.dumps(log)))
    page.wait_ruling(0)
    page.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    layout = page.driver.execute_script(
        """
        const shown = (el) => el && getComputedStyle(el).display !== 'none';
        return {
          controls: shown(document.querySelector('.controls')),
          header: shown(document.querySelector('header.site')),
          toggles: [...document.querySelectorAll('.step-toggle')].some(shown),
          tricks: [...document.querySelectorAll('[data-trick]')].every(shown),
          violations: [...document.querySelectorAll('[data-violation]')].every(shown),
          outcomes: [...document.querySelectorAll('[data-outcome]')].every(shown),
        };
        """
    )
    assert layout == {
        "controls": False,
        "header": False,
        "toggles": False,
        "tricks": True,
        "violations": True,
        "outcomes": True,
    }
    pdf = page.driver.execute_cdp_cmd("Page.printToPDF", {"printBackground": True})
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / "tute-2p-match-print.pdf").write_bytes(base64.b64decode(pdf["data"]))
    assert os.path.getsize(SCREENSHOTS / "tute-2p-match-print.pdf") > 10_000
