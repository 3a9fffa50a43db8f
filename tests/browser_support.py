"""The pages in a real browser, for tests/test_browser.py (the ruling view) and
tests/test_editor.py (the table editor): Debian's Chromium, headless, driven through Debian's
chromedriver by Selenium, against the app under gunicorn with the shipped configuration.

gunicorn (one worker, a free loopback port) rather than a werkzeug thread: it is what ``make run``
and the container serve, so the pages, their static files and their headers are tested as users
get them. One server and one browser serve a whole test module; every wait is bounded.

Chromium and chromedriver come from Debian (``apt-get install chromium chromium-driver``, which
``.ci/run`` does when they are missing). Selenium is given both paths, so Selenium Manager never
looks for, let alone downloads, a browser or a driver. Without them these tests fail, never skip.

Accessibility is checked by axe-core (the npm package ``axe-core``, its minified build and
licence vendored for the tests only in ``tests/vendor/axe-core/``; the pages never load it).
"""

from __future__ import annotations

import base64
import json
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.support.ui import WebDriverWait

from arbiter.engine.cards import card_codes
from arbiter.i18n import LANGS, area
from tests import gunicorn_support
from tests.api_support import EXAMPLES_DIR, ROOT
from tests.gunicorn_support import Gunicorn

UI = {lang: area(lang, "page") for lang in LANGS}

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
ARTIFACTS = ROOT / "test-artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
AXE = ROOT / "tests" / "vendor" / "axe-core" / "axe.min.js"
WAIT = 15.0  # seconds for any one thing a page must do
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
    driver.set_script_timeout(60)
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
    """A page of the app in the module's browser, and what it shows."""

    def __init__(self, driver: WebDriver, server: Gunicorn) -> None:
        self.driver = driver
        self.server = server
        self.origin = f"http://{gunicorn_support.HOST}:{server.port}"

    def open(self, query: str = "", fragment: str = "", path: str = "/") -> None:
        """A fresh load of a page (never a mere change of the fragment)."""
        self.driver.get("about:blank")
        self.driver.get(f"{self.origin}{path}{query}{fragment}")
        self.until(lambda d: d.execute_script("return document.documentElement.dataset.ready"))

    def until(self, check: Callable[[WebDriver], Any], what: str = "the page") -> Any:
        try:
            return WebDriverWait(self.driver, WAIT, poll_frequency=0.02).until(check)
        except TimeoutException:
            state = self.driver.execute_script(
                "const r = document.getElementById('ruling') || document.getElementById('editor');"
                "return r ? JSON.stringify(r.dataset) + ': ' + r.textContent.slice(0, 400) : '-'"
            )
            raise AssertionError(f"{what} did not happen within {WAIT} s ({state})") from None

    def renders(self) -> int:
        value = self.driver.execute_script(
            "return document.getElementById('ruling').dataset.render || '0'"
        )
        return int(value)

    def wait_ruling(self, before: int, state: str = "ready") -> None:
        def done(driver: WebDriver) -> bool:
            ruling = driver.find_element("id", "ruling")
            rendered = int(ruling.get_attribute("data-render") or 0) > before
            return rendered and ruling.get_attribute("data-state") in ("ready", "error")

        self.until(done, "the ruling")
        got = self.driver.find_element("id", "ruling").get_attribute("data-state")
        assert got == state, self.driver.find_element("id", "ruling").text[:800]

    def shown(self) -> dict[str, Any]:
        """What the ruling view shows (:data:`READ_RULING`)."""
        return self.driver.execute_script(READ_RULING)  # type: ignore[no-any-return]

    def pick_file(self, path: Path) -> None:
        before = self.renders()
        self.driver.find_element("id", "log-file").send_keys(str(path))
        self.wait_ruling(before)

    def keys(self, *keys: str) -> None:
        """Keys typed by the user (to whatever has the focus, as a person types)."""
        ActionChains(self.driver).send_keys(*keys).perform()

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

    def viewport(self, metrics: dict[str, Any]) -> None:
        """Emulate a window of this size (until the test ends)."""
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)

    def screenshot(self, name: str, metrics: dict[str, Any], keep: bool = False) -> Path:
        """A full-page PNG at the given viewport, under test-artifacts/screenshots/; with
        ``keep`` the viewport stays emulated afterwards."""
        self.viewport(metrics)
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
        if not keep:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        return path

    def axe(self) -> list[dict[str, Any]]:
        """axe-core's serious and critical violations of WCAG 2.x A and AA on the page as it is
        now (with every rule axe has for them, colour contrast included)."""
        self.driver.execute_script(AXE.read_text(encoding="utf-8") + "\n;return true;")
        found: list[dict[str, Any]] = self.driver.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];
            axe.run(document, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})
              .then((r) => done(r.violations.map((v) => ({
                id: v.id, impact: v.impact, help: v.help,
                nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
              }))))
              .catch((e) => done([{id: 'axe', impact: 'critical', help: String(e), nodes: []}]));
            """
        )
        return [v for v in found if v["impact"] in ("serious", "critical")]


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
    folded: deal.classList.contains('folded'),
    foldExpanded: deal.querySelector('.fold').getAttribute('aria-expanded'),
    line: text(deal.querySelector('.fold-line')),
    outcomeBackground: deal.querySelector('[data-outcome]')
      ? getComputedStyle(deal.querySelector('[data-outcome]')).backgroundColor : null,
  })),
  summary: [...ruling.querySelectorAll('[data-summary-deal]')].map((a) => ({
    deal: Number(a.dataset.summaryDeal),
    trick: a.dataset.summaryTrick === undefined ? null : Number(a.dataset.summaryTrick),
    text: a.textContent, href: a.getAttribute('href'),
  })),
  count: text(ruling.querySelector('.summary .count')),
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


def fragment(log_text: str, padding: bool = False, place: str = "") -> str:
    encoded = base64.urlsafe_b64encode(log_text.encode()).decode()
    return "#log=" + (encoded if padding else encoded.rstrip("=")) + place


def no_console_errors(page: Page, allowed: tuple[str, ...] = ()) -> None:
    errors = [e for e in page.console_errors() if not any(a in e["message"] for a in allowed)]
    assert not errors, errors


# --- the log a page's address holds ------------------------------------------------------------

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _b64json(encoded: str) -> Any:
    return json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))


def _compact_events(text: str, codes: tuple[str, ...], holder: dict[str, int]) -> list[Any]:
    events: list[Any] = []
    i = 0
    while i < len(text):
        mark = text[i]
        if mark == "~":
            events.append(
                {
                    "type": "play",
                    "seat": int(text[i + 1]),
                    "card": codes[ALPHABET.index(text[i + 2])],
                }
            )
            i += 3
        elif mark == "!":
            events.append({"type": "sing", "seat": int(text[i + 1]), "suit": text[i + 2]})
            i += 3
        elif mark == "^":
            of = "kings" if text[i + 2] == "k" else "horses"
            events.append({"type": "tute", "seat": int(text[i + 1]), "of": of})
            i += 3
        elif mark == "*":
            events.append({"type": "exchange", "seat": int(text[i + 1])})
            i += 2
        else:
            events.append(
                {"type": "play", "seat": holder[mark], "card": codes[ALPHABET.index(mark)]}
            )
            i += 1
    return events


def _compact_deal(text: str, codes: tuple[str, ...]) -> dict[str, Any]:
    dealer, *segments = text.split(".")
    deal: dict[str, Any] = {} if dealer == "-" else {"dealer": int(dealer)}

    def cards(chars: str) -> list[str]:
        return [codes[ALPHABET.index(c)] for c in chars]

    holder: dict[str, int] = {}
    for segment in segments:
        kind, body = segment[0], segment[1:]
        if kind == "D":
            deal["deck"] = cards(body)
        elif kind == "H":
            hands = body.split(",")
            holder = {c: seat for seat, hand in enumerate(hands) for c in hand}
            deal["hands"] = [cards(hand) for hand in hands]
        elif kind == "S":
            deal["stock"] = cards(body)
        elif kind == "T":
            deal["trump_card"] = cards(body)[0]
        elif kind == "E":
            deal["events"] = _compact_events(body, codes, holder)
        elif kind == "U":
            deal["unknown"] = cards(body)
    return deal


def address_log(fragment_: str) -> dict[str, Any]:
    """The log an address's fragment holds: ``log=`` (base64url of the JSON) or the compact
    ``c=`` of docs/api.md, read here independently of the page's own reader."""
    payload = fragment_.split("&", maxsplit=1)[0]
    if payload.startswith("log="):
        found: dict[str, Any] = _b64json(payload.removeprefix("log="))
        return found
    data = _b64json(payload.removeprefix("c="))
    assert data["v"] == 1
    codes = card_codes("french" if data.get("n") == "french" else "spanish")
    log: dict[str, Any] = {"ruleset": data["r"], "players": data["p"]}
    for key, field in (("o", "options"), ("n", "notation"), ("t", "details")):
        if key in data:
            log[field] = data[key]
    log["deals"] = [_compact_deal(deal, codes) for deal in data["d"]]
    return log
