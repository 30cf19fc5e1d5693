"""Values kept as written (a class's affinity, an entry's ``acceleratorConfig``): what the rules
pass on whole must be what the API server could hold, JSON, so that every store keeps it and
gives it back unchanged. And how the rules read a manifest as written, a field at a path."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

NOT_JSON = "must hold JSON values only: no NaN or infinity"


def is_json_value(value: object) -> bool:
    """Whether ``value`` reads back from JSON as itself: strings, integers, booleans, null,
    finite floats, lists and string-keyed objects of them."""
    if value is None or type(value) in (str, int, bool):
        return True
    if type(value) is float:
        return math.isfinite(value)
    if type(value) is list:
        return all(is_json_value(item) for item in value)
    if type(value) is dict:
        return all(type(key) is str and is_json_value(item) for key, item in value.items())
    return False


def get(value: Any, *path: str) -> Any:
    """``value[path…]``, None where a step is absent or not a mapping."""
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value
