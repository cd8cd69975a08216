"""Evaluation reports: HTML, Markdown and Parquet agree with compare() and evaluate()."""

from __future__ import annotations

import base64
import html
import importlib.util
import os
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_graded as pg
from polars_graded import cli, report
from polars_graded.breakdown import per_threshold
from polars_graded.compare import compare
from polars_graded.measures.base import format_number

MEASURES = ["mu_ap", "ndcg@3", "p@2"]
TRIALS = 400
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ROBUST = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec2003-robust"
DL = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-dl-2019-2020-passage"

pytest.importorskip("matplotlib")
pytest.importorskip("scipy")


# --------------------------------------------------------------------------- data


def synthetic_table(queries: int = 14) -> pl.DataFrame:
    """Systems a, b, c over the same judgments: b ranks by relevance (better than a on
    every query with a relevant item), c is a copy of a. Query 0 has no relevant item;
    every query has an unjudged retrieved row and a judged row nobody retrieved."""
    rng = np.random.default_rng(7)
    rows = []
    for q in range(queries):
        labels = [0, 0, 0] if q == 0 else [int(v) for v in rng.integers(0, 3, 5)] + [2]
        noise = rng.permutation(len(labels)).tolist()
        for system in ("a", "b", "c"):
            for i, label in enumerate(labels):
                score = label + i / 10 if system == "b" else float(noise[i])
                rows.append((system, q, f"d{i}", score, label))
            rows.append((system, q, "unjudged", -1.0, None))
            rows.append((system, q, "missed", None, 1 if q else 0))
    schema = ["system", "query", "item", "score", "relevance"]
    return pl.DataFrame(rows, schema=schema, orient="row")


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


# --------------------------------------------------------------------------- HTML parsing


class Page(HTMLParser):
    """Tables by id (rows of (tr attributes, [(cell attributes, text)])), images, links."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tables: dict[str, list[tuple[dict[str, str], list[tuple[dict[str, str], str]]]]] = {}
        self.images: list[dict[str, str]] = []
        self.urls: list[str] = []
        self.tags: set[str] = set()
        self._table: str | None = None
        self._cell: tuple[dict[str, str], list[str]] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.tags.add(tag)
        self.urls += [a[k] for k in ("src", "href") if k in a]
        if tag == "img":
            self.images.append(a)
        elif tag == "table":
            self._table = a.get("id", "")
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self.tables[self._table].append((a, []))
        elif tag in ("td", "th") and self._table is not None:
            self._cell = (a, [])

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._table is not None:
            attrs, text = self._cell
            self.tables[self._table][-1][1].append((attrs, "".join(text).strip()))
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell[1].append(data)


def page_of(folder: Path) -> Page:
    return Page((folder / "report.html").read_text(encoding="utf-8"))


def body_rows(page: Page, table_id: str) -> list[tuple[dict[str, str], list]]:
    """The rows of a table that belong to a system (header and group rows dropped)."""
    return [(a, cells) for a, cells in page.tables[table_id] if "data-system" in a]


def expected_comparison(table: pl.DataFrame, baseline: str | None = None) -> pl.DataFrame:
    """compare() called directly with the report's parameters."""
    per_query = table.lazy().graded.evaluate(MEASURES, by="system").collect(engine="in-memory")
    return compare(per_query, MEASURES, baseline=baseline, trials=TRIALS, bootstrap=TRIALS, seed=3)


def sign_of(row: dict) -> str:
    if not row["significant"]:
        return ""
    return "▲" if row["diff"] > 0 else "▼"


# --------------------------------------------------------------------------- HTML


def test_summary_table_has_compares_means_and_marks_exactly_the_significant(
    folder: Path, table: pl.DataFrame
) -> None:
    expected = {(r["system"], r["measure"]): r for r in expected_comparison(table).to_dicts()}
    rows = body_rows(page_of(folder), "summary-table")
    assert [a["data-system"] for a, _ in rows] == ["a", "b", "c"]  # baseline a first, then b
    marks = []
    for attrs, cells in rows:
        values = [(c, text) for c, text in cells if c.get("data-col") in MEASURES]
        assert [c["data-col"] for c, _ in values] == MEASURES
        for cell, text in values:
            row = expected[attrs["data-system"], cell["data-col"]]
            assert float(cell["data-value"]) == row["mean"]
            assert text == f"{row['mean']:.4f}{sign_of(row)}"
            marks.append(sign_of(row))
    assert "▲" in marks  # b beats a on every measure here
    assert marks.count("") >= len(MEASURES) * 2  # a (baseline) and c (a copy) are unmarked


def test_tests_table_has_every_column_of_compare(folder: Path, table: pl.DataFrame) -> None:
    expected = expected_comparison(table)
    rows = body_rows(page_of(folder), "tests-table")
    assert len(rows) == expected.height
    for (attrs, cells), row in zip(rows, expected.iter_rows(named=True), strict=True):
        assert (attrs["data-system"], attrs["data-measure"]) == (row["system"], row["measure"])
        numbers = {c["data-col"]: c.get("data-value") for c, _ in cells if "data-col" in c}
        assert set(numbers) == set(report._TEST_COLUMNS)
        for column, text in numbers.items():
            value = row[column]
            assert (None if text is None else float(text)) == value, column
        shown = {c["data-col"]: text for c, text in cells if "data-col" in c}
        assert shown["mean"] == f"{row['mean']:.4f}"
        assert shown["diff"] == f"{row['diff']:.4f}"
        assert shown["n_queries"] == "14"
        assert cells[-1][1] == sign_of(row)


def test_threshold_table_equals_per_threshold(
    folder: Path, table: pl.DataFrame, built: report.Report
) -> None:
    expected = per_threshold(table, by="system")
    page = page_of(folder)
    rows = body_rows(page, "threshold-table")
    means = {r["system"]: r["mean"] for r in expected_comparison(table).to_dicts()
             if r["measure"] == "mu_ap"}  # fmt: skip
    for attrs, cells in rows:
        mine = expected.filter(pl.col("system") == attrs["data-system"]).sort("threshold")
        values = [float(c["data-value"]) for c, _ in cells if "data-value" in c]
        assert values[:-2] == mine["map"].to_list()  # MAP at thresholds 1 and 2
        # the summary's µMAP (each query's own levels), then the table-levels one
        assert values[-2] == mine["mu_map"][0] == pytest.approx(means[attrs["data-system"]])
        assert values[-1] == mine["mu_map_table_levels"][0]
    assert len(rows) == 3
    head = [text for _, text in page.tables["threshold-table"][0][1]]
    assert head[-2:] == ["µMAP, query levels", "µMAP, table levels"]
    # one sentence names both where they appear, in HTML and Markdown
    notes = report.threshold_notes(built)
    assert "summary's µMAP" in notes[0] and "mu_ap(levels=table)" in notes[0]
    text = (folder / "report.html").read_text(encoding="utf-8")
    assert html.escape(notes[0], quote=True) in text
    assert notes[0] in (folder / "report.md").read_text(encoding="utf-8")


def test_figures_are_embedded_pngs_and_nothing_links_out(
    folder: Path, built: report.Report
) -> None:
    page = page_of(folder)
    text = (folder / "report.html").read_text(encoding="utf-8")
    assert len(page.images) == 2 * len(MEASURES) + 1  # bars, thresholds, differences
    for image in page.images:
        prefix, _, payload = image["src"].partition(",")
        assert prefix == "data:image/png;base64"
        png = base64.b64decode(payload, validate=True)
        assert png[:8] == PNG_SIGNATURE
        width, height = struct.unpack(">II", png[16:24])  # the IHDR chunk
        assert width > 300
        assert height > 100
        assert image["alt"]
    assert all(url.startswith(("data:image/png;base64,", "#")) for url in page.urls)
    assert "http://" not in text
    assert "https://" not in text
    assert not page.tags & {"script", "link", "iframe", "object"}


def test_html_states_data_conventions_and_version(folder: Path, built: report.Report) -> None:
    text = (folder / "report.html").read_text(encoding="utf-8")
    assert f"polars_graded {pg.__version__}" in text
    assert "Queries: 14; rows: 327, of which 285 retrieved" in text
    assert "Queries without a relevant item: 1 (0)" in text
    assert "Unjudged share of the retrieved rows: 14.7% (42 rows)" in text
    assert "ties by item id descending (trec_eval&#x27;s order; ties=trec_eval)" in text
    assert f"randomization test ({TRIALS:,} trials, seed 3)" in text
    assert "Holm" in text
    assert "α = 0.05" in text
    assert "missing = zero" in text
    labels = dict(built.description.levels.iter_rows())
    judged = synthetic_table().filter(pl.col("system") == "a", pl.col("relevance").is_not_null())
    assert labels == dict(judged.group_by("relevance").len().iter_rows())


def test_description_counts_per_system(built: report.Report, table: pl.DataFrame) -> None:
    per_system = built.description.per_system.sort("system")
    assert per_system["rows"].to_list() == [109, 109, 109]
    assert per_system["retrieved"].to_list() == [95, 95, 95]
    assert per_system["unjudged"].to_list() == [14, 14, 14]
    assert built.description.no_relevant == ("0",)


# --------------------------------------------------------------------------- Markdown, Parquet


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
    assert report.legend(built) in lines
    assert f"- **Version**: polars_graded {pg.__version__}" in "\n".join(lines)


def test_per_query_parquet_equals_evaluate(folder: Path, table: pl.DataFrame) -> None:
    written = pl.read_parquet(folder / "per_query.parquet")
    expected = table.lazy().graded.evaluate(MEASURES, by="system").collect(engine="in-memory")
    assert_frame_equal(written, expected, check_exact=True)
    assert_frame_equal(written, table.graded.evaluate(MEASURES, by="system"), rel_tol=1e-12)


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
    paired = report.paired_differences(rep, "ap")
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
        report.compute_report(table, ["ap"], system="run", trials=10, bootstrap=10)
    one = report.compute_report(table, "AP", differences="ap", trials=10, bootstrap=10)
    assert (one.settings.measures, one.settings.differences) == (("ap",), ("ap",))


# --------------------------------------------------------------------------- tied scores


def tied_synthetic_table() -> pl.DataFrame:
    """The synthetic table with ties: a's unjudged row scores 2 + 1e-9 (equal to its row
    scored 2 as float32, not as float64) in every query with relevant items, c's scores
    are halved and floored (pairs tie), b keeps distinct scores."""
    table = synthetic_table()
    a_unjudged = (pl.col("system") == "a") & (pl.col("item") == "unjudged") & (pl.col("query") > 0)
    score = (
        pl.when(a_unjudged)
        .then(2.0 + 1e-9)
        .when(pl.col("system") == "c")
        .then((pl.col("score") / 2).floor())
        .otherwise(pl.col("score"))
    )
    return table.with_columns(score=score)


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


def direct_means(table: pl.DataFrame, ties: str) -> dict[tuple[str, str], float]:
    """``evaluate(..., by="system", ties=ties)``'s mean per (system, measure)."""
    per_query = table.graded.evaluate(MEASURES, by="system", ties=ties)
    means = per_query.group_by("system").agg(pl.col(MEASURES).mean())
    return {(r["system"], m): r[m] for r in means.to_dicts() for m in MEASURES}


def direct_tied_share(table: pl.DataFrame) -> dict[str, float]:
    """Per system: retrieved rows whose float32 score another retrieved row of the query has."""
    groups: dict[tuple[str, int], list[np.float32]] = {}
    for system, query, score in table.select("system", "query", "score").iter_rows():
        if score is not None:
            groups.setdefault((system, query), []).append(np.float32(score))
    tied: dict[str, int] = {}
    retrieved: dict[str, int] = {}
    for (system, _), scores in groups.items():
        retrieved[system] = retrieved.get(system, 0) + len(scores)
        tied[system] = tied.get(system, 0) + sum(scores.count(v) > 1 for v in scores)
    return {system: tied[system] / retrieved[system] for system in retrieved}


def test_tied_share_equals_a_direct_count(tied: pl.DataFrame) -> None:
    share = direct_tied_share(tied)
    assert share["b"] == 0.0
    assert share["a"] == pytest.approx(26 / 95)  # 2 rows in each of the 13 queries
    assert share["c"] > share["a"]
    counted = report.count_ties(tied)
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
            assert values[f"{m} Δ"][1] == report.fmt_diff(diff)
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
                         report.fmt_diff(row["diff"]))
        ]  # fmt: skip
        assert cells[2:] == expected
    assert report.tie_lines(tied_report)[0] in lines
    assert report.tie_lines(tied_report)[1] in lines


def test_a_table_without_ties_says_so_in_one_line(folder: Path, built: report.Report) -> None:
    assert (built.ties["tied"] == 0).all()
    assert (built.ties["diff"] == 0).all()
    message = report.tie_lines(built)
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
    assert report._order_changes(ties, ["ap", "rr"], "trec_eval") == (
        "Ranked by mean, systems swap places between trec_eval and average on ap (b and c)."
    )
    same = ties.with_columns(average=pl.col("trec_eval"))
    assert report._order_changes(same, ["ap", "rr"], "trec_eval") == (
        "Ranked by mean, the systems keep their order under trec_eval and average."
    )


@pytest.mark.parametrize("ties", ["average", "optimistic"])
def test_compute_report_evaluates_under_the_tie_policy(tied: pl.DataFrame, ties: str) -> None:
    measures = [*MEASURES, "rr"]
    rep = report.compute_report(tied, measures, ties=ties, trials=50, bootstrap=50)
    assert rep.settings.ties == ties
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
    ranking = dict(report.conventions(rep))["Ranking"]
    assert f"ties={ties}" in ranking
    assert "ties by item id descending" not in ranking
    # Four measures: two blocks of two in the HTML table, two Markdown tables.
    rows = body_rows(Page(report.to_html(rep)), "ties-table")
    assert [a["data-system"] for a, _ in rows] == list(rep.order) * 2
    columns = {(a["data-system"], c["data-col"]) for a, cells in rows for c, _ in cells[1:]}
    assert columns == {(system, f"{m} {p}") for system in rep.order for m in measures
                       for p in (rule, "average", "Δ")} | {(system, "tied_share")
                                                          for system in rep.order}  # fmt: skip
    markdown = report.to_markdown(rep)
    assert (
        f"| system | tied share | mu_ap {rule} | mu_ap average | mu_ap Δ | ndcg@3 {rule} |"
        in markdown
    )
    assert f"| system | tied share | p@2 {rule} | p@2 average | p@2 Δ | rr {rule} |" in markdown
    with pytest.raises(pg.InvalidValueError, match="ties= must be one of"):
        report.compute_report(tied, ["ap"], ties="random", trials=10, bootstrap=10)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- TREC names


def test_run_names_take_tags_then_file_names_then_folders() -> None:
    assert report.run_names(["x/input.a.gz", "x/input.b.gz"], ["A", "B"]) == ["A", "B"]
    assert report.run_names(["x/bm25.txt.gz", "x/splade.run"], ["r", "r"]) == ["bm25", "splade"]
    same = ["BM25/dl19.txt.gz", "TASB/dl19.txt.gz"]
    assert report.run_names(same, ["rank", "rank"]) == ["BM25", "TASB"]
    assert report.run_names(same, [None, "rank"]) == ["BM25", "TASB"]
    twins = ["x/run/a.txt", "y/run/a.txt"]
    assert report.run_names(twins, ["t", "t"]) == twins


# --------------------------------------------------------------------------- command line


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_report_on_a_long_table(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "runs.parquet"
    table.rename({"system": "run"}).write_parquet(source)
    out = tmp_path / "out"
    argv = ["report", str(source), "--system", "run", "--out", str(out), "-m", "mu_ap,ndcg@3"]
    argv += ["-m", "p@2", "--trials", "300", "--bootstrap", "300", "--seed", "3"]
    argv += ["--baseline", "b", "--title", "Synthetic <runs>", "--differences", "all"]
    code, printed, err = run_cli(argv, capsys)
    assert (code, err) == (0, "")
    assert printed.split() == [str(out / name) for name in report.FILES]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<h1>Synthetic &lt;runs&gt;</h1>" in html
    page = Page(html)
    assert [a["data-system"] for a, _ in body_rows(page, "summary-table")] == ["b", "a", "c"]
    assert len(page.images) == 2 * len(MEASURES) + 1
    per_query = table.rename({"system": "run"}).lazy().graded.evaluate(MEASURES, by="run")
    expected = per_query.collect(engine="in-memory")
    assert_frame_equal(pl.read_parquet(out / "per_query.parquet"), expected, check_exact=True)
    means = compare(expected, system="run", baseline="b", trials=300, bootstrap=300, seed=3)
    cells = {
        (a["data-system"], c["data-col"]): float(c["data-value"])
        for a, row in body_rows(page, "summary-table")
        for c, _ in row
        if c.get("data-col") in MEASURES
    }
    assert cells == {(r["run"], r["measure"]): r["mean"] for r in means.to_dicts()}


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
    monkeypatch.setattr(
        report, "write_report", lambda rep, out: written.append(rep) or write(rep, out)
    )
    out = tmp_path / "out"
    argv = ["report", str(source), "--out", str(out), "-m", "mu_ap,ndcg@3,p@2", "--ties", "average"]
    code, _, err = run_cli([*argv, "--trials", "50", "--bootstrap", "50"], capsys)
    assert (code, err) == (0, "")
    assert written[0].settings.ties == "average"
    expected = tied.lazy().graded.evaluate(MEASURES, by="system", ties="average")
    per_query = pl.read_parquet(out / "per_query.parquet")
    assert_frame_equal(per_query, expected.collect(engine="in-memory"), check_exact=True)
    text = (out / "report.md").read_text(encoding="utf-8")
    assert (
        "compared as 32-bit floats as trec_eval does; tied rows are not put in an order: each "
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


def write_trec(table: pl.DataFrame, folder: Path, layout: str) -> tuple[list[Path], Path]:
    """The table as TREC run files (``tags``: input.<tag> with distinct tags; ``folders``:
    <system>/run.txt all tagged ``rank``) and a qrels file."""
    runs = []
    for system in ("a", "b", "c"):
        rows = table.filter(pl.col("system") == system)
        if layout == "tags":
            path, tag = folder / f"input.{system}", f"sys_{system}"
        else:
            (folder / system).mkdir()
            path, tag = folder / system / "run.txt", "rank"
        pg.write_trec_run(rows.with_columns(pl.col("query").cast(pl.String)), path, tag=tag)
        runs.append(path)
    judged = table.filter(pl.col("system") == "a", pl.col("relevance").is_not_null())
    qrels = folder / "qrels.txt"
    lines = [f"{q} 0 {i} {r}" for q, i, r in judged.select("query", "item", "relevance").rows()]
    qrels.write_text("\n".join(lines) + "\n")
    return runs, qrels


@pytest.mark.parametrize(("layout", "names"), [("tags", ["sys_a", "sys_b", "sys_c"]),
                                               ("folders", ["a", "b", "c"])])  # fmt: skip
def test_cli_report_on_trec_runs(
    table: pl.DataFrame,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    layout: str,
    names: list[str],
) -> None:
    runs, qrels = write_trec(table, tmp_path, layout)
    out = tmp_path / "out"
    argv = ["report", "--run", *map(str, runs), "--qrels", str(qrels), "--out", str(out)]
    code, _, err = run_cli([*argv, "-m", "ap", "--trials", "200", "--bootstrap", "200"], capsys)
    assert (code, err) == (0, "")
    written = pl.read_parquet(out / "per_query.parquet")
    joined = report.trec_table(runs, qrels)
    expected = joined.lazy().graded.evaluate(["ap"], by="system").collect(engine="in-memory")
    assert_frame_equal(written, expected, check_exact=True)
    assert sorted(written["system"].unique()) == names
    assert written.height == 3 * 14  # the unretrieved judged rows keep every qrels query
    original = table.graded.evaluate(["ap"], by="system")
    original = original.with_columns(pl.col("query").cast(pl.String)).sort("system", "query")
    assert written["ap"].to_list() == pytest.approx(original["ap"].to_list(), abs=1e-12)
    text = (out / "report.md").read_text(encoding="utf-8")
    assert f"Input: 3 TREC run file(s), qrels {qrels} (queries: qrels)." in text


def test_cli_report_names_runs_given_as_name_equals_path(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs, qrels = write_trec(table, tmp_path, "tags")
    named = [f"first={runs[0]}", f"second={runs[1]}", str(runs[2])]
    argv = ["report", "--run", *named, "--qrels", str(qrels), "--out", str(tmp_path / "o")]
    code, _, err = run_cli([*argv, "-m", "rr", "--trials", "20", "--bootstrap", "20"], capsys)
    assert (code, err) == (0, "")
    systems = pl.read_parquet(tmp_path / "o" / "per_query.parquet")["system"].unique().sort()
    assert systems.to_list() == ["first", "input.c", "second"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["report"], "give a TABLE (.parquet or .csv) or --run RUN [RUN ...] and --qrels QRELS"),
        (["report", "t.parquet", "--qrels", "q"], "give either TABLE or --run and --qrels"),
        (["report", "--run", "nowhere.txt", "--qrels", "q.txt"], "no such file: nowhere.txt"),
        (["report", "--run", "r", "--qrels", "q", "--item", "doc"], "name columns of a TABLE"),
        (["report", "runs.parquet", "--baseline", "zz"], "baseline 'zz' is not a system"),
        (["report", "runs.parquet", "--alpha", "2"], "alpha must be a number strictly between"),
    ],
)
def test_cli_report_errors_are_one_line(
    argv: list[str],
    message: str,
    table: pl.DataFrame,
    *,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    table.write_parquet("runs.parquet")
    code, out, err = run_cli([*argv, "--trials", "10", "--bootstrap", "10"], capsys)
    assert code == 2
    assert out == ""
    assert err.startswith("polars-graded: error: ")
    assert message in err
    assert err.count("\n") == 1


def test_cli_report_without_matplotlib_says_what_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name)
    )
    code, out, err = run_cli(["report", str(tmp_path / "t.parquet")], capsys)
    assert (code, out) == (2, "")
    assert err == (
        "polars-graded: error: the report needs matplotlib: pip install 'polars-graded[report]'\n"
    )


# --------------------------------------------------------------------------- odd labels


def close_labels_table() -> pl.DataFrame:
    """Issue 14, item 9: labels 1.0, 1.000001 and 1.000002, which ``:g`` prints alike."""
    rows = [
        (system, q, f"d{i}", float(i if system == "a" else -i), label)
        for system in ("a", "b")
        for q in (1, 2)
        for i, label in enumerate([1.0, 1.000001, 1.000002, 0.0])
    ]
    return pl.DataFrame(
        rows, schema=["system", "query", "item", "score", "relevance"], orient="row"
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


def test_cli_report_on_close_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "close.parquet"
    close_labels_table().write_parquet(source)
    out = tmp_path / "out"
    argv = ["report", str(source), "--out", str(out), "--trials", "20", "--bootstrap", "20"]
    code, _, err = run_cli(argv, capsys)
    assert (code, err) == (0, "")
    assert sorted(p.name for p in out.iterdir()) == sorted(report.FILES)


def continuous_table(depth: int = 300) -> pl.DataFrame:
    """Two systems, two queries, a distinct label per judged row (about 2 * depth thresholds)."""
    rng = np.random.default_rng(5)
    frames = []
    for q in range(2):
        labels = np.where(rng.random(depth) < 0.4, 0.0, np.round(rng.random(depth) * 4, 6))
        for s in ("a", "b"):
            score = np.round(labels * (s == "b") + rng.normal(size=depth), 1)
            frames.append(
                pl.DataFrame(
                    {"system": s, "query": q, "item": np.arange(depth), "score": score,
                     "relevance": labels}
                )
            )  # fmt: skip
    return pl.concat(frames)


def test_many_thresholds_give_a_bounded_table_that_says_what_it_leaves_out(
    tmp_path: Path,
) -> None:
    """Issue 14, item 9: a threshold per distinct label, but at most MAX_THRESHOLDS columns,
    a sentence naming the count, and a chart of MAP at every threshold."""
    table = continuous_table()
    rep = report.compute_report(table, ["mu_ap", "ap"], trials=20, bootstrap=20)
    count = rep.thresholds["threshold"].n_unique()
    assert count > 300
    frame = report.threshold_table(rep)
    maps = [c for c in frame.columns if c.startswith("MAP")]
    assert len(maps) == report.MAX_THRESHOLDS
    thresholds = rep.thresholds["threshold"].unique().sort()
    assert maps[0] == f"MAP rel≥{format_number(thresholds[0])}"
    assert maps[-1] == f"MAP rel≥{format_number(thresholds[-1])}"
    notes = report.threshold_notes(rep)
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


# --------------------------------------------------------------------------- writing


def failing_markdown(report_: report.Report) -> str:
    msg = "rendering failed"
    raise pg.InvalidValueError(msg)


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


def test_cli_report_that_fails_leaves_no_folder(
    table: pl.DataFrame,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    source = tmp_path / "runs.parquet"
    table.write_parquet(source)
    monkeypatch.setattr(report, "to_markdown", failing_markdown)
    out = tmp_path / "out"
    argv = ["report", str(source), "--out", str(out), "--trials", "10", "--bootstrap", "10"]
    code, printed, err = run_cli(argv, capsys)
    assert (code, printed) == (2, "")
    assert "rendering failed" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.parquet"]


def test_report_output_that_is_a_file_is_refused(table: pl.DataFrame, tmp_path: Path) -> None:
    out = tmp_path / "taken"
    out.write_text("not a folder")
    with pytest.raises(pg.InvalidValueError, match="is a file"):
        report.build_report(table, out, ["ap"], trials=10, bootstrap=10)
    assert out.read_text() == "not a folder"


# --------------------------------------------------------------------------- real data


@pytest.mark.skipif(not ROBUST.is_dir(), reason=f"TREC 2003 Robust data not found at {ROBUST}")
def test_robust_2003_report(tmp_path: Path) -> None:
    """Four of the 17 runs (a deep, a short, an almost all-tied, and a 10-per-topic one)."""
    tags = ["InexpC2", "NLPR03vb10", "rutcor03100", "humR03dc"]
    runs = [ROBUST / "runs" / f"input.{tag}.gz" for tag in tags]
    long = report.trec_table(runs, ROBUST / "robust03_qrels.txt.gz")
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


@pytest.mark.skipif(not DL.is_dir(), reason=f"TREC DL 2019-2020 data not found at {DL}")
def test_dl_2019_report_equals_trec_eval(tmp_path: Path) -> None:
    """The six DL 2019 runs all carry the tag "rank", so they are named by their folders;
    the report's per-query values are trec_eval's (``-l 2`` for AP, TREC DL's custom)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    paths = sorted(DL.glob("runs/*/trec_results_dl19.txt.gz"))
    qrels_path = DL / "qrels.dl19-passage.txt"
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


# --------------------------------------------------------------------------- rendering


def _chromium() -> str | None:
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.mark.skipif(_chromium() is None, reason="no chromium on PATH for the screenshot test")
def test_headless_chromium_renders_the_report(folder: Path, tmp_path: Path) -> None:
    from matplotlib import image

    shot = tmp_path / "shot.png"
    argv = [
        str(_chromium()), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
        "--window-size=1280,2400", (folder / "report.html").resolve().as_uri(),
    ]  # fmt: skip
    subprocess.run(
        argv, check=True, capture_output=True, timeout=120, env=os.environ | {"HOME": str(tmp_path)}
    )
    assert shot.read_bytes()[:8] == PNG_SIGNATURE
    pixels = image.imread(shot)
    assert pixels.shape[:2] == (2400, 1280)
    colours = np.unique((pixels[..., :3] * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 200  # text, tables and charts, not a blank or error page
    blue = np.array([0, 114, 178]) / 255  # the bars of significantly better systems
    assert (np.abs(pixels[..., :3] - blue).max(axis=2) < 0.02).sum() > 500
