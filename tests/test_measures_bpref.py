"""bpref (polars_graded/measures/bpref.py): trec_eval's m_bpref.c by hand (negative labels
and unjudged rows skipped, judged non-relevant rows counted retrieved or not), and its
parameter errors.

Also checked against trec_eval on random tables (test_trec_eval_differential), the oracle
(test_bruteforce) and under every tie policy (test_ties).
"""

from __future__ import annotations

import polars as pl
import pytest

import polars_graded as pg


def test_bpref_by_hand() -> None:
    """Ranked labels 0, 2, -1, unjudged, 0, 1; one judged row not retrieved (label 0).

    rel=1: R = 2 relevant (2 and 1), N = 3 judged non-relevant (the two 0s and the
    unretrieved 0; -1 is not counted), min(R, N) = 2. The 2 has one non-relevant row above
    it: 1 - 1/2; the 1 has two: 1 - min(2, R)/2 = 0. bpref = (1/2 + 0) / 2 = 1/4.
    rel=2: R = 1, N = 4 (the 1 is non-relevant now), min = 1; the 2 has one above: 0.
    """
    df = pl.DataFrame(
        {"query": [1] * 7, "item": list("abcdefg"),
         "score": [6.0, 5.0, 4.0, 3.0, 2.0, 1.0, None],
         "relevance": [0, 2, -1, None, 0, 1, 0]}
    )  # fmt: skip
    got = df.graded.evaluate(["bpref", "bpref(rel=2)"]).row(0, named=True)
    assert got["bpref"] == 0.25
    assert got["bpref(rel=2)"] == 0.0
    # nothing judged non-relevant: every relevant row scores 1
    only_relevant = df.filter(pl.col("relevance") >= 1)
    assert only_relevant.graded.bpref()["bpref"][0] == 1.0


@pytest.mark.parametrize(("text", "words"), [("bpref@10", "no cutoff")])
def test_bad_parameters(text: str, words: str) -> None:
    with pytest.raises(pg.MeasureParameterError, match=words):
        pg.parse_measure(text)
