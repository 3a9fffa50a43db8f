"""The word catalogue: every text a person reads, in Spanish and English, in one namespace.

Each area keeps its words in its own table — the referee's messages (:mod:`.referee`), the
command (:mod:`.command`), the page (:mod:`.page`), the conformance report (:mod:`.kit`) — and
:data:`CATALOGUE` is their union, by language. A key belongs to one area only (its prefix says
which) and exists in both languages with the same ``{fields}``: this module refuses to load
otherwise, and tests/test_words.py says where. Look words up through :mod:`arbiter.i18n`.
"""

from __future__ import annotations

from typing import Final

from arbiter.words import command, kit, page, referee
from arbiter.words.lang import LANGS, Lang

#: The areas' tables, by area name.
AREAS: Final = {
    "referee": referee.WORDS,
    "command": command.WORDS,
    "page": page.WORDS,
    "kit": kit.WORDS,
}


def _union() -> dict[Lang, dict[str, str]]:
    out: dict[Lang, dict[str, str]] = {lang: {} for lang in LANGS}
    for name, table in AREAS.items():
        for lang in LANGS:
            clash = out[lang].keys() & table[lang].keys()
            if clash:
                raise ValueError(f"words of {name} already defined elsewhere: {sorted(clash)}")
            out[lang].update(table[lang])
    return out


#: Every key's words, by language.
CATALOGUE: Final = _union()
