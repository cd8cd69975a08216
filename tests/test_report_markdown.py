"""The report's Markdown summary (:mod:`polars_graded.report.markdown`): the summary table
holds compare()'s means, with the same markers as the HTML page."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from report_helpers import (
    MEASURES,
    built_fixture,
    expected_comparison,
    folder_fixture,
    sign_of,
    table_fixture,
)

import polars_graded as pg
from polars_graded import report
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
