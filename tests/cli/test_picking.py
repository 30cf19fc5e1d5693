"""Which model and InferenceService a ``rank`` or ``select`` asks about when the files hold
several (app/cli/picking.py): OME's model lookup, the one InferenceService among many models,
the objects sent, what the command says when it cannot choose, and the warning when
``--namespace`` is not where the BaseModel is."""

from __future__ import annotations

import pytest

from app.cli.output import Failure
from app.cli.picking import choose
from app.cli.sources import Manifest
from tests.builders import isvc_doc, model_doc, runtime_doc
from tests.cli.support import SEED, invoke, line_of

LLAMA = Manifest(model_doc("llama", namespace="demo"), "app.yaml:1")
OTHER_LLAMA = Manifest(model_doc("llama", namespace="other"), "app.yaml:9")
SHARED_LLAMA = Manifest(model_doc("llama", kind="ClusterBaseModel", namespace=None), "m.yaml:1")
QWEN = Manifest(model_doc("qwen", namespace="demo"), "app.yaml:20")
CHAT = Manifest(isvc_doc("chat", namespace="demo", model={"name": "llama"}), "app.yaml:30")
CODE = Manifest(isvc_doc("code", namespace="demo", model={"name": "qwen"}), "app.yaml:40")
RUNTIME = Manifest(runtime_doc("vllm"), "rt.yaml:1")
OTHER_KIND = Manifest(
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "demo"}}, "ns.yaml:1"
)


def sent(question) -> list[str]:
    return [manifest.describe() for manifest in question.manifests]


def test_one_model_and_its_runtimes_are_sent_as_they_are():
    question = choose([LLAMA, RUNTIME, OTHER_KIND])
    assert sent(question) == [
        "BaseModel demo/llama",
        "ClusterServingRuntime vllm",
        "Namespace demo",
    ]
    assert question.stored_model is None


def test_a_model_named_is_found_as_ome_finds_it():
    files = [LLAMA, OTHER_LLAMA, SHARED_LLAMA, QWEN, RUNTIME]
    assert sent(choose(files, model="llama", namespace="demo"))[0] == "BaseModel demo/llama"
    assert sent(choose(files, model="llama", namespace="team"))[0] == "ClusterBaseModel llama"
    with pytest.raises(Failure) as several:
        choose(files, model="llama")  # no namespace: every model of that name
    assert str(several.value.message).startswith("the files hold 3 models: choose one with --model")


def test_the_one_inference_service_among_several_models_is_the_question():
    question = choose([LLAMA, QWEN, CHAT, RUNTIME])
    assert sent(question) == [
        "BaseModel demo/llama",
        "InferenceService demo/chat",
        "ClusterServingRuntime vllm",
    ]


def test_an_inference_service_named_brings_its_model():
    question = choose([LLAMA, QWEN, CHAT, CODE, RUNTIME], inference_service="demo/code")
    assert sent(question) == [
        "BaseModel demo/qwen",
        "InferenceService demo/code",
        "ClusterServingRuntime vllm",
    ]


def test_a_stored_catalogs_model_is_named_when_the_files_lack_it():
    question = choose([RUNTIME], model="llama", cluster="prod")
    assert (question.stored_model, sent(question)) == ("llama", ["ClusterServingRuntime vllm"])
    by_service = choose([CHAT, RUNTIME], inference_service="demo/chat", cluster="prod")
    assert by_service.stored_model == "llama"


@pytest.mark.parametrize(
    ("files", "options", "message"),
    [
        (
            [LLAMA, QWEN],
            {"model": "mistral"},
            "no model mistral in the files; they hold:\n  BaseModel demo/llama  (app.yaml:1)\n"
            "  BaseModel demo/qwen  (app.yaml:20)",
        ),
        (
            [LLAMA, CHAT, CODE],
            {},
            "the files hold 2 InferenceServices: choose one with --inference-service "
            "NAMESPACE/NAME\n  InferenceService demo/chat  (app.yaml:30)\n"
            "  InferenceService demo/code  (app.yaml:40)",
        ),
        (
            [CHAT],
            {"inference_service": "demo/ghost"},
            "no InferenceService demo/ghost in the files; they hold:\n"
            "  InferenceService demo/chat  (app.yaml:30)",
        ),
        (
            [RUNTIME],
            {"cluster": "prod"},
            "the files hold no model: name a stored one with --model NAME",
        ),
    ],
)
def test_what_the_command_says_when_it_cannot_choose(files, options, message):
    with pytest.raises(Failure) as failed:
        choose(files, **options)
    assert failed.value.message == message


SEED_MODEL = "llama-3-2-3b-instruct"


def test_a_namespace_other_than_the_models_is_warned_about():
    result = invoke("select", "-f", str(SEED), "--namespace", "other")
    assert result.exit_code == 0, result.stderr
    start = line_of(SEED, "apiVersion: ome.io/v1beta1")  # the object starts there
    assert result.stderr == (
        f"Warning: --namespace other, but BaseModel {SEED_MODEL} is in namespace llama-demo "
        f"({SEED}:{start}): an InferenceService in other would not find it\n"
    )


def test_the_models_own_namespace_or_none_is_not():
    for args in ((), ("--namespace", "llama-demo"), ("--model", SEED_MODEL)):
        result = invoke("select", "-f", str(SEED), *args)
        assert (result.exit_code, result.stderr) == (0, ""), args
