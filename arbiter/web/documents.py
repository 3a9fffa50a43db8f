"""The project's documentation (``docs/*.md``) as HTML, for ``/docs/rules`` and ``/docs/api``.

Markdown is rendered offline by markdown-it-py (CommonMark, tables, heading anchors the way
GitHub names them, raw HTML escaped), once per app. Links between the documents are written for
a reader of the repository (``api.md#errors``, ``../api_spec/openapi.yaml``); :func:`render`
points them at the pages this service serves instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files
from typing import Final
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin

#: Page name (``/docs/<name>``) → file under ``docs/``.
DOCUMENTS: Final[dict[str, str]] = {"rules": "rules.md", "api": "api.md"}

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


def markdown_source(name: str) -> str:
    """The Markdown text of ``docs/<DOCUMENTS[name]>`` as installed with the package."""
    return (files("arbiter.web") / "docs" / DOCUMENTS[name]).read_text(encoding="utf-8")


def served_href(href: str) -> str:
    """A link of a document as the served page must write it."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path:
        return href  # absolute, or an anchor within the page
    fragment = f"#{parts.fragment}" if parts.fragment else ""
    if parts.path in _SERVED:
        return _SERVED[parts.path] + fragment
    if parts.path.startswith(_EXAMPLES_PREFIX):
        return "/examples/" + parts.path.removeprefix(_EXAMPLES_PREFIX) + fragment
    return href


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.use(anchors_plugin, min_level=1, max_level=4)
    return md


def _retarget(tokens: list[Token]) -> None:
    for token in tokens:
        if token.type == "link_open":
            href = token.attrGet("href")
            if isinstance(href, str):
                token.attrSet("href", served_href(href))
        if token.children:
            _retarget(token.children)


def render(name: str) -> Document:
    """One document as HTML, its title from its first heading."""
    md = _parser()
    tokens = md.parse(markdown_source(name))
    _retarget(tokens)
    title = next(
        (tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"), name
    )
    return Document(title, md.renderer.render(tokens, md.options, {}))
