"""What both renderings say (:mod:`polars_graded.report.text`): thresholds named exactly,
at most MAX_THRESHOLDS of them shown, and a sentence on what a capped table leaves out."""

from __future__ import annotations

import html
from pathlib import Path

import polars as pl
from support.report import Page, close_labels_table, continuous_table

from polars_graded import report
from polars_graded.api import per_threshold
from polars_graded.measures.base import format_number
from polars_graded.report.inputs import example_table
from polars_graded.report.text import (
    MAX_THRESHOLDS,
    conventions,
    legend,
    procedure_lines,
    threshold_notes,
    threshold_table,
)


def test_close_labels_get_exact_and_distinct_threshold_names(tmp_path: Path) -> None:
    files = report.build_report(
        close_labels_table(), tmp_path / "out", ["mu_ap"], trials=20, bootstrap=20
    )
    head = [text for _, text in Page(files.html.read_text(encoding="utf-8")).tables[
        "threshold-table"][0][1]]  # fmt: skip
    assert [h.split(" (")[0] for h in head[1:4]] == [
        "MAP rel≥1",
        "MAP rel≥1.000001",
        "MAP rel≥1.000002",
    ]
    assert len(set(head)) == len(head)
    markdown = files.markdown.read_text(encoding="utf-8")
    assert "The table's positive labels: 1, 1.000001, 1.000002." in markdown
    assert "0: 2, 1: 2, 1.000001: 2, 1.000002: 2" in markdown  # judgments per label, exact


def test_many_thresholds_give_a_bounded_table_that_says_what_it_leaves_out(
    tmp_path: Path,
) -> None:
    """Issue 14, item 9: a threshold per distinct label, but at most MAX_THRESHOLDS columns,
    a sentence naming the count, and a chart of MAP at every threshold."""
    table = continuous_table()
    rep = report.compute_report(table, ["mu_ap", "ap"], trials=20, bootstrap=20)
    count = rep.thresholds["threshold"].n_unique()
    assert count > 300
    frame = threshold_table(rep)
    maps = [c for c in frame.columns if c.startswith("MAP")]
    assert len(maps) == MAX_THRESHOLDS
    thresholds = rep.thresholds["threshold"].unique().sort()
    assert maps[0] == f"MAP rel≥{format_number(thresholds[0])}"
    assert maps[-1] == f"MAP rel≥{format_number(thresholds[-1])}"
    notes = threshold_notes(rep)
    assert any(f"{count:,} thresholds" in n and "leaves out" in n for n in notes)
    files = report.write_report(rep, tmp_path)
    page = Page(files.html.read_text(encoding="utf-8"))
    assert len(page.images) == 2 + 1 + 1 + 1  # bars, MAP lines, MAP at each threshold, differences
    markdown = files.markdown.read_text(encoding="utf-8")
    assert max(len(line) for line in markdown.splitlines()) < 3000
    assert f"{count:,} distinct labels from" in markdown
    # the shown MAPs are per_threshold's
    expected = per_threshold(table, by="system")
    for column in maps:
        t = float(column.removeprefix("MAP rel≥"))
        got = frame.select("system", column).rows()
        want = expected.filter(pl.col("threshold") == t).select("system", "map").rows()
        assert sorted(got) == sorted(want)


# --------------------------------------------------------------------------- the tests' words


def test_the_tests_section_names_the_test_and_its_draws() -> None:
    rep = report.compute_report(example_table(), ["ap"], trials=100, bootstrap=200)
    lines = procedure_lines(rep)
    assert lines[0].startswith("Marks ▲ / ▼ and every count of significance: the two-sided ")
    assert "randomization test: 100 trials (2 queries)" in lines[0]
    assert "bootstrap intervals: 200 resamples (2 queries)" in lines[1]
    assert not any("normal limit" in line for line in lines)
    markdown, page = report.to_markdown(rep), report.to_html(rep)
    tests = markdown.split("## Tests")[1].split("## ")[0]
    assert all(f"- {line}" in tests for line in lines)
    assert all(html.escape(line) in page for line in lines)


def test_under_the_normal_limit_the_report_says_so_with_the_query_count() -> None:
    rep = report.compute_report(
        example_table(), ["ap"], trials=100, bootstrap=200, large_sample="normal", all_pairs=True
    )
    lines = procedure_lines(rep)
    assert "normal limit of the sign-flip distribution (2 queries" in lines[0]
    assert "normal limit of the bootstrap (2 queries" in lines[1]
    assert lines[2].startswith("p Tukey (section All pairs): randomized Tukey HSD: normal limit")
    assert all("large_sample='normal'" in line for line in lines)
    assert not any("100 trials" in line or "200 resamples" in line for line in lines)
    assert "randomization test (its normal limit: 2 queries)" in legend(rep)
    assert "bootstrap intervals (their normal limit: 2 queries)" in legend(rep)
    tests = dict(conventions(rep))["Tests"]
    assert "normal limit" in tests and "trials" not in tests and "resamples" not in tests


def test_a_closed_form_test_decides_the_marks_and_the_randomization_column_is_named() -> None:
    rep = report.compute_report(example_table(), ["ap"], trials=100, bootstrap=200, test="t")
    lines = procedure_lines(rep)
    assert lines[0].endswith(
        "the two-sided paired t-test, computed in closed form (no resampling)."
    )
    assert lines[1] == "The p rand. column: randomization test: 100 trials (2 queries)."
