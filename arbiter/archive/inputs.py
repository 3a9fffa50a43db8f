"""The inputs of an archive run, and the pieces they are read in.

An input is an NDJSON file (one game log per line, optionally ``.gz``), a ``.json`` file (one
log, as ``POST /v1/scores`` takes it), standard input (``-``, NDJSON), or a folder, which stands
for the files in it and its subfolders with those suffixes (:data:`SUFFIXES`), in the order of
their paths. A folder is read no further than it holds: a symbolic link whose target is out of
it is not followed (unless asked), and what cannot be read — a subfolder, a file, a FIFO, a link
loop — is named (:class:`Skipped`), never dropped without a word.

A :class:`Piece` is what one worker reads and scores: a byte range of a plain NDJSON file (the
lines that *start* in it: a line cut by the range's end is read to its end, one cut by its start
belongs to the piece before), a whole ``.gz`` or ``.json`` file, or lines read already by the
process that plans (standard input; ``.gz`` files when the workers are this machine's
processes, which keeps memory bounded: a worker returns a piece's results at once).
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import io
import itertools
import os
import stat
import sys
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import IO, Final, Protocol, TextIO

from arbiter.archive.lines import split_lines
from arbiter.archive.records import Oversized, Text
from arbiter.archive.remote import RemoteError, is_remote, listing, open_remote

#: Bytes read at a time.
CHUNK: Final = 256 * 1024
#: The name standard input goes by in ``source``.
STDIN_NAME: Final = "stdin"


class Kind(Enum):
    """How an input is read."""

    NDJSON = "ndjson"
    GZIP = "ndjson.gz"
    JSON = "json"
    STDIN = "stdin"


#: The suffixes of the files a folder stands for, and how each is read.
SUFFIXES: Final = {
    ".ndjson": Kind.NDJSON,
    ".jsonl": Kind.NDJSON,
    ".ndjson.gz": Kind.GZIP,
    ".jsonl.gz": Kind.GZIP,
    ".json": Kind.JSON,
}


class Stream(Protocol):
    """What is read of a file: a binary file, a gzip file, standard input."""

    def read(self, size: int = -1, /) -> bytes: ...
    def seek(self, offset: int, whence: int = 0, /) -> int: ...
    def tell(self) -> int: ...
    def close(self) -> None: ...


class InputError(Exception):
    """An input that cannot be read (missing, not a file, not gzip, cut short...)."""


@dataclass(frozen=True, slots=True)
class Input:
    """One file (or standard input) of a run: where it is (an absolute path, for workers in
    other folders), what it is called in ``source`` (the path as given), how it is read, its
    size (None: unknown), and its path relative to the folder it came from (the name of its
    part with ``--out DIR``)."""

    path: str
    name: str
    kind: Kind
    size: int | None
    relative: str


#: Longest first, so that ``.ndjson.gz`` is found before ``.json`` could be.
_LONGEST_FIRST: Final = sorted(SUFFIXES, key=len, reverse=True)


def archive_suffix(name: str) -> str | None:
    """The suffix of :data:`SUFFIXES` that ``name`` ends with, in any case (None: none)."""
    lower = name.lower()
    return next((suffix for suffix in _LONGEST_FIRST if lower.endswith(suffix)), None)


def kind_of(path: str) -> Kind:
    """How a file named ``path`` is read: by its suffix; any other suffix is NDJSON."""
    suffix = archive_suffix(path)
    if suffix is not None:
        return SUFFIXES[suffix]
    return Kind.GZIP if path.lower().endswith(".gz") else Kind.NDJSON


@dataclass(frozen=True, slots=True)
class Skipped:
    """Something a folder holds that the run does not read, and why."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


@dataclass(frozen=True, slots=True)
class Found:
    """The files the arguments stand for, in order, and what their folders hold that is not
    read (a run that skips anything is incomplete, and says so)."""

    inputs: list[Input]
    skipped: list[Skipped]


def expand(paths: Sequence[str], *, follow_symlinks: bool = False) -> Found:
    """The files the arguments stand for; :class:`InputError` for one that is missing or
    unreadable, or a folder holding no archive file. In a folder, a symbolic link whose target
    is out of it is followed only with ``follow_symlinks``; what cannot be read (a subfolder, a
    file, a FIFO, a link loop) is :class:`Skipped`."""
    inputs: list[Input] = []
    skipped: list[Skipped] = []
    for path in paths:
        if path == "-":
            inputs.append(Input("-", STDIN_NAME, Kind.STDIN, None, STDIN_NAME))
            continue
        if is_remote(path):
            inputs += _remote_inputs(path)
            continue
        target = Path(path)
        if target.is_dir():
            found = _Folder(target, path, follow_symlinks).walk()
            inputs += found.inputs
            skipped += found.skipped
        elif target.is_file():
            _check_readable(path)
            size = target.stat().st_size
            inputs.append(Input(os.path.abspath(path), path, kind_of(path), size, target.name))
        elif target.exists():
            raise InputError(f"{path} is not a file or a folder")
        else:
            raise InputError(f"cannot read {path}: no such file or folder")
    return Found(inputs, skipped)


def _remote_inputs(url: str) -> list[Input]:
    """The archive files a URL stands for (:mod:`arbiter.archive.remote`)."""
    try:
        found = listing(url)
    except RemoteError as err:
        raise InputError(str(err)) from None
    if len(found) == 1 and found[0][0] == url:
        return [Input(url, url, kind_of(url), found[0][1], found[0][2])]
    inputs = [
        Input(item, item, kind_of(item), size, relative)
        for item, size, relative in found
        if archive_suffix(relative) is not None
    ]
    if not inputs:
        raise InputError(f"{url} holds no archive file ({', '.join(SUFFIXES)})")
    return inputs


def skipped_error(skipped: Sequence[Skipped], shown: int = 5) -> InputError:
    """One error for what was skipped (the first ``shown`` named, the rest counted)."""
    said = "; ".join(str(item) for item in skipped[:shown])
    more = len(skipped) - shown
    return InputError(said + (f"; and {more} more" if more > 0 else ""))


#: What a file that is neither regular nor a folder is, by its ``st_mode``.
_SPECIAL: Final = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class _Folder:
    """One folder argument walked: its archive files, and what it holds that is not read."""

    def __init__(self, folder: Path, given: str, follow: bool) -> None:
        self.folder = folder
        self.given = given
        self.follow = follow
        self.root = os.path.realpath(folder)
        self.files: list[tuple[str, str]] = []  # (relative, path as given)
        self.skipped: list[Skipped] = []
        self._walked = {self.root}  # real paths of the folders walked (no loops, no twice)

    def walk(self) -> Found:
        pending = [""]
        while pending:
            prefix = pending.pop()
            for relative, path, entry in self._entries(prefix):
                folder = self._take(relative, path, entry)
                if folder is not None:
                    pending.append(folder + "/")
        if not self.files and not self.skipped:
            suffixes = ", ".join(SUFFIXES)
            raise InputError(f"{self.given} holds no archive file ({suffixes})")
        inputs = []
        for relative, path in sorted(self.files, key=lambda item: Path(item[0]).parts):
            size = os.stat(path).st_size
            inputs.append(Input(os.path.abspath(path), path, kind_of(path), size, relative))
        skipped = sorted(self.skipped, key=lambda item: item.path)
        return Found(inputs, skipped)

    def _entries(self, prefix: str) -> list[tuple[str, str, os.DirEntry[str]]]:
        directory = os.path.join(self.given, prefix) if prefix else self.given
        try:
            with os.scandir(directory) as entries:
                listed = list(entries)
        except OSError as err:
            self._skip(prefix.rstrip("/"), f"cannot read the folder: {err.strerror}")
            return []
        return [(prefix + e.name, os.path.join(self.given, prefix + e.name), e) for e in listed]

    def _take(self, relative: str, path: str, entry: os.DirEntry[str]) -> str | None:
        """Take an entry's file, or say why not; a folder to walk next: its relative path."""
        archive = archive_suffix(relative) is not None
        try:
            mode = os.stat(path).st_mode  # through a link: what it points to
        except OSError as err:
            if archive or not entry.is_symlink():
                self._skip(relative, _unreachable(err, entry.is_symlink()))
            return None
        if entry.is_symlink():
            target = os.path.realpath(path)
            inside = target == self.root or target.startswith(self.root + os.sep)
            if stat.S_ISDIR(mode) and inside:
                return None  # its files are walked by their own path, in the folder
            if (stat.S_ISDIR(mode) or archive) and not inside and not self.follow:
                self._skip(relative, f"a symbolic link to {target}, outside {self.given}: not "
                                     "followed (--follow-symlinks follows it)")  # fmt: skip
                return None
            if stat.S_ISDIR(mode):
                if target in self._walked:
                    return None
                self._walked.add(target)
                return relative
        elif stat.S_ISDIR(mode):
            return relative
        if archive:
            self._file(relative, path, mode)
        return None

    def _file(self, relative: str, path: str, mode: int) -> None:
        if not stat.S_ISREG(mode):
            what = next((name for test, name in _SPECIAL if test(mode)), "not a file")
            self._skip(relative, f"not a regular file ({what}): not read")
            return
        try:
            with open(path, "rb"):
                pass
        except OSError as err:
            self._skip(relative, f"cannot read the file: {err.strerror}")
            return
        self.files.append((relative, path))

    def _skip(self, relative: str, reason: str) -> None:
        path = os.path.join(self.given, relative) if relative else self.given
        self.skipped.append(Skipped(path, reason))


def _unreachable(err: OSError, link: bool) -> str:
    if err.errno == errno.ELOOP:
        return "a symbolic link loop: not read"
    if link and err.errno == errno.ENOENT:
        return "a broken symbolic link: not read"
    return f"cannot read: {err.strerror}"


def _check_readable(path: str) -> None:
    try:
        with open(path, "rb"):
            pass
    except OSError as err:
        raise InputError(f"cannot read {path}: {err.strerror}") from None


# --- pieces ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Piece:
    """What one worker reads: from input number ``input`` of the run (``name`` in messages), the
    byte range ``[start, end)`` of a plain NDJSON file (``end`` None: to its end), the whole
    file, or the lines in ``texts`` (read by the planner). ``size``: the input bytes it stands
    for."""

    input: int
    name: str
    path: str
    kind: Kind
    start: int = 0
    end: int | None = None
    texts: tuple[Text, ...] | None = None
    size: int = 0
    #: what stopped the planner reading the input after ``texts`` (None: nothing)
    problem: str | None = None
    #: lines of the file passed over before the first one read (a run that continues)
    skip: int = 0


#: Pieces scored by one task, in order.
Task = tuple[Piece, ...]


@dataclass(frozen=True, slots=True)
class Position:
    """Where a run that continues takes up an input: after its first ``lines`` lines, which
    end at byte ``offset`` of a plain NDJSON file (None: other kinds, read from their start
    and the lines passed over); ``done``: nothing of it is left."""

    lines: int = 0
    offset: int | None = None
    done: bool = False


#: Input number → where a run that continues takes it up (inputs not in it: from the start).
Resume = dict[int, Position]


def plan(
    inputs: Sequence[Input],
    block: int,
    max_line: int,
    *,
    workers_read_gzip: bool,
    resume: Resume | None = None,
) -> Iterator[Task]:
    """The tasks of a run, in input order, made as they are asked for (standard input and the
    ``.gz`` files the planner reads are read then): plain NDJSON files in ranges of ``block``
    bytes, ``.json`` files together up to ``block`` bytes, the rest whole or in lines. With
    ``resume``, what a run before did is passed over."""
    small: list[Piece] = []
    small_bytes = 0
    for number, item in enumerate(inputs):
        at = (resume or {}).get(number, Position())
        if at.done:
            continue
        if item.kind is Kind.JSON:
            small.append(Piece(number, item.name, item.path, item.kind, size=item.size or 0))
            small_bytes += item.size or 0
            if small_bytes >= block:
                yield tuple(small)
                small, small_bytes = [], 0
            continue
        if small:
            yield tuple(small)
            small, small_bytes = [], 0
        if item.kind is Kind.NDJSON:
            # a piece ends where the one after starts, so a run that continues from the end of
            # one reads the same pieces as a run that did not stop
            size = item.size or 0
            for start in range(at.offset or 0, size, block):
                end = min(start + block, size)
                piece = Piece(number, item.name, item.path, item.kind, start, end, size=end - start)
                yield (piece,)
        elif item.kind is Kind.GZIP and workers_read_gzip:
            whole = Piece(number, item.name, item.path, item.kind, size=item.size or 0)
            yield (replace(whole, skip=at.lines),)
        else:
            yield from _inline(number, item, block, max_line, at.lines)
    if small:
        yield tuple(small)


def _inline(number: int, item: Input, block: int, max_line: int, skip: int) -> Iterator[Task]:
    """Tasks of lines read here, about ``block`` bytes each, after the first ``skip``; the last
    says what stopped the reading, if anything did. A piece's ``size`` is the bytes of the file
    it took (compressed, for a ``.gz``: what the progress of a run counts)."""
    texts: list[Text] = []
    size, taken = 0, 0
    problem = None
    reader = open_input(item)

    def piece() -> Piece:
        nonlocal taken
        position = reader.position
        done, taken = (size, taken) if position is None else (position - taken, position)
        return Piece(number, item.name, item.path, item.kind, texts=tuple(texts), size=done)

    try:
        for text in itertools.islice(split_lines(reader.chunks(), max_line), skip, None):
            texts.append(text)
            size += text.size if isinstance(text, Oversized) else len(text) + 1
            if size >= block:
                yield (piece(),)
                texts, size = [], 0
    except InputError as err:
        problem = str(err)
    if texts or problem is not None:
        yield (replace(piece(), problem=problem),)


# --- reading -----------------------------------------------------------------------------


class Reader:
    """The decoded bytes of one input, in chunks; :class:`InputError` when they cannot be read."""

    def __init__(self, stream: Stream, name: str, kind: Kind, raw: Stream | None = None) -> None:
        self.stream = stream
        self.name = name
        self.kind = kind
        self._raw = raw  # the file under a gzip stream
        #: how far into the file reading has got (None: standard input, which cannot say)
        self.position: int | None = None if kind is Kind.STDIN else 0

    def _advance(self) -> None:
        if self.position is not None:
            with contextlib.suppress(OSError, ValueError):
                self.position = (self._raw or self.stream).tell()

    def chunks(self, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        """The bytes of the lines that start in ``[start, end)`` (a seekable plain file), or all
        of them."""
        try:
            if start or end is not None:
                yield from _range(self.stream, start, end)
            else:  # read1: what a cut gzip file held before its cut comes out too
                read = getattr(self.stream, "read1", self.stream.read)  # a remote file: read
                while chunk := read(CHUNK):
                    self._advance()
                    yield chunk
        except (OSError, EOFError, zlib.error) as err:
            raise InputError(f"{self.name}: {_reason(err)}") from None
        finally:
            if self.kind is not Kind.STDIN:
                self.stream.close()


def _reason(err: Exception) -> str:
    # Never the text of gzip's own error: it quotes the file's first bytes (b'ro' of a
    # password file), and a file that is not gzip may be anything.
    if isinstance(err, gzip.BadGzipFile):
        return "not gzip data"
    if isinstance(err, zlib.error):
        return f"not gzip data ({err})"
    if isinstance(err, EOFError):
        return "the gzip data is cut short"
    strerror = err.strerror if isinstance(err, OSError) else None
    return strerror or str(err)


def _range(stream: Stream, start: int, end: int | None) -> Iterator[bytes]:
    if start > 0:
        stream.seek(start - 1)
        # a line that began before start is the piece before's
        if stream.read(1) != b"\n" and not _skip_line(stream):
            return
        start = stream.tell()
    position, last = start, b"\n"
    while end is None or position < end:
        chunk = stream.read(CHUNK if end is None else min(CHUNK, end - position))
        if not chunk:
            return
        position += len(chunk)
        last = chunk[-1:]
        yield chunk
    if last != b"\n":
        # the last line started before end: read it to its newline
        while chunk := stream.read(CHUNK):
            cut = chunk.find(b"\n")
            if cut >= 0:
                yield chunk[: cut + 1]
                return
            yield chunk


def _skip_line(stream: Stream) -> bool:
    """Past the next newline (False: none before the end of the file)."""
    while chunk := stream.read(CHUNK):
        cut = chunk.find(b"\n")
        if cut >= 0:
            stream.seek(cut + 1 - len(chunk), io.SEEK_CUR)
            return True
    return False


def open_input(item: Input | Piece) -> Reader:
    """A :class:`Reader` of an input (or of the file of a piece)."""
    name = item.name
    if item.kind is Kind.STDIN:
        return Reader(_stdin(), name, item.kind)
    try:
        raw = open_bytes(item.path)
    except OSError as err:
        raise InputError(f"cannot read {name}: {err.strerror}") from None
    except RemoteError as err:
        raise InputError(str(err)) from None
    if item.kind is Kind.GZIP:
        return Reader(gzip.GzipFile(fileobj=raw, mode="rb"), name, item.kind, raw)
    return Reader(raw, name, item.kind)


def open_bytes(path: str) -> IO[bytes]:
    """A file of this machine or a URL (:mod:`arbiter.archive.remote`), opened to read."""
    if is_remote(path):
        return open_remote(path)
    return open(path, "rb")


class _TextAsBytes:
    """A standard input replaced by a text stream (no ``buffer``), read as UTF-8 bytes."""

    def __init__(self, text: TextIO) -> None:
        self._text = text

    def read(self, size: int = -1, /) -> bytes:
        return self._text.read(size).encode("utf-8", "surrogatepass")

    read1 = read  # what a binary standard input has

    def seek(self, offset: int, whence: int = 0, /) -> int:
        raise io.UnsupportedOperation("standard input is read in order")

    def tell(self) -> int:
        raise io.UnsupportedOperation("standard input is read in order")

    def close(self) -> None:
        pass


def _stdin() -> Stream:
    buffer: Stream | None = getattr(sys.stdin, "buffer", None)
    return _TextAsBytes(sys.stdin) if buffer is None else buffer


def read_piece(piece: Piece, max_line: int) -> Iterator[Text]:
    """The lines of a piece (blank ones too: they count in the line numbers)."""
    if piece.texts is not None:
        yield from piece.texts
        if piece.problem is not None:
            raise InputError(piece.problem)
        return
    reader = open_input(piece)
    if piece.kind is Kind.JSON:
        yield _whole(reader, max_line)
        return
    lines = split_lines(reader.chunks(piece.start, piece.end), max_line)
    yield from itertools.islice(lines, piece.skip, None)


def _whole(reader: Reader, max_line: int) -> Text:
    """A ``.json`` file as one line (its newlines are JSON white space)."""
    kept: list[bytes] = []
    size = 0
    for chunk in reader.chunks():
        size += len(chunk)
        if size <= max_line:
            kept.append(chunk)
    return b"".join(kept) if size <= max_line else Oversized(size)
