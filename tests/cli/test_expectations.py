"""``app/cli/expectations.py``: ``ome-ranker-test.yaml`` read into cases, each expectation at
its line, and what a file gets wrong refused as a usage error naming where (docs/ci.md)."""

from __future__ import annotations

import pytest

from app.cli.expectations import read_plan
from app.cli.output import BAD_INPUT, Failure

PLAN = """\
manifests: [manifests/]
recursive: true
cases:
  - name: chat gets vllm
    inferenceService: llama-demo/llama-chat
    expect:
      runtime: vllm-llama
      engineClass: nvidia-h100
  - model: llama
    namespace: demo
    expect:
      runtime: null
      findings: [AutoSelected]
"""


def write(tmp_path, text: str) -> str:
    path = tmp_path / "ome-ranker-test.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_a_plan_is_read_with_each_expectation_at_its_line(tmp_path):
    plan = read_plan(write(tmp_path, PLAN))
    assert plan.recursive is True
    assert plan.manifests == (str(tmp_path / "manifests"),)
    chat, model = plan.cases
    assert (chat.name, chat.inference_service, chat.expect.runtime) == (
        "chat gets vllm",
        "llama-demo/llama-chat",
        "vllm-llama",
    )
    assert chat.expect.classes == {"engine": "nvidia-h100"}
    assert chat.places["runtime"].line == 7
    # runtime: null is an expectation (OME selects none), unlike no runtime key at all.
    assert model.expect.checks_runtime and model.expect.runtime is None
    assert model.expect.findings == ("AutoSelected",)
    assert not chat.expect.findings


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("cases: []\n", "cases"),
        ("recursive: yes-please\ncases: [{model: m, expect: {runtime: r}}]\n", "recursive"),
        ("cases: [{model: m, expect: {runtim: r}}]\n", "runtim"),
        ("- just a list\n", "must be a mapping"),
    ],
)
def test_what_a_plan_gets_wrong_is_a_usage_error_naming_it(tmp_path, text, said):
    with pytest.raises(Failure) as refused:
        read_plan(write(tmp_path, text))
    assert refused.value.exit_code == BAD_INPUT
    assert said in refused.value.message
    assert "ome-ranker-test.yaml" in refused.value.message


def test_without_a_plan_here_the_error_says_how_to_name_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(Failure, match="--expectations PATH"):
        read_plan(None)
