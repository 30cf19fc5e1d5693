"""``quick_init`` (app/selection/values/frozen.py): each decorated class builds, from the same
arguments, the object its dataclass ``__init__`` builds, and stays frozen."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from copy import deepcopy

import pytest

from app.selection.advice import RowAdvice, WayOut
from app.selection.advice.changes import Change
from app.selection.ranking import RuntimeRow
from app.selection.ranking.checks import Support
from app.selection.values import Entry, EntryRef, Runtime, SizeRange
from app.selection.values.frozen import quick_init
from app.selection.values.versions import Version

DECORATED = [
    WayOut,
    Entry,
    EntryRef,
    SizeRange,
    Runtime,
    RowAdvice,
    Change,
    RuntimeRow,
    Support,
    Version,
]


def _dataclass_init(cls: type):
    """The ``__init__`` the dataclass itself generates, on a twin of ``cls``."""
    twin = dataclasses.make_dataclass(
        cls.__name__,
        [(f.name, f.type, f) for f in dataclasses.fields(cls)],
        frozen=True,
        slots=True,
    )
    return twin.__init__


def _values(cls: type, seed: int) -> list:
    # Distinct objects per field, so that a field stored in its neighbour's slot shows.
    return [(seed, index, field.name) for index, field in enumerate(dataclasses.fields(cls))]


@pytest.mark.parametrize("cls", DECORATED, ids=lambda cls: cls.__name__)
def test_the_quick_init_takes_what_the_dataclass_takes_and_stores_it_alike(cls):
    reference = _dataclass_init(cls)
    assert inspect.signature(cls.__init__).parameters.keys() == (
        inspect.signature(reference).parameters.keys()
    )
    fields = dataclasses.fields(cls)
    for seed in range(2):
        values = _values(cls, seed)
        built = cls(*values)
        assert [getattr(built, f.name) for f in fields] == values
        by_name = cls(**{f.name: value for f, value in zip(fields, values, strict=True)})
        assert by_name == built
    required = [f for f in fields if f.default is dataclasses.MISSING]
    least = cls(*_values(cls, 7)[: len(required)])
    for field in fields[len(required) :]:
        assert getattr(least, field.name) is field.default  # the defaults, as declared
    with pytest.raises(TypeError):
        cls(*_values(cls, 0), "one too many")
    if required:
        with pytest.raises(TypeError):
            cls()


@pytest.mark.parametrize("cls", DECORATED, ids=lambda cls: cls.__name__)
def test_a_quickly_built_object_stays_frozen_and_copies_as_a_dataclass(cls):
    built = cls(*_values(cls, 1))
    first = dataclasses.fields(cls)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(built, first, "changed")
    changed = dataclasses.replace(built, **{first: "changed"})
    assert getattr(changed, first) == "changed" and changed != built
    assert pickle.loads(pickle.dumps(built)) == built
    assert deepcopy(built) == built
    assert hash(built) == hash(cls(*_values(cls, 1)))


def test_classes_it_cannot_build_alike_are_refused():
    @dataclasses.dataclass(frozen=True, slots=True)
    class Factory:
        items: list = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True, slots=True)
    class Later:
        a: int

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(frozen=True, slots=True)
    class Keyword:
        a: int = dataclasses.field(kw_only=True)

    @dataclasses.dataclass(slots=True)
    class Thawed:
        a: int

    @dataclasses.dataclass(frozen=True)
    class Unslotted:
        a: int

    for cls in (Factory, Later, Keyword, Thawed, Unslotted):
        with pytest.raises(TypeError):
            quick_init(cls)
