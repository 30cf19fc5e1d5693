"""Markdown tables, printed as each section finishes and collected for results/latest.md."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class Table:
    title: str
    columns: Sequence[str]
    rows: list[Sequence[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def add(self, *cells: object) -> None:
        self.rows.append([str(cell) for cell in cells])

    def markdown(self) -> str:
        lines = [f"### {self.title}", ""]
        widths = [
            max(len(str(column)), *(len(row[i]) for row in self.rows))
            for i, column in enumerate(self.columns)
        ]
        lines.append(_line(self.columns, widths))
        lines.append("| " + " | ".join("-" * width for width in widths) + " |")
        lines.extend(_line(row, widths) for row in self.rows)
        if self.notes:
            lines.append("")
            lines.extend(f"- {note}" for note in self.notes)
        return "\n".join(lines) + "\n"


def _line(cells: Sequence[object], widths: Sequence[int]) -> str:
    padded = (str(cell).ljust(width) for cell, width in zip(cells, widths, strict=True))
    return "| " + " | ".join(padded) + " |"


@dataclass(frozen=True)
class Target:
    """One of the issue's targets and where this run stands."""

    name: str
    goal: str
    measured: str
    met: bool | None  # None: not measured in this run

    @property
    def verdict(self) -> str:
        return {True: "met", False: "MISSED", None: "not measured"}[self.met]


def targets_table(targets: Sequence[Target]) -> Table:
    table = Table("Targets", ("target", "goal", "measured", "verdict"))
    for target in targets:
        table.add(target.name, target.goal, target.measured, target.verdict)
    return table
