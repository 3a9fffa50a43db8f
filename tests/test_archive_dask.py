"""Archives on Dask: a ``LocalCluster`` of two worker processes on loopback scores an archive
and writes exactly what ``--jobs 1`` writes; and the four ways in (the command, the library,
HTTP, Dask) give the same lines for the same archive.

The cluster is the real ``dask.distributed`` (the ``dask`` extra, installed with the test
extras), started once for the module and stopped at its end; each run is bounded by the
size of the archive (a few thousand games) and by the timeouts of :func:`run_cli`.
"""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

import arbiter
from arbiter.archive import Format
from arbiter.archive.cluster import connect, run_dask
from arbiter.archive.formats import open_writer
from arbiter.archive.inputs import expand
from arbiter.archive.records import ScoringConfig
from arbiter.archive.runner import Job, PieceResult, Sink, run_here
from tests.api_support import NDJSON, make_client
from tests.archive_support import (
    alive,
    children,
    game_lines,
    lines_of,
    manifest_lines,
    ndjson,
    one_deal_archive,
    run_cli,
    start_cli,
    wait_for,
    write_archive,
)
from tests.gunicorn_support import free_port

# Dask LocalClusters of worker processes: not in the quick loop.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with connect("local", 2) as dask_client:
        workers = dask_client.scheduler_info()["workers"]
        assert len(workers) == 2
        assert all(address.startswith("tcp://127.0.0.1:") for address in workers)
        yield dask_client


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = write_archive(tmp_path_factory.mktemp("dask") / "games", games=900)
    big = folder / "a.ndjson"
    assert big.stat().st_size > 2 * 1024 * 1024 + 1  # more than one piece at the default size
    return folder


def _scored(way: str, folder: Path, fmt: Format, client: Any = None, block: int = 0) -> bytes:
    inputs = expand([str(folder)]).inputs
    out = io.BytesIO()
    sink = Sink(inputs, writer=open_writer(fmt, None, out))
    done: list[PieceResult] = []
    job = Job(inputs, ScoringConfig(), fmt, sink, done.append)
    outcome = run_dask(client, job, block) if way == "dask" else run_here(job)
    sink.close()
    assert outcome.problems == [] and done
    return out.getvalue()


@pytest.mark.parametrize("block", [50_000, 1 << 20])
def test_a_local_cluster_writes_what_one_process_writes(
    client: Any, archive: Path, block: int
) -> None:
    """Byte blocks of the large file (cut anywhere), the .gz and .json files, read by the
    workers: the same bytes, NDJSON and CSV."""
    for fmt in (Format.NDJSON, Format.CSV):
        assert _scored("dask", archive, fmt, client, block) == _scored("here", archive, fmt)


def test_a_gz_file_spreads_over_the_workers_in_pieces(client: Any, tmp_path: Path) -> None:
    """A ``.gz`` file is read here and sent in pieces: many tasks, none holding it whole."""
    path = tmp_path / "games.ndjson.gz"
    path.write_bytes(gzip.compress(ndjson(game_lines(300, seed=8))))
    inputs = expand([str(path)]).inputs
    out = io.BytesIO()
    done: list[PieceResult] = []
    job = Job(inputs, ScoringConfig(), Format.NDJSON, Sink(inputs, writer=open_writer(
        Format.NDJSON, None, out)), done.append)  # fmt: skip
    run_dask(client, job, block=20_000)
    job.sink.close()
    assert len(done) > 10 and all(result.lines < 300 for result in done)
    assert sum(result.lines for result in done) == 300
    assert out.getvalue() == run_cli("score", path, "--jobs", "1").out


def test_the_four_ways_in_give_the_same_lines(archive: Path, tmp_path: Path) -> None:
    command = run_cli("score", archive, "--jobs", "1", "--out", tmp_path / "cli.ndjson")
    on_dask = run_cli(
        "score", archive, "--dask", "local", "--jobs", "2", "--out", tmp_path / "dask.ndjson"
    )
    assert command.status == on_dask.status == 3, (command.err, on_dask.err)  # bad lines
    assert "Traceback" not in command.err + on_dask.err
    cli_bytes = (tmp_path / "cli.ndjson").read_bytes()
    assert (tmp_path / "dask.ndjson").read_bytes() == cli_bytes  # Dask = the command
    library = list(arbiter.score_file(archive))
    assert lines_of(cli_bytes) == library  # the library = the command
    assert cli_bytes == b"".join(orjson.dumps(line) + b"\n" for line in library)

    # HTTP: the batch of each NDJSON file, whose source is the line number alone
    path = archive / "a.ndjson"
    lines = path.read_bytes().split(b"\n")
    answer = make_client().post(
        "/v1/scores/batch", data=ndjson(lines), headers={"Content-Type": NDJSON}
    )
    assert answer.status_code == 200
    over_http = lines_of(answer.get_data())
    assert over_http == list(arbiter.score_lines(lines))
    from_the_command = [line for line in library if line["source"].startswith(f"{path}:")]
    assert len(over_http) == len(from_the_command) > 900
    for http_line, cli_line in zip(over_http, from_the_command, strict=True):
        number = int(cli_line["source"].rpartition(":")[2])
        renamed = {**cli_line, "source": number}
        if cli_line["id"] == cli_line["source"]:  # no id of its own: the source stands for it
            renamed["id"] = number
        assert http_line == renamed


# --- the cluster of deploy/dask/daskcluster.yaml ------------------------------------------------

MANIFEST = Path(__file__).resolve().parent.parent / "deploy" / "dask" / "daskcluster.yaml"


def _containers() -> dict[str, dict[str, Any]]:
    cluster = yaml.safe_load(MANIFEST.read_text())
    assert cluster["apiVersion"] == "kubernetes.dask.org/v1" and cluster["kind"] == "DaskCluster"
    spec = cluster["spec"]
    (worker,) = spec["worker"]["spec"]["containers"]
    (scheduler,) = spec["scheduler"]["spec"]["containers"]
    ports = {p["port"] for p in spec["scheduler"]["service"]["ports"]}
    assert 8786 in ports
    for part in ("worker", "scheduler"):
        assert spec[part]["spec"]["securityContext"]["runAsUser"] == 10001  # the image's USER
    return {"worker": worker, "scheduler": scheduler}


def test_the_manifest_runs_the_image_of_this_version() -> None:
    for container in _containers().values():
        assert container["image"] == f"tute-arbiter-dask:{arbiter.__version__}"
    assert _containers()["worker"]["args"][:2] == ["dask", "worker"]
    assert "--nthreads" in _containers()["worker"]["args"]


def test_the_manifests_commands_make_a_cluster_the_command_scores_on(
    archive: Path, tmp_path: Path
) -> None:
    """``dask scheduler`` and ``dask worker`` with the manifest's arguments, on loopback (the
    Service's address replaced by 127.0.0.1), then ``arbiter score --dask tcp://...``."""
    containers = _containers()
    port, dashboard = free_port(), free_port()
    bin_dir = Path(sys.executable).parent
    scheduler_args = [
        *containers["scheduler"]["args"],
        "--host", "127.0.0.1", "--port", str(port), "--dashboard-address", f"127.0.0.1:{dashboard}",
    ]  # fmt: skip
    worker_args = containers["worker"]["args"]
    logs = tmp_path / "dask.log"
    with logs.open("wb") as log:
        processes = [_start(bin_dir, scheduler_args, log)]
        try:
            for n in range(2):
                args = [a.replace("$(DASK_WORKER_NAME)", f"worker-{n}") for a in worker_args]
                args += [f"tcp://127.0.0.1:{port}", "--host", "127.0.0.1", "--no-dashboard"]
                processes.append(_start(bin_dir, args, log))
            out = tmp_path / "scores.ndjson"
            done = run_cli("score", archive, "--dask", f"tcp://127.0.0.1:{port}", "--out", out)
            assert done.status == 3, done.err + logs.read_text(errors="replace")[-3000:]
            reference = run_cli("score", archive, "--jobs", "1")
            assert out.read_bytes() == reference.out
        finally:
            for process in reversed(processes):
                process.terminate()
            for process in processes:
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)


def test_a_scheduler_lost_is_one_sentence(tmp_path: Path) -> None:
    """``dask scheduler`` killed while the command scores on it: exit 2, one line naming
    it, no traceback, the output left partial with its manifest."""
    big = one_deal_archive(tmp_path / "games.ndjson", 30_000)
    port = free_port()
    bin_dir = Path(sys.executable).parent
    scheduler_args = ["dask", "scheduler", "--host", "127.0.0.1", "--port", str(port),
                      "--no-dashboard"]  # fmt: skip
    worker_args = ["dask", "worker", f"tcp://127.0.0.1:{port}", "--host", "127.0.0.1",
                   "--nthreads", "1", "--no-dashboard"]  # fmt: skip
    logs = tmp_path / "dask.log"
    out = tmp_path / "scores.ndjson"
    with logs.open("wb") as log:
        scheduler = _start(bin_dir, scheduler_args, log)
        worker = _start(bin_dir, worker_args, log)
        try:
            run = start_cli("score", big, "--dask", f"tcp://127.0.0.1:{port}", "--out", out,
                            "--quiet")  # fmt: skip
            partial_manifest = tmp_path / "scores.ndjson.partial.manifest.json"
            wait_for(lambda: manifest_lines(partial_manifest) > 0, "a checkpoint")
            scheduler.kill()
            _, err = run.communicate(timeout=180)
        finally:
            for process in (worker, scheduler):
                process.kill()
                process.wait(timeout=30)
    said = err.decode()
    assert run.returncode == 2, said
    assert said.startswith(f"arbiter: lost the Dask scheduler at tcp://127.0.0.1:{port} during")
    assert said.count("\n") == 1 and "Traceback" not in said, said
    assert not out.exists() and (tmp_path / "scores.ndjson.partial").exists()
    left = orjson.loads(partial_manifest.read_bytes())
    assert left["finished"] is False and left["stopped"] == said.removeprefix("arbiter: ").strip()


def _start(bin_dir: Path, args: list[str], log: Any) -> subprocess.Popen[bytes]:
    command = [str(bin_dir / args[0]), *args[1:]]
    return subprocess.Popen(command, stdout=log, stderr=log, cwd="/tmp")


def test_kill_9_of_a_run_on_a_local_cluster_leaves_no_process(tmp_path: Path) -> None:
    """The LocalCluster's worker processes and the resource tracker end with the command."""
    big = one_deal_archive(tmp_path / "games.ndjson", 30_000)
    out = tmp_path / "scores.ndjson"
    run = start_cli("score", big, "--dask", "local", "--jobs", "2", "--out", out, "--quiet")
    partial_manifest = tmp_path / "scores.ndjson.partial.manifest.json"
    wait_for(lambda: manifest_lines(partial_manifest) > 0, "a checkpoint")
    left = wait_for(lambda: len(children(run.pid)) >= 3 and children(run.pid), "the workers")
    run.kill()
    run.communicate(timeout=60)
    wait_for(lambda: not any(alive(pid) for pid in left), f"{left} to end", 120)
    assert not out.exists() and (tmp_path / "scores.ndjson.partial").exists()
