"""Issue 22, finding 10: ``arbiter score --jobs N`` is held to the CPUs the command may use.

``--jobs 2147483647`` printed an OverflowError traceback (exit 1); ``--jobs 1000`` on an 80 MB
file started 45 worker processes (~2 GB). Now N is clamped to the CPUs this process may use,
with a note on standard error, and the run is the run of that many jobs: its output is that of
``--jobs 1``, and no more worker processes than CPUs are ever alive (sampled from /proc while
the command runs).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.archive_support import game_lines, ndjson, run_cli

# The real command, in processes of its own: the quick loop leaves them out.
pytestmark = pytest.mark.slow

CPUS = len(os.sched_getaffinity(0))


def _archive(tmp_path: Path, copies: int) -> Path:
    path = tmp_path / "games.ndjson"
    path.write_bytes(ndjson(game_lines(100, seed=41) * copies))
    return path


@pytest.mark.parametrize("jobs", ["2147483647", "1000", str(CPUS + 1)])
def test_jobs_past_the_cpus_are_clamped_with_a_note(tmp_path: Path, jobs: str) -> None:
    path = _archive(tmp_path, 2)
    done = run_cli("score", path, "--jobs", jobs, "--quiet")
    alone = run_cli("score", path, "--jobs", "1", "--quiet")
    assert "Traceback" not in done.err, done.err[-2000:]
    assert done.status == alone.status and done.status in (0, 1), done.err[-2000:]
    assert done.out == alone.out
    assert f"--jobs {jobs}" in done.err and f"{CPUS}" in done.err, done.err


def _workers_of(pid: int) -> int:
    """The worker processes (multiprocessing's spawned children) of the command ``pid``."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rpartition(")")[2].split()[1])
        if parent == pid and b"spawn_main" in cmdline:
            count += 1
    return count


def test_no_more_workers_than_cpus_are_started(tmp_path: Path) -> None:
    path = _archive(tmp_path, 60)  # about 12 MB: six tasks of 2 MB
    argv = [sys.executable, "-m", "arbiter.cli", "score", str(path), "--jobs", "1000",
            "--quiet", "--out", str(tmp_path / "out.ndjson")]  # fmt: skip
    most = 0
    with subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as proc:
        while proc.poll() is None:
            most = max(most, _workers_of(proc.pid))
            time.sleep(0.02)
        err = proc.stderr.read().decode() if proc.stderr else ""
    assert proc.returncode in (0, 1), err[-2000:]
    assert most <= CPUS, (most, CPUS)
    assert most >= 1 or CPUS == 1  # the run did use workers (one CPU: it runs in-process)
