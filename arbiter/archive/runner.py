"""Running an archive: pieces scored here, in worker processes or on a Dask cluster, and
written in input order.

Every way runs the same two functions: :func:`scored_lines` reads and scores one piece where
it runs (this process, a worker process, a Dask worker), and a :class:`Sink` here writes what
it scored, stamping each line with its ``id`` and ``source`` (only the reader of the whole input
knows a line's number: a piece of a file knows where its lines are among its own). With workers,
:func:`ordered` keeps a bounded window of tasks in flight and takes their results in order, so
memory holds a few pieces' results whatever the size of the archive.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from arbiter.archive import Format
from arbiter.archive.formats import Row, Writer, payload
from arbiter.archive.inputs import Input, InputError, Kind, Piece, Task, plan, read_piece
from arbiter.archive.records import Scored, Scorer, ScoringConfig, Source
from arbiter.archive.summary import Summary

T = TypeVar("T")

#: Bytes of input in one piece of a plain NDJSON file, or of lines read here for workers:
#: about a thousand games, a few tens of milliseconds of scoring.
BLOCK_BYTES = 2 * 1024 * 1024

Payload = bytes | list[Row]
#: A line of a piece as a worker sends it back: its index in the piece, the id its log gave
#: (None: none), its payload.
Item = tuple[int, str | None, Payload]


@dataclass(slots=True)
class PieceResult:
    """A piece scored: its input, how many lines it had (blank ones too), its lines, their
    summary, and what stopped its reading early (None: nothing)."""

    input: int
    lines: int
    size: int
    items: list[Item] = field(default_factory=list)
    summary: Summary = field(default_factory=Summary)
    problem: str | None = None


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


def each(lines: Generator[Scored, None, T], use: Callable[[Scored], None]) -> T:
    """``use`` every line of ``lines``; what the generator returns."""
    while True:
        try:
            scored = next(lines)
        except StopIteration as stop:
            done: T = stop.value
            return done
        use(scored)


def score_piece(
    piece: Piece, scorer: Scorer, use: Callable[[PieceResult, Scored], None]
) -> PieceResult:
    """The result of ``piece``, its summary filled in, after ``use(result, line)`` of every
    scored line."""
    result = PieceResult(piece.input, 0, piece.size)

    def counted(scored: Scored) -> None:
        result.summary.add(scored)
        use(result, scored)

    result.lines, result.problem = each(scored_lines(piece, scorer), counted)
    return result


def run_task(task: Task, config: ScoringConfig, fmt: Format) -> list[PieceResult]:
    """A task scored where it runs (a worker process, a Dask worker): its pieces' results."""
    scorer = Scorer.of(config)

    def keep(result: PieceResult, s: Scored) -> None:
        result.items.append((s.index, s.given_id, payload(fmt, s)))

    return [score_piece(piece, scorer, keep) for piece in task]


# --- writing in order --------------------------------------------------------------------


class Numbering:
    """Where the lines of the pieces of a run are, pieces coming in order: ``FILE:LINE``."""

    def __init__(self, inputs: Sequence[Input]) -> None:
        self.inputs = inputs
        self.current = -1
        self._base = 0  # lines of the current input before this piece

    def start(self, input_number: int) -> bool:
        """Begin a piece of input ``input_number``; True when it is the first of that input."""
        if input_number == self.current:
            return False
        self.current, self._base = input_number, 0
        return True

    def source(self, index: int) -> Source:
        number = self._base + index + 1
        return f"{self.inputs[self.current].name}:{number}"

    def finish(self, lines: int) -> None:
        self._base += lines


class Sink:
    """Writes the lines of a run in order, each with its ``id`` and ``source``: to one writer,
    or to one part per input (``parts``: the writer of an input, opened when its first piece
    comes and closed after its last)."""

    def __init__(
        self,
        inputs: Sequence[Input],
        writer: Writer | None = None,
        parts: Callable[[Input], Writer] | None = None,
    ) -> None:
        assert (writer is None) != (parts is None)
        self.numbering = Numbering(inputs)
        self._writer = writer
        self._parts = parts

    def start(self, input_number: int) -> None:
        if self.numbering.start(input_number) and self._parts is not None:
            if self._writer is not None:
                self._writer.close()
            self._writer = self._parts(self.numbering.inputs[input_number])

    def put(self, index: int, given_id: str | None, data: Payload) -> None:
        assert self._writer is not None
        self._writer.write(given_id, self.numbering.source(index), data)

    def finish(self, lines: int) -> None:
        self.numbering.finish(lines)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None


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


@dataclass(slots=True)
class Outcome:
    """What a run found: its summary and what stopped the reading of some input."""

    summary: Summary = field(default_factory=Summary)
    problems: list[str] = field(default_factory=list)


def run_here(job: Job, block: int = BLOCK_BYTES) -> Outcome:
    """Every piece scored in this process, each line written as soon as it is scored."""
    outcome = Outcome()
    scorer = Scorer.of(job.config)

    def write(_: PieceResult, s: Scored) -> None:
        job.sink.put(s.index, s.given_id, payload(job.fmt, s))

    for task in plan(job.inputs, block, job.config.max_line_bytes, workers_read_gzip=False):
        for piece in task:
            job.sink.start(piece.input)
            _done(job, score_piece(piece, scorer, write), outcome)
    return outcome


def run_with(
    job: Job, submit: Submit, window: int, *, workers_read_gzip: bool, block: int = BLOCK_BYTES
) -> Outcome:
    """Tasks sent to workers through ``submit``, at most ``window`` in flight, and written in
    order as they come back."""
    outcome = Outcome()
    max_line = job.config.max_line_bytes
    tasks = plan(job.inputs, block, max_line, workers_read_gzip=workers_read_gzip)
    for results in ordered(tasks, submit, window):
        for result in results:
            job.sink.start(result.input)
            for item in result.items:
                job.sink.put(*item)
            result.items = []
            _done(job, result, outcome)
    return outcome


def run_processes(job: Job, jobs: int, block: int = BLOCK_BYTES) -> Outcome:
    """The run in ``jobs`` worker processes of this machine, four tasks in flight for each.
    They read plain NDJSON files themselves; standard input and ``.gz`` files are read here
    and sent as lines (a worker returns a task's results at once, and a task stays small)."""
    context = multiprocessing.get_context("spawn")  # no fork of a process with threads
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_ignore_interrupts) as pool:

        def submit(task: Task) -> Future:
            return pool.submit(run_task, task, job.config, job.fmt)

        try:
            return run_with(job, submit, 4 * jobs, workers_read_gzip=False, block=block)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _ignore_interrupts() -> None:
    """In a worker process: Ctrl-C is for the command, which stops the workers itself (and no
    worker prints a traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _done(job: Job, result: PieceResult, outcome: Outcome) -> None:
    job.sink.finish(result.lines)
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
