"""ome-ranker's gunicorn worker (``worker_class`` in config/gunicorn.conf.py): see worker.py."""

from .worker import RankerWorker

__all__ = ["RankerWorker"]
