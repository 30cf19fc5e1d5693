"""Examples for the OpenAPI spec: the seed page's worked example, computed, never hand-copied.

``seed_example.yaml`` is a copy of ``tests/fixtures/seed_example.yaml`` (a test keeps the two
identical) so that the image, which ships no tests, can still show it. Every answer below is
what the service itself computes for it, so the examples cannot drift from the behaviour.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

from app.errors import MODEL_NOT_READY_HINT
from app.reading.manifests import read_yaml_stream
from app.rendering.ranking_body import explain_table, ranking_body, select_body
from app.schemas.requests import load_rank_request
from app.selection.prediction import rank_and_place

SEED_YAML_PATH = Path(__file__).with_name("seed_example.yaml")


@cache
def seed_examples() -> dict[str, Any]:
    """The seed request as JSON and as YAML (the stream's documents as one ``kind: List``: a
    value a schema describes), and the three answers to it."""
    yaml_text = SEED_YAML_PATH.read_text(encoding="utf-8")
    body = read_yaml_stream(yaml_text.encode("utf-8")).request
    prediction = rank_and_place(load_rank_request(body, {}), with_advice=True)
    documents = [item for item in yaml.safe_load_all(yaml_text) if item is not None]
    return {
        "yaml_request": {"apiVersion": "v1", "kind": "List", "items": documents},
        "json_request": body,
        "rank_response": ranking_body(prediction),
        "explain_table": explain_table(prediction.ranking),
        "select_response": select_body(prediction),
    }


def error_examples(max_runtimes: int) -> dict[str, dict[str, Any]]:
    """One example body per error code, keyed by the code (texts as the service words them)."""

    def error(code: str, message: str, **details: Any) -> dict[str, Any]:
        return {"error": {"code": code, "message": message, **details}}

    priority_path = "runtimes[2].spec.supportedModelFormats[0].priority"
    return {
        "MalformedRequest": error("MalformedRequest", "'runtimes' is required and must be a list"),
        "NotFound": error(
            "NotFound",
            "The requested URL was not found on the server. If you entered the URL manually "
            "please check your spelling and try again.",
        ),
        "MethodNotAllowed": error(
            "MethodNotAllowed", "The method is not allowed for the requested URL."
        ),
        "PayloadTooLarge": error(
            "PayloadTooLarge",
            f"request has {max_runtimes + 1} runtimes; this service accepts at most {max_runtimes}",
        ),
        "RangeNotSatisfiable": error(
            "RangeNotSatisfiable", "The server cannot provide the requested range."
        ),
        "BodyTooLarge": error(
            "PayloadTooLarge", "The data value transmitted exceeds the capacity limit."
        ),
        "UnsupportedMediaType": error(
            "UnsupportedMediaType",
            "unsupported Content-Type 'text/csv': send application/json or application/yaml",
        ),
        "InvalidDocument": error(
            "InvalidDocument",
            f"invalid document: {priority_path}: Must be at least 1.",
            fields={priority_path: ["Must be at least 1."]},
        ),
        "NoRuntimeFound": error(
            "NoRuntimeFound",
            "no runtime found to support model safetensors with format safetensors "
            "in namespace llama-demo. Checked 2 runtimes (0 namespace-scoped, 2 "
            "cluster-scoped). Excluded runtimes: vllm-llama (runtime is disabled)",
            excluded={"vllm-llama": "runtime is disabled"},
        ),
        "RuntimeNotFound": error(
            "RuntimeNotFound",
            "runtime vllm-lama not found in namespace llama-demo or at cluster scope",
        ),
        "RuntimeDisabled": error(
            "RuntimeDisabled", "cluster-scoped runtime vllm-llama is disabled"
        ),
        "RuntimeInheritanceError": error(
            "RuntimeInheritanceError",
            'inherit-from parent "sglang-profile" not found (chain so far: [sglang-llama-3-2-3b])',
        ),
        "RuntimeIncompatible": error(
            "RuntimeIncompatible",
            "runtime srt-llama does not support model llama-3-2-3b-instruct: runtime "
            "srt-llama does not support model safetensors: model format "
            "'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0.dev0' not in supported "
            "formats: no model cache provider is configured for sharded model loading",
        ),
        "ModelNotReady": error(
            "ModelNotReady",
            "invalid model specification: modelFormat.name: model format name is required",
            hint=MODEL_NOT_READY_HINT,
        ),
        "ModelNotFound": error(
            "ModelNotFound", "No BaseModel or ClusterBaseModel with the name: llama-3-2-90b"
        ),
        "Unauthorized": error(
            "Unauthorized", "no token was sent: send Authorization: Bearer <token>"
        ),
        "Forbidden": error("Forbidden", "token ci-prod-east may not read cluster staging"),
        "ClusterNotFound": error("ClusterNotFound", "cluster prod-west not found"),
        "ObjectNotFound": error(
            "ObjectNotFound",
            "ServingRuntime team-llama in namespace llama-demo not found in cluster prod-east",
        ),
        "InferenceServiceNotFound": error(
            "InferenceServiceNotFound", "InferenceService chat not found in namespace llama-demo"
        ),
        "PreconditionFailed": error(
            "PreconditionFailed",
            "If-Match does not name the cluster's current generation (7)",
            generation=7,
        ),
        "EmptyReplace": error(
            "EmptyReplace",
            "cluster prod-east holds 7 objects and the body none: replacing them with nothing "
            "is refused; send ?allowEmpty=true to empty the catalog",
            stored=7,
        ),
        "LimitExceeded": error(
            "LimitExceeded", "the service holds 100 clusters already (OME_RANKER_MAX_CLUSTERS)"
        ),
        "StoreUnavailable": error(
            "StoreUnavailable", "the catalog store is unavailable; try again"
        ),
        "RequestTimeout": error(
            "RequestTimeout", "the request was not received in full within 10 seconds"
        ),
        "RequestLineTooLong": error(
            "RequestLineTooLong", "the request line is too long: more than 4094 bytes"
        ),
        "ExpectationFailed": error("ExpectationFailed", "only 'Expect: 100-continue' is supported"),
        "HeadersTooLarge": error("HeadersTooLarge", "the request headers are too large"),
        "UnsupportedTransferCoding": error(
            "UnsupportedTransferCoding", "unsupported Transfer-Encoding: gzip"
        ),
        "DeadlineExceeded": error(
            "DeadlineExceeded", "the request took longer than this service's 10 s deadline"
        ),
    }
