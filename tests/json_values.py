"""Hypothesis strategies for JSON values, for the property tests of the encoders."""

from __future__ import annotations

from hypothesis import strategies as st

# Every code point, lone surrogates included (JSON's \ud800 decodes to one).
text = st.text(st.characters(codec=None, categories=None), max_size=12)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()  # past 64 bits too
    | st.floats(allow_nan=False, allow_infinity=False)
    | text
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(text, inner, max_size=5),
    max_leaves=40,
)
