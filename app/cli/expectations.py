"""``ome-ranker-test.yaml``: what OME must give each case of a repository's manifests, read and
checked against the manifests before anything is asked (docs/ci.md "ome-ranker test"):

```yaml
manifests: [manifests/]      # when no -f is given: read from here (relative to this file)
recursive: true              # as -R
cases:
  - name: chat gets vllm     # optional
    inferenceService: llama-demo/llama-chat      # or model: NAME (and namespace: NS)
    expect:
      runtime: vllm-llama    # null: OME selects none
      engineClass: nvidia-h100
      decoderClass: nvidia-h100
      admitted: true         # kubectl apply admits the case's object (no error finding)
      findings: [AutoSelected]        # codes lint must find on the case's object
      noFindings: [UnknownField]      # codes it must not
```

A runtime, a class or a code that the manifests (or lint) do not know is a usage error with a
"did you mean", never a plain mismatch: a typo in an expectation must not pass as a finding.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from typing import Any

from app.rendering.check_results import SourcePlace

from .output import BAD_INPUT, Failure
from .project_config import SettingsReader, read_settings_file, shown_path

TEST_FILE_NAME = "ome-ranker-test.yaml"
_KEYS = ("manifests", "recursive", "cases")
_CASE_KEYS = ("name", "inferenceService", "model", "namespace", "expect")
_EXPECT_KEYS = ("runtime", "engineClass", "decoderClass", "admitted", "findings", "noFindings")
_UNSET: Any = object()


@dataclass(frozen=True)
class Expectation:
    runtime: Any = _UNSET  # a name, None (no runtime), or _UNSET (not checked)
    classes: dict[str, str] = field(default_factory=dict)  # component -> class
    admitted: bool | None = None
    findings: tuple[str, ...] = ()
    no_findings: tuple[str, ...] = ()

    @property
    def checks_runtime(self) -> bool:
        return self.runtime is not _UNSET


@dataclass(frozen=True)
class TestCase:
    __test__ = False  # not a pytest class, whatever its name

    name: str
    index: int
    inference_service: str | None
    model: str | None
    namespace: str | None
    expect: Expectation
    place: SourcePlace  # the case's entry in the file
    places: dict[str, SourcePlace]  # each expectation's line: "runtime", "findings[1]" …


@dataclass(frozen=True)
class TestPlan:
    __test__ = False

    path: str
    manifests: tuple[str, ...]  # relative to here
    recursive: bool
    cases: tuple[TestCase, ...]


def read_plan(explicit: str | None) -> TestPlan:
    path = explicit if explicit is not None else TEST_FILE_NAME
    if explicit is None and not os.path.isfile(path):
        raise Failure(f"no {TEST_FILE_NAME} here: give the cases with --expectations PATH")
    shown = shown_path(path)
    raw, document = read_settings_file(shown)
    reader = SettingsReader(raw, shown)
    if not isinstance(document, dict):
        raise Failure(f"{shown}: must be a mapping with cases", BAD_INPUT)
    reader.known(document, _KEYS, "")
    manifests = document.get("manifests") or []
    if isinstance(manifests, str):
        manifests = [manifests]
    if not isinstance(manifests, list) or not all(isinstance(m, str) for m in manifests):
        reader.refuse("manifests", "must be a path or a list of paths")
    recursive = document.get("recursive", False)
    if not isinstance(recursive, bool):
        reader.refuse("recursive", "must be true or false")
    cases = document.get("cases")
    if not isinstance(cases, list) or not cases:
        reader.refuse("cases", "must be a list of at least one case")
    base = os.path.dirname(shown)
    return TestPlan(
        shown,
        tuple(os.path.normpath(os.path.join(base, m)) for m in manifests),
        recursive,
        tuple(_case(reader, entry, index) for index, entry in enumerate(cases)),
    )


def _place(reader: SettingsReader, path: str) -> SourcePlace:
    found = reader.position(path)
    return SourcePlace(reader.path, found[0] if found else None, found[1] if found else None)


def _case(reader: SettingsReader, entry: Any, index: int) -> TestCase:
    where = f"cases[{index}]"
    if not isinstance(entry, dict):
        reader.refuse(where, "must be a mapping: inferenceService or model, and expect")
    reader.known(entry, _CASE_KEYS, f"{where}.")
    texts = {key: reader.text(entry, key, f"{where}.") for key in _CASE_KEYS[:4]}
    if (texts["inferenceService"] is None) == (texts["model"] is None):
        reader.refuse(where, "needs an inferenceService (NS/NAME) or a model, not both")
    if texts["inferenceService"] is not None and texts["inferenceService"].count("/") != 1:
        reader.refuse(f"{where}.inferenceService", "write NAMESPACE/NAME")
    expect = entry.get("expect")
    if not isinstance(expect, dict) or not expect:
        reader.refuse(f"{where}.expect", "must be a mapping of what OME must give the case")
    reader.known(expect, _EXPECT_KEYS, f"{where}.expect.")
    prefix = f"{where}.expect."
    classes = {
        component: value
        for component, key in (("engine", "engineClass"), ("decoder", "decoderClass"))
        if (value := reader.text(expect, key, prefix)) is not None
    }
    admitted = expect.get("admitted")
    if admitted is not None and not isinstance(admitted, bool):
        reader.refuse(f"{prefix}admitted", "must be true or false")
    runtime = expect.get("runtime", _UNSET)
    if runtime is not _UNSET and runtime is not None:
        runtime = reader.text(expect, "runtime", prefix)
    places = {key: _place(reader, f"{prefix}{key}") for key in expect}
    for key in ("findings", "noFindings"):
        for position, _ in enumerate(_codes(reader, expect, key, prefix)):
            places[f"{key}[{position}]"] = _place(reader, f"{prefix}{key}[{position}]")
    name = texts["name"] or texts["inferenceService"] or _model_name(texts)
    return TestCase(
        name=name,
        index=index,
        inference_service=texts["inferenceService"],
        model=texts["model"],
        namespace=texts["namespace"],
        expect=Expectation(
            runtime=runtime,
            classes=classes,
            admitted=admitted,
            findings=_codes(reader, expect, "findings", prefix),
            no_findings=_codes(reader, expect, "noFindings", prefix),
        ),
        place=_place(reader, where),
        places=places,
    )


def _model_name(texts: dict[str, str | None]) -> str:
    model, namespace = texts["model"] or "", texts["namespace"]
    return f"model {namespace}/{model}" if namespace else f"model {model}"


def _codes(reader: SettingsReader, expect: dict, key: str, prefix: str) -> tuple[str, ...]:
    codes = expect.get(key) or []
    if isinstance(codes, str):
        codes = [codes]
    if not isinstance(codes, list) or not all(isinstance(c, str) and c for c in codes):
        reader.refuse(f"{prefix}{key}", "must be a code or a list of codes")
    return tuple(codes)


def did_you_mean(name: str, known: set[str]) -> str:
    close = difflib.get_close_matches(name, sorted(known), n=1)
    return f"; did you mean {close[0]}?" if close else ""


def check_names(
    plan: TestPlan, runtimes: set[str], classes: set[str], codes: set[str], read: str
) -> None:
    """Every runtime, class and code an expectation names is one the manifests hold (or lint
    has); else exit 2, at the expectation's line, with the nearest name."""
    problems = []
    for case in plan.cases:
        expect = case.expect
        named = []
        if expect.checks_runtime and expect.runtime is not None:
            named.append(("runtime", expect.runtime, runtimes, "runtime"))
        for component, name in expect.classes.items():
            named.append((f"{component}Class", name, classes, "AcceleratorClass"))
        for key, found in (("findings", expect.findings), ("noFindings", expect.no_findings)):
            named += [(f"{key}[{i}]", code, codes, "code") for i, code in enumerate(found)]
        for key, name, known, what in named:
            if name in known:
                continue
            place = case.places.get(key, case.place)
            where = f"{place.file}:{place.line}" if place.line else plan.path
            where_known = "lint's codes" if what == "code" else f"the manifests ({read})"
            problems.append(
                f"{where}: {case.name}: {what} {name} is not in {where_known}"
                f"{did_you_mean(name, known)}"
            )
    if problems:
        raise Failure.of_lines(problems, BAD_INPUT)
