"""The OpenAPI document generated from the app (``make spec`` writes api_spec/openapi.yaml)."""

from __future__ import annotations

import sys

from flask import Flask


def spec_yaml(app: Flask) -> str:
    """The app's OpenAPI 3.1 document as YAML (computed once per app)."""
    cached: str | None = app.extensions.get("arbiter.spec_yaml")
    if cached is None:
        cached = str(app.extensions["arbiter.spec"].to_yaml())
        app.extensions["arbiter.spec_yaml"] = cached
    return cached


def main() -> int:
    from arbiter.api import create_app

    sys.stdout.write(spec_yaml(create_app()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
