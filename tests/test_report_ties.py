"""Tied scores in a report (:mod:`polars_graded.report.ties`): the tied share is a direct
count, the means under both policies are evaluate()'s, and the section says so."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from support.report import (
    MEASURES,
    TRIALS,
    Page,
    body_rows,
    direct_means,
    page_of,
    synthetic_table,
    tied_synthetic_table,
)

import polars_graded as pg
from polars_graded import cli, report
from polars_graded.api import per_threshold
from polars_graded.options import Compat, TiePolicy, Ties
from polars_graded.report.html import to_html
from polars_graded.report.markdown import to_markdown
from polars_graded.report.text import conventions, fmt_diff
from polars_graded.report.ties import order_changes, tie_lines


@pytest.fixture(scope="module")
def tied() -> pl.DataFrame:
    return tied_synthetic_table()


@pytest.fixture(scope="module")
def tied_report(tied: pl.DataFrame) -> report.Report:
    return report.compute_report(tied, MEASURES, trials=TRIALS, bootstrap=TRIALS, seed=3)


@pytest.fixture(scope="module")
def tied_folder(tied_report: report.Report, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tied")
    report.write_report(tied_report, out)
    return out


@pytest.fixture(scope="module")
def built() -> report.Report:
    """The report of the synthetic table, which has no ties."""
    return report.compute_report(synthetic_table(), MEASURES, trials=50, bootstrap=50, seed=3)


@pytest.fixture(scope="module")
def folder(built: report.Report, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("untied")
    report.write_report(built, out)
    return out


def direct_tied_share(table: pl.DataFrame, *, float32: bool = False) -> dict[str, float]:
    """Per system: retrieved rows whose score (a double, or with ``float32`` a 32-bit float)
    another retrieved row of the query has."""
    groups: dict[tuple[str, int], list[float]] = {}
    for system, query, score in table.select("system", "query", "score").iter_rows():
        if score is not None:
            groups.setdefault((system, query), []).append(
                float(np.float32(score)) if float32 else score
            )
    tied: dict[str, int] = {}
    retrieved: dict[str, int] = {}
    for (system, _), scores in groups.items():
        retrieved[system] = retrieved.get(system, 0) + len(scores)
        tied[system] = tied.get(system, 0) + sum(scores.count(v) > 1 for v in scores)
    return {system: tied[system] / retrieved[system] for system in retrieved}


@pytest.mark.parametrize(
    ("compat", "a_share"),
    # a's 2 + 1e-9 ties its row scored 2 only as 32-bit floats: 2 rows in each of 13 queries
    [("trec_eval_10", 0.0), ("trec_eval_9", 26 / 95)],
)
def test_tied_share_equals_a_direct_count(
    tied: pl.DataFrame, compat: Compat, a_share: float
) -> None:
    share = direct_tied_share(tied, float32=compat == "trec_eval_9")
    assert share["b"] == 0.0
    assert share["a"] == pytest.approx(a_share)
    assert share["c"] > share["a"]
    counted = report.count_ties(tied, compat=compat)
    assert dict(counted.select("system", "tied_share").iter_rows()) == share
    assert dict(counted.select("system", "retrieved").iter_rows()) == {"a": 95, "b": 95, "c": 95}


def test_ties_frame_holds_both_policies_means(
    tied_report: report.Report, tied: pl.DataFrame
) -> None:
    t = tied_report.ties
    assert t.columns == ["system", "retrieved", "tied", "tied_share", "measure", "trec_eval",
                         "average", "diff"]  # fmt: skip
    assert t["system"].to_list() == [s for s in tied_report.order for _ in MEASURES]
    assert t["measure"].to_list() == MEASURES * 3
    trec, average = direct_means(tied, "trec_eval"), direct_means(tied, "average")
    for row in t.iter_rows(named=True):
        key = (row["system"], row["measure"])
        assert row["trec_eval"] == pytest.approx(trec[key], abs=1e-12)
        assert row["average"] == pytest.approx(average[key], abs=1e-12)
        assert row["diff"] == row["trec_eval"] - row["average"]
    untied = t.filter(pl.col("system") == "b")
    assert (untied["diff"] == 0).all()  # the same bits under every policy
    assert (t.filter(pl.col("system") == "c")["diff"].abs() > 1e-6).any()
    summary = {(r["system"], r["measure"]): r["mean"] for r in tied_report.comparison.to_dicts()}
    for row in t.iter_rows(named=True):
        assert row["trec_eval"] == pytest.approx(summary[row["system"], row["measure"]], abs=1e-12)


def test_a_measure_without_an_average_is_shown_under_the_rule_only(tied: pl.DataFrame) -> None:
    # g refuses ties="average"; the report under trec_eval must still be made, with g's
    # expected value left empty instead of the whole report refused.
    built = report.compute_report(tied, ["g", "ap"], trials=50, bootstrap=50)
    g = built.ties.filter(pl.col("measure") == "g")
    assert g["average"].is_null().all() and g["diff"].is_null().all()
    trec = direct_means(tied, "trec_eval", ["g"])
    assert g["trec_eval"].to_list() == pytest.approx([trec[s, "g"] for s in g["system"]])
    ap = built.ties.filter(pl.col("measure") == "ap")
    assert ap["average"].to_list() == pytest.approx(
        [direct_means(tied, "average", ["ap"])[s, "ap"] for s in ap["system"]]
    )
    assert "g: no expected value over the orders of tied rows" in to_markdown(built)
    assert "g: no expected value over the orders of tied rows" in to_html(built)


def test_ties_section_in_html_equals_evaluate_under_both_policies(
    tied_folder: Path, tied: pl.DataFrame
) -> None:
    page = page_of(tied_folder)
    assert "#ties" in page.urls  # the section navigation links to it
    text = (tied_folder / "report.html").read_text(encoding="utf-8")
    assert '<section id="ties"><h2>Tied scores</h2>' in text
    trec, average = direct_means(tied, "trec_eval"), direct_means(tied, "average")
    share = direct_tied_share(tied)
    rows = body_rows(page, "ties-table")
    assert [a["data-system"] for a, _ in rows] == ["a", "b", "c"]
    for attrs, cells in rows:
        system = attrs["data-system"]
        values = {c["data-col"]: (float(c["data-value"]), shown) for c, shown in cells[1:]}
        assert values["tied_share"] == (share[system], f"{share[system]:.1%}")
        for m in MEASURES:
            mine, expected = values[f"{m} trec_eval"], trec[system, m]
            assert mine[0] == pytest.approx(expected, abs=1e-12)
            assert mine[1] == f"{expected:.4f}"
            mine, expected = values[f"{m} average"], average[system, m]
            assert mine[0] == pytest.approx(expected, abs=1e-12)
            assert mine[1] == f"{expected:.4f}"
            diff = values[f"{m} Δ"][0]
            assert diff == pytest.approx(trec[system, m] - average[system, m], abs=1e-12)
            assert values[f"{m} Δ"][1] == fmt_diff(diff)
    head = [text for _, text in page.tables["ties-table"][1][1]]
    assert head[:5] == ["system", "tied share", "trec_eval", "average", "Δ"]
    assert "Δ = trec_eval − average: how much the tie-breaking rule alone moves the mean" in text
    assert "Most ties: c (" in text


def test_ties_section_in_markdown(tied_folder: Path, tied_report: report.Report) -> None:
    lines = (tied_folder / "report.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("## Tied scores")
    assert lines.index("## Data") > start > lines.index("## MAP per relevance threshold")
    head = lines.index("| system | tied share | mu_ap trec_eval | mu_ap average | mu_ap Δ "
                       "| ndcg@3 trec_eval | ndcg@3 average | ndcg@3 Δ | p@2 trec_eval "
                       "| p@2 average | p@2 Δ |")  # fmt: skip
    rows = [line.strip("| ").split(" | ") for line in lines[head + 2 : head + 5]]
    assert [r[0] for r in rows] == ["a", "b", "c"]
    t = tied_report.ties
    for cells in rows:
        mine = t.filter(pl.col("system") == cells[0])
        assert cells[1] == f"{mine['tied_share'][0]:.1%}"
        expected = [
            text
            for row in mine.iter_rows(named=True)
            for text in (f"{row['trec_eval']:.4f}", f"{row['average']:.4f}",
                         fmt_diff(row["diff"]))
        ]  # fmt: skip
        assert cells[2:] == expected
    assert tie_lines(tied_report)[0] in lines
    assert tie_lines(tied_report)[1] in lines


def test_a_table_without_ties_says_so_in_one_line(folder: Path, built: report.Report) -> None:
    assert (built.ties["tied"] == 0).all()
    assert (built.ties["diff"] == 0).all()
    message = tie_lines(built)
    assert len(message) == 1
    assert message[0].startswith("No ties:")
    page = page_of(folder)
    assert "ties-table" not in page.tables
    assert "#ties" in page.urls
    html = (folder / "report.html").read_text(encoding="utf-8")
    assert f'<section id="ties"><h2>Tied scores</h2>\n<p>{message[0]}</p>\n</section>' in html
    lines = (folder / "report.md").read_text(encoding="utf-8").splitlines()
    start = lines.index("## Tied scores")
    assert lines[start + 1 : start + 4] == ["", message[0], ""]
    assert lines[start + 4] == "## Data"


def test_order_changes_name_the_swapped_pairs() -> None:
    ties = pl.DataFrame({
        "system": ["a", "b", "c"] * 2,
        "measure": ["ap"] * 3 + ["rr"] * 3,
        "trec_eval": [0.5, 0.4, 0.3, 0.5, 0.4, 0.3],
        "average": [0.5, 0.45, 0.46, 0.5, 0.4 + 1e-15, 0.4],  # b = c on rr: no swap
    })  # fmt: skip
    assert order_changes(ties, ["ap", "rr"], "trec_eval") == (
        "Ranked by mean, systems swap places between trec_eval and average on ap (b and c)."
    )
    same = ties.with_columns(average=pl.col("trec_eval"))
    assert order_changes(same, ["ap", "rr"], "trec_eval") == (
        "Ranked by mean, the systems keep their order under trec_eval and average."
    )


@pytest.mark.parametrize("ties", ["average", "optimistic"])
def test_compute_report_evaluates_under_the_tie_policy(tied: pl.DataFrame, ties: TiePolicy) -> None:
    measures = [*MEASURES, "rr"]
    rep = report.compute_report(tied, measures, ties=ties, trials=50, bootstrap=50)
    assert rep.settings.ties == Ties(ties)
    expected = tied.lazy().graded.evaluate(measures, by="system", ties=ties)
    assert_frame_equal(rep.per_query, expected.collect(engine="in-memory"), check_exact=True)
    assert_frame_equal(rep.thresholds, per_threshold(tied, by="system", ties=ties))
    rule = "trec_eval" if ties == "average" else ties
    assert rep.ties.columns[5:] == [rule, "average", "diff"]
    means = {
        policy: tied.graded.evaluate(measures, by="system", ties=policy)
        .group_by("system")
        .agg(pl.col(measures).mean())
        for policy in (rule, "average")
    }
    for row in rep.ties.iter_rows(named=True):
        for policy, frame in means.items():
            value = frame.filter(pl.col("system") == row["system"])[row["measure"]].item()
            assert row[policy] == pytest.approx(value, abs=1e-12)
    ranking = dict(conventions(rep))["Ranking"]
    assert f"ties={ties}" in ranking
    assert "ties by item id descending" not in ranking
    # Four measures: two blocks of two in the HTML table, two Markdown tables.
    rows = body_rows(Page(to_html(rep)), "ties-table")
    assert [a["data-system"] for a, _ in rows] == list(rep.order) * 2
    columns = {(a["data-system"], c["data-col"]) for a, cells in rows for c, _ in cells[1:]}
    assert columns == {(system, f"{m} {p}") for system in rep.order for m in measures
                       for p in (rule, "average", "Δ")} | {(system, "tied_share")
                                                          for system in rep.order}  # fmt: skip
    markdown = to_markdown(rep)
    assert (
        f"| system | tied share | mu_ap {rule} | mu_ap average | mu_ap Δ | ndcg@3 {rule} |"
        in markdown
    )
    assert f"| system | tied share | p@2 {rule} | p@2 average | p@2 Δ | rr {rule} |" in markdown
    with pytest.raises(pg.InvalidValueError, match="ties= must be one of"):
        report.compute_report(tied, ["ap"], ties="random", trials=10, bootstrap=10)  # type: ignore[arg-type]


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_report_ties_average_flows_through(
    tied: pl.DataFrame,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = tmp_path / "runs.parquet"
    tied.write_parquet(source)
    written: list[report.Report] = []
    write = report.write_report

    def recording(rep: report.Report, out: Path) -> report.ReportFiles:
        written.append(rep)
        return write(rep, out)

    monkeypatch.setattr(report, "write_report", recording)
    out = tmp_path / "out"
    argv = ["report", str(source), "--out", str(out), "-m", "mu_ap,ndcg@3,p@2", "--ties", "average"]
    code, _, err = run_cli([*argv, "--trials", "50", "--bootstrap", "50"], capsys)
    assert (code, err) == (0, "")
    assert written[0].settings.ties.averaged
    expected = tied.lazy().graded.evaluate(MEASURES, by="system", ties="average")
    per_query = pl.read_parquet(out / "per_query.parquet")
    assert_frame_equal(per_query, expected.collect(engine="in-memory"), check_exact=True)
    text = (out / "report.md").read_text(encoding="utf-8")
    assert (
        "compared as doubles, as trec_eval 10.0 does; tied rows are not put in an order: each "
        "measure is its exact expected value over every order of each group of tied rows "
        "(ties=average, McSherry & Najork 2008)." in text
    )
    assert "| system | tied share | mu_ap trec_eval | mu_ap average | mu_ap Δ |" in text
    assert "McSherry & Najork 2008; this report's policy) and Δ = trec_eval − average" in text
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "(ties=average, McSherry &amp; Najork 2008)." in html
    code, _, err = run_cli([*argv[:-1], "random"], capsys)
    assert code == 2
    assert "invalid choice: 'random'" in err
    assert "'trec_eval', 'input', 'optimistic', 'pessimistic', 'average'" in err
