"""``arbiter validate LOG --move MOVE``: judge one proposed move at the end of a log — the
verdict in words and the legal moves, or the API's JSON body (``--json``).

Exit status: 0 when the move is allowed, 1 when it is not (a renuncio, an illegal move), 2 for
bad input. Every word follows ``--lang``.
"""

from __future__ import annotations

import argparse
from typing import Any

import arbiter
from arbiter.commands import console
from arbiter.commands.console import ExitStatus
from arbiter.i18n import Lang


def register(commands: Any) -> None:
    """Add ``validate`` to the subcommands of ``arbiter``."""
    parser = commands.add_parser("validate", help="judge one move at the end of a log")
    console.add_log_arguments(parser, "the verdict and the messages")
    parser.add_argument("--move", required=True, help='the move, e.g. \'{"type": "play", ...}\'')
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> ExitStatus:
    move = console.load_json(args.move, "--move", args.lang)
    log = console.read_log(args.file, args.lang)
    with console.refusals(args.lang):
        verdict = arbiter.validate(log, move).to_dict(args.lang)
    with console.output():
        if args.json:
            console.print_json(verdict)
        else:
            for line in verdict_lines(verdict, args.lang):
                print(line)
    return ExitStatus.OK if verdict["legal"] else ExitStatus.BREACH


def verdict_lines(verdict: dict[str, Any], lang: Lang) -> list[str]:
    """The verdict and its message, then the moves open at that point (or why there is none:
    the deal, or the match, is over)."""
    said = console.words(lang, f"verdict.{verdict['verdict']}")
    first = f"{said}: {verdict['message']}"
    if verdict["legal_moves"]:
        moves = ", ".join(console.move_text(m, lang) for m in verdict["legal_moves"])
        return [first, console.words(lang, "validate.moves", moves=moves)]
    over = "match_over" if verdict["code"] == "match_over" else "deal_over"
    return [first, console.words(lang, f"validate.{over}")]
