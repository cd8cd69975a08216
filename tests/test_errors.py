"""The library's exceptions (polars_graded/errors.py): one base class, each error also the
matching builtin, every one exported; messages shown as written."""

from __future__ import annotations

import inspect

import pytest

import polars_graded as pg
from polars_graded import errors

BUILTIN = {
    "MissingColumnError": KeyError,
    "ColumnTypeError": TypeError,
    "InvalidValueError": ValueError,
    "DuplicateKeyError": ValueError,
    "InvalidWeightError": ValueError,
    "UnknownMeasureError": ValueError,
    "MeasureParameterError": ValueError,
    "InputFileError": ValueError,
    "SpillError": OSError,
    "StoreError": ValueError,
}
"""Each error and the builtin that code written without polars_graded catches it as."""


def error_classes() -> dict[str, type[Exception]]:
    return {
        name: cls
        for name, cls in vars(errors).items()
        if inspect.isclass(cls) and issubclass(cls, Exception) and cls.__module__ == errors.__name__
    }


def test_every_error_is_a_graded_error_and_its_builtin() -> None:
    classes = error_classes()
    assert set(classes) == {"GradedError", "GradedWarning", *BUILTIN}
    for name, builtin in BUILTIN.items():
        assert issubclass(classes[name], pg.GradedError), name
        assert issubclass(classes[name], builtin), name
    assert issubclass(pg.DuplicateKeyError, pg.InvalidValueError)


def test_the_warning_is_a_user_warning_not_an_error() -> None:
    assert issubclass(pg.GradedWarning, UserWarning)
    assert not issubclass(pg.GradedWarning, pg.GradedError)


@pytest.mark.parametrize("name", ["GradedError", "GradedWarning", *BUILTIN])
def test_every_error_is_exported(name: str) -> None:
    assert getattr(pg, name) is getattr(errors, name)
    assert name in pg.__all__


def test_a_missing_column_message_is_not_quoted() -> None:
    # KeyError's str() quotes its argument; the library's message reads as written.
    message = "column 'qid' not found"
    assert str(pg.MissingColumnError(message)) == message
    assert str(KeyError(message)) == repr(message)
    assert str(pg.MissingColumnError()) == ""


def test_a_library_error_is_caught_as_its_builtin() -> None:
    with pytest.raises(KeyError):
        raise pg.MissingColumnError("x")
    with pytest.raises(ValueError, match="bad"):
        raise pg.DuplicateKeyError("bad")
