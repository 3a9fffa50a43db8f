"""``POST /v1/scores/batch`` without HTTP: NDJSON chunks in, the answer's lines out, with the
limits of a batch.

Lines are scored as the chunks arrive and come out a chunk's worth at a time, so the first lines
of the answer go out before the last of the body is read. ``source`` is the line number. The
answer always ends with a reason: past ``max_lines`` lines, or when reading the body fails (too
large, too slow, not gzip...: ``stopped`` names it), the last line is a :func:`stop_line`. Blank
lines count against ``max_lines`` like the others: they are skipped, not free (a megabyte of
gzip holds 64 million of them). Past ``max_lines`` the rest of the body is read and dropped
(undecoded, when the caller says how: ``rest``) before the last lines go out, so that a client
still sending it is not left waiting for a server that waits for it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from arbiter.archive.lines import LineSplitter
from arbiter.archive.records import (
    JSON_SPACE,
    Scored,
    Scorer,
    Text,
    encode_body,
    stamp,
    stop_line,
)

_log = logging.getLogger("arbiter.archive")

#: The title of the line that ends a batch over its number of lines.
TOO_MANY_LINES = "Too many lines"


@dataclass(frozen=True, slots=True)
class Stop:
    """Why the body stopped being read: the status, title and message of the last line."""

    status: int
    title: str
    message: str


def score_batch(
    chunks: Iterable[bytes],
    scorer: Scorer,
    max_lines: int,
    observe: Callable[[Scored], None],
    stopped: Callable[[Exception], Stop | None],
    rest: Callable[[], Iterable[bytes]] | None = None,
    first_line: int = 1,
) -> Iterator[bytes]:
    """The answer to the body ``chunks``: for each chunk read, the lines it completed (empty
    bytes when it completed none), then a last line when it stopped early. ``observe`` sees
    every game scored; ``stopped`` says why reading the body failed (None: a fault of ours,
    which ends the answer as an internal error); ``rest`` gives what is left of the body past
    ``max_lines`` in a form cheaper to read than ``chunks`` (the bytes before decoding).
    Lines are numbered from ``first_line`` (a client numbering an archive sent in batches)."""
    batch = _Batch(scorer, max_lines, observe, first_line - 1)
    body = iter(chunks)
    try:
        for chunk in body:
            out = batch.lines(batch.splitter.feed(chunk, batch.room + 1))
            if batch.over:
                _drain(body if rest is None else iter(rest()))
                yield out
                return
            yield out
        yield batch.lines(batch.splitter.close())
    except Exception as err:
        stop = stopped(err)
        if stop is None:
            _log.exception("a batch failed at line %d", batch.number + 1)
            stop = Stop(500, "Internal error", "the referee failed; the lines above stand")
        yield stop_line(batch.before + batch.number + 1, stop.status, stop.title, stop.message)


def _drain(body: Iterator[bytes]) -> None:
    """Read the rest of a body (bounded by its limits), unscored: a client that sends all of
    its body before it reads the answer (most HTTP libraries) then gets to read it."""
    try:
        for _ in body:
            pass
    except Exception as err:  # whatever stops it, the answer says where the batch stopped
        _log.info("the rest of a batch over its limits was not read: %s", err)


class _Batch:
    def __init__(
        self, scorer: Scorer, max_lines: int, observe: Callable[[Scored], None], before: int = 0
    ) -> None:
        self.scorer = scorer
        self.before = before  # lines numbered before this batch's first
        self.max_lines = max_lines
        self.observe = observe
        self.splitter = LineSplitter(scorer.config.max_line_bytes)
        self.number = 0  # lines read, blank ones too
        self.over = False

    @property
    def room(self) -> int:
        """Lines still to be read before the limit."""
        return self.max_lines - self.number

    def lines(self, texts: list[Text]) -> bytes:
        blank = texts[: self.room]
        if blank and _all_blank(blank):  # counted at once: no pass per line
            self.number += len(blank)
            texts = texts[len(blank) :]
        out = []
        for text in texts:
            if self.number == self.max_lines:
                message = (
                    f"a batch holds at most {self.max_lines} lines: line "
                    f"{self.before + self.number + 1} and those after it were not read"
                )
                out.append(stop_line(self.before + self.number + 1, 413, TOO_MANY_LINES, message))
                self.over = True
                break
            self.number += 1
            scored = self.scorer.score(self.number - 1, text)  # None: a blank line
            if scored is None:
                continue
            self.observe(scored)
            out.append(stamp(scored.given_id, self.before + self.number, encode_body(scored)))
        return b"".join(out)


def _all_blank(texts: list[Text]) -> bool:
    """Are these lines all white space (an :class:`Oversized` is not)?"""
    try:
        return not b"".join(texts).strip(JSON_SPACE)  # type: ignore[arg-type]
    except TypeError:  # an Oversized among them
        return False
