"""The HTTP side of ``POST /v1/scores/batch``: the body read as :mod:`arbiter.api.bodies`
reads every body (NDJSON, gzip with a bound on the decoded size), scored and answered as a
stream by :func:`arbiter.archive.batch.score_batch`.

What goes wrong before the first chunk is read (a media type, a coding, a Content-Length over
the limit, a body that is not gzip) is a problem answer like any other; what goes wrong later
is the last line of the stream. The answer closes its connection (``Connection: close``): a
batch stopped early is not read to its end.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator

from flask import Response, stream_with_context

from arbiter.api import bodies
from arbiter.api.errors import Problem
from arbiter.api.metrics import Metrics
from arbiter.archive.batch import Stop, score_batch
from arbiter.archive.records import Scored, Scorer, ScoringConfig
from arbiter.i18n import Lang
from arbiter.service import Referee
from arbiter.settings import Settings

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
            metrics.count_renuncios(scored.body)
            if scored.body["illegal"] is not None:
                metrics.illegal.labels(scored.body["illegal"]["code"]).inc()

    lines = score_batch(body, scorer, settings.batch_max_lines, observe, _stop)
    return Response(
        stream_with_context(_taking_turns(lines)),
        mimetype=bodies.NDJSON,
        headers={"Connection": "close"},
    )


def _stop(err: Exception) -> Stop | None:
    if isinstance(err, Problem):
        return Stop(err.status, err.title, err.detail)
    return None


def _taking_turns(lines: Iterator[bytes]) -> Iterator[bytes]:
    """The lines, with a turn for the worker's other connections after each chunk (under
    gevent, ``time.sleep(0)`` yields to them; a long batch must not hold them off)."""
    for data in lines:
        if data:
            yield data
        time.sleep(0)
