"""Archives on Dask: ``arbiter score --dask ADDRESS`` (an existing ``dask.distributed``
scheduler) or ``--dask local`` (a ``LocalCluster`` of this machine's processes, on loopback).

The workers read the inputs themselves (each task is a piece: a byte range of a plain NDJSON
file, a whole ``.gz`` or ``.json`` file; standard input alone is read here and sent), score
them with :func:`arbiter.archive.runner.run_task`, the same function as ``--jobs``, and this
process writes the results in order. The paths are absolute: on a cluster, every worker must
see the inputs at the same path (a shared volume). A ``.gz`` file is one piece, whose results a
worker holds at once: split very large archives into several files, or leave them plain.

Dask is the optional extra ``dask`` (``pip install 'tute-arbiter[dask]'``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from arbiter.archive import LOCAL_CLUSTER
from arbiter.archive.inputs import Task
from arbiter.archive.runner import BLOCK_BYTES, Future, Job, Outcome, run_task, run_with

if TYPE_CHECKING:
    from distributed import Client

#: Seconds to wait for a scheduler to answer.
CONNECT_TIMEOUT: Final = 10
#: What Dask may say on standard error during a run: errors only.
_QUIET = logging.ERROR


class DaskUnavailable(Exception):
    """The scheduler cannot be reached, or Dask is not installed; the message says which."""


def require() -> None:
    """:class:`DaskUnavailable` unless ``dask.distributed`` can be imported."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise DaskUnavailable(
            "--dask needs dask.distributed: pip install 'tute-arbiter[dask]'"
        ) from None


@contextlib.contextmanager
def connect(address: str, workers: int) -> Iterator[Client]:
    """A client of the scheduler at ``address``, or of a new ``LocalCluster`` of ``workers``
    processes (one thread each) on 127.0.0.1 for ``local``; the cluster stops on exit."""
    require()
    from distributed import Client, LocalCluster

    logging.getLogger("distributed").setLevel(_QUIET)
    if address == LOCAL_CLUSTER:
        with (
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                host="127.0.0.1",
                dashboard_address=None,
                silence_logs=_QUIET,
            ) as cluster,
            Client(cluster) as client,
        ):
            yield client
        return
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as err:
        raise DaskUnavailable(f"cannot reach the Dask scheduler at {address}: {err}") from None
    with client:
        yield client


def run_dask(client: Client, job: Job, block: int = BLOCK_BYTES) -> Outcome:
    """The run on the cluster of ``client``: twice as many tasks in flight as it has threads."""
    threads = max(1, sum(client.nthreads().values()))

    def submit(task: Task) -> Future:
        future: Future = client.submit(run_task, task, job.config, job.fmt, job.table, pure=False)
        return future

    return run_with(job, submit, 2 * threads + 2, workers_read_gzip=True, block=block)
