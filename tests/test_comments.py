"""Timing figures live in bench/README.md only (docs/development.md § Benchmarks): the
comments and docstrings of ``app/`` and ``config/`` say why a choice was made and point there
for how much, so that a figure is re-measured in one place rather than copied, and never left
to disagree with another copy of itself.

A timing figure here is a duration in a unit below the second (``3 µs``, ``18-25 ms``, ``1.1 ->
0.6 ms``, "tens of microseconds"), a speed ratio (``5x faster``, ``2.5×``, "a hundred times
faster", ``25% faster``) or CPU time (``~2 s``, ``3 s of CPU``). Whole seconds alone are the
settings' (timeouts, deadlines, periods: ``the 30 s worker timeout``) and stay where they are
set."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from tests.paths import ROOT

SOURCES = sorted(
    path for directory in ("app", "config") for path in (ROOT / directory).rglob("*.py")
)
_NUMBER = r"\d[\d,.]*"
_RANGE = rf"{_NUMBER}(?:\s?(?:-|–|->|→|to)\s?{_NUMBER})?"
TIMING_FIGURE = re.compile(
    "|".join(
        (
            rf"~?{_RANGE}\s?(?:ns|µs|us|ms)\b",  # 3 us, ~1 ms, 18-25 ms, 1.1 -> 0.6 ms
            rf"{_NUMBER}\s?(?:x|×)\s?(?:faster|slower|cheaper|quicker|the\s+time)",  # 5x faster
            r"\d×",  # 2.5×
            r"\b(?:\d+|ten|tens|hundred|hundreds|thousand|thousands)\s+(?:of\s+)?times\s+"
            r"(?:faster|slower|cheaper)",  # a hundred times faster
            rf"{_NUMBER}\s?%\s+(?:faster|slower|cheaper)",  # 25% faster
            r"\b(?:nano|micro|milli)seconds?\b(?!\s+since)",  # tens of microseconds
            rf"~\s?{_NUMBER}\s?s\b",  # ~2 s
            rf"{_NUMBER}\s?s\s+of\s+CPU|CPU[- ]seconds?|\bseconds?\s+of\s+CPU",  # 3 s of CPU
        )
    ),
    flags=re.IGNORECASE,
)


def comments_and_docstrings(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of each comment and each module, class or function docstring."""
    found = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            docstring = ast.get_docstring(node, clean=False)
            if docstring is not None:
                found.append((node.body[0].lineno, docstring))
    return sorted(found)


def timing_figures(path: Path) -> list[str]:
    return [
        f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{line}: "
        f"{match.group(0)!r}"
        for line, text in comments_and_docstrings(path.read_text(encoding="utf-8"))
        for match in TIMING_FIGURE.finditer(" ".join(text.split()))
    ]


def test_no_comment_or_docstring_of_the_app_holds_a_timing_figure():
    """Say why here and point to bench/README.md § "Figures behind the code" for how much."""
    assert [figure for path in SOURCES for figure in timing_figures(path)] == []


def test_the_scan_sees_a_timing_figure_in_a_comment_and_a_docstring(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        '"""A module whose walk took 18-25 ms."""\n'
        "\n"
        "LIMIT = 3  # composes a node in ~3 us\n"
        "\n"
        "\n"
        "def scan():\n"
        '    """C-level, 5x faster, ~25% faster than a flat list, 1.1 -> 0.6 ms."""\n'
        '    return "1 ms, 5x faster"  # a string, not a comment: not a figure of the code\n'
        "\n"
        "\n"
        "class Pass:\n"
        '    """A pass costs a few tens of nanoseconds an object, about a hundred times\n'
        '    faster, 2.5× the time, ~2 s, 3 s of CPU."""\n',
        encoding="utf-8",
    )
    assert [found.split(": ", 1)[1] for found in timing_figures(planted)] == [
        "'18-25 ms'",
        "'~3 us'",
        "'5x faster'",
        "'25% faster'",
        "'1.1 -> 0.6 ms'",
        "'nanoseconds'",
        "'hundred times faster'",
        "'2.5× the time'",
        "'~2 s'",
        "'3 s of CPU'",
    ]


def test_settings_and_units_are_not_timing_figures(tmp_path):
    """Whole seconds are the settings', and a unit named is not a duration measured."""
    planted = tmp_path / "settings.py"
    planted.write_text(
        "# longer than the 30 s worker timeout; a token file in force within 5 s\n"
        '"""Milliseconds since the epoch; rankings × runtimes; many times faster (bench/)."""\n',
        encoding="utf-8",
    )
    assert timing_figures(planted) == []
