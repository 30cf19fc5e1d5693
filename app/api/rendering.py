"""Turn a ``Ranking`` into the bodies of SPEC §15: JSON, the explain table, YAML."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import yaml

from app.selection.advice import NO_ADVICE, RowAdvice
from app.selection.ranking import Ranking, RuntimeRow

TABLE_COLUMNS = ("RUNTIME", "SCOPE", "COMPATIBLE", "PRIORITY", "WEIGHT", "REASON")
TABLE_PADDING = 3
# SPEC §17: a text answer never holds a control character. Names are Kubernetes names, but
# a message also quotes what an object references (a runtime or model name, a version, an
# annotation), which nothing validates: those are escaped as Go's %q escapes them, so that no
# value can start a line of its own, move the cursor or colour a terminal. Bidirectional
# controls and the Unicode line separators too: they can make a line read as another.
_ESCAPES = {
    **{code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F)},
    **{code: f"\\u{code:04x}" for code in range(0x80, 0xA0)},
    **{
        code: f"\\u{code:04x}"
        for code in (0x061C, 0x200E, 0x200F, 0x2028, 0x2029, *range(0x202A, 0x202F))
    },
    **{code: f"\\u{code:04x}" for code in range(0x2066, 0x206A)},
    ord("\t"): "\\t",
    ord("\n"): "\\n",
    ord("\r"): "\\r",
}


_CONTROL = re.compile("[" + "".join(f"\\u{code:04x}" for code in sorted(_ESCAPES)) + "]")


def printable(text: str) -> str:
    """``text`` with every control character escaped (``\\n``, ``\\x1b``, ``\\u202e``)."""
    return text.translate(_ESCAPES) if _CONTROL.search(text) else text


def _distance(value: float | None) -> float | None:
    # SPEC §9: a non-finite distance is reported as null.
    return value if value is not None and math.isfinite(value) else None


def row_body(row: RuntimeRow, advice: RowAdvice = NO_ADVICE) -> dict[str, Any]:
    return {
        "name": row.name,
        "scope": row.scope,
        "compatible": row.compatible,
        "priority": row.priority,
        "weight": row.weight,
        "score": row.score,
        "distance": _distance(row.distance),
        "reason": row.reason,
        "decidedBy": advice.decided_by,
        "toWin": advice.to_win,
        "toWinNote": advice.note,
    }


def _no_advice(ranking: Ranking) -> tuple[RowAdvice, ...]:
    return (NO_ADVICE,) * len(ranking.rows)


def selected_body(ranking: Ranking) -> dict[str, Any] | None:
    chosen = ranking.selected
    if chosen is None:
        return None
    return {
        "name": chosen.name,
        "scope": chosen.scope,
        "score": chosen.score,
        "explicit": chosen.explicit,
    }


def ranking_body(ranking: Ranking) -> dict[str, Any]:
    model = ranking.model
    model_namespace = None if model.is_cluster else model.namespace or ranking.namespace
    return {
        "model": {"name": model.name, "kind": model.kind, "namespace": model_namespace},
        "namespace": ranking.namespace,
        "omeVersion": ranking.ome_version,
        "selected": selected_body(ranking),
        "message": ranking.message,
        "runtimes": [
            row_body(row, advice)
            for row, advice in zip(ranking.rows, ranking.advice or _no_advice(ranking), strict=True)
        ],
        "ignored": [
            {
                "kind": item.kind,
                "name": item.name,
                "scope": item.scope,
                "namespace": item.namespace,
                "reason": item.reason,
            }
            for item in ranking.ignored
        ],
        "warnings": list(ranking.warnings),
        "notes": list(ranking.notes),
    }


def select_body(ranking: Ranking) -> dict[str, Any]:
    return {
        "selected": selected_body(ranking),
        "message": ranking.message,
        "warnings": list(ranking.warnings),
    }


def excluded_reasons(ranking: Ranking) -> dict[str, str]:
    """SPEC §15: name → reason of the runtimes OME's no-runtime text lists."""
    return dict(ranking.excluded())


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if value is True:
        return "Yes"
    if value is False:
        return "No"
    return str(value)


def text_table(lines: list[tuple[str, ...]]) -> str:
    """Lines as ``kubectl`` prints a table to a file: each column as wide as its widest cell plus
    three spaces, the last column unpadded; no control character in any cell."""
    if _CONTROL.search("".join(cell for line in lines for cell in line)):
        lines = [tuple(printable(cell) for cell in line) for line in lines]
    last = len(lines[0]) - 1
    widths = [max(len(line[i]) for line in lines) + TABLE_PADDING for i in range(last)]
    out = []
    for line in lines:
        padded = "".join(cell.ljust(width) for cell, width in zip(line, widths, strict=False))
        out.append(padded + line[last] + "\n")
    return "".join(out)


def explain_table(ranking: Ranking) -> str:
    """The table ``kubectl ome runtime explain`` prints."""
    return text_table(
        [TABLE_COLUMNS]
        + [
            tuple(
                _cell(value)
                for value in (
                    row.name,
                    row.scope,
                    row.compatible,
                    row.priority,
                    row.weight,
                    row.reason,
                )
            )
            for row in ranking.rows
        ]
    )


def to_json(body: Any) -> bytes:
    return json.dumps(body, ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode()


def to_yaml(body: Any) -> bytes:
    return yaml.safe_dump(body, sort_keys=False, allow_unicode=True).encode()
