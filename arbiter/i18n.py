"""Explanations in the words of a Spanish club player, in Spanish (``es``) or English (``en``).

Every ``message`` the referee returns is built here from an engine result: a renuncio, an
illegal event, a deal outcome, a verdict on a move. Cards are named in words ("el cuatro de
bastos", "the four of bastos"); French-suited logs get French-suited names.

The words themselves are the project's one catalogue, :data:`arbiter.words.CATALOGUE`: every
key in both languages, with the same ``{fields}``; a key's prefix says who speaks (none for the
messages of the API's bodies, ``cli.`` for the command, ``page.`` for the referee's page, ``kit.``
for the conformance report). :func:`text` looks any of them up, :func:`area` gives one area's.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any, Final, get_args

from arbiter.engine.cards import PACK_SIZE, Card, Notation, card_rank, card_suit
from arbiter.engine.errors import ArbiterError, FaultCode
from arbiter.engine.rulesets import Ruleset
from arbiter.words import CATALOGUE
from arbiter.words.lang import LANGS, Lang
from arbiter.words.referee import FEMININE, OF, OR, RANK_WORDS, SUIT_WORDS

# Lang and LANGS are declared with the catalogue (arbiter/words/lang.py) and given on from here.
__all__ = [
    "LANGS", "Lang", "Phrases", "area", "fault_message", "pick_lang", "ruleset_dict", "text"
]  # fmt: skip


def pick_lang(accept_language: str | None) -> Lang:
    """The language for an ``Accept-Language`` header: ``es`` or ``en`` (the default)."""
    if not accept_language:
        return "en"
    best: tuple[float, Lang] = (0.0, "en")
    for part in accept_language.split(","):
        tag, _, params = part.strip().partition(";")
        primary = tag.strip().lower().split("-")[0]
        if primary not in LANGS:
            continue
        quality = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                quality = float(params[2:])
            except ValueError:
                quality = 0.0
        if quality > best[0]:
            best = (quality, "es" if primary == "es" else "en")
    return best[1]


def text(lang: Lang, key: str, **fields: object) -> str:
    """The catalogue's words for ``key`` in ``lang``, with ``fields`` filled in."""
    return CATALOGUE[lang][key].format(**fields)


def fault_message(lang: Lang, err: ArbiterError) -> str:
    """An input error's message in ``lang``: the engine's own in English (and for the faults
    with no code of their own), else the catalogue's ``fault.<code>`` with its params."""
    if lang == "en" or err.fault is FaultCode.INVALID:
        return err.message
    key, fields = _fault_words(lang, err.fault, err.params)
    return text(lang, key, **fields)


def _fault_words(
    lang: Lang, fault: FaultCode, params: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """The catalogue key of a fault and the fields its words take: lists as words, a code
    given as its repr (as the English message names it)."""
    key = f"fault.{fault.value}"
    fields = dict(params)
    if fault is FaultCode.LIST_SIZE and params["least"] == params["most"]:
        key += "_exact"
    elif fault is FaultCode.EXCHANGE_NOT_LEADER and params["first"]:
        key += "_first"
    elif fault is FaultCode.ONE_OF:
        values = [str(v) for v in params["values"]]
        fields["values"] = (
            ", ".join(values[:-1]) + OR[lang] + values[-1] if len(values) > 1 else values[0]
        )
    elif fault is FaultCode.CARD_CODE:
        fields["code"] = repr(params["code"])
        fields["what"] = text(lang, f"fault.what.{params['what']}")
        fields["notation"] = text(lang, f"fault.notation.{params['notation']}")
    elif fault is FaultCode.DOES_NOT_FOLLOW:
        value = params["value"]
        fields["value"] = ", ".join(map(str, value)) if isinstance(value, list) else value
    return key, fields


def ruleset_dict(ruleset: Ruleset, lang: Lang = "en") -> dict[str, Any]:
    """A ruleset as ``GET /v1/rulesets`` describes it: its data, and its title (the catalogue's
    ``ruleset.<name>``, English in the API) after its name."""
    facts = ruleset.to_dict()
    return {"name": facts.pop("name"), "title": text(lang, f"ruleset.{ruleset.name}"), **facts}


def area(lang: Lang, prefix: str) -> dict[str, str]:
    """One area's words in ``lang`` (``page``, ``kit``...), their keys without the prefix."""
    start = prefix + "."
    return {k[len(start) :]: v for k, v in CATALOGUE[lang].items() if k.startswith(start)}


def _card_names(lang: Lang, notation: Notation) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Every card's name in ``lang`` and ``notation``: with its article, and without."""
    ranks, suits = RANK_WORDS[(lang, notation)], SUIT_WORDS[(lang, notation)]
    bare, named = [], []
    for card in range(PACK_SIZE):
        rank = ranks[card_rank(card)]
        words = f"{rank}{OF[lang]}{suits[card_suit(card)]}"
        bare.append(words)
        if lang == "en":
            named.append("the " + words)
        else:  # Spanish card names take their own gender: la sota, el rey
            named.append(("la " if rank in FEMININE else "el ") + words)
    return tuple(named), tuple(bare)


#: Names, one per card or suit.
Words = tuple[str, ...]
#: Card names (with their article, and without) and suit names by language, then notation, made
#: once: a message names several cards. Nested, not keyed by a (language, notation) tuple: every
#: answer makes its :class:`Phrases`, and a tuple's hash cost about 1K instructions of it.
_CARD_NAMES: Final[dict[str, dict[str, tuple[Words, Words, Words]]]] = {
    lang: {n: (*_card_names(lang, n), SUIT_WORDS[(lang, n)]) for n in get_args(Notation)}
    for lang in LANGS
}


def _pieces(template: str) -> tuple[tuple[str, str], ...] | None:
    """A template as (literal text, field name or "") pairs, when its fields are bare names
    (no format spec or conversion); None for any other."""
    pieces = []
    for literal, name, spec, conversion in string.Formatter().parse(template):
        if name is not None and (spec or conversion or not name.isidentifier()):
            return None
        pieces.append((literal, name or ""))
    return tuple(pieces)


#: Every plain template of the catalogue, parsed once: filling in its pieces costs a message
#: about a fifth of ``str.format``'s parse of the template each time (measured under callgrind,
#: compiled: see the commit that added it).
_PIECES: Final[dict[str, dict[str, tuple[tuple[str, str], ...]]]] = {
    lang: {key: p for key, t in words.items() if (p := _pieces(t)) is not None}
    for lang, words in CATALOGUE.items()
}


class Phrases:
    """The catalogue in one language and notation, with the players' names."""

    def __init__(self, lang: Lang, notation: Notation, players: tuple[str, ...]) -> None:
        self.lang = lang
        self.notation = notation
        self.players = players
        self._text = CATALOGUE[lang]
        self._pieces = _PIECES[lang]
        self._named, self._bare, self._suits = _CARD_NAMES[lang][notation]

    def text(self, key: str, **fields: object) -> str:
        pieces = self._pieces.get(key)
        if pieces is None:
            return self._text[key].format(**fields)
        out = []
        for literal, name in pieces:
            out.append(literal)
            if name:
                out.append(str(fields[name]))
        return "".join(out)

    def card(self, card: Card, *, article: bool = True) -> str:
        """``the four of bastos`` / ``el cuatro de bastos``."""
        return self._named[card] if article else self._bare[card]

    def cards(self, cards: Sequence[Card]) -> str:
        """``five of oros or king of oros``: a list of alternatives, without articles."""
        return OR[self.lang].join([self._bare[c] for c in cards])

    def suit(self, suit: int) -> str:
        return self._suits[suit]

    def name(self, seat: int) -> str:
        return self.players[seat]

    def names(self, seats: tuple[int, ...]) -> str:
        if not seats:
            return self._text["nobody"]
        return self._text["and"].join([self.players[s] for s in seats])  # compiled: no generator
