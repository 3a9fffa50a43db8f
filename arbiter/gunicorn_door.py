"""Everything the worker (:mod:`arbiter.worker`) knows of gunicorn's insides, in one place.

gunicorn's WSGI interface gives a body as a blocking ``read(size)`` that waits until it holds
``size`` bytes; the worker needs the bytes that have arrived (a trickled batch gets its
finished lines answered), a chunk size bounded as soon as its line is read, and a connection
closed after so many answers. For that it reads attributes gunicorn does not publish: each is
used here only, through gunicorn's own methods where there are some (``Unreader.unread``,
``Unreader.take_buffered``), and each has a contract test against the locked gunicorn
(tests/test_gunicorn_door.py): an upgrade that changes one fails there, by name.

:func:`check_version` refuses, when the server starts, a gunicorn whose major and minor
version were not tested (:data:`TESTED`): the attributes may have moved.
"""

from __future__ import annotations

import io
from typing import Any

import gunicorn
from gunicorn.http import body as http_body
from gunicorn.http import errors as http_errors

#: The gunicorn versions (major, minor) whose insides the contract tests checked.
TESTED = frozenset({(27, 0)})


class UntestedGunicorn(RuntimeError):
    """The installed gunicorn is not one whose insides this module was tested against."""


def version_of(text: str) -> tuple[int, int]:
    """``(major, minor)`` of a version string such as ``27.0.1``."""
    parts = text.split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        raise UntestedGunicorn(f"gunicorn's version {text!r} cannot be read") from None


def check_version(text: str | None = None) -> None:
    """Refuse a gunicorn (the installed one, or version ``text``) this module was not tested
    against (:class:`UntestedGunicorn`)."""
    text = gunicorn.__version__ if text is None else text
    if version_of(text) not in TESTED:
        tested = ", ".join(f"{major}.{minor}" for major, minor in sorted(TESTED))
        raise UntestedGunicorn(
            f"arbiter.worker.Worker was tested with gunicorn {tested} only, not {text}: "
            "it reads gunicorn's body readers (arbiter/gunicorn_door.py). Install the locked "
            "version (requirements.lock) or run tests/test_gunicorn_door.py and add it."
        )


# --- the answer's side: gunicorn's Response ---------------------------------------------------


def response_of(start_response: Any) -> Any:
    """gunicorn's Response behind ``start_response`` (its bound method), or None elsewhere."""
    owner = getattr(start_response, "__self__", None)
    return owner if owner is not None and hasattr(owner, "force_close") else None


def close_after(response: Any) -> None:
    """Close the connection once this answer is sent (gunicorn's ``Response.force_close``)."""
    response.force_close()


def request_number(response: Any) -> int:
    """The rank of the answered request on its connection, from 1 (``Request.req_number``)."""
    number: int = getattr(getattr(response, "req", None), "req_number", 0)
    return number


# --- the request's side: the bytes of a body as they arrive -----------------------------------


class Direct:
    """The bytes of a gunicorn request body as they arrive, from its reader: a
    ``Content-Length`` body from the connection's read-ahead buffer and then one receive at a
    time, a chunked one a piece of a chunk at a time (gunicorn's own ``read(size)`` waits until
    it holds ``size`` bytes). Made for a body nothing has read yet, and used for every read
    after (:func:`direct`)."""

    def __init__(self, body: Any) -> None:
        self.body = body
        self.reader = body.reader

    def received(self, size: int) -> bytes | None:
        """Bytes already received (at most ``size``), b"" at the end, None: to wait for.
        What gunicorn's Body kept from a ``read`` made on it comes first."""
        held = _held(self.body, self.body.buf, size)
        return held if held is not None else self._arrived(size)

    def _arrived(self, size: int) -> bytes | None:
        raise NotImplementedError

    def wait(self, size: int) -> bytes:
        """The next bytes to arrive (at most ``size``), b"" at the end."""
        try:
            return self._next(size)
        except BaseException:
            self.body.failed = True  # the connection cannot be reused (gunicorn's Body does so)
            raise

    def _next(self, size: int) -> bytes:
        raise NotImplementedError

    def unread(self, data: bytes) -> None:
        """Put ``data`` (the last bytes taken) back in front of the rest: in front of what
        gunicorn's Body keeps from a ``read`` made on it, which every read takes first. (Body
        has no ``unread`` of its own.)"""
        if data:
            body = self.body
            rest = body.buf.getvalue()
            body.buf = io.BytesIO()
            body.buf.write(data + rest)


def direct(stream: Any, max_chunk: int | None) -> Direct | None:
    """A :class:`Direct` reader of ``stream`` when it is a gunicorn body nothing has read yet
    (None otherwise); a chunked body's chunk sizes are bounded by ``max_chunk``."""
    body = stream
    if not isinstance(body, http_body.Body) or body.buf.tell():
        return None
    reader = body.reader
    if isinstance(reader, http_body.LengthReader):
        return _Length(body)
    if isinstance(reader, http_body.ChunkedReader):
        if max_chunk is not None:
            _bound_chunks(reader, max_chunk)
        return _Chunked(body)
    return None


def _held(stream: Any, buffer: io.BytesIO, size: int) -> bytes | None:
    """At most ``size`` of the bytes ``stream`` keeps in ``buffer`` (its ``read`` of no more
    than that does not wait), or None when it keeps none."""
    held = buffer.tell()
    if not held:
        return None
    data: bytes = stream.read(min(size, held))
    return data


class _Length(Direct):
    def _arrived(self, size: int) -> bytes | None:
        wanted = min(size, self.reader.length)
        if wanted <= 0:
            return b""
        data: bytes = self.reader.unreader.take_buffered()
        return self._take(data, wanted) if data else None

    def _next(self, size: int) -> bytes:
        reader = self.reader
        wanted = min(size, reader.length)
        if wanted <= 0:
            return b""
        return self._take(reader.unreader.read(None, read_ahead=reader.length), wanted)

    def _take(self, data: bytes, wanted: int) -> bytes:
        if len(data) > wanted:
            self.reader.unreader.unread(data[wanted:])
            data = data[:wanted]
        self.reader.length -= len(data)
        return data


class _Chunked(Direct):
    def _arrived(self, size: int) -> bytes | None:
        reader = self.reader
        held = _held(reader, reader.buf, size)
        if held is not None:
            return held
        return b"" if reader.parser is None else None

    def _next(self, size: int) -> bytes:
        reader = self.reader
        piece = b""
        # gunicorn's parser yields an empty piece when a receive ends right after a chunk-size
        # line: that is no end of the body (only StopIteration is), so ask again (issue 29).
        while not piece:
            try:
                piece = next(reader.parser)
            except StopIteration:
                reader.parser = None
                return b""
        if len(piece) > size:
            reader.buf.write(piece[size:])
            piece = piece[:size]
        return piece


def _bound_chunks(reader: Any, limit: int) -> None:
    """Make ``reader`` (a gunicorn ``ChunkedReader``) refuse a chunk size over ``limit`` as
    soon as it reads its line: gunicorn would wait for all of its bytes. Its parser looks
    ``parse_chunk_size`` up on the reader at each chunk, so the instance's own is used."""
    parse = reader.parse_chunk_size

    def parse_chunk_size(unreader: Any, data: Any = None) -> tuple[int, Any]:
        size, rest = parse(unreader, data=data)
        if size > limit:
            raise http_errors.InvalidChunkSize(b"over %d bytes" % limit)
        return size, rest

    reader.parse_chunk_size = parse_chunk_size
