"""Log lines as JSON objects, one per line (or as plain text in one format): the service's own
lines and gunicorn's (:class:`GunicornLogger`).

A light module on purpose: gunicorn's master loads this formatter (deploy/gunicorn.conf.py)
before its workers import the app.
"""

from __future__ import annotations

import logging
import time
from typing import Any

import orjson
from gunicorn.config import Config
from gunicorn.glogging import Logger

#: The plain-text format of every line when JSON is off (gunicorn's lines too).
PLAIN_FORMAT = "%(asctime)s [%(process)d] [%(levelname)s] %(name)s: %(message)s"

_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


class Clock:
    """Timestamps as the service's lines write them — UTC for JSON (``…T12:00:00.123Z``),
    local time for plain text (``… 12:00:00,123``, logging's default) — the text of the
    current second kept (lines come in bursts)."""

    def __init__(self) -> None:
        self._utc = (-1, "")
        self._local = (-1, "")

    def utc(self, now: float) -> str:
        second = int(now)
        if second != self._utc[0]:
            self._utc = (second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)))
        return f"{self._utc[1]}.{int((now - second) * 1000):03d}Z"

    def local(self, now: float) -> str:
        second = int(now)
        if second != self._local[0]:
            self._local = (second, time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(second)))
        return f"{self._local[1]},{int((now - second) * 1000):03d}"


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message", ...extra fields}`` on one line."""

    def __init__(self) -> None:
        super().__init__()
        self._clock = Clock()

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": self._clock.utc(record.created),
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


def formatter(as_json: bool) -> logging.Formatter:
    """The formatter of every log line of the service: JSON objects, or :data:`PLAIN_FORMAT`."""
    return JsonFormatter() if as_json else logging.Formatter(PLAIN_FORMAT)


class GunicornLogger(Logger):
    """gunicorn's logger, its lines in the service's format (``ARBITER_LOG_JSON``)."""

    def setup(self, cfg: Config) -> None:
        super().setup(cfg)
        from arbiter.settings import Settings

        lines = formatter(Settings.from_env().log_json)
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.setFormatter(lines)
