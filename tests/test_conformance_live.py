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


def test_the_live_service_passes_every_published_vector_and_plays_as_the_referee(
    tmp_path: Path,
) -> None:
    """Through the HTTP API, with questions of protocol 1 and 2 (the service reads the log: a
    verdict's outcome comes from a replay of the log with the move); and a few games of play."""
    total = json.loads((ROOT / "conformance" / "MANIFEST.json").read_text())["vectors"]
    report = tmp_path / "report.json"
    with gunicorn_support.serving("arbiter-conformance-") as server:
        url = f"http://{gunicorn_support.HOST}:{server.port}"
        for protocol in ("1", "2"):
            status = main(["conformance", "check", "--url", url, "--json", str(report),
                           "--plain", "--protocol", protocol])  # fmt: skip
            body = json.loads(report.read_text())
            assert status == 0, body["failures"][:3]
            assert (body["vectors"], body["pass"], body["fail"], body["unsupported"]) == (
                total, total, 0, 0
            )  # fmt: skip
        status = main(["conformance", "play", "--url", url, "--games", "5", "--json",
                       str(report), "--plain"])  # fmt: skip
        body = json.loads(report.read_text())
        assert status == 0 and body["findings"] == [] and body["positions"] > 100
