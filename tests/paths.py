"""Where the tests find the repository and their data, the same from any directory of tests/: a
test file that moves keeps its paths."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
SEED_YAML = (FIXTURES / "seed_example.yaml").read_bytes()
