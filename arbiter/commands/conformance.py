"""``arbiter conformance export`` and ``arbiter conformance check`` (docs/conformance.md).

Exit status of ``check``: 0 when no vector failed (unsupported ones do not fail), 1 when some
did, 2 for bad input (no such vectors, a file altered, no vector selected, a report that
cannot be written) and for an engine that cannot be started or reached at all (tried once,
before the run). The kit — vectors, engines, checker, report — is :mod:`arbiter.conformance`,
imported by the verbs' ``run``.
"""

from __future__ import annotations

import argparse
import sys
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
    from arbiter.conformance.engines import CommandEngine, HttpEngine


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

    exp = verbs.add_parser("export", help="write a set of vectors")
    exp.add_argument("--out", required=True, type=Path, help="the directory to write")
    exp.add_argument("--seed", type=int, help="seed of the search (default: the published set's)")
    exp.add_argument(
        "--per-rule",
        type=_positive,
        help="most vectors per rule (default: the published set's)",
    )
    add_lang(exp)
    exp.set_defaults(run=run_export)

    chk = verbs.add_parser("check", help="check an engine against the vectors")
    engine = chk.add_mutually_exclusive_group(required=True)
    engine.add_argument("--cmd", help="the engine's command (JSON lines on stdin/stdout)")
    engine.add_argument("--url", help="the base URL of a service implementing the HTTP API")
    chk.add_argument("--vectors", type=Path, help="a directory of vectors (the published set)")
    chk.add_argument("--rules", nargs="+", metavar="RULE", help="rules or patterns (illegal:*)")
    chk.add_argument("--rulesets", nargs="+", metavar="RULESET", help="only these rulesets")
    chk.add_argument("--json", dest="json_file", metavar="FILE", help="write the report as JSON")
    add_lang(chk, "the report")
    chk.add_argument(
        "--timeout", type=_seconds, default=10.0, help="seconds per vector (default: %(default)s)"
    )
    chk.add_argument("--api-key", help="sent as X-API-Key to a service that needs one")
    chk.add_argument("--plain", action="store_true", help="a plain-text table even with rich")
    chk.set_defaults(run=run_check)


def run_export(args: argparse.Namespace) -> ExitStatus:
    from arbiter.conformance.export import DEFAULT_PER_RULE, DEFAULT_SEED, export

    seed = DEFAULT_SEED if args.seed is None else args.seed
    per_rule = DEFAULT_PER_RULE if args.per_rule is None else args.per_rule
    try:
        count = export(args.out, seed, per_rule)
    except OSError as err:
        raise CommandError(cannot_write(err.filename or args.out, err, args.lang)) from None
    with output():
        print(words(args.lang, "conformance.written", count=count, path=args.out))
    return ExitStatus.OK


def run_check(args: argparse.Namespace) -> ExitStatus:
    from arbiter.conformance.check import check, select
    from arbiter.conformance.present import render, write_json
    from arbiter.conformance.vectors import PUBLISHED, KitError, load

    lang: Lang = args.lang
    try:
        vectors = select(load(args.vectors or PUBLISHED, args.rulesets), args.rules)
    except KitError as err:
        raise CommandError(str(err)) from None
    if not vectors:
        raise CommandError(words(lang, "conformance.no_match"))
    if args.json_file:
        check_folder(args.json_file, lang)
    engine = _engine(args, lang)
    result = check(vectors, engine)
    if args.json_file:
        try:
            write_json(result, args.json_file, lang)
        except OSError as err:
            raise CommandError(cannot_write(args.json_file, err, lang)) from None
    with output():
        render(result, sys.stdout, lang, rich_ok=not args.plain)
    return ExitStatus.FAILED if result.failed else ExitStatus.OK


def _engine(args: argparse.Namespace, lang: Lang) -> CommandEngine | HttpEngine:
    """The engine under test, started (a command) or reached (a service) once already: one
    that cannot be is one line, not a failure for every vector."""
    from arbiter.conformance.engines import CommandEngine, HttpEngine

    engine: CommandEngine | HttpEngine
    try:
        if args.cmd is not None:
            engine, failed = CommandEngine(args.cmd, args.timeout), "conformance.cannot_start"
        else:
            engine = HttpEngine(args.url, args.timeout, args.api_key)
            failed = "conformance.cannot_reach"
    except ValueError as err:  # a command that does not split, a URL that is not one
        raise CommandError(str(err)) from None
    reason = engine.probe()
    if reason is not None:
        engine.close()
        raise CommandError(words(lang, failed, engine=engine.name, reason=reason))
    return engine
