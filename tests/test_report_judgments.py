"""The report's section "Incomplete judgments" (polars_graded/report/judgments.py): its
numbers are judgment_bounds' on the report's table and options, the HTML and Markdown show
the same intervals and pairs, and ``polars-graded report --unjudged-label`` reaches them.

judgment_bounds itself is checked against pytrec_eval in test_stats_judgment_bounds.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from support.cli import assert_one_line_error, run
from support.report import MEASURES, Page, synthetic_table
from support.tables import make_random_table

from polars_graded.report import Report, compute_report, to_html, to_markdown
from polars_graded.report.judgments import JUDGED_AT, MAX_FLIPS, judgments_section
from polars_graded.report.text import fmt
from polars_graded.stats.judgment_bounds import judgment_bounds, order_flips

TRIALS = 200
NO_UNJUDGED = "No retrieved row is unjudged: the bounds equal the values."


def three_systems() -> pl.DataFrame:
    """Three systems close enough that unjudged rows could reorder them."""
    return make_random_table(21, systems=3, queries=30, max_items=25, int_labels=True).with_columns(
        pl.col("relevance").clip(0)
    )


def build(table: pl.DataFrame, measures: list[str] = MEASURES, **options: Any) -> Report:
    return compute_report(table, measures, trials=TRIALS, bootstrap=TRIALS, **options)


def interval(row: dict[str, Any], suffix: str = "") -> str:
    """``value [low, high]`` as the section prints it."""
    value, low, high = (row[f"{c}{suffix}"] for c in ("value", "low", "high"))
    return f"{fmt(value)} [{fmt(low)}, {fmt(high)}]"


@pytest.fixture(scope="module")
def close() -> Report:
    return build(three_systems(), ["ap", "ndcg@10", "p@10", "num_ret"], missing="common")


def test_the_numbers_are_judgment_bounds(close: Report) -> None:
    """The report's options reach judgment_bounds; counts are left out; the key is
    ``system`` as String."""
    expected = judgment_bounds(three_systems(), ["ap", "ndcg@10", "p@10"], missing="common")
    assert close.judgments is not None
    assert close.judgments.equals(expected.with_columns(pl.col("system").cast(pl.String)))
    labelled = build(synthetic_table(), unjudged_label=1, ties="optimistic")
    want = judgment_bounds(synthetic_table(), MEASURES, unjudged_label=1, ties="optimistic")
    assert labelled.judgments is not None
    assert labelled.judgments.equals(want)


def test_html_and_markdown_show_the_bounds_and_the_flips(close: Report) -> None:
    assert close.judgments is not None
    page, markdown = Page(to_html(close)), to_markdown(close)
    rows = page.tables["judgment-bounds"]
    header = [text for _, text in rows[0][1]]
    assert header == ["system", f"judged@{JUDGED_AT}", "ap", "ndcg@10", "p@10"]
    assert [cells[0][1] for _, cells in rows[1:]] == list(close.order)
    for _, cells in rows[1:]:
        system = cells[0][1]
        for (_, text), measure in zip(cells[2:], header[2:], strict=True):
            row = close.judgments.filter(
                (pl.col("system") == system) & (pl.col("measure") == measure)
            ).row(0, named=True)
            assert text == interval(row)
            assert f"| {text} |" in markdown or f"| {text}\n" in markdown
    flips = order_flips(close.judgments)
    assert flips.height > 0
    shown = [[text for _, text in cells] for _, cells in page.tables["judgment-flips"][1:]]
    expected = []
    for (measure,), pairs in flips.group_by("measure", maintain_order=True):
        gap = pl.col("value_a") - pl.col("value_b")
        closest = pairs.with_columns(gap=gap).sort("gap", maintain_order=True)
        for row in closest.head(MAX_FLIPS).iter_rows(named=True):
            want = [measure, row["system_a"], row["system_b"]]
            expected.append([*want, interval(row, "_a"), interval(row, "_b")])
    assert shown == expected
    for measure in flips["measure"].unique():
        count = flips.filter(pl.col("measure") == measure).height
        assert f"{measure} {count:,}" in markdown
    retrieved, unjudged = (
        close.judgments.unique("system").select("retrieved", "unjudged").sum().row(0)
    )
    share = f"{unjudged / retrieved:.1%} of the retrieved rows ({unjudged:,} of {retrieved:,})"
    for text in (markdown, to_html(close)):
        assert "Incomplete judgments" in text
        assert share in text
        assert "could flip within the bounds" in text
        assert "conservative" in text


def test_no_order_flips_on_clearly_different_systems() -> None:
    section = judgments_section(build(synthetic_table()))
    assert section is not None
    first, last = section.parts[0], section.parts[-1]
    assert isinstance(first, str) and isinstance(last, str)
    assert last.startswith("No order can flip")
    assert "relevant at label 2," in first


def test_complete_judgments_say_the_bounds_equal_the_values() -> None:
    judged = synthetic_table().with_columns(pl.col("relevance").fill_null(0))
    rep = build(judged)
    section = judgments_section(rep)
    assert section is not None and section.parts == (NO_UNJUDGED,)
    assert NO_UNJUDGED in to_markdown(rep) and NO_UNJUDGED in to_html(rep)


def test_only_counts_give_no_section() -> None:
    rep = build(synthetic_table(), ["num_ret", "num_rel"])
    assert rep.judgments is None and judgments_section(rep) is None
    assert "Incomplete judgments" not in to_markdown(rep)


# --------------------------------------------------------------------------- the CLI


def test_cli_unjudged_label(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = synthetic_table()
    source = tmp_path / "runs.parquet"
    table.write_parquet(source)
    argv = ["report", str(source), "--out", str(tmp_path / "out"), "-m", "ap"]
    argv += ["--trials", "50", "--bootstrap", "50", "--unjudged-label", "1"]
    code, _, err = run(argv, capsys)
    assert (code, err) == (0, "")
    markdown = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "relevant at label 1," in markdown
    bounds = judgment_bounds(table, ["ap"], unjudged_label=1)
    assert bounds["unjudged_relevant"].to_list() != bounds["value"].to_list()
    for row in bounds.iter_rows(named=True):
        assert interval(row) in markdown


def test_cli_refuses_a_bad_label(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "runs.parquet"
    synthetic_table().write_parquet(source)
    argv = ["report", str(source), "--out", str(tmp_path / "out"), "-m", "ap"]
    code, out, err = run([*argv, "--unjudged-label", "-1"], capsys)
    assert_one_line_error(code, out, err, "unjudged_label= must be a positive finite label")
    code, out, err = run([*argv, "--unjudged-label", "1.5"], capsys)
    assert_one_line_error(code, out, err, "unjudged_label=1.5 is not a label the Int64 column")
    assert not (tmp_path / "out").exists()
