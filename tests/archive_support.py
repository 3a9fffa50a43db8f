"""Archives for the tests of ``arbiter score``, the library, the batch endpoint and Dask.

- :func:`game_lines`: random games of :mod:`arbiter.simulate` (tute-2p and tute-4p, one to
  three deals, some renuncios, some with an ``id``) as NDJSON lines, deterministic per seed.
- :data:`BAD_LINES`: a line of every kind that cannot be scored, with the status, title and
  pointer its error must have.
- :func:`mixed_lines`: games with the bad lines and blank lines among them.
- :func:`write_archive`: a folder of several kinds of input (plain NDJSON, ``.gz``, ``.json``
  logs in a subfolder).
- :func:`run_cli`: ``arbiter`` as a process (its status, standard output and error);
  :func:`start_cli`, :func:`wait_for`, :func:`children`: one to stop while it runs.
"""

from __future__ import annotations

import gzip
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from arbiter.settings import Settings
from arbiter.simulate import random_log

#: The longest line the default settings take.
MAX_LINE = Settings().max_body_bytes


class BadLine(NamedTuple):
    text: bytes
    status: int
    title: str
    pointer: str


def _wrong_deal() -> bytes:
    log = random_log("tute-2p", random.Random(1))
    log["deals"][0]["hands"][0][0] = log["deals"][0]["hands"][1][0]  # a card twice
    return orjson.dumps(log)


def _with_id(ident: Any) -> bytes:
    return orjson.dumps({"id": ident, **random_log("tute-4p", random.Random(2))})


BAD_LINES: tuple[BadLine, ...] = (
    BadLine(b"this is not json", 400, "Not JSON", ""),
    BadLine(b'{"ruleset": "tute-2p", "players": NaN}', 400, "Not JSON", ""),
    BadLine(b'{"ruleset": "\xff\xfe"}', 400, "Not JSON", ""),
    BadLine(b"[1, 2, 3]", 422, "Not a log", ""),
    BadLine(b'"a string"', 422, "Not a log", ""),
    BadLine(b'{"id": "ok", "players": ["ana", "bea"]}', 422, "Invalid log", "/ruleset"),
    BadLine(_wrong_deal(), 422, "Invalid log", "/deals/0/hands/1/0"),
    BadLine(b"{" + b" " * MAX_LINE + b"}", 413, "Line too long", ""),
    BadLine(_with_id(17), 422, "Invalid id", "/id"),
    BadLine(_with_id("x" * 129), 422, "Invalid id", "/id"),
    BadLine(_with_id(""), 422, "Invalid id", "/id"),
    BadLine(_with_id(None), 422, "Invalid id", "/id"),
)


def game_lines(count: int, seed: int, *, renuncio_rate: float = 0.03) -> list[bytes]:
    """``count`` games as NDJSON lines (without newlines)."""
    rng = random.Random(seed)
    lines = []
    for n in range(count):
        ruleset = ("tute-2p", "tute-4p")[n % 2]
        log = random_log(ruleset, rng, deals=1 + n % 3, renuncio_rate=renuncio_rate)
        if n % 5 == 0:
            log = {"id": f"game-{seed}-{n}", **log}
        lines.append(orjson.dumps(log))
    return lines


def mixed_lines(count: int, seed: int) -> list[bytes]:
    """Games, every bad line of :data:`BAD_LINES`, and blank lines, interleaved."""
    lines = game_lines(count, seed)
    step = max(1, len(lines) // (len(BAD_LINES) + 1))
    for n, bad in enumerate(BAD_LINES):
        lines.insert((n + 1) * step, bad.text)
    lines.insert(3, b"")
    lines.insert(7, b"  \t\r")
    return lines


def ndjson(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def write_archive(folder: Path, games: int = 600, seed: int = 11) -> Path:
    """An archive folder: ``a.ndjson`` (mixed lines, CRLF and a last line without newline),
    ``b.ndjson.gz``, and ``logs/*.json`` (one log each, pretty-printed, one not JSON)."""
    folder.mkdir(parents=True, exist_ok=True)
    mixed = ndjson(mixed_lines(games, seed)).replace(b"}\n", b"}\r\n", 5)
    (folder / "a.ndjson").write_bytes(mixed.rstrip(b"\n"))
    (folder / "b.ndjson.gz").write_bytes(gzip.compress(ndjson(game_lines(games // 3, seed + 1))))
    logs = folder / "logs"
    logs.mkdir(exist_ok=True)
    for n, line in enumerate(game_lines(4, seed + 2)):
        pretty = orjson.dumps(orjson.loads(line), option=orjson.OPT_INDENT_2)
        (logs / f"{n:02}.json").write_bytes(pretty)
    (logs / "99.json").write_bytes(b"{not json")
    return folder


class Done(NamedTuple):
    status: int
    out: bytes
    err: str


def run_cli(*args: str | Path, stdin: bytes | None = None, timeout: float = 180) -> Done:
    """``arbiter ARGS`` in a new process (``python -m arbiter.cli``)."""
    done = subprocess.run(
        [sys.executable, "-m", "arbiter.cli", *map(str, args)],
        input=stdin,
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    return Done(done.returncode, done.stdout, done.stderr.decode(errors="replace"))


def lines_of(data: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in data.splitlines()]


# --- runs that stop: real processes, watched --------------------------------------------------


def one_deal_archive(path: Path, games: int, seed: int = 5) -> Path:
    """``games`` one-deal games (40 distinct ones, repeated: cheap to make in any number), as
    NDJSON, with a few renuncios; large enough that a run takes several pieces."""
    rng = random.Random(seed)
    distinct = [
        orjson.dumps(random_log(("tute-2p", "tute-4p")[n % 2], rng, deals=1, renuncio_rate=0.05))
        for n in range(40)
    ]
    with path.open("wb") as f:
        for n in range(games):
            f.write(distinct[n % len(distinct)] + b"\n")
    return path


def start_cli(*args: str | Path, **popen: Any) -> subprocess.Popen[bytes]:
    """``arbiter ARGS`` started (standard output and error to pipes, unless given)."""
    popen.setdefault("stdout", subprocess.PIPE)
    popen.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen([sys.executable, "-m", "arbiter.cli", *map(str, args)], **popen)


def wait_for(check: Any, what: str, timeout: float = 120) -> Any:
    """Poll ``check()`` until it gives something true (a deadline, not a sleep that times a
    step: the machine may be slow); its value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError(f"waited {timeout} s for {what}")


def manifest_lines(path: Path) -> int:
    """Lines a partial manifest records as written (0: none yet, or not there)."""
    try:
        document = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return 0
    return sum(entry["lines"] for entry in document["inputs"])


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux: /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        ppid = next(
            (line.split()[1] for line in status.splitlines() if line.startswith("PPid:")), None
        )
        if ppid == str(pid):
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """A process that has not ended (a zombie has)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status
