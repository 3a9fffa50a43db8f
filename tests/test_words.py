"""The one word catalogue (arbiter/words/): every key in both languages with the same fields,
in one area only, and every area's words found where they are used."""

from __future__ import annotations

import re
import string

import pytest

from arbiter import i18n
from arbiter.words import AREAS, CATALOGUE, _union
from tests.api_support import ROOT

_PREFIX = {"command": "cli.", "page": "page.", "kit": "kit."}


def fields_of(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("area", sorted(AREAS))
def test_every_key_has_both_languages_with_the_same_fields(area: str) -> None:
    table = AREAS[area]
    assert table["en"].keys() == table["es"].keys()
    for key, english in table["en"].items():
        assert english.strip() and table["es"][key].strip(), key
        assert fields_of(english) == fields_of(table["es"][key]), key


@pytest.mark.parametrize("area", sorted(AREAS))
def test_an_area_s_keys_carry_its_prefix_and_no_other(area: str) -> None:
    for key in AREAS[area]["en"]:
        owners = [a for a, prefix in _PREFIX.items() if key.startswith(prefix)]
        assert owners == ([area] if area in _PREFIX else []), key


def test_a_key_defined_in_two_areas_refuses_to_load(monkeypatch: pytest.MonkeyPatch) -> None:
    clash = {"en": {"reason.points": "x"}, "es": {"reason.points": "x"}}
    monkeypatch.setitem(AREAS, "intruder", clash)
    with pytest.raises(ValueError, match=r"intruder.*reason\.points"):
        _union()


def test_the_catalogue_is_the_union_of_the_areas() -> None:
    for lang in ("en", "es"):
        assert len(CATALOGUE[lang]) == sum(len(t[lang]) for t in AREAS.values())
    assert i18n.area("es", "page")["title"] == CATALOGUE["es"]["page.title"]


def test_no_other_module_keeps_a_catalogue_of_its_own() -> None:
    """Words are not restated outside arbiter/words: no module but those holds a table of
    both languages' texts."""
    both = re.compile(r'^\s*"en":\s*\{', re.M)
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "arbiter").rglob("*.py")
        if "words" not in path.parts and both.search(path.read_text())
    ]
    assert offenders == []


def test_the_command_s_keys_are_the_ones_its_modules_use() -> None:
    used = set()
    for path in (ROOT / "arbiter" / "commands").glob("*.py"):
        used |= {f"cli.{k}" for k in re.findall(r'words\([^,]+, "([a-z_.]+)"', path.read_text())}
    assert used <= CATALOGUE["en"].keys()


def _sources_outside_words() -> dict[str, str]:
    return {
        str(path.relative_to(ROOT)): path.read_text()
        for path in (ROOT / "arbiter").rglob("*.py")
        if "words" not in path.parts
    }


def test_the_languages_are_declared_once() -> None:
    """``Lang`` is arbiter/words/lang.py's: every other module imports it."""
    declared = re.compile(r"^\s*Lang\s*(?::[^=]*)?=", re.M)
    found = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "arbiter").rglob("*.py")
        if declared.search(path.read_text())
    ]
    assert found == ["arbiter/words/lang.py"]
    assert i18n.LANGS == ("en", "es") and set(CATALOGUE) == set(i18n.LANGS)


def test_a_ruleset_s_title_is_words_of_the_catalogue_alone() -> None:
    """Every ruleset has its title in both languages, and no module outside the catalogue
    writes one (the API and the page read them from it)."""
    from arbiter.engine.rulesets import RULESETS, Ruleset

    assert "title" not in Ruleset.__dataclass_fields__
    sources = _sources_outside_words()
    for name in RULESETS:
        for lang in i18n.LANGS:
            title = CATALOGUE[lang][f"ruleset.{name}"]
            assert CATALOGUE[lang][f"page.ruleset.{name}"] == title
            assert [p for p, text in sources.items() if f'"{title}"' in text] == [], title
