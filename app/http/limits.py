"""Work a request may ask for, refused before it starts when it is over a documented bound
(rules §17 "Bounded work"): 422 ``LimitExceeded`` naming the bound and its variable.

What the rules cost is known before they run: a ranking checks every runtime it reads, so a request
that asks ``rankings`` questions of ``runtimes`` runtimes costs ``rankings × runtimes`` runtime
checks (bench/README.md "Figures behind the code" says what one costs). What a deadline cannot see
coming, these bounds refuse at once; what they let through, the deadline stops
(``app/selection/values/budget.py``).
"""

from __future__ import annotations

from flask import current_app

from app import errors
from app.reading.object_streams import ObjectStream
from app.selection.values import Runtime

from .body import objects

# Settings (config/settings.py) by the name of their environment variable, for the messages.
MAX_RUNTIMES = ("MAX_RUNTIMES", "OME_RANKER_MAX_RUNTIMES")
MAX_RUNTIME_CHECKS = ("MAX_RUNTIME_CHECKS", "OME_RANKER_MAX_RUNTIME_CHECKS")
MAX_ANSWER_BYTES = ("MAX_ANSWER_BYTES", "OME_RANKER_MAX_ANSWER_BYTES")
# Every answer row carries a few names and codes besides its message.
ROW_BYTES = 200


def limit_exceeded(setting: tuple[str, str], requested: int, what: str) -> errors.LimitExceeded:
    """The refusal of ``requested`` ``what`` over the setting's value."""
    key, variable = setting
    limit = current_app.config[key]
    return errors.LimitExceeded(
        f"this request needs {requested} {what}; this service allows at most {limit} ({variable})",
        variable=variable,
        limit=limit,
        requested=requested,
    )


def check_runtimes(runtimes: int) -> None:
    """A ranking that reads more runtimes than one request may send (a catalog's with a
    body's, or a catalog that grew past a lowered bound)."""
    if runtimes > current_app.config[MAX_RUNTIMES[0]]:
        raise limit_exceeded(MAX_RUNTIMES, runtimes, "runtimes in one ranking")


def check_rankings(*sides: tuple[int, int], placements: int = 0) -> None:
    """``(rankings, runtimes)`` for each set of rankings a request computes: ``rankings``
    distinct questions, each ranking ``runtimes`` runtimes (impact computes two such sets);
    ``placements``, the accelerator-class checks their placements may add (rules §20), counted
    as runtime checks are: each costs about as much."""
    for _rankings, runtimes in sides:
        check_runtimes(runtimes)
    work = sum(rankings * runtimes for rankings, runtimes in sides) + placements
    if work > current_app.config[MAX_RUNTIME_CHECKS[0]]:
        detail = " + ".join(
            f"{rankings} questions × {runtimes} runtimes" for rankings, runtimes in sides
        )
        if placements:
            detail += f" + {placements} accelerator class checks"
        raise limit_exceeded(MAX_RUNTIME_CHECKS, work, f"runtime checks ({detail})")


def check_answer(rows: int, text_bytes: int) -> None:
    """An answer of ``rows`` rows whose messages hold ``text_bytes`` characters, checked before
    it is rendered: one message can list every runtime's reason, and rows share it."""
    size = rows * ROW_BYTES + text_bytes
    if size > current_app.config[MAX_ANSWER_BYTES[0]]:
        raise limit_exceeded(MAX_ANSWER_BYTES, size, "bytes of answer (about)")


def check_body_runtimes(stream: ObjectStream) -> None:
    """rules §15's bound on a body's runtimes, on every endpoint as on ``/v1/rank`` (413)."""
    count = sum(1 for item in stream.objects if isinstance(item.document, Runtime))
    count += sum(1 for document in stream.apart if isinstance(document, Runtime))
    limit = current_app.config[MAX_RUNTIMES[0]]
    if count > limit:
        raise errors.PayloadTooLarge(
            f"request has {count} runtimes; this service accepts at most {limit}"
        )


def objects_within_bounds(*, strict: bool = False) -> ObjectStream:
    """The body's objects (lint, impact, selections): at most a cluster's worth, and at most
    as many runtimes as one ranking reads. ``strict``: see ``read_objects``."""
    stream = objects(limit=current_app.config["MAX_OBJECTS_PER_CLUSTER"], strict=strict)
    check_body_runtimes(stream)
    return stream
