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
    inputs = []
    for n in range(3):
        path = tmp_path / f"in{n}.ndjson"
        path.write_bytes(ndjson(game_lines(5 + n, seed=60 + n)))
        inputs.append(path)
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
