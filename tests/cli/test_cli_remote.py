"""``--server``: the same commands against a real gunicorn (config/gunicorn.conf.py), answering
byte for byte what the in-process API answers; ``push`` to stored catalogs with ``If-Match``;
a service that cannot be used exits 3 with one line."""

from __future__ import annotations

import json
import shutil
import socket
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml

from app.cli.placement_report import placement_lines
from tests.builders import entry, isvc_doc, runtime_doc, serving_runtime, token_file
from tests.cli.support import ACCELERATORS, SEED, invoke, line_of, write_yaml
from tests.servers import Service, free_port

pytestmark = pytest.mark.gunicorn  # a real server per module or test

SEED_MODEL = "llama-3-2-3b-instruct"
SEED_TABLE = (SEED.parent / "seed_example.txt").read_text()


def url(server: Service) -> str:
    return f"http://127.0.0.1:{server.port}"


def both(server: Service, *args: str, **kwargs):
    """The command in-process and against the server."""
    return invoke(*args, **kwargs), invoke(*args, "--server", url(server), **kwargs)


@pytest.mark.parametrize(
    "args",
    [
        ("select", "-f", str(SEED)),
        ("select", "-f", str(SEED), "-o", "json"),
        ("select", "-f", str(SEED), "-o", "yaml"),
        ("select", "-f", str(SEED), "--expect", "vllm-llama"),
        ("rank", "-f", str(SEED)),
        ("rank", "-f", str(SEED), "-o", "json"),
        ("rank", "-f", str(SEED), "-o", "yaml"),
        ("rank", "-f", str(SEED), "--namespace", "elsewhere"),
    ],
    ids=lambda args: " ".join(arg for arg in args if arg != str(SEED)),
)
def test_remote_answers_are_the_in_process_ones_byte_for_byte(service, args):
    local, remote = both(service, *args)
    assert remote.stdout_bytes == local.stdout_bytes
    assert remote.stderr == local.stderr
    assert remote.exit_code == local.exit_code


def test_remote_on_a_tree_and_on_refusals(service, tree, tmp_path):
    for args in (
        ("select", "-R", "-f", str(tree), "-o", "json"),
        ("rank", "-R", "-f", str(tree), "--model", "qwen"),
        ("select", "-f", str(tree)),  # no runtime: exit 1
        ("selections", "-R", "-f", str(tree)),
        ("lint", "-R", "-f", str(tree), "--severity", "info"),
    ):
        local, remote = both(service, *args)
        assert (remote.stdout_bytes, remote.stderr) == (local.stdout_bytes, local.stderr), args
        assert remote.exit_code == local.exit_code, args
    broken = tmp_path / "broken.yaml"
    broken.write_text(SEED.read_text().replace("priority: 2", "priority: 0"))
    local, remote = both(service, "select", "-f", str(broken))
    assert remote.exit_code == local.exit_code == 2
    assert remote.stderr == local.stderr
    assert f"{broken}:{line_of(broken, 'name: vllm-llama') - 3}: runtimes[" in remote.stderr


def test_remote_placement_is_the_in_process_one(service):
    for args in (
        ("select", "-f", str(ACCELERATORS)),
        ("select", "-f", str(ACCELERATORS), "--expect-class", "nvidia-h200"),
        ("rank", "-f", str(ACCELERATORS), "--expect-class", "decoder=nvidia-h100"),
    ):
        local, remote = both(service, *args)
        assert (remote.stdout_bytes, remote.stderr) == (local.stdout_bytes, local.stderr), args
        assert remote.exit_code == local.exit_code, args
    assert "engine: nvidia-h100 (from spec.acceleratorSelector.policy" in remote.stdout


def test_a_catalogs_placement_is_printed_as_it_answers(service):
    """Asked by name, a stored catalog's answer carries placement too, and the pin reads it."""
    server = ("--server", url(service))
    pushed = invoke("push", "gpus", "-f", str(ACCELERATORS), "--create", *server)
    assert pushed.exit_code == 0, pushed.stderr
    question = ("--cluster", "gpus", "--inference-service", "llama-demo/llama-3-3-70b", *server)
    answer = json.loads(invoke("select", *question, "-o", "json").stdout)
    lines = placement_lines(answer["placement"])
    assert lines[0].startswith("engine: ")
    shown = invoke("select", *question)
    assert shown.stdout.split("\n\n", 1)[1].splitlines() == lines
    engine = answer["placement"]["engine"]
    certain = engine["known"] and engine["acceleratorClass"] == "nvidia-h100"
    pinned = invoke("select", *question, "--expect-class", "nvidia-h100")
    assert pinned.exit_code == (0 if certain else 4), pinned.stderr


def test_push_creates_the_cluster_then_asks_by_name(service, tmp_path):
    missing = invoke("push", "east", "-f", str(SEED), "--server", url(service))
    assert missing.exit_code == 2
    assert missing.stderr == "error: the service has no cluster east: add --create to create it\n"

    pushed = invoke("push", "east", "-f", str(SEED), "--create", "--server", url(service))
    assert pushed.exit_code == 0, pushed.stderr
    assert pushed.stdout.splitlines()[0] == "cluster east: 5 objects stored, generation 2"
    assert "  ClusterServingRuntime: 3" in pushed.stdout.splitlines()

    by_name = invoke(
        "rank", "--cluster", "east", "--model", SEED_MODEL, "--namespace", "llama-demo",
        "--server", url(service),
    )  # fmt: skip
    assert (by_name.exit_code, by_name.stdout) == (0, SEED_TABLE)

    # "My manifests against prod": team-llama disabled in the files, laid over the catalog.
    disabled = serving_runtime("team-llama", entry(), namespace="llama-demo", disabled=True)
    change = write_yaml(tmp_path / "change.yaml", disabled)
    overlaid = invoke(
        "select", "--cluster", "east", "-f", str(change), "--model", SEED_MODEL,
        "--namespace", "llama-demo", "--server", url(service), "-o", "json",
    )  # fmt: skip
    assert overlaid.exit_code == 0, overlaid.stderr
    assert json.loads(overlaid.stdout)["selected"]["name"] == "vllm-llama"

    selections = invoke("selections", "--cluster", "east", "--server", url(service))
    assert selections.exit_code == 0
    assert selections.stdout.split()[:6] == [
        "NAMESPACE", "INFERENCESERVICE", "MODEL", "RUNTIME", "SCOPE", "MESSAGE"
    ]  # fmt: skip


def test_a_model_asked_by_name_in_another_namespace_says_where_it_is(service):
    server = ("--server", url(service))
    assert invoke("push", "where", "-f", str(SEED), "--create", *server).exit_code == 0
    result = invoke("select", "--cluster", "where", "--model", SEED_MODEL, *server)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: No BaseModel or ClusterBaseModel with the name: {SEED_MODEL}\n"
        "  not in namespace default; found in llama-demo: ask with --namespace llama-demo\n"
    )


def test_a_stale_generation_is_not_overwritten(service):
    created = invoke("push", "west", "-f", str(SEED), "--create", "--server", url(service))
    assert created.exit_code == 0
    status, _, body = service.request("GET", "/v1/clusters/west")
    read = json.loads(body)["generation"]
    # Another writer in between: the catalog moves on.
    status, _, _ = service.request(
        "PUT",
        "/v1/clusters/west/objects?allowEmpty=true",
        b"[]",
        {"Content-Type": "application/json"},
    )
    assert status == 200
    stale = invoke(
        "push", "west", "-f", str(SEED), "--if-match", str(read), "--server", url(service)
    )
    assert stale.exit_code == 1
    assert stale.stderr == (
        f"error: catalog west changed while pushing (generation {read + 1}); not overwritten\n"
    )
    counts = json.loads(service.request("GET", "/v1/clusters/west")[2])["counts"]
    assert sum(counts.values()) == 0  # the other writer's catalog stands
    fresh = invoke("push", "west", "-f", str(SEED), "--server", url(service), "-o", "json")
    assert fresh.exit_code == 0
    assert json.loads(fresh.stdout)["generation"] == read + 2


def test_push_of_an_invalid_object_names_it(service, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(SEED.read_text().replace("priority: 3", "priority: 0", 1))
    invoke("push", "south", "-f", str(SEED), "--create", "--server", url(service))
    result = invoke("push", "south", "-f", str(bad), "--server", url(service))
    assert result.exit_code == 2
    start = line_of(bad, "name: srt-llama-small") - 3
    assert result.stderr.splitlines() == [
        "error: invalid document: document 4.spec.supportedModelFormats[0].priority: "
        "Must be at least 1.",
        f"  {bad}:{start}: document 4.spec.supportedModelFormats[0].priority: Must be at least 1.",
    ]


def test_a_server_that_is_down_exits_3():
    port = free_port()
    result = invoke("select", "-f", str(SEED), "--server", f"http://127.0.0.1:{port}")
    assert result.exit_code == 3
    assert result.stderr == f"error: cannot reach http://127.0.0.1:{port}: Connection refused\n"


def test_a_server_that_does_not_answer_times_out_exit_3():
    with socket.create_server(("127.0.0.1", 0)) as silent:  # listens, never answers
        port = silent.getsockname()[1]
        result = invoke(
            "select", "-f", str(SEED), "--server", f"http://127.0.0.1:{port}", "--timeout", "0.3"
        )
    assert result.exit_code == 3
    assert result.stderr == f"error: cannot reach http://127.0.0.1:{port}: timed out\n"


def test_tokens(start_service, tmp_path):
    secrets = {"sync": "sync-secret", "reader": "read-secret"}
    tokens = token_file(
        tmp_path / "tokens.yaml",
        {"name": "sync", "secret": secrets["sync"], "write": ["*"]},
        {"name": "reader", "secret": secrets["reader"], "read": ["north"]},
    )
    server = start_service(
        OME_RANKER_TOKENS_FILE=tokens,
        OME_RANKER_STORE_PATH=str(tmp_path / "catalogs.sqlite3"),
        OME_RANKER_WORKERS="1",
    )
    push = ("push", "north", "-f", str(SEED), "--create", "--server", url(server))
    anonymous = invoke(*push)
    assert anonymous.exit_code == 3
    assert anonymous.stderr == (
        f"error: {url(server)}: GET /v1/clusters/north: 401 Unauthorized: "
        "no token was sent: send Authorization: Bearer <token>\n"
        "  a token is given with --token TOKEN, --token-file PATH or OME_RANKER_TOKEN\n"
    )
    unknown = invoke(*push, "--token", "not-a-token")
    assert unknown.exit_code == 3
    assert unknown.stderr == (
        f"error: {url(server)}: GET /v1/clusters/north: 401 Unauthorized: "
        "the token is not one this service knows\n"
        "  a token is given with --token TOKEN, --token-file PATH or OME_RANKER_TOKEN\n"
    )
    reader = invoke(*push, env={"OME_RANKER_TOKEN": secrets["reader"]})
    assert reader.exit_code == 3
    assert "403 Forbidden: token reader may not write cluster north" in reader.stderr
    assert invoke(*push, "--token", secrets["sync"]).exit_code == 0
    (tmp_path / "sync.secret").write_text(secrets["sync"])
    from_file = invoke(*push, "--token-file", str(tmp_path / "sync.secret"))
    assert (from_file.exit_code, from_file.stderr) == (0, "")
    asked = invoke(
        "select", "--cluster", "north", "--model", SEED_MODEL, "--namespace", "llama-demo",
        "--server", url(server), "--token", secrets["reader"],
    )  # fmt: skip
    assert asked.exit_code == 0, asked.stderr
    # The stateless endpoints stay open: no token needed.
    assert invoke("select", "-f", str(SEED), "--server", url(server)).exit_code == 0


class _Answers(BaseHTTPRequestHandler):
    """A server that answers every request the same way (a broken proxy, a moved service)."""

    status, body, headers_to_send = 503, b"", {}

    def _answer(self) -> None:
        self.send_response(self.status)
        for name, value in self.headers_to_send.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    do_GET = do_POST = do_PUT = _answer

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def answering():
    servers = []

    def start(status: int, body: bytes = b"", tls=None, **headers: str) -> str:
        handler = type(
            "Handler", (_Answers,), {"status": status, "body": body, "headers_to_send": headers}
        )
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            server.socket = context.wrap_socket(server.socket, server_side=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        scheme = "http" if tls is None else "https"
        return f"{scheme}://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_5xx_and_redirects_exit_3(answering):
    error = b'{"error":{"code":"StoreUnavailable","message":"the store cannot be reached"}}'
    down = answering(503, error, **{"Content-Type": "application/json"})
    result = invoke("select", "-f", str(SEED), "--server", down)
    assert result.exit_code == 3
    assert result.stderr == (
        f"error: {down}: POST /v1/select: 503 StoreUnavailable: the store cannot be reached\n"
    )
    proxy = answering(502, b"<html>Bad Gateway</html>")
    result = invoke("select", "-f", str(SEED), "--server", proxy)
    assert (result.exit_code, result.stderr) == (
        3,
        f"error: {proxy}: POST /v1/select: 502 Bad Gateway (not an answer of ome-ranker's)\n",
    )
    gone = answering(404, b'{"error":{"code":"NotFound","message":"no such route"}}')
    result = invoke("lint", "-f", str(SEED), "--server", gone)
    assert (result.exit_code, result.stderr) == (
        3,
        f"error: {gone}: POST /v1/lint: 404 NotFound: no such route\n",
    )
    moved = answering(308, Location="https://elsewhere.example/v1/select")
    result = invoke("select", "-f", str(SEED), "--server", moved)
    assert result.exit_code == 3
    assert result.stderr == (
        f"error: {moved} answered 308, a redirect to https://elsewhere.example/v1/select: "
        "give that URL as --server\n"
    )


def test_an_answer_without_placement_cannot_be_pinned(answering):
    """A service from before rules §20 answers no placement: the pin cannot be checked (exit 3),
    and without a pin nothing is missed."""
    answer = {
        "selected": {"name": "rt", "scope": "Cluster", "score": 1, "explicit": False},
        "message": "Runtime rt will be auto-selected for model m",
        "warnings": [],
    }
    older = answering(200, json.dumps(answer).encode(), **{"Content-Type": "application/json"})
    result = invoke("select", "-f", str(SEED), "--server", older, "--expect-class", "nvidia-h100")
    assert result.exit_code == 3
    assert result.stderr == (
        "error: the service's answer has no placement (a version before rules §20); "
        "--expect-class cannot be checked\n"
    )
    plain = invoke("select", "-f", str(SEED), "--server", older)
    assert (plain.exit_code, len(plain.stdout.splitlines())) == (0, 2)


def test_bad_server_urls_and_ca_files_are_usage_errors(tmp_path):
    result = invoke("select", "-f", str(SEED), "--server", "127.0.0.1:8080")
    assert result.exit_code == 2
    assert "--server must be an http:// or https:// URL" in result.stderr
    missing = invoke("select", "-f", str(SEED), "--ca-file", str(tmp_path / "none.pem"))
    assert missing.exit_code == 2


def test_catalog_lint_impact_and_unknown_names(service, tmp_path):
    chat = isvc_doc("chat", namespace="llama-demo", model={"name": SEED_MODEL})
    catalog = tmp_path / "catalog.yaml"
    catalog.write_text(SEED.read_text() + "---\n" + yaml.safe_dump(chat, sort_keys=False))
    server = ("--server", url(service))
    assert invoke("push", "prod", "-f", str(catalog), "--create", *server).exit_code == 0

    team = "ServingRuntime/llama-demo/team-llama"
    moved = invoke("impact", "--cluster", "prod", "--delete", team, "--fail-on-change", *server)
    assert moved.exit_code == 1
    assert moved.stdout.splitlines()[1].split()[:5] == [
        "llama-demo", "chat", SEED_MODEL, "team-llama", "vllm-llama"
    ]  # fmt: skip
    assert moved.stderr.startswith("1 of 1 InferenceService would change\n")
    same = invoke("impact", "--cluster", "prod", "-f", str(SEED), "--fail-on-change", *server)
    assert (same.exit_code, same.stdout) == (0, "")

    zero = write_yaml(tmp_path / "zero.yaml", runtime_doc("zero", entry(priority=0)))
    linted = invoke("lint", "--cluster", "prod", "-f", str(zero), *server)
    assert linted.exit_code == 1
    # at the refused value's line: the service answers the document, the command its line
    line = line_of(zero, "priority: 0")
    assert linted.stdout.startswith(f"{zero}:{line}: error: ClusterServingRuntime zero: ")

    unknown = invoke("select", "--cluster", "nope", "--model", SEED_MODEL, *server)
    assert (unknown.exit_code, unknown.stderr) == (2, "error: cluster nope not found\n")
    no_isvc = invoke("select", "--cluster", "prod", "--inference-service", "x/y", *server)
    assert no_isvc.exit_code == 2
    assert no_isvc.stderr == "error: InferenceService y not found in namespace x\n"


def _certificate(directory) -> tuple[str, str]:
    certificate, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            "-keyout", str(key), "-out", str(certificate),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    return str(certificate), str(key)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_tls_is_verified_with_the_ca_file(answering, tmp_path):
    certificate, key = _certificate(tmp_path)
    answer = json.dumps(
        {
            "selected": {"name": "rt", "scope": "Cluster", "score": 1, "explicit": False},
            "message": "Runtime rt will be auto-selected for model m",
            "warnings": [],
        }
    ).encode()
    server = answering(200, answer, tls=(certificate, key), **{"Content-Type": "application/json"})
    trusted = invoke("select", "-f", str(SEED), "--server", server, "--ca-file", certificate)
    assert trusted.exit_code == 0, trusted.stderr
    assert trusted.stdout.splitlines()[1].split()[:2] == ["rt", "Cluster"]
    untrusted = invoke("select", "-f", str(SEED), "--server", server)
    assert untrusted.exit_code == 3
    assert untrusted.stderr.startswith(f"error: cannot reach {server}: TLS: ")
    assert "CERTIFICATE_VERIFY_FAILED" in untrusted.stderr


def test_push_and_a_catalogs_impact_name_the_subdirectories_they_did_not_read(service, tree):
    server = ("--server", url(service))
    unread = f"Warning: not read without -R: {tree / 'runtimes'}/ (3 files)\n"
    pushed = invoke("push", "unread", "-f", str(tree), "--create", *server)
    assert pushed.exit_code == 0, pushed.stderr
    assert pushed.stderr == unread
    # app.yaml alone: its model and InferenceService (the Namespace is not stored).
    assert pushed.stdout.splitlines()[0] == "cluster unread: 2 objects stored, generation 2"
    whole = invoke("push", "unread", "-R", "-f", str(tree), *server)
    assert (whole.exit_code, whole.stderr) == (0, "")
    moved = invoke("impact", "--cluster", "unread", "-f", str(tree), *server)
    assert moved.stderr.startswith(unread)
    assert moved.stderr.endswith(" would change (read 3 objects from -f)\n")
