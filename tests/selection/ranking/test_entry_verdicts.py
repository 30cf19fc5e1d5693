"""Check 4 on one entry in one pass (entries.entry_verdicts, read through EntryMemo.check): None
exactly when ``entry_matches`` says the entry matches (rules §3.1), and otherwise the §3.2 text
word for word, held here to the part-by-part reference the ranking used before."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.selection.ranking.diffusion import diffusion_mismatch
from app.selection.ranking.entries import (
    _cache_provider_mismatch,
    _version_mismatch,
    entry_matches,
    entry_mismatch,
    entry_verdicts,
    model_format,
    supports_cache_provider,
)
from app.selection.ranking.entry_memo import EntryMemo
from app.selection.values import Entry, Model
from tests.selection.ranking.support import ENTRIES, MODELS, PROVIDERS


def _presence(what: str, model_value: str | None, entry_value: str | None) -> str | None:
    if model_value == entry_value:
        return None
    if model_value is None:
        return f"model has no {what} but runtime requires {entry_value}"
    if entry_value is None:
        return f"model has {what} {model_value} but runtime has no {what} requirement"
    return f"{what} mismatch (model={model_value}, runtime={entry_value})"


def reference_mismatch(model: Model, entry: Entry, provider: str) -> str:
    """rules §3.2 part by part, as written before check 4 took one pass (the unchanged helpers
    for a version and a cache provider are the module's own)."""
    parts = []
    if not supports_cache_provider(model, entry, provider):
        parts.append(_cache_provider_mismatch(entry, provider))
    diffusion = diffusion_mismatch(model.diffusion, entry.diffusion)
    if diffusion is not None:
        parts.append(diffusion)
    for what, model_value, entry_value in (
        ("architecture", model.architecture, entry.architecture),
        ("quantization", model.quantization, entry.quantization),
    ):
        text = _presence(what, model_value, entry_value)
        if text:
            parts.append(text)
    if entry.format is not None:
        model_fmt = model_format(model)
        if entry.format.name != model_fmt.name:
            parts.append(
                f"format name mismatch (model={model_fmt.name}, runtime={entry.format.name})"
            )
        else:
            text = _version_mismatch("format", model_fmt, entry.format)
            if text:
                parts.append(text)
    framework, wanted = model.framework, entry.framework
    if framework is not None and wanted is not None:
        if framework.name != wanted.name:
            parts.append(f"framework name mismatch (model={framework.name}, runtime={wanted.name})")
        else:
            text = _version_mismatch("framework", framework, wanted)
            if text:
                parts.append(text)
    elif wanted is not None:
        parts.append(f"model has no framework but runtime requires {wanted.name}")
    elif framework is not None:
        parts.append(
            f"model has framework {framework.name} but runtime has no framework requirement"
        )
    return ", ".join(parts) if parts else "unknown mismatch"


@settings(max_examples=400)
@given(MODELS, ENTRIES, PROVIDERS)
def test_the_verdict_is_none_on_a_match_and_the_reference_text_otherwise(model, entry, provider):
    verdict = entry_verdicts(model, provider)(entry)
    reference = reference_mismatch(model, entry, provider)
    if entry_matches(model, entry, provider):
        assert verdict is None
    else:
        assert verdict == reference
    assert entry_mismatch(model, entry, provider) == reference


@settings(max_examples=200)
@given(MODELS, st.lists(ENTRIES, max_size=5), PROVIDERS)
def test_the_memo_gives_the_first_match_or_every_text(model, entries, provider):
    memo = EntryMemo(model, provider)
    entries += entries  # the same objects again: answered from the table
    first = next((e for e in entries if entry_matches(model, e, provider)), None)
    for _ in range(2):  # computed, then from the table
        found, texts = memo.check(tuple(entries))
        assert found is first
        if first is None:
            assert texts == [reference_mismatch(model, e, provider) for e in entries]
        for item in entries:
            assert memo.matches(item) == entry_matches(model, item, provider)
            assert memo.mismatch(item) == reference_mismatch(model, item, provider)
