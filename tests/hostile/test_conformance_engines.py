"""Finding 8 of issue 22: engines that attack the checker (``arbiter conformance check --cmd``).

Each hostile engine is a few lines run by the real command in a process of its own; the checker
must stay small (its peak RSS, read by the checker itself at its exit, is held far below what
the attacks took: 6 GB, 198 MB, 1.7 GB) and leave nothing running behind it: 8 MiB lines in a
loop; ``yes '{}'`` (answers without the question's id, as fast as a pipe goes); a stderr line of
hundreds of megabytes without a newline (the finding's 1.5 GB, scaled down, still far over the
4 KiB tail kept); and background children (``sleep 600 &``, ``setsid sleep 600 &``), left by an
engine that ends, by one the checker kills for hanging, and when the checker itself is stopped
with SIGTERM — and by an engine of ``conformance play``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.api_support import ROOT

pytestmark = pytest.mark.slow

TIMEOUT = 120
#: The checker's peak RSS must stay under this (an idle checker with the kit loaded: ~60 MB).
MOST_RSS_KB = 200 * 1024
#: Runs the command and reports the checker's own peak RSS (kilobytes) on stderr's last line:
#: VmHWM, the peak of this process's memory since its exec (getrusage's ru_maxrss would carry
#: over the peak of the process that forked it).
RUNNER = textwrap.dedent(
    """
    import sys
    from arbiter.cli import main
    status = main(sys.argv[1:])
    with open("/proc/self/status") as status_file:
        peak = next(line.split()[1] for line in status_file if line.startswith("VmHWM:"))
    print("maxrss", peak, file=sys.stderr)
    sys.exit(status)
    """
)


def engine(tmp_path: Path, body: str, name: str = "engine.py") -> str:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return f"{sys.executable} {path}"


def run_checker(
    tmp_path: Path, *args: str, verb: str = "check"
) -> tuple[int, dict[str, Any], int, str]:
    """The checker as a command: its exit status, JSON report, peak RSS (kB), stderr."""
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, "conformance", verb, *args, "--json", str(report),
         "--plain"],
        cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    rss = int(done.stderr.strip().splitlines()[-1].split()[1])
    return done.returncode, json.loads(report.read_text()), rss, done.stderr


def alive(marker: str) -> list[int]:
    """Processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline and b"pytest" not in cmdline:
                state = (entry / "stat").read_text().split(") ", 1)[-1][:1]
                if state != "Z":
                    found.append(int(entry.name))
    return found


def none_left(marker: str, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while alive(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not alive(marker)


@pytest.fixture
def sleeper() -> Any:
    """A unique ``sleep`` duration to recognise the engine's children by; whatever is left
    running at the end is killed (and fails the test)."""
    marker = f"600.{uuid.uuid4().int % 10**9}"
    yield marker
    for pid in alive(marker):
        os.kill(pid, signal.SIGKILL)


def test_an_engine_writing_8_mib_lines_in_a_loop(tmp_path: Path) -> None:
    command = engine(
        tmp_path,
        """
        import sys
        line = b"x" * (8 * 1024 * 1024) + b"\\n"
        while True:
            sys.stdout.buffer.write(line)
        """,
    )
    status, report, rss, _ = run_checker(tmp_path, "--cmd", command, "--rules", "draws")
    assert status == 1
    assert report["troubles"] == {"garbage": 3, "gave_up": report["vectors"] - 3}
    assert "longer than" in report["failures"][0]["detail"]
    assert rss < MOST_RSS_KB, rss


def test_yes_answering_empty_objects_without_ids(tmp_path: Path) -> None:
    status, report, rss, _ = run_checker(tmp_path, "--cmd", "yes {}", "--rules", "draws")
    assert status == 1
    troubles = dict(report["troubles"])
    assert troubles.pop("gave_up") == report["vectors"] - 3
    # lines before any question (garbage), or an answer without the question's id (desync)
    assert set(troubles) <= {"garbage", "desync"} and sum(troubles.values()) == 3
    details = {f["detail"] for f in report["failures"][:3]}
    assert details <= {"no id", "more than one line per question"}
    assert rss < MOST_RSS_KB, rss


def test_a_huge_stderr_line_without_a_newline_is_kept_as_a_short_tail(tmp_path: Path) -> None:
    megabytes = 256
    command = engine(
        tmp_path,
        f"""
        import json, sys
        chunk = b"e" * (1024 * 1024)
        for _ in range({megabytes}):
            sys.stderr.buffer.write(chunk)
        sys.stderr.buffer.write(b"THE END OF IT")
        sys.stderr.flush()
        for n, line in enumerate(sys.stdin):
            if n == 2:
                sys.exit(5)
            question = json.loads(line)
            print(json.dumps({{"id": question["id"], "unsupported": True}}), flush=True)
        """,
    )
    status, report, rss, _ = run_checker(tmp_path, "--cmd", command, "--rules", "draws",
                                         "--timeout", "60")  # fmt: skip
    assert status == 1 and report["troubles"]["exited"] >= 1
    detail = next(f["detail"] for f in report["failures"] if f["trouble"] == "exited")
    assert "status 5" in detail and "THE END OF IT" in detail and len(detail) < 1000
    assert rss < MOST_RSS_KB, rss


BACKGROUND = """
    import json, subprocess, sys
    subprocess.Popen("sleep {marker} &", shell=True)
    subprocess.Popen("setsid sleep {marker} &", shell=True)
    for line in sys.stdin:
        question = json.loads(line)
        {then}
        print(json.dumps({{"id": question["id"], "unsupported": True}}), flush=True)
"""


def test_background_children_die_with_an_engine_that_ends(tmp_path: Path, sleeper: str) -> None:
    command = engine(tmp_path, BACKGROUND.format(marker=sleeper, then="pass"))
    status, report, _, _ = run_checker(tmp_path, "--cmd", command, "--rules", "draws")
    assert status == 0 and report["unsupported"] == report["vectors"]
    assert none_left(sleeper), alive(sleeper)


def test_background_children_die_with_an_engine_killed_for_hanging(
    tmp_path: Path, sleeper: str
) -> None:
    hang = "import time; time.sleep(600)"
    command = engine(tmp_path, BACKGROUND.format(marker=sleeper, then=hang))
    status, report, _, _ = run_checker(tmp_path, "--cmd", command, "--rules", "draws",
                                       "--timeout", "0.5")  # fmt: skip
    assert status == 1 and report["troubles"]["timeout"] == 3
    assert none_left(sleeper), alive(sleeper)


def test_background_children_die_when_the_checker_is_stopped(
    tmp_path: Path, sleeper: str
) -> None:
    started = tmp_path / "started"
    command = engine(
        tmp_path,
        BACKGROUND.format(
            marker=sleeper, then=f"open({str(started)!r}, 'w').close(); import time; time.sleep(99)"
        ),
    )
    checker = subprocess.Popen(
        [sys.executable, "-m", "arbiter.cli", "conformance", "check", "--cmd", command, "--rules",
         "draws", "--plain", "--timeout", "300"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists() and len(alive(sleeper)) == 2
        checker.send_signal(signal.SIGTERM)
        assert checker.wait(timeout=30) == 130
    finally:
        checker.kill()
        checker.wait()
    assert checker.stderr is not None and b"Traceback" not in checker.stderr.read()
    assert none_left(sleeper), alive(sleeper)


def test_background_children_die_with_a_play_tested_engine(tmp_path: Path, sleeper: str) -> None:
    command = engine(tmp_path, BACKGROUND.format(marker=sleeper, then="pass"))
    status, report, rss, _ = run_checker(tmp_path, "--cmd", command, "--games", "3", verb="play")
    assert status == 0 and report["unsupported"] == report["questions"] > 0
    assert none_left(sleeper), alive(sleeper)
    assert rss < MOST_RSS_KB, rss
