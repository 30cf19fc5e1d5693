"""Real gunicorn servers for the hostile suite: one shared by the quick cases, and a factory for
the cases that need settings of their own or kill and stop them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.servers import Service

# The shared server: a small body limit so that over-limit bodies are quick to send, and a
# worker timeout short enough that anything blocking a worker's loop would show in its log.
SHARED_SETTINGS = {
    "OME_RANKER_MAX_BODY_BYTES": str(1024 * 1024),
    "OME_RANKER_WORKER_TIMEOUT": "10",
    "OME_RANKER_REQUEST_DEADLINE": "5",
}


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    server = Service(tmp_path_factory.mktemp("shared"), **SHARED_SETTINGS).start()
    yield server
    server.stop()
