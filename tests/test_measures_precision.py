"""Precision, recall and R-precision (polars_graded/measures/precision.py) by hand, as
trec_eval's ``P``, ``set_P``, ``recall`` and ``Rprec`` define them: P@k divides by k even
beyond the ranking, recall and R-precision count every judged relevant row.

Also checked against trec_eval on random tables (test_trec_eval_differential), the oracle
(test_bruteforce) and under every tie policy (test_ties).
"""

from __future__ import annotations

import polars as pl
import pytest


def test_precision_recall_and_r_precision_by_hand() -> None:
    """Ranked labels 1, 0, 2, unjudged, 1; judged rows nobody retrieved: 2 and 0.

    R^1 = 4 (1, 2, 1, 2), R^2 = 2. P@2 = 1/2, P@5 = 3/5, P@10 = 3/10, P (all N = 5) = 3/5,
    P(rel=2)@3 = 1/3. Recall@3 = 2/4, recall = 3/4, recall(rel=2) = 1/2.
    R-precision = P@4 = 2/4; at rel=2, P@2 = 0 (labels 1 and 0 on top).
    """
    df = pl.DataFrame(
        {"query": [1] * 7, "item": list("abcdefg"),
         "score": [5.0, 4.0, 3.0, 2.0, 1.0, None, None],
         "relevance": [1, 0, 2, None, 1, 2, 0]}
    )  # fmt: skip
    expected = {
        "p@2": 1 / 2,
        "p@5": 3 / 5,
        "p@10": 3 / 10,
        "p": 3 / 5,
        "p(rel=2)@3": 1 / 3,
        "recall@3": 2 / 4,
        "recall": 3 / 4,
        "recall(rel=2)": 1 / 2,
        "r_precision": 2 / 4,
        "r_precision(rel=2)": 0.0,
    }
    got = df.graded.evaluate(list(expected)).row(0, named=True)
    assert {m: got[m] for m in expected} == pytest.approx(expected, abs=1e-15)
