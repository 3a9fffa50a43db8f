"""Inputs and outputs on object stores and other file systems, through fsspec: ``s3://``,
``gs://``, ``az://``, ``https://``... (the optional extra ``remote``, with the package of each
protocol: ``s3fs``, ``gcsfs``...; credentials and endpoints as those packages read them, for
instance ``AWS_ENDPOINT_URL`` or ``FSSPEC_S3_ENDPOINT_URL``).

An input URL is a file or a prefix that stands for the archive files under it, as a folder
does; it is read in the same pieces as a local file (byte ranges of a plain NDJSON object),
by whichever process scores them. An output URL is a file: the run writes it here, under a
partial name in a temporary folder, and uploads it once complete (an object store shows a new
object only when its upload ends), then its manifest beside it.
"""

from __future__ import annotations

import errno
import re
from typing import IO, Any, Final

#: A URL of a file system other than this machine's (``file://`` is this machine's).
_REMOTE: Final = re.compile(r"^(?!file://)[a-zA-Z][a-zA-Z0-9+.-]*://")


class RemoteError(Exception):
    """A remote path that cannot be used: fsspec or its protocol missing, or the store's
    answer; the message says which."""


def is_remote(path: str) -> bool:
    return bool(_REMOTE.match(path))


def file_system(url: str) -> tuple[Any, str]:
    """The fsspec file system of ``url`` and the path in it."""
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise RemoteError(
            f"{url}: remote paths need fsspec: pip install 'tute-arbiter[remote]'"
        ) from None
    try:
        fs, path = url_to_fs(url)
    except (ImportError, ValueError) as err:
        raise RemoteError(f"{url}: {err}") from None
    return fs, str(path)


def open_remote(url: str) -> IO[bytes]:
    """The object at ``url``, opened to read (seekable)."""
    fs, path = file_system(url)
    try:
        opened: IO[bytes] = fs.open(path, "rb")
    except (OSError, ValueError) as err:
        raise RemoteError(f"cannot read {url}: {_reason(err)}") from None
    return opened


def listing(url: str) -> list[tuple[str, int, str]]:
    """The files ``url`` stands for: itself, or those under it as a prefix; each as its URL,
    its size and its path under ``url``, in the order of their paths."""
    fs, path = file_system(url)
    try:
        if fs.isdir(path):
            found = fs.find(path, detail=True)
            root = path.rstrip("/") + "/"
            items = sorted(found.items())
            return [(_url(fs, p), int(i["size"]), p[len(root) :]) for p, i in items]
        info = fs.info(path)
    except FileNotFoundError:
        raise RemoteError(f"cannot read {url}: no such file or folder") from None
    except (OSError, ValueError) as err:
        raise RemoteError(f"cannot read {url}: {_reason(err)}") from None
    return [(url, int(info["size"]), path.rsplit("/", 1)[-1])]


def upload(local: str, url: str) -> None:
    """The local file ``local`` uploaded to ``url``: whole, or not at all."""
    fs, path = file_system(url)
    try:
        fs.put_file(local, path)
    except (OSError, ValueError) as err:
        raise OSError(errno.EIO, _reason(err), url) from None


def _url(fs: Any, path: str) -> str:
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    return f"{protocol}://{path}"


def _reason(err: Exception) -> str:
    return getattr(err, "strerror", None) or str(err) or type(err).__name__
