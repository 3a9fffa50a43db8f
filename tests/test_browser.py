"""The referee's page (the ruling view at ``/``) in a real browser: Debian's Chromium, headless,
through Selenium, against the app under gunicorn (tests/browser_support.py).

Each bundled example is opened through the file picker and through ``#log=`` and what the page
shows — the ruling first (one sentence per deal with a verdict, each a link to its trick; the
first renuncio in view and focused on load; deals without incident folded to one line), deals,
tricks with leader and winner, renuncios with the cards that were correct, the running and final
scores, outcomes (a renuncio's not green), illegal event, match standing — is checked against
the API's own answer for the same log. A deal is stepped through with the keyboard and its hands
compared, step by step, with the engine's, the renuncio highlight at the renuncio step and only
there; "what if" at a step asks the referee. Language switching, drag and drop, paste, errors,
escaping of player names, the API key prompt and print layout are checked too; axe-core finds no
serious or critical violation; the browser's network log must show no request to any other
host, and its console no error. Screenshots of every example, desktop and phone sized, are
written to ``test-artifacts/screenshots/`` (not committed).
"""

from __future__ import annotations

import base64
import copy
import json
import os
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

import arbiter
from arbiter.engine.cards import cards_of, format_card
from arbiter.engine.rulesets import RULESETS
from arbiter.engine.scoring import sides
from tests import gunicorn_support
from tests.api_support import EXAMPLES_DIR
from tests.browser_support import (
    DESKTOP,
    EXAMPLES,
    PHONE,
    SCREENSHOTS,
    UI,
    Page,
    address_log,
    api_answer,
    browser,
    fragment,
    load,
    no_console_errors,
    page,
    server,
)

__all__ = ["browser", "page", "server"]  # the fixtures this module uses

# A headless Chromium drives the page served by a live gunicorn: not in the quick loop.
pytestmark = pytest.mark.slow


OK_GREEN = "rgb(232, 245, 236)"  # --ok-bg of referee.css


def names_of(answer: dict[str, Any], seats: list[int]) -> list[str]:
    return [answer["match"]["standings"][s]["player"] for s in seats]


def assert_summary(shown: dict[str, Any], answer: dict[str, Any], log: dict[str, Any]) -> None:
    """The ruling first: one link per renuncio (in the sentence of its deal) and per illegal
    event, each to its place; the counts in words."""
    lang = shown["lang"]
    expected = []
    for index, deal in enumerate(answer["deals"]):
        for v in deal["violations"]:
            expected.append((index, v["trick"]))
        if answer["illegal"] and answer["illegal"]["deal"] == index:
            expected.append((index, None))
    if answer["illegal"] and answer["illegal"]["deal"] >= len(answer["deals"]):
        expected.append((answer["illegal"]["deal"], None))
    assert [(s["deal"], s["trick"]) for s in shown["summary"]] == expected
    for link in shown["summary"]:
        assert link["href"].startswith("#c=")  # the short form (docs/api.md)
        assert link["href"].endswith(
            f"&deal={link['deal'] + 1}"
            + ("" if link["trick"] is None else f"&trick={link['trick'] + 1}")
        )
    deals = len(answer["deals"])
    count = UI[lang]["ruling.deals.one" if deals == 1 else "ruling.deals.other"]
    assert shown["count"].startswith(count.format(count=deals))
    assert "(s)" not in shown["count"]


def assert_shows(shown: dict[str, Any], answer: dict[str, Any], log: dict[str, Any]) -> None:
    """The page shows exactly the ruling of ``answer`` (the API's body for ``log``)."""
    ruleset = RULESETS[log["ruleset"]].to_dict()
    assert shown["status"] == answer["status"]
    assert shown["shadowRoots"] == 0
    assert shown["cardsWithHooks"] == 0, "a hook sits on a card"
    assert len(shown["deals"]) == len(answer["deals"])
    total_violations = 0
    illegal = answer["illegal"]
    for index, (deal, expected) in enumerate(zip(shown["deals"], answer["deals"], strict=True)):
        where = f"deal {index}"
        assert deal["index"] == index
        assert not deal["stepperOpen"], "stepping must be opt-in"
        incident = bool(expected["violations"]) or (
            illegal is not None and illegal["deal"] == index
        )
        # the deals without incident are folded to one line (their tricks in the page, hidden)
        assert deal["folded"] == (not incident) and deal["foldExpanded"] == str(incident).lower()
        outcome = expected["outcome"]
        if outcome is not None and outcome["winners"]:
            assert all(
                shown_name in deal["line"] for shown_name in names_of(answer, outcome["winners"])
            )
        assert [t["index"] for t in deal["tricks"]] == list(range(len(expected["tricks"])))
        for trick, want in zip(deal["tricks"], expected["tricks"], strict=True):
            at = f"{where}, trick {trick['index']}"
            assert [(p["seat"], p["card"]) for p in trick["plays"]] == [
                (p["seat"], p["card"]) for p in want["plays"]
            ], at
            assert all(p["visible"] != deal["folded"] for p in trick["plays"]), at
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
            # a deal decided by a renuncio is not shown as a green, good outcome
            green = deal["outcomeBackground"] == OK_GREEN
            assert green == (expected["outcome"]["reason"] != "renuncio") or deal["folded"], where
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
        if illegal is not None and illegal["deal"] == index:
            assert deal["illegal"] == {"code": illegal["code"], "message": illegal["message"]}
        else:
            assert deal["illegal"] is None, where
    assert shown["violationElements"] == total_violations, "one element per renuncio"
    expected_illegal = [] if answer["illegal"] is None else [answer["illegal"]["code"]]
    assert shown["illegalElements"] == expected_illegal
    assert shown["outcomeElements"] == sum(d["outcome"] is not None for d in answer["deals"])
    assert_summary(shown, answer, log)

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


# --- opening the examples -----------------------------------------------------------------------


@pytest.mark.parametrize("name", EXAMPLES)
def test_each_example_through_the_file_picker(page: Page, name: str) -> None:
    log = load(name)
    page.open("?lang=en")
    page.pick_file(EXAMPLES_DIR / name)
    assert_shows(page.shown(), api_answer(page.server, log, "en"), log)
    # The ruling can be shared: the address now carries the log.
    url = urlsplit(page.driver.current_url)
    assert url.fragment.startswith("c=")  # the short form of docs/api.md
    assert address_log(url.fragment) == {k: v for k, v in log.items() if k != "description"}
    assert len(page.driver.current_url) < len(fragment(json.dumps(log)))
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
  // the step line marked as a renuncio (its class, what the stylesheet paints red)
  renuncioLine: [...stepper.querySelectorAll('.step-text .next-event.renuncio')].map((line) =>
    getComputedStyle(line).color),
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
        # the renuncio is highlighted at its step, in the alert colour, and at no other step
        assert shown["renuncioLine"] == (["rgb(179, 38, 30)"] if step in violations else []), step
        if step in violations:
            assert sorted(shown["correct"]) == sorted(violations[step]["correct"]), step
            assert violations[step]["message"] in shown["text"]
            assert UI["en"]["step.renuncio"] in shown["text"]  # in words too, not colour alone
        else:
            assert not shown["correct"], step
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
    # an old link stays as it was
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
    assert "422 Invalid log" in problem
    # one message per problem: the error's message once (not again as the problem's detail)
    answer = gunicorn_support.post_json(page.server.port, "/v1/replays", log)
    (error,) = answer.json()["errors"]
    assert problem.count(error["message"]) == 1 and "/deals/0/hands/0/0" in problem

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
    assert any(u.endswith("/v1/openapi.yaml") for u in urls)  # Swagger UI ran under its CSP
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
        const shown = (el) => el !== null && el.getClientRects().length > 0;  // laid out
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


# --- the ruling first ---------------------------------------------------------------------------

# Where an element is in the window: its top and bottom against the window's height.
IN_VIEW = """
const box = arguments[0].getBoundingClientRect();
return {top: box.top, bottom: box.bottom, height: innerHeight, scrollY: scrollY,
        focused: document.activeElement === arguments[0]};
"""

WITH_RENUNCIO = [
    n for n in EXAMPLES if any(d["violations"] for d in arbiter.replay(load(n)).to_dict()["deals"])
]


def in_view(page: Page, css: str) -> dict[str, Any]:
    found: dict[str, Any] = page.driver.execute_script(
        IN_VIEW, page.driver.find_element(By.CSS_SELECTOR, css)
    )
    return found


@pytest.mark.parametrize("metrics", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("name", EXAMPLES)
def test_the_ruling_sentence_is_in_the_first_screen_on_load(
    page: Page, name: str, metrics: dict[str, Any]
) -> None:
    """On load the first renuncio's sentence is in the first screen, whole, and focused (a tap
    on it leads to the trick), its deal unfolded, when the log has one; the page is at the top
    when it has none."""
    log = load(name)
    answer = api_answer(page.server, log)
    page.viewport(metrics)
    page.open("?lang=en", fragment(json.dumps(log)))
    page.wait_ruling(0)
    first = next(
        ((i, d["violations"][0]) for i, d in enumerate(answer["deals"]) if d["violations"]), None
    )
    if first is None:
        assert page.driver.execute_script("return scrollY") == 0 or answer["illegal"], name
        return
    index, violation = first
    sentence = f'[data-summary-deal="{index}"][data-summary-trick="{violation["trick"]}"]'
    where = in_view(page, sentence)
    assert where["focused"], "the first renuncio's sentence has the focus"
    assert where["top"] >= 0 and where["bottom"] <= where["height"], where
    assert "folded" not in str(
        page.driver.find_element(By.ID, f"deal-{index + 1}").get_attribute("class")
    )


@pytest.mark.parametrize("metrics", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("name", WITH_RENUNCIO)
def test_the_summary_links_land_on_the_trick(
    page: Page, name: str, metrics: dict[str, Any]
) -> None:
    """Each sentence of the ruling is a link: it opens its deal, scrolls its trick into the
    window and gives it the focus, and the address says where (``&deal=…&trick=…``)."""
    log = load(name)
    page.viewport(metrics)
    page.open("?lang=en", fragment(json.dumps(log)))
    page.wait_ruling(0)
    links = page.driver.find_elements(By.CSS_SELECTOR, "[data-summary-deal][data-summary-trick]")
    assert links
    for i in range(len(links)):
        page.driver.execute_script("scrollTo(0, 0)")
        link = page.driver.find_elements(
            By.CSS_SELECTOR, "[data-summary-deal][data-summary-trick]"
        )[i]
        deal, trick = (
            int(link.get_attribute("data-summary-deal")),
            int(link.get_attribute("data-summary-trick")),
        )
        link.click()
        where = in_view(page, f"#deal-{deal + 1}-trick-{trick + 1}")
        assert where["focused"] and 0 <= where["top"] < where["height"] and where["scrollY"] > 0, (
            where
        )
        assert (
            not page.driver.find_element(By.ID, f"deal-{deal + 1}")
            .get_attribute("class")
            .count("folded")
        )
        assert urlsplit(page.driver.current_url).fragment.endswith(
            f"&deal={deal + 1}&trick={trick + 1}"
        )
    # the address, opened again, lands at the last place
    url = page.driver.current_url
    page.open("", "#" + urlsplit(url).fragment)
    page.wait_ruling(0)
    assert in_view(page, f"#deal-{deal + 1}-trick-{trick + 1}")["focused"]
    no_console_errors(page)


def test_a_link_with_a_place_opens_a_folded_deal_there(page: Page) -> None:
    """``#log=…&deal=2&trick=5`` opens deal 2 (folded: it has no incident) at its trick 5; a
    folded deal opens and closes on a tap, and says how it ended on its one line."""
    log = load("tute-2p-match.json")
    page.open("?lang=en", fragment(json.dumps(log), place="&deal=2&trick=5"))
    page.wait_ruling(0)
    assert in_view(page, "#deal-2-trick-5")["focused"]
    shown = page.shown()
    assert not shown["deals"][1]["folded"] and shown["deals"][0]["folded"]
    answer = api_answer(page.server, log)
    outcome = answer["deals"][0]["outcome"]
    assert shown["deals"][0]["line"] == UI["en"]["deal.line"].format(
        winners=" + ".join(names_of(answer, outcome["winners"])),
        losers=" + ".join(names_of(answer, outcome["losers"])),
        how=UI["en"][f"reason.{outcome['reason']}"],
    )
    fold = page.driver.find_element(By.CSS_SELECTOR, '[data-deal="0"] .fold')
    fold.click()
    assert (
        page.shown()["deals"][0]["folded"] is False
        and fold.get_attribute("aria-expanded") == "true"
    )
    fold.click()
    assert page.shown()["deals"][0]["folded"] is True
    no_console_errors(page)


def test_what_if_at_a_step_asks_the_referee(page: Page) -> None:
    """At the renuncio's step, "what if" offers the seat's cards: the card played is the
    renuncio the ruling found, a correct card is allowed; the deal as played stays as it is."""
    log = load("tute-2p-match.json")
    answer = api_answer(page.server, log)
    violation = answer["deals"][2]["violations"][0]
    page.open("?lang=en", fragment(json.dumps(log)))
    page.wait_ruling(0)
    page.driver.find_element(By.CSS_SELECTOR, '[data-deal="2"] .step-toggle').click()
    for _ in range(violation["event"]):
        page.driver.find_element(By.CSS_SELECTOR, '[data-step-move="next"]').click()
    page.driver.find_element(By.CSS_SELECTOR, '.stepper [data-action="whatif"]').click()

    def verdict_after(card: str) -> dict[str, Any]:
        page.driver.find_element(By.CSS_SELECTOR, f'.stepper [data-whatif-card="{card}"]').click()
        box = page.until(
            lambda d: d.find_element(By.CSS_SELECTOR, ".stepper [data-verdict]"), "a verdict"
        )
        found: dict[str, Any] = {"verdict": box.get_attribute("data-verdict"), "text": box.text}
        page.driver.execute_script(
            "document.querySelector('.stepper .verdict-box').replaceChildren()"
        )
        return found

    played = verdict_after(violation["card"])
    assert played["verdict"] == "renuncio" and violation["message"] in played["text"]
    assert verdict_after(violation["correct"][0])["verdict"] == "ok"
    link = page.driver.find_element(By.CSS_SELECTOR, ".stepper a.play-on").get_attribute("href")
    assert urlsplit(link).path == "/enter" and urlsplit(link).fragment.endswith(
        f"&deal=3&event={violation['event']}"
    )
    page.driver.find_element(By.CSS_SELECTOR, '[data-deal="2"] .step-toggle').click()
    assert_shows(page.shown(), answer, log)
    no_console_errors(page)


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_passes_axe(page: Page, name: str) -> None:
    """axe-core: no serious or critical violation of WCAG A/AA, as loaded, with every deal open,
    and with a deal's steps and "what if" open — in both languages."""
    log = load(name)
    for lang in LANGS_OF_THE_PAGE:
        page.open(f"?lang={lang}", fragment(json.dumps(log)))
        page.wait_ruling(0)
        assert page.axe() == [], (lang, "as loaded")
        page.driver.execute_script(
            "document.querySelectorAll('.deal.folded .fold').forEach((b) => b.click())"
        )
        page.driver.find_element(By.CSS_SELECTOR, ".step-toggle").click()
        if page.driver.find_elements(By.CSS_SELECTOR, '.stepper [data-action="whatif"]'):
            page.driver.find_element(By.CSS_SELECTOR, '.stepper [data-action="whatif"]').click()
        assert page.axe() == [], (lang, "every deal open, steps and what if open")
    no_console_errors(page)


def test_the_spanish_page_links_the_rules_in_spanish(page: Page) -> None:
    log = load("tute-4p-renuncio.json")
    page.open("?lang=es", fragment(json.dumps(log)))
    page.wait_ruling(0)
    nav = page.driver.find_element(
        By.CSS_SELECTOR, 'header.site a[data-t="nav.rules"]'
    ).get_attribute("href")
    assert urlsplit(nav).path == "/docs/rules" and parse_qs(urlsplit(nav).query)["lang"] == ["es"]
    rule = page.driver.find_element(By.CSS_SELECTOR, ".violation a").get_attribute("href")
    assert parse_qs(urlsplit(rule).query)["lang"] == ["es"]
    page.driver.find_element(By.CSS_SELECTOR, ".violation a").click()
    page.until(lambda d: d.execute_script("return document.readyState") == "complete")
    assert page.driver.find_element(By.TAG_NAME, "h1").text == "Las reglas que aplica el árbitro"
    heading = page.driver.find_element(By.ID, urlsplit(rule).fragment)
    assert heading.text.startswith("3. Obligaciones de juego")
    no_console_errors(page)


LANGS_OF_THE_PAGE = ("en", "es")
