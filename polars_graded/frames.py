"""Tables of other libraries as Polars frames: what every public entry point accepts.

:func:`as_polars` is the one door: a Polars DataFrame or LazyFrame passes unchanged, a pandas
DataFrame, a pyarrow Table or RecordBatch, or any object with the Arrow PyCapsule stream
interface (``__arrow_c_stream__``: a pyarrow RecordBatchReader, a DuckDB result, ...) becomes
a Polars DataFrame, and anything else is a :class:`~polars_graded.errors.ColumnTypeError`
that says how to convert it. Results are Polars frames whatever the input was.

Conversion keeps the columns' types: strings (pandas ``object`` or ``string`` columns, Arrow
``string``/``large_string``) become ``String``, integers stay integers of the same width,
categoricals (pandas ``category``, Arrow ``dictionary``) become ``Categorical``, which Polars
sorts and compares as their strings, so ties and results equal those of the string column.

pandas specifics:

- pandas marks a missing value with NaN, so a NaN (or ``None``, ``pd.NA``) becomes a null:
  a NaN score means "not returned", a NaN label "not judged" (docs/conventions.md §1).
  Arrow and Polars have real nulls, and a NaN there stays NaN (an error in a score).
- Named index levels become columns, before the others and in their order: a frame indexed
  by query (``df.set_index("query")``, pytrec_eval-style results) or by ``["query",
  "item"]`` keeps those keys. A level that repeats a column of its name is dropped; one
  whose values differ from that column's is an error. Unnamed levels are row labels and are
  dropped (the default ``RangeIndex``, the index left by a filter); name them or
  ``reset_index()`` to keep one.

pandas is never imported here (a pandas frame can only exist once its user imported it);
pyarrow, a dependency, is imported when an Arrow object arrives.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, overload

import polars as pl

from polars_graded.errors import ColumnTypeError, InvalidValueError

if TYPE_CHECKING:
    import pandas as pd


class ArrowStreamTable(Protocol):
    """A table with the Arrow PyCapsule stream interface: a pyarrow Table, RecordBatch or
    RecordBatchReader, a DuckDB result, ..."""

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object: ...


class PandasFrame(Protocol):
    """A pandas DataFrame, as a type checker sees it (pandas stays an optional import)."""

    @property
    def index(self) -> Any: ...
    @property
    def iloc(self) -> Any: ...


ForeignTable: TypeAlias = PandasFrame | ArrowStreamTable
"""A table of another library that :func:`as_polars` converts into a ``pl.DataFrame``.

Protocols, not pandas' and pyarrow's classes: these libraries have no type information of
their own (their classes would be ``Any``, which matches a Polars frame too and leaves a
caller's result untyped), and pandas is optional."""

Table: TypeAlias = pl.DataFrame | pl.LazyFrame | ForeignTable
"""Every kind of table a public entry point takes."""

ACCEPTED = (
    "a Polars DataFrame or LazyFrame, a pandas DataFrame, a pyarrow Table or RecordBatch, "
    "or an object with the Arrow stream interface (__arrow_c_stream__)"
)
"""What :func:`as_polars` accepts, as its errors say it."""

_ERRORS = (ValueError, TypeError, NotImplementedError, pl.exceptions.PolarsError)
"""What a conversion raises on data it cannot convert (pyarrow's errors subclass these)."""


@overload
def as_polars(frame: pl.LazyFrame, function: str) -> pl.LazyFrame: ...
@overload
def as_polars(frame: pl.DataFrame | ForeignTable, function: str) -> pl.DataFrame: ...
@overload
def as_polars(frame: object, function: str) -> pl.DataFrame | pl.LazyFrame: ...
def as_polars(frame: object, function: str) -> pl.DataFrame | pl.LazyFrame:
    """``frame`` as a Polars frame, for ``function`` (a public function's name, as the user
    calls it, for the errors).

    A Polars DataFrame or LazyFrame is returned as it is; a pandas DataFrame, a pyarrow
    Table or RecordBatch, or an object with ``__arrow_c_stream__`` becomes a DataFrame (the
    module docstring says how types, NaN and a pandas index convert).

    Raises
    ------
    ColumnTypeError
        ``frame`` is none of these (the message says how to convert it; a dict of dicts
        points to :func:`polars_graded.from_dicts`), or its data cannot be converted (a
        pandas ``object`` column of mixed types: the message names the column).
    InvalidValueError
        A named pandas index level has the name of a column but other values (with the
        same values, the level is dropped: ``set_index("query", drop=False)`` is fine).

    Examples
    --------
    >>> import pandas as pd
    >>> pdf = pd.DataFrame({"query": ["q1", "q1"], "item": ["a", "b"], "score": [1.0, None]})
    >>> as_polars(pdf.set_index("query"), "evaluate")
    shape: (2, 3)
    ┌───────┬──────┬───────┐
    │ query ┆ item ┆ score │
    │ ---   ┆ ---  ┆ ---   │
    │ str   ┆ str  ┆ f64   │
    ╞═══════╪══════╪═══════╡
    │ q1    ┆ a    ┆ 1.0   │
    │ q1    ┆ b    ┆ null  │
    └───────┴──────┴───────┘
    >>> as_polars({"q1": {"a": 1.0}}, "evaluate")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.ColumnTypeError: evaluate() takes a table: a Polars DataFrame or \
LazyFrame, ...; got a dict of dicts: pytrec_eval's {query: {item: score}} form is \
pg.from_dicts(run, qrels)
    """
    if isinstance(frame, pl.DataFrame | pl.LazyFrame):
        return frame
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(frame, pandas.DataFrame):
        return _from_pandas(frame, function)
    package = type(frame).__module__.partition(".")[0]
    if not isinstance(frame, pl.Series) and (
        package == "pyarrow" or hasattr(frame, "__arrow_c_stream__")
    ):
        table = _from_arrow(frame)
        if table is not None:
            return table
    given = "None" if frame is None else f"a {_described(frame)}"
    msg = f"{function}() takes a table: {ACCEPTED}; got {given}: {_hint(frame)}"
    raise ColumnTypeError(msg)


def as_dataframe(frame: Table, function: str) -> pl.DataFrame:
    """``frame`` as a Polars DataFrame: :func:`as_polars`, a LazyFrame collected. For the
    functions that read a small result table whole (a comparison, bounds, means), so that a
    LazyFrame, which :data:`ACCEPTED` names, is taken there too.

    Examples
    --------
    >>> as_dataframe(pl.LazyFrame({"a": [1]}), "to_latex")
    shape: (1, 1)
    ┌─────┐
    │ a   │
    │ --- │
    │ i64 │
    ╞═════╡
    │ 1   │
    └─────┘
    """
    table = as_polars(frame, function)
    return table.collect() if isinstance(table, pl.LazyFrame) else table


def _from_arrow(frame: object) -> pl.DataFrame | None:
    """An Arrow table, batch or stream of a table as a DataFrame; None for anything else
    (an array or a stream of values that are not rows)."""
    import pyarrow as pa

    try:
        if isinstance(frame, pa.Table | pa.RecordBatch):
            table = pl.from_arrow(frame)
        elif hasattr(frame, "__arrow_c_stream__"):
            table = pl.DataFrame(frame)  # a stream of rows (Arrow structs) or an error
        else:
            return None
    except pl.exceptions.SchemaError:  # the stream holds values, not rows
        return None
    except _ERRORS as error:
        msg = f"the {_described(frame)} cannot be converted to a Polars DataFrame: {error}"
        raise ColumnTypeError(msg) from error
    return table if isinstance(table, pl.DataFrame) else None


def _from_pandas(frame: pd.DataFrame, function: str) -> pl.DataFrame:
    """A pandas DataFrame, its named index levels as its first columns."""
    try:
        body = pl.from_pandas(frame)
    except _ERRORS as error:
        msg = f"{function}(): the pandas DataFrame cannot be converted to Polars: {error}"
        raise ColumnTypeError(_name_failing_column(frame, msg)) from error
    index = frame.index
    levels = [
        pl.Series(str(name), pl.from_pandas(index.get_level_values(position)))
        for position, name in enumerate(index.names)
        if name is not None
    ]
    for level in [level for level in levels if level.name in body.columns]:
        # A copy of its column (set_index(..., drop=False), groupby(...).apply) adds nothing.
        if not level.equals(body.get_column(level.name), check_dtypes=False):
            msg = (
                f"{function}(): the pandas index level {level.name!r} has the name of a "
                "column but other values, and named index levels become columns; drop the "
                "index with frame.reset_index(drop=True) or rename it with "
                "frame.rename_axis(...)"
            )
            raise InvalidValueError(msg)
        levels.remove(level)
    return pl.DataFrame(levels).hstack(body) if levels else body


def _name_failing_column(frame: pd.DataFrame, msg: str) -> str:
    """``msg`` with the name of the first column that alone cannot be converted."""
    for position, name in enumerate(frame.columns):
        try:
            pl.from_pandas(frame.iloc[:, [position]])
        except _ERRORS:
            values = frame.iloc[:, position]
            kinds = sorted({type(value).__name__ for value in values.head(1000)})
            return f"{msg} (column {name!r} holds values of types {kinds})"
    return msg


def _described(frame: object) -> str:
    """The type of ``frame`` as its user knows it: ``list``, ``pandas Series``."""
    kind = type(frame)
    package = kind.__module__.partition(".")[0]
    if isinstance(frame, Mapping) and _is_nested(frame):
        return "dict of dicts"
    return kind.__name__ if package == "builtins" else f"{package} {kind.__name__}"


def _is_nested(frame: Mapping[Any, Any]) -> bool:
    """Whether ``frame`` looks like pytrec_eval's {query: {item: value}}."""
    first = next(iter(frame.values()), None)
    return isinstance(first, Mapping)


def _hint(frame: object) -> str:
    """How to make a Polars frame of ``frame``."""
    if isinstance(frame, Mapping) and _is_nested(frame):
        return "pytrec_eval's {query: {item: score}} form is pg.from_dicts(run, qrels)"
    package = type(frame).__module__.partition(".")[0]
    if package in ("pandas", "polars", "pyarrow"):  # a Series, an Array, an Index, ...
        return (
            "a column alone is not a table; make a frame of it (pandas and Polars: "
            "series.to_frame(), pyarrow: pa.table({name: array}))"
        )
    return (
        "build one with pl.DataFrame(data) (columns or rows), read a file with "
        "pl.scan_parquet / pl.scan_csv / pg.read_trec_run, or pytrec_eval's "
        "{query: {item: score}} dicts with pg.from_dicts(run, qrels)"
    )
