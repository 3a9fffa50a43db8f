"""The library's way in: ``arbiter.score_lines(lines)`` and ``arbiter.score_file(path)``.

Both yield, lazily and in order, one dict per game: the line format of
:mod:`arbiter.archive.records` (``{"id", "source", ...the body of POST /v1/scores}`` or
``{"id", "source", "error"}``), the same as ``arbiter score`` writes for the same input and
``POST /v1/scores/batch`` answers for the same lines.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from os import PathLike
from typing import Any

from arbiter.archive.inputs import InputError, expand, plan, skipped_error
from arbiter.archive.records import Oversized, Scorer, ScoringConfig, Text, record
from arbiter.archive.runner import BLOCK_BYTES, Numbering, scored_lines
from arbiter.i18n import Lang
from arbiter.settings import Settings

__all__ = ["InputError", "score_file", "score_lines"]


def score_lines(
    lines: Iterable[str | bytes],
    *,
    lang: Lang = "en",
    name: str | None = None,
    settings: Settings | None = None,
) -> Iterator[dict[str, Any]]:
    """Each item of ``lines`` is one game log (JSON text; blank items are skipped, a trailing
    newline is dropped): its line, ``source`` being its number from 1 (``NAME:NUMBER`` with
    ``name``). Lines past ``settings.max_body_bytes`` are errors, as in the command."""
    config = ScoringConfig.of(settings or Settings(), lang)
    scorer = Scorer.of(config)
    for index, line in enumerate(lines):
        scored = scorer.score(index, _text(line, config.max_line_bytes))
        if scored is not None:
            source = index + 1 if name is None else f"{name}:{index + 1}"
            yield record(scored, source)


def _text(line: str | bytes, limit: int) -> Text:
    data = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
    if data.endswith(b"\n"):
        data = data[:-1]
    return Oversized(len(data)) if len(data) > limit else data


def score_file(
    path: str | PathLike[str], *, lang: Lang = "en", settings: Settings | None = None
) -> Iterator[dict[str, Any]]:
    """The lines of a file (NDJSON, ``.gz``, a ``.json`` log) or of a folder of them, as
    ``arbiter score PATH`` reads it, ``source`` being ``PATH:LINE``. Raises
    :class:`~arbiter.archive.inputs.InputError` when it cannot be read (after the lines read
    before), or after the last line when a folder holds something it did not read (a link out
    of it, a file or subfolder it cannot read, a FIFO)."""
    config = ScoringConfig.of(settings or Settings(), lang)
    scorer = Scorer.of(config)
    found = expand([str(path)])
    inputs = found.inputs
    numbering = Numbering(inputs)
    for task in plan(inputs, BLOCK_BYTES, config.max_line_bytes, workers_read_gzip=False):
        for piece in task:
            numbering.start(piece.input)
            lines = scored_lines(piece, scorer)
            while True:
                try:
                    scored = next(lines)
                except StopIteration as stop:
                    count, problem = stop.value
                    break
                yield record(scored, numbering.source(scored.index))
            if problem is not None:
                raise InputError(problem)
            numbering.finish(count)
    if found.skipped:
        raise skipped_error(found.skipped)
