"""``arbiter serve``: run the HTTP API under gunicorn with the shipped configuration.

The values are checked before gunicorn starts, each refusal one line (exit status 2): workers
from 1, a port from 1 to 65535, a host this machine can listen on, a port nobody listens on
(bound once here and released; gunicorn would retry for seconds, line after line). Then this
process becomes gunicorn (``exec``), so that signals reach its master directly — which imports
only the configuration before its workers patch the standard library with gevent: this module
imports nothing of the service.
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import sys
from pathlib import Path
from typing import Any, Final

from arbiter.commands.console import CommandError, ExitStatus, add_lang, words
from arbiter.i18n import Lang

#: deploy/gunicorn.conf.py of a source checkout (the package is installed editable there).
CONFIG: Final = Path(__file__).resolve().parents[2] / "deploy" / "gunicorn.conf.py"
DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8000
HIGHEST_PORT: Final = 65535


def register(commands: Any) -> None:
    """Add ``serve`` to the subcommands of ``arbiter``."""
    parser = commands.add_parser(
        "serve",
        help="serve the HTTP API with gunicorn",
        description=(
            "Serve the HTTP API under gunicorn with the shipped configuration "
            "(deploy/gunicorn.conf.py); every other setting is read from the environment "
            "(README, Configuration). --host and --port take the place of ARBITER_BIND."
        ),
    )
    parser.add_argument(
        "--host",
        default=DEFAULT_HOST,
        help="the address to listen on; 0.0.0.0 for every interface (default: %(default)s)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"the TCP port, 1 to {HIGHEST_PORT} (default: %(default)s)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="worker processes, 1 or more (default: ARBITER_WORKERS, else one per CPU "
        "this process may use)",
    )
    add_lang(parser, "the refusals")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> ExitStatus:
    """Check the values, then replace this process with gunicorn (it does not return)."""
    lang: Lang = args.lang
    if args.workers is not None and args.workers < 1:
        raise CommandError(words(lang, "serve.workers", value=args.workers))
    if not 1 <= args.port <= HIGHEST_PORT:
        raise CommandError(words(lang, "serve.port", value=args.port))
    check_address(args.host, args.port, lang)
    argv = gunicorn_argv(args.host, args.port, args.workers)
    os.execv(argv[0], argv)


def check_address(host: str, port: int, lang: Lang) -> None:
    """:class:`CommandError` unless ``host:port`` can be bound now: an address of this machine,
    a port that nobody listens on."""
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        found = socket.getaddrinfo(bare, port, type=socket.SOCK_STREAM)
        family, kind, proto, _, address = found[0]
    except (socket.gaierror, UnicodeError) as err:
        reason = getattr(err, "strerror", None) or str(err)
        raise CommandError(words(lang, "serve.host", host=host, reason=reason)) from None
    with socket.socket(family, kind, proto) as probe:
        # as gunicorn binds: a port left in TIME_WAIT is free
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                raise CommandError(words(lang, "serve.busy", host=host, port=port)) from None
            reason = err.strerror or str(err)
            raise CommandError(words(lang, "serve.host", host=host, reason=reason)) from None


def gunicorn_argv(host: str, port: int, workers: int | None) -> list[str]:
    """The command line of gunicorn serving the app on ``host:port``."""
    bind = f"[{host}]:{port}" if ":" in host and not host.startswith("[") else f"{host}:{port}"
    argv = [sys.executable, "-m", "gunicorn", "--bind", bind]
    if CONFIG.is_file():
        argv += ["--config", str(CONFIG)]
    if workers is not None:
        argv += ["--workers", str(workers)]
    return [*argv, "arbiter.wsgi:app"]
