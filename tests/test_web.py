"""The referee's page and the documentation pages, over the Flask test client.

What a browser is not needed for: the pages (the ruling view at ``/``, the table editor at
``/enter``) and their assets are served from this origin only, under their own
Content-Security-Policy, with no inline script or style; the language follows ``?lang=`` and
``Accept-Language``; the bundled examples and the rendered documents are served (also from a
wheel: the package data holds them), the rules in English and in Spanish; the words of the pages
exist in both languages; and both versions of the rules name every option, illegal code and
outcome reason of the code. The pages at work in a real browser are tests/test_browser.py and
tests/test_editor.py.
"""

from __future__ import annotations

import html.parser
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from flask.testing import FlaskClient
from markupsafe import escape

from arbiter.api.schemas import OBLIGATIONS, REASONS
from arbiter.engine.cards import display_order, format_card, pack_mask, parse_card
from arbiter.engine.rulesets import MATCH_COUNTERS, RULESETS
from arbiter.engine.state import IllegalCode
from arbiter.i18n import LANGS, area, ruleset_dict
from arbiter.web import documents
from tests.api_support import EXAMPLES_DIR, ROOT, committed_spec, make_client

UI = {lang: area(lang, "page") for lang in LANGS}

WEB = ROOT / "arbiter" / "web"
DOCS = ROOT / "docs"
PAGE_CSP = (
    "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'"
)


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return make_client()


class Markup(html.parser.HTMLParser):
    """Every start tag with its attributes, and the text of each <script>."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self._script: dict[str, str | None] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "script":
            self._script = dict(attrs)
            self.scripts.append((self._script, ""))

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._script = None


def parse(text: str) -> Markup:
    parser = Markup()
    parser.feed(text)
    return parser


def local_urls(markup: Markup) -> list[str]:
    return [
        value
        for _, attrs in markup.tags
        for name, value in attrs.items()
        if name in ("src", "href") and value
    ]


# --- the page -------------------------------------------------------------------------------


def test_the_page_is_served_at_the_root(client: FlaskClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert response.headers["Content-Security-Policy"] == PAGE_CSP
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "Accept-Language" in response.headers.get("Vary", "")
    page = response.get_data(as_text=True)
    assert 'id="ruling"' in page and 'id="log-file"' in page


def test_the_page_runs_no_inline_code_and_loads_only_local_files(client: FlaskClient) -> None:
    host = "arbiter.internal:8080"
    markup = parse(client.get("/", base_url=f"http://{host}").get_data(as_text=True))
    for attrs, text in markup.scripts:
        if attrs.get("type") == "application/json":
            assert "</" not in text  # data only, and it cannot close its element
            continue
        assert attrs.get("src") and not text.strip(), f"an inline script: {text[:80]!r}"
    for tag, attrs in markup.tags:
        assert "style" not in attrs, f"<{tag} style=...>: inline styles are refused by the CSP"
        handlers = [name for name in attrs if name.startswith("on")]
        assert not handlers, f"<{tag}> has inline handlers {handlers}"
    assert not any(tag == "style" for tag, _ in markup.tags)
    urls = local_urls(markup)
    assert any(u.endswith("referee.js") for u in urls)
    assert any(u.endswith("referee.css") for u in urls)
    for url in urls:
        parts = urlsplit(url)
        assert parts.netloc in ("", host), f"{url} is on another host"
        if parts.path and not url.startswith(("?", "#")):
            answer = client.get(parts.path, base_url=f"http://{host}")
            assert answer.status_code in (200, 308), url


STATIC = sorted(p.name for p in (WEB / "static").iterdir() if p.is_file())


def test_the_scripts_are_modules_the_pages_load() -> None:
    """Every script is an ES module reached from a page's entry (referee.js, enter.js) by its
    imports: nothing in static/ is dead, and no script is loaded as a classic script."""
    scripts = {name for name in STATIC if name.endswith(".js")}
    reached: set[str] = set()
    todo = ["referee.js", "enter.js"]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        reached.add(name)
        todo += re.findall(
            r'^import [^;]* from "\./([\w-]+\.js)";$', (WEB / "static" / name).read_text(), re.M
        )
    assert reached == scripts


@pytest.mark.parametrize("asset", STATIC)
def test_static_files_have_the_page_policy(client: FlaskClient, asset: str) -> None:
    response = client.get(f"/static/{asset}")
    assert response.status_code == 200
    assert response.headers["Content-Security-Policy"] == PAGE_CSP
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.get_data() == (WEB / "static" / asset).read_bytes()


def test_scripts_never_write_markup() -> None:
    """Data reaches the DOM as text: no innerHTML, outerHTML, insertAdjacentHTML, document.write
    (the page's Trusted Types policy would refuse them, and the browser tests would see it)."""
    for script in sorted((WEB / "static").glob("*.js")):
        text = script.read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert sink not in text, f"{script.name} uses {sink}"


@pytest.mark.parametrize(
    ("query", "accept", "lang"),
    [
        ("", None, "en"),
        ("", "es-ES,es;q=0.9,en;q=0.5", "es"),
        ("?lang=en", "es", "en"),
        ("?lang=es", "en", "es"),
        ("?lang=fr", "es", "es"),
    ],
)
def test_the_page_language(client: FlaskClient, query: str, accept: str | None, lang: str) -> None:
    headers = {"Accept-Language": accept} if accept else {}
    page = client.get(f"/{query}", headers=headers).get_data(as_text=True)
    assert f'<html lang="{lang}">' in page
    assert f'<h1 data-t="title">{escape(UI[lang]["title"])}</h1>' in page  # type: ignore[index]
    editor = client.get(f"/enter{query}", headers=headers).get_data(as_text=True)
    assert f'<html lang="{lang}">' in editor
    assert escape(UI[lang]["enter.title"]) in editor  # type: ignore[index]


def test_the_editor_is_served_like_the_page(client: FlaskClient) -> None:
    """/enter: the page's policy, its data, one module script from this origin, linked from
    the header of every page."""
    response = client.get("/enter")
    assert response.status_code == 200 and response.mimetype == "text/html"
    assert response.headers["Content-Security-Policy"] == PAGE_CSP
    markup = parse(response.get_data(as_text=True))
    sources = [attrs for attrs, _ in markup.scripts if attrs.get("src")]
    assert [(a.get("type"), a["src"]) for a in sources] == [("module", "/static/enter.js")]
    (data,) = [t for attrs, t in markup.scripts if attrs.get("id") == "arbiter-data"]
    assert "</" not in data
    for tag, attrs in markup.tags:
        assert "style" not in attrs and not any(n.startswith("on") for n in attrs), tag
    for path in ("/", "/enter", "/docs/rules", "/docs/api"):
        urls = local_urls(parse(client.get(path).get_data(as_text=True)))
        assert any(u.startswith("/enter") for u in urls), path


def test_the_page_data_is_the_engines(client: FlaskClient) -> None:
    import json

    markup = parse(client.get("/").get_data(as_text=True))
    (text,) = [t for attrs, t in markup.scripts if attrs.get("id") == "arbiter-data"]
    data = json.loads(text)
    assert data["rulesets"] == {name: ruleset_dict(r) for name, r in RULESETS.items()}
    assert data["strings"] == UI
    spanish = data["cards"]["spanish"]
    assert spanish["inputs"]["4B"] == "4B" and spanish["faces"]["12C"] == [12, 1]
    assert spanish["names"]["es"]["10O"] == "la sota de oros"
    french = data["cards"]["french"]
    assert french["inputs"]["Q♥"] == "QH" and french["names"]["en"]["QH"] == "the queen of hearts"
    assert spanish["labels"]["es"]["4C"] == "cuatro de copas"  # a card's name, alone
    assert spanish["codes"] == [format_card(c) for c in range(40)]
    # the picker's pack: the engine's, for every ruleset and number of players
    for name, ruleset in RULESETS.items():
        for players in ruleset.players:
            pack = data["packs"][name][str(players)]
            assert len(pack) == ruleset.pack_size(players)
            assert pack == display_order(pack_mask(ruleset.removed_rank[players]))
    ace, two = parse_card("1O"), parse_card("2O")
    assert ace not in data["packs"]["tute-gana-pierde"]["3"]  # aces out, as rules.md §6.5 says
    assert two not in data["packs"]["tute-3p"]["3"] and ace in data["packs"]["tute-3p"]["3"]


def test_player_data_never_reaches_the_server_rendered_page(client: FlaskClient) -> None:
    """The page is the same for every log: the log stays in the browser (and in #log=)."""
    first = client.get("/?lang=en").get_data(as_text=True)
    second = client.get("/?lang=en", headers={"Referer": "http://x/#log=eyJ9"}).get_data(
        as_text=True
    )
    assert first == second


# --- the examples ---------------------------------------------------------------------------


def example_files() -> list[Path]:
    return sorted(EXAMPLES_DIR.glob("*.json"))


def test_every_example_is_offered_and_served(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    for path in example_files():
        assert f'<option value="{path.name}"' in page
        response = client.get(f"/examples/{path.name}")
        assert response.status_code == 200
        assert response.mimetype == "application/json"
        assert response.get_data() == path.read_bytes()


@pytest.mark.parametrize("name", ["nope.json", "README.md", "..%2Fpyproject.toml", "%2e%2e"])
def test_unknown_examples_are_404_problems(client: FlaskClient, name: str) -> None:
    response = client.get(f"/examples/{name}")
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"


def test_the_package_reaches_the_repositorys_examples_and_docs() -> None:
    """One copy of each file: arbiter/web/examples and arbiter/web/docs are symlinks."""
    for name in ("examples", "docs"):
        link = WEB / name
        assert link.is_symlink(), f"arbiter/web/{name} must be a symlink to ../../{name}"
        assert link.resolve() == (ROOT / name).resolve()


def docker_context() -> list[str]:
    """The paths .dockerignore lets into the image's build context."""
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    return [line[1:] for line in lines if line.startswith("!")]


def built_wheel(tmp: Path) -> zipfile.ZipFile:
    """A wheel built offline from exactly the files the container image is built from."""
    context = tmp / "context"
    for name in docker_context():
        source, target = ROOT / name, context / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
            shutil.copytree(source, target, symlinks=True, ignore=ignore)
        else:
            shutil.copy2(source, target)
    done = subprocess.run(
        [
            sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
            "--no-index", "--wheel-dir", str(tmp / "dist"), str(context),
        ],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (wheel,) = (tmp / "dist").glob("tute_arbiter-*.whl")
    return zipfile.ZipFile(wheel)


@pytest.mark.slow
def test_a_wheel_carries_the_page_examples_and_docs(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    names = set(built_wheel(tmp_path_factory.mktemp("wheel")).namelist())
    expected = {
        "arbiter/web/templates/web/referee.html",
        "arbiter/web/templates/web/enter.html",
        "arbiter/web/templates/web/cards.svg",
        *(f"arbiter/web/static/{name}" for name in STATIC),
        *(f"arbiter/web/examples/{p.name}" for p in example_files()),
        *(f"arbiter/web/docs/{f}" for f in documents.DOCUMENTS.values()),
        *(f"arbiter/web/docs/{f}" for f in documents.TRANSLATIONS.values()),
    }
    assert expected <= names, sorted(expected - names)
    assert any(n.endswith("dist-info/licenses/LICENSE") or n.endswith("/LICENSE") for n in names)


# --- the documents --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "lang"), [(name, lang) for name in sorted(documents.DOCUMENTS) for lang in LANGS]
)
def test_documents_are_served_as_html(client: FlaskClient, name: str, lang: str) -> None:
    response = client.get(f"/docs/{name}?lang={lang}")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert response.headers["Content-Security-Policy"] == PAGE_CSP
    page = response.get_data(as_text=True)
    assert "<h1" in page and "<table>" in page
    markup = parse(page)
    assert not markup.scripts, "the documents need no script"
    ids = {attrs.get("id") for _, attrs in markup.tags}
    for url in local_urls(markup):
        parts = urlsplit(url)
        if url.startswith("#"):
            assert url[1:] in ids, f"{name}: no anchor {url}"
            continue
        assert not parts.netloc, f"{name} links to another host: {url}"
        answer = client.get(f"{parts.path}?{parts.query}" if parts.path else f"/docs/{name}")
        assert answer.status_code in (200, 308), url
        if parts.path.startswith("/docs/") and parts.path != "/docs/":
            assert parse_qs(parts.query).get("lang", ["en"]) == [lang], url  # the same language
            if parts.fragment:
                assert f'id="{parts.fragment}"' in answer.get_data(as_text=True), url


def test_the_rules_are_served_in_spanish(client: FlaskClient) -> None:
    spanish = client.get("/docs/rules?lang=es").get_data(as_text=True)
    english = client.get("/docs/rules?lang=en").get_data(as_text=True)
    assert "<title>Las reglas que aplica el árbitro · tute-arbiter</title>" in spanish
    assert "<title>The rules the referee applies · tute-arbiter</title>" in english
    assert 'id="3-obligaciones-de-juego-asistir-montar-fallar-pisar"' in spanish
    # Accept-Language decides without ?lang=, as for the page
    chosen = client.get("/docs/rules", headers={"Accept-Language": "es-ES,es"})
    assert chosen.get_data(as_text=True) == spanish
    assert "Accept-Language" in chosen.headers["Vary"]
    # the API contract has no Spanish version: the original, in the Spanish shell
    assert "The HTTP contract (v1)" in client.get("/docs/api?lang=es").get_data(as_text=True)


def test_swagger_ui_stays_at_docs(client: FlaskClient) -> None:
    response = client.get("/docs/")
    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert "swagger-ui" in page
    # Its initialiser is a file (issue 22, item 3): no inline script, none allowed.
    assert "script-src 'self';" in response.headers["Content-Security-Policy"]
    initializer = client.get("/docs/swagger-initializer.js").get_data(as_text=True)
    # Served from any host, Swagger UI must not send the contract to its online validator.
    assert '"validatorUrl":null' in initializer


def test_the_page_links_the_interactive_documentation(client: FlaskClient) -> None:
    urls = local_urls(parse(client.get("/").get_data(as_text=True)))
    assert "/docs/" in urls
    assert any(u.startswith("/docs/rules") for u in urls)
    assert any(u.startswith("/docs/api") for u in urls)


@pytest.mark.parametrize("lang", LANGS)
def test_the_renuncio_note_links_the_rule_in_the_readers_language(
    client: FlaskClient, lang: str
) -> None:
    markup = parse(client.get(f"/?lang={lang}").get_data(as_text=True))
    (text,) = [t for attrs, t in markup.scripts if attrs.get("id") == "arbiter-data"]
    import json

    href = json.loads(text)["rules"][lang]["obligations"]
    path, _, anchor = href.partition("#")
    assert path == f"docs/rules?lang={lang}"
    assert anchor.startswith("3-") and f'id="{anchor}"' in documents.render("rules", lang).html
    assert (
        "ruling.js" in {n for n in STATIC}
        and "DATA.rules" in (WEB / "static" / "ruling.js").read_text()
    )


def test_document_links_point_at_served_pages() -> None:
    assert documents.served_href("api.md#errors") == "/docs/api#errors"
    assert documents.served_href("rules.md") == "/docs/rules"
    assert documents.served_href("../api_spec/openapi.yaml") == "/v1/openapi.yaml"
    assert documents.served_href("../examples/tute-3p.json") == "/examples/tute-3p.json"
    assert documents.served_href("#options") == "#options"
    assert documents.served_href("https://example.org/x") == "https://example.org/x"
    assert documents.served_href("api.md#errors", "es") == "/docs/api?lang=es#errors"
    assert documents.served_href("../api_spec/openapi.yaml", "es") == "/v1/openapi.yaml"


def test_raw_html_in_a_document_is_escaped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        documents, "markdown_source", lambda name, lang="en": "# T\n\n<script>alert(1)</script>\n"
    )
    html_text = documents.render("rules").html
    assert "<script>" not in html_text and "&lt;script&gt;" in html_text


RULES_FILES = ["rules.md", *sorted(documents.TRANSLATIONS.values())]


@pytest.mark.parametrize("rules", RULES_FILES)
def test_each_version_of_the_rules_names_every_option_illegal_code_and_reason(rules: str) -> None:
    """rules.md and its Spanish version, each alone, name what the code has."""
    text = (DOCS / rules).read_text(encoding="utf-8")
    options = {spec.name for r in RULESETS.values() for spec in r.option_specs}
    reasons = set(
        committed_spec()["components"]["schemas"]["Outcome"]["properties"]["reason"]["enum"]
    )
    assert reasons == set(REASONS)
    names = {
        "option": options,
        "illegal code": {code.value for code in IllegalCode},
        "reason": reasons,
        "obligation": set(OBLIGATIONS),
        "ruleset": set(RULESETS),
    }
    for kind, values in names.items():
        missing = sorted(v for v in values if f"`{v}`" not in text)
        assert not missing, f"docs/ never name the {kind}s {missing}"


@pytest.mark.parametrize("rules", RULES_FILES)
def test_the_options_table_of_the_rules_is_the_codes(rules: str) -> None:
    text = (DOCS / rules).read_text()
    rows = re.findall(r"^\| `(\w+)` \| [^|]+ \| [^|]+ \| ([^|]+) \| §[\d.]+ \|$", text, re.M)
    table = {name: {r.strip() for r in rulesets.split(",")} for name, rulesets in rows}
    code: dict[str, set[str]] = {}
    for ruleset in RULESETS.values():
        for spec in ruleset.option_specs:
            code.setdefault(spec.name, set()).add(ruleset.name)
    assert table == code


@pytest.mark.parametrize("rules", RULES_FILES)
def test_the_options_table_gives_each_default(rules: str) -> None:
    text = (DOCS / rules).read_text()
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", text, re.M))
    for ruleset in RULESETS.values():
        for spec in ruleset.option_specs:
            default: Any = spec.default
            shown = rows[spec.name].strip().strip("`")
            if isinstance(default, bool):
                assert shown == str(default).lower(), spec.name
            elif isinstance(default, tuple):
                assert shown == str(list(default)), spec.name
            else:
                assert shown == str(default), spec.name


def test_the_api_doc_covers_the_contract() -> None:
    text = (DOCS / "api.md").read_text()
    for path in committed_spec()["paths"]:
        assert f"`{path}`" in text or f"{path}`" in text, f"docs/api.md never names {path}"
    for needed in (
        "/v1/scores/batch",
        "application/x-ndjson",
        "Content-Encoding: gzip",
        '"source"',
        "self-contained",
        '{"state_id": "…", "deal": {…}, "move": {event}}',
        "api_spec/openapi.yaml",
        "#log=",
        "/docs/rules",
        "Accept-Language",
    ):
        assert needed in text, f"docs/api.md says nothing of {needed}"
    for counter, _ in MATCH_COUNTERS.values():
        assert f"`{counter}`" in text


@pytest.mark.parametrize("rules", RULES_FILES)
def test_the_rules_name_their_sources(rules: str) -> None:
    text = (DOCS / rules).read_text()
    for title in (
        "Tute: questions and answers",
        "Reglamento de cartas Tute",
        "Tute Cabrón",
        "Tute gana-pierde",
    ):
        assert title in text
    for section in range(1, 9):
        assert re.search(rf"^## {section}\. ", text, re.M), f"rules.md lost §{section}"


def test_nothing_points_outside_the_repository() -> None:
    """Users never see the workspace's shared folder: no file of the repository names it."""
    kept = [ROOT / "README.md", ROOT / "CHANGELOG.md", *DOCS.glob("*.md")]
    kept += [*EXAMPLES_DIR.glob("*"), *(ROOT / "arbiter").rglob("*.py")]
    kept += [*(WEB / "templates").rglob("*"), *(WEB / "static").glob("*")]
    for path in kept:
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            assert "../shared" not in text and "shared/RULES" not in text, path


# --- the words ------------------------------------------------------------------------------


def test_both_languages_have_the_same_words() -> None:
    assert set(UI["en"]) == set(UI["es"])
    for key in UI["en"]:
        fields_en = set(re.findall(r"\{(\w+)\}", UI["en"][key]))
        fields_es = set(re.findall(r"\{(\w+)\}", UI["es"][key]))
        assert fields_en == fields_es, key


def test_every_word_the_page_uses_exists() -> None:
    used: set[str] = set()
    for template in (WEB / "templates" / "web").glob("*.html"):
        text = template.read_text()
        used |= set(re.findall(r'\bt\(\s*["\']([\w.]+)["\']', text))
        used |= set(re.findall(r'data-t(?:-label|-placeholder)?="([\w.]+)"', text))
    scripts = "\n".join(p.read_text() for p in sorted((WEB / "static").glob("*.js")))
    used |= set(re.findall(r'\bt\(\s*"([\w.]+)"', scripts))
    literals = set(re.findall(r'"([a-z_]+\.[a-z_.]+)"', scripts))  # keys chosen before t(key)
    used |= literals & set(UI["en"])
    # counted(key, n): the key's singular and plural
    for key in re.findall(r'\bcounted\(\s*"([\w.]+)"', scripts):
        used |= {f"{key}.one", f"{key}.other"}
    # keys built from the answer's own values
    used |= {f"reason.{r}" for r in REASONS} | {f"obligation.{o}" for o in OBLIGATIONS}
    used |= {f"failed.{o}" for o in OBLIGATIONS}
    used |= {f"status.{s}" for s in ("complete", "in_progress", "invalid")}
    used |= {f"match.counter.{c}" for c, _ in MATCH_COUNTERS.values()}
    used |= {"of.kings", "of.horses"} | {f"step.{w}" for w in ("first", "prev", "next", "last")}
    used |= {"match.winner", "match.loser"}
    used |= {f"action.{kind}" for kind in ("sing", "tute", "exchange")}
    score_fields = committed_spec()["components"]["schemas"]["Score"]["properties"]
    used |= {f"scores.{c}" for c in score_fields if c != "seat"}
    # ... and from the rulesets' own data (the editor's table)
    used |= {f"ruleset.{name}" for name in RULESETS}
    used |= {f"option.{spec.name}" for r in RULESETS.values() for spec in r.option_specs}
    used |= {f"details.{name}" for name in ("event", "round", "table", "date", "referee")}
    used |= {  # the words of an option's chosen value (rulingtext.optionValueText)
        f"value.{spec.name}.{value}"
        for r in RULESETS.values()
        for spec in r.option_specs
        if spec.type == "string"
        for value in spec.allowed or ()
    }
    used |= {"table.true", "table.false", "table.mode.hands", "table.mode.deck"}
    used |= {"table.mode.position"}
    used |= {"table.notation.spanish", "table.notation.french"}
    # ... and from the editor's places and refusals (entry.js)
    kinds = set(re.findall(r'kind: "(\w+)"', (WEB / "static" / "entry.js").read_text()))
    assert kinds == {"hand", "turned", "stock", "trump", "deck"}
    used |= {f"entry.missing.{k}" for k in kinds} | {f"entry.place.{k}" for k in kinds}
    # ... and a position start's places (positionentry.js)
    kinds = set(re.findall(r'kind: "(\w+)"', (WEB / "static" / "positionentry.js").read_text()))
    assert kinds == {"table", "hand", "shown", "trick"}
    used |= {f"entry.missing.{k}" for k in kinds} | {f"entry.place.{k}" for k in kinds}
    used |= {f"unknown.outcome.{o}" for o in ("stands", "depends", "open")}
    assert used, "no word found: the patterns are stale"
    missing = sorted(used - set(UI["en"]))
    assert not missing, missing
    unused = sorted(set(UI["en"]) - used)
    assert not unused, f"words nobody uses: {unused}"


def test_pages_say_a_count_in_words_never_with_s_in_brackets() -> None:
    """ "5 deals", "1 deal": no "deal(s)" in either language; the heading of a renuncio names
    its obligation once ("Renuncio (fallar): trump when void")."""
    for lang in LANGS:
        for key, text in UI[lang].items():
            assert "(s)" not in text and "(es)" not in text, (lang, key)
        heading = UI[lang]["violation.heading"].format(
            obligation="fallar", meaning=UI[lang]["obligation.fallar"]
        )
        assert heading.lower().count("fallar") == 1, heading
    assert UI["en"]["ruling.deals.other"].format(count=5) == "5 deals"
    assert UI["en"]["ruling.deals.one"].format(count=1) == "1 deal"
    assert (
        UI["en"]["violation.heading"].format(
            obligation="fallar", meaning=UI["en"]["obligation.fallar"]
        )
        == "Renuncio (fallar): trump when void"
    )


def test_ruleset_facts_match_the_answers() -> None:
    """The fields the page reads from /v1/rulesets agree with what the replays answer."""
    import json

    import arbiter

    for path in example_files():
        log = json.loads(path.read_text())
        facts = RULESETS[log["ruleset"]].to_dict()
        body = arbiter.replay(log).to_dict()
        for deal in body["deals"]:
            assert ("sides" in deal) == facts["pairs"], path.name
            assert ("stock_left" in deal) == facts["stock"], path.name
            if facts["trump_from"] != "call":
                assert deal["trump"] is not None, path.name
        counter = facts["match"]["counter"]
        if body["match"]["over"]:
            assert any(s[counter] for s in body["match"]["standings"]), path.name
        assert facts["match"]["target"] in facts["options"], path.name
