"""Hostile input to ``polars-graded trec-eval`` (issue 26, items 4 and 8), in process.

The contract: the text trec_eval 10.0 prints (``relstring``'s characters, ``runid`` the
last line's tag, ``rbp``'s and ``set_F``'s parameters), and for anything trec_eval's
format cannot carry (a null tag, a tag or a query id holding a tab, a line break or a
Unicode separator) or a parameter that is not a number of the measure's kind and range:
exit 2, one line on stderr starting ``polars-graded: error:``, nothing on stdout, so that
no line of the output is ever forged, skipped or cut down.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from support.cli import run

# Labels -3, -2 and -1 are all "in the pool, unjudged" for trec_eval (form_res_rels.c);
# x is not in the qrels at all; e's label is above 9; f is judged but not retrieved.
QRELS = "1 0 a -3\n1 0 b -2\n1 0 c -1\n1 0 d 0\n1 0 e 12\n1 0 f 1\n"
RUN = "1 Q0 a 1 7 first\n1 Q0 b 2 6 first\n1 Q0 c 3 5 first\n1 Q0 d 4 4 first\n"
RUN += "1 Q0 e 5 3 first\n1 Q0 x 6 2 last\n"

# binary labels: trec_eval's rbp gains are the labels, no scaling
BINARY_QRELS = "1 0 r1 1\n1 0 r2 1\n1 0 n1 0\n"
BINARY_RUN = "1 Q0 r1 1 3 t\n1 Q0 n1 2 2 t\n1 Q0 r2 3 1 t\n1 Q0 u 4 0.5 t\n"


def files(tmp_path: Path, qrels: str = QRELS, run_: str = RUN) -> list[str]:
    (tmp_path / "qrels.txt").write_text(qrels, encoding="utf-8")
    (tmp_path / "run.txt").write_text(run_, encoding="utf-8")
    return [str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")]


def parquet_run(tmp_path: Path, tags: list[str | None], queries: list[str] | None = None) -> str:
    path = tmp_path / "run.parquet"
    n = len(tags)
    pl.DataFrame(
        {
            "query": queries or ["1"] * n,
            "item": [f"d{i}" for i in range(n)],
            "score": [float(n - i) for i in range(n)],
            "tag": tags,
        },
        schema_overrides={"tag": pl.String},
    ).write_parquet(path)
    return str(path)


def lines_of(out: str) -> dict[tuple[str, str], str]:
    """{(measure, query): value} of trec_eval's lines."""
    found = {}
    for line in out.splitlines():
        measure, query, value = line.split("\t")
        found[measure.strip(), query] = value
    return found


def assert_usage_error(code: int, out: str, err: str, *words: str) -> None:
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith("polars-graded: error: ")
    for word in words:
        assert word in err


# --------------------------------------------------------------------------- item 4


def test_relstring_prints_a_dot_for_every_negative_label(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["trec-eval", "-q", "-m", "relstring", *files(tmp_path)], capsys)
    assert code == 0, err
    # m_relstring.c: a label < 0 in the qrels is RELVALUE_UNJUDGED, printed '.'; '<' is
    # for values form_res_rels never gives
    assert lines_of(out)["relstring", "1"] == "'...0>-'"


def test_relstring_under_j_keeps_the_labels_from_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["trec-eval", "-q", "-J", "-m", "relstring", *files(tmp_path)], capsys)
    assert code == 0, err
    assert lines_of(out)["relstring", "1"] == "'0>'"


def test_runid_is_the_last_lines_tag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["trec-eval", "-m", "runid", *files(tmp_path)], capsys)
    assert code == 0, err
    assert out.splitlines() == ["runid                 \tall\tlast"]


def test_a_parquet_runs_runid_is_its_last_rows_tag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = files(tmp_path)[0]
    run_ = parquet_run(tmp_path, ["first", None, "last"])
    code, out, err = run(["trec-eval", "-m", "runid", qrels, run_], capsys)
    assert code == 0, err
    assert out.splitlines() == ["runid                 \tall\tlast"]


def test_a_null_tag_in_the_last_row_is_refused_naming_the_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = files(tmp_path)[0]
    run_ = parquet_run(tmp_path, ["first", None])
    code, out, err = run(["trec-eval", "-m", "runid", "-m", "map", qrels, run_], capsys)
    assert_usage_error(code, out, err, "row 2", "null tag")
    # runid not asked for: the tag is never printed, so it does not matter
    code, out, err = run(["trec-eval", "-m", "map", qrels, run_], capsys)
    assert code == 0, err
    assert [line.split()[0] for line in out.splitlines()] == ["map"]


@pytest.mark.parametrize(
    "tag",
    ["a\tb", "bm25\nmap                   \tall\t1.0000", "a b", "a\u2028b", "a\x1cb", "a\rb", ""],
)
def test_a_tag_that_would_break_a_line_is_refused(
    tag: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qrels = files(tmp_path)[0]
    run_ = parquet_run(tmp_path, ["ok", tag])
    code, out, err = run(["trec-eval", "-q", qrels, run_], capsys)
    assert_usage_error(code, out, err, "row 2", "runid", repr(tag))


def test_a_query_id_that_would_break_a_line_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # U+2028 is not whitespace to C's isspace (trec_eval and our reader keep it in the id),
    # but Python's splitlines() ends a line there
    query = "1\u2028map"
    args = files(tmp_path, f"{query} 0 a 1\n", f"{query} Q0 a 1 1.0 t\n")
    code, out, err = run(["trec-eval", "-q", "-m", "map", *args], capsys)
    assert_usage_error(code, out, err, "query id", repr(query))
    code, out, err = run(["trec-eval", "-m", "map", *args], capsys)  # no -q: not printed
    assert (code, out) == (0, "map                   \tall\t1.0000\n"), err


# --------------------------------------------------------------------------- item 8


@pytest.mark.parametrize(
    ("measure", "line", "value"),
    [
        # (1 - p) * (1 + p^2): r1 at rank 1, r2 at rank 3
        ("rbp.p=0.8", "rbp_p=0.8", f"{0.2 * (1 + 0.8**2):6.4f}"),
        # p^4 (beyond the ranking) + (1 - p) p^3 (u, unjudged, at rank 4)
        ("rbp_resid.p=0.5", "rbp_resid_p=0.5", f"{0.5**4 + 0.5 * 0.5**3:6.4f}"),
        # P = 2/4, R = 2/2: (x + 1) P R / (x P + R)
        ("set_F.2", "set_F_2", f"{3 * 0.5 / (2 * 0.5 + 1):6.4f}"),
    ],
)
def test_parameters_are_computed_not_skipped(
    measure: str, line: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = files(tmp_path, BINARY_QRELS, BINARY_RUN)
    code, out, err = run(["trec-eval", "-m", measure, *args], capsys)
    assert (code, err) == (0, "")
    assert out.splitlines() == [f"{line:<22}\tall\t{value}"]


BAD_PARAMETERS = [
    "utility.abc",
    "utility.1,2",  # utility takes four coefficients
    "utility.1_0,0,0,0",  # Python's float() reads 1_0; trec_eval's atof does not
    "utility.1,-1,0,0\nmap\tall\t1.0000",  # would print a forged line
    "set_F.x",
    "set_F.-1",
    "iprec_at_recall.nan",
    "iprec_at_recall.1.5",
    "Rprec_mult.-1",
    "relstring.-2",
    "11pt_avg.abc",
    "11pt_avg.inf",
    "P.5x",
    "P.1e3",
    "P.5\tx",
    "ndcg_cut.1_0",
    "ndcg.-1=2",  # trec_eval would give the gain to rows outside the qrels
    "rbp.p=2",
    "rbp.x=1",
    "rbp.1=3",  # rbp's gains: trec_eval 10.0 scales them with uninitialised variables
    "rbp_resid.q=0.5",
]


@pytest.mark.parametrize("measure", BAD_PARAMETERS)
def test_a_bad_parameter_is_a_usage_error(
    measure: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["trec-eval", "-q", "-m", measure, *files(tmp_path)], capsys)
    assert_usage_error(code, out, err, f"-m {measure.splitlines()[0]}")
