"""A YAML body on which rapidyaml 0.15.2 writes past its pending annotations, against a real
gunicorn: once one anonymous POST of it killed the worker (SIGSEGV) and every request it held;
now each is answered with the JSON error and every worker lives (tests/reading/
test_ryml_annotations.py holds the loader to it)."""

from __future__ import annotations

import json

import pytest

from tests.servers import YAML

BODIES = {
    "three tags waiting, a fourth on its own line": b"!\n! !\n!",
    "a tag after the quote that ends a quoted scalar": b'"a\n "!b"\n! !\n!',
}


@pytest.mark.parametrize("path", ["/v1/rank", "/v1/lint"])
@pytest.mark.parametrize("body", BODIES.values(), ids=BODIES.keys())
def test_a_body_that_crashed_the_yaml_parser_leaves_every_worker_alive(service, path, body):
    workers, logged = service.worker_pids(), len(service.log())
    for _ in range(4):  # two workers: each is likely to get one
        status, headers, answer = service.request("POST", path, body, YAML)
        assert (status, headers["Content-Type"]) == (400, "application/json"), answer
        assert json.loads(answer)["error"]["code"] == "MalformedRequest"
    assert "was sent" not in service.log()[logged:]  # the master's line for a worker's signal
    assert service.worker_pids() == workers, service.log()[logged:]
    service.assert_still_serving()


def test_a_word_full_of_would_be_annotations_is_read_in_linear_time(service):
    # 1 MB, one word: a `!` every 64 bytes where an annotation could begin. A check that read
    # from each to the word's end read ~10^10 bytes, past the worker timeout; each byte once: ms.
    body = b"k: " + (b"-!" + b"x" * 62) * 16_000 + b" x\n"
    status, headers, answer = service.request("POST", "/v1/rank", body, YAML)
    assert (status, headers["Content-Type"]) == (400, "application/json"), answer
    service.assert_still_serving()
