"""What a command's checks found, in one shape for the formats CI systems read (SARIF, JUnit,
GitHub's workflow commands): each result with its code, severity, message, the object (or case)
it is about and where it is written, whether it is suppressed; and every object checked, one
test case each, so that what passed is listed too."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

# Lowest first: ``--severity`` and ``--fail-on`` name the lowest that counts.
SEVERITIES = ("info", "warning", "error")
# How a result was suppressed, in SARIF's words: by a file of the repository's (the command
# line's `.ome-ranker.yaml`) or in the manifest itself (the `ome-ranker.io/ignore` annotation).
EXTERNAL, IN_SOURCE = "external", "inSource"


def at_least(severity: str, lowest: str) -> bool:
    return SEVERITIES.index(severity) >= SEVERITIES.index(lowest)


@dataclass(frozen=True)
class SourcePlace:
    """Where something is written: a file, and a line and column in it (from 1)."""

    file: str | None = None
    line: int | None = None
    column: int | None = None


@dataclass(frozen=True)
class Subject:
    """What a test case is about: an object (its kind; its namespace and name) or a case."""

    group: str
    name: str
    place: SourcePlace = SourcePlace()

    @property
    def title(self) -> str:
        return f"{self.group} {self.name}"


@dataclass(frozen=True)
class CheckResult:
    code: str
    severity: str  # one of SEVERITIES
    message: str
    subject: Subject
    field: str | None = None
    place: SourcePlace = SourcePlace()
    suppression: str | None = None  # EXTERNAL, IN_SOURCE, or None
    justification: str | None = None  # why, when suppressed

    def fingerprint(self) -> str:
        """The same finding's in every run, wherever its line moves: its code, what it is about
        and its field, never its place or message (SARIF ``partialFingerprints``: code
        scanning then keeps one alert open instead of closing and reopening it)."""
        parts = (self.code, self.subject.group, self.subject.name, self.field or "")
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


@dataclass
class CheckReport:
    """One command's results. ``fail_on``: the lowest severity that fails the command;
    ``shown``: the lowest printed (``--severity``)."""

    command: str
    results: list[CheckResult] = field(default_factory=list)
    subjects: list[Subject] = field(default_factory=list)
    fail_on: str = "error"
    shown: str = "info"

    def visible(self) -> list[CheckResult]:
        """The results every format prints (suppressed ones only where a format says so)."""
        return [result for result in self.results if at_least(result.severity, self.shown)]

    def failing(self) -> list[CheckResult]:
        return [
            result
            for result in self.results
            if result.suppression is None and at_least(result.severity, self.fail_on)
        ]

    def counts(self) -> dict[str, int]:
        """Results not suppressed, by severity (whether shown or not)."""
        counts = dict.fromkeys(reversed(SEVERITIES), 0)
        for result in self.results:
            if result.suppression is None:
                counts[result.severity] += 1
        return counts

    def suppressed(self) -> int:
        return sum(result.suppression is not None for result in self.results)
