"""The HTTP side of ``POST /v1/scores/batch``: the body read as :mod:`arbiter.api.bodies`
reads every body (NDJSON, gzip with a bound on the decoded size), scored and answered as a
stream by :func:`arbiter.archive.batch.score_batch`.

What goes wrong before the first chunk is read (a media type, a coding, a Content-Length over
the limit, a body that is not gzip) is a problem answer like any other; what goes wrong later
is the last line of the stream. The answer closes its connection (``Connection: close``): a
batch stopped early is not read to its end. Lines go out as the client takes them; a client
that reads only after it has sent the whole body gets the answer too, kept for it up to
:data:`PENDING_BYTES`.
"""

from __future__ import annotations

import itertools
import select
import time
from collections.abc import Iterator
from typing import Any

from flask import Response, request, stream_with_context

from arbiter.api import bodies
from arbiter.api.metrics import Metrics
from arbiter.archive.batch import Stop, score_batch
from arbiter.archive.records import Scored, Scorer, ScoringConfig
from arbiter.contract import Problem
from arbiter.i18n import Lang
from arbiter.service import Referee
from arbiter.settings import Settings

#: Answer bytes kept while the client does not read them yet (at most, per request).
PENDING_BYTES = 16 * 1024 * 1024
#: Bytes sent at a time while the body is being read: small enough to fit what a connection
#: said it could take without blocking.
PIECE = 4 * 1024
#: Bytes sent at a time once the body is read.
OUT_CHUNK = 64 * 1024
#: The batch takes NDJSON (only: a JSON document of several lines is no batch), gzip or not.
BATCH = bodies.Accepts(ndjson=True, gzip=True, json=False)


def answer(referee: Referee, settings: Settings, lang: Lang, metrics: Metrics) -> Response:
    """The streamed answer to the request's batch."""
    chunks = bodies.decoded_chunks(BATCH, settings.batch_max_bytes)
    first = next(chunks, None)
    body = chunks if first is None else itertools.chain((first,), chunks)
    scorer = Scorer(referee, ScoringConfig.of(settings, lang))

    def observe(scored: Scored) -> None:
        if scored.error is None:
            metrics.count_adjudication(scored.body)

    lines = score_batch(body, scorer, settings.batch_max_lines, observe, _stop)
    return Response(
        stream_with_context(_paced(lines, request.environ.get("gunicorn.socket"))),
        mimetype=bodies.NDJSON,
        headers={"Connection": "close"},
    )


def _stop(err: Exception) -> Stop | None:
    if isinstance(err, Problem):
        return Stop(err.status, err.title, err.detail)
    return None


def _paced(lines: Iterator[bytes], sock: Any) -> Iterator[bytes]:
    """The answer's bytes, sent as the client takes them and kept (up to
    :data:`PENDING_BYTES`) while it does not: many clients (Python's http.client, requests)
    send their whole body before they read a byte of the answer, and a server that blocked
    writing to them would stop reading what they send. Once the body is read, the rest goes
    out whatever it takes. Between chunks the worker's other connections get a turn (under
    gevent, ``time.sleep(0)`` yields to them: a long batch must not hold them off)."""
    pending = bytearray()
    sent = 0  # bytes of pending already yielded (dropped from its front now and then)
    for data in lines:
        if sent > len(pending) // 2:
            del pending[:sent]
            sent = 0
        pending += data
        while sent < len(pending) and (len(pending) - sent > PENDING_BYTES or _writable(sock)):
            yield bytes(pending[sent : sent + PIECE])
            sent = min(sent + PIECE, len(pending))
        time.sleep(0)
    for start in range(sent, len(pending), OUT_CHUNK):
        yield bytes(pending[start : start + OUT_CHUNK])


def _writable(sock: Any) -> bool:
    """Can the connection take a piece without blocking? (No socket: a test client, yes.)"""
    if sock is None:
        return True
    try:
        return bool(select.select([], [sock], [], 0)[1])
    except (OSError, ValueError):  # closed: the write will say so
        return True
