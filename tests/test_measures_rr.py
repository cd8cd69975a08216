"""Reciprocal rank and success@k (polars_graded/measures/rr.py) by hand, as trec_eval's
``recip_rank`` and ``success`` define them.

Also checked against trec_eval on random tables (test_trec_eval_differential), the oracle
(test_bruteforce) and under every tie policy (test_ties). ``hit_rate@k`` and ``hit@k`` are
names of success@k; ranx's ``hits@k`` (a number) is test_measures_precision's.
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_graded as pg


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


@pytest.mark.parametrize("text", ["hit_rate@10", "HIT@10", "hit_rate(rel=1)@10"])
def test_hit_rate_and_hit_are_success(text: str) -> None:
    """ranx's hit_rate ("equivalent to success from trec_eval", its docstring), RecBole's
    and LensKit's hit: one measure, one column named success@10."""
    assert pg.parse_measure(text) == pg.Success @ 10
    assert pg.measure_name(text) == "success@10"


def test_hits_is_not_success() -> None:
    """ranx's hits@k counts the relevant rows in the top k: 2 here, where success@3 is 1."""
    df = pl.DataFrame(
        {"query": [1] * 3, "item": list("abc"), "score": [3.0, 2.0, 1.0], "relevance": [1, 0, 2]}
    )
    assert df.graded.evaluate(["hit_rate@3", "hits@3"]).row(0) == (1, 1.0, 2.0)
