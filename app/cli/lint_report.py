"""Lint's answer on the command line: each finding at its field's line and column in the file it
came from, the suppressions of ``.ome-ranker.yaml`` laid over the manifests' own, and the
answer again for ``-o json`` and ``-o yaml`` with those places (docs/cli.md "Where findings
are")."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from app.rendering.check_results import (
    EXTERNAL,
    IN_SOURCE,
    CheckReport,
    CheckResult,
    SourcePlace,
    Subject,
    at_least,
)

from .client import Sent
from .project_config import ProjectConfig
from .sources import Manifest, ManifestText


@dataclass(frozen=True)
class LintedFinding:
    """One finding of the answer, with the manifest it is about (if the files hold it), its
    place there and its suppression."""

    body: dict[str, Any]
    manifest: Manifest | None
    place: SourcePlace
    suppression: str | None
    justification: str | None = None


NO_KIND = "<no kind>"  # the group of an object without a kind (kubectl's `kind not set`)


def subject_of(kind: str | None, namespace: str | None, name: str | None) -> Subject:
    return Subject(kind or NO_KIND, f"{namespace}/{name}" if namespace else (name or ""))


def _manifest(finding: dict[str, Any], sent: Sent) -> Manifest | None:
    """The manifest a finding is about: the document the answer names (the sent array's
    item), else the last one of its kind, namespace and name (an older service's answer)."""
    document = finding.get("document")
    if isinstance(document, int) and 0 <= document < len(sent.manifests):
        return sent.manifests[document]
    return sent.manifest_of(finding["kind"], finding["namespace"], finding["name"])


def _places(found: list[tuple[dict[str, Any], Manifest | None]]) -> list[SourcePlace]:
    """Each finding's file, line and column: its field's, found in the file's text, else its
    object's first line."""
    from app.reading.finding_places import finding_spot
    from app.reading.positions import positions

    spots: dict[int, Any] = {}
    by_text: dict[int, tuple[ManifestText, list[Any]]] = {}
    for index, (finding, manifest) in enumerate(found):
        if manifest is None or manifest.text is None:
            continue
        spot = finding_spot(
            finding.get("field"), finding["code"], manifest.document, manifest.inside
        )
        spots[index] = spot
        by_text.setdefault(id(manifest.text), (manifest.text, []))[1].append(spot)
    located = {}
    for text, text_spots in by_text.values():
        for spot, position in positions(text.raw, text.is_yaml, text_spots).items():
            located[(id(text), spot)] = position
    places = []
    for index, (_, manifest) in enumerate(found):
        if manifest is None:
            places.append(SourcePlace())
            continue
        file, _, start = manifest.origin.rpartition(":")
        place = SourcePlace(manifest.file or file, int(start) if start.isdigit() else None)
        if manifest.text is not None and index in spots:
            found_at = located.get((id(manifest.text), spots[index]))
            if found_at is not None:
                place = SourcePlace(place.file, found_at.line - manifest.line_base, found_at.column)
        places.append(place)
    return places


def linted_findings(
    answer: dict[str, Any], sent: Sent, config: ProjectConfig
) -> list[LintedFinding]:
    """The answer's findings then its suppressed ones, placed in the files; a finding that an
    entry of the configuration's ``ignore`` matches is suppressed too (``external``)."""
    given: list[tuple[dict[str, Any], str | None]] = [(f, None) for f in answer["findings"]]
    given += [(finding, IN_SOURCE) for finding in answer.get("suppressed") or []]
    found = [(finding, _manifest(finding, sent)) for finding, _ in given]
    linted = []
    for (finding, suppression), (_, manifest), place in zip(
        given, found, _places(found), strict=True
    ):
        justification = "the object's ome-ranker.io/ignore annotation" if suppression else None
        if suppression is None:
            rule = config.ignored_by(
                finding["code"], finding["kind"], finding["namespace"], finding["name"], place.file
            )
            if rule is not None:
                suppression, justification = EXTERNAL, f"ignored by {rule.origin}"
        linted.append(LintedFinding(finding, manifest, place, suppression, justification))
    return linted


def lint_subjects(sent: Sent, ignored: Iterable[dict[str, Any]]) -> list[Subject]:
    """Each object lint checked (the last of each identity, as it is judged), in file order."""
    skipped = {(item["kind"], item.get("namespace"), item.get("name")) for item in ignored}
    found: dict[tuple, Subject] = {}
    for manifest in sent.manifests:
        if (manifest.kind, manifest.namespace, manifest.name) in skipped:
            continue
        file, _, line = manifest.origin.rpartition(":")
        place = SourcePlace(manifest.file or file, int(line) if line.isdigit() else None)
        subject = subject_of(manifest.kind, manifest.namespace, manifest.name)
        found.pop(manifest.identity, None)
        found[manifest.identity] = Subject(subject.group, subject.name, place)
    return list(found.values())


def lint_check_report(
    linted: list[LintedFinding], subjects: list[Subject], fail_on: str, shown: str
) -> CheckReport:
    by_title = {subject.title: subject for subject in subjects}
    results = []
    for item in linted:
        finding = item.body
        subject = subject_of(finding["kind"], finding["namespace"], finding["name"])
        subject = by_title.get(subject.title, subject)
        results.append(
            CheckResult(
                code=finding["code"],
                severity=finding["severity"],
                message=finding["message"],
                subject=subject,
                field=finding.get("field"),
                place=item.place,
                suppression=item.suppression,
                justification=item.justification,
            )
        )
    return CheckReport("lint", results, subjects, fail_on=fail_on, shown=shown)


def placed_answer(answer: dict[str, Any], linted: list[LintedFinding], report: CheckReport) -> dict:
    """The answer as ``-o json`` and ``-o yaml`` print it: its shape, each finding with its
    ``file``, ``line``, ``column`` and ``document`` (of the file), those below ``--severity``
    left out, the suppressed ones (by annotation or configuration) under ``suppressed`` with
    their ``suppression``, and ``counts`` of what is not suppressed."""

    def placed(item: LintedFinding) -> dict[str, Any]:
        body = dict(item.body)
        body["document"] = item.manifest.document if item.manifest is not None else None
        body.update(file=item.place.file, line=item.place.line, column=item.place.column)
        if item.suppression is not None:
            body["suppression"] = item.suppression
        return body

    shown = [item for item in linted if at_least(item.body["severity"], report.shown)]
    return {
        "admitted": answer["admitted"],
        "counts": report.counts(),
        "findings": [placed(item) for item in shown if item.suppression is None],
        "suppressed": [placed(item) for item in shown if item.suppression is not None],
        **{key: value for key, value in answer.items() if key not in _PLACED_KEYS},
    }


_PLACED_KEYS = frozenset({"admitted", "counts", "findings", "suppressed"})
