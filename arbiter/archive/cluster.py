"""Archives on Dask: ``arbiter score --dask ADDRESS`` (an existing ``dask.distributed``
scheduler) or ``--dask local`` (a ``LocalCluster`` of this machine's processes, on loopback).

The workers read the inputs themselves (each task is a piece: a byte range of a plain NDJSON
file, or ``.json`` files), score them with :func:`arbiter.archive.runner.run_task`, the same
function as ``--jobs``, and this process writes the results in order, a few pieces in flight.
A ``.gz`` file cannot be read from its middle, so this process reads it and sends its lines in
pieces of about 2 MiB, as it does standard input: a large ``.gz`` file spreads over every worker
and no worker ever holds its whole result. The paths are absolute: on a cluster, every worker
must see the inputs at the same path (a shared volume), or read them from an object store.

A run that loses its scheduler or a worker says so in one sentence (:func:`failure`), and
Dask's own logs are kept quiet during it.

Dask is the optional extra ``dask`` (``pip install 'tute-arbiter[dask]'``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from arbiter.archive import LOCAL_CLUSTER
from arbiter.archive.inputs import Task
from arbiter.archive.runner import (
    BLOCK_BYTES,
    Future,
    Job,
    Outcome,
    PieceResult,
    run_task,
    run_with,
)

if TYPE_CHECKING:
    from distributed import Client

#: Seconds to wait for a scheduler to answer.
CONNECT_TIMEOUT: Final = 10
#: What Dask may say on standard error during a run: nothing short of a crash (a lost
#: scheduler is said by the command, in one sentence).
_QUIET = logging.CRITICAL


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

    _quiet()
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


def _quiet() -> None:
    """Dask's loggers, each (its configuration gives some their own level), kept quiet."""
    names = [name for name in logging.root.manager.loggerDict if name.startswith("distributed")]
    for name in ["distributed", *names]:
        logging.getLogger(name).setLevel(_QUIET)


def run_dask(client: Client, job: Job, block: int = BLOCK_BYTES) -> Outcome:
    """The run on the cluster of ``client``: twice as many tasks in flight as it has threads."""
    threads = max(1, sum(client.nthreads().values()))
    address = str(client.scheduler.address) if client.scheduler is not None else "?"

    def submit(task: Task) -> Future:
        future = client.submit(run_task, task, job.config, job.fmt, job.table, pure=False)
        return _Answer(future, address)

    return run_with(job, submit, 2 * threads + 2, workers_read_gzip=False, block=block)


class _Answer:
    """A Dask future whose failure is :class:`DaskUnavailable`, said in one sentence."""

    def __init__(self, future: Any, address: str) -> None:
        self._future = future
        self._address = address

    def result(self) -> list[PieceResult]:
        try:
            done: list[PieceResult] = self._future.result()
        except Exception as err:  # a worker lost, the scheduler gone: Dask's own exceptions
            raise DaskUnavailable(failure(err, self._address)) from None
        return done

    def cancel(self) -> None:
        with contextlib.suppress(Exception):
            self._future.cancel()


def failure(err: BaseException, address: str) -> str:
    """What went wrong with the cluster, in one sentence (never Dask's traceback)."""
    name = type(err).__name__
    local = address == LOCAL_CLUSTER
    where = "the local Dask cluster" if local else f"the Dask scheduler at {address}"
    if name == "KilledWorker":
        return f"a Dask worker of {where} died on every try of one piece (out of memory?)"
    lost = ("FutureCancelledError", "CancelledError", "CommClosedError")
    if name in lost or isinstance(err, OSError | TimeoutError):
        return f"lost {where} during the run ({name})"
    return f"the run on {where} failed: {name}: {err}"


def from_dask(err: BaseException) -> bool:
    """An exception of Dask or of the libraries under it (not of this program's files)."""
    return type(err).__module__.split(".")[0] in ("distributed", "dask", "tornado", "asyncio")
