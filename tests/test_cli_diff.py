"""``polars-graded diff`` (polars_graded/cli/diff.py): the printed lines on a table small
enough to check by hand, ``-o``, segments and weights, and one-line errors.

Each query of the table has one relevant item, so RR is 1 / its rank, by hand; the
numbers from Python are tested in test_stats_diff.py.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from support.cli import assert_one_line_error, run

import polars_graded as pg


def rr_table() -> pl.DataFrame:
    """Systems a and b, queries 1-3, items x, y, z; the relevant item (label 2) is at rank
    (a, b): query 1 (3, 1), query 2 (1, 2), query 3 (1, 1). Query 3 is in segment "tail"."""
    ranks = {("a", 1): 3, ("b", 1): 1, ("a", 2): 1, ("b", 2): 2, ("a", 3): 1, ("b", 3): 1}
    rows = []
    for (system, query), rank in ranks.items():
        for position, item in enumerate(["x", "y", "z"], start=1):
            relevant = position == rank
            rows.append(
                {
                    "system": system,
                    "query": query,
                    "item": "rel" if relevant else item,
                    "score": 4.0 - position,
                    "relevance": 2 if relevant else 0,
                    "part": "tail" if query == 3 else "head",
                    "traffic": float(query),
                }
            )
    return pl.DataFrame(rows)


@pytest.fixture(name="runs")
def runs_fixture(tmp_path: Path) -> Path:
    path = tmp_path / "runs.parquet"
    rr_table().write_parquet(path)
    return path


def args(runs: Path, *extra: str) -> list[str]:
    return ["diff", str(runs), "--baseline", "a", "--candidate", "b", "-m", "rr", *extra]


def test_prints_the_change_queries_and_items(
    runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(args(runs), capsys)
    # RR by hand: a = (1/3, 1, 1), b = (1, 1/2, 1); the mean moves by (2/3 - 1/2) / 3.
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "rr: a 0.7778 -> b 0.8333 (+0.0556) over 3 queries",
        "  the 3 queries that moved it most (contribution to the change of the mean, its share):",
        "    query 1: 0.3333 -> 1.0000 (+0.6667), contribution +0.2222, share 400.0%",
        "      item 'rel' (label 2): rank 3 -> 1 (up 2)",
        "    query 2: 1.0000 -> 0.5000 (-0.5000), contribution -0.1667, share -300.0%",
        "      item 'rel' (label 2): rank 1 -> 2 (down 1)",
        "    query 3: 1.0000 -> 1.0000 (+0.0000), contribution +0.0000, share 0.0%",
    ]


def test_segments_weights_and_output(
    runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_path = tmp_path / "moved.csv"
    extra = ("--segment", "part", "--weight", "traffic", "--top", "2", "-o", str(out_path))
    code, out, err = run(args(runs, *extra), capsys)
    assert (code, err) == (0, "")
    # Weighted by traffic 1, 2, 3: a (1/3 + 2 + 3) / 6, b (1 + 1 + 3) / 6.
    lines = out.splitlines()
    assert lines[0] == "rr: a 0.8889 -> b 0.8333 (-0.0556) over 3 queries, weighted by traffic"
    assert lines[2].startswith("    query 2: 1.0000 -> 0.5000 (-0.5000), contribution -0.1667")
    assert lines[-3:] == [
        "  per segment of part (largest contribution first):",
        "    head: 2 queries, -0.1111 within, contribution -0.0556, share 100.0%",
        "    tail: 1 queries, +0.0000 within, contribution +0.0000, share 0.0%",
    ]
    written = pl.read_csv(out_path)
    assert written.columns[:3] == ["measure", "query", "traffic"]
    per_query = pg.evaluate(rr_table(), ["rr"], by="system")
    reference = pg.compare(per_query, ["rr"], baseline="a", trials=10, bootstrap=10)
    unweighted = reference.filter(system="b")["diff"].item()
    changes = written.sort("query")["change"].to_list()
    assert changes == pytest.approx([2 / 3, -0.5, 0.0])
    assert sum(changes) / 3 == pytest.approx(unweighted)


@pytest.mark.parametrize(
    ("extra", "fragments"),
    [
        (("--baseline", "x"), ("--baseline 'x' is not a system", "['a', 'b']")),
        (("--candidate", "a"), ("must differ, both are 'a'",)),
        (("-m", "nope"), ("nope",)),
        (("--segment", "lang"), ("segment column(s) ['lang'] not found",)),
        (("--weight", "score"), ("weight column 'score' must be the same on every row",)),
        (("-o", "out.txt"), ("-o out.txt: expected a file ending in .parquet or .csv",)),
        (("--top", "0"), ("--top",)),
    ],
)
def test_bad_input_is_one_line(
    runs: Path,
    extra: tuple[str, ...],
    fragments: tuple[str, ...],
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = args(runs)
    for option, value in zip(extra[::2], extra[1::2], strict=True):
        if option in argv:
            argv[argv.index(option) + 1] = value
        else:
            argv += [option, value]
    code, out, err = run(argv, capsys)
    assert_one_line_error(code, out, err, *fragments)


def test_help_lists_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--help"], capsys)
    assert code == 0
    assert "diff" in out
