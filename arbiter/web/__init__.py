"""The referee's view: the web pages at ``GET /`` and ``GET /enter``, and the project's
documentation pages.

A Flask blueprint (registered by :func:`arbiter.api.create_app`) serving

- ``/``: the page where an organiser opens a game log (file, drop, paste, a bundled example or
  ``#log=<base64url>``) and reads the ruling as cards, the ruling first. Jinja renders the shell
  in the reader's language (``?lang=es|en``, else ``Accept-Language``); ES modules
  (``static/referee.js`` and what it imports) post the log to this service's own
  ``/v1/replays`` (with ``"steps": true``) and draw the answer. The rules stay on the server:
  the page shows what the API answers, and every position it draws is one of the answer's steps.
- ``/enter``: the table editor (``static/enter.js``): a disputed deal entered by hand, card by
  card, and played move by move, each move judged by ``/v1/moves/validate``.
- ``/docs/rules`` and ``/docs/api``: ``docs/rules.md`` (``docs/rules.es.md`` with
  ``?lang=es``) and ``docs/api.md`` as HTML.
- ``/examples/<name>``: the bundled example logs (``examples/*.json``).
- ``/static/...``: the pages' stylesheet, scripts and nothing else (the cards are SVG symbols
  inlined in the page).

``examples`` and ``docs`` in this package are symlinks to the repository's directories, so
the files exist once in the repository and are copied into a wheel as package data.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import Any, cast

from flask import Flask, Response, current_app, render_template, request
from markupsafe import Markup

from arbiter import __version__
from arbiter.contract import Problem
from arbiter.engine.cards import (
    NOTATIONS,
    Notation,
    card_codes,
    card_rank,
    card_suit,
    code_table,
    display_order,
    format_suit,
    pack_mask,
)
from arbiter.engine.rulesets import RULESETS, Ruleset
from arbiter.i18n import LANGS, Lang, Phrases, area, pick_lang, ruleset_dict
from arbiter.web import documents
from arbiter.web.assets import AssetBlueprint

web = AssetBlueprint(  # its static files gzip-coded where accepted, kept compressed
    "web",
    __name__,
    static_folder="static",
    static_url_path="/static",
    template_folder="templates",
)


@dataclass(frozen=True, slots=True)
class Example:
    name: str
    ruleset: str
    description: str
    file: Traversable


class _Site:
    """What the pages serve, computed on first use and kept for the app's lifetime."""

    def __init__(self) -> None:
        self._documents: dict[tuple[str, Lang], documents.Document] = {}

    @cached_property
    def examples(self) -> dict[str, Example]:
        folder = files("arbiter.web") / "examples"
        found = {}
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".json"):
                log = json.loads(entry.read_text(encoding="utf-8"))
                found[entry.name] = Example(
                    entry.name, log["ruleset"], log.get("description", ""), entry
                )
        return found

    @cached_property
    def page_data(self) -> Markup:
        """The page script's data (rulesets, cards, words), as JSON safe inside ``<script>``."""
        data = {
            "version": __version__,
            "strings": {lang: area(lang, "page") for lang in LANGS},
            "rulesets": {name: ruleset_dict(r) for name, r in RULESETS.items()},
            "packs": {name: _packs(r) for name, r in RULESETS.items()},
            "cards": {n: _card_table(cast(Notation, n)) for n in NOTATIONS},
            "rules": {lang: _rule_links(lang) for lang in LANGS},
        }
        return _script_json(data)

    def document(self, name: str, lang: Lang) -> documents.Document:
        if (name, lang) not in self._documents:
            self._documents[name, lang] = documents.render(name, lang)
        return self._documents[name, lang]


def _script_json(data: Any) -> Markup:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    # Inside <script type="application/json">: no "</script>" or "<!--" can close or open it.
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def _packs(ruleset: Ruleset) -> dict[str, list[int]]:
    """The cards in play by number of players (as card numbers 0-39, in display order): the
    table editor's picker offers these and no other."""
    return {str(n): display_order(pack_mask(ruleset.removed_rank[n])) for n in ruleset.players}


def _rule_links(lang: Lang) -> dict[str, str]:
    """Where the rules the page cites are, in the reader's language (relative to the page)."""
    anchor = documents.section_anchor("rules", lang, 3)
    return {"obligations": f"docs/rules?lang={lang}#{anchor}"}


def _card_table(notation: Notation) -> dict[str, Any]:
    """How the page reads and names the cards of one notation, from the engine's tables:
    ``names`` for sentences («la sota de oros»), ``labels`` for a card shown alone (the
    accessible name of a card image or button: «sota de oros»)."""
    codes = card_codes(notation)
    return {
        "codes": list(codes),
        "inputs": {code: codes[card] for code, card in code_table(notation).items()},
        "faces": {codes[c]: [card_rank(c), card_suit(c)] for c in range(40)},
        "suits": [format_suit(s, notation) for s in range(4)],
        "names": {
            lang: {codes[c]: Phrases(lang, notation, ()).card(c) for c in range(40)}
            for lang in LANGS
        },
        "labels": {
            lang: {codes[c]: Phrases(lang, notation, ()).card(c, article=False) for c in range(40)}
            for lang in LANGS
        },
        "suit_names": {
            lang: [Phrases(lang, notation, ()).suit(s) for s in range(4)] for lang in LANGS
        },
    }


def install(app: Flask) -> None:
    """Register the pages on ``app``."""
    app.extensions["arbiter.web"] = _Site()
    app.register_blueprint(web)


def _site() -> _Site:
    site: _Site = current_app.extensions["arbiter.web"]
    return site


def page_lang() -> Lang:
    """``?lang=es|en`` when given, else the browser's ``Accept-Language``."""
    asked = request.args.get("lang")
    if asked in LANGS:
        return asked
    return pick_lang(request.headers.get("Accept-Language"))


def _page(template: str, lang: Lang, **context: Any) -> Response:
    words = area(lang, "page")
    html = render_template(
        template,
        lang=lang,
        langs=LANGS,
        t=words.__getitem__,
        version=__version__,
        **context,
    )
    response = Response(html, mimetype="text/html")
    if "lang" not in request.args:
        response.vary.add("Accept-Language")
    return response


@web.get("/")
def referee() -> Response:
    site = _site()
    return _page(
        "web/referee.html",
        page_lang(),
        page="referee",
        examples=list(site.examples.values()),
        page_data=site.page_data,
    )


@web.get("/enter")
def enter() -> Response:
    """The table editor: a deal entered by hand and played move by move."""
    site = _site()
    return _page("web/enter.html", page_lang(), page="enter", page_data=site.page_data)


@web.get(f"/docs/<any({', '.join(documents.DOCUMENTS)}):name>")
def document(name: str) -> Response:
    lang = page_lang()
    return _page("web/document.html", lang, page=name, doc=_site().document(name, lang))


@web.get("/examples/<name>")
def example(name: str) -> Response:
    found = _site().examples.get(name)
    if found is None:
        raise Problem(404, "Not Found", f"No bundled example {name!r}.")
    return Response(found.file.read_bytes(), mimetype="application/json")
