"""The project's documentation (``docs/*.md``) as HTML, for ``/docs/rules`` and ``/docs/api``.

Markdown is rendered offline by markdown-it-py (CommonMark, tables, heading anchors the way
GitHub names them, raw HTML escaped), once per app and language. Links between the documents
are written for a reader of the repository (``api.md#errors``, ``../api_spec/openapi.yaml``);
:func:`render` points them at the pages this service serves instead, in the reader's language.

A document may have translations (``docs/rules.es.md``): ``/docs/rules?lang=es`` serves it, and a
language without one gets the original.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files
from itertools import pairwise
from typing import Final
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin

from arbiter.i18n import Lang

#: Page name (``/docs/<name>``) → file under ``docs/`` (in English, the original).
DOCUMENTS: Final[dict[str, str]] = {"rules": "rules.md", "api": "api.md"}
#: (page name, language) → its translation under ``docs/``.
TRANSLATIONS: Final[dict[tuple[str, Lang], str]] = {("rules", "es"): "rules.es.md"}

#: Repository-relative link targets → where this service serves them.
_SERVED: Final[dict[str, str]] = {
    **{file: f"/docs/{name}" for name, file in DOCUMENTS.items()},
    "../api_spec/openapi.yaml": "/v1/openapi.yaml",
}
_EXAMPLES_PREFIX: Final = "../examples/"


@dataclass(frozen=True, slots=True)
class Document:
    title: str
    html: str


def source_file(name: str, lang: Lang = "en") -> str:
    """The file under ``docs/`` of document ``name`` in ``lang`` (the original without one)."""
    return TRANSLATIONS.get((name, lang), DOCUMENTS[name])


def markdown_source(name: str, lang: Lang = "en") -> str:
    """The Markdown text of a document as installed with the package."""
    return (files("arbiter.web") / "docs" / source_file(name, lang)).read_text(encoding="utf-8")


def served_href(href: str, lang: Lang = "en") -> str:
    """A link of a document as the served page must write it (to the pages in ``lang``)."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path:
        return href  # absolute, or an anchor within the page
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    if parts.path in _SERVED:
        target = _SERVED[parts.path]
        query = f"?lang={lang}" if lang != "en" and target.startswith("/docs/") else ""
        return target + query + fragment
    if parts.path.startswith(_EXAMPLES_PREFIX):
        return "/examples/" + parts.path.removeprefix(_EXAMPLES_PREFIX) + fragment
    return href


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.use(anchors_plugin, min_level=1, max_level=4)
    return md


def _retarget(tokens: list[Token], lang: Lang) -> None:
    for token in tokens:
        if token.type == "link_open":
            href = token.attrGet("href")
            if isinstance(href, str):
                token.attrSet("href", served_href(href, lang))
        if token.children:
            _retarget(token.children, lang)


def section_anchor(name: str, lang: Lang, number: int) -> str:
    """The anchor of the heading of section ``number`` (``## 3. …``) of a document in
    ``lang``: the page links a rule where the reader's version of the rules has it."""
    md = _parser()
    tokens = md.parse(markdown_source(name, lang))
    for token, inline in pairwise(tokens):
        if token.tag == "h2" and inline.content.startswith(f"{number}. "):
            anchor = token.attrGet("id")
            assert isinstance(anchor, str)
            return anchor
    raise LookupError(f"{source_file(name, lang)} has no section {number}")


def render(name: str, lang: Lang = "en") -> Document:
    """One document in ``lang`` as HTML, its title from its first heading."""
    md = _parser()
    tokens = md.parse(markdown_source(name, lang))
    _retarget(tokens, lang)
    title = next(
        (tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"), name
    )
    return Document(title, md.renderer.render(tokens, md.options, {}))
