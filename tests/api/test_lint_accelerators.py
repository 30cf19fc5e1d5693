"""``POST /v1/lint`` on the accelerator fields (rules §20.7): AcceleratorClass objects as the API
server takes them, and the infos on what OME accepts of classes, runtimes and InferenceServices
but reads otherwise."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.builders import API, entry, isvc_doc, model_doc, runtime_doc
from tests.work import cpu_seconds_under

YAML = {"Content-Type": "application/yaml"}
TEXT = {"Accept": "text/plain"}
NOTES = {
    "MemoryNotWholeGiB",
    "OverrideConstraintsIgnored",
    "PolicyShadowed",
    "BestFitWithoutConstraints",
    "AcceleratorConfigNotListed",
    "AcceleratorRequirementsIgnored",
}
STORAGE = {"storageUri": "hf://meta-llama/Llama-3.2-1B"}  # the CRD requires a model's storage


def accelerator(name="nvidia-h100", spec=None, **capabilities):
    """An AcceleratorClass the CRD takes, with these capabilities (or this whole spec)."""
    body = {"discovery": {}, "capabilities": capabilities} if spec is None else spec
    return {"apiVersion": API, "kind": "AcceleratorClass", "metadata": {"name": name}, "spec": body}


def lint(client, *documents, url="/v1/lint", **headers):
    body = yaml.safe_dump_all(documents, sort_keys=False).encode()
    response = client.post(url, data=body, headers={**YAML, **headers})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response


def notes(client, *documents, **kwargs):
    """(kind, name, field, code, message) of the §20.7 infos, in the answer's order."""
    answer = lint(client, *documents, **kwargs).get_json()
    return [
        (f["kind"], f["name"], f["field"], f["code"], f["message"])
        for f in answer["findings"]
        if f["code"] in NOTES
    ]


def text_lines(client, *documents):
    return lint(client, *documents, **TEXT).get_data(as_text=True).splitlines()


# --- AcceleratorClass objects: the API server's answer --------------------------------------


def test_a_class_is_validated_by_the_crd_in_the_api_servers_words(client):
    typo = accelerator(memoryGb="80Gi")
    answer = lint(client, typo).get_json()
    assert answer["admitted"] is False
    assert [(f["severity"], f["kind"], f["namespace"], f["code"]) for f in answer["findings"]] == [
        ("error", "AcceleratorClass", None, "UnknownField")
    ]
    assert answer["findings"][0]["message"] == (
        'AcceleratorClass in version "v1beta1" cannot be handled as a AcceleratorClass: strict '
        'decoding error: unknown field "spec.capabilities.memoryGb"'
    )
    missing = accelerator(spec={"capabilities": {"memoryGB": "80 GB"}})
    [found] = lint(client, missing).get_json()["findings"]
    assert (found["code"], found["field"]) == ("Invalid", "spec.capabilities.memoryGB")
    assert found["message"].startswith(
        'The AcceleratorClass "nvidia-h100" is invalid: [spec.capabilities.memoryGB: Invalid '
        'value: "80 GB": spec.capabilities.memoryGB in body should match '
    )
    assert found["message"].endswith(", spec.discovery: Required value]")
    # No webhook judges classes: kubectl prints the API server's text alone.
    assert text_lines(client, missing)[0] == f"error: {found['message']}"
    # spec is optional; with one, discovery and capabilities are required objects, possibly {}
    assert lint(client, accelerator(spec=None)).get_json()["admitted"] is True
    bare = {"apiVersion": API, "kind": "AcceleratorClass", "metadata": {"name": "bare"}}
    assert lint(client, bare).get_json()["findings"] == []


def test_a_class_name_the_api_server_refuses(client):
    [found] = lint(client, accelerator("Nvidia_H100")).get_json()["findings"]
    assert (found["kind"], found["name"], found["field"], found["code"]) == (
        "AcceleratorClass",
        "Nvidia_H100",
        "metadata.name",
        "Invalid",
    )
    assert found["message"].startswith(
        'The AcceleratorClass "Nvidia_H100" is invalid: metadata.name: Invalid value: '
        '"Nvidia_H100": a lowercase RFC 1123 subdomain'
    )


def test_classes_are_read_not_ignored_and_cluster_scoped(client):
    placed = accelerator()
    placed["metadata"]["namespace"] = "demo"  # ignored: classes are cluster-scoped
    answer = lint(client, placed, accelerator("nvidia-h100", memoryGB="80G")).get_json()
    assert answer["ignored"] == []
    assert answer["warnings"] == [
        "AcceleratorClass nvidia-h100 appears 2 times in the request; the last one is used"
    ]
    assert [(f["namespace"], f["code"]) for f in answer["findings"]] == [
        (None, "MemoryNotWholeGiB")  # the last one's memory
    ]


def test_a_class_given_twice_is_judged_as_the_last_one(client):
    good, typo = accelerator(), accelerator(memoryGb="80Gi")
    assert [f["code"] for f in lint(client, good, typo).get_json()["findings"]] == ["UnknownField"]
    assert lint(client, typo, good).get_json()["findings"] == []


def test_which_classes_exist_for_the_runtimes_webhook(client):
    rt = runtime_doc(
        "rt",
        entry(priority=1),
        acceleratorRequirements={"acceleratorClasses": ["nvidia-h100", "Nvidia_H200", "a10"]},
    )
    typo = accelerator(memoryGb="80Gi")  # refused, but fixing it keeps its name
    bad_name = accelerator("Nvidia_H200")  # no fix makes this name exist
    answer = lint(client, rt, typo, bad_name).get_json()
    refusal = next(f for f in answer["findings"] if f["kind"] == "ClusterServingRuntime")
    assert (refusal["code"], refusal["message"]) == (
        "UnknownAcceleratorClass",
        "unknown accelerator classes referenced in AcceleratorRequirements: [Nvidia_H200 a10]",
    )
    # A request whose only class has a refused name still holds classes: they are known.
    only = lint(client, rt, bad_name).get_json()
    assert "AcceleratorClassesUnknown" not in {f["code"] for f in only["findings"]}
    assert {f["code"] for f in only["findings"]} >= {"UnknownAcceleratorClass"}


# --- MemoryNotWholeGiB -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("memory", "raw", "gib"),
    [
        ("80Gi", None, None),
        ("1Ti", None, None),
        ("0", None, None),  # 0 bytes is 0 GiB exactly
        (85899345920, None, None),  # 80 GiB in bytes
        ("80G", "80G", 74),
        (80, "80", 0),  # 80 bytes
        ("80", "80", 0),
        ("1536Mi", "1536Mi", 1),
        (85899345921, "85899345921", 80),  # one byte more than 80 GiB
        ("0.5", "0.5", 0),  # rounds up to 1 byte
        ("-80G", "-80G", -74),  # truncated toward zero, as Go divides
    ],
)
def test_memory_not_whole_gib(client, memory, raw, gib):
    found = notes(client, accelerator(memoryGB=memory))
    if raw is None:
        assert found == []
    else:
        assert found == [
            (
                "AcceleratorClass",
                "nvidia-h100",
                "spec.capabilities.memoryGB",
                "MemoryNotWholeGiB",
                f'memoryGB "{raw}" is read by OME as {gib} GiB by minMemory and maxMemory',
            )
        ]


def test_memory_the_crd_refuses_or_a_class_without_memory_says_nothing_more(client):
    assert notes(client, accelerator()) == []
    assert notes(client, accelerator(memoryGB="80 GB")) == []  # the API server's Invalid
    assert notes(client, accelerator(memoryGB="1e30")) == []  # beyond what OME reads


# --- runtimes: AcceleratorRequirementsIgnored, AcceleratorConfigNotListed ------------------------


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("minMemory", 80),
        ("minMemory", 0),
        ("minComputePerformanceTFLOPS", 500),
        ("minArchitectureVersion", "9.0"),
        ("requiredFeatures", ["fp8"]),
        ("requiredFeatures", []),  # set, though empty
        ("preferredPrecisions", ["fp16"]),
    ],
)
def test_accelerator_requirements_ignored_per_field(client, field, value):
    rt = runtime_doc("rt", acceleratorRequirements={"acceleratorClasses": ["a"], field: value})
    assert notes(client, rt, accelerator("a")) == [
        (
            "ClusterServingRuntime",
            "rt",
            f"spec.acceleratorRequirements.{field}",
            "AcceleratorRequirementsIgnored",
            f"OME ignores acceleratorRequirements.{field}; set constraints in the "
            "InferenceService's spec.acceleratorSelector.constraints",
        )
    ]


def test_accelerator_requirements_that_are_read_or_not_set(client):
    listed = runtime_doc("rt", acceleratorRequirements={"acceleratorClasses": ["a"]})
    unset = runtime_doc("rt", acceleratorRequirements={"minMemory": None, "requiredFeatures": None})
    assert notes(client, listed, accelerator("a")) == []
    assert notes(client, unset) == []
    every = runtime_doc(
        "rt",
        disabled=True,  # disabled or not: OME never reads them
        acceleratorRequirements={
            "minMemory": 1,
            "minComputePerformanceTFLOPS": 1,
            "minArchitectureVersion": "8.0",
            "requiredFeatures": ["a"],
            "preferredPrecisions": ["fp8"],
        },
    )
    assert [field for _, _, field, _, _ in notes(client, every)] == [
        "spec.acceleratorRequirements.minArchitectureVersion",
        "spec.acceleratorRequirements.minComputePerformanceTFLOPS",
        "spec.acceleratorRequirements.minMemory",
        "spec.acceleratorRequirements.preferredPrecisions",
        "spec.acceleratorRequirements.requiredFeatures",
    ]


def _configured(name="rt", classes=None, **spec):
    """A runtime whose second entry configures nvidia-h100, nvidia-l40s and (null) a10."""
    config = {
        "nvidia-l40s": {"runtimeArgsOverride": ["--mem-frac=0.85"]},
        "nvidia-h100": {"tensorParallelismOverride": {"tensorParallelSize": 4}},
        "a10": None,
    }
    if classes is not None:
        spec["acceleratorRequirements"] = {"acceleratorClasses": classes}
    return runtime_doc(name, entry(), entry(acceleratorConfig=config), **spec)


def _not_listed(key, name="rt"):
    return (
        "ClusterServingRuntime",
        name,
        "spec.supportedModelFormats[1].acceleratorConfig",
        "AcceleratorConfigNotListed",
        f"acceleratorConfig key {key} is not a listed accelerator class, so OME applies it only "
        "to an InferenceService that names this runtime and that class",
    )


def test_accelerator_config_keys_no_listed_class_reaches(client):
    classes = [accelerator("nvidia-h100"), accelerator("nvidia-l40s"), accelerator("a10")]
    listed = _configured(classes=["nvidia-h100"])
    assert notes(client, listed, *classes) == [_not_listed("nvidia-l40s")]  # a10: null, nothing
    # Keys are class names, case-sensitive.
    upper = _configured(classes=["NVIDIA-H100", "nvidia-l40s"])
    assert notes(client, upper, *classes) == [_not_listed("nvidia-h100")]
    both = _configured(classes=["nvidia-l40s", "nvidia-h100"])
    assert notes(client, both, *classes) == []


def test_accelerator_config_of_a_runtime_that_gets_no_class_says_nothing(client):
    # No list at all: OME gives its components no class, so no key ever applies.
    assert notes(client, _configured()) == []
    assert notes(client, _configured(classes=[])) == []
    # A disabled runtime's entries apply only through those that inherit them.
    assert notes(client, _configured(classes=["nvidia-h100"], disabled=True)) == []


def test_accelerator_config_of_a_runtime_that_inherits_its_list(client):
    parent = runtime_doc(
        "parent", entry(), acceleratorRequirements={"acceleratorClasses": ["nvidia-h100"]}
    )
    child = _configured("child")
    child["metadata"]["annotations"] = {"ome.io/inherit-from": "parent"}
    assert notes(client, parent, child) == [_not_listed("nvidia-l40s", "child")]
    # Its own list replaces the parent's.
    own = _configured("child", classes=["nvidia-l40s"])
    own["metadata"]["annotations"] = {"ome.io/inherit-from": "parent"}
    assert notes(client, parent, own) == [_not_listed("nvidia-h100", "child")]
    # Before 1.3 there is no inheritance: no list, nothing applies; nor with a broken chain.
    assert notes(client, parent, child, url="/v1/lint?omeVersion=1.2.2") == []
    assert notes(client, child) == []


# --- InferenceServices: OverrideConstraintsIgnored, PolicyShadowed, BestFitWithoutConstraints ---


def _service(selector=None, engine=None, decoder=None):
    given = {"acceleratorSelector": selector, "engine": engine, "decoder": decoder}
    return isvc_doc(model={"name": "llama"}, **{k: v for k, v in given.items() if v is not None})


def service_notes(client, selector=None, engine=None, decoder=None):
    """(field, code, message) of the InferenceService's §20.7 infos."""
    svc = _service(selector, engine, decoder)
    model = model_doc(storage=STORAGE)
    return [f[2:] for f in notes(client, model, svc) if f[0] == "InferenceService"]


def _shadowed(field, policy, component, name, named_in):
    return (
        field,
        "PolicyShadowed",
        f"policy {policy} has no effect on the {component}: it gets the class {name} named in "
        f"{named_in}",
    )


BEST_FIT = (
    "spec.acceleratorSelector.constraints",
    "BestFitWithoutConstraints",
    "BestFit without spec.acceleratorSelector.constraints stops OME's controller when two or "
    "more classes qualify (a known OME bug)",
)
OVERRIDE_POLICY = "spec.engine.acceleratorOverride.policy"
OVERRIDE_CLASS = "spec.engine.acceleratorOverride.acceleratorClass"
SELECTOR_POLICY = "spec.acceleratorSelector.policy"
SELECTOR_CLASS = "spec.acceleratorSelector.acceleratorClass"


def test_override_constraints_are_ignored(client):
    message = (
        "constraints in an acceleratorOverride have no effect; OME reads only "
        "spec.acceleratorSelector.constraints"
    )
    for constraints in ({"minMemory": 80}, {}):
        override = {"acceleratorOverride": {"constraints": constraints}}
        assert service_notes(client, engine=override, decoder=override) == [
            ("spec.decoder.acceleratorOverride.constraints", "OverrideConstraintsIgnored", message),
            ("spec.engine.acceleratorOverride.constraints", "OverrideConstraintsIgnored", message),
        ]
    assert service_notes(client, engine={"acceleratorOverride": {"constraints": None}}) == []
    assert service_notes(client, {"constraints": {"minMemory": 80}}, engine={}) == []


def test_a_policy_on_the_override_shadowed_by_a_name_on_the_override(client):
    engine = {"acceleratorOverride": {"acceleratorClass": "nvidia-h100", "policy": "Cheapest"}}
    assert service_notes(client, engine=engine) == [
        _shadowed(OVERRIDE_POLICY, "Cheapest", "engine", "nvidia-h100", OVERRIDE_CLASS)
    ]


def test_a_policy_on_the_selector_shadowed_by_a_name_on_the_selector(client):
    selector = {"acceleratorClass": "nvidia-h100", "policy": "MostCapable"}
    assert service_notes(client, selector, engine={}, decoder={}) == [
        _shadowed(SELECTOR_POLICY, "MostCapable", "decoder", "nvidia-h100", SELECTOR_CLASS),
        _shadowed(SELECTOR_POLICY, "MostCapable", "engine", "nvidia-h100", SELECTOR_CLASS),
    ]
    # No component, no class for anyone: nothing is shadowed.
    assert service_notes(client, selector) == []


def test_the_policy_read_is_the_one_shadowed(client):
    # The override's name, the selector's policy: the engine reads that policy.
    override = {"acceleratorOverride": {"acceleratorClass": "nvidia-h100"}}
    selector = {"policy": "FirstAvailable", "constraints": {}}
    assert service_notes(client, selector, engine=override, decoder={}) == [
        _shadowed(SELECTOR_POLICY, "FirstAvailable", "engine", "nvidia-h100", OVERRIDE_CLASS)
    ]
    # Both policies set: the override's is the one step 3 would read.
    engine = {"acceleratorOverride": {"acceleratorClass": "nvidia-h100", "policy": "Cheapest"}}
    assert service_notes(client, {"policy": "FirstAvailable", "constraints": {}}, engine) == [
        _shadowed(OVERRIDE_POLICY, "Cheapest", "engine", "nvidia-h100", OVERRIDE_CLASS)
    ]


def test_an_empty_name_hides_the_selectors_name_and_lets_the_policy_decide(client):
    selector = {"acceleratorClass": "nvidia-h100", "policy": "Cheapest"}
    engine = {"acceleratorOverride": {"acceleratorClass": ""}}
    assert service_notes(client, selector, engine=engine) == []
    assert service_notes(client, {"acceleratorClass": "", "policy": "Cheapest"}, engine={}) == []


@pytest.mark.parametrize(
    ("selector", "engine", "fires"),
    [
        ({"policy": "BestFit"}, {}, True),  # constraints absent
        ({"policy": "BestFit", "constraints": None}, {}, True),
        ({"policy": "BestFit", "constraints": {}}, {}, False),  # {} is constraints
        ({"policy": "BestFit", "constraints": {"minMemory": 80}}, {}, False),
        ({"policy": "Cheapest"}, {}, False),
        (None, {"acceleratorOverride": {"policy": "BestFit"}}, True),
        # the override's constraints are never read
        (None, {"acceleratorOverride": {"policy": "BestFit", "constraints": {}}}, True),
        ({"constraints": {}}, {"acceleratorOverride": {"policy": "BestFit"}}, False),
        ({"policy": "BestFit"}, {"acceleratorOverride": {"policy": "Cheapest"}}, False),
        ({"policy": "BestFit"}, None, False),  # no component
    ],
)
def test_best_fit_without_constraints(client, selector, engine, fires):
    found = [f for f in service_notes(client, selector, engine=engine) if f[1] == BEST_FIT[1]]
    assert found == ([BEST_FIT] if fires else [])


def test_best_fit_without_constraints_once_and_not_for_a_named_class(client):
    assert service_notes(client, {"policy": "BestFit"}, engine={}, decoder={}) == [BEST_FIT]
    # A named class is never scored: the policy is shadowed instead.
    named = {"policy": "BestFit", "acceleratorClass": "nvidia-h100"}
    assert [f[1] for f in service_notes(client, named, engine={})] == ["PolicyShadowed"]
    # The decoder alone reads BestFit: still the InferenceService's constraints.
    engine = {"acceleratorOverride": {"acceleratorClass": "nvidia-h100"}}
    decoder = {"acceleratorOverride": {"policy": "BestFit"}}
    assert service_notes(client, engine=engine, decoder=decoder) == [BEST_FIT]


# --- all of them, as kubectl-like text -------------------------------------------------------


def test_the_infos_in_text(client):
    rt = runtime_doc(
        "rt",
        entry(acceleratorConfig={"nvidia-l40s": {"runtimeArgsOverride": ["--x"]}}),
        acceleratorRequirements={"acceleratorClasses": ["nvidia-h100"], "minMemory": 80},
    )
    svc = _service(
        {"policy": "BestFit", "constraints": None},
        engine={"acceleratorOverride": {"acceleratorClass": "nvidia-h100", "policy": "Cheapest"}},
        decoder={"acceleratorOverride": {"constraints": {"minMemory": 80}}},
    )
    lines = text_lines(client, accelerator(memoryGB="80G"), rt, model_doc(storage=STORAGE), svc)
    assert [line for line in lines if line.startswith("info: ")] == [
        'info: AcceleratorClass nvidia-h100: spec.capabilities.memoryGB: memoryGB "80G" is read '
        "by OME as 74 GiB by minMemory and maxMemory",
        "info: ClusterServingRuntime rt: spec.acceleratorRequirements.minMemory: OME ignores "
        "acceleratorRequirements.minMemory; set constraints in the InferenceService's "
        "spec.acceleratorSelector.constraints",
        "info: ClusterServingRuntime rt: spec.supportedModelFormats[0].acceleratorConfig: "
        "acceleratorConfig key nvidia-l40s is not a listed accelerator class, so OME applies it "
        "only to an InferenceService that names this runtime and that class",
        "info: InferenceService demo/svc: spec.acceleratorSelector.constraints: BestFit without "
        "spec.acceleratorSelector.constraints stops OME's controller when two or more classes "
        "qualify (a known OME bug)",
        "info: InferenceService demo/svc: spec.decoder.acceleratorOverride.constraints: "
        "constraints in an acceleratorOverride have no effect; OME reads only "
        "spec.acceleratorSelector.constraints",
        "info: InferenceService demo/svc: spec.engine.acceleratorOverride.policy: policy Cheapest "
        "has no effect on the engine: it gets the class nvidia-h100 named in "
        "spec.engine.acceleratorOverride.acceleratorClass",
    ]
    assert lines[-1] == "0 errors, 1 warning, 6 infos"


# --- bounded work ----------------------------------------------------------------------------


@pytest.fixture
def patient(make_app):
    """A client whose requests have time for a big body on a busy machine: a hang guard."""
    return make_app(REQUEST_DEADLINE_SECONDS=120).test_client()


@pytest.mark.scale
def test_classes_and_lists_stay_linear(patient):
    # 10 000 classes, 100 runtimes listing 401 of them and configuring 201: a scan of every
    # class per listed name would be 4e8 steps.
    classes = [accelerator(f"c-{i:05d}", memoryGB="80G") for i in range(10_000)]
    listed = [f"c-{i:05d}" for i in range(0, 10_000, 25)]  # 400 names, each runtime
    config = {name: {"runtimeArgsOverride": ["--x"]} for name in listed[:200]}
    config["missing"] = {"runtimeArgsOverride": ["--x"]}
    runtimes = [
        runtime_doc(
            f"rt-{i:04d}",
            entry(acceleratorConfig=config),
            acceleratorRequirements={"acceleratorClasses": [*listed, "gone"]},
        )
        for i in range(100)
    ]
    with cpu_seconds_under(60):  # a few seconds; a scan of every class per name, minutes
        response = patient.post(
            "/v1/lint",
            data=json.dumps([*classes, *runtimes]),
            headers={"Content-Type": "application/json"},
        )
    assert response.status_code == 200
    answer = response.get_json()
    codes = [f["code"] for f in answer["findings"]]
    assert codes.count("MemoryNotWholeGiB") == 10_000
    assert codes.count("AcceleratorConfigNotListed") == 100
    assert codes.count("UnknownAcceleratorClass") == 100  # "gone"
