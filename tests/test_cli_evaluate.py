"""``polars-graded evaluate`` (polars_graded/cli/evaluate.py): the printed summary equals the
library's, -o writes the per-query table, TREC runs side by side, named measures, and the
errors found before the work.

The input it shares with ``report`` is tested in test_cli_inputs; --partitions and
--memory-budget on Parquet layouts in test_scale_parquet.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from support.cli import (
    MEASURES,
    assert_one_line_error,
    expected_rows,
    parquet_fixture,  # noqa: F401 (the fixture ``parquet``)
    parse_printed,
    refuse_work,
    run,
    table_fixture,  # noqa: F401 (the fixture ``table``)
    trec_files,
)
from support.tables import write_small_table

import polars_graded as pg
from polars_graded import cli, plan
from polars_graded.defaults import DEFAULT_MEASURES
from polars_graded.io.trec import QueriesMode

# --------------------------------------------------------------------------- a TABLE


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


def test_default_measures_and_no_by_give_one_row(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "one.parquet"
    table.filter(pl.col("system") == "a").drop("system").write_parquet(path)
    code, out, _ = run(["evaluate", str(path)], capsys)
    assert code == 0
    printed = parse_printed(out)
    assert printed[0] == ["num_q", *DEFAULT_MEASURES]
    assert len(printed) == 2
    assert printed[1][0] == "3"


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


# --------------------------------------------------------------------------- TREC files


@pytest.mark.parametrize("queries", ["qrels", "both", "all"])
def test_evaluate_trec_run_and_qrels(
    queries: QueriesMode, tmp_path: Path, capsys: pytest.CaptureFixture[str]
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
    assert expected[plan.SUMMARY_COUNT].item() == {"qrels": 3, "both": 2, "all": 4}[queries]


def test_evaluate_trec_by_tag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_file, qrels = trec_files(tmp_path)
    code, out, _ = run(
        ["evaluate", "--run", str(run_file), "--qrels", str(qrels), "-m", "ap", "--by", "tag"],
        capsys,
    )
    assert code == 0
    assert parse_printed(out)[0] == ["tag", "num_q", "ap"]
    assert parse_printed(out)[1][0] == "sysA"


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


# --------------------------------------------------------------------------- named measures


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


def test_a_measure_repeated_or_named_twice_on_the_command_line(
    parquet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``-m ap -m map`` is one column ap (the same name); ``x=ap`` is a column of its own."""
    out = tmp_path / "repeated.parquet"
    argv = ["evaluate", str(parquet), "--by", "system", "-o", str(out)]
    assert cli.main([*argv, "-m", "ap,x=p@1", "-m", "map", "-m", "first=ap,ap=ap"]) == 0
    got = pl.read_parquet(out)
    assert got.columns == ["system", "query", "ap", "x", "first"]
    assert got["ap"].to_list() == got["first"].to_list()


@pytest.mark.parametrize(
    ("measures", "words"),
    [("ap=rr,ap", "two measures are named 'ap'"), ("query=ap", "also a key column")],
)
def test_bad_measure_names_on_the_command_line(
    parquet: Path, measures: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["evaluate", str(parquet), "--by", "system", "-m", measures]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert words in err


# --------------------------------------------------------------------------- errors


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


def test_bad_output_extension_fails_before_work(
    parquet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "out.txt"
    result = run(["evaluate", str(parquet), "--by", "system", "-o", str(output)], capsys)
    assert_one_line_error(*result, "out.txt", ".parquet", ".csv", ".json", ".jsonl", "stdout")
    assert not output.exists()


@pytest.mark.parametrize("query_type", [pl.Int64, pl.String])
def test_json_output_reads_back_as_the_parquet_output(
    query_type: type[pl.DataType],
    table: pl.DataFrame,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """-o .json (an array of records), .jsonl and - (a record per line): Python's json module
    reads back the Parquet output's rows, every float to the last bit, keys in their type."""
    source = tmp_path / "runs.parquet"
    table.with_columns(pl.format("0{}", "query").cast(query_type)).write_parquet(source)
    args = ["evaluate", str(source), "-m", "mu_ap,ndcg@3,rr,num_rel", "--by", "system"]
    code, summary, _ = run([*args, "-o", str(tmp_path / "values.parquet")], capsys)
    assert code == 0
    rows = pl.read_parquet(tmp_path / "values.parquet").to_dicts()
    assert {type(row["query"]) for row in rows} == {query_type.to_python()}
    assert any(len(repr(row["ndcg@3"])) > 10 for row in rows)  # floats with many digits
    for suffix in (".json", ".jsonl"):
        assert run([*args, "-o", str(tmp_path / f"values{suffix}")], capsys) == (0, summary, "")
    text = (tmp_path / "values.jsonl").read_text()
    assert json.loads((tmp_path / "values.json").read_text()) == rows
    assert [json.loads(line) for line in text.splitlines()] == rows
    code, out, err = run([*args, "-o", "-"], capsys)
    assert (code, out, err) == (0, text, summary)  # stdout: the records only


def test_column_options_with_trec_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_file, qrels = trec_files(tmp_path)
    result = run(
        ["evaluate", "--run", str(run_file), "--qrels", str(qrels), "--score", "s"], capsys
    )
    assert_one_line_error(*result, "TABLE")


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


def test_spill_dir_holds_the_partitions_while_they_are_evaluated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from polars_graded.scale import spill

    path = write_small_table(tmp_path / "small.parquet")
    argv = ["evaluate", str(path), "-m", "ap,ndcg@5"]
    plain = run(argv, capsys)
    seen: list[Path] = []
    split = spill.split

    def watched(*args: Any, **kwargs: Any) -> AbstractContextManager[list[list[Path]]]:
        seen.append(Path(str(kwargs["spill_dir"])))
        return split(*args, **kwargs)

    monkeypatch.setattr(spill, "split", watched)
    folder = tmp_path / "spill"
    folder.mkdir()
    code, out, err = run([*argv, "--partitions", "3", "--spill-dir", str(folder)], capsys)
    assert (code, out, err) == (0, plain[1], "")
    assert seen == [folder]
    assert list(folder.iterdir()) == []  # the split is removed once evaluated
    missing = tmp_path / "nowhere"
    result = run([*argv, "--partitions", "3", "--spill-dir", str(missing)], capsys)
    assert_one_line_error(*result, str(missing))
