"""Long tables of random dtypes, ``by`` columns and column names, drawn by hypothesis,
with or without hostile values; each drawn :class:`Table` carries what a correct library
must do with it (:func:`table_violation`: the first rule of the data model it breaks).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import polars as pl
from hypothesis import assume
from hypothesis import strategies as st

from polars_graded.options import ColumnOptions
from support.tables import Ranking, rankings

INT_TYPES = (
    pl.Int8,
    pl.Int16,
    pl.Int32,
    pl.Int64,
    pl.Int128,
    pl.UInt8,
    pl.UInt16,
    pl.UInt32,
    pl.UInt64,
    pl.UInt128,
)
FLOAT_TYPES = (pl.Float16, pl.Float32, pl.Float64)
DtypeChoice = pl.DataType | type[pl.DataType] | str
"""A dtype, a dtype class or ``"enum"`` (an Enum of the column's values)."""
# The first entry is what a failing example shrinks to; the common types come more often.
KEY_TYPES: tuple[DtypeChoice, ...] = (
    pl.Int64,
    pl.String,
    pl.String,
    *INT_TYPES,
    pl.Float32,
    pl.Float64,
    pl.String,
    pl.Categorical,
    "enum",
    pl.Boolean,
    pl.Decimal(38, 2),
)
NUMBER_TYPES: tuple[DtypeChoice, ...] = (
    pl.Float64,
    pl.Float64,
    pl.Int64,
    pl.Float32,
    *INT_TYPES,
    *FLOAT_TYPES,
    pl.Decimal(20, 4),
    pl.Boolean,
)
TEXT_TYPES: tuple[DtypeChoice, ...] = (pl.String, pl.Categorical, "enum")
KEY_INTS = (
    0,
    1,
    2,
    3,
    7,
    10,
    42,
    99,
    127,
    128,
    255,
    256,
    1000,
    -1,
    -2,
    -128,
    -129,
    2**31,
    2**63 - 1,
    2**64 - 1,
)
KEY_TEXTS = (
    "",
    " ",
    "\t",
    "0",
    "00",
    " a",
    "a ",
    "A",
    "é",
    "e\u0301",
    "😀",
    "\u00a0",
    "\u200b",
    "q#1",
    "a\nb",
    "null",
    "NaN",
    "1.0",
)
SCORES = (0.0, 1.0, 1.0, 2.0, 2.0, 3.5, -1.0, -0.0, 1000.0, 1000.0 + 1e-9, 1e-300, -1e300, 1e308)
HOSTILE_SCORES = (math.inf, -math.inf, 5e-324, 3.4e38, -3.5e38)
LABELS = (-2.0, -1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 3.0, 4.0, 0.5, 1.000001, 2.75)
HOSTILE_LABELS = (
    1023.0,
    1024.0,
    2000.0,
    1e308,
    1e-300,
    5e-324,
    math.inf,
    -math.inf,
    math.nan,
    -1e308,
)


def _resolve(dtype: DtypeChoice, values: Sequence[object]) -> pl.DataType:
    if isinstance(dtype, str):  # "enum"
        return pl.Enum(sorted({str(v) for v in values if v is not None}))
    return dtype() if isinstance(dtype, type) else dtype


def _key_series(
    name: str, ids: list[int | None], dtype: DtypeChoice, texts: dict[int, str]
) -> pl.Series:
    """Key ids as a column of ``dtype``; ids a dtype cannot hold become null (strict=False)."""
    if dtype in TEXT_TYPES:
        values = [None if i is None else texts.get(i, str(i)) for i in ids]
        return pl.Series(name, values, dtype=pl.String).cast(_resolve(dtype, values))
    if dtype == pl.Boolean:
        return pl.Series(name, [None if i is None else i % 2 == 1 for i in ids], dtype=pl.Boolean)
    if isinstance(dtype, pl.Decimal):
        return pl.Series(name, [None if i is None else Decimal(i) / 4 for i in ids], dtype=dtype)
    return pl.Series(name, ids, dtype=pl.Int128, strict=False).cast(
        _resolve(dtype, ids), strict=False
    )


def _number_series(name: str, values: list[float | None], dtype: DtypeChoice) -> pl.Series:
    """Floats as a column of ``dtype`` (a text type holds their repr); what ``dtype``
    cannot hold becomes null."""
    floats = pl.Series(name, values, dtype=pl.Float64)
    if dtype in TEXT_TYPES:
        strings = floats.cast(pl.String)
        return strings.cast(_resolve(dtype, strings.to_list()))
    return floats.cast(_resolve(dtype, values), strict=False)


@dataclass
class Table:
    """A drawn long table, the arguments that name its columns, and what must happen."""

    df: pl.DataFrame
    columns: ColumnOptions = field(default_factory=ColumnOptions)
    """Keyword arguments: ``query=``, ..., ``by=`` (only those that differ from defaults)."""
    by: list[str] = field(default_factory=list)
    query: str = "query"
    item: str = "item"
    score: str = "score"
    relevance: str = "relevance"
    must_raise: str | None = None
    """Why the library must raise a GradedError, or None if the table is valid."""

    @property
    def keys(self) -> list[str]:
        return [*self.by, self.query]

    def rankings(self) -> set[Ranking]:
        return rankings(self.df, self.keys)


def table_violation(t: Table) -> str | None:
    """The first rule of the data model the table breaks (conventions §1, README Conventions),
    decided in Python from the rows."""
    return next(_violations(t), None)


def _violations(t: Table) -> Iterator[str]:
    names = [*t.by, t.query, t.item, t.score, t.relevance]
    if len(set(names)) < len(names):
        yield "columns not distinct"
    if missing := [n for n in names if n not in t.df.columns]:
        yield f"missing column {missing}"
    for name in (t.score, t.relevance):
        dtype = t.df.schema[name]
        if not (dtype.is_numeric() or dtype in (pl.Boolean, pl.Null)):
            yield f"non-numeric {name}"
    for name in (*t.keys, t.item):
        if t.df.get_column(name).null_count():
            yield f"null in {name}"
    for name in (t.score, t.relevance):
        values = t.df.get_column(name)
        if values.dtype.is_float() and values.is_nan().any():
            yield f"NaN in {name}"
    if any(n > 1 for n in Counter(t.df.select(*t.keys, t.item).rows()).values()):
        yield "duplicate key"


@st.composite
def _rows(
    draw: st.DrawFn,
    ranking_keys: list[Ranking],
    key_names: list[str],
    names: tuple[str, str, str],
    *,
    items: st.SearchStrategy[list[int]],
    scores: tuple[float, ...],
    labels: tuple[float, ...],
) -> dict[str, list[Any]]:
    """The rows of each ranking as columns of Python values (key ids, floats, None)."""
    item, score, relevance = names
    columns: dict[str, list[Any]] = {n: [] for n in [*key_names, item, score, relevance]}
    for key in ranking_keys:
        for it in draw(items):
            for name, value in zip(key_names, key, strict=True):
                columns[name].append(value)
            columns[item].append(it)
            columns[score].append(draw(st.none() | st.sampled_from(scores)))
            columns[relevance].append(draw(st.none() | st.sampled_from(labels)))
    return columns


@st.composite
def _key_texts(draw: st.DrawFn, columns: dict[str, list[Any]]) -> dict[int, str]:
    """A text for each key id, for text key columns: numbers with leading zeros, signs and
    exponents (which type inference would merge), whitespace, unicode."""
    texts = {}
    for i in sorted({v for c in columns.values() for v in c if isinstance(v, int)}):
        numeric_looking = [str(i), f"0{i}", f"00{i}", f"+{i}", f"{i}.0", f"{i}e0"]
        texts[i] = draw(st.sampled_from(numeric_looking + [t + str(i) for t in KEY_TEXTS]))
    return texts


def rarely(n: int) -> st.SearchStrategy[bool]:
    """True about once in ``n`` draws; shrinks to False (a hostile feature goes away)."""
    return st.sampled_from([False] * (n - 1) + [True])


@st.composite
def tables(
    draw: st.DrawFn,
    *,
    hostile: bool = True,
    dtypes: bool = True,
    max_rankings: int = 5,
    max_items: int = 7,
    max_by: int = 2,
    extreme: bool | None = None,
) -> Table:
    """A long table with random dtypes, ``by`` columns and column names.

    ``hostile``: each table may also get (each feature about once in 3 to 12 tables) key
    ids a narrow dtype cannot hold, infinite and huge values, NaN, null keys, duplicate keys,
    non-numeric score/relevance, a missing column, ``by`` columns named like result or
    internal columns, ``by`` naming a column twice, or no rows at all. With
    ``hostile=False`` the table keeps every rule of the data model, though its dtypes (with
    ``dtypes``) may still be ones the library rejects with a ColumnTypeError. ``extreme``
    forces (True) or forbids (False) infinite and huge scores and labels, which keep the
    rules.
    """

    def feature(n: int) -> bool:
        return hostile and draw(rarely(n))

    n_by = draw(st.integers(0, max_by))
    by_pool = ["system", "run id", "système", "day"]
    if feature(6):
        by_pool = ["ap", "num_q", "threshold", "weight", "__pg_ranking", "__pg_rel"]
    by_names = draw(st.lists(st.sampled_from(by_pool), min_size=n_by, max_size=n_by, unique=True))
    renamed = dtypes and draw(rarely(4))
    query, item, score, relevance = (
        ("Query", "doc id", "分数", "rel ") if renamed else ("query", "item", "score", "relevance")
    )
    key_type = st.sampled_from(KEY_TYPES if dtypes else (pl.Int64, pl.String))
    number_type = st.sampled_from(NUMBER_TYPES if dtypes else (pl.Float64, pl.Int64))
    types = {name: draw(key_type) for name in [*by_names, query, item]}
    types[score], types[relevance] = draw(number_type), draw(number_type)
    if feature(6):
        types[draw(st.sampled_from([score, relevance]))] = draw(st.sampled_from(TEXT_TYPES))

    key_ids = st.sampled_from(KEY_INTS if feature(4) else KEY_INTS[:8])
    extreme = feature(2) if extreme is None else extreme
    nan = feature(6)
    n_rankings = 0 if feature(10) else draw(st.integers(1, max_rankings))
    ranking_keys = draw(
        st.lists(
            st.tuples(*[key_ids] * (n_by + 1)),
            min_size=n_rankings,
            max_size=n_rankings,
            unique=True,
        )
    )
    duplicates = feature(6)
    columns = draw(
        _rows(
            ranking_keys,
            [*by_names, query],
            (item, score, relevance),
            items=st.lists(key_ids, min_size=1, max_size=max_items, unique=not duplicates),
            scores=SCORES + (HOSTILE_SCORES if extreme else ()) + ((math.nan,) if nan else ()),
            labels=LABELS + (HOSTILE_LABELS if extreme else ()) + ((math.nan,) if nan else ()),
        )
    )
    if columns[item] and feature(6):
        column = draw(st.sampled_from([*by_names, query, item]))
        columns[column][draw(st.integers(0, len(columns[column]) - 1))] = None

    texts = draw(_key_texts(columns)) if dtypes else {}
    series = [_key_series(n, columns[n], types[n], texts) for n in [*by_names, query, item]] + [
        _number_series(n, columns[n], types[n]) for n in (score, relevance)
    ]
    df = pl.DataFrame(series)
    if df.height > 1 and draw(st.booleans()):
        df = df[list(draw(st.permutations(range(df.height))))]
    if duplicates and df.height:
        df = pl.concat([df, df.sample(1, seed=0)])  # an exact duplicate row
    if feature(10):
        df = df.drop(draw(st.sampled_from(df.columns)))

    # the column names where they differ from the defaults: all four or none
    kwargs: ColumnOptions = (
        {"query": query, "item": item, "score": score, "relevance": relevance} if renamed else {}
    )
    by = list(by_names)
    if feature(12):
        by.append(draw(st.sampled_from([query, item, score, relevance])))  # not distinct
    if by:
        kwargs["by"] = by if len(by) > 1 or draw(st.booleans()) else by[0]
    t = Table(df, kwargs, by, query, item, score, relevance)
    t.must_raise = table_violation(t)
    if not hostile:  # a narrow dtype can still merge keys (booleans): draw again
        assume(t.must_raise is None)
    return t
