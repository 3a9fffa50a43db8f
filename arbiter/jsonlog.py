"""Log lines as JSON objects, one per line (or as plain text in one format): the service's own
lines, gunicorn's and everything else a server process logs (:class:`GunicornLogger`).

A plain-text line (``ARBITER_LOG_JSON=false``, :class:`PlainFormatter`) is
:data:`PLAIN_FORMAT`, then the record's own fields as ``key=value`` (a value with a space, a
quote or an equals sign in double quotes), with every control character of every part written
as a backslash escape (:func:`escape`): a path with ``%0A`` in it cannot start a line of its
own, nor ``%1B[2J`` clear the terminal of whoever reads the log. A traceback follows its line,
each of its lines indented, so that only a record's first line starts with a time.

A light module on purpose: gunicorn's master loads this formatter (deploy/gunicorn.conf.py)
before its workers import the app.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable
from typing import Any

import orjson
from gunicorn.config import Config
from gunicorn.glogging import Logger

#: The plain-text format of every line when JSON is off (gunicorn's lines too), before the
#: record's own fields.
PLAIN_FORMAT = "%(asctime)s [%(process)d] [%(levelname)s] %(name)s: %(message)s"

_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}

#: What a plain line writes as an escape: C0 and C1 control characters, DEL, the Unicode line
#: and paragraph separators, and the backslash (so that an escape is never ambiguous).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\\\\]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}
#: A value of ``key=value`` written as it is; any other is quoted.
_BARE = re.compile(r'[^\s"=]+')


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape(text: str) -> str:
    """``text`` with every control character (and backslash) as a backslash escape: one line,
    nothing a terminal obeys."""
    return _CONTROL.sub(_escaped, text)


def field(value: Any) -> str:
    """A value of a plain line's ``key=value``, escaped: as it is when it is one word, else
    in double quotes (a quote in it as ``\\"``); None is ``-``."""
    text = escape("-" if value is None else str(value))
    if _BARE.fullmatch(text):
        return text
    return '"' + text.replace('"', '\\"') + '"'


def plain_line(
    stamp: str, pid: int, level: str, logger: str, message: str, fields: Iterable[tuple[str, Any]]
) -> str:
    """One plain-text line (no newline): :data:`PLAIN_FORMAT`, then ``key=value`` fields,
    every part escaped."""
    head = f"{stamp} [{pid}] [{escape(level)}] {escape(logger)}: {escape(message)}"
    return head + "".join(f" {escape(key)}={field(value)}" for key, value in fields)


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


class PlainFormatter(logging.Formatter):
    """:data:`PLAIN_FORMAT` and the record's own fields, escaped (:func:`plain_line`); a
    traceback on the lines that follow, indented."""

    def __init__(self) -> None:
        super().__init__(PLAIN_FORMAT)
        self._clock = Clock()

    def format(self, record: logging.LogRecord) -> str:
        fields = [(k, v) for k, v in record.__dict__.items() if k not in _STANDARD]
        line = plain_line(
            self._clock.local(record.created),
            record.process or 0,
            record.levelname,
            record.name,
            record.getMessage(),
            fields,
        )
        more = []
        if record.exc_info:
            more.append(self.formatException(record.exc_info))
        elif record.exc_text:
            more.append(record.exc_text)
        if record.stack_info:
            more.append(self.formatStack(record.stack_info))
        for text in more:
            for part in text.splitlines():
                line += "\n    " + escape(part)
        return line


def formatter(as_json: bool) -> logging.Formatter:
    """The formatter of every log line of the service: JSON objects, or plain text
    (:class:`PlainFormatter`)."""
    return JsonFormatter() if as_json else PlainFormatter()


class GunicornLogger(Logger):
    """gunicorn's logger, its lines in the service's format (``ARBITER_LOG_JSON``); and the
    logging of the whole server process, set up by it in gunicorn's master (its workers fork
    from it): standard error and output queued (:func:`arbiter.logpipe.queue_standard_streams`)
    before gunicorn makes its handlers on them, and every other logger's records (a library's,
    Python's warnings) in the same format through a handler of the root logger."""

    def setup(self, cfg: Config) -> None:
        from arbiter.logpipe import queue_standard_streams
        from arbiter.settings import Settings

        as_json = Settings.from_env().log_json
        queue_standard_streams(as_json)
        super().setup(cfg)
        lines = formatter(as_json)
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                handler.setFormatter(lines)
        root = logging.getLogger()
        for handler in [h for h in root.handlers if getattr(h, "_arbiter_root", False)]:
            root.removeHandler(handler)  # a configuration reload runs this again
        handler = logging.StreamHandler()  # sys.stderr, queued
        handler._arbiter_root = True  # type: ignore[attr-defined]
        handler.setFormatter(lines)
        root.addHandler(handler)
        logging.captureWarnings(True)
