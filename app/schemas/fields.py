"""Strict JSON field types: Kubernetes types its fields, so "2" is not an integer
and "true" is not a boolean (rules §15: integral floats such as 2.0 are integers). Every string
the rules read is bounded (``app.selection.values.bounds``): refused at its field before they
run."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, utils

from app.selection.values import MAX_VALUE_CHARS, checked, length_problem, too_long

from .names import label_problem, subdomain_problem


class StrictInteger(fields.Field):
    default_error_messages = {"invalid": "Not a valid integer."}

    def _deserialize(self, value: Any, attr, data, **kwargs) -> int:
        if isinstance(value, bool):
            raise self.make_error("invalid")
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise self.make_error("invalid")


class StrictBoolean(fields.Field):
    default_error_messages = {"invalid": "Not a valid boolean."}

    def _deserialize(self, value: Any, attr, data, **kwargs) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


class BoundedString(fields.String):
    """A string of at most ``limit`` characters, refused before any validator reads it (the
    OpenAPI spec shows the bound as ``maxLength``)."""

    def __init__(self, limit: int = MAX_VALUE_CHARS, **kwargs: Any) -> None:
        kwargs["metadata"] = {"maxLength": limit, **kwargs.get("metadata", {})}
        super().__init__(**kwargs)
        self.limit = limit

    def _deserialize(self, value: Any, attr, data, **kwargs) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        if len(text) > self.limit:
            raise ValidationError(too_long(self.limit))
        return text


class AnnotationValue(fields.Field):
    """An annotation map of which selection reads one key.

    Only that key's value is type-checked: the rest of the map is somebody
    else's business (rules §1: validate only what selection reads). Deserialises
    to ``(present, value)``; a null value of a present key reads as ``""``.
    """

    default_error_messages = {
        "invalid": "Not a valid mapping type.",
        "invalid_value": "Annotation {annotation} must be a string.",
        "too_long": "Annotation {annotation}: {problem}",
    }

    def __init__(self, key: str, **kwargs):
        super().__init__(**kwargs)
        self.key = key

    def _deserialize(self, value: Any, attr, data, **kwargs) -> tuple[bool, str | None]:
        if not isinstance(value, dict):
            raise self.make_error("invalid")
        if self.key not in value:
            return False, None
        found = value[self.key]
        if found is None:
            return True, None
        if not isinstance(found, str):
            raise self.make_error("invalid_value", annotation=self.key)
        problem = length_problem(found)
        if problem is not None:
            raise self.make_error("too_long", annotation=self.key, problem=problem)
        return True, found


def opt_str(limit: int = MAX_VALUE_CHARS, **kwargs) -> fields.String:
    """An optional string field, bounded; null counts as absent (rules §15)."""
    return BoundedString(limit, allow_none=True, load_default=None, **kwargs)


def opt_nested(schema, **kwargs) -> fields.Nested:
    return fields.Nested(schema, allow_none=True, load_default=None, **kwargs)


def opt_int(**kwargs) -> StrictInteger:
    return StrictInteger(allow_none=True, load_default=None, **kwargs)


def opt_bool(**kwargs) -> StrictBoolean:
    return StrictBoolean(allow_none=True, load_default=None, **kwargs)


def opt_list(inner: fields.Field, **kwargs) -> fields.List:
    return BoundedList(inner, allow_none=True, load_default=None, **kwargs)


# A list stops being validated at this many invalid items (rules §17 "Safe to share"): each
# one's error costs kilobytes (100 000 invalid entries held 450 MB), and a few name the mistake.
MAX_ITEM_ERRORS = 20


class BoundedList(fields.List):
    """marshmallow's List, validated item by item under the request's deadline, and stopping
    after ``MAX_ITEM_ERRORS`` invalid items with a last message that says so."""

    def _deserialize(self, value: Any, attr, data, **kwargs) -> list:
        if not utils.is_collection(value):
            raise self.make_error("invalid")
        value = value if isinstance(value, list) else list(value)
        result: list = []
        errors: dict[int, Any] = {}
        for index, item in enumerate(checked(value, every=64)):
            try:
                result.append(self.inner.deserialize(item, **kwargs))
            except ValidationError as error:
                errors[index] = error.messages
                if len(errors) == MAX_ITEM_ERRORS and index + 1 < len(value):
                    errors[index + 1] = [
                        f"Not validated: the {len(value) - index - 1} items from here on "
                        f"(over {MAX_ITEM_ERRORS} items of this list are invalid)."
                    ]
                    break
        if errors:
            raise ValidationError(errors)
        return result


def validate_object_name(value: str) -> None:
    problem = subdomain_problem(value)
    if problem is not None:
        raise ValidationError(problem)


def validate_namespace(value: str) -> None:
    problem = None if value == "" else label_problem(value)
    if problem is not None:
        raise ValidationError(problem)
