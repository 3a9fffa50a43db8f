"""Running an archive: pieces scored here, in worker processes or on a Dask cluster, and
written in input order.

Every way runs the same two functions: :func:`score_piece` reads and scores one piece where
it runs (this process, a worker process, a Dask worker), and a :class:`Sink` here writes what
it scored, in order. Only the reader of the whole input knows a line's number (a piece of a file
knows where its lines are among its own): a piece's NDJSON lines are written where it is scored
with a blank for each number (:class:`NumberedLines`), which the sink fills in at once for the
whole piece (pieces scored here, in order, are numbered as they are scored); the rows of a table
get their ``id`` and ``source`` from the sink's writer. With workers, :func:`ordered` keeps a
bounded window of tasks in flight and takes their results in order, so memory holds a few
pieces' results whatever the size of the archive.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

import orjson

from arbiter.archive import Format, Table
from arbiter.archive.formats import NdjsonWriter, Payload, Writer, payload
from arbiter.archive.inputs import (
    Input,
    InputError,
    Kind,
    Piece,
    Position,
    Resume,
    Task,
    plan,
    read_piece,
)
from arbiter.archive.records import Scored, Scorer, ScoringConfig, Source
from arbiter.archive.summary import Summary

T = TypeVar("T")

#: Bytes of input in one piece of a plain NDJSON file, or of lines read here for workers:
#: about a thousand games, a few tens of milliseconds of scoring.
BLOCK_BYTES = 2 * 1024 * 1024

#: A line of a piece as a worker sends it back: its index in the piece, the id its log gave
#: (None: none), its payload.
Item = tuple[int, str | None, Payload]


@dataclass(slots=True)
class NumberedLines:
    """The NDJSON lines of a piece, ``id`` and ``source`` in them, but not yet the numbers of
    the lines: a ``%``-format of the lines (``%d`` where a number goes, a ``%`` of their own
    doubled) and the numbers among the piece's lines (from 1) that fill it, in order. The
    process that writes fills it in one call (:meth:`filled`): what it does per piece, not per
    line, so that workers scale."""

    template: bytes = b""
    numbers: list[int] = field(default_factory=list)

    def filled(self, base: int) -> bytes:
        """The lines of a piece that comes after the first ``base`` lines of its input."""
        return self.template % tuple([base + number for number in self.numbers])


class NdjsonLines:
    """Writes the scored lines of one piece as :class:`NumberedLines` (:meth:`add`, once per
    line: one call, where the sink, its numbering and the writer were four)."""

    def __init__(self, name: str) -> None:
        # the source of a line of the input called ``name``, as JSON, its number left blank:
        # JSON escapes a string character by character, so ``"NAME:%d"`` filled is exactly
        # orjson.dumps(f"{name}:{number}"). :class:`NumberedNdjsonLines` fills these heads
        # too: one definition of a line's head.
        where = orjson.dumps(name)[:-1].replace(b"%", b"%%") + b':%d"'
        self._both = b'{"id":' + where + b',"source":' + where + b","
        self._source = b',"source":' + where + b","
        self._parts: list[bytes] = []
        self._numbers: list[int] = []

    def add(self, _: PieceResult, scored: Scored) -> None:
        number = scored.index + 1
        given_id = scored.given_id
        if given_id is None:  # the source stands for the id
            self._parts.append(self._both)
            self._numbers += (number, number)
        else:
            self._parts.append(b'{"id":' + _dumps(given_id).replace(b"%", b"%%") + self._source)
            self._numbers.append(number)
        # the body's object continued after the head: the same bytes as orjson.dumps of
        # records.record (its keys after id and source), newline included
        self._parts.append(_dumps(scored.body, option=_NEWLINE)[1:].replace(b"%", b"%%"))

    def numbered(self) -> NumberedLines | bytes:
        return NumberedLines(b"".join(self._parts), self._numbers)


class NumberedNdjsonLines(NdjsonLines):
    """The lines of a piece after the first ``base`` lines of its input (known where the
    pieces are scored in order, ``--jobs 1``), numbered as they are scored: the bytes
    :meth:`NumberedLines.filled` would make, without the template and its second pass."""

    def __init__(self, name: str, base: int) -> None:
        super().__init__(name)
        self._base = base

    def add(self, _: PieceResult, scored: Scored) -> None:
        number = self._base + scored.index + 1
        given_id = scored.given_id
        if given_id is None:
            head = self._both % (number, number)
        else:
            head = b'{"id":' + _dumps(given_id) + self._source % number
        self._parts += (head, _dumps(scored.body, option=_NEWLINE)[1:])

    def numbered(self) -> bytes:
        return b"".join(self._parts)


_dumps = orjson.dumps
_NEWLINE = orjson.OPT_APPEND_NEWLINE


@dataclass(slots=True)
class PieceResult:
    """A piece scored: its input, how many lines it had (blank ones too), its lines (NDJSON:
    ``ndjson``; a table: ``items``), their summary, and what stopped its reading early (None:
    nothing)."""

    input: int
    lines: int
    size: int
    items: list[Item] = field(default_factory=list)
    #: bytes: the lines numbered already (:class:`NumberedNdjsonLines`)
    ndjson: NumberedLines | bytes | None = None
    summary: Summary = field(default_factory=Summary)
    problem: str | None = None
    #: the byte of its file where the piece after starts (None: not a byte range)
    end: int | None = None


def scored_lines(piece: Piece, scorer: Scorer) -> Generator[Scored, None, tuple[int, str | None]]:
    """The lines of ``piece`` scored as they are read (blank ones skipped, but a blank ``.json``
    file is an error: it was to hold one log); at the end, the number of lines read (blank ones
    too: they count in the line numbers) and what stopped the reading (None: the end of the
    piece)."""
    lines = 0
    try:
        for index, text in enumerate(read_piece(piece, scorer.config.max_line_bytes)):
            lines = index + 1
            scored = scorer.score(index, text)
            if scored is None and piece.kind is Kind.JSON:
                scored = scorer.no_log(index)
            if scored is not None:
                yield scored
    except InputError as err:
        return lines, str(err)
    return lines, None


def score_piece(
    piece: Piece, scorer: Scorer, use: Callable[[PieceResult, Scored], None]
) -> PieceResult:
    """The result of ``piece``, its summary filled in, after ``use(result, line)`` of every
    scored line."""
    # scored_lines, inlined: once per line of a run, each call and generator step costs
    result = PieceResult(piece.input, 0, piece.size, end=piece.end)
    add, score = result.summary.add, scorer.score
    one_log = piece.kind is Kind.JSON
    lines = 0
    try:
        for index, text in enumerate(read_piece(piece, scorer.config.max_line_bytes)):
            lines = index + 1
            scored = score(index, text)
            if scored is None:
                if not one_log:
                    continue
                scored = scorer.no_log(index)
            add(scored)
            use(result, scored)
    except InputError as err:
        result.problem = str(err)
    result.lines = lines
    return result


def run_task(
    task: Task, config: ScoringConfig, fmt: Format, table: Table = Table.DEALS
) -> list[PieceResult]:
    """A task scored where it runs (a worker process, a Dask worker): its pieces' results."""
    scorer = Scorer.of(config, bodies=fmt is Format.NDJSON)
    if fmt is Format.NDJSON:
        return [_ndjson_piece(piece, scorer) for piece in task]

    def keep(result: PieceResult, s: Scored) -> None:
        result.items.append((s.index, s.given_id, payload(fmt, s, table)))

    return [score_piece(piece, scorer, keep) for piece in task]


def _ndjson_piece(piece: Piece, scorer: Scorer, base: int | None = None) -> PieceResult:
    """A piece scored, its lines as NDJSON waiting for their numbers, or numbered after the
    first ``base`` lines of its input."""
    lines = NdjsonLines(piece.name) if base is None else NumberedNdjsonLines(piece.name, base)
    result = score_piece(piece, scorer, lines.add)
    result.ndjson = lines.numbered()
    return result


# --- writing in order --------------------------------------------------------------------


class Numbering:
    """Where the lines of the pieces of a run are, pieces coming in order: ``FILE:LINE``."""

    def __init__(self, inputs: Sequence[Input]) -> None:
        self.inputs = inputs
        self.current = -1
        self._base = 0  # lines of the current input before this piece
        self._name = ""  # the current input's, looked up once per input, not once per line

    def start(self, input_number: int, base: int = 0) -> bool:
        """Begin a piece of input ``input_number``, after its first ``base`` lines when it is
        the first (a run that continues); True when it is the first of that input."""
        if input_number == self.current:
            return False
        self.current, self._base = input_number, base
        self._name = self.inputs[input_number].name
        return True

    @property
    def base(self) -> int:
        """The lines of the current input before the current piece."""
        return self._base

    def source(self, index: int) -> Source:
        return self.where(index)[0]

    def where(self, index: int) -> tuple[str, str, int]:
        """The source of line ``index`` of the current piece, and its file and line: what a
        table's row begins with, not parsed back out of the source."""
        line = self._base + index + 1
        return f"{self._name}:{line}", self._name, line

    def fill(self, lines: NumberedLines) -> bytes:
        """The lines of the current piece, numbered."""
        return lines.filled(self._base)

    def finish(self, lines: int) -> None:
        self._base += lines


class Ledger(Protocol):
    """Told where each input's lines go and of each piece written
    (:class:`arbiter.archive.output.Ledger`: the manifest)."""

    def started(self, number: int, part: str, at: int) -> None: ...
    def written(self, result: PieceResult, position: int | None) -> None: ...
    def closed(self, number: int) -> None: ...


class Sink:
    """Writes the lines of a run in order, each with its ``id`` and ``source``: to one writer,
    or to one part per input (``parts``: the name and the writer of an input's part, opened when
    its first piece comes and closed after its last). With a ``ledger``, the writer is flushed
    after each piece and the ledger told; with ``resume``, an input taken up after its first
    lines numbers the rest after them."""

    def __init__(
        self,
        inputs: Sequence[Input],
        writer: Writer | None = None,
        parts: Callable[[Input], tuple[str, Writer]] | None = None,
        *,
        ledger: Ledger | None = None,
        name: str = "",
        resume: Resume | None = None,
    ) -> None:
        assert (writer is None) != (parts is None)
        self.numbering = Numbering(inputs)
        self._writer = writer
        self._parts = parts
        self._ledger = ledger
        self._name = name  # of the one part, with ``writer``
        self._resume = resume or {}
        self._last: int | None = None  # the input whose part is open

    def start(self, input_number: int) -> None:
        base = self._resume.get(input_number, Position()).lines
        if not self.numbering.start(input_number, base):
            return
        self._close_part()
        if self._parts is not None:
            self._name, self._writer = self._parts(self.numbering.inputs[input_number])
        self._last = input_number
        if self._ledger is not None:
            assert self._writer is not None
            self._ledger.started(input_number, self._name, self._writer.flush() or 0)

    def put(self, index: int, given_id: str | None, data: Payload) -> None:
        assert self._writer is not None
        source, file, line = self.numbering.where(index)
        self._writer.write(given_id, source, data, (file, line))

    def put_ndjson(self, lines: NumberedLines | bytes) -> None:
        """The NDJSON lines of the current piece (bytes: numbered already)."""
        assert isinstance(self._writer, NdjsonWriter)
        text = lines if isinstance(lines, bytes) else self.numbering.fill(lines)
        self._writer.write_lines(text)

    def finish(self, result: PieceResult) -> None:
        self.numbering.finish(result.lines)
        if self._ledger is not None and self._writer is not None:
            self._ledger.written(result, self._writer.flush())

    def _close_part(self) -> None:
        """The input before, read to its end: its part closed (one part each) or flushed."""
        last = self._last
        if last is None:
            return
        if self._parts is not None and self._writer is not None:
            self._writer.close()
            self._writer = None
        elif self._writer is not None:
            self._writer.flush()
        if self._ledger is not None:
            self._ledger.closed(last)
        self._last = None

    def close(self) -> None:
        self._close_part()
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def abandon(self) -> None:
        """The run stopped: the writer closed as it is (what it holds may be cut)."""
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(OSError, ValueError):
                writer.close()


# --- the ways to run ---------------------------------------------------------------------


class Future(Protocol):
    def result(self) -> list[PieceResult]: ...


Submit = Callable[[Task], Future]
#: Told of every piece done: its result (without its lines once written).
Progress = Callable[[PieceResult], None]


@dataclass(frozen=True, slots=True)
class Job:
    """A run: its inputs, how lines are scored and written, where they go, who is told of
    each piece done."""

    inputs: Sequence[Input]
    config: ScoringConfig
    fmt: Format
    sink: Sink
    progress: Progress
    #: where a run that continues takes up its inputs
    resume: Resume = field(default_factory=dict)
    #: the figures of the run it continues
    earlier: Outcome | None = None
    #: the rows of a table format
    table: Table = Table.DEALS


@dataclass(slots=True)
class Outcome:
    """What a run found: its summary and what stopped the reading of some input."""

    summary: Summary = field(default_factory=Summary)
    problems: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, job: Job) -> Outcome:
        """A run's figures before it starts: those of the run it continues, if any."""
        if job.earlier is None:
            return cls()
        return cls(job.earlier.summary.copy(), list(job.earlier.problems))


def run_here(job: Job, block: int = BLOCK_BYTES) -> Outcome:
    """Every piece scored in this process, each line written as soon as it is scored."""
    outcome = Outcome.of(job)
    scorer = Scorer.of(job.config, bodies=job.fmt is Format.NDJSON)

    fmt, table, put = job.fmt, job.table, job.sink.put

    def write(_: PieceResult, s: Scored) -> None:
        put(s.index, s.given_id, payload(fmt, s, table))

    max_line = job.config.max_line_bytes
    for task in plan(job.inputs, block, max_line, workers_read_gzip=False, resume=job.resume):
        for piece in task:
            job.sink.start(piece.input)
            if fmt is Format.NDJSON:  # in order: the lines numbered as they are scored
                result = _ndjson_piece(piece, scorer, job.sink.numbering.base)
            else:
                result = score_piece(piece, scorer, write)
            _done(job, result, outcome)
    return outcome


def run_with(
    job: Job, submit: Submit, window: int, *, workers_read_gzip: bool, block: int = BLOCK_BYTES
) -> Outcome:
    """Tasks sent to workers through ``submit``, at most ``window`` in flight, and written in
    order as they come back."""
    outcome = Outcome.of(job)
    max_line = job.config.max_line_bytes
    tasks = plan(
        job.inputs, block, max_line, workers_read_gzip=workers_read_gzip, resume=job.resume
    )
    for results in ordered(tasks, submit, window):
        for result in results:
            job.sink.start(result.input)
            for item in result.items:
                job.sink.put(*item)
            result.items = []
            _done(job, result, outcome)
    return outcome


@contextlib.contextmanager
def worker_pool(jobs: int) -> Iterator[ProcessPoolExecutor]:
    """``jobs`` worker processes of this machine, started now: each is a new interpreter that
    imports the engine (about 0.2 s), which then overlaps what the command does before its
    first task (its own imports, opening the output) instead of following it. At the end the
    workers are not waited for: the output is completed while they exit (the process waits
    for them before it ends, and they die with it: :func:`worker_started`)."""
    context = multiprocessing.get_context("spawn")  # no fork of a process with threads
    keep_piece_blocks()
    start = (os.getpid(),)
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=worker_started, initargs=start)
    pool.submit(int)  # nothing to do: the pool starts its processes at its first task
    try:
        yield pool
    finally:
        _stop_workers(pool)


def run_processes(
    job: Job, pool: ProcessPoolExecutor, jobs: int, block: int = BLOCK_BYTES
) -> Outcome:
    """The run in the ``jobs`` processes of ``pool`` (:func:`worker_pool`), four tasks in
    flight for each. They read plain NDJSON files themselves; standard input and ``.gz`` files
    are read here and sent as lines (a worker returns a task's results at once, and a task
    stays small)."""

    def submit(task: Task) -> Future:
        return pool.submit(run_task, task, job.config, job.fmt, job.table)

    try:
        return run_with(job, submit, 4 * jobs, workers_read_gzip=False, block=block)
    finally:
        _stop_workers(pool)  # as soon as the last result is in, or the run stops


def worker_started(parent: int) -> None:
    """In a worker process, first: Ctrl-C and SIGTERM are for the command, which stops its
    workers itself (and no worker prints a traceback); and a worker dies with its parent, even
    one killed with SIGKILL, which can say nothing (Linux: ``PR_SET_PDEATHSIG``; elsewhere the
    workers end when their parent's pipe closes, after their task)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the line above: nobody to tell
        os._exit(1)
    keep_piece_blocks()


#: prctl(2)'s option: the signal a process gets when its parent dies.
_PR_SET_PDEATHSIG = 1
#: mallopt(3)'s options: the size from which a block is mapped on its own, and the free
#: memory at the top of the heap from which it is given back to the system.
_M_MMAP_THRESHOLD, _M_TRIM_THRESHOLD = -3, -1
#: Blocks under this size come from the heap (a piece's results: some 2 MB each)...
PIECE_BLOCK_BYTES = 4 * BLOCK_BYTES
#: ...and the heap keeps this much free memory for the next pieces.
KEPT_FREE_BYTES = 4 * PIECE_BLOCK_BYTES


def keep_piece_blocks() -> bool:
    """With workers, a piece's results cross a pipe as blocks of megabytes (joined, pickled,
    read, unpickled, numbered), which the C library maps for each piece and gives back: 0.6
    page faults a game (200,000 games: 165,000 faults, 51,000 with this). Blocks of up to a
    few pieces' size are taken from the heap instead, and the heap keeps some free memory
    for the pieces after (glibc's ``mallopt``; True when set)."""
    if not sys.platform.startswith("linux"):
        return False
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)  # glibc's, not every C library's
    if mallopt is None:
        return False
    return bool(
        mallopt(_M_MMAP_THRESHOLD, PIECE_BLOCK_BYTES)
        and mallopt(_M_TRIM_THRESHOLD, KEPT_FREE_BYTES)
    )


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """No task started after a run ends, stops or fails; those running end (a piece: a
    fraction of a second), and the workers with them. (Killing a worker could cut a result it
    is sending, on which the executor would wait for ever.)"""
    pool.shutdown(wait=False, cancel_futures=True)


def _done(job: Job, result: PieceResult, outcome: Outcome) -> None:
    """A piece's lines written (an NDJSON piece's now, at once), the piece counted."""
    if result.ndjson is not None:
        job.sink.put_ndjson(result.ndjson)
        result.ndjson = None
    job.sink.finish(result)
    outcome.summary.merge(result.summary)
    if result.problem is not None:
        outcome.problems.append(result.problem)
    job.progress(result)


def ordered(tasks: Iterable[Task], submit: Submit, window: int) -> Iterator[list[PieceResult]]:
    """The results of ``tasks`` in their order, at most ``window`` of them submitted and not yet
    taken."""
    pending: deque[Future] = deque()
    try:
        for task in tasks:
            pending.append(submit(task))
            if len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            cancel: Any = getattr(future, "cancel", None)
            if cancel is not None:
                cancel()
