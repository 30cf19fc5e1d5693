"""OME's refusals by typed code (app/selection/ranking/selection_errors.py): each code is the
stable string of one error answer (app/errors.py), so that no ranking error can reach the API
without its status and its documented code."""

from __future__ import annotations

import pytest

from app.errors import selection_error
from app.selection.ranking.selection_errors import SelectionError, SelectionErrorCode

STATUSES = {
    "ModelNotReady": 422,
    "RuntimeNotFound": 404,
    "RuntimeDisabled": 422,
    "RuntimeInheritanceError": 422,
    "RuntimeIncompatible": 422,
    "NoRuntimeFound": 422,
    "ModelNotFound": 404,
}


def test_the_codes_are_omes_refusals_and_nothing_else():
    assert {code.value for code in SelectionErrorCode} == set(STATUSES)


@pytest.mark.parametrize("code", list(SelectionErrorCode), ids=str)
def test_each_code_answers_with_the_error_of_its_own_name(code):
    error = selection_error(code)
    assert (error.code, error.status) == (code.value, STATUSES[code.value])


def test_a_code_is_its_string_where_text_is_written():
    error = SelectionError(
        SelectionErrorCode.RUNTIME_DISABLED, "cluster-scoped runtime rt is disabled"
    )
    assert f"{error.code}: {error.message}" == (
        "RuntimeDisabled: cluster-scoped runtime rt is disabled"
    )
    assert SelectionErrorCode("NoRuntimeFound") is SelectionErrorCode.NO_RUNTIME_FOUND
