"""The report's Markdown summary (:mod:`polars_graded.report.markdown`): the summary table
holds compare()'s means, with the same markers as the HTML page."""

from __future__ import annotations

import importlib
from pathlib import Path

import polars as pl
import pytest
from report_helpers import MEASURES, TRIALS, expected_comparison, sign_of, synthetic_table

import polars_graded as pg
from polars_graded.report.markdown import to_markdown
from polars_graded.report.text import legend

# The package, also where ``pg.report`` is its build_report function (which shadows it).
report = importlib.import_module("polars_graded.report")


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return synthetic_table()


@pytest.fixture(scope="module")
def built(table: pl.DataFrame) -> report.Report:
    """The report of the synthetic table."""
    return report.compute_report(
        table, MEASURES, trials=TRIALS, bootstrap=TRIALS, seed=3, differences="all"
    )


@pytest.fixture(scope="module")
def folder(built: report.Report, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("written")
    report.write_report(built, out)
    return out


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
