"""Hostile input files and options (issue 26, items 1, 12, 13b and 13c): nothing silently
wrong.

- A byte that is not UTF-8 in a TREC file is refused naming its line, never re-decoded (a
  latin-1 fallback made every UTF-8 id of the file stop matching the other file's).
- A CSV row missing a field is refused naming its line (Polars pads it with nulls); a
  ``nan`` or non-numeric score names its line; a header-only CSV evaluates to nothing.
- ``write_trec_run`` writes the frame's tag column back.
- ``--memory-budget -4GiB`` reaches the option's own check instead of "expected one
  argument".
"""

from __future__ import annotations

import argparse
import gzip
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from support.cli import assert_one_line_error, run

import polars_graded as pg
from polars_graded.cli import inputs
from polars_graded.errors import ColumnTypeError, InvalidValueError
from polars_graded.options import TableSpec

CAFE = "café".encode()  # UTF-8: two bytes for the é
RUN_LINES = [b"1 Q0 " + CAFE + b" 1 2.0 mine", b"2 Q0 caf\xe9 1 1.0 mine"]  # latin-1 é
QRELS_LINES = [b"1 0 " + CAFE + b" 1"]


def write_lines(path: Path, lines: list[bytes], *, gz: bool = False) -> Path:
    data = b"\n".join(lines) + b"\n"
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


# --------------------------------------------------------------------------- item 1: bytes


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize(
    ("reader", "lines"),
    [
        (pg.read_trec_run, [b"1 Q0 a 1 2.0 t", b"1 Q0 b 2 1.0 t", b"1 Q0 \xff\xfe 3 0.5 t"]),
        (pg.read_trec_qrels, [b"1 0 a 1", b"# caf\xe9", b"1 0 b 0"]),
    ],
)
def test_a_byte_that_is_not_utf8_is_refused_naming_its_line(
    tmp_path: Path, gz: bool, reader: Callable[[Path], pl.DataFrame], lines: list[bytes]
) -> None:
    path = write_lines(tmp_path / "file.txt", lines, gz=gz)
    bad = next(i for i, line in enumerate(lines, 1) if not line.isascii())
    with pytest.raises(InvalidValueError, match=f"line {bad}: byte 0x") as info:
        reader(path)
    assert "not UTF-8" in str(info.value)
    assert "file.txt" in str(info.value)
    assert "iconv" in str(info.value)  # the fix


def test_the_first_bad_byte_is_named_with_its_line_and_column(tmp_path: Path) -> None:
    lines = [b"1 Q0 " + CAFE + b" 1 2.0 t", b"", b"1 Q0 d2 2 1.5 t", b"2 Q0 d\xe92 1 9 t"]
    path = write_lines(tmp_path / "run.txt", [*lines, b"3 Q0 \xe9 1 1 t"])
    with pytest.raises(InvalidValueError, match=r"line 4: byte 0xE9 \(column 7\)"):
        pg.read_trec_run(path)


def test_latin1_on_request_matches_ids_byte_for_byte(tmp_path: Path) -> None:
    # Both files read as latin-1: the UTF-8 'café' is four characters in each, and equal.
    run_ = pg.read_trec_run(write_lines(tmp_path / "run", RUN_LINES), encoding="latin-1")
    qrels = pg.read_trec_qrels(write_lines(tmp_path / "qrels", QRELS_LINES), encoding="latin-1")
    joined = pg.join_run_qrels(run_, qrels)
    assert joined.graded.evaluate("ap").rows() == [("1", 1.0)]
    assert run_.get_column("item").to_list() == ["cafÃ©", "café"]  # every byte one char


def test_an_unknown_encoding_is_refused(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "run", RUN_LINES[:1])
    with pytest.raises(InvalidValueError, match="encoding must be one of"):
        pg.read_trec_run(path, encoding="cp1252")  # type: ignore[arg-type]


def test_trec_eval_refuses_a_file_with_a_byte_that_is_not_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # At ebcf277 the run fell back to latin-1, café stopped matching: map 0.0000, status 0.
    run_ = write_lines(tmp_path / "run.txt", RUN_LINES)
    qrels = write_lines(tmp_path / "qrels.txt", QRELS_LINES)
    code, out, err = run(["trec-eval", "-m", "map", str(qrels), str(run_)], capsys)
    assert_one_line_error(code, out, err, "run.txt, line 2", "not UTF-8")


def test_evaluate_refuses_a_file_with_a_byte_that_is_not_utf8(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_ = write_lines(tmp_path / "run.txt", RUN_LINES)
    qrels = write_lines(tmp_path / "qrels.txt", [*QRELS_LINES, b"2 0 caf\xe9 1"])
    argv = ["evaluate", "--run", str(run_), "--qrels", str(qrels), "-m", "ap"]
    code, out, err = run(argv, capsys)
    assert_one_line_error(code, out, err, "run.txt, line 2", "not UTF-8")
    utf8_run = write_lines(tmp_path / "utf8.txt", RUN_LINES[:1])
    code, out, err = run([*argv[:2], str(utf8_run), *argv[3:]], capsys)
    assert_one_line_error(code, out, err, "qrels.txt, line 2", "not UTF-8")


# --------------------------------------------------------------------------- item 12: CSV

HEADER = "query,item,score,relevance"


def evaluate_csv(
    tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str], suffix: str = ".csv"
) -> tuple[int, str, str]:
    path = tmp_path / f"table{suffix}"
    path.write_text(text.replace(",", "\t") if suffix == ".tsv" else text)
    return run(["evaluate", str(path), "-m", "ap"], capsys)


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_a_csv_row_missing_its_last_field_is_refused_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str
) -> None:
    # At ebcf277 the short row was an unjudged row: AP 1.0, status 0.
    text = f"{HEADER}\n1,a,1.0,1\n1,b,0.5\n"
    code, out, err = evaluate_csv(tmp_path, text, capsys, suffix)
    assert_one_line_error(code, out, err, f"table{suffix}, line 3", "3 field(s)", "has 4")


def test_a_blank_csv_line_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = evaluate_csv(tmp_path, f"{HEADER}\n1,a,1.0,1\n\n1,b,2,0\n", capsys)
    assert_one_line_error(code, out, err, "line 3: a blank line")


def test_quoted_fields_and_empty_fields_are_not_short_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A comma and a line break inside quotes, an empty (null) relevance: all four fields.
    text = f'{HEADER}\n1,"a,\nb",2.0,1\n1,c,1.0,\n1,"d""x",0.5,0\n1,e,0.2,1\n'
    code, out, err = evaluate_csv(tmp_path, text, capsys)
    assert (code, err) == (0, "")
    assert out.splitlines()[-1].split() == ["1", f"{(1 + 2 / 4) / 2:.4f}"]
    # ... and a short row after a quoted line break is named by the line it starts on.
    code, out, err = evaluate_csv(tmp_path, f'{HEADER}\n1,"a\nb",2.0,1\n1,c,1.0\n', capsys)
    assert_one_line_error(code, out, err, "line 4", "'1,c,1.0'")


def test_a_nan_score_names_its_line_and_nan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # At ebcf277: "column 'score' must be numeric, found String".
    code, out, err = evaluate_csv(tmp_path, f"{HEADER}\n1,a,1.0,1\n1,b,nan,0\n", capsys)
    assert_one_line_error(code, out, err, "table.csv, line 3", "'score' must not be NaN", "'nan'")
    assert "found String" not in err


def test_a_text_score_names_its_line_and_value(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text(f"{HEADER}\n1,a,1.0,1\n1,b,high,0\n")
    with pytest.raises(ColumnTypeError, match=r"t.csv, line 3: column 'score' .* 'high'"):
        inputs.read_table(path, ["query", "item"], numbers=["score", "relevance"])


def test_a_header_only_csv_gives_an_empty_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # docs/conventions.md §1: "An empty table gives an empty result"; at ebcf277 "found String".
    table, output = tmp_path / "empty.csv", tmp_path / "per_query.csv"
    table.write_text(f"{HEADER}\n")
    code, out, err = run(["evaluate", str(table), "-m", "ap,ndcg@5", "-o", str(output)], capsys)
    assert (code, err) == (0, "")
    assert out.splitlines()[0].split() == ["num_q", "ap", "ndcg@5"]
    assert pl.read_csv(output).height == 0


def test_reports_and_gates_read_the_csv_the_same_way(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text(f"system,{HEADER}\na,1,a,1.0,1\na,1,b,0.5\n")
    args = argparse.Namespace(table=str(path), run=None, qrels=None, queries=None)
    with pytest.raises(InvalidValueError, match="line 3"):
        inputs.systems_table(args, TableSpec(by=("system",)))


# --------------------------------------------------------------------------- item 13b: tag


def test_a_run_read_and_written_keeps_its_tags(tmp_path: Path) -> None:
    source = write_lines(
        tmp_path / "in.txt", [b"1 Q0 a 1 2.0 bm25", b"1 Q0 b 2 1.0 bm25", b"2 Q0 c 1 3.0 rm3"]
    )
    run_ = pg.read_trec_run(source)
    pg.write_trec_run(run_, tmp_path / "out.txt")
    back = pg.read_trec_run(tmp_path / "out.txt")
    assert back.rows() == run_.rows()  # at ebcf277 every tag was 'polars_graded'
    pg.write_trec_run(run_.lazy(), tmp_path / "mine.txt", tag="mine")  # the argument wins
    assert pg.read_trec_run(tmp_path / "mine.txt")["tag"].unique().to_list() == ["mine"]


@pytest.mark.parametrize("tag", [None, "", "two words", "tab\there"])
def test_a_tag_column_that_would_break_the_file_is_refused(tmp_path: Path, tag: str | None) -> None:
    frame = pl.DataFrame({"query": ["1", "1"], "item": ["a", "b"], "score": [1.0, 2.0]})
    frame = frame.with_columns(tag=pl.Series([tag, "ok"], dtype=pl.String))
    with pytest.raises(InvalidValueError, match="column 'tag'"):
        pg.write_trec_run(frame, tmp_path / "run.txt")
    assert not (tmp_path / "run.txt").exists()


# --------------------------------------------------------------------------- item 13c: options


@pytest.mark.parametrize(
    ("option", "value", "fragment"),
    [
        ("--memory-budget", "-4GiB", "memory budget must be a size"),
        ("--partitions", "-1e3", "whole number of at least 1"),
        ("--partitions", "-4", "at least 1, got -4"),
    ],
)
def test_a_negative_option_value_gets_the_options_own_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, value: str, fragment: str
) -> None:
    table = tmp_path / "t.parquet"
    pl.DataFrame({"query": [1], "item": ["a"], "score": [1.0], "relevance": [1]}).write_parquet(
        table
    )
    code, out, err = run(["evaluate", str(table), option, value], capsys)
    assert_one_line_error(code, out, err, f"argument {option}", fragment, value)
    assert "expected one argument" not in err


def test_an_option_is_not_taken_for_a_value(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["evaluate", "t.parquet", "--memory-budget", "-q"], capsys)
    assert_one_line_error(code, out, err, "--memory-budget: expected one argument")
