"""The engine under test: a process speaking JSON lines, or an HTTP service of docs/api.md.

Both answer :meth:`Engine.ask` (one question) and :meth:`Engine.ask_many` (several, sent at once
and answered in order) with :class:`Reply` s: the engine's answer (an object with the fields of
``expect``), or the :class:`Trouble` that kept it from answering — no answer within the timeout,
the process ended, a line that is not a JSON object or is too long, an answer without the
question's ``id`` or with another's, a service that cannot be reached or answers an unexpected
status. Their ``probe`` says, before a run, why the engine cannot be started or reached at all.

:class:`CommandEngine` never blocks the checker and never lets an engine grow it: the engine
runs in a session of its own; one thread writes the questions, one reads the answers into a
bounded buffer (lines of at most :data:`MAX_LINE` bytes, at most :data:`MAX_QUEUED_BYTES`
waiting: a longer line is thrown away as it comes and reported), one keeps a bounded tail of
standard error. An engine that hangs or stops making sense is killed and started again for the
next question; killing it, and closing it on every way out, kills its whole process group and
every process it started that carries the checker's mark in its environment (children that
left the group with ``setsid`` too).
"""

from __future__ import annotations

import atexit
import contextlib
import http.client
import json
import os
import shlex
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Final, NamedTuple, Protocol
from urllib.parse import urlsplit

from arbiter.conformance.kit.protocol import Ask, dumps
from arbiter.conformance.kit.referee_answers import OUTCOME_FIELDS, answer_of, refusal_of_problem

#: The longest answer line read (a replay of a hundred deals is well under it).
MAX_LINE: Final = 4 * 1024 * 1024
#: The most bytes of answer lines read ahead of the checker: the engine waits beyond it.
MAX_QUEUED_BYTES: Final = 8 * 1024 * 1024
#: The most answer lines read ahead of the checker (an engine writing empty objects in a loop).
MAX_QUEUED_LINES: Final = 1024
#: How much of the engine's standard error is kept for the report: its last bytes.
STDERR_TAIL: Final = 4096
#: How long a process is given to end once its input is closed.
GRACE: Final = 2.0
#: The variable every engine process (and all it starts) carries: the checker's mark.
MARK: Final = "TUTE_CONFORMANCE_ENGINE"
_CHUNK: Final = 64 * 1024


class Trouble(StrEnum):
    """Why the engine gave no answer to compare."""

    TIMEOUT = "timeout"  # no answer within the timeout
    EXITED = "exited"  # the process ended (or could not start)
    GARBAGE = "garbage"  # a line that is not a JSON object, too long, or one too many
    DESYNC = "desync"  # an answer without the question's id, or with another's
    UNREACHABLE = "unreachable"  # the service could not be reached
    STATUS = "status"  # the service answered a status other than 200 or 4xx
    GAVE_UP = "gave_up"  # not asked: the engine failed too many times in a row


@dataclass(frozen=True, slots=True)
class Reply:
    answer: dict[str, Any] | None = None
    trouble: Trouble | None = None
    detail: str = ""


class Encoded(NamedTuple):
    """A question already written as its line (play-testing encodes each position's log and
    position once for all its questions)."""

    id: str
    line: bytes


Question = Mapping[str, Any] | Encoded


def _line(question: Question) -> bytes:
    return question.line if isinstance(question, Encoded) else (dumps(question) + "\n").encode()


def _id(question: Question) -> Any:
    return question.id if isinstance(question, Encoded) else question["id"]


def _fields(question: Question) -> Mapping[str, Any]:
    if isinstance(question, Encoded):
        decoded: dict[str, Any] = json.loads(question.line)
        return decoded
    return question


class Engine(Protocol):
    """What the checker drives."""

    name: str
    #: how many times the engine was started again (or reconnected) after a trouble
    restarts: int

    def ask(self, question: Question) -> Reply: ...

    def ask_many(self, questions: Sequence[Question]) -> list[Reply]: ...

    def send(self, questions: Sequence[Question]) -> Sent: ...

    def receive(self, sent: Sent) -> list[Reply]: ...

    def close(self) -> None: ...


def _shorten(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- a command ------------------------------------------------------------------------------------

#: A line thrown away for its length (what the reader puts in its place).
_OVERLONG: Final = b""


class _Lines:
    """The engine's answer lines read ahead of the checker: at most :data:`MAX_QUEUED_LINES`
    lines and :data:`MAX_QUEUED_BYTES` bytes; the reader waits for room. ``None`` is the end."""

    def __init__(self) -> None:
        self._items: list[bytes | None] = []
        self._bytes = 0
        self._closed = False
        self._ready = threading.Condition()

    def put(self, line: bytes | None) -> bool:
        """Add a line (waiting for room); False once the buffer is closed."""
        with self._ready:
            while (
                line is not None
                and not self._closed
                and (len(self._items) >= MAX_QUEUED_LINES or self._bytes >= MAX_QUEUED_BYTES)
            ):
                self._ready.wait()
            if self._closed:
                return False
            self._items.append(line)
            self._bytes += len(line or b"")
            self._ready.notify_all()
            return True

    def get(self, timeout: float) -> bytes | None:
        """The next line; ``TimeoutError`` if none comes in time."""
        deadline = time.monotonic() + timeout
        with self._ready:
            while not self._items:
                left = deadline - time.monotonic()
                if left <= 0 or self._closed:
                    raise TimeoutError
                self._ready.wait(left)
            line = self._items.pop(0)
            self._bytes -= len(line or b"")
            self._ready.notify_all()
            return line

    def pending(self) -> bool:
        with self._ready:
            return bool(self._items) and self._items[0] is not None

    def close(self) -> None:
        """Wake and release the reader for good."""
        with self._ready:
            self._closed = True
            self._items.clear()
            self._ready.notify_all()


def _marks(environ: bytes) -> list[bytes]:
    """The checkers' marks an environment carries (a checker run by an engine adds its own)."""
    prefix = f"{MARK}=".encode()
    for item in environ.split(b"\0"):
        if item.startswith(prefix):
            return item[len(prefix) :].split(b":")
    return []


def _marked(mark: str) -> list[int]:
    """The processes (of this user) whose environment carries ``mark``."""
    found = []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            if mark.encode() in _marks((entry / "environ").read_bytes()):
                found.append(int(entry.name))
    return found


class _Process:
    """One run of the engine's command, in its own session, with its reader, writer and
    standard-error threads."""

    def __init__(self, argv: list[str]) -> None:
        self.mark = uuid.uuid4().hex
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            start_new_session=True,  # its own process group, killed as one
            env={**os.environ, MARK: ":".join(filter(None, (os.environ.get(MARK), self.mark)))},
        )
        self.lines = _Lines()
        self._outbox: list[bytes | None] = []
        self._out_ready = threading.Condition()
        self._tail = bytearray()
        self._tail_lock = threading.Lock()
        self._killed = False
        assert self.proc.stdin and self.proc.stdout and self.proc.stderr
        self._stderr_reader = threading.Thread(
            target=self._errors, args=(self.proc.stderr.fileno(),), daemon=True
        )
        self._threads = [
            threading.Thread(target=self._read, args=(self.proc.stdout.fileno(),), daemon=True),
            threading.Thread(target=self._write, daemon=True),
            self._stderr_reader,
        ]
        for thread in self._threads:
            thread.start()
        atexit.register(self.kill)

    # --- the threads ------------------------------------------------------------------------------

    # Each thread closes the pipe it works on, and only once it is done with it: a pipe closed
    # under a thread that is about to read it frees its number for the next engine's pipes,
    # and the thread would read (or write) the next engine's lines.

    def _read(self, fd: int) -> None:
        """Answer lines into :attr:`lines` (see :meth:`_answers`); the pipe closed after."""
        try:
            self._answers(fd)
        finally:
            assert self.proc.stdout is not None
            self.proc.stdout.close()

    def _answers(self, fd: int) -> None:
        """Answer lines into :attr:`lines`: each at most MAX_LINE bytes (a longer one is
        dropped as it comes, and its place marked), the end as None."""
        partial = bytearray()
        overlong = False
        with contextlib.suppress(OSError):
            while chunk := os.read(fd, _CHUNK):
                start = 0
                while (end := chunk.find(b"\n", start)) >= 0:
                    if not overlong:
                        partial += chunk[start : end + 1]
                    if not self.lines.put(_OVERLONG if overlong else bytes(partial)):
                        return
                    partial.clear()
                    overlong = False
                    start = end + 1
                if not overlong:
                    partial += chunk[start:]
                    if len(partial) > MAX_LINE:
                        partial.clear()
                        overlong = True
        if partial and not overlong:
            self.lines.put(bytes(partial))  # a last line without its newline
        elif overlong:
            self.lines.put(_OVERLONG)
        self.lines.put(None)

    def _write(self) -> None:
        assert self.proc.stdin is not None
        stream = self.proc.stdin
        with contextlib.suppress(OSError, ValueError):
            while True:
                with self._out_ready:
                    while not self._outbox:
                        self._out_ready.wait()
                    data = self._outbox.pop(0)
                if data is None:
                    break
                stream.write(data)
        with contextlib.suppress(OSError, ValueError):
            stream.close()

    def _errors(self, fd: int) -> None:
        """The last :data:`STDERR_TAIL` bytes of standard error, however much it writes."""
        with contextlib.suppress(OSError):
            while chunk := os.read(fd, _CHUNK):
                with self._tail_lock:
                    self._tail += chunk[-STDERR_TAIL:]
                    del self._tail[:-STDERR_TAIL]
        assert self.proc.stderr is not None
        self.proc.stderr.close()

    # --- the checker's side -----------------------------------------------------------------------

    def send(self, data: bytes | None) -> None:
        with self._out_ready:
            self._outbox.append(data)
            self._out_ready.notify()

    def ended(self) -> int | None:
        """The exit status of an engine whose answers have ended (None if it is still running
        after :data:`GRACE`), once its last words on standard error are read: the reader thread
        may be behind the exit, most of all on a loaded machine, and a process it started may
        still hold the pipe (so the wait for the end of standard error is bounded too)."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(GRACE)
        self._stderr_reader.join(GRACE)
        return self.proc.returncode

    def tail(self) -> str:
        with self._tail_lock:
            text = self._tail.decode(errors="replace")
        lines = [line.rstrip() for line in text.splitlines() if line.strip()]
        joined = " | ".join(lines[-12:])
        return joined if len(joined) <= 600 else "…" + joined[-599:]  # its end says most

    def kill(self) -> None:
        """Kill the engine's process group and every process carrying its mark, and reap it."""
        if self._killed:
            return
        self._killed = True
        atexit.unregister(self.kill)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        for pid in _marked(self.mark):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        self.send(None)  # the writer closes standard input, the readers their pipes
        self.lines.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(GRACE)

    def close(self) -> None:
        """End of input, a grace period to exit, then the kill (of whatever it left behind)."""
        self.send(None)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(GRACE)
        self.kill()


_ONE_LINE: Final = "more than one line per question"
_RESTARTED: Final = "not answered: the engine was started again"


@dataclass(frozen=True, slots=True)
class Sent:
    """Questions sent to an engine, their answers still to be read (:meth:`Engine.receive`)."""

    run: Any
    questions: Sequence[Question]
    #: the trouble that kept them from being sent
    failed: Reply | None = None


class CommandEngine:
    """The engine as a command that reads questions and writes answers, one JSON per line."""

    def __init__(self, command: str, timeout: float) -> None:
        self.name = command
        self.argv = shlex.split(command)
        if not self.argv:
            raise ValueError("the engine's command is empty")
        self.timeout = timeout
        self.restarts = 0
        self._run: _Process | None = None
        self._in_flight = 0

    def probe(self) -> str | None:
        """Why the command cannot be started, or None: it runs, ready for the first question."""
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
        self._in_flight = 0
        if self._run is not None:
            self._run.kill()
            self._run = None
            self.restarts += 1

    def ask(self, question: Question) -> Reply:
        return self.ask_many([question])[0]

    def ask_many(self, questions: Sequence[Question]) -> list[Reply]:
        """Send every question, then read their answers in order."""
        return self.receive(self.send(questions))

    def send(self, questions: Sequence[Question]) -> Sent:
        """Send questions without waiting for their answers (:meth:`receive` reads them), so
        that the engine works on them while the checker prepares the next."""
        try:
            run = self._process()
        except OSError as err:
            reply = Reply(trouble=Trouble.EXITED, detail=f"cannot start {self.argv[0]}: {err}")
            return Sent(None, questions, reply)
        if not self._in_flight and run.lines.pending():  # lines nobody asked for
            self._restart()
            return Sent(None, questions, Reply(trouble=Trouble.GARBAGE, detail=_ONE_LINE))
        run.send(b"".join(_line(q) for q in questions))
        self._in_flight += len(questions)
        return Sent(run, questions)

    def receive(self, sent: Sent) -> list[Reply]:
        """The answers to questions sent, in order. After a trouble the engine is started
        again and the questions not yet answered get the same trouble."""
        count = len(sent.questions)
        if sent.failed is not None:
            return [sent.failed] * count
        run = self._run
        if run is None or sent.run is not run:
            return [Reply(trouble=Trouble.EXITED, detail=_RESTARTED)] * count
        replies: list[Reply] = []
        for question in sent.questions:
            reply = self._answer(run, question)
            replies.append(reply)
            if reply.answer is None:
                replies += [Reply(trouble=reply.trouble, detail=_RESTARTED)] * (
                    count - len(replies)
                )
                break
            self._in_flight -= 1
        return replies

    def _answer(self, run: _Process, question: Question) -> Reply:
        try:
            line = run.lines.get(self.timeout)
        except TimeoutError:
            self._restart()
            return Reply(trouble=Trouble.TIMEOUT, detail=f"{self.timeout:g} s")
        if line is None:
            status = run.ended()
            tail = run.tail()
            self._restart()  # what it left running goes with it
            return Reply(trouble=Trouble.EXITED, detail=f"status {status}; stderr: {tail}")
        return self._parse(line, question)

    def _parse(self, line: bytes, question: Question) -> Reply:
        if not line:
            self._restart()
            return Reply(trouble=Trouble.GARBAGE, detail=f"a line longer than {MAX_LINE} bytes")
        try:
            answer = json.loads(line)
        except (ValueError, RecursionError):
            answer = None
        if not isinstance(answer, dict) or not line.endswith(b"\n"):
            self._restart()  # what follows cannot be trusted to be the next answer
            return Reply(trouble=Trouble.GARBAGE, detail=_shorten(repr(line[:400])))
        if answer.get("id") != _id(question):
            self._restart()
            said = f"id {answer['id']!r}" if "id" in answer else "no id"
            return Reply(trouble=Trouble.DESYNC, detail=_shorten(said))
        return Reply(answer=answer)

    def close(self) -> None:
        if self._run is not None:
            self._run.close()
            self._run = None


# --- an HTTP service ------------------------------------------------------------------------------

#: docs/api.md: the endpoint each question goes to.
ENDPOINTS: Final = {
    Ask.LEGAL_MOVES: "/v1/replays",
    Ask.VERDICT: "/v1/moves/validate",
    Ask.REPLAY: "/v1/replays",
}
#: The statuses that are no refusal of the log but a fault of the service or the setup.
_NOT_A_REFUSAL: Final = frozenset({401, 404, 405, 429})


def _ends_the_deal(question: Mapping[str, Any]) -> bool:
    """Whether the move of a verdict question may end its deal: a tute, or a play when the
    question's position says one card is left (without a position: any play)."""
    move, position = question.get("move"), question.get("position")
    kind = move.get("type") if isinstance(move, Mapping) else None
    if kind == "tute":
        return True
    if kind != "play":
        return False
    if not isinstance(position, Mapping):
        return True
    return sum(len(hand) for hand in position.get("hands", [])) <= 1


class HttpEngine:
    """An HTTP service implementing docs/api.md (``POST /v1/replays``, ``/v1/moves/validate``).
    The outcome of a move that ends its deal is read from a replay of the log with the move."""

    def __init__(self, url: str, timeout: float, api_key: str | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        self.name = url
        self.timeout = timeout
        self.restarts = 0
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
        question."""
        try:
            self._conn = self._factory(self._host, self._port, timeout=self.timeout)
            self._conn.connect()
        except (OSError, http.client.HTTPException) as err:
            self.close()
            return _shorten(str(err) or repr(err))
        return None

    def _post(self, path: str, body: Mapping[str, Any]) -> tuple[int, bytes] | Reply:
        """The status and body of a POST, or the trouble that kept it from an answer."""
        try:
            if self._conn is None:
                self._conn = self._factory(self._host, self._port, timeout=self.timeout)
            self._conn.request("POST", self.base + path, dumps(body).encode(), self.headers)
            response = self._conn.getresponse()
            data = response.read(MAX_LINE + 1)
        except TimeoutError:
            self._reconnect()
            return Reply(trouble=Trouble.TIMEOUT, detail=f"{self.timeout:g} s")
        except (OSError, http.client.HTTPException) as err:
            self._reconnect()
            return Reply(trouble=Trouble.UNREACHABLE, detail=_shorten(str(err) or repr(err)))
        if len(data) > MAX_LINE:
            self._reconnect()
            return Reply(trouble=Trouble.GARBAGE, detail=f"an answer over {MAX_LINE} bytes")
        return response.status, data

    def _reconnect(self) -> None:
        self.close()
        self.restarts += 1

    def ask(self, question: Question) -> Reply:
        question = _fields(question)
        if question["ask"] not in tuple(Ask):  # the capabilities: docs/api.md has none
            return Reply(answer={"id": question["id"], "unsupported": True})
        ask = Ask(question["ask"])
        body = dict(question["log"])
        if ask is Ask.VERDICT:
            body["move"] = question.get("move")
        posted = self._post(ENDPOINTS[ask], body)
        if isinstance(posted, Reply):
            return posted
        status, data = posted
        try:
            parsed = json.loads(data)
        except ValueError:
            parsed = None
        if 400 <= status < 500 and status not in _NOT_A_REFUSAL:
            return Reply(answer=refusal_of_problem(status, parsed))
        if status != 200:
            detail = f"HTTP {status}: {_shorten(data.decode(errors='replace'))}"
            return Reply(trouble=Trouble.STATUS, detail=detail)
        try:
            answer = answer_of(ask, parsed)
        except (KeyError, TypeError, IndexError):
            return Reply(trouble=Trouble.GARBAGE, detail=_shorten(data.decode(errors="replace")))
        if ask is Ask.VERDICT and answer["verdict"] != "illegal" and _ends_the_deal(question):
            return self._with_outcome(question, answer)
        return Reply(answer=answer)

    def _with_outcome(self, question: Mapping[str, Any], answer: dict[str, Any]) -> Reply:
        """The verdict with the outcome of the deal the move ends, from the service's replay of
        the log with the move appended."""
        log = question["log"]
        *before, last = log["deals"]
        after = {**log, "deals": [*before, {**last, "events": [*last["events"], question["move"]]}]}
        posted = self._post(ENDPOINTS[Ask.REPLAY], after)
        if isinstance(posted, Reply):
            return posted
        status, data = posted
        try:
            deal = json.loads(data)["deals"][-1] if status == 200 else None
        except (ValueError, KeyError, TypeError, IndexError):
            deal = None
        if deal is not None and deal.get("finished") and isinstance(deal.get("outcome"), dict):
            answer["outcome"] = {k: deal["outcome"].get(k) for k in OUTCOME_FIELDS}
        return Reply(answer=answer)

    def ask_many(self, questions: Sequence[Question]) -> list[Reply]:
        return [self.ask(q) for q in questions]

    def send(self, questions: Sequence[Question]) -> Sent:
        """Nothing is sent ahead to a service: :meth:`receive` asks the questions."""
        return Sent(None, questions)

    def receive(self, sent: Sent) -> list[Reply]:
        return self.ask_many(sent.questions)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
