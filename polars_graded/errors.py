"""The library's own exceptions.

Every error polars_graded raises on purpose is a :class:`GradedError`; each subclass also
derives from the matching builtin (``KeyError``, ``TypeError``, ``ValueError``) so that code
written against the builtins keeps working.
"""

from __future__ import annotations


class GradedError(Exception):
    """Base class of every error raised by polars_graded.

    Examples
    --------
    One ``except`` catches every input error of the library:

    >>> import polars_graded as pg
    >>> try:
    ...     pg.parse_measure("ndcg@0")
    ... except pg.GradedError as error:
    ...     print(type(error).__name__)
    MeasureParameterError
    """


class MissingColumnError(GradedError, KeyError):
    """A column the evaluation needs is not in the table.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_graded as pg
    >>> df = pl.DataFrame({"query": [1], "item": ["a"], "relevance": [1]})
    >>> pg.evaluate(df, ["ap"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.MissingColumnError: column 'score' not found; the table has ...
    """

    def __str__(self) -> str:
        # KeyError would quote the whole message; show it as written.
        return str(self.args[0]) if self.args else ""


class ColumnTypeError(GradedError, TypeError):
    """A column has a data type the evaluation cannot use (e.g. a string score), or the
    input is not a table the library takes (e.g. a list; see
    :func:`polars_graded.frames.as_polars`).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_graded as pg
    >>> df = pl.DataFrame({"query": [1], "item": ["a"], "score": ["high"], "relevance": [1]})
    >>> pg.evaluate(df, ["ap"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.ColumnTypeError: column 'score' must be numeric, found String; ...
    """


class InvalidValueError(GradedError, ValueError):
    """A value breaks a rule of the data model (NaN score, null query, ...).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_graded as pg
    >>> df = pl.DataFrame({"query": [None], "item": ["a"], "score": [1.0], "relevance": [1]})
    >>> pg.evaluate(df, ["ap"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: column 'query' must not be null; ...
    """


class DuplicateKeyError(InvalidValueError):
    """The same (by..., query, item) key occurs more than once.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_graded as pg
    >>> df = pl.DataFrame({"query": [1, 1], "item": ["a", "a"], "score": [2.0, 1.0],
    ...                    "relevance": [1, 0]})
    >>> pg.evaluate(df, ["ap"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.DuplicateKeyError: the key ['query', 'item'] must be unique: ...
    """


class InvalidWeightError(InvalidValueError):
    """A traffic weight (``weight=``) breaks a rule: null, NaN, infinite, negative, different
    on two rows of one query, or 0 for every query (see :mod:`polars_graded.weights`).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.weights import check_weights
    >>> df = pl.DataFrame({"query": [1, 2], "traffic": [1.0, -2.0]})
    >>> check_weights(df, "traffic", ["query"])
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidWeightError: weight column 'traffic' must be >= 0; e.g. {'query': 2} has -2.0
    """  # noqa: E501


class UnknownMeasureError(GradedError, ValueError):
    """A measure name that the grammar does not know.

    Examples
    --------
    >>> import polars_graded as pg
    >>> pg.parse_measure("apx")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.UnknownMeasureError: unknown measure 'apx'; valid names: mu_ap, ap, ...
    """


class MeasureParameterError(GradedError, ValueError):
    """A measure parameter that is unknown or has an invalid value.

    Examples
    --------
    >>> import polars_graded as pg
    >>> pg.parse_measure("rbp(p=2)")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.MeasureParameterError: rbp: persistence p must be between 0 and 1 ...
    """


class InputFileError(GradedError, ValueError):
    """A file cannot be read as the evaluation needs it: missing, truncated, corrupt, a glob
    that matches nothing, Parquet files whose schemas differ. The message names the file.

    Examples
    --------
    >>> import polars_graded as pg
    >>> pg.read_trec_run("nowhere.txt")
    Traceback (most recent call last):
    ...
    polars_graded.errors.InputFileError: cannot read nowhere.txt: No such file or directory
    """


class SpillError(GradedError, OSError):
    """The split of a table on disk (Parquet larger than memory) cannot be written: too
    little free disk, a missing folder, or the write failed. The message names the folder.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.scale.spill import split
    >>> with split(pl.LazyFrame({"a": [1]}), pl.lit(0), 1, spill_dir="/nowhere"):
    ...     pass
    Traceback (most recent call last):
    ...
    polars_graded.errors.SpillError: cannot split the table into /nowhere: ...
    """


class StoreError(GradedError, ValueError):
    """A result store (``evaluate_store``, ``evaluate SOURCE --store STORE``) cannot be used:
    STORE is a file or a folder that is not a store, it was written by another library
    version or store format, or SOURCE is not a folder of hive partitions. The message names
    the path and what to do.

    Examples
    --------
    >>> import polars_graded as pg
    >>> pg.evaluate_store("nowhere/logs", ["ap"], "store")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.StoreError: SOURCE nowhere/logs is missing; it must be a folder of ...
    """


class GradedWarning(UserWarning):
    """Input that evaluates but is almost always a mistake (e.g. a relevance threshold above
    every label of the table).

    Examples
    --------
    >>> import warnings
    >>> import polars as pl
    >>> import polars_graded as pg
    >>> df = pl.DataFrame({"query": [1], "item": ["a"], "score": [1.0], "relevance": [2]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     values = pg.evaluate(df, ["ap(rel=3)"])
    >>> print(caught[0].message)  # doctest: +ELLIPSIS
    ap(rel=3): the relevance threshold is above every label of the table (the largest is 2), ...
    """
