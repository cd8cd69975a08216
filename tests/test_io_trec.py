"""TREC files (polars_graded/io/trec.py): reading as trec_eval reads, writing runs that read
back, joining runs and qrels."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from support.trec_files import TrecFile, trec_files, write_trec_file

import polars_graded as pg
from polars_graded.errors import InvalidValueError, MissingColumnError
from polars_graded.io.trec import TrecKind
from polars_graded.io.trec_text import Encoding

RUN_SCHEMA = {
    "query": pl.String,
    "item": pl.String,
    "score": pl.Float64,
    "rank": pl.Int64,
    "tag": pl.String,
}
QRELS_SCHEMA = {
    "query": pl.String,
    "iteration": pl.String,
    "item": pl.String,
    "relevance": pl.Int64,
}


def write(path: Path, text: str, *, gz: bool = False) -> Path:
    data = text.encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


# --- read_trec_run -----------------------------------------------------------------------


def test_read_run_fields_whitespace_and_junk(tmp_path: Path) -> None:
    text = (
        "301\tQ0\tdoc-1\t1\t  2.5\tSTANDARD more junk at\r\n"
        "\n"
        "   \t \n"
        "  301 Q0 doc-2   2 -1e-3 STANDARD\n"
        "# a comment line\n"
        "   # an indented comment\n"
        "302 Q0 d#3 x 7 tag2"  # no final newline, '#' inside a doc id, rank not a number
    )
    run = pg.read_trec_run(write(tmp_path / "run", text))
    assert run.schema == pl.Schema(RUN_SCHEMA)
    assert run.rows() == [
        ("301", "doc-1", 2.5, 1, "STANDARD"),
        ("301", "doc-2", -0.001, 2, "STANDARD"),
        ("302", "d#3", 7.0, None, "tag2"),
    ]


@pytest.mark.parametrize("name", ["run.gz", "run.txt"])
def test_read_run_gzip_is_detected_by_magic_bytes(tmp_path: Path, name: str) -> None:
    text = "1 Q0 a 1 0.5 t\n1 Q0 b 2 0.25 t\n"
    plain = pg.read_trec_run(write(tmp_path / "plain", text))
    packed = pg.read_trec_run(write(tmp_path / name, text, gz=True))
    assert_frame_equal(plain, packed)
    # a plain file with a .gz name is still read as plain text
    assert_frame_equal(plain, pg.read_trec_run(write(tmp_path / "plain.gz", text)))


def test_read_run_empty_file(tmp_path: Path) -> None:
    run = pg.read_trec_run(write(tmp_path / "empty", "# only a comment\n\n"))
    assert run.height == 0
    assert run.schema == pl.Schema(RUN_SCHEMA)


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        ("301 Q0 doc 1 2.0", "6 fields"),
        ("301 Q0 doc 1 high tag", "not a number"),
    ],
)
def test_read_run_bad_line_names_file_line_and_text(tmp_path: Path, line: str, rule: str) -> None:
    path = write(tmp_path / "bad.run", f"301 Q0 a 1 1.0 t\n\n{line}\n301 Q0 b 2 0.5 t\n")
    with pytest.raises(InvalidValueError) as info:
        pg.read_trec_run(path)
    message = str(info.value)
    assert "bad.run" in message
    assert "line 3" in message
    assert line in message
    assert rule in message
    assert isinstance(info.value, ValueError)


# --- read_trec_qrels ---------------------------------------------------------------------


def test_read_qrels_comments_and_hash_in_doc_ids(tmp_path: Path) -> None:
    text = (
        "# comment here\n"
        "301 0 CR93E-10279 0\n"
        "  # indented comment\n"
        "301 0 msmarco_v2.1_doc_00_880019750#4_1633802806 2\n"
        "302\t1\tCR#93E-1860\t-1\n"
        "\n"
        "302 0 x 3.0\n"
    )
    qrels = pg.read_trec_qrels(write(tmp_path / "qrels", text))
    assert qrels.schema == pl.Schema(QRELS_SCHEMA)
    assert qrels.rows() == [
        ("301", "0", "CR93E-10279", 0),
        ("301", "0", "msmarco_v2.1_doc_00_880019750#4_1633802806", 2),
        ("302", "1", "CR#93E-1860", -1),
        ("302", "0", "x", 3),
    ]


def test_read_qrels_gzip(tmp_path: Path) -> None:
    text = "1 0 a 1\n1 0 b 0\n"
    assert_frame_equal(
        pg.read_trec_qrels(write(tmp_path / "q", text)),
        pg.read_trec_qrels(write(tmp_path / "q2", text, gz=True)),
    )


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        ("301 0 doc", "4 fields"),
        ("301 0 doc 1 extra", "4 fields"),
        ("301 0 doc high", "not an integer"),
        ("301 0 doc 1.5", "not an integer"),
        ("301 0 doc nan", "not an integer"),
        # Were raw Polars errors (the cast to Int64 overflowed).
        ("301 0 doc 1e30", "beyond"),
        ("301 0 doc 99999999999999999999", "beyond"),
        ("301 0 doc -9007199254740993", "beyond"),
    ],
)
def test_read_qrels_bad_line(tmp_path: Path, line: str, rule: str) -> None:
    path = write(tmp_path / "bad.qrels", f"# header\n301 0 a 1\n{line}\n")
    with pytest.raises(InvalidValueError) as info:
        pg.read_trec_qrels(path)
    message = str(info.value)
    assert "bad.qrels" in message
    assert "line 3" in message
    assert line in message
    assert rule in message


# --- damaged and odd files ---------------------------------------------------------------

RUN_TEXT = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 a 1 1.0 t\n"
QRELS_TEXT = "1 0 b 1\n2 0 a 2\n"
BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("reader", [pg.read_trec_run, pg.read_trec_qrels])
@pytest.mark.parametrize("damage", ["truncated", "corrupt", "header only"])
def test_damaged_gzip_is_an_input_error_naming_the_file(
    tmp_path: Path, reader: Callable[[Path], pl.DataFrame], damage: str
) -> None:
    text = RUN_TEXT if reader is pg.read_trec_run else QRELS_TEXT
    packed = gzip.compress(text.encode() * 50)
    data = {
        "truncated": packed[: len(packed) // 2],
        "corrupt": packed[:10] + bytes(20) + packed[30:],
        "header only": packed[:2] + b"garbage",
    }[damage]
    path = tmp_path / "broken.gz"
    path.write_bytes(data)
    with pytest.raises(pg.GradedError, match=r"broken\.gz") as info:
        reader(path)
    assert isinstance(info.value, pg.InputFileError)
    assert "gzip" in str(info.value)


@pytest.mark.parametrize("reader", [pg.read_trec_run, pg.read_trec_qrels])
def test_an_unreadable_path_is_an_input_error_naming_it(
    tmp_path: Path, reader: Callable[[Path], pl.DataFrame]
) -> None:
    (tmp_path / "folder").mkdir()
    for name, reason in (("missing.txt", "No such file"), ("folder", "directory")):
        with pytest.raises(pg.GradedError, match=name) as info:
            reader(tmp_path / name)
        assert isinstance(info.value, pg.InputFileError)
        assert reason in str(info.value)


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
@pytest.mark.parametrize("latin1", [False, True])
def test_a_byte_order_mark_and_crlf_do_not_change_the_first_query(
    tmp_path: Path, gz: bool, line_end: str, latin1: bool
) -> None:
    # latin1: a file read with encoding="latin-1" (a byte further on is not UTF-8) must
    # not keep the BOM as three characters either.
    extra = "3 Q0 caf\xe9 1 1.0 t\n" if latin1 else ""
    encoding: Encoding = "latin-1" if latin1 else "utf-8"
    run_text, qrels_text = (RUN_TEXT + extra).replace("\n", line_end), QRELS_TEXT
    run_bytes = BOM + run_text.encode("latin-1")
    qrels_bytes = BOM + qrels_text.replace("\n", line_end).encode()
    run_path, qrels_path = tmp_path / "run", tmp_path / "qrels"
    run_path.write_bytes(gzip.compress(run_bytes) if gz else run_bytes)
    qrels_path.write_bytes(gzip.compress(qrels_bytes) if gz else qrels_bytes)
    run = pg.read_trec_run(run_path, encoding=encoding)
    qrels = pg.read_trec_qrels(qrels_path, encoding=encoding)
    assert run.row(0) == ("1", "a", 2.0, 1, "t")
    assert qrels.row(0) == ("1", "0", "b", 1)
    plain_path = tmp_path / "plain"
    plain_path.write_bytes((RUN_TEXT + extra).encode("latin-1"))
    assert_frame_equal(run, pg.read_trec_run(plain_path, encoding=encoding))
    # query 1 is judged: b (relevant) at rank 2 gives AP 1/2; query 2: a at rank 1, AP 1
    joined = pg.join_run_qrels(run, qrels)
    assert joined.graded.evaluate("ap").sort("query").rows() == [("1", 0.5), ("2", 1.0)]


# --- write_trec_run ----------------------------------------------------------------------


def long_table() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "query": [2, 2, 2, 2, 10, 10, 10],
            "item": ["a", "b", "c", "d", "x", "y", "z"],
            "score": [1 / 3, 1e-20, None, 1 / 3, 123456.789012345, 5.0 + 1e-9, 5.0],
            "relevance": [1, 0, 2, None, 1, 1, 0],
        }
    )


def test_write_run_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "out.run"
    pg.write_trec_run(long_table(), path, tag="mine")
    lines = path.read_text().splitlines()
    assert len(lines) == 6  # the unretrieved row is not written
    assert all(len(line.split()) == 6 and line.split()[1] == "Q0" for line in lines)
    run = pg.read_trec_run(path)
    assert run["tag"].unique().to_list() == ["mine"]
    # scores read back exactly
    expected = long_table().filter(pl.col("score").is_not_null())
    got = run.select(pl.col("query").cast(pl.Int64), "item", "score")
    assert_frame_equal(got.sort("query", "item"), expected.drop("relevance").sort("query", "item"))
    # ranks follow trec_eval 10.0's order: score descending, compared as float64 (y's
    # 5 + 1e-9 above z's 5, which tie as float32 only), ties by item descending (d, a)
    ranks = {(q, i): r for q, i, r in run.select("query", "item", "rank").iter_rows()}
    assert [ranks["2", i] for i in ("d", "a", "b")] == [1, 2, 3]
    assert [ranks["10", i] for i in ("x", "y", "z")] == [1, 2, 3]


def test_write_run_gz_and_lazy_and_column_names(tmp_path: Path) -> None:
    frame = long_table().rename({"query": "q", "item": "doc", "score": "s"}).lazy()
    path = tmp_path / "out.run.gz"
    pg.write_trec_run(frame, path, query="q", item="doc", score="s")
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    run = pg.read_trec_run(path)
    assert run.height == 6
    assert run["tag"].unique().to_list() == ["polars_graded"]


def test_written_run_evaluates_like_the_table(tmp_path: Path) -> None:
    table = long_table().with_columns(pl.col("query").cast(pl.String))
    path = tmp_path / "run"
    pg.write_trec_run(table, path)
    qrels = table.filter(pl.col("relevance").is_not_null()).select("query", "item", "relevance")
    joined = pg.join_run_qrels(pg.read_trec_run(path), qrels, queries="all")
    measures = ["ap", "ndcg@2", "rr", "p@3", "mu_ap"]
    assert_frame_equal(
        joined.graded.evaluate(measures), table.graded.evaluate(measures), check_exact=True
    )


@pytest.mark.parametrize(
    ("change", "kwargs", "needle"),
    [
        ({"item": ["a b", "b", "c", "d", "x", "y", "z"]}, {}, "'a b'"),
        ({"item": ["", "b", "c", "d", "x", "y", "z"]}, {}, "item"),
        ({"score": [float("nan"), 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]}, {}, "NaN"),
        ({}, {"tag": "two words"}, "tag"),
        ({}, {"tag": ""}, "tag"),
    ],
)
def test_write_run_rejects_what_cannot_be_read_back(
    tmp_path: Path, change: dict[str, Any], kwargs: dict[str, Any], needle: str
) -> None:
    frame = long_table().with_columns(**{k: pl.Series(v) for k, v in change.items()})
    with pytest.raises(InvalidValueError, match=needle):
        pg.write_trec_run(frame, tmp_path / "run", **kwargs)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["1", "2", "q3"]),
            st.text("abcXYZ-_#.019", min_size=1, max_size=6),
            st.floats(allow_nan=False, allow_infinity=False, width=64),
        ),
        max_size=30,
        unique_by=lambda r: (r[0], r[1]),
    )
)
def test_write_read_round_trip_property(tmp_path: Path, rows: list[tuple[str, str, float]]) -> None:
    schema = {"query": pl.String, "item": pl.String, "score": pl.Float64}
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    path = tmp_path / "prop.run"
    pg.write_trec_run(frame, path)
    back = pg.read_trec_run(path).select("query", "item", "score")
    assert_frame_equal(back.sort("query", "item"), frame.sort("query", "item"), check_exact=True)


# --- join_run_qrels ----------------------------------------------------------------------


RUN = pl.DataFrame(
    {
        "query": ["1", "1", "2", "9"],
        "item": ["a", "u", "b", "z"],
        "score": [3.0, 2.0, 1.0, 0.5],
    }
)
QRELS = pl.DataFrame(
    {
        "query": ["1", "1", "2", "3"],
        "iteration": ["0"] * 4,
        "item": ["a", "c", "b", "d"],
        "relevance": [2, 1, 0, 1],
    }
)


def rows(frame: pl.DataFrame) -> set[tuple[Any, ...]]:
    return set(frame.iter_rows())


def test_join_default_keeps_the_judged_queries() -> None:
    joined = pg.join_run_qrels(RUN, QRELS)
    assert joined.columns == ["query", "item", "score", "relevance"]
    assert rows(joined) == {
        ("1", "a", 3.0, 2),  # retrieved and judged
        ("1", "u", 2.0, None),  # retrieved, unjudged
        ("1", "c", None, 1),  # judged, not retrieved
        ("2", "b", 1.0, 0),
        ("3", "d", None, 1),  # a judged query the run missed stays (it scores 0)
    }  # query 9 (not judged) is dropped


def test_join_both_keeps_queries_in_run_and_qrels() -> None:
    joined = pg.join_run_qrels(RUN, QRELS, queries="both")
    assert set(joined["query"]) == {"1", "2"}
    assert joined.height == 4


def test_join_all_keeps_every_query() -> None:
    joined = pg.join_run_qrels(RUN, QRELS, queries="all")
    assert set(joined["query"]) == {"1", "2", "3", "9"}
    assert ("9", "z", 0.5, None) in rows(joined)
    assert joined.height == 6


def test_join_missed_query_counts_as_zero() -> None:
    summary = {
        mode: pg.join_run_qrels(RUN, QRELS, queries=mode).graded.summary(["rr"]).row(0)
        for mode in ("qrels", "both")
    }
    assert summary["qrels"] == (3, pytest.approx(1 / 3))  # queries 1, 2 (no relevant), 3
    assert summary["both"] == (2, pytest.approx(1 / 2))


def test_join_by_system_copies_the_judgments() -> None:
    run = pl.concat(
        [
            RUN.with_columns(system=pl.lit("A")),
            pl.DataFrame(
                {"query": ["3"], "item": ["d"], "score": [1.0], "system": ["B"]},
            ),
        ]
    )
    joined = pg.join_run_qrels(run, QRELS, by="system")
    assert joined.columns == ["query", "item", "score", "relevance", "system"]
    # every system has every judgment, once
    judged = joined.filter(pl.col("relevance").is_not_null())
    for system in ("A", "B"):
        mine = judged.filter(pl.col("system") == system).select("query", "item", "relevance")
        assert_frame_equal(
            mine.sort("query", "item"), QRELS.drop("iteration").sort("query", "item")
        )
    assert ("3", "d", 1.0, 1, "B") in rows(joined)
    assert ("3", "d", None, 1, "A") in rows(joined)
    assert ("1", "a", None, 2, "B") in rows(joined)
    # "both" is per system: A keeps 1 and 2, B keeps 3 only
    both = pg.join_run_qrels(run, QRELS, by=["system"], queries="both")
    pairs = set(both.select("system", "query").unique().iter_rows())
    assert pairs == {("A", "1"), ("A", "2"), ("B", "3")}


def test_join_lazy_returns_lazy() -> None:
    # Any: a run of either kind, which join_run_qrels's type variable binds one at a time
    pairs: list[tuple[Any, pl.DataFrame | pl.LazyFrame]] = [
        (RUN.lazy(), QRELS),
        (RUN, QRELS.lazy()),
        (RUN.lazy(), QRELS.lazy()),
    ]
    for run, qrels in pairs:
        joined = pg.join_run_qrels(run, qrels, queries="all")
        assert isinstance(joined, pl.LazyFrame)
        expected = pg.join_run_qrels(RUN, QRELS, queries="all")
        assert_frame_equal(joined.collect(), expected, check_row_order=False)


def test_join_errors() -> None:
    with pytest.raises(MissingColumnError, match="score"):
        pg.join_run_qrels(RUN.drop("score"), QRELS)
    with pytest.raises(MissingColumnError, match="relevance"):
        pg.join_run_qrels(RUN, QRELS.drop("relevance"))
    with pytest.raises(MissingColumnError, match="system"):
        pg.join_run_qrels(RUN, QRELS, by="system")
    with pytest.raises(pg.ColumnTypeError, match="query"):
        pg.join_run_qrels(RUN.with_columns(pl.col("query").cast(pl.Int64)), QRELS)
    with pytest.raises(ValueError, match="queries"):
        pg.join_run_qrels(RUN, QRELS, queries="run")  # type: ignore[arg-type]


# --- trec_to_parquet: the file in batches of lines -----------------------------------------

# A batch of 1 byte is a line per batch; 40 bytes cut lines of a query apart (the lines
# here are 14 to 30 bytes); the default reads these files in one batch, as read_trec_run.
BATCHES = [1, 40, pg.io.trec_text.BATCH_BYTES]


def converted(path: Path, kind: TrecKind, batch_bytes: int, **options: Any) -> pl.DataFrame:
    out = pg.trec_to_parquet(path, path.with_name("out.parquet"), kind=kind, **options,
                             batch_bytes=batch_bytes)  # fmt: skip
    return pl.read_parquet(out)


# Single-spaced lines (the fast split) in the first half, tabs, runs of blanks, CR, comments
# and blank lines (the exact match) in the second; query 2 spans both halves.
MIXED_RUN = (
    "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.5 t extra fields\n2 Q0 a 1 3 t\n2 Q0 c 2 2.5 t\n"
    "2\tQ0 d  3 2.25 t\r\n\n  # comment\n   \n2 Q0 b 4 -1e3 t\n#x\n3 Q0 x nan 1.0 t"
)
MIXED_QRELS = "1 0 a 1\n1 0 b 0\n2 0 d 2\n# c\n\n2\t0  c 3\r\n3 0 y -1\n"


@pytest.mark.parametrize("batch_bytes", BATCHES)
@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("bom", [False, True])
def test_converted_file_is_the_file_read_whole(
    tmp_path: Path, batch_bytes: int, gz: bool, bom: bool
) -> None:
    cases: list[tuple[TrecKind, str, Callable[[Path], pl.DataFrame]]] = [
        ("run", MIXED_RUN, pg.read_trec_run),
        ("qrels", MIXED_QRELS, pg.read_trec_qrels),
    ]
    for kind, text, reader in cases:
        path = write_trec_file(tmp_path / kind, text, bom=bom, compress=gz)
        whole = reader(path)
        assert_frame_equal(converted(path, kind, batch_bytes), whole, check_exact=True)
    # read whole, as written above (the hand-made expectation, independent of batches)
    assert pg.read_trec_run(write_trec_file(tmp_path / "r", MIXED_RUN)).rows() == [
        ("1", "a", 2.0, 1, "t"), ("1", "b", 1.5, 2, "t"), ("2", "a", 3.0, 1, "t"),
        ("2", "c", 2.5, 2, "t"), ("2", "d", 2.25, 3, "t"), ("2", "b", -1000.0, 4, "t"),
        ("3", "x", 1.0, None, "t"),
    ]  # fmt: skip


BadCase = tuple[TrecKind, str, int, str, int]
"""A file with bad lines: kind, text, the line named, the rule, the number of bad lines."""


@pytest.mark.parametrize("batch_bytes", BATCHES)
@pytest.mark.parametrize(
    "case",
    [
        # in the first batch; the second rule's bad line before it does not count
        ("run", "1 Q0 a 1 x t\n1 Q0 b 2\n" + MIXED_RUN, 2, "6 fields", 1),
        # in a later batch, two of them: the first one is named, both are counted
        ("run", MIXED_RUN + "\n4 Q0 a 1 high t\n4 Q0 b 2 low t\n", 12, "not a number", 2),
        ("qrels", MIXED_QRELS + "9 0 z 1.5\n9 0 y 1 extra\n", 9, "4 fields", 1),
        ("qrels", "1 0 a 1\n2 0 b 1e30\n" + MIXED_QRELS, 2, "beyond", 1),
    ],
)
def test_a_bad_line_is_the_same_error_at_its_line_of_the_file(
    tmp_path: Path, batch_bytes: int, case: BadCase
) -> None:
    kind, text, line, rule, count = case
    path = write_trec_file(tmp_path / "bad.txt", text, crlf=batch_bytes == 1)
    reader = pg.read_trec_run if kind == "run" else pg.read_trec_qrels
    with pytest.raises(InvalidValueError) as whole:
        reader(path)
    with pytest.raises(InvalidValueError) as streamed:
        converted(path, kind, batch_bytes)
    assert str(streamed.value) == str(whole.value)
    bad_line = text.split("\n")[line - 1].strip()
    assert f"bad.txt, line {line}: " in str(whole.value)
    assert f"({count} bad line(s)); line {line} is {bad_line!r}" in str(whole.value)
    assert rule in str(whole.value)
    assert list(tmp_path.iterdir()) == [path]  # no Parquet file left behind


@pytest.mark.parametrize("batch_bytes", BATCHES)
def test_a_byte_not_utf8_in_a_later_batch_names_its_line(tmp_path: Path, batch_bytes: int) -> None:
    data = (MIXED_RUN + "\n5 Q0 caf").encode() + b"\xe9 1 1.0 t\n"
    path = tmp_path / "latin.txt"
    path.write_bytes(data)
    with pytest.raises(InvalidValueError) as streamed:
        converted(path, "run", batch_bytes)
    assert "latin.txt, line 12: byte 0xE9 (column 9) is not UTF-8" in str(streamed.value)
    latin = converted(path, "run", batch_bytes, encoding="latin-1")
    assert latin.row(-1) == ("5", "caf\xe9", 1.0, 1, "t")


@pytest.mark.parametrize("batch_bytes", BATCHES)
def test_a_damaged_gzip_stream_is_reported_before_a_bad_line(
    tmp_path: Path, batch_bytes: int
) -> None:
    packed = gzip.compress(("1 Q0 a 1 2.0\n" + RUN_TEXT * 40).encode())  # line 1 is short
    path = tmp_path / "cut.gz"
    path.write_bytes(packed[: len(packed) - 20])
    with pytest.raises(pg.InputFileError, match=r"cut\.gz: not a readable gzip file"):
        converted(path, "run", batch_bytes)


@pytest.mark.parametrize("text", ["", "# only a comment\n\n", "\n \n"])
def test_an_empty_file_gives_an_empty_table_with_the_columns(tmp_path: Path, text: str) -> None:
    path = write_trec_file(tmp_path / "empty.txt", text, compress=True)
    assert_frame_equal(converted(path, "run", 1), pl.DataFrame(schema=RUN_SCHEMA))
    assert_frame_equal(converted(path, "qrels", 1), pl.DataFrame(schema=QRELS_SCHEMA))


def test_trec_to_parquet_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    path = write_trec_file(tmp_path / "run.txt", RUN_TEXT)
    with pytest.raises(InvalidValueError, match=r"no folder .*nowhere"):
        pg.trec_to_parquet(path, tmp_path / "nowhere" / "run.parquet")
    with pytest.raises(InvalidValueError, match="kind must be one of"):
        pg.trec_to_parquet(path, tmp_path / "run.parquet", kind="runs")  # type: ignore[arg-type]
    with pytest.raises(InvalidValueError, match="batch_bytes must be a positive integer"):
        pg.trec_to_parquet(path, tmp_path / "run.parquet", batch_bytes=0)
    with pytest.raises(pg.InputFileError, match=r"missing\.txt"):
        pg.trec_to_parquet(tmp_path / "missing.txt", tmp_path / "run.parquet")
    assert list(tmp_path.iterdir()) == [path]


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(kind=st.sampled_from(["run", "qrels"]), batch_bytes=st.integers(1, 60), data=st.data())
def test_any_file_converts_as_it_reads_whole(
    tmp_path: Path, kind: TrecKind, batch_bytes: int, data: st.DataObject
) -> None:
    """Drawn files (hostile lines, BOM, CRLF, gzip, truncated gzip): the same table or the
    same error, whatever the batches."""
    f: TrecFile = data.draw(trec_files(kind=kind))
    path = f.write(tmp_path / "drawn.txt")
    reader = pg.read_trec_run if kind == "run" else pg.read_trec_qrels
    try:
        whole = reader(path)
    except pg.GradedError as error:
        with pytest.raises(type(error)) as streamed:
            converted(path, kind, batch_bytes)
        assert str(streamed.value) == str(error)
        return
    assert_frame_equal(converted(path, kind, batch_bytes), whole, check_exact=True)
