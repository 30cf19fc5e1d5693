"""The catalog the page is tried on: the seed example plus InferenceServices with every outcome
(auto-selected, explicit, no runtime, model missing) and runtimes that do not qualify."""

from __future__ import annotations

import yaml

from tests.builders import entry, isvc_doc, model_doc, runtime_doc
from tests.paths import ROOT

SEED_PATH = ROOT / "tests" / "fixtures" / "seed_example.yaml"
SEED_YAML = SEED_PATH.read_bytes()
SEED_MODEL = "llama-3-2-3b-instruct"
LLAMA = {"framework_version": "4.45.0.dev0"}

EXTRA = [
    # Matches the model but is not auto-selected: a No row whose toWin is autoSelect: true.
    runtime_doc("tgi-llama", entry(auto_select=False, priority=1, **LLAMA)),
    # Another format: a No row with a long reason.
    runtime_doc("onnx-runtime", entry(format_name="onnx", format_version="1.14.0", **LLAMA)),
    # A model no runtime supports.
    model_doc("mistral-7b", namespace="chat-team", format_name="gguf", format_version="3"),
    isvc_doc("chat", namespace="llama-demo", model={"name": SEED_MODEL}),
    isvc_doc(
        "pinned",
        namespace="llama-demo",
        model={"name": SEED_MODEL},
        runtime={"name": "srt-llama-large"},
    ),
    isvc_doc("mistral-chat", namespace="chat-team", model={"name": "mistral-7b"}),
    isvc_doc("orphan", namespace="other", model={"name": "missing-model"}),
]
CATALOG_YAML = SEED_YAML + b"\n---\n" + yaml.safe_dump_all(EXTRA, sort_keys=False).encode()

# What the tests paste into "Try it": a change that moves llama-demo/chat, and manifests with an
# error finding and an info finding.
DISABLE_TEAM_LLAMA = yaml.safe_dump(
    {
        "apiVersion": "ome.io/v1beta1",
        "kind": "ServingRuntime",
        "metadata": {"name": "team-llama", "namespace": "llama-demo"},
        "spec": {"disabled": True, "supportedModelFormats": [entry(**LLAMA)]},
    },
    sort_keys=False,
)
LINTED = (
    SEED_YAML.decode()
    + "\n---\n"
    + yaml.safe_dump_all(
        [
            isvc_doc("chat", namespace="llama-demo", model={"name": SEED_MODEL}),
            runtime_doc("gt-llama", entry(operator="GreaterThan", priority=5, **LLAMA)),
            runtime_doc("zero-priority", entry(priority=0, **LLAMA)),
        ],
        sort_keys=False,
    )
)

# A fleet the page's "every cluster" impact is tried on, with DISABLE_TEAM_LLAMA: the change
# moves one InferenceService in fleet-a (the catalog above), two in fleet-b, and nothing in
# fleet-c, whose one InferenceService names its runtime.
FLEET = {
    "fleet-a": CATALOG_YAML,
    "fleet-b": SEED_YAML
    + b"\n---\n"
    + yaml.safe_dump_all(
        [
            isvc_doc("assistant", namespace="llama-demo", model={"name": SEED_MODEL}),
            isvc_doc("chat", namespace="llama-demo", model={"name": SEED_MODEL}),
        ],
        sort_keys=False,
    ).encode(),
    "fleet-c": SEED_YAML
    + b"\n---\n"
    + yaml.safe_dump(
        isvc_doc(
            "pinned",
            namespace="llama-demo",
            model={"name": SEED_MODEL},
            runtime={"name": "srt-llama-large"},
        ),
        sort_keys=False,
    ).encode(),
}
