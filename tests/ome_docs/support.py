"""The cases of ``tests/ome_docs/cases/``, one file a page of OME's documentation, as pytest
parameters (the test that posts them, and the command-line tests that send their manifests)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests import yaml_data

CASES_DIR = Path(__file__).parent / "cases"


def load_cases() -> list[Any]:
    params = []
    for path in sorted(CASES_DIR.glob("*.yaml")):
        cases = yaml_data.load(path.read_text(encoding="utf-8"))
        assert isinstance(cases, list), f"{path.name}: a list of cases"
        for case in cases:
            params.append(pytest.param(case, id=f"{path.stem}::{case['name']}"))
    return params
