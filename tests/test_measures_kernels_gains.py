"""Gains and DCG (polars_graded/measures/kernels/gains.py), read through DCG, by hand:
``2^rel - 1``, ``rel``, and a mapping label -> gain under trec_eval's rule (m_ndcg.c: a listed
label gets its gain, an unlisted positive label keeps gain = label, zero, negative and
unjudged labels get 0), discounted by ``log_b(p + 1)``.

NDCG with linear and mapped gains is also checked against trec_eval on random tables
(test_trec_eval_differential); huge exponential gains are test_measures_ndcg's.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

TOL = 1e-12


def test_dcg_of_each_gain_by_hand() -> None:
    """Ranked labels 2, unjudged, 3, -1, 1: discounts 1, 1/log2(3), 1/2, 1/log2(5), 1/log2(6).

    exp: 3 + 7/2 + 1/log2(6); linear: 2 + 3/2 + 1/log2(6); {1:3, 2:1}: 2 is listed (1), 3 is
    not (keeps 3), 1 is listed (3): 1 + 3/2 + 3/log2(6). Base 10 divides by log10(p + 1).
    """
    df = pl.DataFrame(
        {"query": [1] * 5, "item": list("abcde"), "score": [5.0, 4.0, 3.0, 2.0, 1.0],
         "relevance": [2, None, 3, -1, 1]}
    )  # fmt: skip
    measures = ["dcg", "dcg(gain=linear)", "dcg(gain={1:3,2:1})", "dcg(base=10)@3"]
    got = df.graded.evaluate(measures).row(0, named=True)
    assert got["dcg"] == pytest.approx(3 + 7 / 2 + 1 / math.log2(6), abs=TOL)
    assert got["dcg(gain=linear)"] == pytest.approx(2 + 3 / 2 + 1 / math.log2(6), abs=TOL)
    assert got["dcg(gain={1:3,2:1})"] == pytest.approx(1 + 3 / 2 + 3 / math.log2(6), abs=TOL)
    assert got["dcg(base=10)@3"] == pytest.approx(3 / math.log10(2) + 7 / math.log10(4), abs=TOL)


def test_the_ideal_ranking_orders_by_gain_not_by_label() -> None:
    """With {1:3, 2:1} a label 1 gains more than a 2: ranked 1 then 2 is ideal (NDCG 1),
    2 then 1 is not: (1 + 3/log2(3)) / (3 + 1/log2(3))."""
    df = pl.DataFrame(
        {"query": [1, 1, 2, 2], "item": ["a", "b", "a", "b"], "score": [2.0, 1.0, 2.0, 1.0],
         "relevance": [1, 2, 2, 1]}
    )  # fmt: skip
    got = df.graded.evaluate(["ndcg(gain={1:3,2:1})"]).to_series(1).to_list()
    assert got[0] == pytest.approx(1.0, abs=TOL)
    assert got[1] == pytest.approx((1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3)), abs=TOL)
