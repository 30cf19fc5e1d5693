"""How the page words the API's fields (app/web/static/format.js), written again in Python so that
the browser tests can say what each cell must read for any answer."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

RULES = {"score": "score", "distance": "size", "scope": "scope", "name": "name"}
SIZE_UNITS = ((1e12, "T"), (1e9, "B"), (1e6, "M"))


def cell(value: Any) -> str:
    if value is None:
        return "-"
    if value is True:
        return "Yes"
    if value is False:
        return "No"
    return number(value) if isinstance(value, float) else str(value)


def number(value: float) -> str:
    """A JSON number as JavaScript's String() writes it (``7000000000.0`` → ``7000000000``)."""
    return str(int(value)) if float(value).is_integer() else repr(value)


def size_text(value: float | None) -> tuple[str, str | None]:
    """The DISTANCE cell and its tooltip: ``69B``, ``1.5B``, ``700M``, ``≈1.235B``."""
    if value is None:
        return "-", None
    exact = number(value)
    for unit, suffix in SIZE_UNITS:
        if abs(value) >= unit:
            scaled = value / unit
            shown = float(f"{scaled:.4g}")
            return f"{'' if shown == scaled else '≈'}{number(shown)}{suffix}", exact
    return exact, exact


def _ordinal(n: int) -> str:
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _name(entry: Any) -> str | None:
    name = entry.get("name") if isinstance(entry, dict) else None
    return name if isinstance(name, str) and name else None


def _format(entry: Any) -> str | None:
    model_format = entry.get("modelFormat") if isinstance(entry, dict) else None
    name = model_format.get("name") if isinstance(model_format, dict) else None
    return name if isinstance(name, str) and name else None


def entry_text(index: int, entries: list | None) -> str:
    entry = entries[index] if isinstance(entries, list) and index < len(entries) else None
    if _name(entry):
        text = f'entry "{_name(entry)}"'
        twins = sum(_name(other) == _name(entry) for other in entries)
    elif _format(entry):
        text = f"the {_format(entry)} entry"
        twins = sum(_format(other) == _format(entry) for other in entries)
    else:
        return f"entry {index} (the {_ordinal(index + 1)} supportedModelFormats item)"
    return f"{text} (supportedModelFormats[{index}])" if twins > 1 else text


def to_win_text(row: dict, answer: dict, entries: dict[str, list] | None) -> str:
    advice = row["toWin"]
    runtime_entries = (entries or {}).get(f"{row['scope']}|{row['name']}")
    text = ""
    if advice and advice.get("autoSelect"):
        text = f"autoSelect: true on {entry_text(advice['entry'], runtime_entries)} would make it "
        text += "eligible"
    elif advice:
        among = (
            "the ClusterServingRuntimes"
            if row["scope"] == "Cluster"
            else f"the ServingRuntimes in {answer['namespace']}"
        )
        text = (
            f"priority {advice['priority']} on {entry_text(advice['entry'], runtime_entries)} "
            f"would make it first among {among}"
        )
        if not row["toWinNote"]:
            text += ", so OME would select it"
    if row["toWinNote"]:
        selected = answer["selected"]
        outcome = "it would still not be selected"
        if selected and (selected["name"], selected["scope"]) == (row["name"], row["scope"]):
            outcome = "it is the selected runtime all the same"
        elif selected:
            outcome = f"{selected['name']} would still be selected"
        text = f"{text}; {outcome} ({row['toWinNote']})" if text else f"({row['toWinNote']})"
    return text or "-"


def way_out_text(row: dict, entries: dict[str, list] | None) -> str:
    if not row["wayOut"]:
        return f"none: {row['wayOutNote']}" if row["wayOutNote"] else "-"
    listed = entries.get(f"{row['scope']}|{row['name']}") if entries else None
    parts = []
    for change in row["wayOut"]:
        if change["change"] is None:
            what = f"remove {change['field']}"
        else:
            value = json.dumps(change["change"], ensure_ascii=False, separators=(",", ":"))
            what = f"{change['field']}: {value}"
        if change["entry"] is not None:
            what = f"{what} on {entry_text(change['entry'], listed)}"
        parts.append(what)
    return "; ".join(parts)


def expected_rows(answer: dict, entries: dict[str, list] | None) -> list[dict[str, str]]:
    """The page's ranking table as the API's JSON answer says it must read."""
    rows = []
    runtimes = answer["runtimes"]
    for index, row in enumerate(runtimes):
        order = "-"
        if row["decidedBy"]:
            order = f"below {runtimes[index - 1]['name']} on {RULES[row['decidedBy']]}"
        rows.append(
            {
                "runtime": row["name"],
                "scope": row["scope"],
                "compatible": cell(row["compatible"]),
                "priority": cell(row["priority"]),
                "weight": cell(row["weight"]),
                "reason": cell(row["reason"]),
                "score": cell(row["score"]),
                "distance": size_text(row["distance"])[0],
                "order": order,
                "to-win": to_win_text(row, answer, entries),
                "way-out": way_out_text(row, entries),
            }
        )
    return rows


def runtime_entries(runtimes: list[dict], namespace: str) -> dict[str, list]:
    """Each runtime's supportedModelFormats by ``<scope>|<name>``, as the page looks them up
    (the last of each; ServingRuntimes of ``namespace`` or of none)."""
    found: dict[str, list] = {}
    for runtime in runtimes:
        metadata = runtime.get("metadata") or {}
        cluster = runtime["kind"] == "ClusterServingRuntime"
        if not cluster and metadata.get("namespace") not in (None, namespace):
            continue
        scope = "Cluster" if cluster else "Namespaced"
        found[f"{scope}|{metadata['name']}"] = (runtime.get("spec") or {}).get(
            "supportedModelFormats"
        )
    return found


def score_text(value: float | None) -> str:
    """A placement score as the answer's reasons write one: Python's repr of the double."""
    return "-" if value is None else repr(float(value))


def class_text(component: dict) -> str:
    name = component["acceleratorClass"]
    if name is None:
        return "none" if component["known"] else "unknown"
    return name if component["known"] else f"{name} (unverified)"


def placement_error_text(error: dict | None) -> str:
    if error is None:
        return "-"
    text = f"{error['code']}: {error['message']}"
    if "ifFixed" in error:
        text += f"; OME with the fix picks {error['ifFixed'] or 'unknown'}"
    return text


def _items(texts: list[str]) -> list[str] | str:
    """A cell of list items reads as its items; an empty one as ``-``."""
    return texts or "-"


def placement_rows(placement: dict) -> list[dict[str, Any]]:
    """The page's placement table as the API's JSON answer says it must read, a row per
    component the answer has, list cells as their items."""
    rows = []
    for name in ("engine", "decoder"):
        component = placement[name]
        if component is None:
            continue
        config = component["acceleratorConfig"]
        selector = component["nodeSelector"] or {}
        resources = component["resources"] or {}
        rows.append(
            {
                "component": name,
                "class": class_text(component),
                "from": cell(component["from"]),
                "policy": cell(component["policy"]),
                "score": score_text(component["score"]),
                "known": cell(component["known"]),
                "reason": cell(component["reason"]),
                "error": placement_error_text(component["error"]),
                "others": _items(
                    [f"{other['name']}: {cell(other['reason'])}" for other in component["others"]]
                ),
                "config": "-"
                if config is None
                else json.dumps(config, ensure_ascii=False, separators=(",", ":")),
                "node-selector": _items([f"{key}={value}" for key, value in selector.items()]),
                "resources": _items(
                    [
                        f"{kind}: {', '.join(f'{k}={v}' for k, v in resources[kind].items())}"
                        for kind in ("limits", "requests")
                        if resources.get(kind)
                    ]
                ),
            }
        )
    return rows


def runtime_text(outcome: dict) -> str:
    """BEFORE and AFTER of an impact's row: the runtime's name, ``-`` for none."""
    return cell(outcome["runtime"] and outcome["runtime"]["name"])


def impact_rows(changes: list[dict]) -> list[dict[str, str]]:
    """The rows of an impact's table (one cluster's, or each cluster's of the fleet's)."""
    return [
        {
            "namespace": change["namespace"],
            "name": change["name"],
            "model": change["model"],
            "before": runtime_text(change["before"]),
            "after": runtime_text(change["after"]),
            "message-before": change["before"]["message"],
            "message-after": change["after"]["message"],
        }
        for change in changes
    ]


AGE_UNITS = ((86400, "day"), (3600, "h"), (60, "min"))


def age_text(seconds: int | None) -> str:
    """A catalog's age (``SYNCED``): ``under a minute ago``, ``3 min ago``, ``2 days ago``."""
    if seconds is None:
        return "-"
    for unit, name in AGE_UNITS:
        if seconds >= unit:
            count = seconds // unit
            noun = f"{name}{'s' if name == 'day' and count != 1 else ''}"
            return f"{count} {noun} ago"
    return "under a minute ago"


def history_time_text(at: str) -> str:
    """When a write was made, to the minute in UTC: ``2026-12-01 09:12 UTC``."""
    moment = datetime.fromisoformat(at).astimezone(UTC)
    return f"{moment:%Y-%m-%d %H:%M} UTC"


HISTORY_FIELDS = (
    ("scope", "scope"),
    ("outcome", "outcome"),
    ("engineClass", "engine class"),
    ("decoderClass", "decoder class"),
)


def none_or(value: str | None) -> str:
    return "none" if value is None else value


def history_change_text(entry: dict) -> str:
    """What one write did to one InferenceService, as a history line says it after its name."""
    if entry["truncated"] is not None:
        return f"changes not listed: {entry['truncated']}"
    before, after = entry["before"], entry["after"]

    def runtime(side: dict) -> str:
        return none_or(side["runtime"])

    if before is None:
        return f"added → {runtime(after)}"
    if after is None:
        return f"{runtime(before)} → removed"
    if before["runtime"] != after["runtime"]:
        return f"{runtime(before)} → {runtime(after)}"
    moved = [
        f"{words} {none_or(before[key])} → {none_or(after[key])}"
        for key, words in HISTORY_FIELDS
        if before[key] != after[key]
    ]
    which = "no runtime" if before["runtime"] is None else f"runtime {before['runtime']}"
    if moved:
        return f"{', '.join(moved)} ({which})"
    return f"still {runtime(before)} (OME's message or placement changed)"


def history_line(entry: dict) -> str:
    """A line of a cluster's history: ``llama-demo/chat: vllm-llama → team-llama``; a mark
    alone."""
    text = history_change_text(entry)
    return (
        text if entry["truncated"] is not None else f"{entry['namespace']}/{entry['name']}: {text}"
    )


def history_heading(changes: list[dict], more: bool) -> str:
    """The heading of one write's entries: ``generation 41, 2026-12-01 09:12 UTC: 3
    InferenceServices changed`` (``so far`` when the next page may hold more of them)."""
    changed = sum(entry["truncated"] is None for entry in changes)
    if changed:
        what = f"{changed} InferenceService{'' if changed == 1 else 's'} changed"
    else:
        what = "changes not listed"
    first = changes[0]
    when = history_time_text(first["at"])
    return f"generation {first['generation']}, {when}: {what}{' so far' if more else ''}"


def timeline_line(entry: dict) -> str:
    """A line of one InferenceService's timeline: ``generation 41, 2026-12-01 09:12 UTC:
    vllm-llama → team-llama``."""
    when = history_time_text(entry["at"])
    return f"generation {entry['generation']}, {when}: {history_change_text(entry)}"
