"""Reading a command's input (polars_graded/cli/inputs.py): a TABLE read as Parquet or CSV,
globs and hive folders, or TREC --run/--qrels files; the checks on it before any work, and
damaged files named in one line."""

from __future__ import annotations

import gzip
from pathlib import Path

import polars as pl
import pytest
from support.cli import (
    MEASURES,
    assert_one_line_error,
    expected_rows,
    parquet_fixture,  # noqa: F401 (the fixture ``parquet``)
    parse_printed,
    run,
    table_fixture,  # noqa: F401 (the fixture ``table``)
    trec_files,
)

# --------------------------------------------------------------------------- reading a TABLE


def test_glob_patterns_read_several_files(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for system in ("a", "b"):
        table.filter(pl.col("system") == system).write_parquet(tmp_path / f"{system}.parquet")
    code, out, _ = run(
        ["evaluate", str(tmp_path / "*.parquet"), "-m", "mu_ap", "--by", "system"], capsys
    )
    assert code == 0
    assert parse_printed(out)[1:] == expected_rows(table.graded.summary("mu_ap", by="system"))
    result = run(["evaluate", str(tmp_path / "*.csv")], capsys)
    assert_one_line_error(*result, "no file matches")


def test_csv_gives_the_same_summary_as_parquet(
    parquet: Path, table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "runs.csv"
    table.write_csv(csv)
    args = ["-m", "mu_ap,ndcg@3", "--by", "system"]
    assert run(["evaluate", str(csv), *args], capsys) == run(
        ["evaluate", str(parquet), *args], capsys
    )


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_csv_key_columns_are_read_as_text(
    suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Inferred as numbers, queries 01 and 1 (and parts 01 and 1) would be one, and items
    # 007 and 7 would collide as duplicates.
    rows = [
        ("01", "01", "007", 2.0, 1),
        ("01", "01", "7", 1.0, 0),
        ("01", "1", "007", 2.0, 0),
        ("01", "1", "7", 1.0, 1),
        ("1", "01", "007", 1.0, 1),
        ("1", "01", "7", 2.0, 0),
    ]
    header = ("part", "qid", "doc", "s", "label")
    sep = "," if suffix == ".csv" else "\t"
    path = tmp_path / f"runs{suffix}"
    path.write_text("\n".join(sep.join(map(str, row)) for row in [header, *rows]) + "\n")
    output = tmp_path / "per_query.parquet"
    names = ["--query", "qid", "--item", "doc", "--score", "s", "--relevance", "label"]
    code, out, err = run(
        ["evaluate", str(path), "-m", "ap", *names, "--by", "part", "-o", str(output)], capsys
    )
    assert (code, err) == (0, "")
    # by hand: part 01 query 01 has its relevant item first (AP 1), query 1 second (AP 1/2);
    # part 1 query 01 has it second (AP 1/2)
    assert parse_printed(out) == [
        ["part", "num_q", "ap"],
        ["01", "2", "0.7500"],
        ["1", "1", "0.5000"],
    ]
    written = pl.read_parquet(output)
    assert sorted(written.rows()) == [("01", "01", 1.0), ("01", "1", 0.5), ("1", "01", 0.5)]


def hive_layout(table: pl.DataFrame, root: Path) -> Path:
    """``root/system=<s>/day=<d>/part.parquet``: system and day live only in the paths."""
    for (system,), rows in table.group_by("system"):
        for day, half in (("2026-11-01", 0), ("2026-11-02", 1)):
            folder = root / f"system={system}" / f"day={day}"
            folder.mkdir(parents=True)
            part = rows.filter(pl.col("query") % 2 == half).drop("system")
            part.write_parquet(folder / "part.parquet")
    return root


def test_recursive_globs_and_hive_columns(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = hive_layout(table, tmp_path / "logs")
    pattern = str(root / "**" / "*.parquet")
    # the reference: the folder, which Polars reads with hive partitioning by itself
    expected = pl.scan_parquet(root).graded.summary(MEASURES, by=["system", "day"]).collect()
    assert expected.height == 4
    for extra in ([], ["--partitions", "3"]):
        code, out, err = run(
            ["evaluate", pattern, "-m", ",".join(MEASURES), "--by", "system", "--by", "day",
             *extra],
            capsys,
        )  # fmt: skip
        assert (code, err) == (0, "")
        assert parse_printed(out)[1:] == expected_rows(expected)


# --------------------------------------------------------------------------- checks before work


def test_missing_table_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.parquet"
    assert_one_line_error(*run(["evaluate", str(missing)], capsys), "no such file", "nope.parquet")


def test_missing_trec_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_file, _ = trec_files(tmp_path)
    result = run(["evaluate", "--run", str(run_file), "--qrels", str(tmp_path / "q.txt")], capsys)
    assert_one_line_error(*result, "no such file", "q.txt")


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["evaluate", "table.xlsx"], "expected a table"),
        (["evaluate"], "TABLE"),
        (["evaluate", "t.parquet", "--run", "r.txt", "--qrels", "q.txt"], "not both"),
        (["evaluate", "--run", "r.txt"], "--qrels"),
    ],
)
def test_bad_inputs(argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert_one_line_error(*run(argv, capsys), fragment)


@pytest.mark.parametrize("command", ["evaluate", "report"])
@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["t.parquet", "--run", "r.txt"], "not both"),
        ([], "give a TABLE (.parquet or .csv) or --run RUN [RUN ...] and --qrels QRELS"),
        (["--run", "r.txt"], "--qrels"),
    ],
)
def test_evaluate_and_report_check_their_input_alike(
    command: str, argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert_one_line_error(*run([command, *argv], capsys), fragment)


@pytest.mark.parametrize("command", ["evaluate", "report"])
def test_queries_with_a_table_is_refused(
    command: str, parquet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [command, str(parquet), "--queries", "all"]
    if command == "report":
        argv += ["--out", str(tmp_path / "report"), "--trials", "10", "--bootstrap", "10"]
    else:
        argv += ["--by", "system"]
    assert_one_line_error(*run(argv, capsys), "--queries", "TABLE")
    assert not (tmp_path / "report").exists()


# --------------------------------------------------------------------------- damaged files


def test_damaged_parquet_tables_name_the_file(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corrupt = tmp_path / "corrupt.parquet"
    corrupt.write_bytes(b"PAR1" + bytes(40) + b"PAR1")
    assert_one_line_error(*run(["evaluate", str(corrupt)], capsys), "corrupt.parquet")
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    table.write_parquet(mixed / "a.parquet")
    table.with_columns(pl.col("query").cast(pl.String)).write_parquet(mixed / "b.parquet")
    for extra in ([], ["--partitions", "2"]):
        result = run(["evaluate", str(mixed), "--by", "system", *extra], capsys)
        assert_one_line_error(*result, "b.parquet", "'query'", "same columns and types")
    out = tmp_path / "report"
    argv = ["report", str(corrupt), "--out", str(out), "--trials", "10", "--bootstrap", "10"]
    assert_one_line_error(*run(argv, capsys), "corrupt.parquet")


def truncated_gzip(path: Path, text: str) -> Path:
    packed = gzip.compress(text.encode() * 20)
    path.write_bytes(packed[: len(packed) // 2])
    return path


def test_a_truncated_gzip_run_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_file, qrels = trec_files(tmp_path)
    broken = truncated_gzip(tmp_path / "broken.gz", run_file.read_text())
    result = run(["evaluate", "--run", str(broken), "--qrels", str(qrels)], capsys)
    assert_one_line_error(*result, "broken.gz", "gzip")
    out = tmp_path / "report"
    argv = ["report", "--run", str(broken), str(run_file), "--qrels", str(qrels)]
    result = run([*argv, "--out", str(out), "--trials", "10", "--bootstrap", "10"], capsys)
    assert_one_line_error(*result, "broken.gz", "gzip")
    bad_qrels = truncated_gzip(tmp_path / "qrels.gz", qrels.read_text())
    result = run(["evaluate", "--run", str(run_file), "--qrels", str(bad_qrels)], capsys)
    assert_one_line_error(*result, "qrels.gz")
