"""YAML test data, read and written through libyaml when PyYAML has it (the same safe loader and
dumper, their scanner and emitter in C): the case files are read at collection by several
modules in every pytest worker, and some tests write thousands of objects, where the pure-Python
ones took seconds of each run."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def load(text: str) -> Any:
    """``yaml.safe_load(text)``."""
    return yaml.load(text, Loader=LOADER)


def load_all(text: str) -> Iterator[Any]:
    """``yaml.safe_load_all(text)``."""
    return yaml.load_all(text, Loader=LOADER)


def stream(*documents: Any) -> bytes:
    """``yaml.safe_dump_all(documents, sort_keys=False)``, encoded: a stream of manifests."""
    return yaml.dump_all(documents, Dumper=DUMPER, sort_keys=False).encode()
