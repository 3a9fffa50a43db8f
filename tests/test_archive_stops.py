"""Runs of ``arbiter score`` that stop before their end, as real processes: killed with SIGKILL
or stopped with SIGTERM while they write (each waited for on what a user sees: the lines its
partial manifest records, never a sleep), or writing to a disk that fills (RLIMIT_FSIZE), and
the runs that continue them with ``--resume``.

What must hold: nothing under the final name until the output is complete; what is left says
it is partial and ends with a whole line; no worker outlives its parent; the output of the run
before is untouched by a run that fails; a continued run writes the same bytes as a run that
never stopped, without scoring again what was done.
"""

from __future__ import annotations

import csv
import hashlib
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from arbiter.archive.formats import COLUMNS
from tests.archive_support import (
    alive,
    children,
    manifest_lines,
    one_deal_archive,
    run_cli,
    start_cli,
    wait_for,
)

# Processes that score tens of thousands of games: not in the quick loop.
pytestmark = pytest.mark.slow

GAMES = 30_000


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One input of many pieces (2 MB each)."""
    return one_deal_archive(tmp_path_factory.mktemp("stops") / "games.ndjson", GAMES)


@pytest.fixture(scope="module")
def clean(big: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """What a run that never stops writes, per format."""
    folder = tmp_path_factory.mktemp("clean")
    out = {}
    for name in NAMES:
        path = folder / name
        done = run_cli("score", big, "--format", _format(name), "--out", path, "--jobs", "1",
                       "--quiet")  # fmt: skip
        assert done.status == 1, done.err  # renuncios: findings
        out[name] = path.read_bytes()
    return out


#: The outputs a run may be killed writing: each format, and NDJSON compressed.
NAMES = ("scores.ndjson", "scores.csv", "scores.parquet", "scores.ndjson.gz")


def _format(name: str) -> str:
    return name.split(".")[1]


def _partial(path: Path) -> Path:
    return path.with_name(path.name + ".partial")


def _manifest(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = orjson.loads(path.read_bytes())
    return document


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _started(
    out: Path, *args: str | Path, folder: bool = False
) -> tuple[subprocess.Popen[bytes], list[int]]:
    """A run to ``out`` (a file, or a ``folder``) with two workers, once its manifest records
    lines: it and its children (the workers, the resource tracker)."""
    process = start_cli(*args, "--out", f"{out}/" if folder else out, "--jobs", "2", "--quiet")
    partial_manifest = out.with_name(out.name + ".partial.manifest.json")
    if folder:
        partial_manifest = out / ".partial" / "_manifest.json"
    wait_for(lambda: manifest_lines(partial_manifest) > 0, "a checkpoint")
    workers = wait_for(lambda: len(children(process.pid)) >= 2 and children(process.pid), "workers")
    return process, workers


def _all_end(pids: list[int]) -> None:
    wait_for(lambda: not any(alive(pid) for pid in pids), f"processes {pids} to end", 60)


@pytest.mark.parametrize("name", NAMES)
def test_a_run_killed_leaves_partial_files_no_worker_and_resumes_to_the_same_bytes(
    big: Path, clean: dict[str, bytes], tmp_path: Path, name: str
) -> None:
    fmt = _format(name)
    out, figures = tmp_path / name, tmp_path / "summary.json"
    figures.write_text("{}")  # a report of a run before: must not look like this one's
    process, workers = _started(out, "score", big, "--format", fmt, "--summary-json", figures)
    process.kill()
    process.wait()
    _all_end(workers)
    assert not out.exists() and _partial(out).exists()
    left = _manifest(out.with_name(out.name + ".partial.manifest.json"))
    assert left["finished"] is False and left["inputs"][0]["lines"] > 0
    assert not figures.exists()
    if fmt != "parquet":  # whole lines up to the checkpoint
        kept = _partial(out).read_bytes()[: left["inputs"][0]["part_bytes"]]
        assert clean[name].startswith(kept)

    done = run_cli("score", big, "--format", fmt, "--out", out, "--jobs", "2", "--resume",
                   "--quiet", "--summary-json", figures)  # fmt: skip
    assert done.status == 1, done.err
    assert out.read_bytes() == clean[name]
    assert not _partial(out).exists()
    report = orjson.loads(figures.read_bytes())
    assert report["finished"] is True and report["games"] == GAMES
    # the games of the run killed are not scored again (a Parquet file starts over)
    if fmt != "parquet":
        assert 0 < report["continued"] <= left["inputs"][0]["lines"]
    else:
        assert report["continued"] == 0
    manifest = _manifest(out.with_name(out.name + ".manifest.json"))
    assert manifest["finished"] is True
    assert manifest["output"]["sha256"] == _sha(clean[name])
    entry = manifest["inputs"][0]
    assert entry["sha256"] == _sha(big.read_bytes())
    assert (entry["lines"], entry["games"], entry["errors"]) == (GAMES, GAMES, 0)


def test_sigterm_stops_the_workers_says_so_and_resumes_a_folder(
    big: Path, clean: dict[str, bytes], tmp_path: Path
) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    data = big.read_bytes()
    (inputs / "a.ndjson").write_bytes(data)
    (inputs / "b.ndjson").write_bytes(data[: data.index(b"\n", len(data) // 7) + 1])
    out, figures = tmp_path / "parts", tmp_path / "summary.json"
    process, workers = _started(out, "score", inputs, "--summary-json", figures, folder=True)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 128 + signal.SIGTERM
    said = err.decode().splitlines()
    assert len(said) == 1 and said[0].startswith("arbiter: stopped by SIGTERM: "), said
    assert f"written to {out / '.partial'} with a manifest" in said[0]
    _all_end(workers)
    assert sorted(p.name for p in out.iterdir()) == [".partial"]  # nothing looks complete
    left = _manifest(out / ".partial" / "_manifest.json")
    assert (left["finished"], left["stopped"]) == (False, "SIGTERM")
    report = orjson.loads(figures.read_bytes())
    assert (report["finished"], report["stopped"]) == (False, "SIGTERM")
    part = (out / ".partial" / "a.scores.ndjson").read_bytes()
    assert part.endswith(b"\n") and clean["scores.ndjson"].startswith(b"".join(
        line.replace(str(inputs / "a.ndjson").encode(), str(big).encode()) + b"\n"
        for line in part.splitlines()
    ))  # fmt: skip
    assert part.count(b"\n") == left["inputs"][0]["games"]

    done = run_cli("score", inputs, "--out", out, "--jobs", "2", "--resume", "--quiet")
    assert done.status == 1, done.err
    again = tmp_path / "again"
    assert run_cli("score", inputs, "--out", f"{again}/", "--jobs", "1", "--quiet").status == 1
    for name in ("a.scores.ndjson", "b.scores.ndjson"):
        assert (out / name).read_bytes() == (again / name).read_bytes()
    manifest = _manifest(out / "_manifest.json")
    assert manifest["finished"] is True and not (out / ".partial").exists()
    for entry in manifest["inputs"]:
        assert entry["part_sha256"] == _sha((out / entry["part"]).read_bytes())


def test_a_run_that_fails_leaves_the_output_before_untouched(big: Path, tmp_path: Path) -> None:
    out = tmp_path / "scores.ndjson"
    assert run_cli("score", big, "--out", out, "--jobs", "1", "--quiet").status == 1
    before, manifest = out.read_bytes(), out.with_name("scores.ndjson.manifest.json")
    stamp = manifest.read_bytes()
    process, workers = _started(out, "score", big)
    process.send_signal(signal.SIGTERM)
    process.communicate(timeout=120)
    _all_end(workers)
    assert out.read_bytes() == before and manifest.read_bytes() == stamp
    assert _partial(out).exists()


def _limit_files(size: int) -> Any:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return limit


@pytest.mark.parametrize("fmt", ["ndjson", "csv"])
def test_a_full_disk_is_one_sentence_and_leaves_whole_lines_under_a_partial_name(
    big: Path, tmp_path: Path, fmt: str
) -> None:
    out = tmp_path / f"scores.{fmt}"
    limit = 3 * 1024 * 1024 + 777  # a file may not grow past this: as a disk that fills
    command = ["score", str(big), "--format", fmt, "--out", str(out), "--jobs", "1", "--quiet"]
    done = subprocess.run(
        [sys.executable, "-m", "arbiter.cli", *command],
        capture_output=True,
        preexec_fn=_limit_files(limit),
        timeout=180,
        check=False,
    )
    err = done.stderr.decode()
    assert done.returncode == 2
    assert err == f"arbiter: cannot write {out}: File too large\n"
    assert not out.exists()
    left = _partial(out).read_bytes()
    assert 0 < len(left) < limit and left.endswith(b"\n")  # cut back to the last whole piece
    if fmt == "csv":
        rows = list(csv.reader(left.decode().splitlines()))
        assert all(len(row) == len(COLUMNS) for row in rows)
    manifest = _manifest(out.with_name(out.name + ".partial.manifest.json"))
    assert manifest["finished"] is False and "File too large" in manifest["stopped"]


def test_sigint_stops_the_run_as_sigterm_does(big: Path, tmp_path: Path) -> None:
    out = tmp_path / "scores.csv"
    process, workers = _started(out, "score", big, "--format", "csv")
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 128 + signal.SIGINT
    said = err.decode().splitlines()
    assert len(said) == 1 and said[0].startswith("arbiter: stopped by SIGINT: "), said
    _all_end(workers)
    left = _manifest(out.with_name(out.name + ".partial.manifest.json"))
    assert (left["finished"], left["stopped"]) == (False, "SIGINT")
    rows = list(csv.reader(_partial(out).read_text().splitlines()))
    assert len(rows) > 1 and all(len(row) == len(COLUMNS) for row in rows)


def test_resume_keeps_the_parts_finished_after_checking_them(big: Path, tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    data = big.read_bytes()
    (inputs / "a.ndjson").write_bytes(data[: data.index(b"\n", 100_000) + 1])  # one piece
    (inputs / "b.ndjson").write_bytes(data)
    out = tmp_path / "parts"
    process = start_cli("score", inputs, "--out", f"{out}/", "--jobs", "1", "--quiet")
    manifest = out / ".partial" / "_manifest.json"

    def second_begun() -> bool:
        try:
            first, second = _manifest(manifest)["inputs"]
        except (OSError, ValueError):
            return False
        return bool(first["done"] and second["lines"] > 0)

    wait_for(second_begun, "the second input under way")
    process.kill()
    process.wait()
    kept = out / ".partial" / "a.scores.ndjson"
    first = _manifest(manifest)["inputs"][0]
    assert first["part_sha256"] == _sha(kept.read_bytes())

    tampered = kept.read_bytes()
    kept.write_bytes(tampered.replace(b'"status":"complete"', b'"status":"invalid"', 1))
    refused = run_cli("score", inputs, "--out", f"{out}/", "--resume", "--quiet")
    assert refused.status == 2
    assert refused.err == (f"arbiter: cannot resume: {kept} is not what its manifest says: "
                           "run again without --resume\n")  # fmt: skip
    kept.write_bytes(tampered)
    done = run_cli("score", inputs, "--out", f"{out}/", "--resume", "--quiet")
    assert done.status == 1, done.err
    again = tmp_path / "again"
    assert run_cli("score", inputs, "--out", f"{again}/", "--jobs", "1", "--quiet").status == 1
    for name in ("a.scores.ndjson", "b.scores.ndjson"):
        assert (out / name).read_bytes() == (again / name).read_bytes()
