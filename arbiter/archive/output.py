"""Outputs that never look complete before they are, and the manifest beside each.

A run to ``--out FILE`` writes ``FILE.partial`` and its manifest ``FILE.partial.manifest.json``;
only when every line is written is the file synced to disk and renamed ``FILE``, and its
manifest ``FILE.manifest.json`` written beside (written under another name, synced, renamed).
A run to ``--out DIR`` writes its parts in ``DIR/.partial/`` with ``DIR/.partial/_manifest.json``
and at the end moves each part into ``DIR`` and writes ``DIR/_manifest.json`` (names that start
with ``.`` or ``_`` are passed over by pyarrow and DuckDB reading a folder of parts). So a run
that fails or is killed leaves only files that say they are partial, and the output of the run
before is not touched until the new one is complete.

The manifest (:class:`Ledger`) says, per input, its size, modification time and SHA-256, the
lines, games and error lines read, where its lines are in the output (the part, the byte range
and its SHA-256) and where a run that continues takes it up; with the tool's version, the
options that shape the output, the figures so far and whether the run finished. While the run
goes on, the partial manifest is rewritten after the pieces written (a checkpoint: the part
flushed, its length recorded), at most every :data:`CHECKPOINT_SECONDS`; ``--resume`` reads it
back (:func:`resume`) and cuts the part to the length it records, so a continued run writes the
same bytes as one that never stopped.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson

from arbiter.archive import Format
from arbiter.archive.inputs import Input, Kind, Position, Resume, open_bytes
from arbiter.archive.remote import is_remote, upload
from arbiter.archive.summary import Summary

if TYPE_CHECKING:
    from arbiter.archive.runner import Outcome, PieceResult

#: The version of the manifest's layout.
MANIFEST_VERSION: Final = 1
#: Least seconds between two checkpoints of the partial manifest.
CHECKPOINT_SECONDS: Final = 0.2
#: What the names of what a run is still writing end with.
PARTIAL: Final = ".partial"
#: The manifest of a folder of parts.
FOLDER_MANIFEST: Final = "_manifest.json"
#: Bytes read at a time to checksum a file.
_CHUNK: Final = 1 << 20


class ResumeError(Exception):
    """A run that cannot be continued; the message says why."""


@dataclass(slots=True)
class Entry:
    """One input in the manifest: the file, what was read of it, where its lines went."""

    path: str
    name: str
    kind: str
    size: int | None
    mtime_ns: int | None
    sha256: str | None = None
    lines: int = 0
    games: int = 0
    errors: int = 0
    breaches: int = 0
    #: byte of a plain NDJSON file where the next piece starts (None: other kinds)
    offset: int | None = None
    done: bool = False
    problem: str | None = None
    #: the part its lines are in (a name in the output folder, or the output file's name)
    part: str | None = None
    part_start: int = 0
    #: bytes of its lines in the part (None: a Parquet part, complete only when closed)
    part_bytes: int | None = 0
    part_sha256: str | None = None

    @classmethod
    def of(cls, item: Input) -> Entry:
        local = item.kind is not Kind.STDIN and not is_remote(item.path)
        mtime = os.stat(item.path).st_mtime_ns if local else None  # remote: its size says
        return cls(item.path, item.name, item.kind.value, item.size, mtime)

    def same_file(self, other: Entry) -> bool:
        return (self.path, self.size, self.mtime_ns) == (other.path, other.size, other.mtime_ns)


class Target:
    """Where a run's output goes once complete, and where it is written meanwhile."""

    #: the output: a file, or a folder of parts
    final: Path
    kind: str

    def partial(self, part: str) -> Path:
        """Where ``part`` is written until the run is complete."""
        raise NotImplementedError

    @property
    def unfinished(self) -> Path:
        """What a run that stops leaves: the partial file, or the folder of partial parts."""
        raise NotImplementedError

    @property
    def partial_manifest(self) -> Path:
        raise NotImplementedError

    @property
    def manifest(self) -> Path:
        raise NotImplementedError

    def commit(self, parts: Sequence[str]) -> None:
        """Every part (synced to disk) moved to its final name."""
        raise NotImplementedError

    @property
    def given(self) -> str:
        """The output as the user named it (a path, a URL)."""
        return str(self.final)

    def publish(self, manifest: bytes) -> None:
        """The manifest of the complete output beside it."""
        write_atomically(self.manifest, manifest, durable=True)

    def fresh(self) -> None:
        """What a partial run before left, gone: this one starts anew."""
        self.clean()

    def clean(self) -> None:
        """What the partial run left that the complete output does not need."""
        with contextlib.suppress(FileNotFoundError):
            self.partial_manifest.unlink()


class FileTarget(Target):
    """``--out FILE``: ``FILE.partial`` until complete."""

    kind = "file"

    def __init__(self, path: Path) -> None:
        self.final = path
        self.part = path.name

    def partial(self, part: str) -> Path:
        return self.unfinished

    @property
    def unfinished(self) -> Path:
        return self.final.with_name(self.final.name + PARTIAL)

    @property
    def partial_manifest(self) -> Path:
        return self.final.with_name(self.final.name + PARTIAL + ".manifest.json")

    @property
    def manifest(self) -> Path:
        return self.final.with_name(self.final.name + ".manifest.json")

    def commit(self, parts: Sequence[str]) -> None:
        _sync(self.partial(self.part))
        os.replace(self.partial(self.part), self.final)
        _sync_folder(self.final.parent)


class RemoteTarget(FileTarget):
    """``--out URL`` (:mod:`arbiter.archive.remote`): the file written here, in a temporary
    folder, and uploaded once complete; its manifest then."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.staging = Path(tempfile.mkdtemp(prefix="arbiter-score-"))
        super().__init__(self.staging / url.rstrip("/").rsplit("/", 1)[-1])

    @property
    def given(self) -> str:
        return self.url

    def commit(self, parts: Sequence[str]) -> None:
        upload(str(self.unfinished), self.url)

    def publish(self, manifest: bytes) -> None:
        write_atomically(self.manifest, manifest)
        upload(str(self.manifest), self.url + ".manifest.json")

    def fresh(self) -> None:
        pass  # a new temporary folder

    def clean(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)


class FolderTarget(Target):
    """``--out DIR``: parts in ``DIR/.partial/`` until complete."""

    kind = "folder"

    def __init__(self, folder: Path) -> None:
        self.final = folder
        self.staging = folder / PARTIAL

    def partial(self, part: str) -> Path:
        return self.staging / part

    @property
    def unfinished(self) -> Path:
        return self.staging

    @property
    def partial_manifest(self) -> Path:
        return self.staging / FOLDER_MANIFEST

    @property
    def manifest(self) -> Path:
        return self.final / FOLDER_MANIFEST

    def commit(self, parts: Sequence[str]) -> None:
        folders = {self.final}
        for part in parts:
            _sync(self.partial(part))
            target = self.final / part
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.partial(part), target)
            folders.add(target.parent)
        for folder in folders:
            _sync_folder(folder)

    def clean(self) -> None:
        shutil.rmtree(self.staging, ignore_errors=True)


@dataclass(slots=True)
class Ledger:
    """The manifest of a run as it goes, kept in step with its output (see the module)."""

    target: Target
    fmt: Format
    options: dict[str, Any]
    entries: list[Entry]
    summary: Summary = field(default_factory=Summary)
    problems: list[str] = field(default_factory=list)
    stopped: str | None = None
    #: the figures and problems of the inputs read to their end (an input taken up again
    #: from its start, within a Parquet part, counts from there)
    settled: Summary = field(default_factory=Summary)
    settled_problems: list[str] = field(default_factory=list)
    _saved: float = 0.0
    #: input number → its checksum being computed beside the run (:class:`_Checksum`)
    _checksums: dict[int, _Checksum] = field(default_factory=dict)
    #: input number → the checksum of its bytes in its part, following the writer
    _parts: dict[int, _PartChecksum] = field(default_factory=dict)

    @classmethod
    def start(
        cls, target: Target, fmt: Format, inputs: Sequence[Input], options: dict[str, Any]
    ) -> Ledger:
        return cls(target, fmt, options, [Entry.of(item) for item in inputs])

    # --- told by the sink --------------------------------------------------------------------

    def started(self, number: int, part: str, at: int) -> None:
        """Input ``number``'s lines begin at byte ``at`` of ``part`` (not for one continued)."""
        entry = self.entries[number]
        if entry.part is None:
            entry.part, entry.part_start = part, at
        if entry.kind != Kind.STDIN.value and _beside(entry) and number not in self._checksums:
            # A large input's checksum, computed at its end, was a pause of the run (1.85 GB
            # of a million games: 1.4 s) with the workers of --jobs idle; beside the run, on a
            # thread (hashlib and reads let go of the GIL), it is ready when the input is.
            self._checksums[number] = _Checksum(entry.path)

    def written(self, result: PieceResult, position: int | None) -> None:
        """A piece's lines written, the part then ``position`` bytes long (None: unknown)."""
        entry = self.entries[result.input]
        entry.lines += result.lines
        entry.games += result.summary.games
        entry.errors += result.summary.error_lines
        entry.breaches += result.summary.breaches
        entry.offset = result.end
        if result.problem is not None:
            entry.problem = result.problem
            self.problems.append(result.problem)
        entry.part_bytes = None if position is None else position - entry.part_start
        if position is not None and entry.part is not None and _beside(entry):
            # The part's checksum at the input's end was a pause too (2 GB of a million
            # games' lines: 1.1 s); a thread hashes what is written, up to the last piece.
            follower = self._parts.get(result.input)
            if follower is None:
                part = self.target.partial(entry.part)
                follower = self._parts[result.input] = _PartChecksum(part, entry.part_start)
            follower.advance(position)
        self.summary.merge(result.summary)
        if time.monotonic() - self._saved >= CHECKPOINT_SECONDS:
            self.save()

    def closed(self, number: int) -> None:
        """Input ``number`` read to its end and its part flushed: both checksummed."""
        entry = self.entries[number]
        entry.done = True
        self.settled, self.settled_problems = self.summary.copy(), list(self.problems)
        if entry.kind != Kind.STDIN.value:
            beside = self._checksums.pop(number, None)
            entry.sha256 = checksum(entry.path) if beside is None else beside.result()
        if entry.part is not None and entry.part_bytes is not None:
            follower = self._parts.pop(number, None)
            end = entry.part_start + entry.part_bytes
            if follower is not None:
                entry.part_sha256 = follower.result(end)
            else:
                part = self.target.partial(entry.part)
                entry.part_sha256 = checksum(part, entry.part_start, entry.part_bytes)

    # --- the end of a run --------------------------------------------------------------------

    def finish(self) -> None:
        """The run complete: parts moved to their names, then the manifest beside them."""
        for entry in self.entries:
            entry.done = True  # an empty file has no piece, and nothing to write
        parts = sorted({entry.part for entry in self.entries if entry.part is not None})
        file = self.target.kind == "file"  # one file, even of no line
        whole = self._whole_part() if file else None
        for entry in self.entries:  # a Parquet part is complete only now
            if entry.part is not None and entry.part_sha256 is None and not file:
                part = self.target.partial(entry.part)
                entry.part_bytes, entry.part_sha256 = part.stat().st_size, checksum(part)
        if file and whole is None:
            whole = checksum(self.target.unfinished)
        self.target.commit(parts)
        self.target.publish(self._document(finished=True, sha256=whole))
        self.target.clean()

    def _whole_part(self) -> str | None:
        """The checksum of the output file when one input's lines fill it (none to compute
        again)."""
        size = self.target.unfinished.stat().st_size
        for entry in self.entries:
            if entry.part_start == 0 and entry.part_bytes == size and entry.part_sha256:
                return entry.part_sha256
        return None

    def stop(self, reason: str) -> None:
        """The run stopped: the part being written cut back to its last whole piece (no line
        cut in the middle), and the partial manifest says what is done."""
        self.stopped = reason
        with contextlib.suppress(OSError):
            self._cut_back()
        with contextlib.suppress(OSError):  # a full disk may refuse even this
            self.save()

    def _cut_back(self) -> None:
        current = [e for e in self.entries if e.part is not None and not e.done]
        for entry in current:
            if entry.part is not None and entry.part_bytes is not None:
                os.truncate(self.target.partial(entry.part), entry.part_start + entry.part_bytes)

    def save(self) -> None:
        write_atomically(self.target.partial_manifest, self._document(finished=False))
        self._saved = time.monotonic()

    def _document(self, *, finished: bool, sha256: str | None = None) -> bytes:
        from arbiter import __version__

        document = {
            "manifest": MANIFEST_VERSION,
            "tool": {"name": "tute-arbiter", "version": __version__},
            "options": self.options,
            "finished": finished,
            "stopped": self.stopped,
            "output": {
                "path": self.target.given,
                "kind": self.target.kind,
                "format": self.fmt.value,
                "sha256": sha256,
            },
            "inputs": [asdict(entry) for entry in self.entries],
            "problems": self.problems,
            "summary": self.summary.to_state(),
            "settled": {"problems": self.settled_problems, "summary": self.settled.to_state()},
        }
        return orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"


# --- continuing a run ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Continued:
    """What a run that continues another starts from: where it takes up each input, the
    bytes of each part it keeps, and the manifest's figures."""

    resume: Resume
    keep: dict[str, int]
    ledger: Ledger


def resume(ledger: Ledger) -> Continued | None:
    """The run the partial manifest of ``ledger``'s target describes, checked against
    ``ledger`` (the same inputs, unchanged; the same options; every part it counts whole);
    None when there is none. :class:`ResumeError` when it cannot be continued."""
    try:
        document = orjson.loads(ledger.target.partial_manifest.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, orjson.JSONDecodeError) as err:
        raise ResumeError(f"{ledger.target.partial_manifest} cannot be read: {err}") from None
    if document.get("manifest") != MANIFEST_VERSION or document.get("options") != ledger.options:
        raise ResumeError("the options are not those of the run to continue")
    entries = [Entry(**entry) for entry in document["inputs"]]
    if len(entries) != len(ledger.entries) or not all(
        a.same_file(b) for a, b in zip(entries, ledger.entries, strict=True)
    ):
        raise ResumeError("the inputs are not those of the run to continue, or have changed")
    positions: Resume = {}
    keep: dict[str, int] = {}
    for number, entry in enumerate(entries):
        if entry.part is None and not entry.lines:
            break  # not begun: this one and those after are read from their start
        positions[number], keep[entry.part or ""] = _take_up(ledger.target, entry)
        if not positions[number].done:
            break
    settled = document["settled"]
    state = Ledger(
        ledger.target,
        ledger.fmt,
        ledger.options,
        entries[: len(positions)] + ledger.entries[len(positions) :],
        Summary.from_state(document["summary"]),
        list(document["problems"]),
        settled=Summary.from_state(settled["summary"]),
        settled_problems=list(settled["problems"]),
    )
    _forget_unfinished(state, positions)
    return Continued(positions, keep, state)


def _take_up(target: Target, entry: Entry) -> tuple[Position, int]:
    """Where a continued run takes up ``entry``, and the bytes of its part it keeps."""
    part = target.partial(entry.part or "")
    end = entry.part_start + (entry.part_bytes or 0)
    if entry.done or entry.problem is not None or (entry.kind == Kind.JSON.value and entry.lines):
        if entry.part_sha256 is None or entry.part_bytes is None:
            raise ResumeError(f"{part} cannot be continued: write it again without --resume")
        whole = part.exists() and checksum(part, entry.part_start, entry.part_bytes)
        if whole != entry.part_sha256:
            raise ResumeError(f"{part} is not what its manifest says: run again without --resume")
        return Position(entry.lines, entry.offset, done=True), end
    if entry.part_bytes is None or entry.kind == Kind.STDIN.value:
        return Position(), entry.part_start  # within a Parquet part, or standard input: again
    if not part.exists() or part.stat().st_size < end:
        raise ResumeError(f"{part} is shorter than its manifest says: run again without --resume")
    return Position(entry.lines, entry.offset), end


def _forget_unfinished(state: Ledger, positions: Resume) -> None:
    """An input taken up from its start counts nothing of what the run before read of it."""
    for number, at in positions.items():
        entry = state.entries[number]
        if not at.done and at.lines == 0:
            fresh = Entry(entry.path, entry.name, entry.kind, entry.size, entry.mtime_ns)
            fresh.part, fresh.part_start = entry.part, entry.part_start
            state.entries[number] = fresh
            state.summary, state.problems = state.settled.copy(), list(state.settled_problems)


def earlier(continued: Continued | None) -> Outcome:
    """The figures of the run a continued run takes up (nothing for a new run)."""
    from arbiter.archive.runner import Outcome

    if continued is None:
        return Outcome()
    return Outcome(continued.ledger.summary.copy(), list(continued.ledger.problems))


# --- files -----------------------------------------------------------------------------------


#: Inputs from this size are checksummed beside the run (smaller ones at their end: a
#: thread would cost more than the checksum).
_BESIDE_BYTES: Final = 16 * _CHUNK


def _beside(entry: Entry) -> bool:
    """Is ``entry`` large enough to be checksummed on threads (a file of this machine)?"""
    return not is_remote(entry.path) and (entry.size or 0) >= _BESIDE_BYTES


class _Checksum:
    """The :func:`checksum` of a whole file, computed on a thread of its own (a daemon: a run
    that stops does not wait for it); :meth:`result` waits for it, and raises what it raised."""

    def __init__(self, path: str) -> None:
        self._done = threading.Event()
        self._value: str | None = None
        self._error: BaseException | None = None
        threading.Thread(target=self._run, args=(path,), daemon=True).start()

    def _run(self, path: str) -> None:
        try:
            self._value = checksum(path)
        except BaseException as err:  # given to the run when it asks
            self._error = err
        finally:
            self._done.set()

    def result(self) -> str:
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value


class _PartChecksum:
    """The :func:`checksum` of an input's bytes in its part from byte ``start``, computed on
    a thread of its own (a daemon) behind the writer: told how far the part is written and
    flushed (:meth:`advance`: bytes that stay, a run cut back keeps them), it reads and hashes
    up to there; :meth:`result` waits for it to reach the end of the input's bytes, and raises
    what it raised."""

    def __init__(self, path: Path, start: int) -> None:
        self._written = threading.Condition()
        self._target = start
        self._end: int | None = None
        self._done = threading.Event()
        self._value: str | None = None
        self._error: BaseException | None = None
        threading.Thread(target=self._run, args=(path, start), daemon=True).start()

    def advance(self, position: int) -> None:
        with self._written:
            self._target = max(self._target, position)
            self._written.notify()

    def result(self, end: int) -> str:
        with self._written:
            self._end = end
            self._written.notify()
        self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value

    def _run(self, path: Path, start: int) -> None:
        digest = hashlib.sha256()
        try:
            with open(path, "rb") as f:
                f.seek(start)
                position = start
                while (end := self._next(position)) is not None:
                    for chunk in _chunks(f, end - position):
                        digest.update(chunk)
                        position += len(chunk)
                    if position < end:
                        raise OSError(f"{path} is shorter than its manifest says")
            if position != self._end:  # read past the input's bytes: a checksum of others'
                raise OSError(f"{path}: the input's bytes end at {self._end}, not {position}")
            self._value = digest.hexdigest()
        except BaseException as err:  # given to the run when it asks
            self._error = err
        finally:
            self._done.set()

    def _next(self, position: int) -> int | None:
        """Where to read up to, once there is more (None: the end was reached)."""
        with self._written:
            while True:
                if self._end is not None and position >= self._end:
                    return None
                target = self._target if self._end is None else self._end
                if target > position:
                    return target
                self._written.wait()


def checksum(path: Path | str, start: int = 0, size: int | None = None) -> str:
    """The SHA-256 of ``size`` bytes of ``path`` (a URL too) from ``start`` (None: to its
    end)."""
    digest = hashlib.sha256()
    with open_bytes(str(path)) as f:
        f.seek(start)
        for chunk in _chunks(f, size):
            digest.update(chunk)
    return digest.hexdigest()


def _chunks(f: Any, size: int | None) -> Iterator[bytes]:
    left = size
    while left is None or left > 0:
        chunk = f.read(_CHUNK if left is None else min(_CHUNK, left))
        if not chunk:
            return
        if left is not None:
            left -= len(chunk)
        yield chunk


def write_atomically(path: Path, data: bytes, *, durable: bool = False) -> None:
    """``data`` under ``path``, never a half of it: written beside and renamed; ``durable``:
    synced to disk first (a checkpoint need not be: a killed process loses nothing it wrote,
    only the machine going down would)."""
    beside = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(beside, "wb") as f:
            f.write(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(beside, path)
    except BaseException:
        with contextlib.suppress(OSError):
            beside.unlink()
        raise


def _sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _sync_folder(folder: Path) -> None:
    """A rename made durable: the folder's entry synced (where the system allows it)."""
    with contextlib.suppress(OSError):
        _sync(folder)
