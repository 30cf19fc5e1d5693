"""config/gunicorn.conf.py: its settings, its prometheus hooks, and a real two-worker run."""

from __future__ import annotations

import importlib.util
import logging.config
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from app import auth
from config.settings import SettingsError
from tests.builders import token_file
from tests.paths import ROOT

CONF = ROOT / "config" / "gunicorn.conf.py"
VARIABLE = "PROMETHEUS_MULTIPROC_DIR"


def load_conf():
    spec = importlib.util.spec_from_file_location("gunicorn_conf_under_test", CONF)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def unset_multiproc_dir(monkeypatch):
    """The variable absent now, and absent again after the test even if a hook sets it."""
    monkeypatch.setenv(VARIABLE, "placeholder")
    monkeypatch.delenv(VARIABLE)


def fake_server(*binds: str) -> SimpleNamespace:
    """What the hooks use of gunicorn's arbiter: its log and its (effective) bind addresses."""
    cfg = SimpleNamespace(bind=list(binds or ["127.0.0.1:8080"]))
    return SimpleNamespace(log=logging.getLogger("gunicorn.error"), cfg=cfg)


def test_settings_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("OME_RANKER_WORKERS", "3")
    monkeypatch.setenv("OME_RANKER_BIND", "0.0.0.0:9999")
    monkeypatch.setenv("OME_RANKER_LOG_LEVEL", "warning")
    monkeypatch.delenv("OME_RANKER_OPS_BIND", raising=False)
    conf = load_conf()
    assert (conf.workers, conf.bind, conf.loglevel) == (3, ["0.0.0.0:9999"], "warning")
    assert conf.accesslog is None  # the app logs one JSON line per request instead
    assert conf.preload_app is False
    assert conf.control_socket_disable is True


def test_the_operations_listener_is_bound_beside_the_api(monkeypatch):
    monkeypatch.setenv("OME_RANKER_BIND", "0.0.0.0:8080")
    monkeypatch.setenv("OME_RANKER_OPS_BIND", "0.0.0.0:9090")
    assert load_conf().bind == ["0.0.0.0:8080", "0.0.0.0:9090"]


@pytest.mark.parametrize("value", ["9090", "unix:/tmp/ops.sock", "host:port", "0.0.0.0:70000"])
def test_the_operations_listener_is_host_and_port(monkeypatch, value):
    monkeypatch.setenv("OME_RANKER_OPS_BIND", value)
    with pytest.raises(SettingsError, match="OME_RANKER_OPS_BIND must be HOST:PORT"):
        load_conf()


def test_the_operations_listener_is_not_the_api_listener(monkeypatch):
    monkeypatch.setenv("OME_RANKER_BIND", "0.0.0.0:8080")
    monkeypatch.setenv("OME_RANKER_OPS_BIND", "0.0.0.0:8080")
    with pytest.raises(SettingsError, match="must differ from OME_RANKER_BIND"):
        load_conf()


def test_open_access_is_not_refused_for_the_operations_listener(monkeypatch, unset_multiproc_dir):
    """It serves no catalog: a loopback API with OME_RANKER_AUTH=none may expose its probes."""
    monkeypatch.setenv("OME_RANKER_AUTH", "none")
    monkeypatch.delenv("OME_RANKER_TOKENS_FILE", raising=False)
    monkeypatch.setenv("OME_RANKER_BIND", "127.0.0.1:8080")
    monkeypatch.setenv("OME_RANKER_OPS_BIND", "0.0.0.0:9090")
    conf = load_conf()
    conf.on_starting(fake_server(*conf.bind))
    conf.on_exit(fake_server())


def test_the_worker_model(monkeypatch):
    for variable in ("OME_RANKER_THREADS", "OME_RANKER_DRAIN_SECONDS", "OME_RANKER_KEEPALIVE"):
        monkeypatch.delenv(variable, raising=False)
    conf = load_conf()
    assert conf.worker_class == "app.worker.RankerWorker"
    assert (conf.threads, conf.worker_connections, conf.keepalive) == (4, 1000, 5)
    # The master waits for the drain and then for the workers to finish.
    assert conf.graceful_timeout == 5 + 20
    monkeypatch.setenv("OME_RANKER_DRAIN_SECONDS", "0")
    monkeypatch.setenv("OME_RANKER_GRACEFUL_TIMEOUT", "7")
    monkeypatch.setenv("OME_RANKER_THREADS", "8")
    conf = load_conf()
    assert (conf.graceful_timeout, conf.threads) == (7, 8)


def test_recycling_and_its_jitter_come_from_the_environment(monkeypatch):
    for variable in ("OME_RANKER_MAX_REQUESTS", "OME_RANKER_MAX_REQUESTS_JITTER"):
        monkeypatch.delenv(variable, raising=False)
    conf = load_conf()
    assert (conf.max_requests, conf.max_requests_jitter) == (100_000, 10_000)
    monkeypatch.setenv("OME_RANKER_MAX_REQUESTS", "300")
    monkeypatch.setenv("OME_RANKER_MAX_REQUESTS_JITTER", "0")
    conf = load_conf()
    assert (conf.max_requests, conf.max_requests_jitter) == (300, 0)


def test_the_worker_class_loads_in_the_master_without_metrics():
    """gunicorn imports the worker class in the master before on_starting sets
    PROMETHEUS_MULTIPROC_DIR; prometheus_client must not be imported by then."""
    code = (
        "import sys; from gunicorn.util import load_class; "
        "load_class('app.worker.RankerWorker'); "
        "assert 'prometheus_client' not in sys.modules, 'imported'"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def test_default_workers_follow_the_usable_cpus(monkeypatch):
    monkeypatch.delenv("OME_RANKER_WORKERS", raising=False)
    conf = load_conf()
    assert conf.workers == conf.available_cpus() + 1
    assert 1 <= conf.available_cpus() <= len(os.sched_getaffinity(0))


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("OME_RANKER_WORKERS", "many"),
        ("OME_RANKER_WORKERS", "0"),
        ("OME_RANKER_LOG_LEVEL", "x"),
        ("OME_RANKER_THREADS", "0"),
        ("OME_RANKER_DRAIN_SECONDS", "-1"),
        ("OME_RANKER_CLIENT_TIMEOUT", "soon"),
        ("OME_RANKER_REQUEST_DEADLINE", "29"),
        ("OME_RANKER_CACHE_SECRET", "too short"),
    ],
)
def test_a_bad_value_names_the_variable(monkeypatch, variable, value):
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError, match=variable):
        load_conf()


def test_the_log_config_resolves():
    config = load_conf().logconfig_dict
    handler = logging.config.DictConfigurator(config).resolve(config["handlers"]["json"]["class"])
    assert handler.__name__ == "StderrHandler"


def test_on_starting_makes_one_cache_secret_for_every_worker(monkeypatch, caplog):
    monkeypatch.setenv(VARIABLE, "placeholder")
    monkeypatch.setenv("OME_RANKER_CACHE_SECRET", "placeholder")
    monkeypatch.delenv("OME_RANKER_CACHE_SECRET")
    monkeypatch.setenv("REDIS_URL", "redis://cache:6379/0")
    conf = load_conf()
    conf.on_starting(fake_server())
    made = os.environ["OME_RANKER_CACHE_SECRET"]
    assert len(bytes.fromhex(made)) == 32  # inherited by the workers forked after this
    assert "OME_RANKER_CACHE_SECRET is unset" in caplog.text
    conf.on_starting(fake_server())  # a given (or already made) secret is kept
    assert os.environ["OME_RANKER_CACHE_SECRET"] == made


def test_on_starting_makes_a_fresh_directory_and_on_exit_removes_it(unset_multiproc_dir):
    conf = load_conf()
    conf.on_starting(fake_server())
    made = Path(os.environ[VARIABLE])
    assert made.is_dir()
    conf.on_exit(fake_server())
    assert not made.exists()


def test_on_starting_empties_a_given_directory_of_old_counts(monkeypatch, tmp_path):
    given = tmp_path / "metrics"
    given.mkdir()
    (given / "counter_123.db").write_bytes(b"old")
    (given / "keep.txt").write_text("not ours")
    monkeypatch.setenv(VARIABLE, str(given))
    conf = load_conf()
    conf.on_starting(fake_server())
    assert sorted(p.name for p in given.iterdir()) == ["keep.txt"]
    conf.on_exit(fake_server())
    assert given.is_dir()  # not ours to remove


def test_on_starting_creates_a_given_directory(monkeypatch, tmp_path):
    monkeypatch.setenv(VARIABLE, str(tmp_path / "new" / "metrics"))
    load_conf().on_starting(fake_server())
    assert (tmp_path / "new" / "metrics").is_dir()


def test_child_exit_marks_the_worker_dead(monkeypatch, tmp_path):
    monkeypatch.setenv(VARIABLE, str(tmp_path))
    (tmp_path / "gauge_livesum_4242.db").write_bytes(b"")
    (tmp_path / "counter_4242.db").write_bytes(b"")
    load_conf().child_exit(fake_server(), SimpleNamespace(pid=4242))
    assert [p.name for p in tmp_path.iterdir()] == ["counter_4242.db"]  # counts are kept


def free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return probe.getsockname()[1]


def test_two_real_workers_add_up_in_metrics(start_service, tmp_path):
    """gunicorn with the shipped config and two workers: /metrics counts every request,
    whichever worker answered it."""
    metrics_dir = tmp_path / "metrics"
    server = start_service(OME_RANKER_WORKERS="2", **{VARIABLE: str(metrics_dir)})
    for _ in range(20):
        assert server.request("GET", "/readyz")[0] == 200
    status, _, body = server.request("GET", "/metrics")
    assert status == 200
    assert server.stop() == 0
    readyz = 'ome_ranker_http_requests_total{endpoint="/readyz",method="GET",status="200"}'
    (line,) = [line for line in body.decode().splitlines() if line.startswith(readyz)]
    assert float(line.split()[-1]) == 20
    workers = {path.name.rsplit("_", 1)[1] for path in metrics_dir.glob("counter_*.db")}
    assert len(workers) == 2
    # gunicorn's own lines, as JSON
    assert any(line["msg"].startswith("Booting worker") for line in server.log_lines())


def test_the_logger_builds_no_access_lines(capsys):
    """gunicorn's own logger counts the access log as on whenever logconfig_dict is set."""
    from gunicorn.config import Config as GunicornConfig
    from gunicorn.glogging import Logger

    conf = load_conf()
    cfg = GunicornConfig()
    cfg.set("logconfig_dict", conf.logconfig_dict)
    cfg.set("accesslog", conf.accesslog)
    # Instances without setup(), which would reconfigure this process's logging.
    stock = object.__new__(Logger)
    stock.cfg = cfg
    assert stock.access_log_enabled  # what the class is for
    logger = object.__new__(conf.logger_class)
    logger.cfg = cfg
    assert not logger.access_log_enabled
    response = SimpleNamespace(status="200 OK", headers=[], sent=2)
    request = SimpleNamespace(headers=[], method="GET", path="/healthz", query="", version=(1, 1))
    logger.access(response, request, {"REMOTE_ADDR": "127.0.0.1"}, 0.001)
    assert capsys.readouterr() == ("", "")


def test_on_starting_refuses_open_access_on_an_address_others_reach(
    monkeypatch, caplog, unset_multiproc_dir
):
    """Every address gunicorn will listen on counts, its own ``-b`` included."""
    monkeypatch.setenv("OME_RANKER_AUTH", "none")
    monkeypatch.delenv("OME_RANKER_TOKENS_FILE", raising=False)
    conf = load_conf()
    with pytest.raises(SystemExit) as stopped:
        conf.on_starting(fake_server("127.0.0.1:8080", "0.0.0.0:8080"))
    assert stopped.value.code == 1
    assert "OME_RANKER_AUTH=none (no access control) is allowed only on a loopback" in caplog.text
    assert VARIABLE not in os.environ  # stopped before making anything
    conf.on_starting(fake_server("127.0.0.1:8080", "[::1]:8080", "unix:/tmp/ome-ranker.sock"))
    conf.on_exit(fake_server())


def test_the_master_reads_the_token_file_and_refreshes_it_before_each_fork(
    monkeypatch, tmp_path, unset_multiproc_dir
):
    monkeypatch.setattr(auth, "_master_copy", None)
    monkeypatch.delenv("OME_RANKER_AUTH", raising=False)
    path = token_file(tmp_path / "tokens.yaml", {"name": "first", "secret": "first-secret"})
    monkeypatch.setenv("OME_RANKER_TOKENS_FILE", path)
    conf = load_conf()
    shared = set(Path(tempfile.gettempdir()).glob("ome-ranker-tokens-*"))
    conf.on_starting(fake_server())
    master = auth.master_copy()
    assert master.current().identify("Bearer first-secret").name == "first"
    (made,) = set(Path(tempfile.gettempdir()).glob("ome-ranker-tokens-*")) - shared
    token_file(tmp_path / "tokens.yaml", {"name": "second", "secret": "second-secret"})
    conf.pre_fork(fake_server(), None)  # the worker forked next starts with this
    assert master.current().identify("Bearer second-secret").name == "second"
    conf.on_exit(fake_server())
    assert not made.exists()


def test_on_starting_stops_at_a_broken_token_file(
    monkeypatch, tmp_path, caplog, unset_multiproc_dir
):
    monkeypatch.setattr(auth, "_master_copy", None)
    monkeypatch.delenv("OME_RANKER_AUTH", raising=False)
    (tmp_path / "tokens.yaml").write_text("tokens: [\n")
    monkeypatch.setenv("OME_RANKER_TOKENS_FILE", str(tmp_path / "tokens.yaml"))
    with pytest.raises(SystemExit):
        load_conf().on_starting(fake_server())
    assert "OME_RANKER_TOKENS_FILE" in caplog.text and "is not valid YAML" in caplog.text


def test_each_worker_caps_its_malloc_arenas(monkeypatch):
    """glibc's M_ARENA_MAX, through mallopt, in the forked worker before its threads start."""
    conf = load_conf()
    calls = []

    class Libc:
        def mallopt(self, parameter, value):
            calls.append((parameter, value))
            return 1

    monkeypatch.setattr(conf.ctypes, "CDLL", lambda name: Libc())
    conf.post_fork(fake_server(), SimpleNamespace(pid=1))
    assert calls == [(-8, conf.MALLOC_ARENAS)]


@pytest.mark.parametrize("family", [socket.AF_INET, socket.AF_INET6], ids=["ipv4", "ipv6"])
def test_on_starting_names_the_setting_of_an_address_in_use(
    monkeypatch, caplog, unset_multiproc_dir, family
):
    """gunicorn would try five times, a second apart, then say "Can't connect to …"."""
    host = "127.0.0.1" if family == socket.AF_INET else "::1"
    monkeypatch.delenv("OME_RANKER_OPS_BIND", raising=False)
    for name in ("GUNICORN_FD", "LISTEN_FDS"):
        monkeypatch.delenv(name, raising=False)
    try:
        taken = socket.create_server((host, 0), family=family)
    except OSError:
        pytest.skip(f"no {host} on this machine")
    with taken:
        port = taken.getsockname()[1]
        address = f"{host}:{port}" if family == socket.AF_INET else f"[{host}]:{port}"
        other = f"{host}:{port + 1}" if family == socket.AF_INET else f"[{host}]:{port + 1}"
        monkeypatch.setenv("OME_RANKER_BIND", address)
        conf = load_conf()
        with pytest.raises(SystemExit) as stopped:
            conf.on_starting(fake_server(address))
        assert stopped.value.code == 1
        assert (
            f"{address} is in use (another process listens there): set OME_RANKER_BIND to "
            f"another HOST:PORT (OME_RANKER_BIND={other} make run, or ome-ranker serve --bind "
            f"{other})"
        ) in caplog.text
        assert VARIABLE not in os.environ  # stopped before making anything
        # Handed its listeners (a re-executed master, systemd), the master binds nothing.
        monkeypatch.setenv("GUNICORN_FD", "3")
        conf.on_starting(fake_server(address))
        conf.on_exit(fake_server())


def test_the_operations_listener_in_use_names_its_own_setting(
    monkeypatch, caplog, unset_multiproc_dir
):
    for name in ("GUNICORN_FD", "LISTEN_FDS"):
        monkeypatch.delenv(name, raising=False)
    with socket.create_server(("127.0.0.1", 0)) as taken:
        ops = f"127.0.0.1:{taken.getsockname()[1]}"
        monkeypatch.setenv("OME_RANKER_BIND", f"127.0.0.1:{free_port()}")
        monkeypatch.setenv("OME_RANKER_OPS_BIND", ops)
        conf = load_conf()
        with pytest.raises(SystemExit):
            conf.on_starting(fake_server(*conf.bind))
    assert f"{ops} is in use (another process listens there): set OME_RANKER_OPS_BIND" in (
        caplog.text
    )


@pytest.mark.gunicorn
def test_a_real_start_on_an_address_in_use_stops_at_once_naming_the_setting(tmp_path):
    """As `make run` starts it, with something already on the port: one line, not five tries."""
    with socket.create_server(("127.0.0.1", 0)) as taken:
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        environment = {
            **os.environ,
            "OME_RANKER_BIND": address,
            "OME_RANKER_AUTH": "none",
            "OME_RANKER_TOKENS_FILE": "",
            "OME_RANKER_STORE_PATH": str(tmp_path / "catalogs.sqlite3"),
            VARIABLE: str(tmp_path / "metrics"),
        }
        command = [sys.executable, "-m", "gunicorn", "--config", str(CONF), "app:create_app()"]
        ended = subprocess.run(
            command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60
        )
    assert ended.returncode == 1
    assert f"{address} is in use (another process listens there): set OME_RANKER_BIND" in (
        ended.stderr
    )
    assert "Retrying" not in ended.stderr and "Can't connect" not in ended.stderr
