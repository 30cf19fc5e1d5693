"""The catalog the page is tried on: the seed example plus InferenceServices with every outcome
(auto-selected, explicit, no runtime, model missing) and runtimes that do not qualify."""

from __future__ import annotations

import copy

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

# A cluster pushed three times, each push moving something (rules §17.1): the first adds four
# InferenceServices (one without a runtime, one on an AcceleratorClass: the worked example of
# OME's "Select accelerators" page); the second disables team-llama (llama-demo/chat moves to
# vllm-llama), removes other/orphan and adds llama-demo/assistant; the third enables team-llama
# again (both move back to it), asks the worked example for 100 GiB (its engine's class moves
# from nvidia-h100 to nvidia-h200 while its runtime stays) and adds one whose name, 63 letters
# without a hyphen, is wider than a 400-pixel window.
_SEED = list(yaml.safe_load_all(SEED_YAML))
_WORKED = list(
    yaml.safe_load_all((ROOT / "tests" / "fixtures" / "select_accelerators.yaml").read_text())
)


def _worked(min_memory: int) -> list[dict]:
    documents = copy.deepcopy(_WORKED)
    documents[-1]["spec"]["acceleratorSelector"]["constraints"]["minMemory"] = min_memory
    return documents


def _seed(*, team_llama_disabled: bool = False) -> list[dict]:
    documents = copy.deepcopy(_SEED)
    team_llama = next(d for d in documents if d.get("metadata", {}).get("name") == "team-llama")
    if team_llama_disabled:
        team_llama["spec"]["disabled"] = True
    return documents


_CHAT = isvc_doc("chat", namespace="llama-demo", model={"name": SEED_MODEL})
_PINNED = isvc_doc(
    "pinned",
    namespace="llama-demo",
    model={"name": SEED_MODEL},
    runtime={"name": "srt-llama-large"},
)
_ORPHAN = isvc_doc("orphan", namespace="other", model={"name": "missing-model"})
_ASSISTANT = isvc_doc("assistant", namespace="llama-demo", model={"name": SEED_MODEL})
LONG_NAME = "longname" * 7 + "withend"
_LONG = isvc_doc(LONG_NAME, namespace="llama-demo", model={"name": SEED_MODEL})
HISTORY_PUSHES = [
    yaml.safe_dump_all(documents, sort_keys=False).encode()
    for documents in (
        [*_seed(), _CHAT, _PINNED, _ORPHAN, *_worked(80)],
        [*_seed(team_llama_disabled=True), _CHAT, _PINNED, _ASSISTANT, *_worked(80)],
        [*_seed(), _CHAT, _PINNED, _ASSISTANT, _LONG, *_worked(100)],
    )
]
