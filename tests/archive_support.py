"""Archives for the tests of ``arbiter score``, the library, the batch endpoint and Dask.

- :func:`game_lines`: random games of :mod:`arbiter.simulate` (tute-2p and tute-4p, one to
  three deals, some renuncios, some with an ``id``) as NDJSON lines, deterministic per seed.
- :data:`BAD_LINES`: a line of every kind that cannot be scored, with the status, title and
  pointer its error must have.
- :func:`mixed_lines`: games with the bad lines and blank lines among them.
- :func:`write_archive`: a folder of several kinds of input (plain NDJSON, ``.gz``, ``.json``
  logs in a subfolder).
- :func:`run_cli`: ``arbiter`` as a process (its status, standard output and error).
"""

from __future__ import annotations

import gzip
import random
import subprocess
import sys
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
