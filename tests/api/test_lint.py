"""``POST /v1/lint`` and ``POST /v1/clusters/{c}/lint`` (SPEC §13, §18): OME's admission
answers with OME's texts, mirroring its webhooks' code where that differs from §13."""

from __future__ import annotations

import json

import pytest
import yaml

from tests.builders import entry, isvc_doc, runtime_doc, serving_runtime
from tests.builders import model_doc as bare_model_doc
from tests.paths import SEED_YAML
from tests.work import cpu_seconds_under

YAML = {"Content-Type": "application/yaml"}
TEXT = {"Accept": "text/plain"}
BARE = {"format_name": None, "framework": None, "architecture": None}  # no modelFormat/Framework


def model_doc(*args, **kwargs):
    """A model as the CRD takes it: ``spec.storage`` is required."""
    kwargs.setdefault("storage", {"storageUri": "hf://meta-llama/Llama-3.2-1B"})
    return bare_model_doc(*args, **kwargs)


def bare(**options):
    """An entry named safetensors that sets neither modelFormat nor modelFramework."""
    return {**entry(**BARE, **options), "name": "safetensors"}


def lint(client, *documents, url="/v1/lint", **headers):
    body = yaml.safe_dump_all(documents, sort_keys=False).encode()
    response = client.post(url, data=body, headers={**YAML, **headers})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response


def findings(client, *documents, severity=None, **kwargs):
    answer = lint(client, *documents, **kwargs).get_json()
    return [
        (f["severity"], f["kind"], f["name"], f["code"], f["message"])
        for f in answer["findings"]
        if severity is None or f["severity"] == severity
    ]


def errors(client, *documents, **kwargs):
    return findings(client, *documents, severity="error", **kwargs)


SCHEMA = {"UnknownField", "Required", "Unsupported", "Invalid"}


def webhook_refusals(client, *documents, **kwargs):
    """(kind, name, message) of what OME's webhooks refuse, whether it is an object's error or,
    after the API server's refusal of an entry without modelFormat and modelFramework (which
    the CRD requires), an ``AlsoRefused`` info: OME's rules for such entries still run."""
    found = []
    for severity, kind, name, code, message in findings(client, *documents, **kwargs):
        if severity == "error" and code not in SCHEMA:
            found.append((kind, name, message))
        elif code == "AlsoRefused":
            found.append((kind, name, message.removeprefix("then: ")))
    return found


def test_the_seed_example_is_admitted(client):
    answer = client.post("/v1/lint", data=SEED_YAML, headers=YAML).get_json()
    assert answer["admitted"] is True
    assert answer["counts"]["error"] == 0


def test_same_priority_refuses_both_runtimes_naming_the_other(client):
    a = runtime_doc("a", bare(priority=2), protocolVersions=["openAI"])
    b = runtime_doc("b", bare(priority=2), protocolVersions=["openAI", "cohere"])
    found = webhook_refusals(client, a, b)
    assert found == [
        (
            "ClusterServingRuntime",
            "a",
            "same priority assigned for the model format safetensors in the "
            "clusterservingruntimes b and a",
        ),
        (
            "ClusterServingRuntime",
            "b",
            "same priority assigned for the model format safetensors in the "
            "clusterservingruntimes a and b",
        ),
    ]
    # The API server refuses such entries first (the CRD requires both fields): the error.
    assert [f[3] for f in errors(client, a, b)] == ["Required", "Required"]
    answer = lint(client, a, b).get_json()
    assert answer["admitted"] is False


def test_same_priority_for_serving_runtimes_names_the_namespace(client):
    a = serving_runtime("a", bare(priority=3), protocolVersions=["openAI"])
    b = serving_runtime("b", bare(priority=3), protocolVersions=["openAI"])
    elsewhere = serving_runtime(
        "c", bare(priority=3), namespace="other", protocolVersions=["openAI"]
    )
    found = webhook_refusals(client, a, b, elsewhere)
    assert [f[2] for f in found] == [
        "same priority assigned for the model format safetensors in the servingruntimes b and a "
        "in namespace demo",
        "same priority assigned for the model format safetensors in the servingruntimes a and b "
        "in namespace demo",
    ]


@pytest.mark.parametrize(
    "change",
    [
        {"protocols": ["cohere"]},  # no protocol in common
        {"protocols": None},  # none set on one side: none shared
        {"priority": 4},
        {"priority": None},  # a priority that is not set never clashes
        {"auto_select": None},
        {"disabled": True},
        {"size_range": {"min": "1B", "max": "8B"}},
        {"architecture": "Other"},
        {"name": "SAFETENSORS", "clash": True},  # names compare case-insensitively
        {"name": "other"},
        # OME compares modelFormat and modelFramework as structs holding pointers: two objects'
        # entries that set either are never "the same format".
        {"format": True},
        {"framework": True},
    ],
)
def test_what_keeps_two_runtimes_from_clashing(client, change):
    def make(runtime_name, **override):
        bare = dict(BARE)
        if override.get("format"):
            bare.update(format_name="safetensors", format_version=None)
        if override.get("framework"):
            bare.update(framework="transformers", framework_version=None)
        if "architecture" in override:
            bare["architecture"] = override["architecture"]
        spec = {}
        protocols = override.get("protocols", ["openAI"])
        if protocols is not None:
            spec["protocolVersions"] = protocols
        if override.get("disabled"):
            spec["disabled"] = True
        if "size_range" in override:
            spec["size_range"] = override["size_range"]
        item = entry(
            **bare,
            priority=override.get("priority", 2),
            auto_select=override.get("auto_select", True),
        )
        item["name"] = override.get("name", "safetensors")
        return runtime_doc(runtime_name, item, **spec)

    found = webhook_refusals(client, make("a"), make("b", **change))
    if change.get("clash"):
        assert [f[2][:13] for f in found] == ["same priority", "same priority"]
    else:
        assert found == []


def test_different_priorities_within_one_runtime(client):
    first = {**entry(priority=1), "name": "safetensors"}
    second = {**entry(priority=2, architecture="Other"), "name": "safetensors"}
    found = errors(client, runtime_doc("rt", first, second))
    assert found == [
        (
            "error",
            "ClusterServingRuntime",
            "rt",
            "DifferentPriorities",
            "different priorities assigned for the model format safetensors under the "
            "clusterservingruntime rt",
        )
    ]
    # The first entry of a name records its priority even when it has none: then no clash.
    unset = {**entry(), "name": "safetensors"}
    assert errors(client, runtime_doc("rt", unset, second)) == []
    # autoSelect false entries do not count; a disabled runtime is exempt from every rule.
    assert errors(client, runtime_doc("rt", first, {**second, "autoSelect": False})) == []
    assert errors(client, runtime_doc("rt", first, second, disabled=True)) == []
    namespaced = errors(client, serving_runtime("rt", first, second))
    assert namespaced[0][4].endswith("under the servingruntime rt")


def test_a_priority_below_one_is_the_api_servers_refusal(client):
    bad = runtime_doc("rt", entry(priority=0))
    found = errors(client, bad, model_doc())
    assert found == [
        (
            "error",
            "ClusterServingRuntime",
            "rt",
            "Invalid",
            'The ClusterServingRuntime "rt" is invalid: spec.supportedModelFormats[0].priority: '
            "Invalid value: 0: spec.supportedModelFormats[0].priority in body should be greater "
            "than or equal to 1",
        )
    ]
    text = lint(client, bad, **TEXT).get_data(as_text=True)
    assert text.startswith('error: The ClusterServingRuntime "rt" is invalid: ')


def test_an_object_the_schema_refuses_is_an_error_not_a_422(client):
    bad = runtime_doc("rt", entry())
    bad["spec"]["supportedModelFormats"][0]["autoSelect"] = "yes"
    [(severity, _, name, code, message)] = errors(client, bad)
    assert (severity, name, code) == ("error", "rt", "Invalid")
    assert "supportedModelFormats[0].autoSelect" in message


def test_inheritance_chains(client):
    child = runtime_doc("child")
    child["metadata"]["annotations"] = {"ome.io/inherit-from": "missing"}
    [found] = errors(client, child)
    assert found[3] == "InheritanceError"
    assert "missing" in found[4]
    parent = runtime_doc("missing")
    assert errors(client, child, parent) == []
    # Before 1.3 there is no inheritance to check.
    assert errors(client, child, url="/v1/lint?omeVersion=1.2.2") == []


def test_inference_services_as_the_webhook_answers(client):
    model = model_doc()
    good = runtime_doc("vllm", entry())
    svc = isvc_doc(model={"name": "llama"}, engine={})
    assert findings(client, model, good, svc, severity="warning") == [
        (
            "warning",
            "InferenceService",
            "svc",
            "AutoSelected",
            "Runtime vllm will be auto-selected for model llama",
        )
    ]
    [refused] = errors(client, model, runtime_doc("vllm", entry(), disabled=True), svc)
    assert refused[3] == "NoRuntimeFound"
    assert refused[4].startswith(
        "no supporting runtime found for model llama and engine does not have complete runner "
        "configuration: "
    )
    # OME's no-runtime text follows, as /v1/select gives it.
    select = client.post(
        "/v1/select",
        data=yaml.safe_dump_all([model, runtime_doc("vllm", entry(), disabled=True), svc]),
        headers=YAML,
    ).get_json()
    assert refused[4].endswith(select["error"]["message"])

    assert [f[3] for f in errors(client, good, svc)] == ["ModelNotFound"]
    assert errors(client, good, svc)[0][4] == (
        'referenced model "llama" not found in namespace "demo": ensure a BaseModel exists in '
        "this namespace or a ClusterBaseModel exists cluster-wide with this name"
    )
    disabled = model_doc(disabled=True)
    assert errors(client, disabled, good, svc)[0][3:] == (
        "ModelDisabled",
        "model llama is disabled",
    )
    # No engine, or a complete runner of its own: the webhook resolves nothing.
    assert findings(client, model, isvc_doc(model={"name": "llama"})) == []
    runner = isvc_doc(model={"name": "llama"}, engine={"runner": {"image": "x:1"}})
    assert findings(client, model, runner) == []
    leader_only = isvc_doc(
        model={"name": "llama"},
        engine={"leader": {"runner": {"name": "main", "image": "x:1"}}, "worker": {"size": 1}},
    )
    assert [f[3] for f in findings(client, model, good, leader_only)] == ["AutoSelected"]
    nameless = isvc_doc(engine={})
    assert errors(client, nameless)[0][3:] == (
        "ModelOrRuntimeRequired",
        "at least one of spec.model or spec.runtime must be set",
    )


def test_explicit_runtimes(client):
    model = model_doc()
    svc = isvc_doc(model={"name": "llama"}, engine={}, runtime={"name": "nope"})
    [found] = errors(client, model, svc)
    assert found[3] == "RuntimeNotFound"
    assert found[4] == (
        "runtime nope does not support model llama: runtime nope not found in namespace demo "
        "or at cluster scope"
    )
    other = runtime_doc("nope", entry(architecture="Other"))
    [advice] = findings(client, model, other, svc, severity="warning")
    assert advice[3] == "ExplicitRuntimeAdvisory"
    assert advice[4].startswith('runtime "nope" does not declare support for model "llama" (')


def test_infos(client):
    rt = runtime_doc(
        "rt",
        entry(framework_version="4.46", operator=None, auto_select=None),
        size_range={"min": "8B", "max": "1B"},
    )
    rt["spec"]["supportedModelFormats"][0]["modelFramework"]["operator"] = "GreaterThan"
    rt["spec"]["supportedModelFormats"][0]["modelFormat"]["version"] = "1.2-beta"
    rt["spec"]["engineConfig"] = {"annotations": {"ome.io/deploymentMode": "Fast"}}
    codes = {f[3] for f in findings(client, rt, model_doc(), severity="info")}
    assert codes == {
        "EmptySizeRange",
        "RuntimeVersionOnTheLeft",
        "UnparsableVersion",
        "UnknownDeploymentMode",
        "NoAutoSelect",
        "NoParameterSize",
    }
    messages = {f[3]: f[4] for f in findings(client, rt, model_doc(), severity="info")}
    assert "below 4.46" in messages["RuntimeVersionOnTheLeft"]
    odd = runtime_doc("odd", entry(), size_range={"min": "0", "max": "1e3B"})
    assert {f[3] for f in findings(client, odd, severity="info")} == {"UnusualSize"}


def test_text_output_reads_like_kubectl(client):
    a = runtime_doc("a", {**entry(priority=1), "name": "st"}, {**entry(priority=2), "name": "st"})
    b = runtime_doc("b", {**entry(), "autoselect": True})
    svc = isvc_doc(model={"name": "llama"}, engine={})
    text = lint(client, a, b, model_doc(), runtime_doc("vllm", entry()), svc, **TEXT)
    lines = text.get_data(as_text=True).splitlines()
    assert lines[:2] == [
        'error: ClusterServingRuntime a: admission webhook "clusterservingruntime.ome-webhook-'
        'server.validator" denied the request: different priorities assigned for the model '
        "format st under the clusterservingruntime a",
        'error: ClusterServingRuntime in version "v1beta1" cannot be handled as a '
        "ClusterServingRuntime: strict decoding error: unknown field "
        '"spec.supportedModelFormats[0].autoselect"',
    ]
    assert "Warning: Runtime a will be auto-selected for model llama" in lines
    counts = lint(client, a, b, model_doc(), runtime_doc("vllm", entry()), svc).get_json()
    # infos: b has no autoSelect entry (its typo); a and vllm compete at priority 1
    assert counts["counts"] == {"error": 2, "warning": 1, "info": 2}
    assert lines[-1] == "2 errors, 1 warning, 2 infos"


def test_a_clean_text_answer_still_says_so(client):
    response = lint(client, model_doc(), runtime_doc("vllm", entry()), **TEXT)
    assert response.get_json(silent=True) is None
    assert response.get_data(as_text=True) == "0 errors, 0 warnings, 0 infos\n"


def test_cluster_lint_checks_the_bodys_objects_over_the_stored_ones(client):
    assert client.put("/v1/clusters/prod", json={}).status_code == 201
    stored = runtime_doc("a", bare(priority=2), protocolVersions=["openAI"])
    other = runtime_doc("unrelated", entry(priority=0))
    other["spec"]["supportedModelFormats"][0]["priority"] = 1
    body = yaml.safe_dump_all([stored, other]).encode()
    assert client.put("/v1/clusters/prod/objects", data=body, headers=YAML).status_code == 200
    new = runtime_doc("b", bare(priority=2), protocolVersions=["openAI"])
    response = lint(client, new, url="/v1/clusters/prod/lint")
    answer = response.get_json()
    assert response.headers["ETag"] == '"2"'
    assert webhook_refusals(client, new, url="/v1/clusters/prod/lint") == [
        (
            "ClusterServingRuntime",
            "b",
            "same priority assigned for the model format safetensors in the "
            "clusterservingruntimes a and b",
        )
    ]
    assert [(f["name"], f["code"]) for f in answer["findings"] if f["severity"] == "error"] == [
        ("b", "Required")  # the API server refuses it first: the CRD requires both fields
    ]
    # The same object replacing the stored one does not clash with itself.
    assert webhook_refusals(client, stored, url="/v1/clusters/prod/lint") == []
    assert client.post("/v1/clusters/nope/lint", data=b"[]").status_code == 404


def test_lint_is_json_or_yaml_and_reports_other_kinds(client):
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}
    answer = lint(client, config_map, runtime_doc("rt", entry())).get_json()
    assert [i["kind"] for i in answer["ignored"]] == ["ConfigMap"]
    as_yaml = lint(client, runtime_doc("rt", entry()), Accept="application/yaml")
    assert yaml.safe_load(as_yaml.get_data())["admitted"] is True
    assert json.loads(lint(client, runtime_doc("rt", entry())).get_data())["counts"] == {
        "error": 0,
        "warning": 0,
        "info": 0,
    }


@pytest.fixture
def patient(make_app):
    """A client whose requests have time for a big body on a busy machine: the tests that use
    it guard against hangs, not against slowness."""
    return make_app(REQUEST_DEADLINE_SECONDS=120).test_client()


@pytest.mark.scale
def test_lint_stays_linear_on_thousands_of_clashing_runtimes_and_services(patient):
    client = patient
    runtimes = [
        runtime_doc(f"rt-{i:05d}", bare(priority=2), protocolVersions=["openAI", f"p{i}"])
        for i in range(4000)
    ]
    services = [isvc_doc(f"svc-{i}", model={"name": "llama"}, engine={}) for i in range(3000)]
    body = json.dumps([model_doc(), runtime_doc("vllm", entry()), *runtimes, *services])
    with cpu_seconds_under(60):  # a few seconds; pairwise comparisons would take minutes
        response = client.post("/v1/lint", data=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 200
    answer = response.get_json()
    assert answer["counts"]["error"] == 4000  # every runtime refused, naming the first other
    first = next(
        f for f in answer["findings"] if f["name"] == "rt-00000" and f["code"] == "AlsoRefused"
    )
    assert first["message"].endswith("in the clusterservingruntimes rt-00001 and rt-00000")
    assert answer["counts"]["warning"] == 3000


def test_a_runtime_that_cannot_clash_does_not_hide_one_that_does(client):
    # "a" comes first in name order but has a size range; "b" and "c" clash with each other.
    a = runtime_doc(
        "a", bare(priority=2), protocolVersions=["openAI"], size_range={"min": "1B", "max": "8B"}
    )
    b = runtime_doc("b", bare(priority=2), protocolVersions=["openAI"])
    c = runtime_doc("c", bare(priority=2), protocolVersions=["openAI"])
    found = [(name, message) for _, name, message in webhook_refusals(client, a, b, c)]
    assert found == [
        ("b", "same priority assigned for the model format safetensors in the "
         "clusterservingruntimes c and b"),
        ("c", "same priority assigned for the model format safetensors in the "
         "clusterservingruntimes b and c"),
    ]  # fmt: skip


# --- parity with kubectl apply (rules §18 "Parity", §20.7) -----------------------------------


def test_one_error_per_object_then_what_would_follow_once_fixed(client):
    # The API server refuses the typo first; OME's webhook would then refuse the priorities.
    first = {**entry(priority=1), "name": "st", "autoselect": True}
    second = {**entry(priority=2), "name": "st"}
    answer = lint(client, runtime_doc("rt", first, second)).get_json()
    assert [(f["severity"], f["code"], f["message"][:40]) for f in answer["findings"]] == [
        ("error", "UnknownField", 'ClusterServingRuntime in version "v1beta'),
        ("info", "AlsoRefused", "then: different priorities assigned for "),
    ]
    assert answer["admitted"] is False
    text = lint(client, runtime_doc("rt", first, second), **TEXT).get_data(as_text=True)
    assert "info: ClusterServingRuntime rt: spec.supportedModelFormats: then: different" in text


def test_a_refused_object_prints_no_webhook_warning(client):
    svc = isvc_doc(model={"name": "llama"}, engine={}, bogus=1)
    found = findings(client, model_doc(), runtime_doc("vllm", entry()), svc)
    assert [(f[0], f[3]) for f in found] == [("error", "UnknownField")]
    clean = isvc_doc(model={"name": "llama"}, engine={})
    found = findings(client, model_doc(), runtime_doc("vllm", entry()), clean)
    assert [f[3] for f in found] == ["AutoSelected"]


def test_the_runtime_profile_marker(client):
    marked = runtime_doc("rt", entry(priority=1))
    marked["metadata"]["annotations"] = {"ome.io/runtime-profile": "true"}
    assert errors(client, marked) == [
        (
            "error",
            "ClusterServingRuntime",
            "rt",
            "RuntimeProfileNotDisabled",
            'runtimes carrying ome.io/runtime-profile="true" must also set spec.disabled: true',
        )
    ]
    assert errors(client, {**marked, "spec": {**marked["spec"], "disabled": True}}) == []
    assert errors(client, marked, url="/v1/lint?omeVersion=1.2.2") == []  # from 1.3 on
    marked["metadata"]["annotations"]["ome.io/runtime-profile"] = "yes"
    assert findings(client, marked, severity="info") == [
        (
            "info",
            "ClusterServingRuntime",
            "rt",
            "ProfileMarkerNotTrue",
            'ome.io/runtime-profile is "yes"; OME\'s webhook acts only on "true"',
        )
    ]


def test_unknown_accelerator_classes_only_when_classes_are_known(client):
    rt = runtime_doc(
        "rt",
        entry(priority=1),
        acceleratorRequirements={"acceleratorClasses": ["h100", "b200", "h100", "a10"]},
    )
    known = {
        "apiVersion": "ome.io/v1beta1",
        "kind": "AcceleratorClass",
        "metadata": {"name": "a10"},
    }
    assert errors(client, rt, known) == [
        (
            "error",
            "ClusterServingRuntime",
            "rt",
            "UnknownAcceleratorClass",
            "unknown accelerator classes referenced in AcceleratorRequirements: [h100 b200 h100]",
        )
    ]
    assert errors(client, rt) == []
    [unknown] = findings(client, rt, severity="info")
    assert unknown[3:] == (
        "AcceleratorClassesUnknown",
        "the request holds no AcceleratorClass, so whether OME's webhook accepts "
        "[h100 b200 h100 a10] is unknown",
    )
    disabled = {**rt, "spec": {**rt["spec"], "disabled": True}}
    assert errors(client, disabled, known) == []


def test_the_same_priority_rule_compares_the_entries_version(client):
    a = runtime_doc("a", bare(priority=2, version="1"), protocolVersions=["openAI"])
    b = runtime_doc("b", bare(priority=2, version="2"), protocolVersions=["openAI"])
    assert webhook_refusals(client, a, b) == []
    same = runtime_doc("b", bare(priority=2, version="1"), protocolVersions=["openAI"])
    assert [name for _, name, _ in webhook_refusals(client, a, same)] == ["a", "b"]


def test_model_existence_is_checked_with_or_without_an_engine(client):
    svc = isvc_doc(model={"name": "llama"})
    [found] = errors(client, svc)
    assert found[3:] == (
        "ModelNotFound",
        'referenced model "llama" not found in namespace "demo": ensure a BaseModel exists in '
        "this namespace or a ClusterBaseModel exists cluster-wide with this name",
    )
    assert errors(client, model_doc(), svc) == []
    # whatever spec.model.kind says: a ClusterBaseModel of the name is found too
    cluster = model_doc(kind="ClusterBaseModel", namespace=None)
    assert errors(client, cluster, isvc_doc(model={"name": "llama", "kind": "BaseModel"})) == []


def test_a_stored_object_the_body_fails_to_replace_is_not_judged_in_its_place(client):
    assert client.put("/v1/clusters/prod", json={}).status_code == 201
    stored = runtime_doc(
        "a", {**entry(priority=1), "name": "st"}, {**entry(priority=2), "name": "st"}
    )
    body = yaml.safe_dump_all([stored]).encode()
    assert client.put("/v1/clusters/prod/objects", data=body, headers=YAML).status_code == 200
    fixed_but_typo = runtime_doc("a", {**entry(priority=1), "autoselect": True})
    answer = lint(client, fixed_but_typo, url="/v1/clusters/prod/lint").get_json()
    assert [(f["name"], f["code"]) for f in answer["findings"] if f["severity"] == "error"] == [
        ("a", "UnknownField")
    ]


def _overlaps(client, *documents):
    return [
        (f[2], f[4])
        for f in findings(client, *documents, severity="info")
        if f[3] == "OverlappingAutoSelect"
    ]


def test_competing_runtimes_say_who_wins_by_weight(client):
    a = runtime_doc("a", entry(priority=2), size_range={"min": "1B", "max": "10B"})
    b = runtime_doc("b", entry(priority=2, weight=3), size_range={"min": "5B", "max": "70B"})
    far = runtime_doc("far", entry(priority=2), size_range={"min": "80B", "max": "90B"})
    assert _overlaps(client, a, b, far) == [
        (
            "a",
            "b and this runtime both auto-select safetensors/transformers models at priority 2 "
            "(sizes [1B, 10B] and [5B, 70B] overlap); for a model both take, b is chosen by "
            "weight: score 8 > 4",
        )
    ]


def test_competing_runtimes_say_who_wins_by_name(client):
    b = runtime_doc("b", entry(priority=1))
    a = runtime_doc("a", entry(priority=1))
    assert _overlaps(client, b, a) == [
        (
            "b",
            "a and this runtime both auto-select safetensors/transformers models at priority 1; "
            "for a model both take, a is chosen by name order: equal score 2",
        )
    ]
    sized = runtime_doc("c", entry(priority=1), size_range={"min": "1B", "max": "8B"})
    [(_, message)] = _overlaps(client, a, sized)
    assert message.endswith(
        "equal score 2: a model with modelParameterSize goes to the runtime whose range bounds "
        "are nearer its size, one without to a by name order"
    )


@pytest.mark.parametrize(
    "other",
    [
        runtime_doc("b", entry(priority=3)),  # a priority settles it
        runtime_doc("b", entry(priority=1), disabled=True),
        runtime_doc("b", entry(priority=1, auto_select=None)),
        runtime_doc("b", entry(priority=1, framework_version="4.46.0")),  # other models
        runtime_doc("b", entry(priority=1, architecture="Other")),
        serving_runtime("b", entry(priority=1)),  # another scope
    ],
)
def test_runtimes_that_do_not_compete_say_nothing(client, other):
    assert _overlaps(client, runtime_doc("a", entry(priority=1)), other) == []


@pytest.mark.scale
def test_competition_is_linear_in_the_runtimes(patient):
    client = patient
    runtimes = [runtime_doc(f"rt-{i:05d}", entry(priority=1)) for i in range(3000)]
    with cpu_seconds_under(60):  # a few seconds; 3 000 runtimes compared pairwise, minutes
        answer = lint(client, *runtimes).get_json()
    found = [f for f in answer["findings"] if f["code"] == "OverlappingAutoSelect"]
    assert len(found) == 2999
    assert all("rt-00000 is chosen by name order" in f["message"] for f in found)


def test_what_a_review_found(client):
    # A lone surrogate from a JSON body orders and prints: no 500.
    svc = isvc_doc(model={"name": "m\udc80"}, engine={})
    body = json.dumps([svc]).encode()
    response = client.post("/v1/lint", data=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 200
    # kube-openapi takes an integral float as an integer
    assert errors(client, runtime_doc("rt", entry(priority=1.0))) == []
    # the fields OME's newest types deleted are refused by its webhook
    legacy = isvc_doc(model={"name": "llama"}, engine={"scaleMetric": "cpu"})
    [found] = errors(client, model_doc(), legacy)
    assert found[3:] == (
        "LegacyAutoscalerFieldsRejected",
        "LegacyAutoscalerFieldsRejected: spec.engine.scaleMetric is no longer supported. Use "
        "spec.engine.autoscaler.hpa.metrics[0].resource.name instead.",
    )
    # spec.model set with an empty name: OME looks the empty name up when it resolves
    empty = isvc_doc(model={"name": ""}, runtime={"name": "vllm"}, engine={})
    [found] = errors(client, runtime_doc("vllm", entry()), empty)
    assert found[4] == "failed to resolve model : No BaseModel or ClusterBaseModel with the name: "
    # the model's name in %q
    [found] = errors(client, isvc_doc(model={"name": 'a"b'}))
    assert found[4].startswith('referenced model "a\\"b" not found')


def test_also_refused_keeps_omes_order(client):
    svc = isvc_doc(model={"name": "m"}, scalingPolicy={"mode": "Pinned"}, bogus=1)
    answer = lint(client, svc).get_json()
    assert [f["message"][:30] for f in answer["findings"]] == [
        'InferenceService in version "v',
        "then: spec.scalingPolicy.mode ",
        'then: referenced model "m" not',
    ]


@pytest.mark.scale
@pytest.mark.parametrize("count", [4000])
def test_lint_stays_linear_where_a_review_found_it_was_not(patient, count):
    client = patient
    # runtimes sharing an entry but each its own protocol; model-less InferenceServices naming
    # a runtime; a model with thousands of wrongly typed labels
    runtimes = [
        runtime_doc(f"rt-{i}", bare(priority=1), protocolVersions=[f"p{i}"]) for i in range(count)
    ]
    services = [isvc_doc(f"s-{i}", runtime={"name": "zz"}, engine={}) for i in range(count)]
    labels = model_doc()
    labels["metadata"]["labels"] = {f"k{i}": i for i in range(8 * count)}
    body = json.dumps([*runtimes, *services, labels])
    with cpu_seconds_under(60):  # a few seconds; the quadratic steps found took minutes
        response = client.post("/v1/lint", data=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 200
