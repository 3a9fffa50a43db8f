"""Swagger UI at ``/docs/``: the contract, browsable, from files of this server only.

flask-swagger-ui ships the Swagger UI files (its ``dist`` folder); the page and the script that
starts Swagger UI are this module's, and nothing in them comes from the request. (The package's
own page wrote ``request.base_url`` into an inline script: a ``SCRIPT_NAME`` sent by a trusted
proxy then ran as script.) The page is the same bytes for every request, its script a file,
its URLs relative — to the page, wherever a proxy mounts the service — so that its policy
(:data:`arbiter.api.security.DOCS_CSP`) allows no inline script at all.
"""

from __future__ import annotations

from functools import lru_cache
from html import escape
from importlib.resources import files
from pathlib import Path

import orjson
from flask import Blueprint, Response

from arbiter.web.assets import Assets

#: Swagger UI's own files, from the flask-swagger-ui package.
DIST = Path(str(files("flask_swagger_ui") / "dist"))
#: How long a browser may keep Swagger UI's files (they change with the package only).
ASSET_SECONDS = 3600
INITIALIZER = "swagger-initializer.js"

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <title>{title}</title>
  <link rel="stylesheet" type="text/css" href="index.css">
  <link rel="stylesheet" type="text/css" href="swagger-ui.css">
  <link rel="icon" type="image/png" href="favicon-32x32.png" sizes="32x32">
  <link rel="icon" type="image/png" href="favicon-16x16.png" sizes="16x16">
</head>
<body>
  <div id="swagger-ui" data-contract="{contract}"></div>
  <script src="swagger-ui-bundle.js"></script>
  <script src="swagger-ui-standalone-preset.js"></script>
  <script src="{initializer}"></script>
</body>
</html>
"""

# Relative addresses resolved against the page's own: the contract (data-contract) and the
# OAuth redirect. validatorUrl null: Swagger UI would otherwise send the contract's address to
# an online validator whenever it is served from a host other than localhost.
_SCRIPT = """"use strict";
window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  var page = document.baseURI;
  window.ui = SwaggerUIBundle(Object.assign(%s, {
    url: new URL(root.dataset.contract, page).href,
    oauth2RedirectUrl: new URL("oauth2-redirect.html", page).href,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl]
  }));
});
"""
_CONFIG = {
    "dom_id": "#swagger-ui",
    "layout": "StandaloneLayout",
    "deepLinking": True,
    "validatorUrl": None,
}


@lru_cache(maxsize=8)
def page(title: str, contract: str) -> bytes:
    """The page, for a contract at ``contract`` (relative to ``/docs/``)."""
    text = _PAGE.format(title=escape(title), contract=escape(contract), initializer=INITIALIZER)
    return text.encode("utf-8")


def initializer() -> bytes:
    return (_SCRIPT % orjson.dumps(_CONFIG).decode()).encode("utf-8")


def swagger_ui(title: str, contract_path: str) -> Blueprint:
    """The blueprint of ``/docs/`` (registered at ``url_prefix="/docs"``) for the contract
    served at ``contract_path`` (absolute, e.g. ``/v1/openapi.yaml``)."""
    blueprint = Blueprint("swagger_ui", __name__)
    html = page(title, ".." + contract_path)
    script = initializer()
    files = Assets(DIST, f"public, max-age={ASSET_SECONDS}")

    @blueprint.get("/")
    @blueprint.get("/index.html")
    def show() -> Response:
        return _answer(html, "text/html; charset=utf-8")

    @blueprint.get(f"/{INITIALIZER}")
    def start() -> Response:
        return _answer(script, "text/javascript; charset=utf-8")

    @blueprint.get("/<path:path>")
    def asset(path: str) -> Response:
        return files.answer(path)  # gzip-coded where accepted: the bundle is 1.68 MB

    return blueprint


def _answer(data: bytes, content_type: str) -> Response:
    return Response(data, content_type=content_type)  # Cache-Control: the API's no-store
