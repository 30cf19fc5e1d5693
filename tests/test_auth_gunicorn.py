"""SPEC §17 "Safe to share" against a real gunicorn (config/gunicorn.conf.py, two workers): open
access refused where it cannot be meant, and a token file that changes, or breaks, while the
service runs, a worker forked while it is broken included."""

from __future__ import annotations

import json
import os
import signal
import time
import uuid
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.builders import token_file
from tests.servers import Service
from tests.waiting import wait_for

pytestmark = pytest.mark.gunicorn  # a real server per module or test

TIMEOUT = 30  # seconds any one change may take to show; far more than the 5 s promised


class Run(Service):
    """``Service``, remembering how gunicorn exited when it did not start."""

    returncode: int | None = None

    def stop(self, signum: int = signal.SIGTERM, timeout: float = 30) -> int | None:
        returncode = super().stop(signum, timeout)
        if returncode is not None:
            self.returncode = returncode
        return returncode


def replace(path: Path, *names: str, text: str | None = None) -> None:
    """Write the token file as a deployment does, whole at once: tokens ``<name>`` with secret
    ``<name>-secret`` reading every cluster, or ``text``."""
    staged = path.with_name(path.name + ".new")
    if text is None:
        tokens = ({"name": name, "secret": f"{name}-secret", "read": ["*"]} for name in names)
        token_file(staged, *tokens)
    else:
        staged.write_text(text)
    os.replace(staged, path)


def ask(service: Service, name: str) -> tuple[int, int]:
    """``GET /v1/clusters`` with token ``name``: the status, and the worker that answered (its
    request log line)."""
    request_id = uuid.uuid4().hex
    headers = {"Authorization": f"Bearer {name}-secret", "X-Request-ID": request_id}
    status = service.request("GET", "/v1/clusters", headers=headers)[0]
    assert service.wait_for_log(request_id), "no request line"
    (line,) = [
        line
        for line in service.log_lines()
        if line.get("requestId") == request_id and line["logger"] == "app.access"
    ]
    return status, line["pid"]


def until_every_worker(service: Service, workers: set[int], name: str, status: int) -> None:
    """Ask until each of ``workers`` has answered ``status`` to token ``name`` last."""
    latest: dict[int, int] = {}
    deadline = time.monotonic() + TIMEOUT
    while any(latest.get(pid) != status for pid in workers):
        assert time.monotonic() < deadline, f"{name}: wanted {status}, last answers {latest}"
        answer, pid = ask(service, name)
        latest[pid] = answer


def broken_file_logged_by(service: Service) -> set[int]:
    """The processes that logged the token file as broken."""
    lines = service.log_lines()
    return {line["pid"] for line in lines if "is not valid YAML" in line["msg"]}


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"OME_RANKER_AUTH": "none", "OME_RANKER_BIND": "0.0.0.0:{port}"}, "OME_RANKER_AUTH"),
        ({"OME_RANKER_AUTH": "none", "OME_RANKER_TOKENS_FILE": "{tokens}"}, "OME_RANKER_AUTH"),
        ({"OME_RANKER_TOKENS_FILE": "{broken}"}, "OME_RANKER_TOKENS_FILE"),
    ],
    ids=["none-on-every-address", "none-beside-a-token-file", "a-broken-token-file"],
)
def test_the_master_refuses_to_start(tmp_path, settings, named):
    replace(tmp_path / "tokens.yaml", "ci")
    (tmp_path / "broken.yaml").write_text("tokens: [\n")
    service = Run(tmp_path)
    files = {"tokens": tmp_path / "tokens.yaml", "broken": tmp_path / "broken.yaml"}
    for variable, value in settings.items():
        service.environment[variable] = value.format(port=service.port, **files)
    try:
        with pytest.raises(RuntimeError, match="gunicorn did not start"):
            service.start()
    finally:
        service.stop()  # had it started
    assert service.returncode == 1
    log = service.log()
    assert named in log
    assert "Listening at" not in log and "Booting worker" not in log  # refused before either


def test_a_token_file_that_changes_or_breaks_while_the_service_runs(tmp_path):
    tokens = tmp_path / "tokens.yaml"
    replace(tokens, "revoked", "stays")
    service = Service(
        tmp_path,
        OME_RANKER_TOKENS_FILE=str(tokens),
        OME_RANKER_STORE_PATH=str(tmp_path / "catalogs.sqlite3"),
    ).start()
    try:
        wait_for(lambda: len(service.worker_pids()) == 2, "two workers")
        workers = service.worker_pids()
        until_every_worker(service, workers, "revoked", 200)  # each has read the first file
        # Removed: refused by every worker, without a restart.
        replace(tokens, "stays")
        until_every_worker(service, workers, "revoked", 401)
        replace(tokens, "stays", "added")
        until_every_worker(service, workers, "added", 200)
        # Broken: every worker keeps the last good tokens, and says so (once it looks, which a
        # catalog request makes it do).
        replace(tokens, text="tokens:\n  - name: [unclosed\n")

        def every_worker_saw_it() -> bool:
            assert ask(service, "added")[0] == 200  # the last good tokens, meanwhile too
            return workers <= broken_file_logged_by(service)

        wait_for(every_worker_saw_it, "every worker logs the broken file")
        until_every_worker(service, workers, "revoked", 401)
        # A worker forked now starts with the last good tokens, which only the workers read:
        # the master read the file at start, when "revoked" was in it and "added" was not.
        killed = min(workers)
        os.kill(killed, signal.SIGKILL)
        wait_for(lambda: service.worker_pids() - workers, "a new worker")
        (new,) = service.worker_pids() - workers
        until_every_worker(service, {new}, "added", 200)
        until_every_worker(service, {new}, "revoked", 401)
        assert service.process.poll() is None  # the master runs on
        assert new in broken_file_logged_by(service)
        assert not any("revoked-secret" in line["msg"] for line in service.log_lines())
        # Meanwhile every worker is not ready, naming the file; fixed, every one is again.
        assert steadily(service, 503)["tokens"].endswith("stay in force until it is fixed")
        assert gauge(service, "ome_ranker_tokens_file_ok") == 0
        replace(tokens, "stays", "added")
        assert steadily(service, 200)["tokens"] is None
        # Across workers the value set last wins: one that saw the broken file and was not
        # probed since does not hold it at 0.
        assert gauge(service, "ome_ranker_tokens_file_ok") == 1
        # Emptied: every token is refused by every worker, which stays ready.
        replace(tokens, text="# every token revoked\n")
        workers = workers - {killed} | {new}  # the killed one logged no exit
        until_every_worker(service, workers, "stays", 401)
        until_every_worker(service, workers, "added", 401)
        assert steadily(service, 200)["tokens"] is None
        assert gauge(service, "ome_ranker_tokens_in_force") == 0
    finally:
        assert service.stop() == 0


def gauge(service: Service, name: str) -> float:
    """One gauge of ``/metrics``, as Prometheus reads it from all the workers."""
    text = service.request("GET", "/metrics")[2].decode()
    (found,) = [
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == name
    ]
    return found


def steadily(service: Service, status: int, times: int = 20) -> dict:
    """``/readyz``'s body once it has answered ``status`` ``times`` times in a row (probes go
    to any worker; each reads the file again within seconds)."""
    in_a_row, deadline = 0, time.monotonic() + TIMEOUT
    while in_a_row < times:
        assert time.monotonic() < deadline, f"/readyz is not steadily {status}"
        answer, _, body = service.request("GET", "/readyz")
        in_a_row = in_a_row + 1 if answer == status else 0
        time.sleep(0.02)
    return json.loads(body)
