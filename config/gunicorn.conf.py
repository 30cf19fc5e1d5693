"""gunicorn settings for ome-ranker; every value can be overridden from the environment."""

import multiprocessing
import os

bind = os.environ.get("OME_RANKER_BIND", "127.0.0.1:8080")
# Ranking is CPU-bound: one worker per core, plus one to cover a worker in I/O.
workers = int(os.environ.get("OME_RANKER_WORKERS", multiprocessing.cpu_count() + 1))
worker_class = "sync"
timeout = int(os.environ.get("OME_RANKER_WORKER_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("OME_RANKER_GRACEFUL_TIMEOUT", "20"))
keepalive = int(os.environ.get("OME_RANKER_KEEPALIVE", "5"))
# Recycle workers now and then so that a slow leak can never grow without bound.
max_requests = int(os.environ.get("OME_RANKER_MAX_REQUESTS", "10000"))
max_requests_jitter = 1000
# The application logs one structured line per request; gunicorn's access log is off.
accesslog = None
errorlog = "-"
loglevel = os.environ.get("OME_RANKER_LOG_LEVEL", "info").lower()
# The app is built in each worker (never before the fork), so every worker
# gets its own Redis connection pool.
preload_app = False
