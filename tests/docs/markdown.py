"""What the documentation tests read in the Markdown pages: fenced blocks (the shell blocks marked
to run as written, with the output shown after them), headings and their anchors, links, and
the paths a page names in backticks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests.paths import ROOT

README = ROOT / "README.md"
DOCS = ROOT / "docs"
# The README and the reference; examples/README.md is a page of links too.
PAGES = (README, *sorted(DOCS.glob("*.md")), ROOT / "examples" / "README.md")

# The line right before a shell block's fence that says it runs as written (docs/development.md).
RUNS_AS_WRITTEN = "<!-- runs as written -->"
FENCE = re.compile(r"^```(\w*)\s*$")
HEADING = re.compile(r"^(#{1,6}) (.+?)\s*$")
NAMED_ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
LINK = re.compile(r"\]\(([^)\s]+)\)")
INLINE_CODE = re.compile(r"(?<!`)`([^`\s]+)`(?!`)")
EXIT_COMMENT = re.compile(r"\s#.*\bexit (\d+)\b")
# How a path a page names looks: a top-level name of the repository, or a file or directory.
PATH_SUFFIXES = (".py", ".yaml", ".yml", ".json", ".md", ".txt", ".toml", ".cfg", ".sqlite3")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int  # of the opening fence, from 1
    language: str
    text: str
    runs: bool  # marked to run as written
    output: str | None  # the text block right after a block that runs

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


@dataclass(frozen=True)
class Command:
    text: str
    line: int  # in the page, from 1
    exit_code: int  # 0 unless its comment says `# … exit N`


def blocks(page: Path) -> list[Block]:
    """Every fenced block of ``page``, with what follows it."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[tuple[int, str, list[str], bool]] = []
    index = 0
    while index < len(lines):
        fence = FENCE.match(lines[index])
        if fence is None:
            index += 1
            continue
        start, body = index, []
        index += 1
        while index < len(lines) and lines[index].rstrip() != "```":
            body.append(lines[index])
            index += 1
        runs = start > 0 and lines[start - 1].strip() == RUNS_AS_WRITTEN
        found.append((start, fence.group(1), body, runs))
        index += 1
    result = []
    for position, (start, language, body, runs) in enumerate(found):
        output = None
        if runs and position + 1 < len(found):
            after, next_language, next_body, _ = found[position + 1]
            between = lines[start + len(body) + 2 : after]
            if next_language == "text" and not any(line.strip() for line in between):
                output = "".join(line + "\n" for line in next_body)
        text = "".join(line + "\n" for line in body)
        result.append(Block(page, start + 1, language, text, runs, output))
    return result


def commands(block: Block) -> list[Command]:
    """The commands of a shell block: a line, with the lines its ``\\`` or ``|`` continues, or a
    ``{ … }`` group; comment lines between them are left out."""
    found: list[Command] = []
    current: list[str] = []
    start = 0
    in_group = False
    for offset, line in enumerate(block.text.splitlines()):
        stripped = line.strip()
        if not current and (not stripped or stripped.startswith("#")):
            continue
        if not current:
            start = block.line + 1 + offset
            in_group = stripped == "{"
        current.append(line)
        if in_group:
            if stripped.startswith("}"):
                in_group = False
            else:
                continue
        code = stripped.split(" #", 1)[0].rstrip()
        if code.endswith(("\\", "|")):
            continue
        match = EXIT_COMMENT.search(line)
        found.append(Command("\n".join(current), start, int(match.group(1)) if match else 0))
        current = []
    assert not current, f"{block.name}: a command is not finished"
    return found


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to ``-``."""
    text = re.sub(r"[`*_]", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings and its ``<a id="…">`` (the codes of docs/lint.md's
    table), not of the lines of its code blocks."""
    found, in_fence = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        heading = HEADING.match(line)
        if heading:
            found.add(slug(heading.group(2)))
        found.update(NAMED_ANCHOR.findall(line))
    return found


def prose(page: Path) -> str:
    """A page without its fenced blocks."""
    kept, in_fence = [], False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        if not in_fence:
            kept.append(line)
    return "\n".join(kept)


def links(page: Path) -> list[str]:
    """Link targets, outside code (where ``](`` may be part of a pattern)."""
    return LINK.findall(re.sub(r"`[^`\n]*`", "", prose(page)))


def named_paths(page: Path) -> set[str]:
    """What the page names in backticks that is a path of the repository: it starts with a
    top-level name of the repository, or it ends like a file or a directory."""
    top = {entry.name for entry in ROOT.iterdir() if not entry.name.startswith(".")}
    found = set()
    for token in INLINE_CODE.findall(prose(page)):
        if token.startswith(("/", ".", "-", "<", "$", "http")) or ":" in token or "…" in token:
            continue
        first = token.split("/", 1)[0]
        if first in top or ("/" in token and token.endswith(("/", *PATH_SUFFIXES))):
            found.add(token)
    return found
