"""The app for the JS tests (tests/js/*.test.js), without a server: requests come in as JSON
lines on standard input and their answers go out as JSON lines on standard output, each through
Flask's test client of ``create_app`` with the default settings — the answers the pages get.

A request: ``{"method", "path", "headers", "body"}`` (the body as text); its answer:
``{"status", "headers", "body"}``. The process ends at the end of its input. Its logs (warnings
and worse) go to standard error, which stays the tests' own.
"""

from __future__ import annotations

import json
import sys

from arbiter.api import create_app
from arbiter.settings import Settings


def main() -> None:
    answers = sys.stdout
    sys.stdout = sys.stderr  # the answers' stream carries answers only
    client = create_app(Settings(log_level="WARNING")).test_client()
    for line in sys.stdin:
        request = json.loads(line)
        response = client.open(
            request["path"],
            method=request["method"],
            headers=request.get("headers") or {},
            data=request.get("body"),
        )
        answer = {
            "status": response.status_code,
            "headers": dict(response.headers),
            "body": response.get_data(as_text=True),
        }
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
