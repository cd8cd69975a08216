"""The library's own exceptions.

Every error polars_graded raises on purpose is a :class:`GradedError`; each subclass also
derives from the matching builtin (``KeyError``, ``TypeError``, ``ValueError``) so that code
written against the builtins keeps working.
"""

from __future__ import annotations


class GradedError(Exception):
    """Base class of every error raised by polars_graded."""


class MissingColumnError(GradedError, KeyError):
    """A column the evaluation needs is not in the table."""

    def __str__(self) -> str:
        # KeyError would quote the whole message; show it as written.
        return str(self.args[0]) if self.args else ""


class ColumnTypeError(GradedError, TypeError):
    """A column has a data type the evaluation cannot use (e.g. a string score)."""


class InvalidValueError(GradedError, ValueError):
    """A value breaks a rule of the data model (NaN score, null query, ...)."""


class DuplicateKeyError(InvalidValueError):
    """The same (by..., query, item) key occurs more than once."""


class UnknownMeasureError(GradedError, ValueError):
    """A measure name that the grammar does not know."""


class MeasureParameterError(GradedError, ValueError):
    """A measure parameter that is unknown or has an invalid value."""


class InputFileError(GradedError, ValueError):
    """A file cannot be read as the evaluation needs it: missing, truncated, corrupt, a glob
    that matches nothing, Parquet files whose schemas differ. The message names the file."""


class GradedWarning(UserWarning):
    """Input that evaluates but is almost always a mistake (e.g. a relevance threshold above
    every label of the table)."""
