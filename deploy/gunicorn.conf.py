"""Gunicorn settings for tute-arbiter (``gunicorn -c deploy/gunicorn.conf.py arbiter.wsgi:app``).

Every value can be overridden from the environment (``ARBITER_WORKERS``, ``ARBITER_BIND``...).
"""

import os
import secrets

bind = os.environ.get("ARBITER_BIND", "127.0.0.1:8000")
# The engine is CPU-bound pure Python: one worker per core granted to the process. gthread
# (4 threads) was measured 1.32x sync's throughput on the realistic mix (benchmarks/load/):
# it keeps connections alive and overlaps the Redis round trips.
workers = int(os.environ.get("ARBITER_WORKERS", len(os.sched_getaffinity(0))))
worker_class = os.environ.get("ARBITER_WORKER_CLASS", "gthread")
# gunicorn turns a sync worker with threads > 1 into gthread: threads only for gthread.
threads = int(os.environ.get("ARBITER_THREADS", "4" if worker_class == "gthread" else "1"))
timeout = int(os.environ.get("ARBITER_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("ARBITER_GRACEFUL_TIMEOUT", "20"))
keepalive = int(os.environ.get("ARBITER_KEEPALIVE", "5"))
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
# and GET /metrics adds them up. Stale files of a previous run would be added too: wipe them.
_metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR")


def on_starting(server):
    if _metrics_dir:
        os.makedirs(_metrics_dir, exist_ok=True)
        for name in os.listdir(_metrics_dir):
            if name.endswith(".db"):
                os.remove(os.path.join(_metrics_dir, name))


def child_exit(server, worker):
    if _metrics_dir:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
