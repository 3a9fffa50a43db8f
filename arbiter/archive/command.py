"""``arbiter score PATH...``: an archive scored to NDJSON, CSV or Parquet, here, in processes or
on Dask, with a progress bar, a summary and an exit status.

Exit status: 0 when every line scored clean, 1 when some line is an error or holds a renuncio
or an illegal event, 2 for bad arguments or an input that cannot be read (missing before the
run; unreadable during it: the run goes on with the other inputs). Messages go to standard
error, never a traceback. The progress bar (rich) is drawn on standard error only when it is a
terminal, and not with ``--quiet``; ``--summary`` prints the figures there at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import orjson
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeRemainingColumn,
)

from arbiter.archive.cluster import DaskUnavailable, connect, require, run_dask
from arbiter.archive.formats import Writer, open_writer
from arbiter.archive.inputs import Input, InputError, archive_suffix, expand
from arbiter.archive.options import Format, available_cpus
from arbiter.archive.records import ScoringConfig
from arbiter.archive.runner import (
    Job,
    Outcome,
    PieceResult,
    Sink,
    run_here,
    run_processes,
)
from arbiter.archive.summary import Summary, table
from arbiter.cli import EXIT_BAD_INPUT, EXIT_BREACH, EXIT_OK, quiet_stdout
from arbiter.settings import Settings, SettingsError


class UsageError(Exception):
    """Arguments that do not go together; the message says what to change."""


def score(args: argparse.Namespace) -> int:
    """Run ``arbiter score`` with its parsed arguments; the exit status."""
    console = Console(stderr=True)
    try:
        settings = Settings.from_env()
        fmt = Format(args.format)
        inputs = expand(args.paths)
        sink = _sink(inputs, fmt, args.out)
        if args.dask is not None:
            require()
    except (SettingsError, InputError, UsageError, DaskUnavailable, OSError) as err:
        return _fail(err)
    config = ScoringConfig.of(settings, args.lang)
    jobs = args.jobs or available_cpus()
    started = time.perf_counter()
    try:
        with _progress(console, inputs, show=not args.quiet and console.is_terminal) as progress:
            outcome = _run(args.dask, jobs, Job(inputs, config, fmt, sink, progress))
            sink.close()
    except BrokenPipeError:
        quiet_stdout()
        return EXIT_OK
    except (OSError, DaskUnavailable) as err:  # the output (a full disk...), the scheduler
        return _fail(err)
    except BrokenProcessPool:
        return _fail("a worker process died (out of memory?); the output is incomplete")
    seconds = time.perf_counter() - started
    return _report(args, console, outcome, seconds)


def _fail(err: BaseException | str) -> int:
    print(f"arbiter: {err}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _run(dask: str | None, jobs: int, job: Job) -> Outcome:
    if dask is not None:
        with connect(dask, jobs) as client:
            try:
                return run_dask(client, job)
            except (OSError, DaskUnavailable):  # ours: the output, or already said
                raise
            except Exception as err:  # a worker lost, the scheduler gone...: Dask's own words
                raise DaskUnavailable(f"the run on Dask failed: {err!r}") from None
    if jobs == 1:
        return run_here(job)
    return run_processes(job, jobs)


def _report(args: argparse.Namespace, console: Console, outcome: Outcome, seconds: float) -> int:
    for problem in outcome.problems:
        print(f"arbiter: {problem}", file=sys.stderr)
    figures = outcome.summary.to_dict()
    if args.summary_json:
        try:
            Path(args.summary_json).write_bytes(
                orjson.dumps({**figures, "seconds": round(seconds, 3)}, option=orjson.OPT_INDENT_2)
            )
        except OSError as err:
            return _fail(f"cannot write {args.summary_json}: {err.strerror}")
    if args.summary:
        console.print(table(figures, seconds))
    if outcome.problems:
        return EXIT_BAD_INPUT
    summary = outcome.summary
    return EXIT_BREACH if summary.error_lines or summary.breaches else EXIT_OK


# --- the output ------------------------------------------------------------------------------


def _sink(inputs: Sequence[Input], fmt: Format, out: str | None) -> Sink:
    """Where the lines go: standard output, the file ``out``, or one part per input in the
    folder ``out`` (an existing folder, or a path ending with ``/``)."""
    _check_parquet(fmt)
    if out is None:
        if fmt is Format.PARQUET:
            raise UsageError("--format parquet writes a file: give --out FILE or --out DIR")
        return Sink(inputs, writer=open_writer(fmt, None, sys.stdout.buffer))
    if out.endswith(("/", os.sep)) or Path(out).is_dir():
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        names = _part_names(inputs, fmt)

        def part(item: Input) -> Writer:
            path = folder / names[item.path]
            path.parent.mkdir(parents=True, exist_ok=True)
            return open_writer(fmt, path)

        return Sink(inputs, parts=part)
    if any(item.path == os.path.abspath(out) for item in inputs):
        raise UsageError(f"--out {out} is one of the inputs")
    return Sink(inputs, writer=open_writer(fmt, Path(out)))


def _check_parquet(fmt: Format) -> None:
    if fmt is Format.PARQUET:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise UsageError(
                "--format parquet needs pyarrow: pip install 'tute-arbiter[archive]'"
            ) from None


def _part_names(inputs: Sequence[Input], fmt: Format) -> dict[str, str]:
    """The part of each input: its path in its folder, without its archive suffix, then
    ``.scores`` and the format's suffix (``2024/may.ndjson.gz`` → ``2024/may.scores.csv``)."""
    names: dict[str, str] = {}
    taken: dict[str, str] = {}
    for item in inputs:
        stem = item.relative
        suffix = archive_suffix(stem) or (".gz" if stem.lower().endswith(".gz") else "")
        name = f"{stem[: len(stem) - len(suffix)]}.scores{fmt.suffix}"
        if name in taken:
            raise UsageError(f"{taken[name]} and {item.name} would both be written to {name}")
        names[item.path], taken[name] = name, item.name
    return names


# --- the progress bar ----------------------------------------------------------------------------


class _Bar:
    """Told of every piece done; draws games, games/s, errors and (total known) the ETA."""

    def __init__(self, progress: Progress | None, task: TaskID | None) -> None:
        self._progress = progress
        self._task = task
        self._began = time.perf_counter()
        self._figures = Summary()

    def __call__(self, result: PieceResult) -> None:
        if self._progress is None or self._task is None:
            return
        self._figures.games += result.summary.games
        self._figures.statuses.update(result.summary.statuses)
        rate = self._figures.games / max(time.perf_counter() - self._began, 1e-9)
        self._progress.update(
            self._task,
            advance=result.size,
            games=self._figures.games,
            rate=rate,
            errors=self._figures.error_lines,
        )


@contextlib.contextmanager
def _progress(console: Console, inputs: Sequence[Input], *, show: bool) -> Iterator[_Bar]:
    if not show:
        yield _Bar(None, None)
        return
    sizes = [item.size for item in inputs]
    total = None if any(size is None for size in sizes) else sum(s or 0 for s in sizes)
    columns = [
        TextColumn("{task.fields[games]:>10,} games"),
        TextColumn("{task.fields[rate]:>8,.0f} games/s"),
        TextColumn("{task.fields[errors]:,} errors"),
        BarColumn(),
        TaskProgressColumn(),
        TimeRemainingColumn(),
    ]
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("scoring", total=total, games=0, rate=0.0, errors=0)
        yield _Bar(progress, task)
