"""``app/rendering/finding_codes.py``: a help line for every code docs/lint.md's table lists,
each pointing at an anchor its page has."""

from __future__ import annotations

import re
from pathlib import Path

from app.rendering.finding_codes import CODE_HELP, LINT_PAGE, help_of
from tests.docs.markdown import anchors

DOCS = Path(__file__).resolve().parents[2] / "docs"


def table_codes() -> set[str]:
    text = (DOCS / "lint.md").read_text()
    table = text[text.index("| severity | code | what OME does |") :].split("\n\n", 1)[0]
    return {
        code
        for row in table.splitlines()[2:]
        for code in re.findall(r"`([A-Za-z]+)`", row.split("|")[2])
    }


def test_every_code_of_the_table_has_help_and_no_other_lint_code_does():
    lint_codes = {code for code, found in CODE_HELP.items() if found.page == LINT_PAGE}
    assert lint_codes == table_codes()


def test_every_code_points_at_an_anchor_of_its_page():
    for found in CODE_HELP.values():
        assert found.anchor in anchors(DOCS / found.page), found.code
        assert found.uri("https://x/docs") == f"https://x/docs/{found.page}#{found.anchor}"


def test_a_code_this_version_does_not_know_points_at_the_lint_section():
    found = help_of("SomethingNew")
    assert (found.page, found.anchor) == (LINT_PAGE, "lint")
    assert found.anchor in anchors(DOCS / LINT_PAGE)
