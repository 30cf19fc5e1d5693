"""gunicorn settings for ome-ranker; every value can be overridden from the environment.

gunicorn puts the working directory on ``sys.path`` before it reads this file, so the settings
helpers are shared with the app: a bad value stops start-up with a message naming the variable.
"""

import ctypes
import ctypes.util
import errno
import glob
import math
import os
import secrets
import shutil
import socket
import tempfile

from gunicorn import util
from gunicorn.glogging import Logger

from app import auth
from config.settings import (
    CACHE_SECRET_VARIABLE,
    OPS_BIND_VARIABLE,
    UNSHARED_CACHE_SECRET_WARNING,
    ServerSettings,
    SettingsError,
    access_settings,
    cache_secret,
    check_open_access,
    env_int,
    env_log_level,
)

MULTIPROC_DIR_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"  # app/metrics.py reads the same


def available_cpus() -> int:
    """CPUs this process may use: its affinity mask, capped by a cgroup v2 CPU quota (a
    container limited to 2 CPUs on a 64-core host should not start 65 workers)."""
    cpus = len(os.sched_getaffinity(0))
    try:
        with open("/sys/fs/cgroup/cpu.max") as limits:
            quota, period = limits.read().split()
        if quota != "max":
            cpus = min(cpus, max(1, math.ceil(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return cpus


# Ranking is CPU-bound: one worker per core, plus one to cover a worker in I/O.
server_settings = ServerSettings.from_environment(default_workers=available_cpus() + 1)
# The operations listener (OME_RANKER_OPS_BIND), when set, beside the API's: the worker serves
# /healthz, /readyz and /metrics there from threads of its own (app/worker/).
bind = [server_settings.bind, *filter(None, [server_settings.ops_bind])]
workers = server_settings.workers
# gthread's thread pool behind an event loop that reads each request whole before a thread
# takes it (app/worker/): slow and idle clients cost a buffer, never a thread. A few threads
# per worker: they overlap Redis round trips and keep probes answered beside a long ranking;
# the GIL makes more of them no faster at ranking.
worker_class = "app.worker.RankerWorker"
threads = server_settings.threads
worker_connections = server_settings.worker_connections
# The worker's event loop beats the heartbeat; a request that runs long does not stop it (the
# request deadline answers those), so this only catches a worker whose loop is stuck.
timeout = server_settings.timeout
# SIGTERM: each worker drains (keeps accepting, /readyz 503) for OME_RANKER_DRAIN_SECONDS, then
# stops accepting and gets OME_RANKER_GRACEFUL_TIMEOUT to finish; the master waits for both.
graceful_timeout = server_settings.drain_seconds + server_settings.graceful_timeout
keepalive = server_settings.keepalive
cache_secret()  # a bad OME_RANKER_CACHE_SECRET stops the master, not every worker it forks
# OME_RANKER_AUTH=none beside a token file stops the master too; the address it listens on is
# checked in on_starting, where gunicorn's own -b counts as well.
_auth_mode, _tokens_file = access_settings()  # underscored: gunicorn reads no setting of them
# Recycle workers now and then so that a slow leak can never grow without bound; up to
# OME_RANKER_MAX_REQUESTS_JITTER more, drawn per worker, so that workers started together (and
# sharing the load evenly) do not all recycle at once and leave none to accept while they boot.
# A recycled worker answers the last requests of its connections with Connection: close and
# exits once its clients have closed them (app/worker/): no client sees a reset. Rarely: a new
# worker pays for its start and recomputes every answer it is asked (without Redis its cache
# starts empty), and a poll costs little, so 10 000 requests were a short life for a busy worker
# (bench/README.md § "Figures behind the code").
max_requests = env_int("OME_RANKER_MAX_REQUESTS", 100_000, 0)
max_requests_jitter = env_int("OME_RANKER_MAX_REQUESTS_JITTER", 10_000, 0)
# The application logs one structured line per request; gunicorn's access log is off.
accesslog = None
errorlog = "-"
loglevel = env_log_level("OME_RANKER_LOG_LEVEL", "INFO").lower()


class NoAccessLogLogger(Logger):
    """gunicorn's logger without its access log: the app writes one structured line per request
    (app/http/observability.py). With ``logconfig_dict`` set, gunicorn counts its access log as
    enabled even though ``accesslog`` is off, and builds every request's line to discard it."""

    @property
    def access_log_enabled(self) -> bool:
        return False

    def access(self, resp, req, environ, request_time) -> None:
        return None


logger_class = NoAccessLogLogger
# gunicorn's own lines as JSON too, through the root handler the workers' app reuses
# (app/logs.py); that module imports no prometheus_client (see on_starting).
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {},
    "handlers": {"json": {"class": "app.logs.StderrHandler"}},
    "root": {"level": "WARNING", "handlers": ["json"]},
    "loggers": {
        "gunicorn.error": {"level": loglevel.upper(), "handlers": [], "propagate": True},
        "gunicorn.access": {"level": "INFO", "handlers": [], "propagate": False},
    },
}
# gunicornc's control socket lives in $HOME, which two instances on one host would share and a
# container user may not have; signals (TERM, HUP, TTIN/TTOU) do the same job.
control_socket_disable = True
# The worker heartbeat file: on tmpfs, so a slow container disk never gets workers killed.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
# The app is built in each worker (never before the fork), so every worker
# gets its own Redis connection pool.
preload_app = False


# Prometheus multiprocess mode (app/metrics.py): every worker writes its values to files in
# PROMETHEUS_MULTIPROC_DIR and /metrics sums them. The directory is ours to create and clean.
_owned_metrics_dir = None


def on_starting(server):
    """In the master, before any worker exists (prometheus_client fixes its mode on import)."""
    try:
        for address in server.cfg.bind:
            if address != server_settings.ops_bind:  # serves no catalog
                check_open_access(_auth_mode, _tokens_file, address)
        for address in server.cfg.bind:
            check_free(address)
        if _tokens_file:
            auth.hand_to_workers(auth.TokenFile.load(_tokens_file))
    except SettingsError as error:  # before any socket is open: nothing listens
        server.log.error("%s", error)
        raise SystemExit(1) from None
    _share_cache_secret(server)
    global _owned_metrics_dir
    path = os.environ.get(MULTIPROC_DIR_VARIABLE)
    if path:
        os.makedirs(path, exist_ok=True)
        for stale in glob.glob(os.path.join(path, "*.db")):  # a previous run's counts
            os.remove(stale)
    else:
        path = _owned_metrics_dir = tempfile.mkdtemp(prefix="ome-ranker-metrics-")
        os.environ[MULTIPROC_DIR_VARIABLE] = path
    server.log.info("prometheus multiprocess directory: %s", path)


# The listeners a master is handed instead of binding its own: a re-executed master's (USR2),
# systemd's socket activation.
INHERITED_SOCKETS = ("GUNICORN_FD", "LISTEN_FDS")
BIND_ERRORS = {
    errno.EADDRINUSE: "is in use (another process listens there)",
    errno.EADDRNOTAVAIL: "is not an address of this machine",
    errno.EACCES: "needs privileges this process does not have",
}


def check_free(address: str) -> None:
    """``SettingsError`` naming the setting when the service cannot listen on ``address``:
    gunicorn would try it five times, a second apart, then say only "Can't connect to …". The
    check binds as gunicorn's TCP listener does (``SO_REUSEADDR``) and closes at once; a unix
    socket or an inherited listener is gunicorn's to judge."""
    if any(os.environ.get(name) for name in INHERITED_SOCKETS):
        return
    parsed = util.parse_address(address)
    if not isinstance(parsed, tuple):  # unix:PATH, fd://N
        return
    family = socket.AF_INET6 if util.is_ipv6(parsed[0]) else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(parsed)
    except OSError as error:
        problem = BIND_ERRORS.get(error.errno or 0, f"cannot be listened on ({error.strerror})")
        host, port = parsed
        other = f"[{host}]:{port + 1}" if family == socket.AF_INET6 else f"{host}:{port + 1}"
        if address == server_settings.ops_bind:
            how = f"set {OPS_BIND_VARIABLE} to another HOST:PORT"
        else:
            how = (
                f"set OME_RANKER_BIND to another HOST:PORT (OME_RANKER_BIND={other} make run, "
                f"or ome-ranker serve --bind {other})"
            )
        raise SettingsError(f"{address} {problem}: {how}") from None


def _share_cache_secret(server) -> None:
    """Without OME_RANKER_CACHE_SECRET, one random key for every worker of this instance, made
    before the fork, so that the workers read each other's cache entries."""
    if cache_secret() is not None:
        return
    os.environ[CACHE_SECRET_VARIABLE] = secrets.token_hex(32)
    if os.environ.get("REDIS_URL"):
        server.log.warning(UNSHARED_CACHE_SECRET_WARNING)


def pre_fork(server, worker):
    """The token file as it is now (or its last good version), for the worker about to start:
    one that starts while the file is broken starts with the last good tokens instead of
    failing to boot, which would stop the master."""
    tokens = auth.master_copy()
    if tokens is not None:
        tokens.refresh()


# glibc's M_ARENA_MAX: a malloc arena for every thread keeps what each thread's largest request
# freed; two arenas hand freed memory on to the next request (docs/operations.md "Memory").
_M_ARENA_MAX = -8
MALLOC_ARENAS = 2
_LIBC = ctypes.util.find_library("c")  # once, in the master: it may run ldconfig


def post_fork(server, worker):
    """In each worker, before its threads start: at most ``MALLOC_ARENAS`` malloc arenas."""
    if _LIBC is None:
        return
    try:
        ctypes.CDLL(_LIBC).mallopt(_M_ARENA_MAX, MALLOC_ARENAS)
    except (OSError, AttributeError):
        server.log.debug("mallopt is not available: malloc arenas left as they are")


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    tokens = auth.master_copy()
    if tokens is not None:
        tokens.close()
    if _owned_metrics_dir is not None:
        shutil.rmtree(_owned_metrics_dir, ignore_errors=True)
