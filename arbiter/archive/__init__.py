"""Archives: recorded games scored by the million, one line out per game in, in input order.

One line format for the command (``arbiter score``), the library (:func:`score_lines`,
:func:`score_file`, also as ``arbiter.score_lines`` and ``arbiter.score_file``), HTTP
(``POST /v1/scores/batch``) and Dask (:mod:`arbiter.archive.records`). The pieces:

- :mod:`~arbiter.archive.records`: one line scored (its id, its errors) and written;
- :mod:`~arbiter.archive.lines`: bytes into lines, with a bound on each;
- :mod:`~arbiter.archive.inputs`: files, folders and standard input, and the pieces they are
  read in (byte ranges of large NDJSON files, whole files, lines);
- :mod:`~arbiter.archive.runner`: pieces scored here, in processes (``--jobs``) or on Dask
  (:mod:`~arbiter.archive.cluster`), written in order;
- :mod:`~arbiter.archive.formats`: NDJSON, CSV and Parquet; :mod:`~arbiter.archive.summary`:
  the figures of a run; :mod:`~arbiter.archive.batch`: the HTTP batch without HTTP;
  :mod:`~arbiter.archive.command`: ``arbiter score``.

Importing this package imports none of them (``arbiter.cli`` reads
:mod:`~arbiter.archive.options` at every start).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arbiter.archive.library import score_file, score_lines

__all__ = ["score_file", "score_lines"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from arbiter.archive import library

        return getattr(library, name)
    raise AttributeError(f"module 'arbiter.archive' has no attribute {name!r}")
