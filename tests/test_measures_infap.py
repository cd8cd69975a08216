"""infAP (polars_graded/measures/infap.py): trec_eval's m_infap.c by hand, against
pytrec_eval per query on random tables, against trec_eval 10.0's expected outputs, and its
refusal of ties="average"."""

from __future__ import annotations

import polars as pl
import pytest
from support.trec_eval import (
    PYTREC_EVAL,
    check_finite_on_valid_tables,
    check_table_options,
    check_truncated_run_at_depth_100,
    expected_output,
    ours,
    printed,
    real_run_mismatches,
    trec_eval_test_table,
)
from support.trec_eval import graded_table as random_table
from support.trec_eval import measure_mismatches as mismatches
from support.trec_eval import pytrec_measure as pytrec_values

import polars_graded as pg


def test_infap_by_hand() -> None:
    """Ranked labels 1, unjudged, 0, -1 (pooled, not judged), 1; a 2 not retrieved.

    rel=1, R = 3. The first row scores 1. At position 5, one relevant, one non-relevant
    and one pooled row above (the unjudged row is outside the pool):
    1/5 + (4/5)(3/4)((1 + eps)/(2 + 2 eps)) = 1/5 + 3/10. infAP = (1 + 1/2) / 3 = 1/2,
    where AP is (1 + 2/5) / 3. rel=2: the only relevant row is not retrieved: 0.
    """
    df = pl.DataFrame(
        {"query": [1] * 6, "item": list("abcdef"),
         "score": [6.0, 5.0, 4.0, 3.0, 2.0, None],
         "relevance": [1, None, 0, -1, 1, 2]}
    )  # fmt: skip
    got = df.graded.evaluate(["infap", "infap(rel=2)", "ap"]).row(0, named=True)
    assert got["infap"] == pytest.approx(0.5, abs=1e-15)
    assert got["infap(rel=2)"] == 0.0
    assert got["ap"] == pytest.approx(1.4 / 3, abs=1e-15)


def test_infap_is_ap_on_complete_judgments() -> None:
    df = pl.DataFrame(
        {"query": [1] * 6, "item": list("abcdef"), "score": [6.0, 5, 4, 3, 2, 1],
         "relevance": [0, 2, 0, 1, 0, 1]}
    )  # fmt: skip
    got = df.graded.evaluate(["infap", "ap"]).row(0, named=True)
    assert got["infap"] == pytest.approx(got["ap"], abs=1e-4)


@pytest.mark.parametrize("rel", [1, 2, 3])
def test_equals_pytrec_eval_per_query(rel: int) -> None:
    table = random_table(20260611)
    expected = pytrec_values(table, "infAP", rel=rel)
    assert len(expected) >= 200
    name = "infap" if rel == 1 else f"infap(rel={rel})"
    assert not mismatches(expected, ours(table, name, compat=PYTREC_EVAL))


@pytest.mark.parametrize(("qrels", "out", "name"), [
    ("qrels.test", "out.test.aq", "infap"),
    ("qrels.rel_level", "out.test.aql", "infap(rel=2)"),
])  # fmt: skip
def test_trec_eval_10_expected_output(qrels: str, out: str, name: str) -> None:
    expected = expected_output(out)["infAP"]
    assert printed(trec_eval_test_table(qrels), name) == expected


def test_ties_average_is_refused() -> None:
    df = pl.DataFrame({"query": [1, 1], "item": ["a", "b"], "score": [1.0, 1.0],
                       "relevance": [1, 0]})  # fmt: skip
    with pytest.raises(pg.MeasureParameterError, match="infap: ties='average'"):
        df.graded.evaluate(["infap"], ties="average")


def test_other_tie_policies_and_lazy_frames() -> None:
    table = random_table(7, queries=30)
    for ties in ("input", "optimistic", "pessimistic"):
        eager = table.graded.evaluate(["infap"], by="system", ties=ties)
        lazy = table.lazy().graded.evaluate(["infap"], by="system", ties=ties).collect()
        assert eager.equals(lazy)
        assert eager["infap"].is_finite().all()


def test_bad_parameters() -> None:
    with pytest.raises(pg.MeasureParameterError, match="no cutoff"):
        pg.parse_measure("infap@10")


def test_table_options_give_the_same_values() -> None:
    check_table_options(["infap", "infap(rel=2)"])


@pytest.mark.parametrize(("trec", "name", "rel"), [
    ("infAP", "infap", 1),
    ("infAP", "infap(rel=2)", 2),
])  # fmt: skip
def test_equals_pytrec_eval_on_a_real_run(trec: str, name: str, rel: int) -> None:
    """TREC DL 2019 passage, BM25, graded qrels 0..3: every query to 1e-9."""
    assert not real_run_mismatches(trec, name, rel=rel)


def test_trec_eval_10_expected_output_of_a_truncated_run_at_depth_100() -> None:
    check_truncated_run_at_depth_100({"infAP": "infap"})


def test_finite_on_any_valid_table() -> None:
    check_finite_on_valid_tables(["infap", "infap(rel=2)"])
