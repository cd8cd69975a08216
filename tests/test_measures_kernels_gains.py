"""Gains and DCG (polars_graded/measures/kernels/gains.py), read through DCG, by hand:
``2^rel - 1``, ``rel``, and a mapping label -> gain under trec_eval's rule (m_ndcg.c: a listed
label gets its gain, an unlisted positive label keeps gain = label, zero, negative and
unjudged labels get 0), discounted by ``log_b(p + 1)``.

NDCG with linear and mapped gains is also checked against trec_eval on random tables
(test_trec_eval_differential); huge exponential gains are test_measures_ndcg's, and
``gain=binary`` against trec_eval on binarized judgments there. Here ``gain=binary`` is the
mapping {1: 1, 2: 1, ...} in every measure that takes a gain.
"""

from __future__ import annotations

import math

import polars as pl
import pytest
from support.tables import make_random_table

import polars_graded as pg
from polars_graded.options import TiePolicy

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


GAIN_MEASURES = [
    "ndcg@5", "ndcg", "dcg@10", "mean_ndcg", "q_measure@10", "g", "ndcg_rel", "rndcg",
]  # fmt: skip
"""Every registered measure with a ``gain`` parameter (checked against the registry below)."""


def test_every_gain_measure_is_listed() -> None:
    takes_gain = {m.name for m in pg.measures.MEASURES.values() if "gain" in m.__dataclass_fields__}
    assert takes_gain == {pg.parse_measure(text).name for text in GAIN_MEASURES}


@pytest.mark.parametrize("ties", ["trec_eval", "average"])
def test_binary_gain_is_the_mapping_of_every_relevant_label_to_1(ties: TiePolicy) -> None:
    """Labels -2..4 in steps of 0.5 (0.5 is below the threshold 1: gain 0; 1.5 gains 1),
    ties, unjudged and unretrieved rows: gain=binary equals the mapping that lists every
    label of the table, 1 for labels >= 1 and 0 for the others."""
    table = make_random_table(3, systems=2, queries=60)
    table = table.with_columns((pl.col("relevance") * 2).round() / 2)
    labels = table.get_column("relevance").drop_nulls().unique().to_list()
    assert 0.5 in labels and 1.5 in labels and -1 in labels
    mapping = {label: 1 if label >= 1 else 0 for label in labels}
    for text in GAIN_MEASURES:
        measure = pg.parse_measure(text)
        if ties == "average" and not type(measure).declaration.averages_ties:
            continue
        named = {"b": measure(gain="binary"), "m": measure(gain=mapping)}
        got = table.graded.evaluate(named, by="system", ties=ties)
        assert got["b"].to_list() == pytest.approx(got["m"].to_list(), abs=1e-12), text
        assert got["b"].sum() > 0


def test_a_bad_gain_lists_the_named_gains() -> None:
    with pytest.raises(pg.MeasureParameterError, match="'exp', 'linear', 'binary' or a mapping"):
        pg.parse_measure("ndcg(gain=binarized)@10")
