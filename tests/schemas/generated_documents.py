"""Documents for the plain loaders' agreement with the schemas (``test_fast_runtime``,
``test_fast_documents``): optional members, odd values, and documents changed at one or two of
their places, the corners between valid and not."""

from __future__ import annotations

import copy
from collections.abc import Iterator

from hypothesis import strategies as st

from app.selection.values import MAX_VALUE_CHARS

MISSING = object()

# Values of every JSON type, and the awkward ones next to the right ones (a string just within
# the bound on the strings the rules read, and one just over it).
AT_BOUND, OVER_BOUND = "v" * MAX_VALUE_CHARS, "v" * (MAX_VALUE_CHARS + 1)
ODD = st.sampled_from(
    [
        *(None, "", "x", AT_BOUND, OVER_BOUND, 0, 1, -1, 2.0, 1.5, True, False),
        *([], ["a"], [None], {}, {"name": "x"}),
    ]
)
TEXT = st.one_of(st.sampled_from(["", "Equal", "GreaterThan", "1.0.0", "a"]), st.text(max_size=4))


def maybe(strategy):
    """An optional field: present with a plausible value, null, or absent."""
    return st.one_of(strategy, strategy, st.none(), st.just(MISSING))


def document(**members):
    return st.fixed_dictionaries(members).map(
        lambda drawn: {key: value for key, value in drawn.items() if value is not MISSING}
    )


def places_of(value):
    """Every (container, key) of a nested document, the root's members included."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        yield value, key
        if isinstance(item, dict | list):
            yield from places_of(item)


@st.composite
def changed(draw, strategy, odd):
    """A document of ``strategy``, then up to two members replaced by values of ``odd`` or
    removed."""
    # A copy: st.just and sampled_from hand out the same objects to every example, and the
    # members replaced below would otherwise change them for the examples after this one.
    value = copy.deepcopy(draw(strategy))
    for _ in range(draw(st.integers(0, 2))):
        container, key = draw(st.sampled_from(list(places_of(value))))
        if isinstance(container, dict) and draw(st.booleans()):
            del container[key]
        else:
            # A copy: ODD hands out the same list and dict objects, which a later mutation
            # could otherwise change in place (even put inside themselves).
            container[key] = copy.deepcopy(draw(odd))
    return value


def single_changes(full: dict, replacements: list) -> Iterator[dict]:
    """``full`` with one member replaced by each of ``replacements``, or removed: every place."""
    count = sum(1 for _ in places_of(full))
    for index in range(count):
        for replacement in [MISSING, *replacements]:
            value = copy.deepcopy(full)
            container, key = list(places_of(value))[index]
            if replacement is MISSING:
                if not isinstance(container, dict):
                    continue
                del container[key]
            else:
                container[key] = replacement
            yield value
