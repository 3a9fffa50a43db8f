"""The WSGI entry point: ``gunicorn arbiter.wsgi:app``."""

from arbiter.api import create_app

app = create_app()
