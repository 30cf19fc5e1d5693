"""app/cli/serve.py: ``serve --help`` sends the reader to a page that exists."""

from __future__ import annotations

import re

from tests.cli.support import ROOT, invoke


def test_the_help_cites_pages_that_exist():
    result = invoke("serve", "--help")
    assert result.exit_code == 0
    text = " ".join(result.stdout.split())  # click wraps the help
    cited = re.findall(r"docs/[\w./-]+\.md", text)
    assert cited == ["docs/configuration.md"]
    assert all((ROOT / page).is_file() for page in cited)
    # A README section, when one is cited, is a heading of the README.
    headings = re.findall(r"^#+ (.+)$", (ROOT / "README.md").read_text(), re.MULTILINE)
    for section in re.findall(r'README "([^"]+)"', text):
        assert section in headings, section
