"""Lint without HTTP (app/linting.py): the answer ``POST /v1/lint`` gives, from the bytes of a
body, as the command line answers a local lint."""

from __future__ import annotations

import json

import yaml

from app.linting import local_answer
from tests.builders import entry, runtime_doc
from tests.paths import SEED_YAML


def test_a_local_lint_of_the_seed_admits_it():
    answer = local_answer(SEED_YAML, "application/yaml", [], "json")
    assert (answer.status, answer.content_type) == (200, "application/json")
    assert json.loads(answer.body)["admitted"] is True


def test_a_local_lint_refuses_what_the_api_server_refuses_and_keeps_going():
    runtime = runtime_doc("r", entry(priority=0))
    body = yaml.safe_dump_all([{"metadata": {"name": "no-kind"}}, runtime]).encode()
    found = json.loads(local_answer(body, "application/yaml", [], "json").body)
    assert found["admitted"] is False
    messages = [finding["message"] for finding in found["findings"]]
    assert "[apiVersion not set, kind not set]" in messages  # kubectl's words for both
    assert any("priority" in message for message in messages)


def test_a_local_lint_reads_the_body_before_the_query():
    answer = local_answer(b"{", "application/json", [("modelCacheProvider", "x" * 300)], "json")
    assert answer.status == 400
    assert json.loads(answer.body)["error"]["code"] == "MalformedRequest"
