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

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
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
    ACCESS.info(
        "%s %s %s",
        method,
        path,
        status,
        extra={
            "request_id": request_id,
            "method": method,
            "path": path,
            "status": status,
            "duration_ms": round(seconds * 1000, 3),
            "ruleset": ruleset,
        },
    )
