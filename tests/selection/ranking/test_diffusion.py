"""SPEC §12 (and §15 "Diffusion"): diffusion pipelines, through the request schemas and the pure
selection package. Each failure's text is part of the contract."""

import pytest

from app.selection.ranking.diffusion import diffusion_mismatch
from tests.builders import entry, loaded, model_doc, rank_body, runtime_doc

PREFIX = "model format 'mt:safetensors:1.0.0:LlamaForCausalLM:transformers:4.45.0' not in "
PREFIX += "supported formats: "


def pipeline_rank(rank, model_pipeline, entry_pipeline):
    spec = {} if model_pipeline is None else {"diffusionPipeline": model_pipeline}
    extra = {} if entry_pipeline is None else {"diffusionPipeline": entry_pipeline}
    ranking = rank(rank_body(model_doc(**spec), runtime_doc("rt", entry(**extra))))
    return ranking.rows[0]


def reason_for(rank, model_pipeline, entry_pipeline):
    row = pipeline_rank(rank, model_pipeline, entry_pipeline)
    assert not row.compatible
    assert row.reason.startswith(PREFIX)
    return row.reason.removeprefix(PREFIX)


FLUX = {
    "className": "FluxPipeline",
    "scheduler": {"library": "diffusers", "type": "FlowMatchEulerDiscreteScheduler"},
    "textEncoder": {"library": "transformers", "type": "CLIPTextModel"},
    "vae": {"library": "diffusers", "type": "AutoencoderKL"},
    "additionalComponents": {"text_encoder_2": {"library": "transformers", "type": "T5"}},
}


@pytest.mark.parametrize(
    ("model_pipeline", "entry_pipeline"),
    [
        (None, None),  # no pipeline on either side
        (FLUX, None),  # an entry without a pipeline matches any model
        (FLUX, FLUX),
        (FLUX, {}),  # an empty requirement constrains nothing
        (FLUX, {"vae": {}}),  # a component with no library/type: the model need only have it
        (FLUX, {"vae": {"library": "", "type": ""}}),  # empty strings do not constrain
        (FLUX, {"scheduler": None, "additionalComponents": {"other": None}}),  # null is not set
        (FLUX, {"additionalComponents": {}}),
        ({**FLUX, "scheduler": {}}, {"scheduler": {"library": ""}}),
    ],
)
def test_pipelines_that_match(rank, model_pipeline, entry_pipeline):
    row = pipeline_rank(rank, model_pipeline, entry_pipeline)
    assert row.compatible, row.reason


@pytest.mark.parametrize(
    ("model_pipeline", "entry_pipeline", "text"),
    [
        (None, {}, "diffusion pipeline required by runtime but not specified in model"),
        (
            {"vae": {}},
            {"className": "FluxPipeline"},
            "pipeline class mismatch (model=<nil>, runtime=FluxPipeline)",
        ),
        (
            {"className": "SDXLPipeline"},
            {"className": "FluxPipeline"},
            "pipeline class mismatch (model=SDXLPipeline, runtime=FluxPipeline)",
        ),
        (  # an explicitly empty class name is set, and differs from an absent one
            {},
            {"className": ""},
            "pipeline class mismatch (model=<nil>, runtime=)",
        ),
        (
            {"className": "X"},
            {"tokenizer": {"library": "transformers"}},
            "component tokenizer required by runtime but not specified in model",
        ),
        (
            {"scheduler": None},
            {"scheduler": {}},
            "component scheduler required by runtime but not specified in model",
        ),
        (
            {"textEncoder": {"type": "CLIPTextModel"}},
            {"textEncoder": {"library": "transformers"}},
            "textEncoder library mismatch (model=, runtime=transformers)",
        ),
        (
            {"transformer": {"library": "diffusers", "type": "A"}},
            {"transformer": {"library": "diffusers", "type": "B"}},
            "transformer type mismatch (model=A, runtime=B)",
        ),
        (  # library is checked before type, and only the first failure is reported
            {"vae": {"library": "x", "type": "A"}},
            {"vae": {"library": "y", "type": "B"}},
            "vae library mismatch (model=x, runtime=y)",
        ),
        (  # standard components in the order scheduler, textEncoder, tokenizer, transformer, vae
            {"vae": {"library": "x"}},
            {"vae": {"library": "y"}, "tokenizer": {}, "scheduler": {"type": "S"}},
            "component scheduler required by runtime but not specified in model",
        ),
        (  # the class name is checked before any component
            {"className": "A"},
            {"className": "B", "scheduler": {}},
            "pipeline class mismatch (model=A, runtime=B)",
        ),
        (  # standard components before additional ones
            {"additionalComponents": {"k": {}}},
            {"vae": {}, "additionalComponents": {"z": {}}},
            "component vae required by runtime but not specified in model",
        ),
        (
            {"className": "P"},
            {"additionalComponents": {"text_encoder_2": {}}},
            "diffusion pipeline missing required additional components",
        ),
        (  # a model whose additional components are all null has none at all
            {"additionalComponents": {"text_encoder_2": None}},
            {"additionalComponents": {"text_encoder_2": {}}},
            "diffusion pipeline missing required additional components",
        ),
        (
            {"additionalComponents": {"a": {}}},
            {"additionalComponents": {"b": {}}},
            "diffusion component b missing in model",
        ),
        (  # additional keys in byte order: "B" (0x42) before "a" (0x61)
            {"additionalComponents": {"x": {}}},
            {"additionalComponents": {"a": {}, "B": {}}},
            "diffusion component B missing in model",
        ),
        (  # byte order, not code-point order of UTF-16: U+FF21 (EF BC A1) before U+1F600
            {"additionalComponents": {"x": {}}},
            {"additionalComponents": {"\U0001f600": {}, "Ａ": {}}},
            "diffusion component Ａ missing in model",
        ),
        (
            {"additionalComponents": {"t5": {"library": "transformers", "type": "T5"}}},
            {"additionalComponents": {"t5": {"type": "UMT5"}}},
            "t5 type mismatch (model=T5, runtime=UMT5)",
        ),
    ],
)
def test_first_failure_text(rank, model_pipeline, entry_pipeline, text):
    assert reason_for(rank, model_pipeline, entry_pipeline) == text


def test_diffusion_text_leads_the_entry_mismatch_parts(rank):
    """§3.2: the diffusion text comes first, then the other parts, joined with ", "."""
    model = model_doc()
    runtime = runtime_doc(
        "rt", entry(architecture="Other", diffusionPipeline={"className": "FluxPipeline"})
    )
    reason = rank(rank_body(model, runtime)).rows[0].reason
    assert reason.removeprefix(PREFIX) == (
        "diffusion pipeline required by runtime but not specified in model, "
        "architecture mismatch (model=LlamaForCausalLM, runtime=Other)"
    )


def test_diffusion_plays_no_part_in_the_score(rank):
    """§4: a matching entry with a pipeline scores as one without."""
    model = model_doc(diffusionPipeline=FLUX)
    ranking = rank(
        rank_body(
            model,
            runtime_doc("plain", entry()),
            runtime_doc("piped", entry(diffusionPipeline=FLUX)),
        )
    )
    piped, plain = ranking.rows  # a score tie: name order
    assert (piped.name, plain.name) == ("piped", "plain")
    assert piped.compatible and plain.compatible
    assert piped.score == plain.score > 0


def test_second_entry_matches_when_first_pipeline_fails(rank):
    model = model_doc(diffusionPipeline={"className": "SDXLPipeline"})
    runtime = runtime_doc(
        "rt",
        entry(diffusionPipeline={"className": "FluxPipeline"}, priority=7),
        entry(diffusionPipeline={"className": "SDXLPipeline"}, priority=3),
    )
    row = rank(rank_body(model, runtime)).rows[0]
    assert row.compatible
    assert row.priority == 3  # the row's priority is the first *matching* entry's (§6)


def test_the_first_failure_in_the_rules_order_is_the_one_named():
    """The class name, then the standard components in their order, then the additional ones
    by their bytes: only the first failure is said (the pipelines directly, no ranking)."""
    model = loaded(model_doc(diffusionPipeline=FLUX)).diffusion
    wrong = {
        "className": "Other",
        "vae": {"library": "x"},
        "additionalComponents": {"b": {}, "a": {"type": "y"}},
    }

    def required(**fields):
        pipeline = {key: value for key, value in wrong.items() if key in fields}
        return loaded(runtime_doc("rt", entry(diffusionPipeline=pipeline))).entries[0].diffusion

    everything = required(className=1, vae=1, additionalComponents=1)
    assert diffusion_mismatch(model, everything) == (
        "pipeline class mismatch (model=FluxPipeline, runtime=Other)"
    )
    assert diffusion_mismatch(model, required(vae=1, additionalComponents=1)) == (
        "vae library mismatch (model=diffusers, runtime=x)"
    )
    assert diffusion_mismatch(model, required(additionalComponents=1)) == (
        "diffusion component a missing in model"
    )
    assert diffusion_mismatch(None, everything) == (
        "diffusion pipeline required by runtime but not specified in model"
    )
    assert diffusion_mismatch(model, None) is None
