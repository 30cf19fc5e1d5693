"""Section 5: peak memory of one worker answering one cold request for N runtimes.

Each figure comes from a fresh subprocess (``python -m bench.memory BODY_FILE MODE``), so that
nothing the parent allocated counts: the app is built and the body read first, then one cold
``POST /v1/rank`` runs through the WSGI app (in-process cache, ``Cache-Control: no-cache``).

``rss`` mode resets the kernel's peak-RSS mark (``/proc/self/clear_refs``) just before the
request and reads it (``VmHWM``) after, with the resident set before the request beside it;
``ru_maxrss`` (the whole life's peak, import time included) is reported too.
``tracemalloc`` mode (run separately: tracing slows allocation and adds its own memory) gives
the peak of Python allocations over the whole request, and the peak of each stage run on its
own with the earlier stages' results still alive, to show which stage sets the peak.
"""

from __future__ import annotations

import gc
import json
import re
import resource
import subprocess
import sys
from pathlib import Path

from .report import Table
from .timing import size_label

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 300


def _max_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def _status(field: str) -> int:
    """``VmRSS`` (resident now) or ``VmHWM`` (peak) of this process, in bytes."""
    with open("/proc/self/status") as status:
        return int(re.search(rf"^{field}:\s+(\d+) kB", status.read(), re.M)[1]) * 1024


def _reset_peak() -> bool:
    """Set the peak-RSS mark to the current RSS (Linux 4.0+); False where that is refused."""
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return False
    return True


def _measure(body_file: str, mode: str) -> dict[str, int]:
    from .wsgi import WsgiCall, build_app, quiet_logs

    app = build_app(redis_url=None, prefix="ome-ranker-bench-memory:")
    raw = Path(body_file).read_bytes()
    call = WsgiCall(
        app,
        "/v1/rank",
        body=raw,
        headers={"Content-Type": "application/json", "Cache-Control": "no-cache"},
        expect_cache="bypass",
    )
    gc.collect()
    result: dict[str, int] = {"body": len(raw)}
    with quiet_logs():
        if mode == "rss":
            result["rss_before"] = _status("VmRSS")
            reset = _reset_peak()
            result["answer"] = len(call())
            result["rss_peak"] = _status("VmHWM") if reset else 0
            result["max_rss"] = _max_rss()
        else:
            import tracemalloc

            tracemalloc.start()
            result["answer"] = len(call())
            result["request_peak"] = tracemalloc.get_traced_memory()[1]
            del call
            gc.collect()
            result.update(_stage_peaks(raw))
            tracemalloc.stop()
    return result


def _stage_peaks(raw: bytes) -> dict[str, int]:
    import tracemalloc

    from app.reading.decoding import decode_json_body
    from app.rendering.encode import to_json
    from app.rendering.ranking_body import ranking_body
    from app.schemas.requests import load_rank_request
    from app.selection.prediction import rank_and_place

    peaks = {}
    tracemalloc.reset_peak()
    body = decode_json_body(raw)
    peaks["decode_peak"], peaks["decoded_live"] = tracemalloc.get_traced_memory()[::-1]
    tracemalloc.reset_peak()
    request = load_rank_request(body, {})
    peaks["validate_peak"] = tracemalloc.get_traced_memory()[1]
    del body
    gc.collect()
    peaks["validated_live"] = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    prediction = rank_and_place(request, with_advice=True)
    peaks["rank_peak"] = tracemalloc.get_traced_memory()[1]
    tracemalloc.reset_peak()
    to_json(ranking_body(prediction))
    peaks["render_peak"] = tracemalloc.get_traced_memory()[1]
    return peaks


def _child(body_file: Path, mode: str) -> dict[str, int]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.memory", str(body_file), mode],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"bench.memory {mode} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def memory_section(body: bytes, runtimes: int, workdir: Path) -> tuple[Table, dict[str, int]]:
    body_file = workdir / f"memory-body-{runtimes}.json"
    body_file.write_bytes(body)
    rss = _child(body_file, "rss")
    traced = _child(body_file, "tracemalloc")
    table = Table(
        f"5. Peak memory: one cold POST /v1/rank for {runtimes} runtimes in a fresh process",
        ("measure", "value", "× body"),
    )
    size = rss["body"]

    def add(label: str, value: int) -> None:
        table.add(label, size_label(value), f"{value / size:.1f}")

    add("request body", size)
    add("answer (JSON)", rss["answer"])
    add("process RSS before the request (interpreter, app, body)", rss["rss_before"])
    if rss["rss_peak"]:
        add("process peak RSS during the request (VmHWM, reset before it)", rss["rss_peak"])
        add("  growth: peak during the request - RSS before", rss["rss_peak"] - rss["rss_before"])
    add("process peak RSS over its life (ru_maxrss)", rss["max_rss"])
    add("Python-allocated peak during the request (tracemalloc)", traced["request_peak"])
    add("  decode: peak", traced["decode_peak"])
    add("  decoded tree alive after decode", traced["decoded_live"])
    add("  validate: peak (decoded tree still alive)", traced["validate_peak"])
    add("  validated documents alive after (tree dropped)", traced["validated_live"])
    add("  rank: peak (validated documents alive)", traced["rank_peak"])
    add("  render: peak (validated documents and ranking alive)", traced["render_peak"])
    table.notes.append(
        "stage rows: tracemalloc peaks of each stage run on its own after the request, "
        "measured from the Python allocations alive at that point (the app, the body bytes)"
    )
    return table, {**rss, **traced}


if __name__ == "__main__":
    print(json.dumps(_measure(sys.argv[1], sys.argv[2])))
