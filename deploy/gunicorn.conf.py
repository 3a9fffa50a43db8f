"""Gunicorn settings for tute-arbiter (``gunicorn -c deploy/gunicorn.conf.py arbiter.wsgi:app``).

Every value can be overridden from the environment (``ARBITER_WORKERS``, ``ARBITER_BIND``...).
"""

import os
import secrets
import shutil
import tempfile

bind = os.environ.get("ARBITER_BIND", "127.0.0.1:8000")
# The engine is CPU-bound pure Python: one worker per core granted to the process.
workers = int(os.environ.get("ARBITER_WORKERS", len(os.sched_getaffinity(0))))
# arbiter.worker.Worker: gunicorn's gevent worker, one greenlet per connection, so that clients
# that send slowly (a head a byte a second, a body that never comes) hold greenlets, not the
# few threads of gthread; with deadlines on heads and bodies and problem+json answers for what
# gunicorn refuses before the app (arbiter/worker.py). Measured against gthread 2x4 on
# benchmarks/bench_http.py and benchmarks/load/ (deploy/README.md, "Slow clients").
worker_class = os.environ.get("ARBITER_WORKER_CLASS", "arbiter.worker.Worker")
# gunicorn turns a sync worker with threads > 1 into gthread: threads only for gthread.
threads = int(os.environ.get("ARBITER_THREADS", "4" if worker_class == "gthread" else "1"))
# Connections one worker holds at once (greenlets); more wait in the listen backlog.
worker_connections = int(os.environ.get("ARBITER_WORKER_CONNECTIONS", "1000"))
timeout = int(os.environ.get("ARBITER_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("ARBITER_GRACEFUL_TIMEOUT", "20"))
# Also the deadline of every request head, the first of a connection included (arbiter.worker).
keepalive = int(os.environ.get("ARBITER_KEEPALIVE", "5"))
# What the HTTP server reads before the app (gunicorn's defaults, written down): a longer
# request line is a 414, more or larger header fields a 431, as problem+json.
limit_request_line = 4094
limit_request_fields = 100
limit_request_field_size = 8190
# Recycling a worker drops its in-process cache: keep it rare (a safety net against leaks).
max_requests = int(os.environ.get("ARBITER_MAX_REQUESTS", "200000"))
max_requests_jitter = int(os.environ.get("ARBITER_MAX_REQUESTS_JITTER", "20000"))
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
accesslog = os.environ.get("ARBITER_ACCESS_LOG") or None
errorlog = "-"
loglevel = os.environ.get("ARBITER_LOG_LEVEL", "info").lower()

# One state key per server, drawn here in the master when none is configured, so that every
# worker seals and opens the same state tokens (a restart draws a new one: old tokens then 409).
if not (os.environ.get("ARBITER_STATE_KEY") or os.environ.get("ARBITER_STATE_KEYS")):
    os.environ.setdefault("ARBITER_SERVER_STATE_KEY", secrets.token_urlsafe(48))

# Prometheus multiprocess mode: every worker writes its metrics to files in this directory,
# and GET /metrics adds them up. The container files name one (PROMETHEUS_MULTIPROC_DIR); without
# it (make run, arbiter serve) the master makes its own, private one when it starts and removes
# it when it exits: else each worker would answer /metrics with its own counts only. Workers
# inherit the variable (they are forked after on_starting); prometheus-client reads it when a
# worker imports it.
_OWN_METRICS_DIR = "ARBITER_OWN_METRICS_DIR"


def on_starting(server):
    metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not metrics_dir:
        metrics_dir = tempfile.mkdtemp(prefix="arbiter-metrics-")
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = os.environ[_OWN_METRICS_DIR] = metrics_dir
        server.log.info("metrics of all workers are added up in %s", metrics_dir)
    # Stale files of a previous run would be added too: wipe them.
    os.makedirs(metrics_dir, exist_ok=True)
    for name in os.listdir(metrics_dir):
        if name.endswith(".db"):
            os.remove(os.path.join(metrics_dir, name))


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    own = os.environ.get(_OWN_METRICS_DIR)
    if own and own == os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        shutil.rmtree(own, ignore_errors=True)
