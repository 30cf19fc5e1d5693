"""``python -m bench.yaml_cost``: what a YAML body costs to load, by its size.

For bodies shaped to cost the most per byte (flow and block sequences and nested mappings near
the stream's node bound, each as the fast path reads it and as only the PyYAML path can: with an
anchor, a YAML 1.1 scalar or a flow collection over several lines), for bodies at the PyYAML
path's budget, and for real manifests on either path, it measures the CPU time
(``time.process_time``) of ``yaml_loader.load_documents``: the median of ``--runs`` runs, and per
MiB of body, with the answer (how many documents, or the refusal).

The targets: the flow sequence of 999 001 integers under a BaseModel's ``spec`` answered or
refused within 2 s, four of them in one stream too, and no body costing more than ~1 s per MiB.
Of the service it imports ``load_documents`` alone, so it measures an older checkout as well: run
it from a directory where ``app`` is that checkout's and ``bench`` this one's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import yaml

from app.errors import MalformedRequest
from app.reading.yaml_loader import load_documents

from .manifests import rank_request_body

MIB = 1024 * 1024
ISSUE_TARGET = 2.0  # seconds of CPU for the issue's body, and for four of them
PER_MIB_TARGET = 1.0  # seconds of CPU per MiB, ~

INTEGERS = 999_000
MODEL = b"kind: BaseModel\n"


def flow_integers(count: int = INTEGERS) -> bytes:
    return b"[" + b"1," * count + b"1]"


def issue_body() -> bytes:
    """A flow sequence of 999 001 integers in a flow mapping under a BaseModel's ``spec``."""
    return MODEL + b"spec: {x: " + flow_integers() + b"}\n"


def four_issue_bodies() -> bytes:
    return b"---\n".join([issue_body()] * 4)


def flow_under_spec(anchor: bytes = b"", word: bytes = b"1") -> bytes:
    return MODEL + b"spec:\n  x: " + anchor + b"[" + (word + b",") * INTEGERS + word + b"]\n"


def flow_over_lines(count: int = INTEGERS // 2, pad: bytes = b"") -> bytes:
    """A flow sequence with an entry a line: a body ryml does not read (its indentation)."""
    return MODEL + b"spec:\n  x: [\n" + (b"1," + pad + b"\n") * count + b"1]\n"


def block_sequence(count: int = INTEGERS, anchor: bytes = b"", pad: bytes = b"") -> bytes:
    return MODEL + b"spec:\n  x:" + anchor + b"\n" + (b"  - 1" + pad + b"\n") * count


def nested_maps(count: int = INTEGERS // 5, anchor: bytes = b"", width: int = 0) -> bytes:
    """``count`` mappings of two pairs, each under its own key: six nodes each."""
    items = (f"  k{i}:\n    a: 1\n    b: 2".ljust(width - 1) + "\n" for i in range(count))
    return MODEL + b"spec:" + anchor + b"\n" + "".join(items).encode()


def nested_flow_maps(count: int = INTEGERS // 4) -> bytes:
    return MODEL + b"spec: {" + b", ".join(b"k%d: {a: 1}" % i for i in range(count)) + b"}\n"


def at_budget(mib: int = 2) -> dict[str, Callable[[], bytes]]:
    """Bodies only the PyYAML path reads, holding as many nodes as its budget allows (131 072
    per MiB): the most it is let to cost."""
    lines = mib * MIB // 9
    return {
        "nested maps at the PyYAML path's budget, anchored": lambda: nested_maps(
            mib * MIB // 52, b" &a", 52
        ),
        "flow sequence over lines at the budget": lambda: flow_over_lines(lines, b"      "),
        "block sequence at the budget, anchored": lambda: block_sequence(lines, b" &a", b"   "),
    }


def real_manifests(anchored: bool) -> bytes:
    """bench/manifests.py's model and 1 000 runtimes as one stream, as yaml_decode.py posts them."""
    body = rank_request_body(1_000)
    stream = yaml.safe_dump_all([body["model"], *body["runtimes"]], sort_keys=False).encode()
    return (b"x: &a 1\ny: *a\n---\n" if anchored else b"") + stream


SHAPES: dict[str, Callable[[], bytes]] = {
    "flow sequence of 999 001 integers in a flow mapping under spec": issue_body,
    "four of them in one stream": four_issue_bodies,
    "the flow sequence under spec, block style": flow_under_spec,
    "the flow sequence, anchored": lambda: flow_under_spec(b"&a "),
    "the flow sequence of `yes`": lambda: flow_under_spec(word=b"yes"),
    "flow sequence over lines": flow_over_lines,
    "block sequence": block_sequence,
    "block sequence, anchored": lambda: block_sequence(anchor=b" &a"),
    "nested maps": nested_maps,
    "nested maps, anchored": lambda: nested_maps(anchor=b" &a"),
    "nested flow maps on one line": nested_flow_maps,
    **at_budget(),
    "real manifests, 1 000 runtimes": lambda: real_manifests(False),
    "real manifests, 1 000 runtimes, with an anchor (PyYAML path)": lambda: real_manifests(True),
}


def answer(raw: bytes) -> str:
    try:
        return f"{len(load_documents(raw))} documents"
    except MalformedRequest as refused:
        return f"400: {refused}"[:72]


def cpu_seconds(raw: bytes, runs: int) -> tuple[float, str]:
    samples, outcome = [], ""
    for _ in range(runs):
        started = time.process_time()
        outcome = answer(raw)
        samples.append(time.process_time() - started)
    return statistics.median(samples), outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.yaml_cost", description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="runs per shape, the median (3)")
    parser.add_argument("--only", default="", help="shapes whose name holds this text")
    args = parser.parse_args(argv)
    print("| shape | body | CPU s | s per MiB | answer |")
    print("| --- | --- | --- | --- | --- |")
    seconds: dict[str, float] = {}
    per_mib: list[float] = []
    for name, build in SHAPES.items():
        if args.only not in name:
            continue
        raw = build()
        spent, outcome = cpu_seconds(raw, args.runs)
        seconds[name] = spent
        size = len(raw) / MIB
        per_mib.append(spent / size)
        print(f"| {name} | {size:.1f} MiB | {spent:.2f} | {spent / size:.2f} | {outcome} |")
        sys.stdout.flush()
    issue = [seconds[name] for name in list(SHAPES)[:2] if name in seconds]
    print()
    print(f"- the issue's body and four of them: {', '.join(f'{s:.2f}' for s in issue)} s of CPU")
    print(f"- the most per MiB: {max(per_mib, default=0):.2f} s")
    met = all(s <= ISSUE_TARGET for s in issue)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
