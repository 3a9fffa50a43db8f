"""``arbiter score`` on an object store, through fsspec: a real S3-compatible server (moto's,
started for the module on loopback), inputs read from ``s3://`` (a file, a prefix, a ``.gz``),
an output written to ``s3://`` with its manifest, and a missing object said in one sentence.

The endpoint and credentials reach every process (the command and its workers) through the
environment, as they would in a pod: ``FSSPEC_S3_ENDPOINT_URL`` and the AWS variables.
"""

from __future__ import annotations

import gzip
import os
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.archive_support import game_lines, mixed_lines, ndjson, wait_for

# A server process and runs of the command: not in the quick loop.
pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except OSError:
        return False


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A moto S3 server, and the environment that points fsspec at it."""
    port = _free_port()
    endpoint = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [Path(sys.executable).with_name("moto_server"), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: _answers(endpoint), "the S3 server", 60)
        env = {
            **os.environ,
            "FSSPEC_S3_ENDPOINT_URL": endpoint,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
        yield env
    finally:
        server.terminate()
        server.wait(timeout=30)


def _fs(env: dict[str, str]) -> Any:
    import s3fs  # the test extras

    return s3fs.S3FileSystem(
        endpoint_url=env["FSSPEC_S3_ENDPOINT_URL"], key="testing", secret="testing"
    )


def _cli(env: dict[str, str], *args: str | Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "arbiter.cli", *map(str, args)],
        env=env,
        capture_output=True,
        timeout=300,
        check=False,
    )


def test_an_archive_on_s3_is_scored_to_s3_as_it_is_here(
    store: dict[str, str], tmp_path: Path
) -> None:
    fs = _fs(store)
    fs.mkdir("games")
    plain = ndjson(mixed_lines(900, seed=31))  # more than one piece of 2 MiB
    packed = gzip.compress(ndjson(game_lines(200, seed=32)))
    fs.pipe({"games/2024/a.ndjson": plain, "games/2024/b.ndjson.gz": packed})
    here = tmp_path / "2024"
    here.mkdir()
    (here / "a.ndjson").write_bytes(plain)
    (here / "b.ndjson.gz").write_bytes(packed)

    done = _cli(store, "score", "s3://games/2024", "--out", "s3://games/out/scores.ndjson",
                "--jobs", "2", "--quiet")  # fmt: skip
    assert done.returncode == 3, done.stderr  # the archive holds bad lines
    assert done.stderr == b""
    local = _cli(store, "score", here / "a.ndjson", here / "b.ndjson.gz", "--jobs", "1")
    expected = local.stdout.replace(str(here).encode(), b"s3://games/2024")
    assert fs.cat("games/out/scores.ndjson") == expected
    manifest = orjson.loads(fs.cat("games/out/scores.ndjson.manifest.json"))
    assert manifest["finished"] is True
    assert manifest["output"]["path"] == "s3://games/out/scores.ndjson"
    assert [entry["path"] for entry in manifest["inputs"]] == [
        "s3://games/2024/a.ndjson",
        "s3://games/2024/b.ndjson.gz",
    ]
    assert not fs.exists("games/out/scores.ndjson.partial")


def test_a_missing_object_is_one_sentence(store: dict[str, str]) -> None:
    _fs(store).mkdir("empty")
    done = _cli(store, "score", "s3://empty/none.ndjson", "--quiet")
    assert done.returncode == 2
    said = done.stderr.decode()
    assert said == "arbiter: cannot read s3://empty/none.ndjson: no such file or folder\n"
    done = _cli(store, "score", "s3://empty/none.ndjson", "--out", "s3://empty/x/", "--quiet")
    assert done.returncode == 2 and "Traceback" not in done.stderr.decode()
