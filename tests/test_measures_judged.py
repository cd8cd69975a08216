"""Judged@k (polars_graded/measures/judged.py) by hand: the share of the top min(k, N)
retrieved rows that are judged (ir_measures' Judged), 0 without retrieved rows.

Also checked against the oracle (test_bruteforce) and under every tie policy (test_ties).
"""

from __future__ import annotations

import polars as pl
import pytest


def test_judged_by_hand() -> None:
    """Query 1 ranks unjudged, 1, 0, unjudged, unjudged and has a judged row nobody
    retrieved: Judged = 2/5, Judged@2 = 1/2, Judged@10 = 2/5 (N = 5 rows shown). Query 2
    retrieved nothing: 0."""
    df = pl.DataFrame(
        {"query": [1] * 6 + [2], "item": list("abcdefg"),
         "score": [5.0, 4.0, 3.0, 2.0, 1.0, None, None],
         "relevance": [None, 1, 0, None, None, 2, 1]}
    )  # fmt: skip
    got = df.graded.evaluate(["judged", "judged@2", "judged@10"])
    assert got.row(0) == (1, pytest.approx(2 / 5), 0.5, pytest.approx(2 / 5))
    assert got.row(1) == (2, 0.0, 0.0, 0.0)
