"""set_f and set_ap (polars_graded/measures/sets.py), with set_P, set_recall and
set_relative_P (p, recall, relative_p without a cutoff): by hand, against pytrec_eval per
query on a random table, against trec_eval 10.0's outputs, under every tie policy."""

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

SET_MEASURES = {"set_P", "set_recall", "set_relative_P", "set_map", "set_F"}


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return random_table(1616)


def test_set_measures_by_hand() -> None:
    """N = 4 retrieved (labels 1, 0, unjudged, 2), R = 3 (one unretrieved): n = 2,
    P = 1/2, recall = 2/3; F = 2 P R / (P + R) = 4/7; beta = 2: 3 P R / (2 P + R) = 3/5;
    set_ap = 4 / 12; relative P = 2 / min(4, 3)."""
    df = pl.DataFrame(
        {"query": [1] * 5, "item": list("abcde"), "score": [4.0, 3.0, 2.0, 1.0, None],
         "relevance": [1, 0, None, 2, 1]}
    )  # fmt: skip
    expected = {
        "set_f": 4 / 7, "set_f(beta=2)": 3 / 5, "set_ap": 4 / 12, "relative_p": 2 / 3,
        "p": 1 / 2, "recall": 2 / 3, "set_f(rel=2)": 2 * (1 / 4) * 1 / (1 / 4 + 1),
    }  # fmt: skip
    for ties in ("trec_eval", "average", "pessimistic"):
        got = df.graded.evaluate(list(expected), ties=ties).row(0, named=True)
        assert {m: got[m] for m in expected} == pytest.approx(expected, abs=1e-15)


def test_nothing_relevant_retrieved_scores_zero() -> None:
    df = pl.DataFrame({"query": [1, 1], "item": ["a", "b"], "score": [1.0, None],
                       "relevance": [0, 1]})  # fmt: skip
    got = df.graded.evaluate(["set_f", "set_ap", "set_f(beta=0)"]).row(0)
    assert got == (1, 0.0, 0.0, 0.0)


def test_beta_must_be_a_number_at_least_zero() -> None:
    with pytest.raises(MeasureParameterError, match="set_f: parameter 'beta' must be >= 0"):
        pg.SetF(beta=-1)
    assert str(pg.parse_measure("set_map(rel=2)")) == "set_ap(rel=2)"


@pytest.mark.parametrize("rel", [1, 2])
def test_set_measures_equal_pytrec_eval(table: pl.DataFrame, rel: int) -> None:
    expected = pytrec_values(table, SET_MEASURES, rel)
    assert not mismatches(table, expected)


def test_set_f_with_beta_equals_pytrec_eval(table: pl.DataFrame) -> None:
    expected = pytrec_values(table, set(), 1, set_F="0.5")
    renamed = {
        key: {"set_f(beta=0.5)": values["set_f"]} for key, values in expected.items()
    }  # the extension prints set_F whatever its beta
    assert not mismatches(table, renamed)


def test_set_measures_under_every_tie_policy(table: pl.DataFrame) -> None:
    names = ["set_f", "set_ap", "relative_p"]
    base = table.graded.evaluate(names, by="system")
    for ties in ("average", "optimistic", "pessimistic", "input"):
        assert table.graded.evaluate(names, by="system", ties=ties).equals(base)


def test_set_measures_equal_trec_eval_10(shared_data: Callable[[str], Path]) -> None:
    for out, qrels, rel in [
        ("out.test.aq", "qrels.test", 1),
        ("out.test.aql", "qrels.rel_level", 2),
    ]:
        expected = trec_eval_10(
            shared_data, out, qrels, "results.test", wanted=SET_MEASURES.__contains__, rel=rel
        )
        assert len(expected) == 5 * 3
        ours = ours_on_files(shared_data, qrels, "results.test", {m for _, m in expected})
        assert {k: ours[k] for k in expected} == pytest.approx(expected, abs=PRINTED)
