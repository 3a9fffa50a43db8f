"""``arbiter score`` imports what scoring needs and nothing of the server: the cache's Redis
client (redis-py, which pulls asyncio and ssl) and the tokens' cryptography cost a process of
the command some 14 MB and are never used by it. Checked on the real command, its workers
included (``-X importtime`` is passed on to the processes of ``--jobs``, and lists every module
each of them imported)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.archive_support import game_lines, ndjson

#: Top-level packages a process of ``arbiter score`` must not import.
UNUSED = ("redis", "asyncio", "ssl", "cryptography")

_IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|(\s+)(\S+)$", re.MULTILINE)


def imported(stderr: str) -> list[str]:
    """The modules ``-X importtime`` listed, once per process that imported them."""
    return [match.group(2) for match in _IMPORTED.finditer(stderr)]


@pytest.mark.parametrize("fmt", ["ndjson", "csv"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_score_imports_no_redis_asyncio_nor_cryptography(
    tmp_path: Path, jobs: str, fmt: str
) -> None:
    path = tmp_path / "games.ndjson"
    path.write_bytes(ndjson(game_lines(40, seed=3)))
    out = tmp_path / f"scores.{fmt}"
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "arbiter.cli", "score", str(path),
         "--jobs", jobs, "--format", fmt, "--out", str(out), "--quiet"],
        capture_output=True, check=False, timeout=180, cwd=tmp_path,
    )  # fmt: skip
    err = done.stderr.decode(errors="replace")
    assert done.returncode in (0, 1), err[-2000:]
    assert out.stat().st_size > 0
    modules = imported(err)
    # the listing is read right, and covers the workers: each process that scored imported
    # the scorer (--jobs 2 starts a worker per task in flight, here one)
    scorers = modules.count("arbiter.archive.records")
    assert scorers == 1 if jobs == "1" else scorers >= 2, err[-2000:]
    assert "orjson" in modules
    found = sorted({name for name in modules if name.split(".")[0] in UNUSED})
    assert found == [], found


def test_a_cache_still_catches_what_redis_raises() -> None:
    """The exceptions the cache treats as a backend's failure come from redis-py, imported
    when a cache is made (not with the module)."""
    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import RedisClusterException

    from arbiter.cache import stores

    assert issubclass(RedisConnectionError, stores.store_errors())
    assert RedisClusterException in stores.store_errors()
    assert OSError in stores.store_errors()
    assert stores.store_errors() == stores.STORE_ERRORS
