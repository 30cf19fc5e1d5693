"""A cheaper ``__init__`` for the frozen, slotted dataclasses a ranking builds by the thousand.

A frozen dataclass's generated ``__init__`` sets each field with ``object.__setattr__``: a method
lookup and a generic attribute store per field. A cold 1 000-runtime request builds some 9 000 such
objects (rows, entries, changes, ways out). The ``__init__`` made here has the same parameters and
defaults, and stores each field through its slot's own descriptor, about half the cost
(bench/README.md "Figures behind the code"): the class stays frozen (its ``__setattr__`` still
refuses), and ``replace``, equality, hashing, ``repr`` and pickling are the dataclass's.

Only the plain case is taken: every field in ``__init__``, positional, with a default value or
none; no ``__post_init__``. Anything else raises ``TypeError`` at import, rather than build
objects otherwise than the dataclass would. tests/selection/values/test_frozen.py holds each
decorated class to the dataclass's own ``__init__``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")


def quick_init(cls: type[T]) -> type[T]:
    """Give the frozen, slotted dataclass ``cls`` the descriptor-storing ``__init__``."""
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a frozen, slotted dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has a __post_init__")
    namespace: dict[str, Any] = {}
    parameters, lines = [], []
    for field in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not field.init or field.kw_only or field.default_factory is not dataclasses.MISSING:
            raise TypeError(f"{cls.__name__}.{field.name} is not a plain field")
        name = field.name
        namespace[f"_set_{name}"] = cls.__dict__[name].__set__
        if field.default is dataclasses.MISSING:
            parameters.append(name)
        else:
            namespace[f"_default_{name}"] = field.default
            parameters.append(f"{name}=_default_{name}")
        lines.append(f"    _set_{name}(self, {name})\n")
    body = "".join(lines) or "    pass\n"
    source = f"def __init__(self, {', '.join(parameters)}):\n{body}"
    exec(source, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls
