"""One line of an archive scored: the line format shared by the command, the library, HTTP and
Dask.

A game's line is ``{"id", "source", ...the body of POST /v1/scores}``; a line that cannot be
scored is ``{"id", "source", "error": {"status", "title", "errors": [{"pointer", "message"}]}}``
(errors bounded as in problems: :mod:`arbiter.contract`). ``id`` is the log's own top-level
``"id"`` (a string of 1 to :data:`MAX_ID_LENGTH` characters) or, without one, the ``source``:
``FILE:LINE`` for files, the line number for a batch or a list of lines.

:class:`Scorer` turns the text of one line into a :class:`Scored` (what the line says, not
yet where it was: a worker scores lines whose numbers only the reader of the whole input knows);
:func:`stamp` writes it with its ``id`` and ``source``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from enum import Enum
from typing import Any, Final, NamedTuple

import orjson

from arbiter.contract import MAX_ID_LENGTH, error_list, input_errors
from arbiter.engine.errors import ArbiterError
from arbiter.engine.log import Limits
from arbiter.i18n import Lang
from arbiter.jsontext import JsonTextError, loads
from arbiter.report import Replay
from arbiter.service import Referee
from arbiter.settings import Settings

#: What JSON counts as white space (a line of nothing else is blank, and skipped).
JSON_SPACE: Final = b" \t\r\n"

_log = logging.getLogger("arbiter.archive")


Source = str | int


class Oversized(NamedTuple):
    """A line longer than the limit: only its length was kept, its bytes were dropped as read."""

    size: int


#: One line as read: its bytes (without the newline), or :class:`Oversized`.
Text = bytes | Oversized


class LineError(Enum):
    """Why a line was not scored: its ``error``'s status and title."""

    NOT_JSON = (400, "Not JSON")
    TOO_LONG = (413, "Line too long")
    NOT_A_LOG = (422, "Not a log")
    INVALID_ID = (422, "Invalid id")
    INVALID_LOG = (422, "Invalid log")
    INTERNAL = (500, "Internal error")

    @property
    def status(self) -> int:
        return self.value[0]

    @property
    def title(self) -> str:
        return self.value[1]


@dataclass(slots=True)
class Scored:
    """A line scored: its index among the lines of what was read (0 for the first), the
    ``id`` its log gave (None: the source stands for it), and either its error's body or the
    log's ruleset and the engine's adjudication of it (:attr:`replay`), what the summary and
    the rows of the tables are read from. A game's body (scores, in the words of ``lang``) is
    made from the replay only when asked for (:attr:`body`): a table never needs it."""

    # not frozen: a frozen dataclass sets each field through object.__setattr__, and one is
    # made per line of a run (callgrind: 1.3K instructions a line less)
    index: int
    given_id: str | None
    #: the body, once made (an error's from the start)
    made: dict[str, Any] | None
    ruleset: str | None = None
    replay: Replay | None = None
    lang: Lang = "en"

    @property
    def body(self) -> dict[str, Any]:
        """The body of the line: its scores (``POST /v1/scores``), or ``error``."""
        body = self.made
        if body is None:
            assert self.replay is not None
            body = self.made = self.replay.scores_dict(self.lang)
        return body

    @property
    def error(self) -> dict[str, Any] | None:
        if self.replay is not None:
            return None
        error: dict[str, Any] | None = self.body.get("error")
        return error


@dataclass(frozen=True, slots=True)
class ScoringConfig:
    """What scoring a line needs, and nothing secret (it travels to workers): the language of
    the messages and the limits of the settings."""

    lang: Lang = "en"
    max_line_bytes: int = Settings().max_body_bytes
    max_deals: int = Settings().max_deals
    max_name_length: int = Settings().max_name_length
    max_errors: int = Settings().max_errors

    @classmethod
    def of(cls, settings: Settings, lang: Lang = "en") -> ScoringConfig:
        return cls(
            lang,
            settings.max_body_bytes,
            settings.max_deals,
            settings.max_name_length,
            settings.max_errors,
        )

    @property
    def limits(self) -> Limits:
        """The limits the log parser applies to each line."""
        return Limits(max_deals=self.max_deals, max_name_length=self.max_name_length)


def line_error(
    kind: LineError, errors: list[dict[str, str]], omitted: int, max_errors: int
) -> dict[str, Any]:
    """The body of a line that was not scored."""
    listed = error_list(errors, omitted, max_errors)
    return {"error": {"status": kind.status, "title": kind.title, **listed}}


def is_blank(text: Text) -> bool:
    """A line of JSON white space only (skipped, but counted in the line numbers)."""
    return not isinstance(text, Oversized) and not text.strip(JSON_SPACE)


class Scorer:
    """Scores lines for their scores only (:meth:`arbiter.Referee.score`: no token, no cache).
    With ``bodies`` (NDJSON, the library, the batch endpoint: what writes the body) a game's
    body is made as it is scored, so that a fault in making it is that line's internal error,
    not the end of the run; without (the tables), only when asked for."""

    def __init__(self, referee: Referee, config: ScoringConfig, *, bodies: bool = True) -> None:
        self.referee = referee
        self.config = config
        self.bodies = bodies

    @classmethod
    def of(cls, config: ScoringConfig, *, bodies: bool = True) -> Scorer:
        return cls(Referee(config.limits), config, bodies=bodies)

    def score(self, index: int, text: Text) -> Scored | None:
        """The line scored, or None when it is blank."""
        if isinstance(text, Oversized):
            limit = self.config.max_line_bytes
            message = f"the line has {text.size} bytes, over the limit of {limit}"
            return Scored(index, None, self._error(LineError.TOO_LONG, message))
        if not text.strip(JSON_SPACE):  # blank (is_blank, without a second type check)
            return None
        try:
            log = _orjson_loads(text)  # jsontext.loads's reader, without its call per line
        except orjson.JSONDecodeError:
            return Scored(index, None, self._error(LineError.NOT_JSON, _not_json(text)))
        if type(log) is not dict:  # orjson makes dicts, never a subclass
            message = "a line must be a JSON object: a game log"
            return Scored(index, None, self._error(LineError.NOT_A_LOG, message))
        given_id = log.get("id")
        if (given_id is not None or "id" in log) and not (
            type(given_id) is str and 0 < len(given_id) <= MAX_ID_LENGTH
        ):
            message = f"must be a string of 1 to {MAX_ID_LENGTH} characters"
            return Scored(index, None, self._error(LineError.INVALID_ID, message, "/id"))
        return self._scores(index, given_id, log)

    def no_log(self, index: int) -> Scored:
        """The line of a file that was to hold one log and holds only white space."""
        message = "the file is empty: a .json file holds one game log"
        return Scored(index, None, self._error(LineError.NOT_JSON, message))

    def _scores(self, index: int, given_id: str | None, log: dict[str, Any]) -> Scored:
        lang = self.config.lang
        try:
            replay = self.referee.score(log)
            made = replay.scores_dict(lang) if self.bodies else None
        except ArbiterError as err:
            listed, omitted = input_errors(err)
            error = line_error(LineError.INVALID_LOG, listed, omitted, self.config.max_errors)
            return Scored(index, given_id, error)
        except Exception as err:  # a fault of the referee must not stop a run of millions
            _log.error("the referee failed on a line: %r", err)
            _log.debug("the referee failed on a line", exc_info=True)
            error = self._error(LineError.INTERNAL, "the referee failed on this line")
            return Scored(index, given_id, error)
        # without bodies, made when asked for: a table's rows and the summary need none
        return Scored(index, given_id, made, log["ruleset"], replay, lang)

    def _error(self, kind: LineError, message: str, pointer: str = "") -> dict[str, Any]:
        errors = [{"pointer": pointer, "message": message}]
        return line_error(kind, errors, 0, self.config.max_errors)


_orjson_loads: Final = orjson.loads


def _not_json(text: bytes) -> str:
    """What :func:`arbiter.jsontext.loads` says of ``text``, which orjson refused."""
    try:
        loads(text)
    except JsonTextError as err:
        return str(err)
    raise AssertionError("orjson refused a text that it then read")  # pragma: no cover


def stamp(given_id: str | None, source: Source, body: bytes) -> bytes:
    """The line of a scored game: its ``id`` and ``source`` first, then ``body`` (the JSON
    object of :func:`encode_body`), and a newline. The same bytes as ``orjson.dumps`` of
    :func:`record`."""
    ident = source if given_id is None else given_id
    head = b'{"id":' + orjson.dumps(ident) + b',"source":' + orjson.dumps(source) + b","
    return head + body[1:] + b"\n"


def encode_body(scored: Scored) -> bytes:
    """The body of a line as JSON, for :func:`stamp`."""
    return orjson.dumps(scored.body)


def record(scored: Scored, source: Source) -> dict[str, Any]:
    """The line of a scored game as a dict: ``id``, ``source``, then the body."""
    ident = source if scored.given_id is None else scored.given_id
    return {"id": ident, "source": source, **scored.body}


def stop_line(source: Source, status: int, title: str, message: str) -> bytes:
    """The last line of a stream cut short (a batch over its limits, a body that stopped
    arriving): no game's, ``id`` null, ``source`` where it stopped, and why."""
    error = {"status": status, "title": title, "errors": [{"pointer": "", "message": message}]}
    return orjson.dumps({"id": None, "source": source, "error": error}) + b"\n"
