"""``.ome-ranker.yaml``: a repository's settings for the checks, found from the working directory
upwards (or named with ``--config``), as kube-linter's ``.kube-linter.yaml`` is:

```yaml
failOn: warning        # the lowest severity that fails the command (error, warning, info)
severity: info         # the lowest printed (every output format)
allowEmpty: false      # true: reading no object to check is not an error
docsUrl: https://…     # where docs/ is published: the SARIF rules' helpUri
ignore:                # findings not to report: each entry's fields must all match
  - code: NoAutoSelect
    kind: ClusterServingRuntime   # optional, as are namespace, name and path
    name: legacy-*                # globs: name, namespace, path
    path: runtimes/old/*.yaml     # the manifest's file, relative to this file's directory
```

Options given on the command line win over the file's.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any, NoReturn

from .output import BAD_INPUT, Failure

CONFIG_NAME = ".ome-ranker.yaml"
SEVERITY_NAMES = ("error", "warning", "info")
_KEYS = ("failOn", "severity", "allowEmpty", "docsUrl", "ignore")
_IGNORE_KEYS = ("code", "kind", "namespace", "name", "path")
MAX_CONFIG_BYTES = 1024 * 1024


@dataclass(frozen=True)
class IgnoreRule:
    code: str
    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    path: str | None = None
    origin: str = ""  # "file:line" of the entry, for the reason given with a suppression

    def matches(
        self, code: str, kind: str | None, namespace: str | None, name: str | None, files: list[str]
    ) -> bool:
        """``files``: the manifest's file as the command names it and relative to the
        configuration's directory (a glob matches either)."""
        if code != self.code or self.kind not in (None, kind):
            return False
        if self.namespace is not None and not fnmatchcase(namespace or "", self.namespace):
            return False
        if self.name is not None and not fnmatchcase(name or "", self.name):
            return False
        return self.path is None or any(fnmatchcase(file, self.path) for file in files)


@dataclass(frozen=True)
class ProjectConfig:
    path: str | None = None
    ignore: tuple[IgnoreRule, ...] = ()
    fail_on: str | None = None
    severity: str | None = None
    allow_empty: bool | None = None
    docs_url: str | None = None

    def files_for_globs(self, file: str | None) -> list[str]:
        """A manifest's file as the command names it, and relative to this file's directory."""
        if file is None:
            return []
        names = [file]
        if self.path is not None and os.path.exists(file):
            base = os.path.dirname(os.path.abspath(self.path))
            names.append(os.path.relpath(os.path.abspath(file), base).replace(os.sep, "/"))
        return names

    def ignored_by(
        self, code: str, kind: str | None, namespace: str | None, name: str | None, file: str | None
    ) -> IgnoreRule | None:
        files = self.files_for_globs(file)
        for rule in self.ignore:
            if rule.matches(code, kind, namespace, name, files):
                return rule
        return None


def find_config(start: str) -> str | None:
    """``.ome-ranker.yaml`` in ``start`` or the nearest directory above it that has one."""
    directory = os.path.abspath(start)
    while True:
        candidate = os.path.join(directory, CONFIG_NAME)
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def load_config(explicit: str | None, start: str | None = None) -> ProjectConfig:
    """The file named (which must exist), else the one found upwards from ``start`` (the
    working directory), else no settings."""
    path = explicit if explicit is not None else find_config(start or os.getcwd())
    if path is None:
        return ProjectConfig()
    shown = shown_path(path)
    raw, settings = read_settings_file(shown)
    return _parse(raw, shown, settings)


def shown_path(path: str) -> str:
    """A path as messages name it: relative to here when it is below, else as it is."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def read_settings_file(path: str) -> tuple[bytes, Any]:
    """A settings file's bytes and its one document (None when empty), as the service reads
    YAML; exit 2 for one that cannot be read or holds several documents."""
    from app.errors import MalformedRequest
    from app.reading.yaml_loader import load_documents

    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as error:
        raise Failure(f"{path}: cannot read: {error.strerror}", BAD_INPUT) from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise Failure(f"{path}: larger than {MAX_CONFIG_BYTES} bytes", BAD_INPUT)
    try:
        documents = [d for d in load_documents(raw) if d is not None]
    except MalformedRequest as error:
        raise Failure(f"{path}: {error.message.removeprefix('request body ')}", BAD_INPUT) from None
    if len(documents) > 1:
        raise Failure(f"{path}: must be one YAML document", BAD_INPUT)
    return raw, documents[0] if documents else None


def _parse(raw: bytes, path: str, settings: Any) -> ProjectConfig:
    if settings is None:
        return ProjectConfig(path=path)
    if not isinstance(settings, dict):
        raise Failure(f"{path}: must be one mapping (failOn, severity, ignore …)", BAD_INPUT)
    reader = SettingsReader(raw, path)
    reader.known(settings, _KEYS, "")
    ignore = settings.get("ignore") or []
    if not isinstance(ignore, list):
        reader.refuse("ignore", "must be a list of {code, kind, namespace, name, path}")
    rules = tuple(reader.rule(entry, index) for index, entry in enumerate(ignore))
    return ProjectConfig(
        path=path,
        ignore=rules,
        fail_on=reader.severity(settings, "failOn"),
        severity=reader.severity(settings, "severity"),
        allow_empty=reader.boolean(settings, "allowEmpty"),
        docs_url=reader.text(settings, "docsUrl", ""),
    )


class SettingsReader:
    """Reads a settings file's values, refusing what is wrong with ``file:line: …`` (exit 2),
    the line found by the field's path."""

    def __init__(self, raw: bytes, path: str) -> None:
        self.raw, self.path = raw, path

    def position(self, field: str) -> tuple[int, int] | None:
        """The line and column of a field's key (``cases[2].expect.runtime``)."""
        from app.reading.positions import Spot, positions

        spot = Spot(0, field)
        found = positions(self.raw, True, [spot]).get(spot)
        return None if found is None else (found.line, found.column)

    def where(self, field: str) -> str:
        found = self.position(field)
        return f"{self.path}:{found[0]}" if found else self.path

    def refuse(self, field: str, problem: str) -> NoReturn:
        raise Failure(f"{self.where(field)}: {field}: {problem}", BAD_INPUT)

    def known(self, mapping: dict, keys: tuple[str, ...], prefix: str) -> None:
        for key in mapping:
            if key not in keys:
                close = difflib.get_close_matches(key, keys, n=1)
                hint = f"; did you mean {close[0]}?" if close else f" (known: {', '.join(keys)})"
                self.refuse(f"{prefix}{key}", f"unknown setting{hint}")

    def severity(self, settings: dict, key: str) -> str | None:
        value = settings.get(key)
        if value is not None and value not in SEVERITY_NAMES:
            self.refuse(key, f"must be one of {', '.join(SEVERITY_NAMES)}")
        return value

    def boolean(self, settings: dict, key: str) -> bool | None:
        value = settings.get(key)
        if value is not None and not isinstance(value, bool):
            self.refuse(key, "must be true or false")
        return value

    def text(self, mapping: dict, key: str, prefix: str) -> str | None:
        value = mapping.get(key)
        if value is not None and (not isinstance(value, str) or not value):
            self.refuse(f"{prefix}{key}", "must be a non-empty string")
        return value

    def rule(self, entry: Any, index: int) -> IgnoreRule:
        prefix = f"ignore[{index}]."
        if not isinstance(entry, dict):
            self.refuse(f"ignore[{index}]", "must be a mapping with a code")
        self.known(entry, _IGNORE_KEYS, prefix)
        if entry.get("code") is None:
            self.refuse(f"ignore[{index}]", "needs a code")
        return IgnoreRule(
            code=entry["code"] if self.text(entry, "code", prefix) else "",
            kind=self.text(entry, "kind", prefix),
            namespace=self.text(entry, "namespace", prefix),
            name=self.text(entry, "name", prefix),
            path=self.text(entry, "path", prefix),
            origin=self.where(f"ignore[{index}]"),
        )
