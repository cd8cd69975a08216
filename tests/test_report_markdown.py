"""The report's Markdown summary (:mod:`polars_graded.report.markdown`): the summary table
holds compare()'s means, with the same markers as the HTML page; its sections are the page's,
in order, and the page's charts and tests table are there as numbers."""

from __future__ import annotations

import html
import re
from pathlib import Path

import polars as pl
import pytest
from support.report import (
    MEASURES,
    TRIALS,
    built_fixture,
    expected_comparison,
    folder_fixture,
    sign_of,
    table_fixture,
)

import polars_graded as pg
from polars_graded import report
from polars_graded.report.compute import paired_differences
from polars_graded.report.html import TEST_COLUMNS, to_html
from polars_graded.report.markdown import to_markdown
from polars_graded.report.text import legend

# The report's shared fixtures (table, built, folder): pytest finds them here by name.
SHARED_FIXTURES = (built_fixture, folder_fixture, table_fixture)


def test_the_written_summary_is_to_markdown(folder: Path, built: report.Report) -> None:
    assert (folder / "report.md").read_text(encoding="utf-8") == to_markdown(built)


def test_markdown_has_the_same_numbers(
    folder: Path, table: pl.DataFrame, built: report.Report
) -> None:
    expected = {(r["system"], r["measure"]): r for r in expected_comparison(table).to_dicts()}
    lines = (folder / "report.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("| system | queries | mu_ap | ndcg@3 | p@2 |")
    rows = [line.strip("| ").split(" | ") for line in lines[start + 2 : start + 5]]
    assert [r[0] for r in rows] == ["a (baseline)", "b", "c"]
    for cells in rows:
        system = cells[0].split(" ")[0]
        assert cells[1] == "14"
        for measure, cell in zip(MEASURES, cells[2:], strict=True):
            row = expected[system, measure]
            assert cell == f"{row['mean']:.4f} {sign_of(row)}".strip()
    assert any("▲" in line for line in lines[start:])
    assert legend(built) in lines
    assert f"- **Version**: polars_graded {pg.__version__}" in "\n".join(lines)


# --------------------------------------------------------------------------- the page's mirror


@pytest.fixture(scope="module")
def everything(table: pl.DataFrame) -> report.Report:
    """The synthetic report with every section on: all pairs, segments (by query parity),
    a difference plot per measure."""
    with_segment = table.with_columns(
        lang=pl.when(pl.col("query") % 2 == 0).then(pl.lit("en")).otherwise(pl.lit("de"))
    )
    return report.compute_report(
        with_segment,
        MEASURES,
        trials=TRIALS,
        bootstrap=TRIALS,
        seed=3,
        differences="all",
        all_pairs=True,
        segment="lang",
        min_queries=5,
    )


def test_markdown_headings_are_the_pages_sections_in_order(everything: report.Report) -> None:
    page = to_html(everything)
    titles = [html.unescape(t) for t in re.findall(r"<h2>(.*?)</h2>", page)]
    headings = [line[3:] for line in to_markdown(everything).splitlines() if line.startswith("## ")]
    assert headings == titles
    assert {"All pairs", "Measures", "Per-query differences", "Tests"} <= set(headings)


def test_markdown_measures_differences_and_tests_hold_the_numbers(built: report.Report) -> None:
    lines = to_markdown(built).splitlines()
    rows = {(r["system"], r["measure"]): r for r in built.comparison.to_dicts()}
    start = lines.index("## Measures")
    measures = [line.strip("| ").split(" | ") for line in lines[start + 4 : start + 7]]
    for cells in measures:
        for m, cell in zip(MEASURES, cells[1:], strict=True):
            r = rows[cells[0], m]
            assert cell == f"{r['mean']:.4f} [{r['ci_low']:.4f}, {r['ci_high']:.4f}]"
    start = lines.index("## Per-query differences")
    for m in MEASURES:
        at = lines.index(f"**{m}**", start)
        counted = {}
        for line in lines[at + 4 : at + 6]:
            system, won, tied, lost = line.strip("| ").split(" | ")
            counted[system] = (int(won), int(tied), int(lost))
        diffs = paired_differences(built, m)
        for system, (wins, ties, losses) in counted.items():
            d = diffs.filter(pl.col("system") == system)["diff"].to_list()
            assert wins == sum(x > 1e-9 for x in d)
            assert ties == sum(abs(x) <= 1e-9 for x in d)
            assert wins + ties + losses == len(d)
        assert lines[at + 7].startswith(f"*Figure (report.html): {m}: per query")
    start = lines.index("## Tests")
    for m in MEASURES:
        at = lines.index(f"**{m}**", start)
        assert lines[at + 2] == "| system | " + " | ".join(TEST_COLUMNS.values()) + " |  |"
        for line in lines[at + 4 : at + 7]:
            cells = line.strip("| ").split(" | ")
            r = rows[cells[0], m]
            assert cells[3] == f"{r['mean']:.4f}"
            assert cells[1] == str(r["n_queries"])
        assert lines[at + 7] == "" or lines[at + 7].startswith("**")
