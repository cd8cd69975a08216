"""utility (polars_graded/measures/set_utility.py), trec_eval's set utility: by hand, against
pytrec_eval per query on a random table (default and other coefficients), against trec_eval
10.0's outputs, and the parameter checks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from support.trec_eval import (
    PRINTED,
    mismatches,
    ours_on_files,
    pytrec_values,
    random_table,
    trec_eval_10,
)

import polars_graded as pg
from polars_graded.errors import MeasureParameterError


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return random_table(7)


def test_utility_by_hand() -> None:
    """N = 4 (labels 1, 0, unjudged, 2), R = 3: n = 2, N - n = 2, R - n = 1;
    with D = 100: D + n - N - R = 95."""
    df = pl.DataFrame(
        {"query": [1] * 5, "item": list("abcde"), "score": [4.0, 3.0, 2.0, 1.0, None],
         "relevance": [1, 0, None, 2, 1]}
    )  # fmt: skip
    expected = {
        "utility": 2 - 2,
        "utility(coefficients=[2,-1,-0.5,0])": 4 - 2 - 0.5,
        "utility(coefficients=[0,0,0,1],n_docs=100)": 95,
        "utility(rel=2)": 1 - 3,
    }
    for ties in ("trec_eval", "average"):
        got = df.graded.evaluate(list(expected), ties=ties).row(0, named=True)
        assert {m: got[m] for m in expected} == expected


@pytest.mark.parametrize("rel", [1, 2])
def test_utility_equals_pytrec_eval(table: pl.DataFrame, rel: int) -> None:
    # a query nobody judged is not trec_eval's; here it scores b N like any other
    assert not mismatches(table, pytrec_values(table, {"utility"}, rel), skipped_zero=False)


@pytest.mark.parametrize("coefficients", ["2,-1,0,0", "1,-3,-0.5,0.25"])
def test_utility_with_coefficients_equals_pytrec_eval(
    table: pl.DataFrame, coefficients: str
) -> None:
    expected = pytrec_values(table, set(), 1, utility=coefficients)
    assert any(values[f"utility(coefficients=[{coefficients}])"] for values in expected.values())
    assert not mismatches(table, expected, skipped_zero=False)


def test_utility_equals_trec_eval_10(shared_data: Callable[[str], Path]) -> None:
    for out, qrels, rel in [
        ("out.test.aq", "qrels.test", 1),
        ("out.test.aql", "qrels.rel_level", 2),
        ("out.test.meas_params", "qrels.test", 1),
    ]:
        expected = trec_eval_10(
            shared_data,
            out,
            qrels,
            "results.test",
            wanted=lambda n: n.startswith("utility"),
            rel=rel,
        )
        assert len(expected) == 3
        ours = ours_on_files(shared_data, qrels, "results.test", {m for _, m in expected})
        assert {k: ours[k] for k in expected} == pytest.approx(expected, abs=PRINTED)


def test_coefficients_are_checked() -> None:
    with pytest.raises(MeasureParameterError, match="list of four numbers"):
        pg.Utility(coefficients=[1, 2, 3])
    with pytest.raises(MeasureParameterError, match="'n_docs' must be a whole number >= 0"):
        pg.Utility(n_docs=-1)
    assert str(pg.parse_measure("utility(coefficients=[1,-1,0,0])")) == "utility"
