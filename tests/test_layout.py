"""The shape of the code, checked: no module reaches into another's private names, a package of
the rules is imported through its face (its ``__init__``) only, and one module owns the
per-request state (``flask.g``). mypy and the import contracts (pyproject.toml) run beside the
tests in ``make test``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.paths import ROOT

SOURCES = sorted(
    path
    for directory in ("app", "config", "migrations")
    for path in (ROOT / directory).rglob("*.py")
)
REQUEST_RECORD = ROOT / "app" / "http" / "record.py"
PROJECT = {"app", "config", "migrations"}
RULES = "app.selection"
# The packages of the rules, each imported through its face (docs/development.md § Layout).
FACES = sorted(
    f"{RULES}.{path.parent.name}" for path in (ROOT / "app" / "selection").glob("*/__init__.py")
)


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


def _exported(face: str) -> set[str]:
    init = ROOT.joinpath(*face.split("."), "__init__.py")
    for node in ast.parse(init.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            return {element.value for element in node.value.elts}  # type: ignore[attr-defined]
    return set()


def _face_of(module: str) -> str | None:
    return next((f for f in FACES if module == f or module.startswith(f + ".")), None)


def face_reaches(path: Path, faces: dict[str, set[str]] | None = None) -> list[str]:
    """Imports of a package of the rules from outside it that pass its face: a module of the
    package (``from app.selection.ranking.checks import …``, ``import …``) or a name its
    ``__init__`` does not export (``from app.selection.ranking import _x``, ``ranking.x``)."""
    faces = faces if faces is not None else {face: _exported(face) for face in FACES}
    importer = _module_name(path) if path.is_relative_to(ROOT) else path.stem
    found = []
    bound = {}  # local name -> the face it is bound to

    def outside(module: str) -> str | None:
        face = _face_of(module)
        inside = face is not None and (importer == face or importer.startswith(face + "."))
        return None if inside else face

    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _resolved(path, node)
            for alias in node.names:
                target = f"{source}.{alias.name}"
                if source in faces and outside(source):
                    if alias.name not in faces[source]:
                        found.append(f"{path.name}:{node.lineno} imports {target}")
                elif outside(source):
                    found.append(f"{path.name}:{node.lineno} imports {target}")
                elif target in faces and outside(target):
                    bound[alias.asname or alias.name] = target
        elif isinstance(node, ast.Import):
            for alias in node.names:
                face = outside(alias.name)
                if face is not None and alias.name != face:
                    found.append(f"{path.name}:{node.lineno} imports {alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            face = bound.get(node.value.id)
            if face is not None and node.attr not in faces[face]:
                found.append(f"{path.name}:{node.lineno} reads {face}.{node.attr}")
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(ROOT)))
def test_a_package_of_the_rules_is_imported_through_its_face_only(path):
    assert face_reaches(path) == []


def test_the_checker_sees_a_reach_past_a_face(tmp_path):
    module = tmp_path / "reaching.py"
    module.write_text(
        "from app.selection.ranking import Ranking, rank_runtimes\n"
        "from app.selection.ranking.checks import RuntimeChecks\n"
        "import app.selection.ranking.selector\n"
        "from app.selection import values as doc\n"
        "doc.Runtime\n"
        "doc.documents\n",
        encoding="utf-8",
    )
    faces = {f"{RULES}.ranking": {"Ranking"}, f"{RULES}.values": {"Runtime"}}
    assert [line.split(" ", 1)[1] for line in face_reaches(module, faces)] == [
        "imports app.selection.ranking.rank_runtimes",
        "imports app.selection.ranking.checks.RuntimeChecks",
        "imports app.selection.ranking.selector",
        "reads app.selection.values.documents",
    ]


def test_each_face_exports_its_own_names_and_no_name_has_two_faces():
    """One import path per public name: a face re-exports only its own package's modules, and
    no two faces export one name."""
    owners: dict[str, list[str]] = {}
    for face in FACES:
        init = ROOT.joinpath(*face.split("."), "__init__.py")
        tree = ast.parse(init.read_text(encoding="utf-8"))
        imported = set()
        for node in tree.body:
            if isinstance(node, ast.ImportFrom):
                assert node.level == 1 and node.module, f"{face} re-exports {node.module}"
                imported |= {alias.asname or alias.name for alias in node.names}
        exported = _exported(face)
        assert exported and exported == imported, face
        for name in exported:
            owners.setdefault(name, []).append(face)
    assert {name: where for name, where in owners.items() if len(where) > 1} == {}


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


# A file name two modules of app/ may share: the package's own.
SHARED_FILE_NAMES = {"__init__.py", "__main__.py"}


def repeated_file_names(root: Path) -> dict[str, list[str]]:
    seen: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        if path.name not in SHARED_FILE_NAMES:
            seen.setdefault(path.name, []).append(str(path.relative_to(root)))
    return {name: paths for name, paths in seen.items() if len(paths) > 1}


def test_no_two_modules_of_the_app_share_a_file_name():
    """One name, one thing: ``ranking.py`` names one module, wherever a reader meets it."""
    assert repeated_file_names(ROOT / "app") == {}


def test_the_name_checker_sees_a_repeated_name(tmp_path):
    for package in ("http", "rendering"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
        (tmp_path / package / "ranking.py").write_text("")
    assert repeated_file_names(tmp_path) == {
        "ranking.py": ["http/ranking.py", "rendering/ranking.py"]
    }


def _classes_by_module() -> dict[str, str]:
    """Each class name of the project defined in exactly one module, and that module."""
    owners: dict[str, set[str]] = {}
    for path in SOURCES:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not _private(node.name):
                owners.setdefault(node.name, set()).add(_module_name(path))
    return {name: next(iter(where)) for name, where in owners.items() if len(where) == 1}


def _re_exporters(name: str, module: str) -> list[str]:
    """The packages above ``module`` whose ``__init__`` imports ``name``, innermost first."""
    found = []
    parts = module.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        package = ".".join(parts[:cut])
        init = ROOT.joinpath(*parts[:cut], "__init__.py")
        if not init.exists():
            continue
        tree = ast.parse(init.read_text(encoding="utf-8"))
        if any(
            isinstance(node, ast.ImportFrom) and any(a.name == name for a in node.names)
            for node in tree.body
        ):
            found.append(package)
    return found


def the_one_path(name: str, module: str, importer: str) -> str:
    """Where ``importer`` takes the class ``name`` of ``module`` from: the outermost package that
    re-exports it and does not hold the importer, else the module that defines it."""
    outside = [
        package
        for package in _re_exporters(name, module)
        if not (importer == package or importer.startswith(package + "."))
    ]
    return outside[-1] if outside else module


def second_paths(paths: list[Path]) -> list[str]:
    classes = _classes_by_module()
    found = []
    for path in paths:
        importer = _module_name(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = _resolved(path, node)
            if source.split(".")[0] not in PROJECT:
                continue
            for alias in node.names:
                module = classes.get(alias.name)
                if module is None or source == importer:
                    continue
                if source != module and source not in _re_exporters(alias.name, module):
                    continue  # another thing of the same name
                wanted = the_one_path(alias.name, module, importer)
                if source != wanted:
                    found.append(f"{importer}: {alias.name} from {source}, not {wanted}")
    return found


def test_each_public_type_is_imported_by_one_path():
    """``Ranking`` from ``app.selection.ranking`` everywhere outside it, never from the module
    that defines it; a class no package re-exports, from its module."""
    assert second_paths(SOURCES) == []


def test_the_path_checker_sees_a_second_path():
    ranked = "app.selection.ranking.ranked"
    assert the_one_path("Ranking", ranked, "app.api.ranking") != ranked
    assert the_one_path("Ranking", ranked, "app.selection.ranking.selector") == ranked
