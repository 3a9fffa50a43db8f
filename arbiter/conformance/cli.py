"""``arbiter conformance export`` and ``arbiter conformance check`` (docs/conformance.md).

Exit status of ``check``: 0 when no vector failed (unsupported ones do not fail), 1 when some
did, 2 for bad input (no such vectors, a file altered, no vector selected).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

# the command's standard output, which its reader may close early
from arbiter.cli import _output as output
from arbiter.conformance.check import check, select
from arbiter.conformance.engines import CommandEngine, Engine, HttpEngine
from arbiter.conformance.export import DEFAULT_PER_RULE, DEFAULT_SEED, export
from arbiter.conformance.present import render, write_json
from arbiter.conformance.vectors import PUBLISHED, KitError, load
from arbiter.i18n import LANGS

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


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


def register(sub: Any) -> None:
    """Add ``conformance`` to the ``arbiter`` command's subcommands."""
    conf = sub.add_parser("conformance", help="vectors and a checker for other Tute engines")
    verbs = conf.add_subparsers(dest="verb", required=True)

    exp = verbs.add_parser("export", help="write a set of vectors")
    exp.add_argument("--out", required=True, type=Path, help="the directory to write")
    exp.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the search")
    exp.add_argument(
        "--per-rule", type=_positive, default=DEFAULT_PER_RULE, help="most vectors per rule"
    )
    exp.set_defaults(func=_export)

    chk = verbs.add_parser("check", help="check an engine against the vectors")
    engine = chk.add_mutually_exclusive_group(required=True)
    engine.add_argument("--cmd", help="the engine's command (JSON lines on stdin/stdout)")
    engine.add_argument("--url", help="the base URL of a service implementing the HTTP API")
    chk.add_argument("--vectors", type=Path, help="a directory of vectors (the published set)")
    chk.add_argument("--rules", nargs="+", metavar="RULE", help="rules or patterns (illegal:*)")
    chk.add_argument("--rulesets", nargs="+", metavar="RULESET", help="only these rulesets")
    chk.add_argument("--json", dest="json_file", metavar="FILE", help="write the report as JSON")
    chk.add_argument("--lang", choices=LANGS, default="en", help="language of the report")
    chk.add_argument("--timeout", type=_seconds, default=10.0, help="seconds per vector")
    chk.add_argument("--api-key", help="sent as X-API-Key to a service that needs one")
    chk.add_argument("--plain", action="store_true", help="a plain-text table even with rich")
    chk.set_defaults(func=_check)


def _export(args: argparse.Namespace) -> int:
    try:
        count = export(args.out, args.seed, args.per_rule)
    except OSError as err:
        print(f"arbiter: cannot write {args.out}: {err.strerror or err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(f"{count} vectors written to {args.out}")
    return EXIT_OK


def _check(args: argparse.Namespace) -> int:
    try:
        vectors = select(load(args.vectors or PUBLISHED, args.rulesets), args.rules)
    except KitError as err:
        print(f"arbiter: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if not vectors:
        print("arbiter: no vector matches --rules and --rulesets", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        engine: Engine = (
            CommandEngine(args.cmd, args.timeout)
            if args.cmd is not None
            else HttpEngine(args.url, args.timeout, args.api_key)
        )
    except ValueError as err:  # a command that does not split, a URL that is not one
        print(f"arbiter: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    run = check(vectors, engine)
    if args.json_file:
        try:
            write_json(run, args.json_file, args.lang)
        except OSError as err:
            print(f"arbiter: cannot write {args.json_file}: {err.strerror or err}", file=sys.stderr)
            return EXIT_BAD_INPUT
    with output():
        render(run, sys.stdout, args.lang, rich_ok=not args.plain)
    return EXIT_FAILED if run.failed else EXIT_OK
