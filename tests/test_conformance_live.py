"""``arbiter conformance check --url``: this project's service, live under gunicorn on a free
loopback port, passes every published vector through the HTTP API."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arbiter.cli import main
from tests import gunicorn_support
from tests.api_support import ROOT

# Every published vector against a live gunicorn: not in the quick loop.
pytestmark = pytest.mark.slow


def test_the_live_service_passes_every_published_vector(tmp_path: Path) -> None:
    total = json.loads((ROOT / "conformance" / "MANIFEST.json").read_text())["vectors"]
    report = tmp_path / "report.json"
    with gunicorn_support.serving("arbiter-conformance-") as server:
        url = f"http://{gunicorn_support.HOST}:{server.port}"
        status = main(["conformance", "check", "--url", url, "--json", str(report), "--plain"])
    body = json.loads(report.read_text())
    assert status == 0, body["failures"][:3]
    assert (body["vectors"], body["pass"], body["fail"], body["unsupported"]) == (
        total,
        total,
        0,
        0,
    )
