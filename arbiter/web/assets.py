"""Static files (the page's scripts and stylesheet, Swagger UI's files) as a browser wants
them: gzip-coded when the request accepts gzip, with an ETag and ``Cache-Control``, and a 304
to a request whose ``If-None-Match`` names the file as it is.

A file is read and compressed once per worker, the first time it is asked for, and kept (the
folders are the package's: a few megabytes in all, compressed to a quarter); it is read again
when its size or modification time changes. No request costs compression: an answer nobody
reads then holds the 430 KB of the gzip-coded Swagger bundle, not its 1.68 MB.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from flask import Blueprint, Response, abort, request
from werkzeug.security import safe_join

#: Media types worth compressing (images are compressed already).
_TEXT = ("text/", "application/javascript", "application/json", "image/svg+xml")
#: Smaller files go as they are: their gzip coding would save less than a packet.
_SMALLEST = 1024


@dataclass(frozen=True, slots=True)
class _File:
    stamp: tuple[int, int]  # size and modification time: read again when they change
    plain: bytes
    gzipped: bytes | None  # None: not worth it
    etag: str  # of the plain bytes; the gzip coding's is this plus "-gzip"
    mimetype: str


class Assets:
    """The files of ``folder``, answered with ``cache_control``."""

    def __init__(self, folder: Path | str, cache_control: str) -> None:
        self.folder = str(folder)
        self.cache_control = cache_control
        self._files: dict[str, _File] = {}
        self._lock = threading.Lock()

    def answer(self, name: str) -> Response:
        """The answer to a GET of ``name`` (a path under the folder; 404 when it is none)."""
        found = self._file(name)
        coded = found.gzipped is not None and request.accept_encodings.quality("gzip") > 0
        response = Response(found.gzipped if coded else found.plain, mimetype=found.mimetype)
        if coded:
            response.headers["Content-Encoding"] = "gzip"
        if found.gzipped is not None:
            response.vary.add("Accept-Encoding")
        response.set_etag(found.etag + ("-gzip" if coded else ""))
        response.headers["Cache-Control"] = self.cache_control
        response.make_conditional(request)  # a 304 when If-None-Match names this ETag
        return response

    def _file(self, name: str) -> _File:
        path = safe_join(self.folder, name)
        try:
            if path is None:
                raise FileNotFoundError(name)
            stat = os.stat(path)
            if not os.path.isfile(path):
                raise FileNotFoundError(name)
        except OSError:
            abort(404)
        stamp = (stat.st_size, stat.st_mtime_ns)
        kept = self._files.get(path)
        if kept is not None and kept.stamp == stamp:
            return kept
        with self._lock:  # one compression per file, however many ask at once
            kept = self._files.get(path)
            if kept is None or kept.stamp != stamp:
                kept = self._files[path] = _read(path, stamp)
        return kept


def _read(path: str, stamp: tuple[int, int]) -> _File:
    plain = Path(path).read_bytes()
    mimetype = mimetypes.guess_type(path)[0] or "application/octet-stream"
    if mimetype == "application/javascript":  # RFC 9239's name for it, as browsers expect
        mimetype = "text/javascript"
    gzipped: bytes | None = None
    if len(plain) >= _SMALLEST and mimetype.startswith(_TEXT):
        gzipped = gzip.compress(plain, compresslevel=9, mtime=0)
        if len(gzipped) >= len(plain):
            gzipped = None
    return _File(stamp, plain, gzipped, hashlib.sha256(plain).hexdigest()[:32], mimetype)


class AssetBlueprint(Blueprint):
    """A blueprint whose ``static_folder`` is answered by :class:`Assets` (``no-cache``: the
    page's modules import each other by unversioned names, so a browser asks again each time,
    and an unchanged file is a 304)."""

    _assets: Assets | None = None

    def send_static_file(self, filename: str) -> Response:
        if self._assets is None:
            if self.static_folder is None:
                abort(404)
            self._assets = Assets(self.static_folder, "no-cache")
        return self._assets.answer(filename)
