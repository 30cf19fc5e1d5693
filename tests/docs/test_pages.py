"""The README stays a front door and the pages it leads to hold together: every link leads to a
file and heading that exist, every path the README names exists, and the example manifests
that copy test fixtures stay equal to them."""

from __future__ import annotations

import re

import pytest

from tests.docs.markdown import DOCS, PAGES, README, ROOT, anchors, links, named_paths

EXTERNAL = ("http://", "https://", "mailto:")
# The examples that are also test fixtures, read by tests that cannot move them.
COPIES = {
    "examples/seed.yaml": "tests/fixtures/seed_example.yaml",
    "examples/cluster.yaml": "tests/fixtures/kubectl_get_seed_cluster.yaml",
    "examples/accelerators.yaml": "tests/fixtures/select_accelerators.yaml",
}


def test_the_readme_is_short_and_leads_to_the_reference():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    pages = {target.split("#")[0] for target in links(README) if target.startswith("docs/")}
    assert len(pages) >= 4
    for section in (
        "## Quick start",
        "## Worked example",
        "## Documentation",
        "## Where the code is",
    ):
        assert f"\n{section}\n" in text, section


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_every_link_leads_somewhere(page):
    for target in links(page):
        if target.startswith(EXTERNAL):
            continue
        path, _, anchor = target.partition("#")
        destination = (page.parent / path).resolve() if path else page
        assert destination.exists(), f"{page.name}: {target}"
        if anchor:
            assert destination.suffix == ".md", f"{page.name}: {target}"
            assert anchor in anchors(destination), f"{page.name}: {target}"


def test_every_path_the_readme_names_exists():
    named = named_paths(README)
    assert {"examples/seed.yaml", "app/selection/", "requirements.txt"} <= named
    missing = sorted(path for path in named if not (ROOT / path).exists())
    assert missing == []


def test_every_docs_page_is_on_the_readmes_map():
    mapped = {target for target in links(README) if target.startswith("docs/")}
    assert {f"docs/{page.name}" for page in DOCS.glob("*.md")} <= mapped


def test_the_pages_cite_the_rules_by_their_own_name():
    """The rules are docs/rules.md; nothing the repository holds cites a document outside it."""
    for page in (*PAGES, ROOT / "CHANGELOG.md"):
        assert not re.search(r"\bSPEC\b", page.read_text(encoding="utf-8")), page.name


def test_the_rules_keep_their_section_numbers():
    """The code cites sections by number (§4), so the numbers are the headings'."""
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    numbers = re.findall(r"^## (\d+)\. ", text, flags=re.MULTILINE)
    assert numbers == [str(number) for number in range(1, 22)]
    for subsection in ("1.1", "1.2", "1.3", "3.1", "3.2", "3.3"):
        assert re.search(rf"^### {re.escape(subsection)} ", text, flags=re.MULTILINE), subsection


@pytest.mark.parametrize(("example", "fixture"), COPIES.items())
def test_examples_that_copy_a_fixture_are_equal_to_it(example, fixture):
    assert (ROOT / example).read_bytes() == (ROOT / fixture).read_bytes()
