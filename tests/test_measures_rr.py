"""Reciprocal rank and success@k (polars_graded/measures/rr.py) by hand, as trec_eval's
``recip_rank`` and ``success`` define them.

Also checked against trec_eval on random tables (test_trec_eval_differential), the oracle
(test_bruteforce) and under every tie policy (test_ties).
"""

from __future__ import annotations

import polars as pl


def test_rr_and_success_by_hand() -> None:
    """Ranked labels 0, unjudged, 1, 2, 0 and a 3 nobody retrieved.

    RR = 1/3 (the 1 at 3), at rel=2 1/4, at rel=3 0 (the 3 is not retrieved), RR@2 = 0.
    success@2 = 0, success@3 = 1, success(rel=2)@3 = 0, success = 1.
    """
    df = pl.DataFrame(
        {"query": [1] * 6, "item": list("abcdef"),
         "score": [5.0, 4.0, 3.0, 2.0, 1.0, None],
         "relevance": [0, None, 1, 2, 0, 3]}
    )  # fmt: skip
    measures = ["rr", "rr(rel=2)", "rr(rel=3)", "rr@2"]
    measures += ["success@2", "success@3", "success(rel=2)@3", "success"]
    got = df.graded.evaluate(measures).row(0, named=True)
    assert [got[m] for m in measures] == [1 / 3, 1 / 4, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0]
