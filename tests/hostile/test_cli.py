"""Finding 4: the command never shows a traceback, and its exit status is the documented one.

Run as a user runs it (``python -m arbiter.cli``, a real process, real pipes): a JSON integer
past Python's 4,300-digit conversion limit in a log or in ``--move``, and NaN/Infinity, are bad
input (exit 2, a message naming the problem, as the API's 400); a reader that closes the pipe
early (``| head -5``) ends the output quietly with the verdict's status; Ctrl-C exits 130 with
one line.
"""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arbiter import cli
from arbiter.commands.console import ExitStatus
from arbiter.simulate import random_log

# Hostile clients against a live gunicorn (or the real command): the quick loop leaves them out.
pytestmark = pytest.mark.slow

TIMEOUT = 60
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RENUNCIO = EXAMPLES / "tute-4p-renuncio.json"  # exit 1: it holds a renuncio


def arbiter_cmd(
    *args: str | Path, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    argv = [sys.executable, "-m", "arbiter.cli", *(str(a) for a in args)]
    return subprocess.run(argv, input=stdin, capture_output=True, timeout=TIMEOUT, check=False)


def assert_bad_input(done: subprocess.CompletedProcess[bytes], *needles: str) -> None:
    err = done.stderr.decode()
    assert done.returncode == 2, (done.returncode, err[-2000:])
    assert "Traceback" not in err and err.startswith("arbiter: "), err[-2000:]
    assert done.stdout == b""
    for needle in needles:
        assert needle in err, err


def _log_text(tmp_path: Path, number: str) -> Path:
    log = random_log("tute-2p", random.Random(3))
    text = json.dumps(log).replace('"seat": 0', f'"seat": {number}', 1)
    path = tmp_path / "log.json"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("number", "said"),
    [("9" * 5000, "too large"), ("NaN", "NaN and Infinity"), ("-Infinity", "NaN and Infinity")],
    ids=["5000 nines", "NaN", "-Infinity"],
)
def test_replay_refuses_numbers_json_cannot_hold(tmp_path: Path, number: str, said: str) -> None:
    assert_bad_input(arbiter_cmd("replay", _log_text(tmp_path, number)), said)


def test_validate_refuses_a_huge_integer_in_the_move(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    log.write_text(json.dumps(random_log("tute-2p", random.Random(3), finish_last=False,
                                         stop_after=3)))  # fmt: skip
    move = '{"type": "play", "seat": ' + "9" * 5000 + ', "card": "1O"}'
    assert_bad_input(arbiter_cmd("validate", log, "--move", move), "--move", "too large")


def test_replay_from_stdin_refuses_nan(tmp_path: Path) -> None:
    text = _log_text(tmp_path, "NaN").read_bytes()
    assert_bad_input(arbiter_cmd("replay", "-", stdin=text), "standard input", "NaN")


def test_a_closed_pipe_ends_the_output_quietly() -> None:
    """The reader goes away before the first line: no traceback, and the verdict's status."""
    argv = [sys.executable, "-m", "arbiter.cli", "replay", str(RENUNCIO), "--json"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.close()  # as `head` does once it has its lines
    _, err = process.communicate(timeout=TIMEOUT)
    assert err == b"", err.decode()[-2000:]
    assert process.returncode == 1  # the log holds a renuncio


def test_replay_json_into_head(tmp_path: Path) -> None:
    """The issue's command line, the output four times a pipe's buffer."""
    log = random_log("tute-cabron", random.Random(5), deals=40, options={"loser_target": 100})
    path = tmp_path / "long.json"
    path.write_text(json.dumps(log), encoding="utf-8")  # 40 deals: 220 KB of --json output
    command = (
        f"{sys.executable} -m arbiter.cli replay {path} --json | head -5; "
        'echo "status=${PIPESTATUS[0]}" >&2'
    )
    done = subprocess.run(
        ["bash", "-c", command], capture_output=True, timeout=TIMEOUT, check=False
    )
    assert len(done.stdout.splitlines()) == 5
    err = done.stderr.decode()
    assert "Traceback" not in err and "Error" not in err, err[-2000:]
    assert err.strip().splitlines()[-1] in ("status=0", "status=1")


def test_ctrl_c_exits_130_without_a_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Interrupted(io.BytesIO):
        def read(self, size: int | None = -1) -> Any:
            raise KeyboardInterrupt

    stdin = io.TextIOWrapper(Interrupted())
    monkeypatch.setattr(sys, "stdin", stdin)
    try:
        code = cli.main(["replay", "-"])
    except KeyboardInterrupt:  # would stop pytest itself
        pytest.fail("KeyboardInterrupt escaped the command (a traceback for the user)")
    out, err = capsys.readouterr()
    assert code == ExitStatus.INTERRUPTED == 130
    assert out == "" and err == "arbiter: interrupted\n"
