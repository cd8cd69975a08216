"""num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret (polars_graded/measures/counts.py):
by hand, against pytrec_eval per query on a random table, against trec_eval 10.0's outputs,
and Int64 under every tie policy, by system, on a LazyFrame."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from support.tables import FrameKind
from support.trec_eval import mismatches, ours_on_files, pytrec_values, random_table, trec_eval_10

import polars_graded as pg

COUNTS = ["num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"]


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return random_table(16)


def by_hand() -> pl.DataFrame:
    """Ranked labels 2, unjudged, 0, -1, 1; unretrieved 3, 0 and -2."""
    return pl.DataFrame(
        {"query": [1] * 8, "item": list("abcdefgh"),
         "score": [5.0, 4.0, 3.0, 2.0, 1.0, None, None, None],
         "relevance": [2, None, 0, -1, 1, 3, 0, -2]}
    )  # fmt: skip


def test_counts_by_hand() -> None:
    """N = 5; R = 3 (2, 1, 3), R^2 = 2; relevant retrieved 2 (2, 1), at rel=2 one; judged
    non-relevant retrieved: label 0 (the -1 and the null are not judged), at rel=2 also 1."""
    expected = {
        "num_ret": 5, "num_rel": 3, "num_rel(rel=2)": 2, "num_rel_ret": 2,
        "num_rel_ret(rel=2)": 1, "num_nonrel_judged_ret": 1, "num_nonrel_judged_ret(rel=2)": 2,
    }  # fmt: skip
    for ties in ("trec_eval", "average", "optimistic"):
        got = by_hand().graded.evaluate(list(expected), ties=ties)
        assert got.row(0, named=True) == {"query": 1, **expected}
        assert all(got.schema[m] == pl.Int64 for m in expected)


def test_counts_are_int64_in_every_entry_point(frame_kind: FrameKind) -> None:
    out = frame_kind.collect(frame_kind(by_hand()).graded.evaluate(COUNTS))
    assert [out.schema[m] for m in COUNTS] == [pl.Int64] * 4

    expr = by_hand().group_by("query").agg(pg.num_rel_ret(rel=2))
    assert expr.schema["num_rel_ret(rel=2)"] == pl.Int64
    assert expr.item(0, 1) == 1


@pytest.mark.parametrize("rel", [1, 2, 3])
def test_counts_equal_pytrec_eval(table: pl.DataFrame, rel: int) -> None:
    expected = pytrec_values(table, set(COUNTS), rel)
    assert not mismatches(table, expected, tol=0, skipped_zero=False)


def test_counts_equal_trec_eval_10(shared_data: Callable[[str], Path]) -> None:
    for out, qrels, rel in [
        ("out.test.aq", "qrels.test", 1),
        ("out.test.aql", "qrels.rel_level", 2),
    ]:
        expected = trec_eval_10(
            shared_data, out, qrels, "results.test", wanted=COUNTS.__contains__, rel=rel
        )
        assert len(expected) == 4 * 3
        ours = ours_on_files(shared_data, qrels, "results.test", {m for _, m in expected})
        assert {key: ours[key] for key in expected} == expected


def test_counts_leave_the_spark_path_as_integers() -> None:
    """The executors' Arrow tables hold int64 counts, and the Spark schema says bigint."""
    import pyarrow as pa

    from polars_graded.options import TableSpec
    from polars_graded.spark import evaluate_arrow, output_schema

    table = by_hand().to_arrow()
    measures = {"n": pg.NumRet, "ap": pg.AP}
    assert evaluate_arrow(table, measures, TableSpec()).schema.types[1:] == [
        pa.int64(),
        pa.float64(),
    ]
    types = pytest.importorskip("pyspark.sql.types")
    schema = types.StructType([types.StructField("query", types.LongType())])
    assert output_schema(schema, TableSpec(), measures).simpleString() == (
        "struct<query:bigint,n:bigint,ap:double>"
    )
