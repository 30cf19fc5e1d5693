"""How close a body's memory reservation is to what its request really takes, shape by shape.

    .venv/bin/python -m bench.memory_shapes            # every shape, ~1 min
    .venv/bin/python -m bench.memory_shapes strings    # the shapes whose name holds "strings"

app/reading/sizing.py reserves, from a body's bytes alone, what the body can take through its
request; docs/operations.md ("Memory") adds the reservations up for a pod. This measures each
shape in a fresh process (python -m bench.memory_shapes --one NAME): the app is built, the body
made, the kernel's peak-RSS mark reset (/proc/self/clear_refs), then one request goes through the
WSGI app with the production settings but a bound high enough to let every shape in; the peak
resident set over the one before the request is set beside the reservation. The body itself
(made before the mark is reset) is not counted; the WSGI input's copy of it is.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import orjson
import yaml

from .manifests import encoded_body
from .report import Table

ROOT = Path(__file__).resolve().parent.parent
MIB = 1024 * 1024
SIZE = 4 * MIB  # of the synthetic shapes
MODEL = {
    "apiVersion": "ome.io/v1beta1",
    "kind": "BaseModel",
    "metadata": {"name": "m", "namespace": "default"},
    "spec": {"modelFormat": {"name": "safetensors"}},
}


def _rank(model: dict | None = None, runtimes: list | None = None) -> bytes:
    return json.dumps({"model": model or MODEL, "runtimes": runtimes or []}).encode()


def _spec(**fields) -> dict:
    return {**MODEL, "spec": {**MODEL["spec"], **fields}}


def _runtime(name: str, entries: list) -> dict:
    return {
        "apiVersion": "ome.io/v1beta1",
        "kind": "ClusterServingRuntime",
        "metadata": {"name": name},
        "spec": {"supportedModelFormats": entries},
    }


def _bench_yaml(runtimes: int, prefix: bytes = b"") -> bytes:
    value = orjson.loads(encoded_body(runtimes))
    return prefix + yaml.safe_dump_all([value["model"], *value["runtimes"]]).encode()


# name -> (path, content type, body maker)
SHAPES: dict[str, tuple[str, str, Callable[[], bytes]]] = {
    "real runtimes, 1 000, JSON": ("/v1/rank", "json", lambda: encoded_body(1000)),
    "real runtimes, 5 000, JSON": ("/v1/rank", "json", lambda: encoded_body(5000)),
    "real runtimes, 1 000, YAML": ("/v1/rank", "yaml", lambda: _bench_yaml(1000)),
    "real runtimes, 1 000, YAML with an anchor (PyYAML path)": (
        "/v1/rank",
        "yaml",
        lambda: _bench_yaml(1000, b"x: &a 1\ny: *a\n---\n"),
    ),
    "tiny runtimes, 10 000": (
        "/v1/rank",
        "json",
        lambda: _rank(
            None,
            [_runtime(f"r{i}", [{"modelFormat": {"name": "safetensors"}}]) for i in range(9999)],
        ),
    ),
    "entries of one runtime": (
        "/v1/rank",
        "json",
        lambda: _rank(
            None, [_runtime("r", [{"name": "a", "modelFormat": {"name": "x"}}] * (SIZE // 42))]
        ),
    ),
    "invalid entries": (
        "/v1/rank",
        "json",
        lambda: _rank(None, [_runtime("r", [{"priority": "x"}] * (SIZE // 17))]),
    ),
    "one-key objects in a spec": (
        "/v1/rank",
        "json",
        lambda: _rank(_spec(junk=[{"a": {}}] * (SIZE // 9))),
    ),
    "short strings in a spec": (
        "/v1/rank",
        "json",
        lambda: _rank(_spec(junk=["ab"] * (SIZE // 5))),
    ),
    "objects of another kind (lint)": (
        "/v1/lint",
        "json",
        lambda: json.dumps([{"kind": "ConfigMap", "metadata": {"name": "c"}}] * 60_000).encode(),
    ),
    "YAML block sequence": (
        "/v1/rank",
        "yaml",
        lambda: b"kind: BaseModel\nmetadata: {name: m}\nspec:\n  x:\n" + b"  - 1\n" * 60_000,
    ),
    "YAML flow sequence": (
        "/v1/rank",
        "yaml",
        lambda: b"kind: BaseModel\nmetadata: {name: m}\nspec: {x: [" + b"1," * 60_000 + b"1]}\n",
    ),
}


def _status(field: str) -> int:
    with open("/proc/self/status") as status:
        return int(re.search(rf"^{field}:\s+(\d+) kB", status.read(), re.M)[1]) * 1024


def _one(name: str) -> dict:
    from werkzeug.test import EnvironBuilder

    from app.reading.sizing import body_memory

    from .wsgi import build_app, environment, quiet_logs

    path, media, make = SHAPES[name]
    with environment(
        {
            "OME_RANKER_MAX_REQUEST_MEMORY": str(4096 * MIB),
            "OME_RANKER_WORKER_MEMORY": str(4096 * MIB),
        }
    ):
        app = build_app(redis_url=None, prefix="ome-ranker-bench-shapes:")
    body = make()
    environ = EnvironBuilder(
        path=path,
        method="POST",
        data=body,
        headers={"Content-Type": f"application/{media}", "Cache-Control": "no-cache"},
    ).get_environ()
    statuses: list[str] = []
    before = _status("VmRSS")
    with open("/proc/self/clear_refs", "w") as clear_refs:
        clear_refs.write("5")
    with quiet_logs():
        b"".join(app(environ, lambda status, headers, exc_info=None: statuses.append(status)))
    return {
        "body": len(body),
        "status": statuses[0].split()[0],
        "peak": _status("VmHWM") - before,
        "reserved": body_memory(body, media == "yaml"),
    }


def main(argv: list[str]) -> None:
    if argv[:1] == ["--one"]:
        print(json.dumps(_one(argv[1])))
        return
    names = [name for name in SHAPES if not argv or any(word in name for word in argv)]
    table = Table(
        "Memory: a request's peak resident memory against its reservation",
        ("shape", "body", "status", "peak", "reserved", "peak / reserved"),
    )
    for name in names:
        done = subprocess.run(
            [sys.executable, "-m", "bench.memory_shapes", "--one", name],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            timeout=300,
        )
        row = json.loads(done.stdout.strip().splitlines()[-1])
        table.add(
            name,
            f"{row['body'] / MIB:.1f} MiB",
            row["status"],
            f"{row['peak'] / MIB:.0f} MiB",
            f"{row['reserved'] / MIB:.0f} MiB",
            f"{row['peak'] / row['reserved']:.2f}",
        )
    print(table.markdown())


if __name__ == "__main__":
    main(sys.argv[1:])
