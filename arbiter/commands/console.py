"""What every command shares: its exit status, its one-line errors (``arbiter: …``), standard
output that its reader may close early, the reading of a log, and the catalogue's words.

A command says what went wrong by raising :class:`CommandError`; :func:`arbiter.cli.main`
prints it as one line on standard error and exits :attr:`ExitStatus.BAD_INPUT`, never with a
traceback. Words come from the one catalogue, :mod:`arbiter.i18n` (keys ``cli.…``).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import sys
from collections.abc import Iterator
from enum import IntEnum
from pathlib import Path
from typing import Any

from arbiter._build import PACKAGE_ROOT
from arbiter.engine.errors import ArbiterError
from arbiter.i18n import LANGS, Lang, text
from arbiter.jsontext import JsonTextError, loads


class ExitStatus(IntEnum):
    """What ``arbiter`` exits with."""

    OK = 0
    #: a renuncio or an illegal event in the log, a move that is not allowed
    BREACH = 1
    #: a conformance vector that failed
    FAILED = 1
    #: bad arguments or input: unreadable, malformed, refused
    BAD_INPUT = 2
    #: 128 + SIGINT, as shells report a command stopped by Ctrl-C
    INTERRUPTED = 130


class CommandError(Exception):
    """Bad input or arguments: the message is the one line said, after ``arbiter: ``."""


def say(message: str) -> None:
    """One error line on standard error."""
    print(f"arbiter: {message}", file=sys.stderr)


def words(lang: Lang, key: str, **fields: object) -> str:
    """The command's words for ``key`` (``cli.`` + key) in ``lang``."""
    return text(lang, f"cli.{key}", **fields)


def add_lang(parser: argparse.ArgumentParser, what: str = "the messages") -> None:
    """The ``--lang`` option every command takes."""
    parser.add_argument(
        "--lang", choices=LANGS, default="en", help=f"language of {what} (default: en)"
    )


def add_log_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """What a command judging one log takes: the log, ``--json`` and ``--lang``."""
    parser.add_argument("file", help="the log (JSON); - for standard input")
    parser.add_argument("--json", action="store_true", help="print the API's JSON body")
    add_lang(parser, what)


def print_json(body: dict[str, Any]) -> None:
    """An API body on standard output, as the API writes it (UTF-8, not ``\\u`` escapes)."""
    print(json.dumps(body, ensure_ascii=False, indent=2))


# --- standard output -----------------------------------------------------------------------------


@contextlib.contextmanager
def output() -> Iterator[None]:
    """Standard output that its reader may close early: the rest is dropped, quietly (also at
    exit, when Python flushes what is left)."""
    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_stdout()


def quiet_stdout() -> None:
    """Standard output's reader has gone (``arbiter ... | head``): what is left goes to the
    null device, so that Python's flush at exit raises nothing."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


# --- input ----------------------------------------------------------------------------------------


def load_json(data: bytes | str, what: str, lang: Lang) -> Any:
    """``data`` read as the API reads JSON; :class:`CommandError` naming ``what`` if it is not."""
    try:
        return loads(data)
    except JsonTextError as err:
        raise CommandError(words(lang, "error.not_json", what=what, reason=err)) from None


def read_log(path: str, lang: Lang) -> Any:
    """The JSON of the file ``path`` (``-``: standard input)."""
    try:
        data = _read_stdin() if path == "-" else Path(path).read_bytes()
    except OSError as err:
        reason = err.strerror or str(err)
        raise CommandError(words(lang, "error.cannot_read", path=path, reason=reason)) from None
    return load_json(data, words(lang, "stdin") if path == "-" else path, lang)


def _read_stdin() -> bytes | str:
    # bytes, so that the JSON reader checks the UTF-8 (a replaced stdin may be text only)
    buffer = getattr(sys.stdin, "buffer", None)
    return buffer.read() if buffer is not None else sys.stdin.read()


@contextlib.contextmanager
def refusals(lang: Lang) -> Iterator[None]:
    """A log or move the referee refuses, as a :class:`CommandError` naming the field."""
    try:
        yield
    except ArbiterError as err:
        pointer = err.pointer or "/"
        message = words(lang, "error.invalid_input", pointer=pointer, message=err.message)
        raise CommandError(message) from None


# --- output files ---------------------------------------------------------------------------------


def cannot_write(path: str | Path, err: OSError, lang: Lang) -> str:
    """Why ``path`` could not be written, as a sentence naming it (not ``[Errno 2] …``)."""
    folder = Path(path).parent
    blocked = _file_in(folder)
    if blocked is not None:
        reason = words(lang, "reason.not_a_folder", folder=blocked)
    elif err.errno == errno.ENOENT and not folder.exists():
        reason = words(lang, "reason.no_folder", folder=folder)
    elif err.errno == errno.EISDIR:
        reason = words(lang, "reason.is_a_folder")
    else:
        reason = err.strerror or str(err)
    return words(lang, "error.cannot_write", path=path, reason=reason)


def check_folder(path: str | Path, lang: Lang) -> None:
    """:class:`CommandError` unless the folder that is to hold the file ``path`` exists: a run
    must not end with a report it cannot write."""
    if not Path(path).parent.is_dir():
        missing = OSError(errno.ENOENT, os.strerror(errno.ENOENT))
        raise CommandError(cannot_write(path, missing, lang))


def _file_in(folder: Path) -> Path | None:
    """The part of the path ``folder`` that is a file (``a-file`` of ``a-file/x``), if any."""
    for part in (*reversed(folder.parents), folder):
        if part.exists() and not part.is_dir():
            return part
    return None


# --- install hints --------------------------------------------------------------------------------


def install_hint(extra: str) -> str:
    """How to install the optional extra ``extra``: into this source checkout (an editable
    install; the package form would fetch another copy from PyPI), or as a package."""
    if not (PACKAGE_ROOT / "pyproject.toml").is_file():
        return f"pip install 'tute-arbiter[{extra}]'"
    if Path.cwd().resolve() == PACKAGE_ROOT.resolve():
        return f"make install EXTRAS={extra}"
    python = _shown(Path(sys.executable))
    return f"{python} -m pip install -e '{_shown(PACKAGE_ROOT)}[{extra}]'"


def _shown(path: Path) -> str:
    """``path`` as typed from here: relative when it is under the current folder."""
    here = Path.cwd()
    absolute = path if path.is_absolute() else here / path
    if absolute == here:
        return "."
    if absolute.is_relative_to(here):
        return str(absolute.relative_to(here))
    return str(path)


# --- words shared by the reports ------------------------------------------------------------------


def move_text(move: dict[str, Any], lang: Lang) -> str:
    """A move of the API (``{"type": "play", "card": "3B", ...}``) in a few words."""
    kind = move["type"]
    if kind == "tute":
        return words(lang, "move.tute", of=text(lang, f"of.{move['of']}"))
    return words(lang, f"move.{kind}", card=move.get("card"), suit=move.get("suit"))
