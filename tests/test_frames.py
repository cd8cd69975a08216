"""Tables of other libraries (polars_graded/frames.py): pandas and Arrow tables give the
numbers of the same Polars frame, keep their key types, and anything else is a clear error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from polars.testing import assert_frame_equal
from support.trec_eval import random_table

import polars_graded as pg
from polars_graded.frames import as_polars

MEASURES = ["ap", "ndcg@10", "rr", "mu_ap"]


class CapsuleOnly:
    """A table known only by the Arrow PyCapsule stream interface (as DuckDB's results)."""

    def __init__(self, table: pa.Table) -> None:
        self.table = table

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self.table.__arrow_c_stream__(requested_schema)


FOREIGN: dict[str, Callable[[pl.DataFrame], Any]] = {
    # to_pandas gives NaN for a null score or label (NumPy columns have no null): they
    # must come back as nulls, "not returned" and "not judged".
    "pandas": lambda table: table.to_pandas(),
    "pandas indexed by query": lambda table: table.to_pandas().set_index("query"),
    "pandas shuffled (unnamed index)": lambda t: t.to_pandas().sample(frac=1.0, random_state=0),
    "pandas with Arrow columns": lambda t: t.to_pandas(types_mapper=pd.ArrowDtype),
    "pyarrow Table": lambda table: table.to_arrow(),
    "pyarrow RecordBatch": lambda table: table.to_arrow().combine_chunks().to_batches()[0],
    "pyarrow RecordBatchReader": lambda table: pa.RecordBatchReader.from_batches(
        table.to_arrow().schema, table.to_arrow().to_batches()
    ),
    "Arrow stream (PyCapsule)": lambda table: CapsuleOnly(table.to_arrow()),
}


@pytest.fixture(name="table", scope="module")
def table_fixture() -> pl.DataFrame:
    """Two systems with ties, unjudged and unretrieved rows, negative labels."""
    return random_table(20261128, queries=30)


@pytest.mark.parametrize("kind", FOREIGN)
def test_a_foreign_table_gives_the_numbers_of_the_polars_frame(
    kind: str, table: pl.DataFrame
) -> None:
    given = FOREIGN[kind](table)
    want = pg.evaluate(table, MEASURES, by="system")
    got = pg.evaluate(given, MEASURES, by="system")
    assert isinstance(got, pl.DataFrame)
    assert_frame_equal(got, want)
    alone = table.filter(pl.col("system") == "s0").drop("system")  # no by=
    assert_frame_equal(pg.evaluate(FOREIGN[kind](alone), ["ap"]), pg.evaluate(alone, ["ap"]))
    assert_frame_equal(
        pg.summary(FOREIGN[kind](table), MEASURES, by="system"),
        pg.summary(table, MEASURES, by="system"),
    )
    assert_frame_equal(
        pg.per_threshold(FOREIGN[kind](table), by="system"), pg.per_threshold(table, by="system")
    )


@pytest.mark.parametrize("kind", ["pandas", "pyarrow Table"])
def test_the_statistics_take_foreign_tables(kind: str, table: pl.DataFrame) -> None:
    per_query = pg.evaluate(table, ["ap", "ndcg@10"], by="system")
    options: dict[str, Any] = {"trials": 200, "bootstrap": 200, "seed": 1}
    assert_frame_equal(
        pg.compare(FOREIGN[kind](per_query), **options), pg.compare(per_query, **options)
    )
    assert_frame_equal(
        pg.compare_pairs(FOREIGN[kind](per_query), **options),
        pg.compare_pairs(per_query, **options),
    )
    gate: dict[str, Any] = {"baseline": "s0", "candidate": "s1", "max_drop": 0.05, "bootstrap": 200}
    got, want = pg.gate(FOREIGN[kind](table), ["ap"], **gate), pg.gate(table, ["ap"], **gate)
    assert got.passed == want.passed
    assert_frame_equal(got.table, want.table)
    assert_frame_equal(
        pg.judgment_bounds(FOREIGN[kind](table), ["ap"]), pg.judgment_bounds(table, ["ap"])
    )


def test_kinds_are_kept() -> None:
    lazy = pl.LazyFrame({"query": [1], "item": ["a"], "score": [1.0], "relevance": [1]})
    assert isinstance(pg.evaluate(lazy, ["ap"]), pl.LazyFrame)
    assert as_polars(lazy, "evaluate") is lazy
    eager = lazy.collect()
    assert as_polars(eager, "evaluate") is eager


def test_key_types_are_kept() -> None:
    frame = pd.DataFrame(
        {
            "system": pd.Series(["b", "a", "b", "a"], dtype="string"),
            "query": pd.Series([7, 7, 8, 8], dtype="int32"),
            "item": ["x", "y", "x", "y"],  # object
            "score": [1.0, 2.0, 1.0, 1.0],
            "relevance": [1, 0, 2, 1],
        }
    )
    converted = as_polars(frame, "evaluate")
    assert converted.schema == pl.Schema(
        {
            "system": pl.String,
            "query": pl.Int32,
            "item": pl.String,
            "score": pl.Float64,
            "relevance": pl.Int64,
        }
    )
    out = pg.evaluate(frame, ["ap"], by="system")
    assert out.schema == pl.Schema({"system": pl.String, "query": pl.Int32, "ap": pl.Float64})
    arrow = pa.table(
        {"query": pa.array([7], pa.int16()), "item": pa.array(["x"], pa.large_string())}
    )
    assert as_polars(arrow, "evaluate").schema == pl.Schema({"query": pl.Int16, "item": pl.String})


@pytest.mark.parametrize("kind", ["pandas", "pyarrow Table"])
def test_categorical_keys_rank_as_their_strings(kind: str, table: pl.DataFrame) -> None:
    # Ties are broken by item, descending: categories must compare as their text, not by
    # their codes (the order of first appearance), whichever order the categories have.
    shuffled = table.sample(fraction=1.0, shuffle=True, seed=5)
    if kind == "pandas":
        given: Any = shuffled.to_pandas().astype({"item": "category", "query": "category"})
        given["item"] = given["item"].cat.reorder_categories(
            sorted(given["item"].cat.categories, reverse=True)
        )
    else:
        arrow = shuffled.to_arrow()
        given = arrow.set_column(2, "item", arrow.column("item").dictionary_encode())
    assert as_polars(given, "evaluate").schema["item"] == pl.Categorical
    names = [*MEASURES, "p@5", "ndcg(gain=linear)@5"]
    got = pg.evaluate(given, names, by="system").with_columns(pl.col("query").cast(pl.String))
    assert_frame_equal(got, pg.evaluate(table, names, by="system"))


def test_named_index_levels_become_columns() -> None:
    frame = pd.DataFrame(
        {"query": ["q1", "q1", "q2"], "item": ["a", "b", "a"], "score": [2.0, 1.0, 1.0]}
    )
    by_query = frame.set_index("query")
    assert as_polars(by_query, "evaluate").columns == ["query", "item", "score"]
    both = frame.set_index(["query", "item"])
    assert as_polars(both, "evaluate").rows() == [
        ("q1", "a", 2.0),
        ("q1", "b", 1.0),
        ("q2", "a", 1.0),
    ]
    # An unnamed level is a row label: dropped, even inside a MultiIndex.
    partly = both.rename_axis(index=["query", None])
    assert as_polars(partly, "evaluate").columns == ["query", "score"]
    # A level that repeats its column adds nothing; one that contradicts it is refused.
    kept = frame.set_index("query", drop=False)
    assert_frame_equal(as_polars(kept, "evaluate"), pl.from_pandas(frame))
    kept.index = pd.Index(["q2", "q1", "q1"], name="query")
    with pytest.raises(pg.InvalidValueError, match=r"level 'query' has the name of a column but"):
        as_polars(kept, "evaluate")


def test_what_cannot_be_converted_is_named() -> None:
    mixed = pd.DataFrame({"query": [1, "q2"], "item": ["a", "b"]})
    with pytest.raises(pg.ColumnTypeError, match=r"evaluate\(\): the pandas DataFrame cannot be "):
        pg.evaluate(mixed, ["ap"])
    with pytest.raises(
        pg.ColumnTypeError, match=r"column 'query' holds values of types \['int', 'str'\]"
    ):
        pg.evaluate(mixed, ["ap"])


@pytest.mark.parametrize(
    ("given", "described", "hint"),
    [
        ({"q1": {"a": 1.0}}, "a dict of dicts", "pg.from_dicts(run, qrels)"),
        ({"query": [1]}, "a dict", "pl.DataFrame(data)"),
        (pl.Series([1.0]), "a polars Series", "series.to_frame()"),
        (pa.array([1.0]), "a pyarrow DoubleArray", "pa.table({name: array})"),
        (None, "None", "pg.read_trec_run"),
    ],
)
def test_what_is_not_a_table_is_refused_with_a_way_out(
    given: object, described: str, hint: str
) -> None:
    with pytest.raises(pg.ColumnTypeError) as info:
        as_polars(given, "summary")
    message = str(info.value)
    assert message.startswith(
        "summary() takes a table: a Polars DataFrame or LazyFrame, a pandas DataFrame, a "
        "pyarrow Table or RecordBatch, or an object with the Arrow stream interface"
    )
    assert f"; got {described}: " in message
    assert hint in message
