"""RBP and its residual (polars_graded/measures/rbp.py): Moffat and Zobel's formulas by hand,
and their parameter errors.

Also checked against the oracle (tests/oracle.py) on random tables (test_bruteforce) and
under every tie policy (test_ties).
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_graded as pg


def test_rbp_and_its_residual_by_hand() -> None:
    """Ranked labels 1, 0, unjudged, 2 with p = 0.5: RBP = (1 - p)(p^0 + p^3) = 0.5625;
    at rel=2 only the last counts, (1 - p) p^3 = 0.0625. The residual: the unjudged row's
    weight (1 - p) p^2 plus p^4 beyond the ranking = 0.1875; at depth 2 nothing unjudged,
    p^2 = 0.25 beyond."""
    df = pl.DataFrame(
        {"query": [1] * 4, "item": ["a", "b", "c", "d"], "score": [4.0, 3.0, 2.0, 1.0],
         "relevance": [1, 0, None, 2]}
    )  # fmt: skip
    measures = ["rbp(p=0.5)", "rbp(p=0.5,rel=2)", "rbp(p=0.5)@2"]
    measures += ["rbp_residual(p=0.5)", "rbp_residual(p=0.5)@2"]
    got = df.graded.evaluate(measures).row(0, named=True)
    assert got["rbp(p=0.5)"] == 0.5625
    assert got["rbp(p=0.5,rel=2)"] == 0.0625
    assert got["rbp(p=0.5)@2"] == 0.5
    assert got["rbp_residual(p=0.5)"] == 0.1875
    assert got["rbp_residual(p=0.5)@2"] == 0.25


@pytest.mark.parametrize(
    ("text", "words"),
    [("rbp(p=1.5)", "between 0 and 1"), ("rbp_residual(p=0)", "between 0 and 1")],
)
def test_bad_parameters(text: str, words: str) -> None:
    with pytest.raises(pg.MeasureParameterError, match=words):
        pg.parse_measure(text)
