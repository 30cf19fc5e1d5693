"""SPEC §17 "Safe to share" against a real gunicorn: a string the rules read is refused at its
field as soon as the body is read, so that a huge one costs a worker its reading and no more.
A 14 MB model version ("1." seven million times) was split into seven million parts, again for
every entry that read it, seconds of CPU and gigabytes of a worker's memory (the figures before
and after: bench/README.md, "A huge string in a field")."""

from __future__ import annotations

import json
import time

import pytest

from tests.builders import entry, model_doc, rank_body, runtime_doc

JSON = {"Content-Type": "application/json"}
MIB = 1024 * 1024
# The worker's peak may grow by the body, its decoded form and the answer; the split alone
# grew it by hundreds of megabytes (gigabytes against 20 runtimes).
PEAK_GROWTH_BOUND = 150 * MIB


def _memory_kib(pid: int, field: str) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    raise AssertionError(f"no {field} for {pid}")


def _accelerator_class(memory: str) -> dict:
    return {
        "apiVersion": "ome.io/v1beta1",
        "kind": "AcceleratorClass",
        "metadata": {"name": "a100"},
        "spec": {"discovery": {}, "capabilities": {"memoryGB": memory}},
    }


def _body(field: str) -> tuple[bytes, str]:
    model = model_doc()
    extra = {}
    if field == "version":
        model["spec"]["modelFormat"]["version"] = "1." * 7_000_000
        path = "model.spec.modelFormat.version"
    elif field == "name":
        model["spec"]["modelFormat"]["name"] = "x" * (7 * MIB)
        path = "model.spec.modelFormat.name"
    else:
        extra["acceleratorClasses"] = [_accelerator_class("1" * (7 * MIB) + "Gi")]
        path = "acceleratorClasses[0].spec.capabilities.memoryGB"
    runtimes = [runtime_doc(f"rt-{index}", entry()) for index in range(20)]
    return json.dumps(rank_body(model, *runtimes, **extra)).encode(), path


@pytest.mark.parametrize("field", ["version", "name", "quantity"])
def test_a_huge_string_is_refused_at_its_field_for_the_cost_of_reading_it(start_service, field):
    """The shipped body limit (16 MiB) lets each of these through to the schemas; each is a
    422 at its field at once, and the worker that read it grows by far less than the split of
    it once cost."""
    service = start_service()
    body, path = _body(field)
    workers = service.worker_pids()
    peaks = {pid: _memory_kib(pid, "VmHWM") for pid in workers}
    started = time.monotonic()
    status, _headers, answer = service.request("POST", "/v1/rank", body, JSON, timeout=60)
    seconds = time.monotonic() - started
    error = json.loads(answer)["error"]
    assert (status, error["code"], list(error["fields"])) == (422, "InvalidDocument", [path])
    assert "256 characters" in error["fields"][path][0]
    assert len(answer) < 1000  # the answer never echoes the string
    assert seconds < 30  # generous: it is read and refused, not ranked
    growth = max(_memory_kib(pid, "VmHWM") - peaks[pid] for pid in workers) * 1024
    assert growth < PEAK_GROWTH_BOUND + len(body), f"a worker's peak grew {growth // MIB} MiB"
    service.assert_still_serving()
