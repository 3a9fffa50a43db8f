"""``arbiter score PATH...``: an archive scored to NDJSON, CSV or Parquet, here, in processes or
on Dask, with a progress bar, a summary and an exit status.

Exit status (:class:`Exit`): 0 when every line scored and no game holds a renuncio or an
illegal event; 1 when all scored and some game does (findings); 3 when some line could not be
scored or some input could not be read to its end (bad data: the run went on with the rest);
2 when the run could not be made or finished (bad arguments, a missing input, an output that
cannot be written, a worker or the Dask scheduler lost); 128 + the signal when SIGTERM or
SIGINT stopped it (143, 130). Messages go to standard error, never a traceback. The progress
bar (rich) is drawn on standard error when it is a terminal, and not with ``--quiet``; with
``--progress SECONDS`` a line every so many seconds when it is not (a cron job, a pod's log);
``--summary`` prints the figures there at the end. Outputs are written under names that say
they are partial until complete, with a manifest beside (:mod:`arbiter.archive.output`);
``--resume`` continues a run that stopped. The scoring itself is :mod:`arbiter.archive`'s,
imported by :func:`run` (it imports the service).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from arbiter.archive import LOCAL_CLUSTER, Format, Table
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
    from concurrent.futures import ProcessPoolExecutor

    from rich.console import Console
    from rich.progress import Progress, TaskID
    from rich.table import Table as RichTable

    from arbiter.archive.inputs import Input, Resume, Skipped
    from arbiter.archive.output import Ledger
    from arbiter.archive.records import ScoringConfig
    from arbiter.archive.runner import Job, Outcome, PieceResult, Sink
    from arbiter.archive.summary import Summary


class Exit(IntEnum):
    """What ``arbiter score`` exits with (see the module)."""

    OK = 0
    #: every line scored; some game holds a renuncio or an illegal event
    FINDINGS = 1
    #: the run could not be made or finished
    FAILED = 2
    #: some line was not scored, or some input not read to its end
    BAD_DATA = 3


class Stopped(Exception):
    """SIGTERM or SIGINT: the run stops, says what it did, and exits 128 + the signal."""

    def __init__(self, number: int) -> None:
        super().__init__(signal.Signals(number).name)
        self.number = number


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
        "--table",
        choices=[t.value for t in Table],
        default=Table.DEALS.value,
        help="for csv and parquet: a row per deal, or per seat of each deal (default: deals)",
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
    parser.add_argument(
        "--progress",
        type=seconds,
        metavar="SECONDS",
        help="when standard error is not a terminal: a progress line every SECONDS",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run to --out that stopped (same inputs and options)",
    )
    parser.set_defaults(run=run)


def seconds(text: str) -> float:
    """The value of ``--progress``: seconds, more than 0."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds over 0, not {text!r}")
    return value


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


def run(args: argparse.Namespace) -> int:
    """Run ``arbiter score`` with its parsed arguments; the exit status."""
    from arbiter.archive.inputs import InputError, expand
    from arbiter.archive.records import ScoringConfig
    from arbiter.settings import Settings, SettingsError

    lang: Lang = args.lang
    fmt = Format(args.format)
    _check_extras(fmt, args.dask, lang)
    if args.summary_json:
        check_folder(args.summary_json, lang)
        with contextlib.suppress(FileNotFoundError):  # a report never looks like this run's
            os.unlink(args.summary_json)
    try:
        settings = Settings.from_env()
        found = expand(args.paths, follow_symlinks=args.follow_symlinks)
    except (SettingsError, InputError) as err:
        raise CommandError(str(err)) from None
    config = ScoringConfig.of(settings, lang)
    table = Table(args.table)
    if table is not Table.DEALS and fmt is Format.NDJSON:
        raise CommandError(words(lang, "score.table_needs_a_table"))
    workers = _workers(args.jobs, lang)
    with _pool(args.dask, workers) as pool:
        output = _output(found.inputs, (fmt, table), args.out, config, lang, resume=args.resume)
        return _scored(args, found.skipped, output, config, (workers, pool))


@contextlib.contextmanager
def _pool(dask: str | None, workers: int) -> Iterator[ProcessPoolExecutor | None]:
    """The worker processes of a run with more than one, started as soon as the inputs are
    known (:func:`arbiter.archive.runner.worker_pool`); None: the run is scored here or by Dask."""
    if dask is not None or workers == 1:
        yield None
        return
    from arbiter.archive.runner import worker_pool

    with worker_pool(workers) as pool:
        yield pool


def _scored(
    args: argparse.Namespace,
    skipped: Sequence[Skipped],
    output: _Output,
    config: ScoringConfig,
    processes: tuple[int, ProcessPoolExecutor | None],
) -> int:
    """The run made and reported: its exit status."""
    from concurrent.futures.process import BrokenProcessPool

    from rich.console import Console

    from arbiter.archive.cluster import DaskUnavailable
    from arbiter.archive.runner import Job

    lang: Lang = args.lang
    console = Console(stderr=True)
    fmt, table, inputs = Format(args.format), Table(args.table), output.sink.numbering.inputs
    started = time.perf_counter()
    show = not args.quiet and console.is_terminal
    every = None if console.is_terminal else args.progress
    bar = _Bar(output.earlier, lang, every)
    try:
        with _progress(console, inputs, lang, bar, show=show), _stopping():
            job = Job(inputs, config, fmt, output.sink, bar, output.resume, output.earlier, table)
            outcome = _run(args.dask, processes, job)
            _hold_signals()  # the output is being completed: no signal leaves it half done
            output.sink.close()
            if output.ledger is not None:
                output.ledger.finish()
    except BrokenPipeError:
        quiet_stdout()
        return ExitStatus.OK
    except Stopped as stop:
        said = _stop(args, output, bar, str(stop), time.perf_counter() - started)
        games = f"{bar.figures.games:,}"
        say(words(lang, "score.stopped", signal=stop, games=games, where=said))
        return 128 + stop.number
    except (OSError, DaskUnavailable, BrokenProcessPool) as err:
        message = _failure(err, args.out, lang)
        _stop(args, output, bar, message, time.perf_counter() - started)
        raise CommandError(message) from None
    outcome.problems[:0] = [str(item) for item in skipped]
    continued = 0 if output.earlier is None else output.earlier.summary.games
    return _report(args, console, outcome, time.perf_counter() - started, skipped, continued)


def _failure(err: BaseException, out: str | None, lang: Lang) -> str:
    """What stopped a run, in one sentence."""
    if isinstance(err, OSError):  # the output (or its manifest): a full disk...
        return _output_trouble(err, out, lang, final=True)
    from arbiter.archive.cluster import DaskUnavailable

    if isinstance(err, DaskUnavailable):  # the scheduler
        return str(err)
    return words(lang, "score.worker_died")


def _stop(args: argparse.Namespace, output: _Output, bar: _Bar, reason: str, seconds: float) -> str:
    """A run that stops: its output left partial, with a manifest and a summary of what is
    done (as far as the disk allows); where the output is."""
    output.sink.abandon()
    if output.ledger is None:
        where = words(args.lang, "stdout")
    else:
        output.ledger.stop(reason)
        where = str(output.ledger.target.unfinished)
    if args.summary_json:
        with contextlib.suppress(OSError):
            continued = 0 if output.earlier is None else output.earlier.summary.games
            figures = _figures(bar.figures, [], seconds, stopped=reason, continued=continued)
            _write_summary(args.summary_json, figures)
    return where


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


def _output_trouble(err: OSError, out: str | None, lang: Lang, *, final: bool = False) -> str:
    """Why the output cannot be written, naming it (``final``: by the name the user gave, not
    the partial one written first)."""
    path = (out if final else None) or err.filename or out
    return cannot_write(path, err, lang) if path else err.strerror or str(err)


@contextlib.contextmanager
def _stopping() -> Iterator[None]:
    """SIGTERM and SIGINT raise :class:`Stopped` (once: a second one while the run stops is
    ignored, so that what is done gets written)."""

    def stop(number: int, _: FrameType | None) -> None:
        _hold_signals()
        raise Stopped(number)

    before = {name: signal.signal(name, stop) for name in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for name, handler in before.items():
            signal.signal(name, handler)


def _hold_signals() -> None:
    """SIGTERM and SIGINT ignored until :func:`_stopping` ends."""
    for name in (signal.SIGTERM, signal.SIGINT):
        signal.signal(name, signal.SIG_IGN)


def _run(dask: str | None, processes: tuple[int, ProcessPoolExecutor | None], job: Job) -> Outcome:
    from arbiter.archive.cluster import DaskUnavailable, connect, failure, from_dask, run_dask
    from arbiter.archive.runner import run_here, run_processes

    jobs, pool = processes

    if dask is not None:
        try:
            with connect(dask, jobs) as client:
                return run_dask(client, job)
        except Exception as err:  # a cluster that goes away as the client leaves it...
            if isinstance(err, DaskUnavailable) or not from_dask(err):
                raise  # already said, or ours (the output)
            raise DaskUnavailable(failure(err, dask)) from None
    if pool is None:
        return run_here(job)
    return run_processes(job, pool, jobs)


def _report(
    args: argparse.Namespace,
    console: Console,
    outcome: Outcome,
    seconds: float,
    skipped: Sequence[Skipped],
    continued: int,
) -> int:
    for problem in outcome.problems:
        say(problem)
    figures = _figures(
        outcome.summary, skipped, seconds, problems=outcome.problems, continued=continued
    )
    if args.summary_json:
        try:
            _write_summary(args.summary_json, figures)
        except OSError as err:
            raise CommandError(cannot_write(args.summary_json, err, args.lang)) from None
    if args.summary:
        console.print(table(figures, seconds, args.lang))
    summary = outcome.summary
    if outcome.problems or summary.error_lines:
        return Exit.BAD_DATA
    return Exit.FINDINGS if summary.breaches else Exit.OK


def _figures(
    summary: Summary,
    skipped: Sequence[Skipped],
    seconds: float,
    *,
    problems: Sequence[str] = (),
    stopped: str | None = None,
    continued: int = 0,
) -> dict[str, Any]:
    """What ``--summary-json`` writes: the figures, whether the run finished and why not, and
    how many of the games are those of the run it continued (``--resume``)."""
    figures = summary.to_dict()
    figures["skipped"] = [{"path": item.path, "reason": item.reason} for item in skipped]
    figures["problems"] = list(problems)
    figures["seconds"] = round(seconds, 3)
    done = summary.games - continued  # in this run
    figures["games_per_second"] = round(done / seconds) if seconds > 0 else 0
    figures["finished"] = stopped is None
    figures["stopped"] = stopped
    figures["continued"] = continued
    return figures


def _write_summary(path: str, figures: dict[str, Any]) -> None:
    import orjson

    from arbiter.archive.output import write_atomically

    write_atomically(Path(path), orjson.dumps(figures, option=orjson.OPT_INDENT_2), durable=True)


# --- the output ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Output:
    """Where a run writes: its sink, the manifest kept beside (None: standard output), and
    where it takes up the run it continues."""

    sink: Sink
    ledger: Ledger | None
    resume: Resume
    earlier: Outcome | None


def _output(
    inputs: Sequence[Input],
    shape: tuple[Format, Table],
    out: str | None,
    config: ScoringConfig,
    lang: Lang,
    *,
    resume: bool,
) -> _Output:
    """Where the lines go: standard output, the file ``out``, or one part per input in the
    folder ``out`` (an existing folder, or a path ending with ``/``), each written under a
    partial name first (:mod:`arbiter.archive.output`)."""
    fmt = shape[0]
    if out is None:
        if fmt is Format.PARQUET:
            raise CommandError(words(lang, "score.parquet_out"))
        if resume:
            raise CommandError(words(lang, "score.resume_needs_out"))
        return _Output(_stdout_sink(inputs, fmt), None, {}, None)
    try:
        return _to_path(inputs, shape, out, config, lang, resume=resume)
    except OSError as err:
        raise CommandError(_output_trouble(err, out, lang, final=True)) from None


def _stdout_sink(inputs: Sequence[Input], fmt: Format) -> Sink:
    from arbiter.archive.formats import open_writer
    from arbiter.archive.runner import Sink

    return Sink(inputs, writer=open_writer(fmt, None, sys.stdout.buffer))


def _to_path(
    inputs: Sequence[Input],
    shape: tuple[Format, Table],
    out: str,
    config: ScoringConfig,
    lang: Lang,
    *,
    resume: bool,
) -> _Output:
    from dataclasses import asdict

    from arbiter.archive.formats import Writer, compressed, open_writer
    from arbiter.archive.output import (
        FileTarget,
        FolderTarget,
        Ledger,
        RemoteTarget,
        Target,
        earlier,
    )
    from arbiter.archive.remote import is_remote
    from arbiter.archive.runner import Sink

    fmt, table = shape
    remote = is_remote(out)
    if remote and (resume or out.endswith("/")):
        raise CommandError(words(lang, "score.remote_out"))
    folder = not remote and (out.endswith(("/", os.sep)) or Path(out).is_dir())
    if not folder and any(item.path == os.path.abspath(out) for item in inputs):
        raise CommandError(words(lang, "score.out_is_input", path=out))
    names = _part_names(inputs, shape, lang) if folder else {}
    target: Target = FolderTarget(Path(out)) if folder else FileTarget(Path(out))
    if remote:
        target = RemoteTarget(out)
    options = {"format": fmt.value, "table": table.value, **asdict(config)}
    ledger = Ledger.start(target, fmt, inputs, options)
    continued = _continued(ledger, lang) if resume else None
    if continued is None:
        target.fresh()  # what a run before left partial is written again
    else:
        ledger = continued.ledger
    keep = {} if continued is None else continued.keep
    if folder:
        target.unfinished.mkdir(parents=True, exist_ok=True)

        def part(item: Input) -> tuple[str, Writer]:
            name = names[item.path]
            path = target.partial(name)
            path.parent.mkdir(parents=True, exist_ok=True)
            return name, open_writer(fmt, path, keep=keep.get(name, 0), table=table)

        sink = Sink(inputs, parts=part, ledger=ledger, resume=continued and continued.resume)
    else:
        name = Path(out).name
        packed = compressed(Path(out))
        if packed and fmt is Format.PARQUET:
            raise CommandError(words(lang, "score.parquet_gzip"))
        at = keep.get(name, 0)
        writer = open_writer(fmt, target.unfinished, keep=at, table=table, gzip_members=packed)
        resumed = continued and continued.resume
        sink = Sink(inputs, writer=writer, ledger=ledger, name=name, resume=resumed)
    ledger.save()
    positions = {} if continued is None else continued.resume
    return _Output(sink, ledger, positions, earlier(continued))


def _continued(ledger: Ledger, lang: Lang) -> Any:
    """The run to continue (None: none; said)."""
    from arbiter.archive.output import ResumeError, resume

    try:
        continued = resume(ledger)
    except ResumeError as err:
        raise CommandError(words(lang, "score.cannot_resume", reason=err)) from None
    if continued is None:
        say(words(lang, "score.nothing_to_resume", path=ledger.target.unfinished))
    return continued


def _part_names(inputs: Sequence[Input], shape: tuple[Format, Table], lang: Lang) -> dict[str, str]:
    """The part of each input: its path in its folder, without its archive suffix, then
    ``.scores`` (``.seats`` for the table of seats) and the format's suffix
    (``2024/may.ndjson.gz`` → ``2024/may.scores.csv``)."""
    fmt, table = shape
    kind = "seats" if table is Table.SEATS else "scores"
    from arbiter.archive.inputs import archive_suffix

    names: dict[str, str] = {}
    taken: dict[str, str] = {}
    for item in inputs:
        stem = item.relative
        suffix = archive_suffix(stem) or (".gz" if stem.lower().endswith(".gz") else "")
        name = f"{stem[: len(stem) - len(suffix)]}.{kind}{fmt.suffix}"
        if name in taken:
            said = words(lang, "score.same_part", first=taken[name], second=item.name, part=name)
            raise CommandError(said)
        names[item.path], taken[name] = name, item.name
    return names


# --- the progress bar ----------------------------------------------------------------------------


class _Bar:
    """Told of every piece done: counts what is done (the figures of a run that stops), draws
    games, games/s, errors and (total known) the ETA, and with ``every`` says them in a line
    on standard error every so many seconds."""

    def __init__(self, earlier: Outcome | None, lang: Lang, every: float | None) -> None:
        from arbiter.archive.summary import Summary

        self.progress: Progress | None = None
        self.task: TaskID | None = None
        self.figures = Summary() if earlier is None else earlier.summary.copy()
        self._lang = lang
        self._every = every
        self._began = self._said = time.perf_counter()
        self._games = self.figures.games  # of the run continued: not in this run's rate
        self._done = 0
        self.total: int | None = None

    def __call__(self, result: PieceResult) -> None:
        self.figures.merge(result.summary)
        self._done += result.size
        now = time.perf_counter()
        rate = (self.figures.games - self._games) / max(now - self._began, 1e-9)
        if self.progress is not None and self.task is not None:
            errors = self.figures.error_lines
            self.progress.update(
                self.task, advance=result.size, games=self.figures.games, rate=rate, errors=errors
            )
        if self._every is not None and now - self._said >= self._every:
            self._said = now
            self._line(rate)

    def _line(self, rate: float) -> None:
        share = "" if not self.total else f" ({100 * self._done / self.total:.0f} %)"
        said = words(
            self._lang,
            "score.progress",
            games=f"{self.figures.games:,}",
            rate=f"{rate:,.0f}",
            errors=f"{self.figures.error_lines:,}",
        )
        print(f"arbiter: {said}{share}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def _progress(
    console: Console, inputs: Sequence[Input], lang: Lang, bar: _Bar, *, show: bool
) -> Iterator[_Bar]:
    sizes = [item.size for item in inputs]
    bar.total = None if any(size is None for size in sizes) else sum(s or 0 for s in sizes)
    if not show:
        yield bar
        return
    from rich.progress import (
        BarColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeRemainingColumn,
    )

    columns = [
        TextColumn("{task.fields[games]:>10,} " + words(lang, "score.games")),
        TextColumn("{task.fields[rate]:>8,.0f} " + words(lang, "score.rate")),
        TextColumn("{task.fields[errors]:,} " + words(lang, "score.errors")),
        BarColumn(),
        TaskProgressColumn(),
        TimeRemainingColumn(),
    ]
    with Progress(*columns, console=console) as progress:
        bar.progress = progress
        bar.task = progress.add_task("scoring", total=bar.total, games=0, rate=0.0, errors=0)
        yield bar


# --- the summary -----------------------------------------------------------------------------


def table(figures: dict[str, Any], seconds: float, lang: Lang) -> RichTable:
    """The ``--summary`` table of the figures of :meth:`arbiter.archive.summary.Summary.to_dict`."""
    from rich.table import Table as RichTable

    def said(key: str) -> str:
        return words(lang, key)

    out = RichTable(title=said("summary.title"), title_justify="left", show_header=True)
    out.add_column(said("summary.figure"))
    out.add_column("", justify="left")
    out.add_column(said("summary.count"), justify="right")
    rate = figures["games"] / seconds if seconds > 0 else 0.0
    out.add_row(said("score.games"), "", f"{figures['games']:,}")
    out.add_row("", said("score.rate"), f"{rate:,.0f}")
    out.add_row("", said("summary.breaches"), f"{figures['games_with_breach']:,}")
    _rows(out, said("summary.statuses"), figures["games_by_status"])
    _rows(out, said("summary.rulesets"), figures["games_by_ruleset"])
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


def _rows(out: RichTable, heading: str, counts: dict[str, int], empty: str | None = None) -> None:
    if not counts and empty is not None:
        out.add_row(heading, empty, "0")
    for n, (name, count) in enumerate(counts.items()):
        out.add_row(heading if n == 0 else "", name, f"{count:,}")
