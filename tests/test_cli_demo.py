"""``polars-graded demo`` (polars_graded/cli/demo.py): the paper's artificial experiment
(§2.1) as three tables, and an explanation that claims only what its numbers show."""

from __future__ import annotations

import polars as pl
import pytest
from support.cli import run

from polars_graded.cli import demo


def test_demo_prints_the_three_tables(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["demo", "--runs", "3", "--seed", "1"], capsys)
    assert (code, err) == (0, "")
    for label in demo.DEMO_MEASURES.values():
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
    table = demo.demo_table(runs=4, seed=3)
    assert table.columns == ["levels", "swaps", *demo.DEMO_MEASURES]
    assert table.height == 4 * 7
    at_zero = table.filter(pl.col("swaps") == 0)
    for name in demo.DEMO_MEASURES:
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
    text = demo.demo_explanation(flat)
    assert "not clearly apart" in text
    assert "much less" not in text
    apart = flat.with_columns(
        mean_ndcg=pl.Series([1.0, 1.0, 0.7, 0.3]), mu_ap=pl.Series([1.0, 1.0, 0.5, 0.52])
    ).with_columns(mean_ndcng=pl.Series([1.0, 1.0, 0.6, 0.62]))
    text = demo.demo_explanation(apart)
    assert "much less" in text
    assert "lower the more levels" in text
    assert "every measure is 1" in text
