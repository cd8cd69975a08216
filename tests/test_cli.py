"""The ``polars-graded`` command line: evaluate, demo, --version, and its errors."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import polars as pl
import pytest
from conftest import write_small_table

import polars_graded as pg
from polars_graded import cli, plan, report

MEASURES = ["mu_ap", "ndcg@3", "ap(rel=2)"]


@pytest.fixture
def table() -> pl.DataFrame:
    """Two systems, three queries; one judged row unretrieved, one retrieved row unjudged."""
    rows = []
    for system, shift in (("a", 0.0), ("b", 0.5)):
        for query in (1, 2, 3):
            for item, (score, relevance) in enumerate(
                [(5.0, 2), (4.0, 0), (3.0 + shift * query, 3), (2.0, 1), (None, 1), (1.0, None)]
            ):
                rows.append((system, query, f"d{item}", score, relevance))
    return pl.DataFrame(
        rows,
        schema={
            "system": pl.String,
            "query": pl.Int64,
            "item": pl.String,
            "score": pl.Float64,
            "relevance": pl.Int64,
        },
        orient="row",
    )


@pytest.fixture
def parquet(table: pl.DataFrame, tmp_path: Path) -> Path:
    path = tmp_path / "runs.parquet"
    table.write_parquet(path)
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def parse_printed(out: str) -> list[list[str]]:
    """The printed summary table as rows of cells (header first, rule dropped)."""
    lines = [line.split() for line in out.strip().splitlines()]
    assert set("".join(lines[1])) == {"-"}
    return [lines[0], *lines[2:]]


def expected_rows(summary: pl.DataFrame) -> list[list[str]]:
    return [
        [f"{v:.4f}" if isinstance(v, float) else str(v) for v in row] for row in summary.iter_rows()
    ]


# --------------------------------------------------------------------------- evaluate


def test_evaluate_parquet_prints_the_summary(
    parquet: Path, table: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        [
            "evaluate",
            str(parquet),
            "-m",
            "mu_ap",
            "-m",
            "ndcg@3",
            "-m",
            "ap(rel=2)",
            "--by",
            "system",
        ],
        capsys,
    )
    assert (code, err) == (0, "")
    printed = parse_printed(out)
    assert printed[0] == ["system", "num_q", *MEASURES]
    assert printed[1:] == expected_rows(table.graded.summary(MEASURES, by="system"))


def test_geometric_mean_summary(
    parquet: Path, table: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["evaluate", str(parquet), "-m", "ap", "-m", "bpref", "--by", "system"]
    code, out, _ = run([*argv, "--mean", "geometric"], capsys)
    assert code == 0
    printed = parse_printed(out)
    assert printed[0] == ["system", "num_q", "gm_ap", "gm_bpref"]
    summary = table.graded.summary(["ap", "bpref"], by="system", mean="geometric")
    assert printed[1:] == expected_rows(summary)
    assert run([*argv, "--mean", "harmonic"], capsys)[0] == 2


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


def test_measures_may_be_comma_separated(parquet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repeated = run(
        ["evaluate", str(parquet), "-m", "mu_ap", "-m", "ndcg@3", "--by", "system"], capsys
    )
    joined = run(["evaluate", str(parquet), "-m", "mu_ap, ndcg@3", "--by", "system"], capsys)
    assert repeated == joined
    assert repeated[0] == 0


def test_commas_inside_parameters_stay_in_the_measure() -> None:
    assert cli.split_measures(["mu_ap(levels=[1,2,3]),ndcg(gain={1:3,2:9})@5", "rr"]) == [
        "mu_ap(levels=[1,2,3])",
        "ndcg(gain={1:3,2:9})@5",
        "rr",
    ]


def test_default_measures_and_no_by_give_one_row(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "one.parquet"
    table.filter(pl.col("system") == "a").drop("system").write_parquet(path)
    code, out, _ = run(["evaluate", str(path)], capsys)
    assert code == 0
    printed = parse_printed(out)
    assert printed[0] == ["num_q", *cli.DEFAULT_MEASURES]
    assert len(printed) == 2
    assert printed[1][0] == "3"


def test_csv_gives_the_same_summary_as_parquet(
    parquet: Path, table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "runs.csv"
    table.write_csv(csv)
    args = ["-m", "mu_ap,ndcg@3", "--by", "system"]
    assert run(["evaluate", str(csv), *args], capsys) == run(
        ["evaluate", str(parquet), *args], capsys
    )


def test_column_names_and_several_by_columns(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    renamed = table.rename({"query": "qid", "item": "doc", "score": "s", "relevance": "label"})
    renamed = renamed.with_columns(split=pl.lit("test"))
    path = tmp_path / "renamed.parquet"
    renamed.write_parquet(path)
    code, out, _ = run(
        [
            "evaluate", str(path), "-m", "mu_ap",
            "--query", "qid", "--item", "doc", "--score", "s", "--relevance", "label",
            "--by", "split", "--by", "system",
        ],
        capsys,
    )  # fmt: skip
    assert code == 0
    printed = parse_printed(out)
    assert printed[0] == ["split", "system", "num_q", "mu_ap"]
    expected = table.graded.summary("mu_ap", by="system")
    assert [row[1:] for row in printed[1:]] == expected_rows(expected)


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_output_writes_the_per_query_table(
    suffix: str,
    parquet: Path,
    table: pl.DataFrame,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    output = tmp_path / f"per_query{suffix}"
    code, _, _ = run(
        ["evaluate", str(parquet), "-m", ",".join(MEASURES), "--by", "system", "-o", str(output)],
        capsys,
    )
    assert code == 0
    written = pl.read_parquet(output) if suffix == ".parquet" else pl.read_csv(output)
    expected = table.graded.evaluate(MEASURES, by="system")
    assert written.columns == expected.columns
    assert written.height == expected.height == 6
    for name in MEASURES:
        assert written[name].to_list() == pytest.approx(expected[name].to_list())


def test_printed_summary_is_the_library_summary(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one_system = table.filter(pl.col("system") == "a")
    for frame, by in ((table, ["system"]), (one_system, [])):
        path = tmp_path / f"table{len(by)}.parquet"
        frame.write_parquet(path)
        by_args = [arg for column in by for arg in ("--by", column)]
        code, out, _ = run(["evaluate", str(path), "-m", ",".join(MEASURES), *by_args], capsys)
        assert code == 0
        printed = parse_printed(out)
        library = frame.graded.summary(MEASURES, by=by or None)
        assert printed[0] == [*by, "num_q", *MEASURES]
        assert printed[1:] == expected_rows(library)


def trec_files(tmp_path: Path) -> tuple[Path, Path]:
    run_file = tmp_path / "run.txt"
    run_file.write_text(
        "1 Q0 d1 1 3.0 sysA\n"
        "1 Q0 d2 2 2.0 sysA\n"
        "1 Q0 d3 3 1.0 sysA\n"
        "2 Q0 d4 1 2.0 sysA\n"
        "2 Q0 d5 2 1.0 sysA\n"
        "9 Q0 d9 1 1.0 sysA\n"
    )
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 0\n1 0 d2 2\n1 0 d3 1\n1 0 d7 1\n2 0 d5 1\n3 0 d8 1\n")
    return run_file, qrels


@pytest.mark.parametrize("queries", ["qrels", "both", "all"])
def test_evaluate_trec_run_and_qrels(
    queries: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_file, qrels = trec_files(tmp_path)
    code, out, err = run(
        ["evaluate", "--run", str(run_file), "--qrels", str(qrels), "-m", "ap,ndcg@3",
         "--queries", queries],
        capsys,
    )  # fmt: skip
    assert (code, err) == (0, "")
    joined = pg.join_run_qrels(
        pg.read_trec_run(run_file), pg.read_trec_qrels(qrels), queries=queries
    )
    expected = joined.graded.summary(["ap", "ndcg@3"])
    assert parse_printed(out) == [["num_q", "ap", "ndcg@3"], *expected_rows(expected)]
    assert expected[cli.COUNT].item() == {"qrels": 3, "both": 2, "all": 4}[queries]


def test_evaluate_trec_by_tag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_file, qrels = trec_files(tmp_path)
    code, out, _ = run(
        ["evaluate", "--run", str(run_file), "--qrels", str(qrels), "-m", "ap", "--by", "tag"],
        capsys,
    )
    assert code == 0
    assert parse_printed(out)[0] == ["tag", "num_q", "ap"]
    assert parse_printed(out)[1][0] == "sysA"


# --------------------------------------------------------------------------- errors


def assert_one_line_error(code: int, out: str, err: str, *fragments: str) -> None:
    assert code == 2
    assert out == ""
    assert err.startswith("polars-graded: error: ")
    assert err.count("\n") == 1
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err


def test_missing_table_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.parquet"
    assert_one_line_error(*run(["evaluate", str(missing)], capsys), "no such file", "nope.parquet")


def test_missing_trec_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_file, _ = trec_files(tmp_path)
    result = run(["evaluate", "--run", str(run_file), "--qrels", str(tmp_path / "q.txt")], capsys)
    assert_one_line_error(*result, "no such file", "q.txt")


def test_unknown_measure(parquet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = run(["evaluate", str(parquet), "-m", "mu_ap,bogus@10"], capsys)
    assert_one_line_error(*result, "bogus", "mu_ap")


def test_bad_measure_parameter(parquet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert_one_line_error(*run(["evaluate", str(parquet), "-m", "ap(x=1)"], capsys), "ap")


def test_duplicate_keys_without_by(parquet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # two systems share (query, item) keys: without --by system they collide
    assert_one_line_error(*run(["evaluate", str(parquet), "-m", "ap"], capsys), "unique")


def test_missing_column(parquet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = run(["evaluate", str(parquet), "--score", "points", "--by", "system"], capsys)
    assert_one_line_error(*result, "points")


def test_non_numeric_column(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "text.csv"
    table.with_columns(pl.col("score").cast(pl.String) + "x").write_csv(path)
    result = run(["evaluate", str(path), "--by", "system"], capsys)
    assert_one_line_error(*result, "score")


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


def test_bad_output_extension_fails_before_work(
    parquet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "out.json"
    result = run(["evaluate", str(parquet), "--by", "system", "-o", str(output)], capsys)
    assert_one_line_error(*result, "out.json")
    assert not output.exists()


def test_column_options_with_trec_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_file, qrels = trec_files(tmp_path)
    result = run(
        ["evaluate", "--run", str(run_file), "--qrels", str(qrels), "--score", "s"], capsys
    )
    assert_one_line_error(*result, "TABLE")


@pytest.mark.parametrize(
    ("argv", "words", "help_of"),
    [
        ([], "required: COMMAND", "polars-graded"),
        (["frobnicate"], "invalid choice: 'frobnicate'", "polars-graded"),
        (["demo", "--runs", "0"], "--runs: must be at least 1", "polars-graded demo"),
        (["evaluate", "--ties", "random", "t.parquet"], "--ties", "polars-graded evaluate"),
        (["report", "--trials", "x"], "--trials", "polars-graded report"),
    ],
)
def test_usage_errors_are_one_line(
    argv: list[str], words: str, help_of: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Were argparse's usage block and a 'polars-graded evaluate: error:' prefix.
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("polars-graded: error: ")
    assert words in err
    assert err.rstrip().endswith(f"see {help_of} --help")


# --------------------------------------------------------------------------- hostile input


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


def two_runs(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Runs tagged bm25 and splade; by hand, AP is 1/2 on both queries for bm25, 1 for
    splade (the one relevant item at rank 2, resp. 1)."""
    first = tmp_path / "a" / "run.txt"
    second = tmp_path / "b" / "run.txt"
    first.parent.mkdir()
    second.parent.mkdir()
    first.write_text(
        "1 Q0 d1 1 3.0 bm25\n1 Q0 d2 2 2.0 bm25\n2 Q0 d4 1 2.0 bm25\n2 Q0 d5 2 1.0 bm25\n"
    )
    second.write_text("1 Q0 d2 1 3.0 splade\n1 Q0 d1 2 2.0 splade\n2 Q0 d5 1 2.0 splade\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d2 1\n2 0 d5 1\n")
    return first, second, qrels


def test_evaluate_several_runs_side_by_side(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second, qrels = two_runs(tmp_path)
    output = tmp_path / "per_query.csv"
    argv = ["evaluate", "--run", str(first), "--run", str(second), "--qrels", str(qrels)]
    code, out, err = run([*argv, "-m", "ap", "-o", str(output)], capsys)
    assert (code, err) == (0, "")
    assert parse_printed(out) == [
        ["system", "num_q", "ap"],
        ["bm25", "2", "0.5000"],
        ["splade", "2", "1.0000"],
    ]
    written = pl.read_csv(output, schema_overrides={"query": pl.String})
    assert sorted(written.rows()) == [
        ("bm25", "1", 0.5),
        ("bm25", "2", 0.5),
        ("splade", "1", 1.0),
        ("splade", "2", 1.0),
    ]
    # one --run with several files, NAME=PATH naming one; the other is named by its folder
    named = ["evaluate", "--run", f"first={first}", str(second), "--qrels", str(qrels)]
    code, out, _ = run([*named, "-m", "ap", "--by", "system"], capsys)
    assert code == 0
    assert [row[0] for row in parse_printed(out)] == ["system", "first", "run"]
    result = run([*argv, "--by", "tag"], capsys)
    assert_one_line_error(*result, "several --run", "tag")
    help_text = run(["evaluate", "--help"], capsys)[1]
    assert "NAME=PATH" in help_text


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


def test_known_input_failures_are_one_line_and_bugs_keep_their_traceback(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_file, qrels = trec_files(tmp_path)
    argv = ["evaluate", "--run", str(run_file), "--qrels", str(qrels)]

    def failing(error: Exception):
        def read_text(path: object) -> str:
            raise error

        return read_text

    # what Python's gzip and zlib raise on a damaged stream, if one ever gets past the reader
    eof = EOFError("Compressed file ended before the end-of-stream marker was reached")
    monkeypatch.setattr(pg.io, "_read_text", failing(eof))
    assert_one_line_error(*run(argv, capsys), "truncated or corrupt", "end-of-stream")
    monkeypatch.setattr(pg.io, "_read_text", failing(zlib.error("Error -3")))
    assert_one_line_error(*run(argv, capsys), "truncated or corrupt", "Error -3")
    monkeypatch.setattr(pg.io, "_read_text", failing(RuntimeError("a bug")))
    with pytest.raises(RuntimeError, match="a bug"):
        cli.main(argv)


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


def refuse_work(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    """Make ``module.name`` fail loudly and count its calls: the output checks must come
    before the work."""
    calls: list[int] = []

    def work(*args: object, **kwargs: object) -> None:
        calls.append(1)
        msg = f"{name} started before the output was checked"
        raise RuntimeError(msg)

    monkeypatch.setattr(module, name, work)
    return calls


@pytest.mark.parametrize("case", ["missing folder", "folder is a file", "a directory"])
def test_output_is_checked_before_the_evaluation(
    case: str,
    parquet: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    calls = refuse_work(monkeypatch, plan, "per_query")
    (tmp_path / "file").write_text("")
    (tmp_path / "dir.parquet").mkdir()
    output, fragment = {
        "missing folder": (tmp_path / "nowhere" / "out.parquet", "does not exist"),
        "folder is a file": (tmp_path / "file" / "out.csv", "is not a folder"),
        "a directory": (tmp_path / "dir.parquet", "is a directory"),
    }[case]
    result = run(["evaluate", str(parquet), "--by", "system", "-o", str(output)], capsys)
    assert_one_line_error(*result, str(output), fragment)
    assert calls == []


def test_unwritable_output_is_found_before_the_evaluation(
    parquet: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    calls = refuse_work(monkeypatch, plan, "per_query")
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    # root may write anywhere, so the lock is simulated where the check asks
    monkeypatch.setattr(
        os, "access", lambda path, mode: Path(path) != locked and real_access(path, mode)
    )
    output = locked / "out.parquet"
    result = run(["evaluate", str(parquet), "--by", "system", "-o", str(output)], capsys)
    assert_one_line_error(*result, "permission denied", "locked")
    out = locked / "report"
    result = run(["report", str(parquet), "--out", str(out), "--trials", "10"], capsys)
    assert_one_line_error(*result, "permission denied", "locked")
    assert calls == []


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


def test_the_partition_cap_is_one_line_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_small_table(tmp_path / "small.parquet")
    argv = ["evaluate", str(path), "-m", "ap,ndcg@5"]
    code, plain, err = run(argv, capsys)
    assert (code, err) == (0, "")
    for extra, asked in ((["--partitions", "500"], 500), (["--memory-budget", "1b"], 80_000)):
        for _ in range(2):  # every call says it, not only the first in this process
            code, out, err = run([*argv, *extra], capsys)
            assert (code, out) == (0, plain)
            assert err == (
                f"polars-graded: warning: evaluating in 20 partition(s), not {asked}: the "
                "table has only 20 distinct (query) key(s), and a partition holds whole "
                "rankings\n"
            )


# --------------------------------------------------------------------------- version, demo


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--version"], capsys)
    assert code == 0
    assert out.strip() == f"polars-graded {pg.__version__}"


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["evaluate", "--help"], capsys)
    assert code == 0
    assert "--measure" in out


def test_demo_prints_the_three_tables(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["demo", "--runs", "3", "--seed", "1"], capsys)
    assert (code, err) == (0, "")
    for label in cli.DEMO_MEASURES.values():
        assert f"\n{label}\n" in out
    header = ["k", "L=2", "L=10", "L=20", "L=50"]
    assert sum(line.split() == header for line in out.splitlines()) == 3
    for k in (0, 1, 5, 10, 25, 50, 99):
        assert any(line.split()[:1] == [str(k)] for line in out.splitlines())
    assert "1.0000  1.0000  1.0000  1.0000" in out
    assert "At k = 99" in out


def test_demo_is_deterministic_and_accepts_the_random_distribution(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = run(["demo", "--runs", "2", "--seed", "4", "--distribution", "random"], capsys)
    again = run(["demo", "--runs", "2", "--seed", "4", "--distribution", "random"], capsys)
    assert first == again
    assert first[0] == 0


def test_demo_table_means_over_runs() -> None:
    table = cli.demo_table(runs=4, seed=3)
    assert table.columns == ["levels", "swaps", *cli.DEMO_MEASURES]
    assert table.height == 4 * 7
    at_zero = table.filter(pl.col("swaps") == 0)
    for name in cli.DEMO_MEASURES:
        assert at_zero[name].to_list() == pytest.approx([1.0] * 4)
    # NDCNG equals NDCG with exponential gain on 0/1 labels (L = 2)
    two = table.filter(pl.col("levels") == 2)
    assert two["mean_ndcng"].to_list() == pytest.approx(two["mean_ndcg"].to_list())


def test_demo_explanation_only_claims_what_the_numbers_show() -> None:
    flat = pl.DataFrame(
        {
            "levels": [2, 50, 2, 50],
            "swaps": [0, 0, 99, 99],
            "mu_ap": [1.0, 1.0, 0.5, 0.6],
            "mean_ndcg": [1.0, 1.0, 0.5, 0.55],
            "mean_ndcng": [1.0, 1.0, 0.6, 0.5],
        }
    )
    text = cli.demo_explanation(flat)
    assert "not clearly apart" in text
    assert "much less" not in text
    apart = flat.with_columns(
        mean_ndcg=pl.Series([1.0, 1.0, 0.7, 0.3]), mu_ap=pl.Series([1.0, 1.0, 0.5, 0.52])
    ).with_columns(mean_ndcng=pl.Series([1.0, 1.0, 0.6, 0.62]))
    text = cli.demo_explanation(apart)
    assert "much less" in text
    assert "lower the more levels" in text
    assert "every measure is 1" in text


def test_format_table_shows_every_row_and_column() -> None:
    wide = pl.DataFrame({f"measure_{i}": [i / 3] * 40 for i in range(12)}).with_row_index("q")
    text = cli.format_table(wide)
    lines = text.splitlines()
    assert len(lines) == 42
    assert lines[0].split() == wide.columns
    assert lines[-1].split()[:3] == ["39", "0.0000", "0.3333"]
    assert "…" not in text
    assert cli.format_table(pl.DataFrame({"x": [None, 1.5]})).splitlines()[2:] == [
        "     -",
        "1.5000",
    ]


# --------------------------------------------------------------------------- installed script


def test_installed_script(parquet: Path, table: pl.DataFrame) -> None:
    script = shutil.which("polars-graded") or str(Path(sys.executable).parent / "polars-graded")
    if not Path(script).exists():
        pytest.skip("the polars-graded script is not installed")
    done = subprocess.run(
        [script, "evaluate", str(parquet), "-m", "mu_ap", "--by", "system"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    expected = expected_rows(table.graded.summary("mu_ap", by="system"))
    assert parse_printed(done.stdout) == [["system", "num_q", "mu_ap"], *expected]
    failed = subprocess.run(
        [script, "evaluate", str(parquet.with_name("missing.csv"))],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert failed.returncode == 2
    assert failed.stderr.startswith("polars-graded: error: ")
    assert "Traceback" not in failed.stderr


def test_measures_named_on_the_command_line(
    parquet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "named.parquet"
    argv = ["evaluate", str(parquet), "--by", "system", "-o", str(out)]
    argv += ["-m", "rbp80=rbp(p=0.8,rel=1)@5,ap(rel=2)", "-m", "deep = ndcg@10"]
    assert cli.main(argv) == 0
    assert "rbp80" in capsys.readouterr().out.splitlines()[0]
    got = pl.read_parquet(out)
    assert got.columns == ["system", "query", "rbp80", "ap(rel=2)", "deep"]
    expected = pl.read_parquet(parquet).graded.evaluate(
        ["rbp@5", "ap(rel=2)", "ndcg@10"], by="system"
    )
    assert got.rows() == expected.rows()


@pytest.mark.parametrize(
    ("measures", "words"),
    [("ap=ap,ap", "two measures are named 'ap'"), ("query=ap", "also a key column")],
)
def test_bad_measure_names_on_the_command_line(
    parquet: Path, measures: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["evaluate", str(parquet), "--by", "system", "-m", measures]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert words in err
