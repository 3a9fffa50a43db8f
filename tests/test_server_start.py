"""Starting the shipped server (deploy/gunicorn.conf.py): settings refused in one line, gunicorn's
lines in the service's log format, nothing shared with other servers, nothing left behind.

Each test runs a real gunicorn on loopback, with ``HOME`` and ``TMPDIR`` in the test's own
directory so that anything the server would create outside it (gunicorn's control socket, the
metrics directory) can be seen.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from devtools.gunicorn_support import CONFIG
from tests.gunicorn_support import HOST, environment, request, start, until_stopped

pytestmark = pytest.mark.slow


def _env(tmp_path: Path, **changes: str) -> dict[str, str]:
    env = environment(
        **{"HOME": str(tmp_path), "TMPDIR": str(tmp_path), "ARBITER_WORKERS": "1", **changes}
    )
    env.pop("XDG_RUNTIME_DIR", None)  # gunicorn would put its control socket there
    return env


def _gunicorn(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "gunicorn", "--config", str(CONFIG), *args, "arbiter.wsgi:app"]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize(
    ("variable", "value", "named"),
    [
        ("ARBITER_WORKERS", "0", "ARBITER_WORKERS must be 1 or more"),
        ("ARBITER_TIMEOUT", "soon", "ARBITER_TIMEOUT must be an integer, not 'soon'"),
        ("ARBITER_METRICS", "sometimes", "ARBITER_METRICS must be one of open, protected, off"),
        ("ARBITER_STATE_KEY", "short", "ARBITER_STATE_KEY must be at least 32 bytes long"),
    ],
)
def test_a_setting_the_service_cannot_run_with_stops_the_start_in_one_line(
    tmp_path: Path, variable: str, value: str, named: str
) -> None:
    done = _gunicorn(_env(tmp_path, **{variable: value}), "--check-config")
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arbiter: ") and named in lines[0], done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_a_busy_port_fails_the_start_and_leaves_no_metrics_directory(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind((HOST, 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = _env(tmp_path, ARBITER_BIND=f"{HOST}:{port}")
        done = _gunicorn(env)
    assert done.returncode != 0
    assert "in use" in done.stderr
    assert list(tmp_path.glob("arbiter-metrics-*")) == []


def test_gunicorn_lines_are_the_services_json_lines_and_no_control_socket(tmp_path: Path) -> None:
    log = tmp_path / "gunicorn.out"
    access = tmp_path / "access.log"
    env = _env(tmp_path, ARBITER_ACCESS_LOG=str(access))
    with until_stopped(start(log, env)) as server:
        assert request(server.port, "GET", "/healthz").status == 200
        (metrics_dir,) = tmp_path.glob("arbiter-metrics-*")  # made in TMPDIR once listening
    assert not metrics_dir.exists()  # removed at exit
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    loggers = {line["logger"] for line in lines}
    assert {"gunicorn.error", "arbiter.access"} <= loggers
    assert all({"time", "level", "logger", "message"} <= line.keys() for line in lines)
    entries = [json.loads(line) for line in access.read_text().splitlines()]
    assert entries and {e["logger"] for e in entries} == {"gunicorn.access"}
    assert all("GET /healthz" in e["message"] for e in entries)  # the probes and the request
    assert not (tmp_path / ".gunicorn").exists()  # no control socket of gunicorn's


def test_plain_text_lines_share_one_format(tmp_path: Path) -> None:
    log = tmp_path / "gunicorn.out"
    with until_stopped(start(log, _env(tmp_path, ARBITER_LOG_JSON="false"))) as server:
        assert request(server.port, "GET", "/healthz").status == 200
    lines = [line for line in log.read_text().splitlines() if line.strip()]
    assert any("gunicorn.error: Listening at" in line for line in lines)
    assert any("arbiter.access: GET /healthz 200" in line for line in lines)
    for line in lines:
        # 2026-12-01 19:52:58,076 [10809] [INFO] logger: message
        assert re.match(
            r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \[\d+\] \[[A-Z]+\] [\w.]+: ", line
        ), line
        assert not line.startswith("{")
