"""``arbiter score PATH...``: an archive scored to NDJSON, CSV or Parquet, here, in processes or
on Dask, with a progress bar, a summary and an exit status.

Exit status: 0 when every line scored clean, 1 when some line is an error or holds a renuncio
or an illegal event, 2 for bad arguments or an input that cannot be read (missing before the
run; unreadable during it: the run goes on with the other inputs). Messages go to standard
error, never a traceback. The progress bar (rich) is drawn on standard error only when it is a
terminal, and not with ``--quiet``; ``--summary`` prints the figures there at the end. The
scoring itself is :mod:`arbiter.archive`'s, imported by :func:`run` (it imports the service).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arbiter.archive import LOCAL_CLUSTER, Format
from arbiter.commands.console import (
    CommandError,
    ExitStatus,
    add_lang,
    cannot_write,
    check_folder,
    install_hint,
    quiet_stdout,
    say,
    words,
)
from arbiter.i18n import Lang

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID
    from rich.table import Table

    from arbiter.archive.inputs import Input, Skipped
    from arbiter.archive.runner import Job, Outcome, PieceResult, Sink


def register(commands: Any) -> None:
    """Add ``score`` to the subcommands of ``arbiter``."""
    parser = commands.add_parser(
        "score",
        help="score an archive: one game per line, in input order",
        description=(
            "Score recorded games: NDJSON files (one log per line, .gz too), .json logs, "
            "folders of them, or - for standard input. One line out per game, in input order."
        ),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a file, a folder, or -")
    parser.add_argument(
        "--out",
        metavar="FILE|DIR",
        help="a file, or a folder (one part per input file); default: standard output",
    )
    parser.add_argument(
        "--format",
        choices=[f.value for f in Format],
        default=Format.NDJSON.value,
        help="what to write (default: %(default)s)",
    )
    parser.add_argument(
        "--jobs",
        type=jobs,
        metavar="N",
        help="processes, at most the CPUs this one may use (default: all of them)",
    )
    parser.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="in a folder, also read symbolic links that point out of it",
    )
    parser.add_argument(
        "--dask", metavar=f"ADDRESS|{LOCAL_CLUSTER}", help="a Dask scheduler, or a local cluster"
    )
    add_lang(parser)
    parser.add_argument("--summary", action="store_true", help="print the figures at the end")
    parser.add_argument("--summary-json", metavar="FILE", help="write the figures as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def jobs(text: str) -> int:
    """The value of ``--jobs``: a whole number from 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1, not {text!r}")
    return value


def available_cpus() -> int:
    """The CPUs this process may use (its affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # platforms without affinity
        return os.cpu_count() or 1


def _workers(asked: int | None, lang: Lang) -> int:
    """The processes of the run: ``--jobs``, held to the CPUs this process may use (more
    would only share them, each with its own memory), with a note when it is."""
    cpus = available_cpus()
    if asked is None:
        return cpus
    if asked > cpus:
        say(words(lang, "score.jobs_clamped", asked=asked, cpus=cpus))
        return cpus
    return asked


def run(args: argparse.Namespace) -> ExitStatus:
    """Run ``arbiter score`` with its parsed arguments; the exit status."""
    from concurrent.futures.process import BrokenProcessPool

    from rich.console import Console

    from arbiter.archive.cluster import DaskUnavailable
    from arbiter.archive.inputs import InputError, expand
    from arbiter.archive.records import ScoringConfig
    from arbiter.archive.runner import Job
    from arbiter.settings import Settings, SettingsError

    lang: Lang = args.lang
    console = Console(stderr=True)
    fmt = Format(args.format)
    _check_extras(fmt, args.dask, lang)
    if args.summary_json:
        check_folder(args.summary_json, lang)
    try:
        settings = Settings.from_env()
        found = expand(args.paths, follow_symlinks=args.follow_symlinks)
    except (SettingsError, InputError) as err:
        raise CommandError(str(err)) from None
    inputs = found.inputs
    sink = _sink(inputs, fmt, args.out, lang)
    config = ScoringConfig.of(settings, lang)
    workers = _workers(args.jobs, lang)
    started = time.perf_counter()
    show = not args.quiet and console.is_terminal
    try:
        with _progress(console, inputs, lang, show=show) as progress:
            outcome = _run(args.dask, workers, Job(inputs, config, fmt, sink, progress))
            sink.close()
    except BrokenPipeError:
        quiet_stdout()
        return ExitStatus.OK
    except OSError as err:  # the output: a full disk...
        raise CommandError(_output_trouble(err, args.out, lang)) from None
    except DaskUnavailable as err:  # the scheduler
        raise CommandError(str(err)) from None
    except BrokenProcessPool:
        raise CommandError(words(lang, "score.worker_died")) from None
    outcome.problems[:0] = [str(item) for item in found.skipped]
    return _report(args, console, outcome, time.perf_counter() - started, found.skipped)


def _check_extras(fmt: Format, dask: str | None, lang: Lang) -> None:
    """The optional packages the arguments need, before anything is read or written."""
    needs = []
    if fmt is Format.PARQUET:
        needs.append(("--format parquet", "pyarrow", "pyarrow", "archive"))
    if dask is not None:
        needs.append(("--dask", "dask.distributed", "distributed", "dask"))
    for what, package, module, extra in needs:
        if importlib.util.find_spec(module) is None:
            command = install_hint(extra)
            raise CommandError(words(lang, "needs", what=what, package=package, command=command))


def _output_trouble(err: OSError, out: str | None, lang: Lang) -> str:
    path = err.filename or out
    return cannot_write(path, err, lang) if path else err.strerror or str(err)


def _run(dask: str | None, jobs: int, job: Job) -> Outcome:
    from arbiter.archive.cluster import DaskUnavailable, connect, run_dask
    from arbiter.archive.runner import run_here, run_processes

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


def _report(
    args: argparse.Namespace,
    console: Console,
    outcome: Outcome,
    seconds: float,
    skipped: Sequence[Skipped],
) -> ExitStatus:
    import orjson

    for problem in outcome.problems:
        say(problem)
    figures = outcome.summary.to_dict()
    figures["skipped"] = [{"path": item.path, "reason": item.reason} for item in skipped]
    if args.summary_json:
        try:
            Path(args.summary_json).write_bytes(
                orjson.dumps({**figures, "seconds": round(seconds, 3)}, option=orjson.OPT_INDENT_2)
            )
        except OSError as err:
            raise CommandError(cannot_write(args.summary_json, err, args.lang)) from None
    if args.summary:
        console.print(table(figures, seconds, args.lang))
    if outcome.problems:
        return ExitStatus.BAD_INPUT
    summary = outcome.summary
    return ExitStatus.BREACH if summary.error_lines or summary.breaches else ExitStatus.OK


# --- the output ------------------------------------------------------------------------------


def _sink(inputs: Sequence[Input], fmt: Format, out: str | None, lang: Lang) -> Sink:
    """Where the lines go: standard output, the file ``out``, or one part per input in the
    folder ``out`` (an existing folder, or a path ending with ``/``)."""
    from arbiter.archive.formats import Writer, open_writer
    from arbiter.archive.runner import Sink

    if out is None:
        if fmt is Format.PARQUET:
            raise CommandError(words(lang, "score.parquet_out"))
        return Sink(inputs, writer=open_writer(fmt, None, sys.stdout.buffer))
    try:
        if out.endswith(("/", os.sep)) or Path(out).is_dir():
            folder = Path(out)
            folder.mkdir(parents=True, exist_ok=True)
            names = _part_names(inputs, fmt, lang)

            def part(item: Input) -> Writer:
                path = folder / names[item.path]
                path.parent.mkdir(parents=True, exist_ok=True)
                return open_writer(fmt, path)

            return Sink(inputs, parts=part)
        if any(item.path == os.path.abspath(out) for item in inputs):
            raise CommandError(words(lang, "score.out_is_input", path=out))
        return Sink(inputs, writer=open_writer(fmt, Path(out)))
    except OSError as err:
        raise CommandError(_output_trouble(err, out, lang)) from None


def _part_names(inputs: Sequence[Input], fmt: Format, lang: Lang) -> dict[str, str]:
    """The part of each input: its path in its folder, without its archive suffix, then
    ``.scores`` and the format's suffix (``2024/may.ndjson.gz`` → ``2024/may.scores.csv``)."""
    from arbiter.archive.inputs import archive_suffix

    names: dict[str, str] = {}
    taken: dict[str, str] = {}
    for item in inputs:
        stem = item.relative
        suffix = archive_suffix(stem) or (".gz" if stem.lower().endswith(".gz") else "")
        name = f"{stem[: len(stem) - len(suffix)]}.scores{fmt.suffix}"
        if name in taken:
            said = words(lang, "score.same_part", first=taken[name], second=item.name, part=name)
            raise CommandError(said)
        names[item.path], taken[name] = name, item.name
    return names


# --- the progress bar ----------------------------------------------------------------------------


class _Bar:
    """Told of every piece done; draws games, games/s, errors and (total known) the ETA."""

    def __init__(self, progress: Progress | None, task: TaskID | None) -> None:
        from arbiter.archive.summary import Summary

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
def _progress(
    console: Console, inputs: Sequence[Input], lang: Lang, *, show: bool
) -> Iterator[_Bar]:
    if not show:
        yield _Bar(None, None)
        return
    from rich.progress import (
        BarColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeRemainingColumn,
    )

    sizes = [item.size for item in inputs]
    total = None if any(size is None for size in sizes) else sum(s or 0 for s in sizes)
    columns = [
        TextColumn("{task.fields[games]:>10,} " + words(lang, "score.games")),
        TextColumn("{task.fields[rate]:>8,.0f} " + words(lang, "score.rate")),
        TextColumn("{task.fields[errors]:,} " + words(lang, "score.errors")),
        BarColumn(),
        TaskProgressColumn(),
        TimeRemainingColumn(),
    ]
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("scoring", total=total, games=0, rate=0.0, errors=0)
        yield _Bar(progress, task)


# --- the summary -----------------------------------------------------------------------------


def table(figures: dict[str, Any], seconds: float, lang: Lang) -> Table:
    """The ``--summary`` table of the figures of :meth:`arbiter.archive.summary.Summary.to_dict`."""
    from rich.table import Table

    def said(key: str) -> str:
        return words(lang, key)

    out = Table(title=said("summary.title"), title_justify="left", show_header=True)
    out.add_column(said("summary.figure"))
    out.add_column("", justify="left")
    out.add_column(said("summary.count"), justify="right")
    rate = figures["games"] / seconds if seconds > 0 else 0.0
    out.add_row(said("score.games"), "", f"{figures['games']:,}")
    out.add_row("", said("score.rate"), f"{rate:,.0f}")
    out.add_row("", said("summary.breaches"), f"{figures['games_with_breach']:,}")
    _rows(out, said("summary.statuses"), figures["games_by_status"])
    out.add_section()
    out.add_row(said("summary.deals"), "", f"{figures['deals']:,}")
    _rows(out, said("summary.outcomes"), figures["outcomes"])
    out.add_section()
    renuncios = figures["renuncios"]
    out.add_row(said("summary.renuncios"), "", f"{renuncios['total']:,}")
    _rows(out, said("summary.obligations"), renuncios["by_obligation"])
    for ruleset, counts in renuncios["by_ruleset"].items():
        _rows(out, ruleset, counts)
    out.add_section()
    _rows(out, said("summary.illegal"), figures["illegal"], empty=said("summary.none"))
    out.add_section()
    _rows(out, said("score.errors"), figures["errors"], empty=said("summary.none"))
    if figures.get("skipped"):
        out.add_section()
        out.add_row(said("summary.skipped"), "", f"{len(figures['skipped']):,}")
    return out


def _rows(out: Table, heading: str, counts: dict[str, int], empty: str | None = None) -> None:
    if not counts and empty is not None:
        out.add_row(heading, empty, "0")
    for n, (name, count) in enumerate(counts.items()):
        out.add_row(heading if n == 0 else "", name, f"{count:,}")
