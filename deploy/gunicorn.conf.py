"""Gunicorn settings for tute-arbiter (``gunicorn -c deploy/gunicorn.conf.py arbiter.wsgi:app``).

Every value comes from :class:`arbiter.settings.Settings`, the one object read from the
environment (``ARBITER_WORKERS``, ``ARBITER_BIND``...: the README's configuration table); a
configuration the service cannot run with stops the start here, in one line.
"""

import os
import secrets
import shutil
import sys
import tempfile

from arbiter.settings import SERVER_LIMITS_VAR, Settings, SettingsError

try:
    _settings = Settings.from_env()
except SettingsError as err:
    sys.exit(f"arbiter: {err}")

bind = _settings.bind
# The engine is CPU-bound: one worker per core granted to the process.
workers = _settings.server_workers()
# arbiter.worker.Worker: gunicorn's gevent worker, one greenlet per connection, so that clients
# that send slowly (a head a byte a second, a body that never comes) hold greenlets, not the
# few threads of gthread; with deadlines on heads and bodies and problem+json answers for what
# gunicorn refuses before the app (arbiter/worker.py). Measured against gthread 2x4 on
# benchmarks/bench_http.py and benchmarks/load/ (deploy/README.md, "Slow clients").
worker_class = _settings.worker_class
threads = _settings.server_threads()
# Connections one worker holds at once (greenlets); more wait in the listen backlog.
worker_connections = _settings.worker_connections
timeout = _settings.timeout
graceful_timeout = _settings.graceful_timeout
# Also the deadline of every request head, the first of a connection included (arbiter.worker).
keepalive = _settings.keepalive
# Whose X-Forwarded-Proto/-For and SCRIPT_NAME headers are believed: nobody's unless
# ARBITER_FORWARDED_ALLOW_IPS names the proxy in front (gunicorn's own default trusts loopback,
# where any local client can forge them). deploy/README.md, "Behind a proxy".
forwarded_allow_ips = _settings.forwarded_allow_ips
# What the HTTP server reads before the app (gunicorn's defaults, written down): a longer
# request line is a 414, more or larger header fields a 431, as problem+json.
limit_request_line = 4094
limit_request_fields = 100
limit_request_field_size = 8190
# Recycling a worker drops its in-process cache: keep it rare (a safety net against leaks).
max_requests = _settings.max_requests
max_requests_jitter = _settings.max_requests_jitter
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
accesslog = _settings.access_log
errorlog = "-"
loglevel = _settings.log_level.lower()
# gunicorn's control socket (for gunicornc) defaults to one path per user, which every server
# of the machine would share and remove: the service does not use it.
control_socket_disable = True
# gunicorn's own lines (and its access log, when ARBITER_ACCESS_LOG asks for one) in the
# service's format: JSON objects with ARBITER_LOG_JSON, the default. It also queues every line of
# the master and the workers (standard error and output), so that no line ever waits for a log
# that is not read (arbiter/logpipe.py; the trade-off: deploy/README.md, "Logs: a log nobody reads").
logger_class = "arbiter.jsonlog.GunicornLogger"

# One state key per server, drawn here in the master when none is configured, so that every
# worker seals and opens the same state tokens (a restart draws a new one: old tokens then 409).
if not _settings.secrets:
    os.environ.setdefault("ARBITER_SERVER_STATE_KEY", secrets.token_urlsafe(48))

# Prometheus multiprocess mode: every worker writes its metrics to files in this directory,
# and GET /metrics adds them up. The container files name one (PROMETHEUS_MULTIPROC_DIR); without
# it (make run, arbiter serve) the master makes its own, private one once it is listening and
# removes it when it exits: else each worker would answer /metrics with its own counts only.
# Workers inherit the variable (they are forked after when_ready, which runs once the sockets
# are bound: a start that fails to bind leaves no directory behind); prometheus-client reads it
# when a worker imports it.
_OWN_METRICS_DIR = "ARBITER_OWN_METRICS_DIR"

# The rate limit's counters (ARBITER_RATE_LIMIT) without Redis: one SQLite file in a private
# directory that the master makes once it listens, for all its workers, so that they count one
# budget (arbiter/api/limits.py), and removes when it exits. With Redis they live there.
_SHARED_BACKENDS = ("redis", "cluster")


def _share_rate_limit(server):
    if not _settings.rate_limit or _settings.cache_backend in _SHARED_BACKENDS:
        return
    if _settings.server_limits:  # a file of its own already
        return
    limits_dir = tempfile.mkdtemp(prefix="arbiter-limits-", dir=worker_tmp_dir)
    os.environ[SERVER_LIMITS_VAR] = os.path.join(limits_dir, "limits.sqlite")
    server.log.info("the workers share the rate limit's counters in %s", limits_dir)


def when_ready(server):
    _share_rate_limit(server)
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


# A worker counts the log lines it has not written yet in memory it shares with the master, which
# says how many a worker that died (killed, or stopped on a log nobody reads) never wrote.
def pre_fork(server, worker):
    from arbiter.logpipe import before_fork

    before_fork(worker)


def post_fork(server, worker):
    from arbiter.logpipe import after_fork

    after_fork(worker)


def post_worker_init(worker):
    # The app's access lines go straight to the queue of the worker's standard error, without a
    # logging record (arbiter/api/logs.py).
    from arbiter.api.logs import queue_lines

    queue_lines(worker.app.callable)


def child_exit(server, worker):
    from prometheus_client import multiprocess

    from arbiter.logpipe import after_exit

    multiprocess.mark_process_dead(worker.pid)
    after_exit(server.log, worker)


def on_exit(server):
    limits_file = os.environ.get(SERVER_LIMITS_VAR)
    if limits_file and _settings.server_limits is None:  # made here, not inherited
        shutil.rmtree(os.path.dirname(limits_file), ignore_errors=True)
    own = os.environ.get(_OWN_METRICS_DIR)
    if own and own == os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        shutil.rmtree(own, ignore_errors=True)
