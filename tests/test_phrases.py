"""Phrases.text fills a catalogue template from its pieces parsed once (arbiter/i18n.py): it
must say exactly what ``str.format`` of the template says, for every key and language."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arbiter.i18n import _PIECES, Phrases
from arbiter.words import CATALOGUE

_VALUES = st.one_of(st.text(max_size=12), st.integers(-1000, 1000))


def _fields(template: str) -> list[str]:
    return [name for _, name, _, _ in string.Formatter().parse(template) if name]


@pytest.mark.parametrize("lang", sorted(CATALOGUE))
@given(data=st.data())
def test_every_key_says_what_format_says(lang: str, data: st.DataObject) -> None:
    words = Phrases(lang, "spanish", ("ana", "bea", "cai", "dan"))  # type: ignore[arg-type]
    key = data.draw(st.sampled_from(sorted(CATALOGUE[lang])))
    template = CATALOGUE[lang][key]
    fields = {name: data.draw(_VALUES) for name in _fields(template)}
    if key in _PIECES[lang]:
        fields["unused"] = "x"  # format ignores a field the template does not name
    try:
        want = template.format(**fields)
    except (ValueError, TypeError):  # a format spec that refuses the drawn value
        return
    assert words.text(key, **fields) == want


def test_the_messages_of_the_answers_are_parsed_once() -> None:
    for lang in CATALOGUE:
        plain = {k for k in CATALOGUE[lang] if not k.startswith(("kit.", "page.", "cli."))}
        assert plain <= set(_PIECES[lang])


def test_a_missing_field_is_a_key_error_as_with_format() -> None:
    words = Phrases("en", "spanish", ("ana", "bea"))
    key = next(k for k in _PIECES["en"] if _fields(CATALOGUE["en"][k]))
    with pytest.raises(KeyError):
        words.text(key)
