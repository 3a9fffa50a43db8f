"""Today's answers are the answers of the frozen corpus (tests/corpus/make_corpus.py).

3,000 random logs of every ruleset, player count, option, notation and setup form, with
renuncios, declarations, unfinished and invalid deals; for each, the digests of the replay and
score bodies in both languages and of verdicts on a few moves, as the commit named in the
corpus's first line gave them. Any change to the engine, the reports or the messages that
alters one answer by one byte fails here, and the message shows the first difference when the
corpus kept the whole answer.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import arbiter
from arbiter.engine.errors import ArbiterError
from tests.corpus.make_corpus import digest, without_state_id

CORPUS = Path(__file__).parent / "corpus" / "frozen.jsonl.gz"
CHUNKS = 10


def _entries() -> list[dict[str, Any]]:
    with gzip.open(CORPUS, "rt", encoding="utf-8") as lines:
        next(lines)  # the header: commit, build, count
        return [json.loads(line) for line in lines]


ENTRIES = _entries()


def _chunk(k: int) -> Iterator[tuple[int, dict[str, Any]]]:
    size = -(-len(ENTRIES) // CHUNKS)
    yield from enumerate(ENTRIES[k * size : (k + 1) * size], k * size)


def _first_difference(old: Any, new: Any, path: str = "") -> str:
    if type(old) is not type(new):
        return f"{path or '/'}: {old!r} became {new!r}"
    if isinstance(old, dict):
        for key in sorted(set(old) | set(new)):
            if key not in old or key not in new:
                return f"{path}/{key}: present in only one"
            if old[key] != new[key]:
                return _first_difference(old[key], new[key], f"{path}/{key}")
    if isinstance(old, list):
        if len(old) != len(new):
            return f"{path}: {len(old)} items became {len(new)}"
        for i, (a, b) in enumerate(zip(old, new, strict=True)):
            if a != b:
                return _first_difference(a, b, f"{path}/{i}")
    return f"{path or '/'}: {old!r} became {new!r}"


def test_the_corpus_covers_what_it_claims() -> None:
    assert len(ENTRIES) == 3000
    statuses = {arbiter.replay(e["log"]).status.value for e in ENTRIES[:300]}
    assert statuses == {"complete", "in_progress", "invalid"}
    assert {e["log"]["ruleset"] for e in ENTRIES} == {
        "tute-2p", "tute-3p", "tute-4p", "tute-cabron", "tute-gana-pierde"
    }  # fmt: skip
    assert any(e["log"].get("notation") == "french" for e in ENTRIES)


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_answers_are_those_of_the_frozen_corpus(chunk: int) -> None:
    for index, entry in _chunk(chunk):
        log = entry["log"]
        for lang in ("en", "es"):
            result = arbiter.replay(log)
            body = without_state_id(result.to_dict(lang))
            if digest(body) != entry[f"replay_{lang}"]:
                kept = entry.get(f"replay_{lang}_body")
                where = _first_difference(kept, body) if kept is not None else "(not kept)"
                pytest.fail(f"entry {index}: the {lang} replay differs: {where}")
            assert digest(result.scores_dict(lang)) == entry[f"scores_{lang}"], (index, lang)
        for verdict in entry.get("validate", []):
            try:
                got = {
                    lang: digest(
                        without_state_id(arbiter.validate(log, verdict["move"]).to_dict(lang))
                    )
                    for lang in ("en", "es")
                }
            except ArbiterError as err:
                got = {"error": f"{err.pointer}: {err.message}"}
            expected = {k: v for k, v in verdict.items() if k != "move"}
            assert got == expected, (index, verdict["move"])
