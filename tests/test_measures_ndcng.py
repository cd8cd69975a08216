"""NDCNG and mean NDCNG (polars_graded/measures/ndcng.py) by hand: NDCG with exponential gain
on the labels divided by the query's top label (Scheel et al. 2011), so that, unlike NDCG,
it does not change when every label is scaled (the paper's Table 2, conventions §5).

Also checked against the oracle (test_bruteforce), under every tie policy (test_ties) and
the paper's Table 2 (test_paper_tables).
"""

from __future__ import annotations

import math

import polars as pl
import pytest

TOL = 1e-15


def ranked_table(labels: list[int]) -> pl.DataFrame:
    """One query with ``labels`` in ranked order (scores n..1)."""
    n = len(labels)
    return pl.DataFrame(
        {"query": [1] * n, "item": [f"d{i}" for i in range(n)],
         "score": [float(n - i) for i in range(n)], "relevance": labels}
    )  # fmt: skip


def test_ndcng_by_hand() -> None:
    """Labels 1, 2 ranked; the top label is 2, so the gains are 2^(1/2) - 1 and 2^1 - 1.

    DCG = (√2 - 1) / log2(2) + 1 / log2(3); the ideal ranking swaps them:
    1 / log2(2) + (√2 - 1) / log2(3). NDCNG@1 = (√2 - 1) / 1. mean NDCNG = their mean.
    """
    got = ranked_table([1, 2]).graded.evaluate(["ndcng", "ndcng@1", "mean_ndcng"]).row(0)
    low = math.sqrt(2) - 1
    full = (low + 1 / math.log2(3)) / (1 + low / math.log2(3))
    assert got[1] == pytest.approx(full, abs=TOL)
    assert got[2] == pytest.approx(low, abs=TOL)
    assert got[3] == pytest.approx((low + full) / 2, abs=TOL)


def test_scaling_the_labels_changes_ndcg_not_ndcng() -> None:
    """conventions §5's table: doubled labels lower NDCG@k and leave NDCNG@k as it was."""
    labels = [1, 0, 3, 3, 2, 0, 1, 4]
    plain = ranked_table(labels).graded.evaluate(["ndcng@5", "ndcg@5"]).row(0)
    doubled = ranked_table([2 * x for x in labels]).graded.evaluate(["ndcng@5", "ndcg@5"]).row(0)
    assert doubled[1] == pytest.approx(plain[1], abs=1e-12)
    assert round(plain[2], 2) == 0.35
    assert round(doubled[2], 2) == 0.20


def test_a_query_whose_top_label_is_not_positive_scores_zero() -> None:
    got = ranked_table([0, -1, 0]).graded.evaluate(["ndcng", "mean_ndcng"]).row(0)
    assert got[1:] == (0.0, 0.0)
