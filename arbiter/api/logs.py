"""Structured logs: one JSON object per line, and one access line per request.

The access line has the request id, method, path, status, duration and ruleset — never the
players' names or cards (a log is personal data of a club's members).

The service's own lines (warnings, errors) go through :mod:`logging` to standard error. The
access lines, one per request, do not: :class:`AccessLog` formats each line itself (the same
JSON object, or the same plain-text line, that the service's formatter writes for a record
of these fields, :mod:`arbiter.jsonlog`, without building a ``LogRecord``) and hands it to its
writer. In a gunicorn worker (:func:`queue_lines`, called by deploy/gunicorn.conf.py once the
app is loaded) that is the :class:`arbiter.logpipe.LineWriter` of standard error, the queue
every line of the process goes through: a request never waits for its line, nor for a log
that is not read (the trade-off: :mod:`arbiter.logpipe`, deploy/README.md). Elsewhere (an app
made in process: the tests, the library) the line is written at once to ``sys.stderr``.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any

import orjson

from arbiter.jsonlog import Clock, formatter, plain_line
from arbiter.logpipe import writer

ACCESS = logging.getLogger("arbiter.access")
_INFO = logging.INFO


def configure(level: str, as_json: bool) -> None:
    """Send the ``arbiter`` loggers to stderr, as JSON or plain text."""
    logger = logging.getLogger("arbiter")
    logger.setLevel(level)
    if any(getattr(h, "_arbiter", False) for h in logger.handlers):
        return  # one handler per process, however many apps are created
    handler = logging.StreamHandler(sys.stderr)
    handler._arbiter = True  # type: ignore[attr-defined]
    handler.setFormatter(formatter(as_json))
    logger.addHandler(handler)
    logger.propagate = False


# --- access lines ------------------------------------------------------------------------------


class StreamWriter:
    """Lines written at once to the current ``sys.stderr`` (an app made in process)."""

    def put(self, line: bytes) -> None:
        stream = sys.stderr
        stream.write(line.decode("utf-8"))
        stream.flush()


class AccessLog:
    """One line per request, as the ``arbiter.access`` logger would write it at INFO (and only
    when that logger is enabled for INFO: ``ARBITER_LOG_LEVEL``), handed to :attr:`writer`
    (anything with ``put(line: bytes)``): as JSON, the message ``METHOD path status`` and every
    field; as plain text, the message and the fields it does not say (``request_id``,
    ``duration_ms``, ``ruleset``)."""

    def __init__(self, as_json: bool, line_writer: Any = None) -> None:
        self.as_json = as_json
        self.writer: Any = line_writer if line_writer is not None else StreamWriter()
        self._clock = Clock()

    def write(
        self,
        request_id: str,
        method: str,
        path: str,
        status: int,
        seconds: float,
        ruleset: str | None,
        ended: str | None = None,
    ) -> None:
        """``ended``: how a streamed answer ended (a batch's), in a field of its own."""
        if not ACCESS.isEnabledFor(_INFO):
            return
        now = time.time()
        message = f"{method} {path} {status}"
        milliseconds = int(seconds * 1e6 + 0.5) / 1000  # µs, in ms
        if self.as_json:
            line = orjson.dumps(
                {
                    "time": self._clock.utc(now),
                    "level": "info",
                    "logger": "arbiter.access",
                    "message": message,
                    "request_id": request_id,
                    "method": method,
                    "path": path,
                    "status": status,
                    "duration_ms": milliseconds,
                    "ruleset": ruleset,
                    **({} if ended is None else {"ended": ended}),
                },
                option=orjson.OPT_APPEND_NEWLINE,
            )
        else:
            fields: tuple[tuple[str, object], ...] = (
                ("request_id", request_id),
                ("duration_ms", milliseconds),
                ("ruleset", ruleset),
            )
            if ended is not None:
                fields += (("ended", ended),)
            stamp = self._clock.local(now)
            text = plain_line(stamp, os.getpid(), "INFO", ACCESS.name, message, fields)
            line = (text + "\n").encode("utf-8", "backslashreplace")
        self.writer.put(line)


def queue_lines(app: Any) -> None:
    """In a server's worker: the access lines of ``app`` (if it is the service's) go to the
    process's :class:`arbiter.logpipe.LineWriter` of standard error."""
    extensions = getattr(app, "extensions", None)
    access = extensions.get("arbiter.access") if isinstance(extensions, dict) else None
    if isinstance(access, AccessLog):
        access.writer = writer(sys.stderr.fileno())
