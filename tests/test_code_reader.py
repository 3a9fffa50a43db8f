"""The replay reads card codes by their characters (cards.CodeReader): it must read every
canonical code as the code table does, and give way (-1) on anything else."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from arbiter.engine.cards import NOTATIONS, card_codes, code_reader, code_table


def test_every_canonical_code_is_read_as_the_table_reads_it() -> None:
    for notation in NOTATIONS:
        reader = code_reader(notation)  # type: ignore[arg-type]
        for card, code in enumerate(card_codes(notation)):  # type: ignore[arg-type]
            assert reader.card(code) == card == code_table(notation)[code]  # type: ignore[arg-type]


def test_codes_outside_the_table_give_way() -> None:
    reader = code_reader("spanish")
    for code in ("13O", "8O", "9C", "1o", "1", "", "10", "1OO", "1Ø", "A♦", "AD", "01O"):
        assert reader.card(code) == -1


@given(st.text(max_size=4), st.sampled_from(NOTATIONS))
def test_any_text_is_read_as_the_table_reads_it_or_given_way(code: str, notation: str) -> None:
    card = code_reader(notation).card(code)  # type: ignore[arg-type]
    assert card == -1 or card == code_table(notation).get(code)  # type: ignore[arg-type]


@given(
    st.text(alphabet="0123456789OCEBDHSCAJQK♦x", min_size=2, max_size=3),
    st.sampled_from(NOTATIONS),
)
def test_near_codes_are_read_as_the_table_reads_them_or_given_way(code: str, notation: str) -> None:
    card = code_reader(notation).card(code)  # type: ignore[arg-type]
    assert card == -1 or card == code_table(notation).get(code)  # type: ignore[arg-type]
