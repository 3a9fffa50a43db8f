"""The HTTP adapter: Flask app factory, routes, schemas, problem+json errors."""

from arbiter.api.app import create_app

__all__ = ["create_app"]
