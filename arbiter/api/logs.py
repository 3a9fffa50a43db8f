"""Structured logs: one JSON object per line, and one access line per request.

The access line has the request id, method, path, status, duration and ruleset — never the
players' names or cards (a log is personal data of a club's members).
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

import orjson

ACCESS = logging.getLogger("arbiter.access")

_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message", ...extra fields}`` on one line."""

    def __init__(self) -> None:
        super().__init__()
        self._second = (-1, "")  # the last second formatted, and its text (lines come in bursts)

    def _timestamp(self, record: logging.LogRecord) -> str:
        second = int(record.created)
        if second != self._second[0]:
            self._second = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
        return f"{self._second[1]}.{int(record.msecs):03d}Z"

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": self._timestamp(record),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STANDARD:
                out[key] = value
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(out, default=str).decode()


def configure(level: str, as_json: bool) -> None:
    """Send the ``arbiter`` loggers to stderr, as JSON or plain text."""
    logger = logging.getLogger("arbiter")
    logger.setLevel(level)
    if any(getattr(h, "_arbiter", False) for h in logger.handlers):
        return  # one handler per process, however many apps are created
    handler = logging.StreamHandler(sys.stderr)
    handler._arbiter = True  # type: ignore[attr-defined]
    handler.setFormatter(
        JsonFormatter() if as_json else logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    )
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
