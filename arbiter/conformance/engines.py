"""The engine under test: a process speaking JSON lines, or an HTTP service of docs/api.md.

Both answer :meth:`Engine.ask` with a :class:`Reply`: the engine's answer (an object with the
fields of ``expect``), or the :class:`Trouble` that kept it from answering — no answer within
the timeout, the process ended, a line that is not a JSON object, an answer to another vector,
a service that cannot be reached or answers an unexpected status. Their ``probe`` says, before a
run, why the engine cannot be started or reached at all.

:class:`CommandEngine` never blocks the checker: a thread writes each question, another reads
the answers into a queue that the checker waits on with a deadline, a third keeps the tail of
the engine's standard error; an engine that hangs or stops making sense is killed (with its
whole process group) and started again for the next vector.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import queue
import shlex
import signal
import subprocess
import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import IO, Any, Final, Protocol
from urllib.parse import urlsplit

from arbiter.conformance.answers import answer_of, refusal_of_problem
from arbiter.conformance.vectors import Ask, dumps

#: The longest answer line read (a replay of a hundred deals is well under it).
MAX_LINE: Final = 16 * 1024 * 1024
#: How long a process is given to end once its input is closed.
GRACE: Final = 2.0


class Trouble(StrEnum):
    """Why the engine gave no answer to compare."""

    TIMEOUT = "timeout"  # no answer within the timeout
    EXITED = "exited"  # the process ended (or could not start)
    GARBAGE = "garbage"  # a line that is not a JSON object
    DESYNC = "desync"  # the answer of another vector
    UNREACHABLE = "unreachable"  # the service could not be reached
    STATUS = "status"  # the service answered a status other than 200 or 4xx
    GAVE_UP = "gave_up"  # not asked: the engine failed too many times in a row


@dataclass(frozen=True, slots=True)
class Reply:
    answer: dict[str, Any] | None = None
    trouble: Trouble | None = None
    detail: str = ""


class Engine(Protocol):
    """What the checker drives."""

    name: str

    def ask(self, question: Mapping[str, Any]) -> Reply: ...

    def close(self) -> None: ...


def _shorten(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Process:
    """One run of the engine's command, with its reader and writer threads."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group, killed as one
        )
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.outbox: queue.Queue[bytes | None] = queue.Queue()
        self.stderr: deque[str] = deque(maxlen=12)
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._threads = [
            threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True),
            threading.Thread(target=self._write, args=(self.proc.stdin,), daemon=True),
            threading.Thread(target=self._errors, args=(self.proc.stderr,), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def _read(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            while line := stream.readline(MAX_LINE):
                self.lines.put(line)
        self.lines.put(None)

    def _write(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            while (data := self.outbox.get()) is not None:
                stream.write(data)
                stream.flush()
            stream.close()

    def _errors(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            for line in stream:
                self.stderr.append(line.decode(errors="replace").rstrip())

    def tail(self) -> str:
        return " | ".join(self.stderr)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.outbox.put(None)
        self.proc.wait()

    def close(self) -> None:
        self.outbox.put(None)
        try:
            self.proc.wait(GRACE)
        except subprocess.TimeoutExpired:
            self.kill()


class CommandEngine:
    """The engine as a command that reads questions and writes answers, one JSON per line."""

    def __init__(self, command: str, timeout: float) -> None:
        self.name = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("the engine's command is empty")
        self.timeout = timeout
        self._run: _Process | None = None

    def probe(self) -> str | None:
        """Why the command cannot be started, or None: it runs, ready for the first vector."""
        try:
            self._process()
        except OSError as err:
            return err.strerror or str(err)
        return None

    def _process(self) -> _Process:
        if self._run is None:
            self._run = _Process(self.argv)
        return self._run

    def _restart(self) -> None:
        if self._run is not None:
            self._run.kill()
            self._run = None

    def ask(self, question: Mapping[str, Any]) -> Reply:
        try:
            run = self._process()
        except OSError as err:
            return Reply(trouble=Trouble.EXITED, detail=f"cannot start {self.argv[0]}: {err}")
        run.outbox.put((dumps(question) + "\n").encode())
        try:
            line = run.lines.get(timeout=self.timeout)
        except queue.Empty:
            self._restart()
            return Reply(trouble=Trouble.TIMEOUT, detail=f"{self.timeout:g} s")
        if line is None:
            status = run.proc.wait()
            tail = run.tail()
            self._run = None
            return Reply(trouble=Trouble.EXITED, detail=f"status {status}; stderr: {tail}")
        return self._parse(line, question)

    def _parse(self, line: bytes, question: Mapping[str, Any]) -> Reply:
        try:
            answer = json.loads(line)
        except (ValueError, RecursionError):
            answer = None
        if not isinstance(answer, dict) or not line.endswith(b"\n"):
            self._restart()  # what follows cannot be trusted to be the next answer
            return Reply(trouble=Trouble.GARBAGE, detail=_shorten(repr(line[:400])))
        if "id" in answer and answer["id"] != question["id"]:
            self._restart()
            return Reply(trouble=Trouble.DESYNC, detail=_shorten(f"id {answer['id']!r}"))
        return Reply(answer=answer)

    def close(self) -> None:
        if self._run is not None:
            self._run.close()
            self._run = None


#: docs/api.md: the endpoint each question goes to.
ENDPOINTS: Final = {
    Ask.LEGAL_MOVES: "/v1/replays",
    Ask.VERDICT: "/v1/moves/validate",
    Ask.REPLAY: "/v1/replays",
}


class HttpEngine:
    """An HTTP service implementing docs/api.md (``POST /v1/replays``, ``/v1/moves/validate``)."""

    def __init__(self, url: str, timeout: float, api_key: str | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        self.name = url
        self.timeout = timeout
        self.base = parts.path.rstrip("/")
        self._factory = (
            http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        )
        self._host, self._port = parts.hostname, parts.port
        self._conn: http.client.HTTPConnection | None = None
        self.headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if api_key:
            self.headers["X-API-Key"] = api_key

    def probe(self) -> str | None:
        """Why the service cannot be reached, or None: a connection is open for the first
        vector."""
        try:
            self._conn = self._factory(self._host, self._port, timeout=self.timeout)
            self._conn.connect()
        except (OSError, http.client.HTTPException) as err:
            self.close()
            return _shorten(str(err) or repr(err))
        return None

    def ask(self, question: Mapping[str, Any]) -> Reply:
        ask = Ask(question["ask"])
        body = dict(question["log"])
        if ask is Ask.VERDICT:
            body["move"] = question.get("move")
        try:
            if self._conn is None:
                self._conn = self._factory(self._host, self._port, timeout=self.timeout)
            self._conn.request(
                "POST", self.base + ENDPOINTS[ask], dumps(body).encode(), self.headers
            )
            response = self._conn.getresponse()
            data = response.read()
        except TimeoutError:
            self.close()
            return Reply(trouble=Trouble.TIMEOUT, detail=f"{self.timeout:g} s")
        except (OSError, http.client.HTTPException) as err:
            self.close()
            return Reply(trouble=Trouble.UNREACHABLE, detail=_shorten(str(err) or repr(err)))
        try:
            parsed = json.loads(data)
        except ValueError:
            parsed = None
        if 400 <= response.status < 500 and response.status not in (401, 404, 405, 429):
            return Reply(answer=refusal_of_problem(response.status, parsed))
        if response.status != 200:
            detail = f"HTTP {response.status}: {_shorten(data.decode(errors='replace'))}"
            return Reply(trouble=Trouble.STATUS, detail=detail)
        try:
            return Reply(answer=answer_of(ask, parsed))
        except (KeyError, TypeError, IndexError):
            return Reply(trouble=Trouble.GARBAGE, detail=_shorten(data.decode(errors="replace")))

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
