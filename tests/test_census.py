"""The tests mirror ``app/`` (docs/development.md § Tests): every package of ``app/`` has a test
package of the same path under ``tests/`` that holds tests, and every module of ``app/`` is
imported by name (``import app.x.y``, ``from app.x.y import …`` or ``from app.x import y``) by at
least one file of the tests, but for the few listed below, each with the reason it is reached
only through a higher layer. An exception that a test comes to import is an error too: the list
only shrinks."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import ROOT

APP = ROOT / "app"
TESTS = ROOT / "tests"

VIEW = "a view: its routes are requested through the app by tests/api"
COMMAND = "a command of the click group: run as `ome-ranker …` by tests/cli"
PIPELINE = "the request pipeline inside the app: tests/http and tests/api send it requests"
WORKER = "runs inside a gunicorn worker process: tests/hostile drives real ones"
NO_CODE = "a package's docstring, no code"

# Modules no test file imports by name, and why.
NOT_IMPORTED = {
    "app.api.clusters": VIEW,
    "app.api.fleet": VIEW,
    "app.api.impact": VIEW,
    "app.api.lint": VIEW,
    "app.api.operations": VIEW,
    "app.api.ranking": VIEW,
    "app.api.selections": VIEW,
    "app.cli.__main__": "`python -m app.cli`: run as a process by tests/cli/test_cli_install.py",
    "app.cli.check_options": COMMAND,
    "app.cli.commands": COMMAND,
    "app.cli.expectation_run": COMMAND,
    "app.cli.options": COMMAND,
    "app.cli.push": COMMAND,
    "app.cli.reports": COMMAND,
    "app.cli.serve": "execs gunicorn: run as `ome-ranker serve` by tests/cli/test_cli_install.py",
    "app.cli.tokens": COMMAND,
    "app.http.body": PIPELINE,
    "app.http.cached": PIPELINE,
    "app.http.error_answers": PIPELINE,
    "app.http.query": PIPELINE,
    "app.http.rank_request": PIPELINE,
    "app.http.respond": PIPELINE,
    "app.rendering": NO_CODE,
    "app.schemas.crd.vendor": "regenerates the vendored CRD schemas from an OME checkout, by hand",
    "app.worker": NO_CODE,
    "app.worker.client_loop": WORKER,
    "app.worker.connection": WORKER,
    "app.worker.worker": WORKER,
}
# Packages of app/ without a test package of their own, and why.
NO_TEST_PACKAGE = {
    "app.api.examples": "the OpenAPI description's examples, data the service computes: "
    "tests/api/test_openapi.py holds them to its answers",
}


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def app_modules(app: Path = APP) -> set[str]:
    return {module_name(path, app.parent) for path in app.rglob("*.py")}


def app_packages(app: Path = APP) -> set[str]:
    return {module_name(path, app.parent) for path in app.rglob("__init__.py")}


def imported_names(path: Path) -> set[str]:
    """Every module a file names in an import, and every ``module.name`` it imports from one
    (a name that is a submodule is then the submodule's)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def files_of_tests(tests: Path = TESTS) -> list[Path]:
    return [path for path in tests.rglob("*.py") if "fixtures" not in path.parts]


def unimported(modules: set[str], files: list[Path]) -> set[str]:
    named = set().union(*(imported_names(path) for path in files))
    return modules - named


def missing_test_packages(packages: set[str], tests: Path = TESTS) -> set[str]:
    """The packages of app/ whose path under tests/ is no package holding a test file."""
    missing = set()
    for package in packages:
        directory = tests.joinpath(*package.split(".")[1:])
        holds_tests = (directory / "__init__.py").is_file() and any(directory.glob("test_*.py"))
        if not holds_tests:
            missing.add(package)
    return missing


def test_every_package_of_the_app_has_a_test_package_of_its_name():
    assert missing_test_packages(app_packages()) == set(NO_TEST_PACKAGE)


def test_every_module_of_the_app_is_imported_by_a_test_but_the_exceptions():
    assert sorted(unimported(app_modules(), files_of_tests())) == sorted(NOT_IMPORTED)


def test_the_exceptions_are_modules_of_the_app():
    assert set(NOT_IMPORTED) <= app_modules()
    assert set(NO_TEST_PACKAGE) <= app_packages()


def helper_imports(files: list[Path]) -> list[str]:
    """Imports of a conftest or of a test module: helpers belong in builder modules."""
    found = []
    for path in files:
        for name in imported_names(path):
            last = name.split(".")[-1]
            if name.startswith("tests.") and (last == "conftest" or last.startswith("test_")):
                where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
                found.append(f"{where}: {name}")
    return found


def test_no_test_file_imports_a_conftest_or_another_test_module():
    """Fixtures come from conftest files by name; helpers from builders.py or support.py."""
    assert helper_imports(files_of_tests()) == []


def test_each_slow_group_of_a_directory_names_a_directory_of_the_tests():
    """tests/conftest.py marks a slow group by the top directory a test is in: one that moved
    away would leave its tests unmarked, in the fast loop."""
    conftest = ast.parse((TESTS / "conftest.py").read_text(encoding="utf-8"))
    [table] = [
        node.value
        for node in conftest.body
        if isinstance(node, ast.Assign)
        and any(getattr(target, "id", None) == "GROUP_OF_DIRECTORY" for target in node.targets)
    ]
    directories = ast.literal_eval(table)
    assert directories, "no slow group by directory: has the convention changed?"
    for directory in directories:
        assert (TESTS / directory / "__init__.py").is_file(), directory


def test_the_census_sees_each_form_of_import(tmp_path):
    app = tmp_path / "app"
    for package in ("", "http", "store"):
        (app / package).mkdir(exist_ok=True)
        (app / package / "__init__.py").write_text("")
    for module in ("http/limits.py", "http/query.py", "store/state.py", "store/records.py"):
        (app / module).write_text("")
    tests = tmp_path / "tests"
    (tests / "http").mkdir(parents=True)
    (tests / "__init__.py").write_text("")
    (tests / "http" / "__init__.py").write_text("")
    (tests / "http" / "test_limits.py").write_text(
        "import app.http.limits\nfrom app.store import state\n"
    )
    (tests / "store").mkdir()
    (tests / "store" / "__init__.py").write_text("")  # a package without tests
    (tests / "test_other.py").write_text("from app.store.records import x\n")
    modules = app_modules(app)
    assert modules == {
        "app",
        "app.http",
        "app.http.limits",
        "app.http.query",
        "app.store",
        "app.store.records",
        "app.store.state",
    }
    # app.store is named by `from app.store import state`; app.http by no import
    assert unimported(modules, files_of_tests(tests)) == {"app", "app.http", "app.http.query"}
    assert missing_test_packages(app_packages(app), tests) == {"app.store"}
    (tests / "test_reaching.py").write_text(
        "from tests.http.test_limits import x\nfrom tests.store import conftest\n"
    )
    assert sorted(found.split(": ")[1] for found in helper_imports(files_of_tests(tests))) == [
        "tests.http.test_limits",
        "tests.store.conftest",
    ]
