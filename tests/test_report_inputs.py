"""What a report reads (polars_graded/report/inputs.py): the system column (``by=``, and
``system=`` its deprecated alias), and TREC runs named by tag, file name or folder."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from support.report import synthetic_table, write_trec_runs

import polars_graded as pg
from polars_graded import report


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return synthetic_table()


def test_by_names_the_system_column_and_system_is_its_deprecated_alias(
    table: pl.DataFrame, tmp_path: Path
) -> None:
    """``by=`` everywhere; ``system=`` still works, with a DeprecationWarning, the same bits."""
    runs = table.rename({"system": "run", "query": "topic"})
    options: dict[str, Any] = {"query": "topic", "trials": 50, "bootstrap": 50, "seed": 3}
    new = report.compute_report(runs, ["ap", "rr"], by="run", **options)
    assert (new.system, new.query) == ("run", "topic")
    with pytest.warns(DeprecationWarning, match="system= is deprecated") as caught:
        old = report.compute_report(runs, ["ap", "rr"], system="run", **options)
    assert caught[0].filename == __file__  # the warning points at the caller
    for name in ("per_query", "comparison", "thresholds", "ties"):
        assert_frame_equal(getattr(old, name), getattr(new, name), check_exact=True)
    assert old.settings == new.settings
    with pytest.warns(DeprecationWarning):
        counted = report.count_ties(runs, system="run", query="topic")
    assert_frame_equal(counted, report.count_ties(runs, by="run", query="topic"))
    with pytest.warns(DeprecationWarning):
        described = report.describe(runs, system="run", query="topic")
    expected = report.describe(runs, by="run", query="topic")
    assert_frame_equal(described.per_system, expected.per_system)
    assert (described.queries, described.rows) == (expected.queries, expected.rows)
    with pytest.warns(DeprecationWarning) as caught:
        files = report.build_report(runs, tmp_path, ["ap"], system="run", **options)
    assert caught[0].filename == __file__
    assert_frame_equal(pl.read_parquet(files.per_query), new.per_query.drop("rr"))
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="column once"):
        report.compute_report(runs, ["ap"], by="run", system="team", **options)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # by= alone warns nothing
        report.count_ties(runs, by="run", query="topic")


# --------------------------------------------------------------------------- TREC input


def test_run_names_take_tags_then_file_names_then_folders() -> None:
    assert report.run_names(["x/input.a.gz", "x/input.b.gz"], ["A", "B"]) == ["A", "B"]
    assert report.run_names(["x/bm25.txt.gz", "x/splade.run"], ["r", "r"]) == ["bm25", "splade"]
    same = ["BM25/dl19.txt.gz", "TASB/dl19.txt.gz"]
    assert report.run_names(same, ["rank", "rank"]) == ["BM25", "TASB"]
    assert report.run_names(same, [None, "rank"]) == ["BM25", "TASB"]
    twins = ["x/run/a.txt", "y/run/a.txt"]
    assert report.run_names(twins, ["t", "t"]) == twins


def test_trec_table_names_runs_and_refuses_two_of_the_same_name(
    table: pl.DataFrame, tmp_path: Path
) -> None:
    runs, qrels = write_trec_runs(table, tmp_path, "tags")
    joined = report.trec_table(runs, qrels)
    assert sorted(joined["system"].unique()) == ["sys_a", "sys_b", "sys_c"]
    named = report.trec_table({"x": runs[0], "y": runs[1]}, qrels)
    assert sorted(named["system"].unique()) == ["x", "y"]
    with pytest.raises(pg.InvalidValueError, match="two runs have the same name"):
        report.trec_table([runs[0], runs[0]], qrels)
