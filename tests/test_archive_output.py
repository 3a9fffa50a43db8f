"""The pieces of :mod:`arbiter.archive.output` and of the gzip output, in this process: a
manifest read back only for the run it describes, and a gzip file of members that can be cut
at any checkpoint and continued to the same bytes.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arbiter.archive import Format
from arbiter.archive.formats import GzipStream
from arbiter.archive.inputs import expand
from arbiter.archive.output import FileTarget, Ledger, ResumeError, resume
from tests.archive_support import game_lines, ndjson

OPTIONS = {"format": "ndjson", "lang": "en"}


def _ledger(tmp_path: Path, options: dict[str, str] = OPTIONS) -> Ledger:
    inputs = expand([str(tmp_path / "games.ndjson")]).inputs
    return Ledger.start(FileTarget(tmp_path / "out.ndjson"), Format.NDJSON, inputs, options)


def _three_inputs(tmp_path: Path, games: int, seed: int) -> list[Path]:
    """Three NDJSON files of ``games``, ``games + 1`` and ``games + 2`` games."""
    inputs = []
    for n in range(3):
        path = tmp_path / f"in{n}.ndjson"
        path.write_bytes(ndjson(game_lines(games + n, seed=seed + n)))
        inputs.append(path)
    return inputs


def test_a_manifest_is_read_back_only_for_the_run_it_describes(tmp_path: Path) -> None:
    games = tmp_path / "games.ndjson"
    games.write_bytes(ndjson(game_lines(3, seed=1)))
    assert resume(_ledger(tmp_path)) is None  # nothing to continue
    _ledger(tmp_path).save()
    assert resume(_ledger(tmp_path)) is not None
    with pytest.raises(ResumeError, match="the options are not those"):
        resume(_ledger(tmp_path, {**OPTIONS, "lang": "es"}))
    games.write_bytes(ndjson(game_lines(4, seed=1)))  # the input changed since
    with pytest.raises(ResumeError, match="the inputs are not those"):
        resume(_ledger(tmp_path))


@given(st.lists(st.binary(max_size=300), min_size=1, max_size=12), st.data())
def test_a_gzip_output_cut_at_a_checkpoint_continues_to_the_same_bytes(
    pieces: list[bytes], data: st.DataObject
) -> None:
    import io

    def written(chunks: list[bytes], raw: io.BytesIO) -> tuple[list[int], bytes]:
        stream = GzipStream(raw)
        ends = []
        for chunk in chunks:
            stream.write(chunk)
            stream.flush()  # a checkpoint: a member ends
            ends.append(stream.tell())
        return ends, raw.getvalue()  # before the stream, collected, closes the file

    ends, complete = written(pieces, io.BytesIO())
    assert gzip.decompress(complete) == b"".join(pieces)
    cut = data.draw(st.integers(0, len(pieces) - 1))
    again = io.BytesIO(complete[: ends[cut]])
    again.seek(0, io.SEEK_END)
    assert written(pieces[cut + 1 :], again)[1] == complete


def test_large_inputs_are_checksummed_beside_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An input from output._BESIDE_BYTES is checksummed on a thread while it is scored, not
    at its end: the manifest says the same SHA-256 of every input, and an input that cannot
    be read for it fails the run as it did."""
    import hashlib

    import orjson

    from arbiter.archive import output
    from arbiter.cli import main

    monkeypatch.setattr(output, "_BESIDE_BYTES", 1)  # every input here
    started: list[str] = []
    real = output._Checksum.__init__

    def spy(self: output._Checksum, path: str) -> None:
        started.append(path)
        real(self, path)

    monkeypatch.setattr(output._Checksum, "__init__", spy)
    inputs = _three_inputs(tmp_path, games=5, seed=60)
    out = tmp_path / "scores.ndjson"
    status = main(["score", *map(str, inputs), "--out", str(out), "--quiet", "--jobs", "1"])
    assert status in (0, 1)
    manifest = orjson.loads((tmp_path / "scores.ndjson.manifest.json").read_bytes())
    said = [entry["sha256"] for entry in manifest["inputs"]]
    assert said == [hashlib.sha256(path.read_bytes()).hexdigest() for path in inputs]
    assert started == [str(path) for path in inputs]


def test_a_checksum_beside_the_run_gives_its_error_to_the_run(tmp_path: Path) -> None:
    from arbiter.archive import output

    beside = output._Checksum(str(tmp_path / "gone.ndjson"))
    with pytest.raises(FileNotFoundError):
        beside.result()


@pytest.mark.parametrize("out", ["scores.ndjson", "scores.ndjson.gz", "parts/"])
def test_parts_are_checksummed_behind_the_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, out: str
) -> None:
    """The bytes of a large input in its part are hashed on a thread as the pieces are
    written, not read again at its end: the manifest says the SHA-256 of each input's byte
    range, several inputs in one file (gzip too) or one part each, in pieces of every size."""
    import hashlib

    import orjson

    from arbiter.archive import output, runner
    from arbiter.cli import main

    monkeypatch.setattr(output, "_BESIDE_BYTES", 1)  # every input here
    monkeypatch.setattr(runner.run_here, "__defaults__", (3000,))  # a few games a piece
    followed: list[Path] = []
    real = output._PartChecksum.__init__

    def spy(self: output._PartChecksum, path: Path, start: int) -> None:
        followed.append(path)
        real(self, path, start)

    monkeypatch.setattr(output._PartChecksum, "__init__", spy)
    inputs = _three_inputs(tmp_path, games=9, seed=70)
    target = tmp_path / out
    given = [*map(str, inputs), "--out", str(tmp_path) + "/" + out, "--quiet", "--jobs", "1"]
    status = main(["score", *given])
    assert status in (0, 1)
    manifest_path = (
        target / "_manifest.json" if out.endswith("/") else Path(f"{target}.manifest.json")
    )
    manifest = orjson.loads(manifest_path.read_bytes())
    assert len(followed) == 3
    for entry in manifest["inputs"]:
        part = (target / entry["part"] if out.endswith("/") else target).read_bytes()
        lines = part[entry["part_start"] : entry["part_start"] + entry["part_bytes"]]
        assert entry["part_sha256"] == hashlib.sha256(lines).hexdigest()


def test_a_part_checksum_gives_its_error_to_the_run(tmp_path: Path) -> None:
    from arbiter.archive import output

    part = tmp_path / "part.ndjson"
    part.write_bytes(b"0123456789")
    follower = output._PartChecksum(part, 2)
    follower.advance(6)
    with pytest.raises(OSError, match="shorter than its manifest"):
        follower.result(20)
    follower = output._PartChecksum(part, 2)
    follower.advance(8)
    assert follower.result(8) == output.checksum(part, 2, 6)
