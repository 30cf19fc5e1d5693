"""``rank`` and ``select`` in-process: the API's answers for the files given, the exit codes of
the README, and ``file:line`` wherever a message names an object."""

from __future__ import annotations

import json

import yaml

from tests.builders import entry, model_doc, runtime_doc
from tests.cli.support import LLAMA, SEED, VLLM, invoke, line_of, write_yaml

SEED_TABLE = (SEED.parent / "seed_example.txt").read_text()
SEED_MESSAGE = "Runtime team-llama will be auto-selected for model llama-3-2-3b-instruct"


def api_answer(client, path: str, body: bytes, content_type: str = "application/yaml", **headers):
    response = client.post(path, data=body, headers={"Content-Type": content_type, **headers})
    return response.status_code, response.get_data()


def test_select_on_the_seed_example_picks_team_llama():
    result = invoke("select", "-f", str(SEED))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        "RUNTIME      SCOPE        SCORE   EXPLICIT   MESSAGE",
        f"team-llama   Namespaced   2       No         {SEED_MESSAGE}",
    ]
    assert result.stderr == ""


def test_select_json_is_the_apis_answer_to_the_file_itself(client):
    result = invoke("select", "-f", str(SEED), "-o", "json")
    assert result.exit_code == 0
    assert result.stdout_bytes == api_answer(client, "/v1/select", SEED.read_bytes())[1] + b"\n"


def test_expect_another_runtime_exits_1():
    result = invoke("select", "-f", str(SEED), "--expect", "vllm-llama")
    assert result.exit_code == 1
    assert result.stderr == "error: OME selects team-llama, not vllm-llama\n"
    assert invoke("select", "-f", str(SEED), "--expect", "team-llama").exit_code == 0


def test_rank_prints_the_explain_table_and_says_what_is_selected_on_stderr():
    result = invoke("rank", "-f", str(SEED))
    assert result.exit_code == 0
    assert result.stdout == SEED_TABLE
    assert result.stderr == SEED_MESSAGE + "\n"


def test_rank_json_and_yaml_are_the_apis_answers(client):
    for output, accept in (("json", "application/json"), ("yaml", "application/yaml")):
        result = invoke("rank", "-f", str(SEED), "-o", output)
        expected = api_answer(client, "/v1/rank", SEED.read_bytes(), Accept=accept)[1]
        assert result.stdout_bytes.rstrip(b"\n") == expected.rstrip(b"\n"), output
        assert result.exit_code == 0


def test_select_yaml_is_the_json_answer_written_as_the_service_writes_yaml():
    result = invoke("select", "-f", str(SEED), "-o", "yaml")
    assert yaml.safe_load(result.stdout) == json.loads(
        invoke("select", "-f", str(SEED), "-o", "json").stdout
    )


def test_stdin():
    result = invoke("select", "-f", "-", input=SEED.read_bytes())
    assert result.exit_code == 0
    assert "team-llama" in result.stdout


def test_namespace_moves_the_target_namespace():
    result = invoke("select", "-f", str(SEED), "--namespace", "elsewhere", "-o", "json")
    assert json.loads(result.stdout)["selected"]["name"] == "vllm-llama"


def test_a_directory_without_R_reads_only_its_own_files_and_says_so(tree):
    # app.yaml alone: the model and its InferenceService, no runtime: OME finds none.
    result = invoke("select", "-f", str(tree))
    assert result.exit_code == 1
    assert result.stdout == ""
    unread, refusal = result.stderr.splitlines()[:2]
    assert unread == f"Warning: not read without -R: {tree / 'runtimes'}/ (3 files)"
    assert refusal.startswith(
        "error: no runtime found to support model safetensors with format safetensors in "
        "namespace demo"
    )


def test_with_R_the_one_inference_service_decides_among_several_models(tree):
    result = invoke("select", "-R", "-f", str(tree), "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["selected"]["name"] == "team"


def test_model_picks_one_of_several(tree):
    result = invoke("select", "-R", "-f", str(tree), "--model", "qwen", "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["selected"]["name"] == "sglang"


def test_files_and_directories_combine(tree):
    runtimes = tree / "runtimes"
    result = invoke("rank", "-f", str(tree / "app.yaml"), "-f", str(runtimes), "--expect", "team")
    assert result.exit_code == 0, result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()] == ["RUNTIME", "team", "vllm"]


def test_inference_service_and_its_model(tree):
    result = invoke("select", "-R", "-f", str(tree), "--inference-service", "demo/chat")
    assert result.exit_code == 0
    missing = invoke("select", "-R", "-f", str(tree), "--inference-service", "demo/nope")
    assert missing.exit_code == 2
    origin = f"{tree / 'app.yaml'}:{line_of(tree / 'app.yaml', 'kind: InferenceService') - 1}"
    assert missing.stderr == (
        "error: no InferenceService demo/nope in the files; they hold:\n"
        f"  InferenceService demo/chat  ({origin})\n"
    )


def test_several_models_and_no_choice_lists_them_with_their_lines(tmp_path):
    path = write_yaml(tmp_path / "models.yaml", LLAMA, model_doc("qwen", namespace="demo"), VLLM)
    result = invoke("select", "-f", str(path))
    assert result.exit_code == 2
    assert result.stderr == (
        "error: the files hold 2 models: choose one with --model NAME (and --namespace NS)\n"
        f"  BaseModel demo/llama  ({path}:1)\n"
        f"  BaseModel demo/qwen  ({path}:{line_of(path, 'name: qwen') - 3})\n"
    )
    unknown = invoke("select", "-f", str(path), "--model", "mistral")
    assert unknown.exit_code == 2
    assert unknown.stderr.startswith("error: no model mistral in the files; they hold:\n")


def test_yaml_error_exits_2_naming_file_and_line(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("kind: BaseModel\nmetadata:\n  name: x\n   namespace: y\n")
    result = invoke("rank", "-f", str(path))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {path}:4: not valid YAML: ")
    assert result.stdout == ""


def test_an_object_the_api_refuses_exits_2_with_its_message_and_line(tmp_path):
    bad = runtime_doc("zero", entry(priority=0))
    path = write_yaml(tmp_path / "all.yaml", LLAMA, VLLM, bad)
    result = invoke("select", "-f", str(path))
    assert result.exit_code == 2
    field = "runtimes[1].spec.supportedModelFormats[0].priority"
    start = line_of(path, "name: zero") - 3
    assert result.stderr == (
        f"error: invalid document: {field}: Must be at least 1.\n"
        f"  {path}:{start}: {field}: Must be at least 1.\n"
    )


def test_a_model_without_format_is_omes_refusal_exit_1_with_the_hint(tmp_path):
    path = write_yaml(tmp_path / "m.yaml", model_doc("m", format_name=""), VLLM)
    result = invoke("select", "-f", str(path))
    assert result.exit_code == 1
    assert result.stderr.startswith(
        "error: invalid model specification: modelFormat.name: model format name is required\n"
        "  hint: OME's model agent fills modelFormat"
    )


def test_no_runtime_with_json_output_prints_the_answer_too(tmp_path):
    path = write_yaml(tmp_path / "m.yaml", LLAMA)
    result = invoke("select", "-f", str(path), "-o", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"]["code"] == "NoRuntimeFound"
    ranked = invoke("rank", "-f", str(path), "-o", "json")
    assert ranked.exit_code == 1
    assert json.loads(ranked.stdout)["selected"] is None


def test_rank_prints_the_summary_of_the_no_rows_after_the_table(tmp_path, client):
    path = write_yaml(
        tmp_path / "m.yaml",
        model_doc("m", framework_version="4.46.0"),
        runtime_doc("onnx-a", entry(format_name="onnx")),
        runtime_doc("vllm-llama", entry(framework_version="4.45.0")),
    )
    result = invoke("rank", "-f", str(path))
    assert result.exit_code == 1
    table = api_answer(client, "/v1/rank", path.read_bytes(), Accept="text/plain")[1].decode()
    summary = (
        "2 runtimes excluded: format name mismatch ×1, framework version ×1; "
        "closest: vllm-llama (framework version)"
    )
    assert result.stdout == f"{table}\n{summary}\n"
    assert "excluded:" not in table  # the API's table is OME's alone
    assert result.stderr.startswith("error: no runtime found to support model safetensors")


def test_usage_errors_exit_2():
    assert invoke("select").exit_code == 2  # no files, no cluster
    assert "give the manifests with -f" in invoke("select").stderr
    assert invoke("select", "-f", str(SEED), "-o", "xml").exit_code == 2
    assert invoke("select", "--nope").exit_code == 2
    cluster = invoke("select", "--cluster", "prod", "--model", "m")
    assert cluster.exit_code == 2
    assert "--cluster needs --server" in cluster.stderr
    push = invoke("push", "prod", "-f", str(SEED))
    assert (push.exit_code, push.stderr) == (
        2,
        "error: push needs --server (or OME_RANKER_SERVER): catalogs live in a service\n",
    )


def test_a_bad_service_setting_is_a_clear_error():
    result = invoke("select", "-f", str(SEED), env={"OME_RANKER_MAX_BODY_BYTES": "lots"})
    assert result.exit_code == 2
    assert result.stderr == "error: OME_RANKER_MAX_BODY_BYTES must be an integer, got 'lots'\n"
