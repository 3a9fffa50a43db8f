"""``arbiter conformance check`` and ``play`` (docs/conformance.md).

Exit status of ``check``: 0 when no vector failed (unsupported ones do not fail), 1 when some
did, 2 for bad input (no such vectors, a file altered, no vector selected, a report that
cannot be written) and for an engine that cannot be started or reached at all (tried once,
before the run). ``play``: 0 when the engine agreed with the referee everywhere, 1 for a
disagreement (or an engine that stopped answering), 2 as for ``check``. A SIGTERM ends either
as an interrupt does: the engine's processes are killed on the way out. The checker is
:mod:`arbiter.conformance.kit`, imported by the verbs' ``run``; it reads the published vectors
(the project writes them with ``python -m devtools.vectors``, which is not installed).
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arbiter.commands.console import (
    CommandError,
    ExitStatus,
    add_lang,
    cannot_write,
    check_folder,
    output,
    words,
)
from arbiter.i18n import Lang

if TYPE_CHECKING:
    from arbiter.conformance.kit.capabilities import Capabilities
    from arbiter.conformance.kit.engines import CommandEngine, HttpEngine

ASKS = ("legal_moves", "verdict", "replay")
#: What play-testing asks at a position (a replay is the vectors' question, not a position's).
PLAY_ASKS = ("legal_moves", "verdict")


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError("must be more than 0 and at most 3600 seconds")
    return value


def register(commands: Any) -> None:
    """Add ``conformance`` and its verbs to the subcommands of ``arbiter``."""
    conf = commands.add_parser("conformance", help="vectors and a checker for other Tute engines")
    verbs = conf.add_subparsers(dest="verb", required=True)

    chk = verbs.add_parser("check", help="check an engine against the vectors")
    _engine_arguments(chk)
    chk.add_argument("--vectors", type=Path, help="a directory of vectors (the published set)")
    chk.add_argument("--rules", nargs="+", metavar="RULE", help="rules or patterns (illegal:*)")
    chk.add_argument("--exclude", nargs="+", metavar="RULE", help="rules or patterns left out")
    chk.add_argument("--rulesets", nargs="+", metavar="RULESET", help="only these rulesets")
    chk.add_argument("--asks", type=_asks, help="only vectors asking these (legal_moves,verdict)")
    chk.add_argument("--json", dest="json_file", metavar="FILE", help="write the report as JSON")
    add_lang(chk, "the report")
    chk.set_defaults(run=run_check)

    ply = verbs.add_parser("play", help="play random games against an engine, as the referee")
    _engine_arguments(ply)
    ply.add_argument("--games", type=_positive, default=200, help="games (default: %(default)s)")
    ply.add_argument("--seed", type=int, default=0, help="seed of the games (default: 0)")
    ply.add_argument("--seconds", type=_seconds, help="stop after these many seconds")
    ply.add_argument("--rulesets", nargs="+", metavar="RULESET", help="only these rulesets")
    ply.add_argument("--options-random", action="store_true", help="random options per game")
    ply.add_argument("--keep-going", action="store_true", help="one reproducer per disagreement")
    ply.add_argument("--asks", type=lambda text: _asks(text, PLAY_ASKS),
                     help="what to ask (default: legal_moves,verdict)")  # fmt: skip
    ply.add_argument("--out", type=Path, metavar="DIR", help="write the reproducers as vectors")
    ply.add_argument("--json", dest="json_file", metavar="FILE", help="write the report as JSON")
    add_lang(ply, "the report")
    ply.set_defaults(run=run_play)


def _asks(text: str, known: tuple[str, ...] = ASKS) -> tuple[str, ...]:
    asks = tuple(a.strip() for a in text.split(",") if a.strip())
    unknown = [a for a in asks if a not in known]
    if unknown or not asks:
        raise argparse.ArgumentTypeError(f"must be some of {','.join(known)}")
    return asks


def _engine_arguments(parser: argparse.ArgumentParser) -> None:
    engine = parser.add_mutually_exclusive_group(required=True)
    engine.add_argument("--cmd", help="the engine's command (JSON lines on stdin/stdout)")
    engine.add_argument("--url", help="the base URL of a service implementing the HTTP API")
    parser.add_argument(
        "--timeout", type=_seconds, default=10.0, help="seconds per answer (default: %(default)s)"
    )
    parser.add_argument("--api-key", help="sent as X-API-Key to a service that needs one")
    parser.add_argument(
        "--protocol", type=int, choices=(1, 2, 3), default=3, help="questions' version (default: 3)"
    )
    parser.add_argument(
        "--capabilities",
        metavar="JSON|FILE",
        help="the engine's capabilities, or some of them over its own (a JSON object or a file)",
    )
    parser.add_argument("--plain", action="store_true", help="plain text even with rich")


def run_check(args: argparse.Namespace) -> ExitStatus:
    from arbiter.conformance.kit.checker import check, select
    from arbiter.conformance.kit.protocol import Ask, KitError
    from arbiter.conformance.kit.report import render, write_json
    from arbiter.conformance.kit.vector_files import PUBLISHED, load

    lang: Lang = args.lang
    asks = None if args.asks is None else [Ask(a) for a in args.asks]
    try:
        loaded = load(args.vectors or PUBLISHED, args.rulesets)
    except KitError as err:
        raise CommandError(str(err)) from None
    vectors = select(loaded, args.rules, exclude=args.exclude, asks=asks)
    if not vectors:
        raise CommandError(words(lang, "conformance.no_match"))
    if args.json_file:
        check_folder(args.json_file, lang)
    overrides = _overrides(args)
    with _engine(args, lang) as engine:
        caps, protocol = _capabilities(engine, args.protocol, overrides)
        result = check(vectors, engine, protocol=protocol, caps=caps)
    if args.json_file:
        try:
            write_json(result, args.json_file, lang)
        except OSError as err:
            raise CommandError(cannot_write(args.json_file, err, lang)) from None
    with output():
        render(result, sys.stdout, lang, rich_ok=not args.plain)
    return ExitStatus.FAILED if result.failed else ExitStatus.OK


def run_play(args: argparse.Namespace) -> ExitStatus:
    from arbiter.conformance.kit.play import Plan, play
    from arbiter.conformance.kit.play_report import render_play, write_play_json
    from arbiter.conformance.kit.protocol import Ask
    from arbiter.conformance.kit.report import words as kit
    from arbiter.conformance.kit.vector_files import write
    from arbiter.engine.rulesets import RULESETS

    lang: Lang = args.lang
    unknown = [r for r in args.rulesets or () if r not in RULESETS]
    if unknown:
        raise CommandError(f"unknown ruleset {unknown[0]!r}; known: {', '.join(RULESETS)}")
    for path in (args.json_file, args.out):  # the folder they go in must be there
        if path:
            check_folder(path, lang)
    overrides = _overrides(args)
    with _engine(args, lang) as engine:
        caps, protocol = _capabilities(engine, args.protocol, overrides)
        # sized to the engine: only what it declares, unless asked for less
        rulesets = tuple(r for r in args.rulesets or caps.rulesets if r in caps.rulesets)
        if not rulesets:
            raise CommandError(kit(lang, "play.no_ruleset"))
        plan = Plan(
            games=args.games,
            seed=args.seed,
            rulesets=rulesets,
            options_random=args.options_random and caps.options == "any",
            keep_going=args.keep_going,
            seconds=args.seconds,
            protocol=protocol,
            asks=tuple(Ask(a) for a in args.asks or ("legal_moves", "verdict")),
            caps=caps,
        )
        with _progress(plan.games) as progress:
            result = play(engine, plan, progress)
    try:
        if args.json_file:
            write_play_json(result, args.json_file, lang)
        if args.out and result.findings:
            import arbiter

            write(args.out, [f.vector for f in result.findings], plan.seed, arbiter.__version__)
    except OSError as err:
        raise CommandError(cannot_write(err.filename or args.out, err, lang)) from None
    with output():
        render_play(result, sys.stdout, lang, rich_ok=not args.plain)
        if args.out and result.findings:
            print(kit(lang, "play.written", count=len(result.findings), path=args.out))
    return ExitStatus.FAILED if result.failed else ExitStatus.OK


def _overrides(args: argparse.Namespace) -> dict[str, Any] | None:
    """``--capabilities``, read and checked before the engine is started."""
    from arbiter.conformance.kit.capabilities import CapabilityError, parse

    if args.capabilities is None:
        return None
    try:
        return parse(args.capabilities)
    except CapabilityError as err:
        raise CommandError(str(err)) from None


def _capabilities(
    engine: CommandEngine | HttpEngine, protocol: int, overrides: dict[str, Any] | None
) -> tuple[Capabilities, int]:
    """The engine's capabilities and the protocol its questions are asked in: protocol 3
    asks the engine first; one that declares none is asked as protocol 2 (its restart after
    a question it could not read is none of the run's)."""
    from arbiter.conformance.kit.capabilities import EVERYTHING, CapabilityError, ask

    caps = EVERYTHING
    try:
        if protocol >= 3:
            restarts = engine.restarts
            declared = ask(engine)
            engine.restarts = restarts
            caps, protocol = (declared, protocol) if declared.declared else (caps, 2)
        if overrides:
            caps = caps.with_values(overrides)
    except CapabilityError as err:
        raise CommandError(f"{engine.name}: {err}") from None
    return caps, protocol


@contextmanager
def _progress(games: int) -> Iterator[Any]:
    """A progress bar of the games on a terminal's standard error (nothing elsewhere)."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task("games", total=games)

        def advanced(run: Any) -> None:
            bar.update(task, completed=run.games, description=f"{run.positions} positions")

        yield advanced


@contextmanager
def _engine(args: argparse.Namespace, lang: Lang) -> Iterator[CommandEngine | HttpEngine]:
    """The engine under test, started (a command) or reached (a service) once already: one
    that cannot be is one line, not a failure for every question. It is closed (a command's
    processes killed) on every way out, a SIGTERM too."""
    from arbiter.conformance.kit.engines import CommandEngine, HttpEngine

    engine: CommandEngine | HttpEngine
    try:
        if args.cmd is not None:
            engine, failed = CommandEngine(args.cmd, args.timeout), "conformance.cannot_start"
        else:
            engine = HttpEngine(args.url, args.timeout, args.api_key)
            failed = "conformance.cannot_reach"
    except ValueError as err:  # a command that does not split, a URL that is not one
        raise CommandError(str(err)) from None
    previous = signal.signal(signal.SIGTERM, _interrupted)
    try:
        reason = engine.probe()
        if reason is not None:
            raise CommandError(words(lang, failed, engine=engine.name, reason=reason))
        yield engine
    finally:
        engine.close()
        signal.signal(signal.SIGTERM, previous)


def _interrupted(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # the command's way out, through every finally on the way
