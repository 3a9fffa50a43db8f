"""Issue 22, finding 11: a folder given to ``arbiter score`` is read no further than it holds.

- A symbolic link out of the folder (to a file or to a folder) is not followed: it is named on
  standard error and in ``--summary-json`` (``skipped``), the rest is scored, and the exit status
  is 2; ``--follow-symlinks`` reads it. Links that stay in the folder are read as before.
- What cannot be read is said, never dropped: a subfolder that cannot be listed, a file that
  cannot be opened (as root, the command runs without ``CAP_DAC_OVERRIDE`` and
  ``CAP_DAC_READ_SEARCH`` so that permissions hold), a FIFO, a link loop. The other inputs are
  scored (exit 2). A FIFO is never opened (the run does not wait for a writer).
- A file that is not an archive never has its bytes echoed: a "gzip" file that is not gzip was
  named with its first two bytes (``Not a gzipped file (b'ro')``).
"""

from __future__ import annotations

import ctypes
import gzip
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import arbiter
from arbiter.archive.inputs import InputError
from arbiter.commands.score import Exit
from tests.archive_support import Done, game_lines, lines_of, ndjson

# The real command, in processes of its own: the quick loop leaves them out.
pytestmark = pytest.mark.slow

#: What no input of a test may leak into the output.
SECRET = b"SECRET-BYTES-OF-A-FILE-OUTSIDE"
#: Linux capabilities that let root read whatever the permissions say (capability(7)).
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH = 1, 2
_PR_CAPBSET_DROP = 24


def _without_dac_override() -> None:
    """In the child, before exec: drop the capabilities that let root ignore permissions."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH):
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def score(*args: str | Path, timeout: float = 120) -> Done:
    """``arbiter score ARGS`` as a user runs it, held to file permissions even as root."""
    preexec: Callable[[], None] | None = _without_dac_override if os.geteuid() == 0 else None
    done = subprocess.run(
        [sys.executable, "-m", "arbiter.cli", "score", *map(str, args)],
        capture_output=True,
        timeout=timeout,
        check=False,
        preexec_fn=preexec,
    )
    return Done(done.returncode, done.stdout, done.stderr.decode(errors="replace"))


def _folder(tmp_path: Path) -> tuple[Path, Path]:
    """``archive/`` (two games in a.ndjson) and ``outside/`` (a log and a secret) beside it."""
    archive, outside = tmp_path / "archive", tmp_path / "outside"
    archive.mkdir()
    outside.mkdir()
    (archive / "a.ndjson").write_bytes(ndjson(game_lines(2, seed=51, renuncio_rate=0.0)))
    (outside / "games.ndjson").write_bytes(ndjson(game_lines(3, seed=52, renuncio_rate=0.0)))
    (outside / "secret.ndjson").write_bytes(SECRET + b"\n")
    return archive, outside


def _sources(done: Done) -> list[str]:
    return [line["source"] for line in lines_of(done.out)]


def _assert_clean(done: Done) -> None:
    assert "Traceback" not in done.err, done.err[-2000:]
    assert SECRET not in done.out and SECRET.decode() not in done.err


def test_links_out_of_the_folder_are_not_followed(tmp_path: Path) -> None:
    archive, outside = _folder(tmp_path)
    (archive / "b.ndjson").symlink_to(outside / "games.ndjson")
    (archive / "c.ndjson").symlink_to(outside / "secret.ndjson")
    (archive / "more").symlink_to(outside, target_is_directory=True)
    (archive / "same.ndjson").symlink_to(archive / "a.ndjson")  # in the folder: read
    summary = tmp_path / "summary.json"
    done = score(archive, "--quiet", "--summary-json", summary)
    _assert_clean(done)
    assert done.status == Exit.BAD_DATA, done.err
    assert sorted(set(_sources(done))) == [f"{archive}/a.ndjson:{n}" for n in (1, 2)] + [
        f"{archive}/same.ndjson:{n}" for n in (1, 2)
    ]
    for name in ("b.ndjson", "c.ndjson", "more"):
        assert f"{archive}/{name}" in done.err and "outside" in done.err, done.err
    assert "--follow-symlinks" in done.err
    skipped = json.loads(summary.read_text())["skipped"]
    names = ("b.ndjson", "c.ndjson", "more")
    assert sorted(s["path"] for s in skipped) == [f"{archive}/{n}" for n in names]

    followed = score(archive, "--quiet", "--follow-symlinks")
    assert "Traceback" not in followed.err
    got = _sources(followed)
    assert f"{archive}/b.ndjson:3" in got and f"{archive}/more/games.ndjson:3" in got
    assert f"{archive}/c.ndjson:1" in got  # the secret is read as asked: not JSON, not echoed
    assert SECRET not in followed.out


def test_what_cannot_be_read_is_said_and_the_rest_is_scored(tmp_path: Path) -> None:
    archive, _ = _folder(tmp_path)
    locked = archive / "locked"
    locked.mkdir()
    (locked / "hidden.ndjson").write_bytes(ndjson(game_lines(2, seed=53)))
    unreadable = archive / "unreadable.ndjson"
    unreadable.write_bytes(ndjson(game_lines(2, seed=54)))
    os.mkfifo(archive / "pipe.ndjson")
    (archive / "loop.ndjson").symlink_to(archive / "loop.ndjson")
    os.chmod(locked, 0)
    os.chmod(unreadable, 0)
    summary = tmp_path / "summary.json"
    try:
        done = score(archive, "--quiet", "--summary-json", summary, timeout=60)
    finally:
        os.chmod(locked, 0o755)
        os.chmod(unreadable, 0o644)
    _assert_clean(done)
    assert done.status == Exit.BAD_DATA, done.err
    assert sorted(set(_sources(done))) == [f"{archive}/a.ndjson:{n}" for n in (1, 2)]
    said = {
        f"{archive}/locked": "cannot read",
        f"{archive}/unreadable.ndjson": "cannot read",
        f"{archive}/pipe.ndjson": "not a regular file",
        f"{archive}/loop.ndjson": "link",
    }
    for path, why in said.items():
        line = next((line for line in done.err.splitlines() if path in line), "")
        assert why in line, (path, done.err)
    skipped = {s["path"]: s["reason"] for s in json.loads(summary.read_text())["skipped"]}
    assert sorted(skipped) == sorted(said)


def test_a_file_that_is_not_gzip_is_not_echoed(tmp_path: Path) -> None:
    fake = tmp_path / "fake.ndjson.gz"
    fake.write_bytes(SECRET * 10)
    real = tmp_path / "real.ndjson.gz"
    real.write_bytes(gzip.compress(ndjson(game_lines(2, seed=55, renuncio_rate=0.0))))
    done = score(fake, real, "--quiet")
    _assert_clean(done)
    assert SECRET[:2].decode() not in done.err.replace(str(tmp_path), ""), done.err
    assert done.status == Exit.BAD_DATA and f"{fake}: not gzip data" in done.err, done.err
    assert _sources(done) == [f"{real}:1", f"{real}:2"]


def test_the_library_says_what_a_folder_held_that_it_did_not_read(tmp_path: Path) -> None:
    archive, outside = _folder(tmp_path)
    os.mkfifo(archive / "pipe.ndjson")
    (archive / "b.ndjson").symlink_to(outside / "games.ndjson")
    lines = arbiter.score_file(archive)
    got = [next(lines)["source"], next(lines)["source"]]
    assert got == [f"{archive}/a.ndjson:1", f"{archive}/a.ndjson:2"]
    with pytest.raises(InputError) as raised:
        next(lines)
    assert "pipe.ndjson" in str(raised.value) and "b.ndjson" in str(raised.value)
