"""NDCG, DCG and mean NDCG (polars_graded/measures/ndcg.py) on labels whose exponential gain
2^label - 1 overflows float64: NDCG is a ratio and stays exact (against exact integer
arithmetic), DCG cannot be represented and is an error that names the query.

The values on ordinary labels are checked against trec_eval (linear and mapped gains,
test_trec_eval_differential), the oracle (test_bruteforce) and the paper's Table 2
(test_paper_tables); ``gain=binary`` here against pytrec_eval on binarized judgments (and
against Spark MLlib's ``ndcgAt`` in test_spark).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import polars as pl
import pytest
import pytrec_eval
from support.trec_eval import PYTREC_EVAL, SYSTEMS, random_table, trec_dicts

import polars_graded as pg


def exact_ndcg(ranked: Sequence[float], k: int | None = None) -> float:
    """NDCG with gain 2^rel - 1 in exact integer arithmetic; only the discounts are floats."""
    gains = [2 ** int(label) - 1 if label > 0 else 0 for label in ranked]
    top = max(gains)
    if top == 0:
        return 0.0
    # Gains relative to the top gain are exact fractions; as floats they lose no range.
    relative = [float(Fraction(g, top)) for g in gains]
    depth = len(ranked) if k is None else min(k, len(ranked))
    dcg = sum(relative[p] / math.log2(p + 2) for p in range(depth))
    ideal_order = sorted(relative, reverse=True)
    ideal = sum(ideal_order[p] / math.log2(p + 2) for p in range(depth))
    return dcg / ideal


HUGE_LABELS = [
    [1, 2000, 1999, 0],
    [1023, 1024, 1030, 3],
    [5000, 0, 4990, 1, 5000],
    [2, 1, 0, 1100],
]


@pytest.mark.parametrize("labels", HUGE_LABELS)
def test_ndcg_on_labels_of_1024_and_more(labels: list[int]) -> None:
    # 2^1024 overflows float64: NDCG used to be NaN; the ratio is representable.
    n = len(labels)
    df = pl.DataFrame(
        {"query": [1] * n, "item": [f"d{i}" for i in range(n)],
         "score": [float(n - i) for i in range(n)], "relevance": labels}
    )  # fmt: skip
    got = df.graded.evaluate(["ndcg", "ndcg@2", "mean_ndcg"]).row(0, named=True)
    assert got["ndcg"] == pytest.approx(exact_ndcg(labels), rel=1e-12)
    assert got["ndcg@2"] == pytest.approx(exact_ndcg(labels, 2), rel=1e-12)
    mean = sum(exact_ndcg(labels, k) for k in range(1, n + 1)) / n
    assert got["mean_ndcg"] == pytest.approx(mean, rel=1e-12)
    # the standalone expressions scale their gains the same way
    expr = df.group_by("query").agg(pg.ndcg(), pg.ndcg(k=2), pg.mean_ndcg()).row(0, named=True)
    assert expr["ndcg"] == got["ndcg"]
    assert expr["ndcg@2"] == got["ndcg@2"]
    assert expr["mean_ndcg"] == got["mean_ndcg"]


def test_ndcg_is_invariant_to_adding_1000_to_every_positive_label() -> None:
    # With labels l and l + c, 2^(l+c) - 1 is about 2^c (2^l): for large c the ratios tend
    # to those of 2^l; exact reference on both tables.
    labels = [3, 0, 1, 2, 0, 3]
    shifted = [label + 3000 if label > 0 else 0 for label in labels]
    for values in (labels, shifted):
        df = pl.DataFrame(
            {"query": [7] * 6, "item": list("abcdef"), "score": [6.0, 5, 4, 3, 2, 1],
             "relevance": values}
        )  # fmt: skip
        assert df.graded.ndcg()["ndcg"][0] == pytest.approx(exact_ndcg(values), rel=1e-12)


@pytest.mark.parametrize("label", [1024, 1100, 5000])
def test_dcg_with_exponential_gain_beyond_float64_is_an_error(label: int) -> None:
    # DCG is not a ratio: 2^1024 cannot be represented. It used to print inf.
    df = pl.DataFrame(
        {"query": [1, 1, 2, 2], "item": ["a", "b", "a", "b"], "score": [2.0, 1.0, 2.0, 1.0],
         "relevance": [1, 2, 0, label]}
    )  # fmt: skip
    for frame in (df, df.lazy()):
        with pytest.raises(pg.InvalidValueError) as info:
            result = frame.graded.dcg()
            result.collect() if isinstance(result, pl.LazyFrame) else None
        message = str(info.value)
        assert "'dcg'" in message
        assert "query=2" in message
        assert "1024" in message
        assert "gain=linear" in message
    # the expression function cannot name the row, but raises all the same
    with pytest.raises(pg.InvalidValueError, match="'dcg' is inf for 1 group"):
        df.group_by("query").agg(pg.dcg())
    # the linear gain and NDCG stay finite
    linear = df.graded.dcg(gain="linear")["dcg(gain=linear)"].to_list()
    assert linear[1] == pytest.approx(label / math.log2(3))
    assert df.graded.ndcg()["ndcg"].to_list()[1] == pytest.approx(1 / math.log2(3))


@pytest.mark.parametrize("k", [3, 10, 1000])
def test_binary_gain_is_trec_evals_ndcg_on_binarized_judgments(k: int) -> None:
    """ndcg(gain=binary)@k on labels -2..4 is pytrec_eval's ``ndcg_cut_k`` (linear gain) on
    the same judgments with every label >= 1 replaced by 1 (the recommender convention)."""
    table = random_table(99, queries=120)
    binarized = table.with_columns(
        pl.when(pl.col("relevance") >= 1).then(1).otherwise("relevance").alias("relevance")
    )
    got = table.graded.evaluate([f"ndcg(gain=binary)@{k}"], by="system", compat=PYTREC_EVAL)
    ours = {(s, q): v for s, q, v in got.iter_rows()}
    checked = 0
    for system in SYSTEMS:
        qrels, run = trec_dicts(binarized, system)
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {f"ndcg_cut.{k}"})
        for query, values in evaluator.evaluate(run).items():
            assert ours[system, query] == pytest.approx(values[f"ndcg_cut_{k}"], abs=1e-9)
            checked += values[f"ndcg_cut_{k}"] > 0
    assert checked > 100
