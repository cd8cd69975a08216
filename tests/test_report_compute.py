"""A report's numbers (polars_graded/report/compute.py): per-query values as ``evaluate``
gives them, the data's description counted by hand, missing queries, the measure arguments
and their errors, all through the typed API."""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Sequence
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from support.report import MEASURES, built_fixture, folder_fixture, table_fixture

import polars_graded as pg
from polars_graded import report
from polars_graded.options import ColumnOptions
from polars_graded.report.compute import (
    BLOCK_STEP_NAMES,
    RENDERING,
    STEPS,
    ReportOptions,
    compute_report,
    paired_differences,
)
from polars_graded.report.inputs import example_table
from polars_graded.report.sections import BLOCK_STEPS

# The report's shared fixtures (table, built, folder): pytest finds them here by name.
SHARED_FIXTURES = (built_fixture, folder_fixture, table_fixture)


def test_per_query_parquet_equals_evaluate(folder: Path, table: pl.DataFrame) -> None:
    written = pl.read_parquet(folder / "per_query.parquet")
    expected = table.lazy().graded.evaluate(MEASURES, by="system").collect(engine="in-memory")
    assert_frame_equal(written, expected, check_exact=True)
    assert_frame_equal(written, table.graded.evaluate(MEASURES, by="system"), rel_tol=1e-12)


def test_description_counts_per_system(built: report.Report) -> None:
    per_system = built.description.per_system.sort("system")
    assert per_system["rows"].to_list() == [109, 109, 109]
    assert per_system["retrieved"].to_list() == [95, 95, 95]
    assert per_system["unjudged"].to_list() == [14, 14, 14]
    assert built.description.no_relevant == ("0",)


def test_missing_queries_common_compares_only_shared_queries(
    table: pl.DataFrame, tmp_path: Path
) -> None:
    gappy = table.filter(~((pl.col("system") == "c") & (pl.col("query") == 5)))
    rep = report.compute_report(
        gappy, ["ap"], missing="common", trials=50, bootstrap=50, baseline="b"
    )
    assert rep.order[0] == "b"
    rows = rep.comparison.sort("system")
    assert rows["n_missing"].to_list() == [0, 0, 1]
    assert rows["n_queries"].to_list() == [13, 13, 13]
    paired = paired_differences(rep, "ap")
    assert paired.height == 2 * 13
    assert 5 not in paired["query"].to_list()
    files = report.write_report(rep, tmp_path)
    assert "missing = common" in files.markdown.read_text(encoding="utf-8")


def test_measure_arguments_and_their_errors(table: pl.DataFrame) -> None:
    with pytest.raises(pg.InvalidValueError, match="baseline 'zz' is not a system"):
        report.compute_report(table, ["ap"], baseline="zz", trials=10, bootstrap=10)
    with pytest.raises(pg.InvalidValueError, match=r"difference plots of \['rr'\]"):
        report.compute_report(table, ["ap"], differences=["rr"], trials=10, bootstrap=10)
    with pytest.raises(pg.MissingColumnError, match="no system column 'run'"):
        report.compute_report(table, ["ap"], by="run", trials=10, bootstrap=10)
    with pytest.raises(pg.InvalidValueError, match="exactly one system column"):
        report.compute_report(table, ["ap"], by=["system", "query"], trials=10, bootstrap=10)
    with pytest.raises(pg.InvalidValueError, match="no rows to report on"):
        report.compute_report(table.head(0), ["ap"], trials=10, bootstrap=10)
    one = report.compute_report(table, "AP", differences="ap", trials=10, bootstrap=10)
    assert (one.settings.measures, one.settings.differences) == (("ap",), ("ap",))


def test_the_report_computes_through_the_typed_api(
    table: pl.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No ``.graded`` on the report's own frames: the namespace may be gone entirely."""
    monkeypatch.delattr(pl.LazyFrame, "graded")
    monkeypatch.delattr(pl.DataFrame, "graded")
    rep = report.compute_report(table.lazy(), ["ap"], trials=10, bootstrap=10)
    assert rep.per_query.height == 3 * 14


def test_report_options_are_the_keywords_of_compute_report() -> None:
    parameters = inspect.signature(compute_report, eval_str=True).parameters.values()
    keywords = {
        p.name: p.annotation
        for p in parameters
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name != "system"
    }
    options = typing.get_type_hints(ReportOptions)
    table = set(ColumnOptions.__annotations__)
    own = {name: hint for name, hint in options.items() if name not in table}
    assert own == keywords  # names and types: build_report forwards them whole
    assert list(own) == list(keywords)  # and in the same order
    assert set(options) == set(keywords) | table


def shown_in_order(err: str, names: Sequence[str]) -> None:
    """Each step's name on one bar, in order, k of n (n the steps), then the bar full."""
    total = len(names)
    shown = [err.index(f"report: {name}") for name in names]
    assert shown == sorted(shown)
    assert f"{total - 1}/{total} steps" in err[shown[-1] :]
    # tqdm's line ends with the elapsed time, the fallback's with seconds.
    assert re.search(rf"{total}/{total} steps( \[\d\d:\d\d\]|, \d+ s)$", err.rstrip())


def test_progress_names_each_step_k_of_n(capsys: pytest.CaptureFixture[str]) -> None:
    """progress=True: every step's name, in order, and the count; nothing by default."""
    compute_report(example_table(), ["ap"], trials=20, bootstrap=20)
    assert capsys.readouterr().err == ""
    compute_report(example_table(), ["ap"], trials=20, bootstrap=20, progress=True)
    assert {BLOCK_STEP_NAMES[step.__name__] for step in BLOCK_STEPS} <= set(STEPS)
    # The last step, the charts and the files, is build_report's (next test).
    assert STEPS[-1] == RENDERING
    shown_in_order(capsys.readouterr().err, STEPS[:-1])


def test_build_report_draws_one_bar_to_the_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Writing the report: compute_report's steps and the charts on one bar, not two."""
    options: ReportOptions = {"trials": 20, "bootstrap": 20, "progress": True}
    report.build_report(example_table(), tmp_path / "out", ["ap"], **options)
    err = capsys.readouterr().err
    shown_in_order(err, STEPS)
    assert f"/{len(STEPS) - 1} steps" not in err
