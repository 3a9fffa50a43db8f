"""The ``arbiter`` command: its parser, built from the subcommands of :mod:`arbiter.commands`
(replay, validate, score, serve, conformance), and :func:`main`.

Exit status (:class:`~arbiter.commands.console.ExitStatus`): 0 when the log (or move) is clean,
1 when it holds a renuncio or an illegal event (or the move is not allowed, or a conformance
vector failed), 2 for bad input (unreadable file, malformed log, bad arguments), 130 when
interrupted (Ctrl-C). It never prints a traceback: bad input is one line on standard error, and
a reader that stops early (``arbiter replay log.json --json | head -5``) ends the output
quietly, with the exit status of the verdict.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from arbiter import BUILD, __version__
from arbiter.commands import conformance, replay, score, serve, validate
from arbiter.commands.console import CommandError, ExitStatus, say, words


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return int(args.run(args))
    except CommandError as err:
        say(str(err))
        return ExitStatus.BAD_INPUT
    except KeyboardInterrupt:
        say(words(getattr(args, "lang", "en"), "error.interrupted"))
        return ExitStatus.INTERRUPTED


def parser() -> argparse.ArgumentParser:
    """The parser of every subcommand (cheap: none of them imports the service to build it)."""
    top = argparse.ArgumentParser(prog="arbiter", description="A referee for Tute.")
    top.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__} ({BUILD} engine)"
    )
    commands = top.add_subparsers(dest="command", required=True)
    for command in (replay, validate, score, serve, conformance):
        command.register(commands)
    return top


if __name__ == "__main__":
    sys.exit(main())
