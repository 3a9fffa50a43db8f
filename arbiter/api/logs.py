"""Structured logs: one JSON object per line, and one access line per request.

The access line has the request id, method, path, status, duration and ruleset — never the
players' names or cards (a log is personal data of a club's members).
"""

from __future__ import annotations

import logging
import sys

from arbiter.jsonlog import formatter

ACCESS = logging.getLogger("arbiter.access")


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


def access(
    request_id: str, method: str, path: str, status: int, seconds: float, ruleset: str | None
) -> None:
    """One access line. The record is made here and handed to the handlers directly: the
    logger's own path looks for the caller in the stack, which costs more than the request."""
    if not ACCESS.isEnabledFor(logging.INFO):
        return
    record = logging.LogRecord(
        ACCESS.name, logging.INFO, __file__, 0, "%s %s %s", (method, path, status), None
    )
    record.request_id = request_id
    record.method = method
    record.path = path
    record.status = status
    record.duration_ms = round(seconds * 1000, 3)
    record.ruleset = ruleset
    ACCESS.handle(record)
