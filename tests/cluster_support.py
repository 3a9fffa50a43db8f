"""A throw-away Redis Cluster on loopback for the cache tests (tests/test_cache_cluster.py).

:func:`start_cluster` starts ``masters`` ``redis-server`` processes with cluster mode on free
127.0.0.1 ports (each port and its cluster bus port, port + 10000, checked free), joins them
with ``redis-cli --cluster create ... --cluster-replicas 0 --cluster-yes`` and waits, bounded,
until every node reports ``cluster_state:ok`` and knows every other. Nothing is persisted
(``--save "" --appendonly no``); configs and logs live in a temporary directory.

:class:`LocalCluster` stops every process it started (SIGTERM, then SIGKILL after a bounded
wait) whatever happens: :func:`running_cluster` and the ``redis_cluster`` fixture always call
:meth:`LocalCluster.stop`, and a start that fails half way stops what it had started.

Import the fixture into a test module with ``from tests.cluster_support import redis_cluster``.
"""

from __future__ import annotations

import contextlib
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from redis import Redis
from redis.exceptions import RedisError

HOST = "127.0.0.1"
BUS_OFFSET = 10_000  # Redis Cluster's bus port is the client port + 10000
START_TIMEOUT = 15.0  # seconds for the servers to answer and the cluster to be ok
STOP_TIMEOUT = 10.0


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
        return True


def free_cluster_ports(count: int, rng: random.Random | None = None) -> list[int]:
    """``count`` ports whose client port and bus port are both free now (a race remains
    until the servers bind: :func:`start_cluster` retries on another set)."""
    rng = rng or random.Random()
    ports: list[int] = []
    while len(ports) < count:
        port = rng.randrange(20_000, 30_000)  # below the ephemeral range, bus port < 40000
        if port in ports or not (_port_free(port) and _port_free(port + BUS_OFFSET)):
            continue
        ports.append(port)
    return ports


def node_client(port: int, timeout: float = 2.0) -> Redis:
    """A plain (non-cluster) client of one node."""
    return Redis(host=HOST, port=port, socket_timeout=timeout, socket_connect_timeout=timeout)


def cluster_info(port: int) -> dict[str, str]:
    with node_client(port) as client:
        raw = client.execute_command("CLUSTER INFO")
    if isinstance(raw, dict):  # redis-py parses the reply
        return {str(k): str(v) for k, v in raw.items()}
    text = raw.decode() if isinstance(raw, bytes) else str(raw)
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


@dataclass
class LocalCluster:
    workdir: Path
    ports: list[int]
    processes: dict[int, subprocess.Popen[bytes]] = field(default_factory=dict)
    killed: set[int] = field(default_factory=set)

    @property
    def url(self) -> str:
        """The address given to the service: the first node."""
        return f"redis://{HOST}:{self.ports[0]}"

    def url_of(self, port: int) -> str:
        return f"redis://{HOST}:{port}"

    @property
    def alive(self) -> list[int]:
        return [p for p in self.ports if p not in self.killed]

    def node(self, port: int) -> Redis:
        return node_client(port)

    def keyslot(self, key: str) -> int:
        """The hash slot of ``key`` as the cluster itself computes it (CLUSTER KEYSLOT)."""
        with self.node(self.alive[0]) as client:
            return int(client.execute_command("CLUSTER KEYSLOT", key))

    def owner_of_slot(self, slot: int) -> int:
        """The port of the master serving ``slot`` (from CLUSTER SLOTS of a live node)."""
        with self.node(self.alive[0]) as client:
            ranges = client.execute_command("CLUSTER SLOTS")
        for entry in ranges:
            # redis-py parses CLUSTER SLOTS into {(start, end): {"primary": (host, port)...}}
            if isinstance(ranges, dict):
                (start, end), info = entry, ranges[entry]
                port = int(info["primary"][1])
            else:
                start, end, primary = entry[0], entry[1], entry[2]
                port = int(primary[1])
            if start <= slot <= end:
                return port
        raise AssertionError(f"slot {slot} is served by no master")

    def keys(self, pattern: str = "*") -> dict[int, list[str]]:
        """Every key matching ``pattern`` on each live master, by port."""
        out: dict[int, list[str]] = {}
        for port in self.alive:
            with self.node(port) as client:
                out[port] = sorted(k.decode() for k in client.scan_iter(match=pattern, count=1000))
        return out

    def kill(self, port: int) -> None:
        """SIGKILL one node (a crash: no shutdown, no goodbye to the cluster)."""
        process = self.processes[port]
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        process.wait(timeout=STOP_TIMEOUT)
        self.killed.add(port)

    def wait_state(self, state: str, timeout: float = START_TIMEOUT) -> None:
        """Until every live node reports ``cluster_state:<state>``."""
        deadline = time.monotonic() + timeout
        last: dict[int, str] = {}
        while True:
            for port in self.alive:
                try:
                    last[port] = cluster_info(port).get("cluster_state", "?")
                except RedisError as err:
                    last[port] = repr(err)
            if all(last.get(p) == state for p in self.alive):
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"cluster_state is not {state} after {timeout} s: {last}")
            time.sleep(0.05)

    def log_tail(self, port: int, chars: int = 2000) -> str:
        path = self.workdir / f"redis-{port}.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""

    def stop(self) -> None:
        """Stop every process still running (SIGTERM, SIGKILL after STOP_TIMEOUT)."""
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=STOP_TIMEOUT)


def _wait_ping(cluster: LocalCluster, port: int, deadline: float) -> None:
    process = cluster.processes[port]
    while True:
        if process.poll() is not None:
            raise RuntimeError(
                f"redis-server on port {port} exited with {process.returncode}:\n"
                + cluster.log_tail(port)
            )
        with contextlib.suppress(RedisError, OSError), node_client(port, 0.5) as client:
            if client.ping():
                return
        if time.monotonic() > deadline:
            raise TimeoutError(f"redis-server on port {port} did not answer PING")
        time.sleep(0.02)


def _start_once(workdir: Path, masters: int, node_timeout_ms: int) -> LocalCluster:
    cluster = LocalCluster(workdir, free_cluster_ports(masters))
    try:
        for port in cluster.ports:
            argv = [
                "redis-server",
                "--port", str(port),
                "--bind", HOST,
                "--cluster-enabled", "yes",
                "--cluster-config-file", str(workdir / f"nodes-{port}.conf"),
                "--cluster-node-timeout", str(node_timeout_ms),
                "--save", "",
                "--appendonly", "no",
                "--dir", str(workdir),
                "--logfile", str(workdir / f"redis-{port}.log"),
            ]  # fmt: skip
            cluster.processes[port] = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + START_TIMEOUT
        for port in cluster.ports:
            _wait_ping(cluster, port, deadline)
        create = ["redis-cli", "--cluster", "create"]
        create += [f"{HOST}:{p}" for p in cluster.ports]
        create += ["--cluster-replicas", "0", "--cluster-yes"]
        done = subprocess.run(
            create, capture_output=True, text=True, timeout=START_TIMEOUT, check=False
        )
        if done.returncode != 0 or "[OK] All 16384 slots covered" not in done.stdout:
            raise RuntimeError(f"redis-cli --cluster create failed:\n{done.stdout}\n{done.stderr}")
        cluster.wait_state("ok", max(1.0, deadline - time.monotonic()))
        while any(
            int(cluster_info(p).get("cluster_known_nodes", 0)) != masters for p in cluster.ports
        ):
            if time.monotonic() > deadline:
                raise TimeoutError("the nodes do not all know each other")
            time.sleep(0.05)
        return cluster
    except BaseException:
        cluster.stop()
        raise


def start_cluster(workdir: Path, masters: int = 3, node_timeout_ms: int = 15_000) -> LocalCluster:
    """A running cluster of ``masters`` masters (and no replicas) in ``workdir``. A start
    that fails because a port was taken meanwhile is retried on other ports (3 attempts)."""
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        pytest.skip("redis-server and redis-cli are needed for the Redis Cluster tests")
    for attempt in range(3):
        try:
            return _start_once(workdir, masters, node_timeout_ms)
        except RuntimeError as err:
            if attempt == 2 or "Address already in use" not in str(err):
                raise
    raise AssertionError("unreachable")


@contextlib.contextmanager
def running_cluster(masters: int = 3, node_timeout_ms: int = 15_000) -> Iterator[LocalCluster]:
    """A cluster for the duration of the block, always stopped and removed after it."""
    with tempfile.TemporaryDirectory(prefix="arbiter-cluster-") as tmp:
        cluster = start_cluster(Path(tmp), masters, node_timeout_ms)
        try:
            yield cluster
        finally:
            cluster.stop()


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[LocalCluster]:
    """One 3-master cluster for the whole test session (never killed into: the tests that
    crash a node make their own with :func:`running_cluster`)."""
    with running_cluster() as cluster:
        yield cluster
