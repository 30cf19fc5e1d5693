"""The shape of the code, checked: no module reaches into another's private names, and one module
owns the per-request state (``flask.g``). mypy and the import contracts (pyproject.toml) run
beside the tests in ``make test``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(
    path
    for directory in ("app", "config", "migrations")
    for path in (ROOT / directory).rglob("*.py")
)
REQUEST_RECORD = ROOT / "app" / "http" / "record.py"
PROJECT = {"app", "config", "migrations"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolved(path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def private_reaches(path: Path) -> list[str]:
    """``from x import _y``, ``import x._y`` and ``x._y`` for a module ``x`` of the project it
    imported (the standard library's ``os._exit`` is public, whatever its name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    modules = set()  # local names bound to imported modules
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _resolved(path, node)
            if source.split(".")[0] not in PROJECT:
                continue
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"{path.name}:{node.lineno} imports {source}.{alias.name}")
                modules.add(alias.asname or alias.name)  # a name may be a module; checked below
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] not in PROJECT:
                    continue
                if any(_private(part) for part in alias.name.split(".")):
                    found.append(f"{path.name}:{node.lineno} imports {alias.name}")
                modules.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.value.id not in ("self", "cls")
        ):
            found.append(f"{path.name}:{node.lineno} reads {node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_module_reaches_into_another_modules_private_names(path):
    assert private_reaches(path) == []


def test_the_checker_sees_a_private_reach(tmp_path):
    module = tmp_path / "reaching.py"
    module.write_text(
        "from app.http.record import _secret\nimport app.store.codec as codec\ncodec._hidden\n",
        encoding="utf-8",
    )
    assert [line.split(" ", 1)[1] for line in private_reaches(module)] == [
        "imports app.http.record._secret",
        "reads codec._hidden",
    ]


def test_only_the_request_record_touches_flask_g():
    touching = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "flask":
                if any(alias.name == "g" for alias in node.names):
                    touching.append(path)
            elif (
                isinstance(node, ast.Attribute)
                and node.attr == "g"
                and isinstance(node.value, ast.Name)
                and node.value.id == "flask"
            ):
                touching.append(path)
    assert touching == [REQUEST_RECORD]


def test_the_code_cites_the_rules_in_the_repository():
    """``rules §N`` names a section of docs/rules.md; nothing cites a document outside it."""
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", rules, flags=re.MULTILINE))
    cited = set()
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        assert "SPEC §" not in text, path
        cited |= set(re.findall(r"rules §(\d+(?:\.\d+)?)", text))
    assert cited, "no citation found: has the convention changed?"
    assert cited <= sections, sorted(cited - sections)
