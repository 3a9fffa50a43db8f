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
- :mod:`~arbiter.archive.formats`: NDJSON, CSV and Parquet (tables of deals or of seats);
  :mod:`~arbiter.archive.summary`: the figures of a run; :mod:`~arbiter.archive.batch`: the
  HTTP batch without HTTP;
- :mod:`~arbiter.archive.output`: outputs written under partial names, renamed when complete,
  with a manifest beside, and the runs that continue them (``--resume``);
  :mod:`~arbiter.archive.remote`: inputs and outputs at URLs, through fsspec.

The command ``arbiter score`` is :mod:`arbiter.commands.score`. Importing this package imports
none of its modules (they import the service): it defines only the choices a run is made
with, :class:`Format`, :class:`Table` and :data:`LOCAL_CLUSTER`, which the command's arguments name.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from arbiter.archive.library import score_file, score_lines

__all__ = ["LOCAL_CLUSTER", "Format", "Table", "score_file", "score_lines"]

#: ``--dask local``: a LocalCluster of this machine's processes (:mod:`~arbiter.archive.cluster`).
LOCAL_CLUSTER: Final = "local"


class Format(Enum):
    """What a run writes (see :mod:`arbiter.archive.formats`)."""

    NDJSON = "ndjson"
    CSV = "csv"
    PARQUET = "parquet"

    @property
    def suffix(self) -> str:
        return f".{self.value}"


class Table(Enum):
    """The rows of a CSV or Parquet output (see :mod:`arbiter.archive.formats`): one per deal
    (``deals``), or one per seat of each deal (``seats``: the players' table)."""

    DEALS = "deals"
    SEATS = "seats"


def __getattr__(name: str) -> Any:
    if name in ("score_file", "score_lines"):
        from arbiter.archive import library

        return getattr(library, name)
    raise AttributeError(f"module 'arbiter.archive' has no attribute {name!r}")
