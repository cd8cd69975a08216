"""report.tex (polars_graded/report/latex.py): written with latex=True beside the other files
(atomically, as they are), its means are compare()'s, its letters the section's; ReportFiles
lists it only when written; ``polars-graded report --all-pairs --latex`` writes and prints it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from support.report import MEASURES, failing_markdown, synthetic_table

import polars_graded as pg
from polars_graded import cli, report
from polars_graded.report.latex import LATEX_FILE, to_latex_report
from polars_graded.report.pairs import letters_table

OPTIONS: dict[str, Any] = {"trials": 200, "bootstrap": 200, "seed": 3}


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return synthetic_table()


def tabulars(tex: str) -> list[list[list[str]]]:
    """The body rows of each tabular of ``tex``, cells split on unescaped ``&``."""
    out = []
    for block in re.findall(r"\\midrule\n(.*?)\n\\bottomrule", tex, flags=re.S):
        rows = [line.removesuffix(r" \\") for line in block.splitlines()]
        out.append([re.split(r"(?<!\\) & ", row) for row in rows])
    return out


def test_build_report_with_latex_writes_report_tex(table: pl.DataFrame, tmp_path: Path) -> None:
    files = report.build_report(table, tmp_path / "out", MEASURES, latex=True, **OPTIONS)
    assert files.latex == tmp_path / "out" / LATEX_FILE
    assert [p.name for p in files] == [*report.FILES, LATEX_FILE]
    html, markdown, per_query, latex = files  # unpacks as the paths written
    assert (html, markdown, per_query) == (files.html, files.markdown, files.per_query)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(p.name for p in files)
    tex = latex.read_text(encoding="utf-8")
    rep = report.compute_report(table, MEASURES, **OPTIONS)
    assert tex.split("\n", 2)[2] == to_latex_report(rep).split("\n", 2)[2]  # but the date line
    (means,) = tabulars(tex)  # no letters without all_pairs
    assert [row[0] for row in means] == list(rep.order)
    for row in means:
        for m, cell in zip(MEASURES, row[1:], strict=True):
            expected = rep.comparison.filter(pl.col("system") == row[0], pl.col("measure") == m)
            assert re.sub(r"\\textbf\{|\}|\$\^\\black\w+\$", "", cell) == (
                f"{expected['mean'].item():.4f}"
            )
            assert ("blacktriangle" in cell) == expected["significant"].item()
    assert r"\label{tab:means}" in tex


def test_without_latex_nothing_changes(table: pl.DataFrame, tmp_path: Path) -> None:
    rep = report.compute_report(table, ["ap"], **OPTIONS)
    files = report.write_report(rep, tmp_path)
    assert files.latex is None
    assert len(files) == 3
    assert [p.name for p in files] == list(report.FILES)
    assert not (tmp_path / LATEX_FILE).exists()
    again = report.write_report(rep, tmp_path, latex=True)
    assert again.latex is not None
    assert again.latex.read_text(encoding="utf-8") == to_latex_report(rep)
    assert repr(again).startswith("ReportFiles(html=")


def test_a_failed_report_writes_no_tex(
    table: pl.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(report, "to_markdown", failing_markdown)
    with pytest.raises(pg.InvalidValueError, match="rendering failed"):
        report.build_report(table, tmp_path / "out", ["ap"], latex=True, **OPTIONS)
    assert list(tmp_path.iterdir()) == []


def test_cli_all_pairs_and_latex(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "runs.parquet"
    table.write_parquet(source)
    out = tmp_path / "out"
    argv = ["report", str(source), "--out", str(out), "-m", ",".join(MEASURES)]
    argv += ["--all-pairs", "--latex", "--trials", "200", "--bootstrap", "200", "--seed", "3"]
    assert cli.main(argv) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.split() == [str(out / n) for n in (*report.FILES, LATEX_FILE)]
    tex = (out / LATEX_FILE).read_text(encoding="utf-8")
    rep = report.compute_report(table, MEASURES, all_pairs=True, **OPTIONS)
    assert rep.pairs is not None
    means, letters = tabulars(tex)
    assert len(means) == len(rep.order)
    expected = letters_table(rep, rep.pairs)
    assert letters == [list(row) for row in expected.rows()]
    assert r"\label{tab:letters}" in tex
    assert "## All pairs" in (out / "report.md").read_text(encoding="utf-8")
    assert '<section id="pairs">' in (out / "report.html").read_text(encoding="utf-8")
