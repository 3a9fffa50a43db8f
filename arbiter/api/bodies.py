"""Reading request bodies: media type, content coding, a limit on the bytes read, JSON.

Views read their body with :func:`read_json`; an endpoint that takes more than a JSON object
(the archive batch: NDJSON, gzip) says so with its own :class:`Accepts` and reads the bounded,
decoded stream of :func:`decoded_chunks`. What is refused, always as a problem:

- **Media type** (415): ``application/json`` and ``application/*+json`` only, and
  ``application/x-ndjson`` where the endpoint takes it; a ``charset`` other than UTF-8 too.
- **Content coding** (415, with ``Accept-Encoding`` naming what the endpoint takes): none
  unless the endpoint takes ``gzip``; any other coding, or stacked codings, never.
- **Size** (413): counted on the bytes actually read, with a ``Content-Length`` or chunked; a
  gzip body's decoded size has the same limit, checked while it is decoded, so a small
  compressed body never expands in memory past the limit; an endpoint may also bound how many
  times the body expands (the batch: ``ARBITER_BATCH_MAX_RATIO``), so that what it costs
  follows what the client sent.
- **Time** (408): the worker (:mod:`arbiter.worker`) makes ``wsgi.input`` raise
  :class:`TimeoutError` once the body has taken longer than ``ARBITER_BODY_TIMEOUT``. The body
  is read with ``read1`` where the stream has it (the worker's does): the bytes that have
  arrived, without waiting for a whole chunk.
- **Text** (400): not strict JSON (:mod:`arbiter.jsontext`: NaN, Infinity, numbers past a
  64-bit float, invalid UTF-8 are named as such).

A problem raised before the whole body is read asks the server to close the connection
(``Connection: close``): what is left of the body is then never drained.
"""

from __future__ import annotations

import logging
import re
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from flask import current_app, request
from werkzeug.http import parse_options_header

from arbiter.contract import Problem
from arbiter.jsontext import JsonTextError, loads
from arbiter.settings import Settings

JSON = "application/json"
NDJSON = "application/x-ndjson"
IDENTITY, GZIP = "identity", "gzip"
#: Bytes asked of the stream at a time.
CHUNK = 64 * 1024

_log = logging.getLogger("arbiter.api")
#: application/<name>+json, <name> as RFC 6838 restricts it.
_STRUCTURED_JSON = re.compile(r"application/[a-z0-9][a-z0-9!#$&^_.+-]*\+json")
_CLOSE = {"Connection": "close"}
#: The names RFC 9110 (8.4.1.3) gives gzip.
_GZIP_NAMES = frozenset({GZIP, "x-gzip"})


@dataclass(frozen=True, slots=True)
class Accepts:
    """What an endpoint takes: a JSON document (or not: the batch takes NDJSON only), NDJSON,
    a gzip-coded body."""

    ndjson: bool = False
    gzip: bool = False
    json: bool = True

    @property
    def encodings(self) -> str:
        """The ``Accept-Encoding`` of a 415 (RFC 9110, 15.5.16)."""
        return f"{GZIP}, {IDENTITY}" if self.gzip else IDENTITY

    @property
    def media_types(self) -> str:
        types = [f"{JSON} (or application/*+json)"] if self.json else []
        types += [NDJSON] if self.ndjson else []
        return " or ".join(types)


#: A JSON document, not compressed: every endpoint of today.
JSON_ONLY = Accepts()


def _unsupported(detail: str, accepts: Accepts) -> Problem:
    headers = {"Accept-Encoding": accepts.encodings, **_CLOSE}
    return Problem(415, "Unsupported Media Type", detail, headers=headers)


def _too_large(limit: int, what: str = "request body") -> Problem:
    detail = f"The {what} is larger than the limit of {limit} bytes."
    return Problem(413, "Request Entity Too Large", detail, headers=_CLOSE)


def _too_compressed(max_ratio: float) -> Problem:
    detail = (
        f"The gzip-coded body expands more than {max_ratio:g} times "
        "(ARBITER_BATCH_MAX_RATIO): send it less compressed, or as it is."
    )
    return Problem(413, "Request Entity Too Large", detail, headers=_CLOSE)


def check_media_type(content_type: str | None, accepts: Accepts = JSON_ONLY) -> None:
    """415 unless ``content_type`` is one that ``accepts`` takes, in UTF-8."""
    if accepts.json and content_type == JSON:  # what nearly every client sends: nothing to parse
        return
    mimetype, params = parse_options_header(content_type or "")
    mimetype = mimetype.lower()
    known = mimetype == JSON or _STRUCTURED_JSON.fullmatch(mimetype) is not None
    if not ((accepts.json and known) or (accepts.ndjson and mimetype == NDJSON)):
        sent = f"{mimetype[:80]!r}" if mimetype else "no Content-Type"
        raise _unsupported(f"Send the body as {accepts.media_types}, not {sent}.", accepts)
    charset = params.get("charset", "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        raise _unsupported(f"JSON is UTF-8: charset {charset[:40]!r} is not accepted.", accepts)


def content_coding(header: str | None, accepts: Accepts = JSON_ONLY) -> str:
    """The coding of the body, ``identity`` or ``gzip``; 415 for any other."""
    codings = [c.strip().lower() for c in (header or "").split(",")]
    codings = [c for c in codings if c and c != IDENTITY]
    if not codings:
        return IDENTITY
    if accepts.gzip and len(codings) == 1 and codings[0] in _GZIP_NAMES:
        return GZIP
    if accepts.gzip:
        detail = "Send the body as it is or gzip-coded (Content-Encoding: gzip), once."
    else:
        detail = "This endpoint takes no Content-Encoding: send the body uncompressed."
    raise _unsupported(detail, accepts)


def _content_length(environ: Mapping[str, Any]) -> int | None:
    raw = environ.get("CONTENT_LENGTH") or ""
    if not raw:
        return None
    if not raw.isdigit():  # gunicorn refuses these before the app; other servers may not
        raise Problem(400, "Bad Request", "Content-Length is not a number.", headers=_CLOSE)
    return int(raw)


def _read(read: Callable[[int], bytes], size: int) -> bytes:
    try:
        data = read(size)
    except TimeoutError:
        raise Problem(
            408, "Request Timeout", "The request body did not arrive in time.", headers=_CLOSE
        ) from None
    except Exception as err:  # the stream is the client's: malformed chunks, a broken link
        _log.info("request body unreadable: %s", err)
        detail = "The request body could not be read (malformed chunked coding?)."
        raise Problem(400, "Bad Request", detail, headers=_CLOSE) from None
    return data


def raw_chunks(environ: Mapping[str, Any], limit: int) -> Iterator[bytes]:
    """The body's bytes as sent, at most ``limit`` of them (413 past it, before reading when
    ``Content-Length`` says so; while reading when the body is chunked)."""
    length = _content_length(environ)
    if length is None and not environ.get("wsgi.input_terminated"):
        return  # no Content-Length and no server-side end of the body: no body (PEP 3333)
    if length is not None and length > limit:
        raise _too_large(limit)
    stream = environ["wsgi.input"]
    # read1: what has arrived, without waiting for a whole CHUNK (the worker's input has it,
    # and io's buffered streams): a batch's finished lines are answered while the rest comes.
    reader = getattr(stream, "read1", None) or stream.read
    wanted = length if length is not None else limit + 1
    read = 0
    while read < wanted:
        chunk = _read(reader, min(CHUNK, wanted - read))
        if not chunk:
            if length is not None:
                detail = f"The request body ended before its Content-Length of {length} bytes."
                raise Problem(400, "Bad Request", detail, headers=_CLOSE)
            return
        read += len(chunk)
        if read > limit:
            raise _too_large(limit)
        yield chunk


#: Decoded bytes a gzip body may produce whatever its ratio (``max_ratio`` of :func:`gunzip`).
RATIO_SLACK = 16 * 1024


def gunzip(chunks: Iterable[bytes], limit: int, max_ratio: float | None = None) -> Iterator[bytes]:
    """The decoded bytes of gzip data (one member or several), at most ``limit`` of them:
    413 as soon as the decoded size passes it, or (``max_ratio``) passes :data:`RATIO_SLACK`
    and ``max_ratio`` times the gzip bytes it was decoded from; 400 when it is not gzip or is
    cut short. No chunk decoded is longer than :data:`CHUNK` (a reader that streams holds no
    more)."""
    decoder = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    produced = 0
    used = 0  # gzip bytes decoded so far
    for chunk in chunks:
        data = chunk
        while data:
            try:
                # At most one byte past the limit: enough to know it is passed.
                out = decoder.decompress(data, min(CHUNK, limit + 1 - produced))
            except zlib.error:
                detail = "The body is labelled gzip (Content-Encoding) but is not gzip data."
                raise Problem(400, "Bad Request", detail, headers=_CLOSE) from None
            produced += len(out)
            if produced > limit:
                raise _too_large(limit, "decompressed request body")
            left = decoder.unused_data if decoder.eof else decoder.unconsumed_tail
            used += len(data) - len(left)
            if max_ratio is not None and produced > max(RATIO_SLACK, max_ratio * used):
                raise _too_compressed(max_ratio)
            if out:
                yield out
            if decoder.eof:  # end of a member: what follows is the next one
                data = decoder.unused_data
                if data:
                    decoder = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
            else:
                data = decoder.unconsumed_tail
    if not decoder.eof:
        detail = "The gzip-coded body is cut short (no end of its gzip data)."
        raise Problem(400, "Bad Request", detail, headers=_CLOSE)


def _limit() -> int:
    settings: Settings = current_app.extensions["arbiter.settings"]
    return settings.max_body_bytes


def decoded_chunks(
    accepts: Accepts = JSON_ONLY,
    limit: int | None = None,
    environ: Mapping[str, Any] | None = None,
) -> Iterator[bytes]:
    """The request's body, decoded, in chunks: its media type and coding are checked first
    (415), then at most ``limit`` bytes (default ``ARBITER_MAX_BODY_BYTES``) are read, and
    decoded, as the chunks are taken. ``environ``: the request's (default: Flask's request)."""
    if environ is None:
        environ = request.environ
    check_media_type(environ.get("CONTENT_TYPE"), accepts)
    coding = content_coding(environ.get("HTTP_CONTENT_ENCODING"), accepts)
    limit = _limit() if limit is None else limit
    chunks = raw_chunks(environ, limit)
    return gunzip(chunks, limit) if coding == GZIP else chunks


def read_json(environ: Mapping[str, Any] | None = None, limit: int | None = None) -> Any:
    """The request's JSON body as a JSON value (400 when it is not strict JSON)."""
    raw = b"".join(decoded_chunks(JSON_ONLY, limit, environ))
    try:
        return loads(raw)
    except JsonTextError as err:
        raise Problem(400, "Bad Request", f"The body is not JSON: {err}") from None
