"""AP (polars_graded/measures/ap.py) by hand, as trec_eval's ``map`` and ``map_cut`` define
it: R counts every judged relevant row, retrieved or not, and a cutoff keeps R.

Also checked against trec_eval on random tables (test_trec_eval_differential), the oracle
(test_bruteforce), under every tie policy (test_ties) and the paper's Table 1
(test_paper_tables).
"""

from __future__ import annotations

import polars as pl
import pytest


def one_query(ranked: list[int | None], unretrieved: list[int]) -> pl.DataFrame:
    """One query: ``ranked`` labels in ranked order (scores n..1), then judged rows nobody
    retrieved (null score)."""
    n = len(ranked)
    labels = [*ranked, *unretrieved]
    return pl.DataFrame(
        {
            "query": [1] * len(labels),
            "item": [f"d{i}" for i in range(len(labels))],
            "score": [float(n - i) for i in range(n)] + [None] * len(unretrieved),
            "relevance": labels,
        },
        schema_overrides={"relevance": pl.Int64},
    )


def test_ap_by_hand() -> None:
    """Ranked labels 1, 0, 2, 0, 1 and a relevant row not retrieved: R = 4, hits at 1, 3, 5.

    AP = (1/1 + 2/3 + 3/5) / 4 = 17/30; at rel=2 the 2 alone (R = 1) at 3: 1/3; AP@3 keeps
    R = 4: (1 + 2/3) / 4 = 5/12.
    """
    df = one_query([1, 0, 2, 0, 1], [1])
    got = df.graded.evaluate(["ap", "ap(rel=2)", "ap@3"]).row(0, named=True)
    assert got["ap"] == pytest.approx(17 / 30, abs=1e-15)
    assert got["ap(rel=2)"] == pytest.approx(1 / 3, abs=1e-15)
    assert got["ap@3"] == pytest.approx(5 / 12, abs=1e-15)


def test_ap_without_a_relevant_row_is_zero() -> None:
    """R = 0: trec_eval's 0, not NaN (conventions §4)."""
    df = one_query([0, -1, None], [0])
    assert df.graded.evaluate(["ap", "ap@2"]).row(0) == (1, 0.0, 0.0)
