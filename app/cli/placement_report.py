"""What ``rank`` and ``select`` say of an answer's ``placement`` (rules §20.8): one line per
component with the AcceleratorClass its pods get and why, and ``--expect-class``, the pin a CI
job puts on it. Read from the answer's JSON, as a service at ``--server`` sends it."""

from __future__ import annotations

from typing import Any

import click

from .output import OTHER_CLASS, UNAVAILABLE, Failure

COMPONENTS = ("engine", "decoder")


def pins(_context: click.Context, _parameter: click.Parameter, values: tuple[str, ...]) -> dict:
    """``--expect-class``'s values by component: ``CLASS`` (the engine's), ``engine=CLASS`` or
    ``decoder=CLASS``; read before anything is asked, so a typo is a usage error (exit 2)."""
    pinned: dict[str, str] = {}
    for value in values:
        component, equals, name = value.partition("=")
        if not equals:
            component, name = "engine", value
        if component not in COMPONENTS or not name:
            raise click.BadParameter(f"{value!r}: give CLASS, engine=CLASS or decoder=CLASS")
        if pinned.get(component, name) != name:
            raise click.BadParameter(
                f"two classes for the {component}: {pinned[component]}, {name}"
            )
        pinned[component] = name
    return pinned


expect_class_option = click.option(
    "--expect-class",
    "expect_class",
    multiple=True,
    metavar="[COMPONENT=]CLASS",
    callback=pins,
    help="Exit 4 unless OME gives the engine (decoder=CLASS: the decoder) this "
    "AcceleratorClass, for certain; repeatable.",
)


def placement_lines(placement: dict | None) -> list[str]:
    """``engine: nvidia-h100 (from spec.acceleratorSelector.policy: BestFit; score 1.0)``, then
    each other listed class that lost with why, indented; the decoder likewise; OME's event.
    Nothing when no component exists (no InferenceService, or one without them)."""
    if not placement:
        return []
    lines = []
    for component in COMPONENTS:
        got = placement.get(component)
        if got is None:
            continue
        lines.append(f"{component}: {_outcome(got)}")
        lines += [
            f"  {other['name']}: {other['reason']}"
            for other in got["others"]
            if other["reason"] is not None  # lost to nothing (rules §20.10 item 10)
        ]
    event = placement.get("event")
    if event is not None:
        lines.append(f"event: Warning {event['reason']}: {event['message']}")  # rules §20.5
    return lines


def _class_text(got: dict[str, Any]) -> str:
    name = got["acceleratorClass"]
    if name is None:
        return "none" if got["known"] else "unknown"
    # A name while classes are unknown is kept, not verified (rules §20.10 item 12).
    return name if got["known"] else f"{name}, unverified"


def _outcome(got: dict[str, Any]) -> str:
    details = []
    if got["from"] is not None:
        policy = got["policy"]
        details.append(f"from {got['from']}" + (f": {policy}" if policy is not None else ""))
    if got["score"] is not None:
        details.append(f"score {got['score']}")
    error = got["error"]
    if error is not None:
        details.append(f"error {error['code']}: {error['message']}")
        if "ifFixed" in error:  # the BestFit failure only (rules §20.10 item 13)
            details.append(f"OME with the fix picks {error['ifFixed'] or 'unknown'}")
    elif got["reason"] is not None:
        details.append(got["reason"])
    text = _class_text(got)
    return f"{text} ({'; '.join(details)})" if details else text


def check_pins(answer: dict, pinned: dict[str, str]) -> None:
    """Exit 4 unless each pinned component gets its class for certain: a class that is unknown,
    or a name that cannot be verified, never passes."""
    problems = [problem for _, problem in pin_problems(answer, pinned)]
    if problems:
        raise Failure.of_lines(problems, OTHER_CLASS)


def pin_problems(answer: dict, pinned: dict[str, str]) -> list[tuple[str, str]]:
    """(component, what OME does instead) for each pinned component that does not get its
    class for certain; exit 3 for an answer without ``placement`` (an older service)."""
    if not pinned:
        return []
    if "placement" not in answer:
        raise Failure(
            "the service's answer has no placement (a version before rules §20); "
            "--expect-class cannot be checked",
            UNAVAILABLE,
        )
    placement = answer["placement"] or {}
    return [
        (component, problem)
        for component, expected in pinned.items()
        if (problem := _pin_problem(component, placement.get(component), expected)) is not None
    ]


def _pin_problem(component: str, got: dict[str, Any] | None, expected: str) -> str | None:
    if got is None:
        return (
            f"there is no {component} to get {expected}: "
            f"no InferenceService in the question sets spec.{component}"
        )
    name, known = got["acceleratorClass"], got["known"]
    if known and name == expected:
        return None
    if not known and name in (None, expected):
        return f"whether OME gives the {component} {expected} is not known ({got['reason']})"
    if name is not None:
        return f"OME gives the {component} {name}, not {expected}"
    error = got["error"]
    why = f"{error['code']}: {error['message']}" if error is not None else got["reason"]
    return f"OME gives the {component} no class, not {expected}: {why}"
