"""``arbiter serve``: run the API under gunicorn with the shipped configuration."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import NoReturn

#: deploy/gunicorn.conf.py of a source checkout (the package is installed editable there).
CONFIG = Path(__file__).resolve().parent.parent / "deploy" / "gunicorn.conf.py"


def gunicorn_argv(host: str, port: int, workers: int | None) -> list[str]:
    argv = [sys.executable, "-m", "gunicorn", "--bind", f"{host}:{port}"]
    if CONFIG.is_file():
        argv += ["--config", str(CONFIG)]
    if workers is not None:
        argv += ["--workers", str(workers)]
    return [*argv, "arbiter.wsgi:app"]


def serve(host: str, port: int, workers: int | None) -> NoReturn:
    """Replace this process with gunicorn (signals then reach gunicorn's arbiter directly)."""
    argv = gunicorn_argv(host, port, workers)
    os.execv(argv[0], argv)
