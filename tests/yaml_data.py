"""YAML test data, read through libyaml when PyYAML has it (the same safe loader, its scanner in
C): the case files are read at collection by several modules in every pytest worker, where the
pure-Python scanner took seconds of each run."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(text: str) -> Any:
    """``yaml.safe_load(text)``."""
    return yaml.load(text, Loader=LOADER)


def load_all(text: str) -> Iterator[Any]:
    """``yaml.safe_load_all(text)``."""
    return yaml.load_all(text, Loader=LOADER)
