"""``python -m bench.yaml_decode``: what loading a YAML request body costs, against JSON.

For 100 and 1 000 runtimes of ``bench/manifests.py`` (the model and the runtimes as one YAML
stream, as ``kubectl`` users write them, and the same documents as JSON) it times, in the same
interleaved rounds (bench/timing.py: medians after a warm-up):

* ``json.loads`` of the documents as JSON: the least any service does with those bytes;
* the PyYAML path (``pyyaml_reader.pyyaml_documents``): libyaml's event parser with the
  metering composer, as every YAML body was loaded before the fast path;
* ``yaml_loader.load_documents``: the fast path (rapidyaml) with its checks;

then a whole cold ``POST /v1/rank`` (``Cache-Control: no-cache``, in process, as in section 2 of
``python -m bench``) with the stream as ``application/yaml`` against the same documents as the
JSON request body. The product target: the cold YAML request costs at most 2x the JSON one.
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid

import yaml

from app.reading import pyyaml_reader, ryml_reader, yaml_loader

from .manifests import TARGET_NAMESPACE, encoded_body, rank_request_body
from .report import Table
from .timing import Budget, compare, milliseconds, size_label
from .wsgi import BenchError, WsgiCall, build_app, quiet_logs

SIZES = (100, 1_000)
COLD_TARGET = 2.0  # a cold YAML request costs at most this many cold JSON requests


def yaml_stream(runtimes: int) -> bytes:
    body = rank_request_body(runtimes)
    return yaml.safe_dump_all([body["model"], *body["runtimes"]], sort_keys=False).encode()


def json_documents(runtimes: int) -> bytes:
    body = rank_request_body(runtimes)
    return json.dumps([body["model"], *body["runtimes"]], separators=(",", ":")).encode()


def loaders(sizes: tuple[int, ...], budget: Budget) -> Table:
    table = Table(
        "Loading the documents: json.loads, the PyYAML path, the fast path",
        (
            "runtimes",
            "YAML",
            "json.loads ms",
            "PyYAML path ms",
            "fast path ms",
            "fast / json",
            "PyYAML / json",
            "PyYAML / fast",
        ),
    )
    for count in sizes:
        raw_yaml, raw_json = yaml_stream(count), json_documents(count)
        expected = json.loads(raw_json)
        if yaml_loader.load_documents(raw_yaml) != expected:
            raise BenchError(f"the fast path does not give the documents ({count} runtimes)")
        if ryml_reader.fast_documents(raw_yaml) is None:
            raise BenchError(f"the stream of {count} runtimes fell back to the PyYAML path")
        stats = compare(
            {
                "json": lambda raw=raw_json: json.loads(raw),
                "fast": lambda raw=raw_yaml: yaml_loader.load_documents(raw),
            },
            budget,
        )
        # Apart: its garbage (seconds of PyYAML nodes) would land in the others' rounds.
        slow = compare({"pyyaml": lambda raw=raw_yaml: pyyaml_reader.pyyaml_documents(raw)}, budget)
        base, old, new = stats["json"].median, slow["pyyaml"].median, stats["fast"].median
        table.add(
            count,
            size_label(len(raw_yaml)),
            milliseconds(base),
            milliseconds(old),
            milliseconds(new),
            f"{new / base:.2f}",
            f"{old / base:.1f}",
            f"{old / new:.1f}",
        )
    table.notes.append(
        "medians after a warm-up, json.loads and the fast path in interleaved rounds, the PyYAML "
        "path in its own; json.loads reads the same documents as a JSON array"
    )
    return table


def cold_requests(sizes: tuple[int, ...], budget: Budget) -> tuple[Table, dict[int, float]]:
    table = Table(
        "Cold POST /v1/rank (Cache-Control: no-cache, in process): YAML stream vs JSON body",
        ("runtimes", "YAML ms", "JSON ms", "YAML / JSON", f"target <= {COLD_TARGET:g}"),
    )
    app = build_app(redis_url=None, prefix=f"bench-yaml-{uuid.uuid4().hex[:8]}")
    ratios: dict[int, float] = {}
    for count in sizes:
        no_cache = {"Cache-Control": "no-cache"}
        as_yaml = WsgiCall(
            app,
            f"/v1/rank?namespace={TARGET_NAMESPACE}",
            body=yaml_stream(count),
            headers={"Content-Type": "application/yaml", **no_cache},
            expect_cache="bypass",
        )
        as_json = WsgiCall(
            app,
            "/v1/rank",
            body=encoded_body(count),
            headers={"Content-Type": "application/json", **no_cache},
            expect_cache="bypass",
        )
        if json.loads(as_yaml()) != json.loads(as_json()):
            raise BenchError(f"YAML and JSON requests of {count} runtimes answer differently")
        stats = compare({"yaml": as_yaml, "json": as_json}, budget)
        ratios[count] = stats["yaml"].median / stats["json"].median
        table.add(
            count,
            milliseconds(stats["yaml"].median),
            milliseconds(stats["json"].median),
            f"{ratios[count]:.2f}",
            "met" if ratios[count] <= COLD_TARGET else "MISSED",
        )
    table.notes.append(
        "the YAML request passes the namespace as ?namespace=, the JSON body as a field; "
        "both answers are checked equal before timing"
    )
    return table, ratios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.yaml_decode", description=__doc__)
    parser.add_argument("--budget", type=float, default=3.0, help="seconds per comparison (3)")
    parser.add_argument("--runs", type=int, default=5, help="rounds at least per comparison (5)")
    args = parser.parse_args(argv)
    budget = Budget(args.budget, min_runs=args.runs, warmup=1)
    print(loaders(SIZES, budget).markdown(), flush=True)
    with quiet_logs():
        table, ratios = cold_requests(SIZES, budget)
    print(table.markdown(), flush=True)
    return 0 if all(ratio <= COLD_TARGET for ratio in ratios.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
