"""The choices of ``arbiter score``, apart from the rest of :mod:`arbiter.archive`: the
command's parser is built at every start of ``arbiter`` (``arbiter serve`` too, whose gunicorn
master must not import the service before its workers patch it), so this module imports nothing
of the package."""

from __future__ import annotations

import argparse
import os
from enum import Enum
from typing import Final

#: ``--dask local``: a LocalCluster of this machine's processes.
LOCAL_CLUSTER: Final = "local"


class Format(Enum):
    """What ``--format`` writes (see :mod:`arbiter.archive.formats`)."""

    NDJSON = "ndjson"
    CSV = "csv"
    PARQUET = "parquet"

    @property
    def suffix(self) -> str:
        return f".{self.value}"


def jobs(text: str) -> int:
    """The value of ``--jobs``: a whole number from 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1, not {text!r}")
    return value


def available_cpus() -> int:
    """The CPUs this process may use (its affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # platforms without affinity
        return os.cpu_count() or 1
