"""``polars-graded report`` (polars_graded/cli/report.py): the written report equals the
library's numbers (on a long table and on TREC runs, named by tag, file or folder), --by
and its alias --system, and errors as one line before any folder is written.

The report's contents are tested from Python in test_report*.py; the options ``report``
shares with ``evaluate`` in test_cli_inputs and test_cli_values.
"""

from __future__ import annotations

import importlib
import importlib.util
import io
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from support.cli import (
    assert_one_line_error,
    parquet_fixture,  # noqa: F401 (the fixture ``parquet``: the synthetic table below)
    refuse_work,
    run,
    trec_files,
    two_systems_table,
)
from support.report import (
    MEASURES,
    Page,
    body_rows,
    close_labels_table,
    failing_markdown,
    synthetic_table,
    write_trec_runs,
)

from polars_graded import cli, report
from polars_graded.cli import report as cli_report
from polars_graded.stats.compare import compare


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return synthetic_table()


# --------------------------------------------------------------------------- a long table


def test_cli_report_on_a_long_table(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "runs.parquet"
    table.rename({"system": "run"}).write_parquet(source)
    out = tmp_path / "out"
    argv = ["report", str(source), "--system", "run", "--out", str(out), "-m", "mu_ap,ndcg@3"]
    argv += ["-m", "p@2", "--trials", "300", "--bootstrap", "300", "--seed", "3"]
    argv += ["--baseline", "b", "--title", "Synthetic <runs>", "--differences", "all"]
    code, printed, err = run(argv, capsys)
    assert (code, err) == (0, "")
    assert printed.split() == [str(out / name) for name in report.FILES]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<h1>Synthetic &lt;runs&gt;</h1>" in html
    page = Page(html)
    assert [a["data-system"] for a, _ in body_rows(page, "summary-table")] == ["b", "a", "c"]
    assert len(page.images) == 2 * len(MEASURES) + 2  # and the heat map of tau
    per_query = table.rename({"system": "run"}).lazy().graded.evaluate(MEASURES, by="run")
    expected = per_query.collect(engine="in-memory")
    assert_frame_equal(pl.read_parquet(out / "per_query.parquet"), expected, check_exact=True)
    means = compare(expected, by="run", baseline="b", trials=300, bootstrap=300, seed=3)
    cells = {
        (a["data-system"], c["data-col"]): float(c["data-value"])
        for a, row in body_rows(page, "summary-table")
        for c, _ in row
        if c.get("data-col") in MEASURES
    }
    assert cells == {(r["run"], r["measure"]): r["mean"] for r in means.to_dicts()}


def test_cli_report_on_close_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "close.parquet"
    close_labels_table().write_parquet(source)
    out = tmp_path / "out"
    argv = ["report", str(source), "--out", str(out), "--trials", "20", "--bootstrap", "20"]
    code, _, err = run(argv, capsys)
    assert (code, err) == (0, "")
    assert sorted(p.name for p in out.iterdir()) == sorted(report.FILES)


def test_report_by_and_its_alias_system_name_the_same_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = two_systems_table()
    path = tmp_path / "runs.parquet"
    table.rename({"system": "run"}).write_parquet(path)
    written = []
    for option in ("--by", "--system"):
        out = tmp_path / option.strip("-")
        argv = ["report", str(path), option, "run", "--out", str(out), "-m", "ap,ndcg@3"]
        code, _, err = run([*argv, "--trials", "10", "--bootstrap", "10"], capsys)
        assert (code, err) == (0, "")
        written.append(pl.read_parquet(out / "per_query.parquet"))
    assert written[0].equals(written[1])
    assert written[0]["run"].unique().sort().to_list() == ["a", "b"]


# --------------------------------------------------------------------------- TREC runs


@pytest.mark.parametrize(("layout", "names"), [("tags", ["sys_a", "sys_b", "sys_c"]),
                                               ("folders", ["a", "b", "c"])])  # fmt: skip
def test_cli_report_on_trec_runs(
    table: pl.DataFrame,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    layout: str,
    names: list[str],
) -> None:
    runs, qrels = write_trec_runs(table, tmp_path, layout)
    out = tmp_path / "out"
    argv = ["report", "--run", *map(str, runs), "--qrels", str(qrels), "--out", str(out)]
    code, _, err = run([*argv, "-m", "ap", "--trials", "200", "--bootstrap", "200"], capsys)
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
    runs, qrels = write_trec_runs(table, tmp_path, "tags")
    named = [f"first={runs[0]}", f"second={runs[1]}", str(runs[2])]
    argv = ["report", "--run", *named, "--qrels", str(qrels), "--out", str(tmp_path / "o")]
    code, _, err = run([*argv, "-m", "rr", "--trials", "20", "--bootstrap", "20"], capsys)
    assert (code, err) == (0, "")
    systems = pl.read_parquet(tmp_path / "o" / "per_query.parquet")["system"].unique().sort()
    assert systems.to_list() == ["first", "input.c", "second"]


def test_report_by_names_a_table_column_not_a_trec_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_file, qrels = trec_files(tmp_path)
    argv = ["report", "--run", str(run_file), "--qrels", str(qrels), "--by", "tag"]
    assert_one_line_error(*run(argv, capsys), "--by/--system", "name columns of a TABLE")


def test_report_help_says_system_is_an_alias_of_by(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["report", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--by COLUMN, --system COLUMN" in out
    assert "--system is an alias" in " ".join(out.split())


# --------------------------------------------------------------------------- errors


def test_report_out_is_checked_before_the_work(
    parquet: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    started = refuse_work(monkeypatch, report, "compute_report")
    (tmp_path / "file").write_text("")
    for out, fragment in (
        (tmp_path / "file", "is a file"),
        (tmp_path / "file" / "report", "is not a folder"),
    ):
        result = run(["report", str(parquet), "--out", str(out)], capsys)
        assert_one_line_error(*result, str(out), fragment)
    assert started == []


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
    code, out, err = run([*argv, "--trials", "10", "--bootstrap", "10"], capsys)
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
    code, out, err = run(["report", str(tmp_path / "t.parquet")], capsys)
    assert (code, out) == (2, "")
    assert err == (
        "polars-graded: error: the report needs matplotlib: pip install 'polars-graded[report]'\n"
    )


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
    code, printed, err = run(argv, capsys)
    assert (code, printed) == (2, "")
    assert "rendering failed" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.parquet"]


# --------------------------------------------------------------------------- --segment-table


def test_cli_report_segment_table_errors_before_any_work(
    parquet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    cases = {
        "topic,age\n1,old\n": ["no query column 'query'"],
        "query,age\n1,old\n1,new\n": ["query '1' is listed twice"],
        "query,system\n1,x\n": ["the input already has ['system']"],
        "query\n1\n": ["no segment column"],
    }
    for text, fragments in cases.items():
        path = tmp_path / "topics.csv"
        path.write_text(text)
        argv = ["report", str(parquet), "--out", str(out), "--segment-table", str(path)]
        assert_one_line_error(*run(argv, capsys), str(path), *fragments)
    path.write_text("query,age\n1,old\n")
    argv = ["report", str(parquet), "--out", str(out), "--segment-table", str(path)]
    assert_one_line_error(*run([*argv, "--segment", "lang"], capsys), "no column ['lang']")
    assert not out.exists()


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("terminal", "quiet", "shown"),
    [(False, [], False), (True, [], True), (True, ["-q"], False), (True, ["--quiet"], False)],
)
def test_cli_report_shows_progress_on_a_terminal_unless_quiet(
    terminal: bool,
    quiet: list[str],
    shown: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the report draws is test_report_compute's; here, when the command asks for it."""
    asked: list[object] = []

    def spy(*args: object, **options: object) -> list[Path]:
        asked.append(options["progress"])
        return []

    monkeypatch.setattr(cli_report, "build_report", spy)
    source = tmp_path / "runs.csv"
    two_systems_table().write_csv(source)
    if terminal:
        monkeypatch.setattr("sys.stderr", Terminal())
    assert cli.main(["report", str(source), "--out", str(tmp_path / "out"), *quiet]) == 0
    assert asked == [shown]


def test_cli_report_test_option_decides_the_marks(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "runs.parquet"
    table.write_parquet(source)
    out = tmp_path / "out"
    argv = ["report", str(source), "--out", str(out), "-m", "ap", "--test", "wilcoxon"]
    code, _, err = run([*argv, "--trials", "50", "--bootstrap", "50"], capsys)
    assert (code, err) == (0, "")
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "two-sided Wilcoxon signed-rank test on the per-query values" in markdown
    assert "| d_z | change | p Wilcoxon Holm | p rand. Holm | p t-test Holm |" in markdown
