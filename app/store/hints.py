"""What the codec reads in a type hint of a selection document (``app.selection.documents``):
the few forms those hints take, and nothing else."""

from __future__ import annotations

import types
import typing
from dataclasses import is_dataclass
from typing import Any

from app.selection.documents import Runtime

PLAIN = (str, int, bool, type(None))


def is_union(hint: Any) -> bool:
    return isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union


def unwrap_optional(hint: Any) -> tuple[Any, bool]:
    """``(X, True)`` for ``X | None``, else ``(hint, False)``."""
    if is_union(hint):
        args = typing.get_args(hint)
        members = [member for member in args if member is not type(None)]
        if len(args) == 2 and len(members) == 1:
            return members[0], True
    return hint, False


def is_plain(hint: Any) -> bool:
    """A hint whose JSON value is the Python value itself: str, int, bool, None and unions."""
    if is_union(hint):
        return all(is_plain(member) for member in typing.get_args(hint))
    return hint in PLAIN


def plain_types(hint: Any) -> tuple[type, ...]:
    return typing.get_args(hint) if is_union(hint) else (hint,)


def sequence_item(hint: Any) -> Any:
    """``T`` for ``tuple[T, ...]``, else ``None``."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) is tuple and len(args) == 2 and args[1] is Ellipsis:
        return args[0]
    return None


def mapping_value(hint: Any) -> Any:
    """``T`` for ``dict[str, T]``, else ``None``."""
    args = typing.get_args(hint)
    if typing.get_origin(hint) is dict and args[0] is str:
        return args[1]
    return None


def spelling(hint: Any) -> str:
    if isinstance(hint, type):
        return hint.__name__
    return str(hint).replace(f"{Runtime.__module__}.", "")


def dataclasses_in(hint: Any) -> list[type]:
    if isinstance(hint, type):
        return [hint] if is_dataclass(hint) else []
    return [kind for arg in typing.get_args(hint) for kind in dataclasses_in(arg)]
