"""The report package's public API (polars_graded/report/__init__.py): its names and the
``report`` alias, :func:`build_report` and :func:`write_report` (a folder appears whole or
not at all), and whole reports on the real data of ``../shared/data``.

Each module has its own file: test_report_compute, test_report_inputs, test_report_ties,
test_report_text, test_report_markdown, test_report_html, test_report_charts; the command
``polars-graded report`` is test_cli_report's.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from support.report import body_rows, failing_markdown, page_of, sign_of, synthetic_table

import polars_graded as pg
from polars_graded import cli, report

SharedData = Callable[[str], Path]


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return synthetic_table()


def test_public_names_and_the_report_alias() -> None:
    from polars_graded.report import (  # docs/guide/reports.md's import
        build_report,
        compute_report,
        trec_table,
    )

    assert report.report is build_report
    assert callable(compute_report)
    assert callable(trec_table)
    for name in ("require_extras", "run_names", "write_report", "ReportFiles", "Report",
                 "NotebookReport", "describe", "count_ties", "to_html", "to_markdown"):  # fmt: skip
        assert callable(getattr(report, name)), name
    files = report.ReportFiles(*(Path("out") / name for name in report.FILES))
    assert (files.html.name, files.markdown.name, files.per_query.name, files.latex) == (
        *report.FILES,
        None,
    )  # report.tex only with latex=True (test_report_latex)


# --------------------------------------------------------------------------- writing


def test_a_failed_report_leaves_no_folder(
    table: pl.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 14, item 9: nothing is written until every file is rendered; a new folder
    appears whole or not at all, with its missing parents."""
    monkeypatch.setattr(report, "to_markdown", failing_markdown)
    out = tmp_path / "new" / "report"
    with pytest.raises(pg.InvalidValueError, match="rendering failed"):
        report.build_report(table, out, ["ap"], trials=10, bootstrap=10)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_report_keeps_an_existing_folder_as_it_was(
    table: pl.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    (out / "report.md").write_text("last week's")
    monkeypatch.setattr(report, "to_markdown", failing_markdown)
    with pytest.raises(pg.InvalidValueError):
        report.build_report(table, out, ["ap"], trials=10, bootstrap=10)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "report.md"]
    assert (out / "report.md").read_text() == "last week's"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging folder left
    monkeypatch.undo()
    files = report.build_report(table, out, ["ap"], trials=10, bootstrap=10)
    assert sorted(p.name for p in out.iterdir()) == sorted([*report.FILES, "notes.txt"])
    assert files.markdown.read_text(encoding="utf-8").startswith("# Evaluation report")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_report_output_that_is_a_file_is_refused(table: pl.DataFrame, tmp_path: Path) -> None:
    out = tmp_path / "taken"
    out.write_text("not a folder")
    with pytest.raises(pg.InvalidValueError, match="is a file"):
        report.build_report(table, out, ["ap"], trials=10, bootstrap=10)
    assert out.read_text() == "not a folder"


# --------------------------------------------------------------------------- real data


def test_robust_2003_report(tmp_path: Path, shared_data: SharedData) -> None:
    """Four of the 17 runs (a deep, a short, an almost all-tied, and a 10-per-topic one)."""
    robust = shared_data("trec2003-robust")
    tags = ["InexpC2", "NLPR03vb10", "rutcor03100", "humR03dc"]
    runs = [robust / "runs" / f"input.{tag}.gz" for tag in tags]
    long = report.trec_table(runs, robust / "robust03_qrels.txt.gz")
    rep = report.compute_report(long, ["mu_ap", "ap"], trials=200, bootstrap=200)
    files = report.write_report(rep, tmp_path)
    d = rep.description
    assert sorted(rep.order) == sorted(tags)
    assert rep.settings.baseline == "InexpC2"  # the first in sorted order
    assert d.queries == 100
    assert dict(d.levels.iter_rows()) == {0: 122_722, 1: 5_667, 2: 407}  # SOURCE.md's counts
    assert d.no_relevant == ()
    retrieved = dict(d.per_system.select("system", "retrieved").iter_rows())
    assert retrieved == {"InexpC2": 100_000, "NLPR03vb10": 1_004, "rutcor03100": 100_000,
                         "humR03dc": 10_000}  # fmt: skip
    page = page_of(tmp_path)
    rows = body_rows(page, "summary-table")
    assert len(rows) == 4
    expected = {(r["system"], r["measure"]): r for r in rep.comparison.to_dicts()}
    for attrs, cells in rows:
        for cell, text in cells[1:]:
            if cell.get("data-col") in ("mu_ap", "ap"):
                row = expected[attrs["data-system"], cell["data-col"]]
                assert text == f"{row['mean']:.4f}{sign_of(row)}"
    ap = rep.comparison.filter(pl.col("measure") == "ap", pl.col("system") == "rutcor03100")
    assert ap["significant"].item()  # MAP 0.07 against 0.22: worse on almost every topic
    assert files.per_query.stat().st_size > 0


def test_dl_2019_report_equals_trec_eval(tmp_path: Path, shared_data: SharedData) -> None:
    """The six DL 2019 runs all carry the tag "rank", so they are named by their folders;
    the report's per-query values are trec_eval's (``-l 2`` for AP, TREC DL's custom)."""
    import pytrec_eval

    dl = shared_data("trec-dl-2019-2020-passage")
    paths = sorted(dl.glob("runs/*/trec_results_dl19.txt.gz"))
    qrels_path = dl / "qrels.dl19-passage.txt"
    measures = ["ndcg(gain=linear)@10", "ap(rel=2)", "mu_ap"]
    argv = ["report", "--run", *map(str, paths), "--qrels", str(qrels_path),
            "--out", str(tmp_path), "--baseline", "BM25", "--trials", "200",
            "--bootstrap", "200", *(a for m in measures for a in ("-m", m))]  # fmt: skip
    assert cli.main(argv) == 0
    per_query = pl.read_parquet(tmp_path / "per_query.parquet")
    assert sorted(per_query["system"].unique()) == sorted(p.parent.name for p in paths)
    qrels = pg.read_trec_qrels(qrels_path)
    judged: dict[str, dict[str, int]] = {}
    for q, item, rel in qrels.select("query", "item", "relevance").iter_rows():
        judged.setdefault(str(q), {})[str(item)] = int(rel)
    for path in paths:
        run: dict[str, dict[str, float]] = {}
        for q, item, score in pg.read_trec_run(path).select("query", "item", "score").iter_rows():
            run.setdefault(str(q), {})[str(item)] = float(score)
        ndcg = pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut_10"}).evaluate(run)
        ap2 = pytrec_eval.RelevanceEvaluator(judged, {"map"}, relevance_level=2).evaluate(run)
        ours = per_query.filter(pl.col("system") == path.parent.name)
        assert ours.height == len(judged) == 43
        for q, ndcg10, ap in ours.select("query", measures[0], measures[1]).iter_rows():
            assert ndcg10 == pytest.approx(ndcg[str(q)]["ndcg_cut_10"], abs=1e-12)
            assert ap == pytest.approx(ap2[str(q)]["map"], abs=1e-12)
    summary = body_rows(page_of(tmp_path), "summary-table")
    assert next(attrs["data-system"] for attrs, _ in summary) == "BM25"
