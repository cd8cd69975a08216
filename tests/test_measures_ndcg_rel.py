"""ndcg_rel and Rndcg (polars_graded/measures/ndcg_rel.py): trec_eval's m_ndcg_rel.c and
m_Rndcg.c by hand, against pytrec_eval per query on random tables (with trec_eval's gain
mappings), against trec_eval 10.0's expected outputs, and their refusal of
ties="average"."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import polars as pl
import pytest
from support.trec_eval import (
    PYTREC_EVAL,
    check_finite_on_valid_tables,
    check_table_options,
    check_truncated_run_at_depth_100,
    expected_output,
    ours,
    printed,
    real_run_mismatches,
    trec_eval_test_table,
)
from support.trec_eval import graded_table as random_table
from support.trec_eval import measure_mismatches as mismatches
from support.trec_eval import pytrec_measure as pytrec_values

import polars_graded as pg

GAIN_MAPPINGS = ["1=3,2=9,4=4.5", "0=1,1=3,3=7", "2=-1", "4=0,3=1", "1=10,2=5"]
D = [1 / math.log2(p + 1) for p in range(1, 10)]  # discounts of positions 1..9


def table(labels: list[float | None], unretrieved: Sequence[float] = ()) -> pl.DataFrame:
    n, m = len(labels), len(unretrieved)
    return pl.DataFrame(
        {"query": [1] * (n + m), "item": [f"d{i:02}" for i in range(n + m)],
         "score": [float(n - i) for i in range(n)] + [None] * m,
         "relevance": [*labels, *unretrieved]}
    )  # fmt: skip


def test_ndcg_rel_by_hand() -> None:
    """Ranked 0, 2, unjudged, 1, 0; a 2 not retrieved. Ideal gains 2, 2, 1 (P = 3).
    NDCG@2 at the 2, NDCG@4 at the 1, and DCG@5/IDCG for the unretrieved 2."""
    dcg = [0, 2 * D[1], 2 * D[1], 2 * D[1] + D[3], 2 * D[1] + D[3]]
    idcg = [2 * D[0], 2 * D[0] + 2 * D[1], *[2 * D[0] + 2 * D[1] + D[2]] * 3]
    want = (dcg[1] / idcg[1] + dcg[3] / idcg[3] + dcg[4] / idcg[4]) / 3
    got = table([0, 2, None, 1, 0], unretrieved=[2]).graded.ndcg_rel()["ndcg_rel"][0]
    assert got == pytest.approx(want, abs=1e-15)


def test_rndcg_by_hand() -> None:
    """Same rows: the ideal gain changes after cutoffs 2 (2 -> 1) and 3 (1 -> 0); N = 5 >
    P + 1 = 4 adds NDCG@5. With rel=3 no label reaches the threshold: 0."""
    dcg2, dcg3, dcg5 = 2 * D[1], 2 * D[1], 2 * D[1] + D[3]
    idcg2, idcg3 = 2 * D[0] + 2 * D[1], 2 * D[0] + 2 * D[1] + D[2]
    want = (dcg2 / idcg2 + dcg3 / idcg3 + dcg5 / idcg3) / 3
    df = table([0, 2, None, 1, 0], unretrieved=[2])
    assert df.graded.rndcg()["rndcg"][0] == pytest.approx(want, abs=1e-15)
    with pytest.warns(pg.GradedWarning, match="above every label"):
        assert df.graded.rndcg(rel=3)["rndcg(rel=3)"][0] == 0.0
    # N = P + 1: trec_eval adds no NDCG@N (the gain at N is never read)
    short = table([0, 2, None, 1], unretrieved=[2]).graded.rndcg()["rndcg"][0]
    assert short == pytest.approx((dcg2 / idcg2 + dcg3 / idcg3) / 2, abs=1e-15)


@pytest.mark.parametrize("pairs", ["", *GAIN_MAPPINGS])
@pytest.mark.parametrize(("trec", "name"), [("ndcg_rel", "ndcg_rel"), ("Rndcg", "rndcg")])
def test_equals_pytrec_eval_per_query(trec: str, name: str, pairs: str) -> None:
    data = random_table(20260614)
    expected = pytrec_values(data, f"{trec}.{pairs}" if pairs else trec)
    assert len(expected) >= 200
    text = f"{name}(gain={{{pairs.replace('=', ':')}}})" if pairs else name
    assert not mismatches(expected, ours(data, str(pg.parse_measure(text)), compat=PYTREC_EVAL))


def test_rndcg_at_relevance_level_2_equals_pytrec_eval() -> None:
    data = random_table(20260615)
    expected = pytrec_values(data, "Rndcg", rel=2)
    assert not mismatches(expected, ours(data, "rndcg(rel=2)", compat=PYTREC_EVAL))


@pytest.mark.parametrize(("qrels", "out", "suffix"), [
    ("qrels.test", "out.test.aq", ""), ("qrels.rel_level", "out.test.aql", "(rel=2)"),
])  # fmt: skip
def test_trec_eval_10_expected_output(qrels: str, out: str, suffix: str) -> None:
    expected = expected_output(out)
    data = trec_eval_test_table(qrels)
    assert printed(data, "ndcg_rel") == expected["ndcg_rel"]
    assert printed(data, f"rndcg{suffix}") == expected["Rndcg"]


def every_order_mean(df: pl.DataFrame, measure: str) -> float:
    """The measure's mean over every order of the tied retrieved rows (ties broken by
    score); the unretrieved rows stay."""
    retrieved, rest = df.filter(pl.col("score").is_not_null()), df.filter(pl.col("score").is_null())
    groups = [list(g["item"]) for g in retrieved.partition_by("score", maintain_order=True)]
    values: list[float] = []
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        ranked = [item for order in orders for item in order]
        scores = {item: float(len(ranked) - i) for i, item in enumerate(ranked)}
        broken = retrieved.with_columns(pl.col("item").replace_strict(scores).alias("score"))
        values.append(pl.concat([broken, rest]).graded.evaluate([measure])[measure][0])
    return sum(values) / len(values)


@pytest.mark.parametrize("labels", [
    [1, 0, None, 2, 0, 1], [0, 0, 1, 3, -1, 2], [2, None, None, 0, 1, 0], [1, 2, 1, 0, 0, 3],
])  # fmt: skip
@pytest.mark.parametrize(
    "name", ["ndcg_rel", "rndcg", "ndcg_rel(gain={1:5,2:1})", "rndcg(gain={2:-1})"]
)
def test_under_ties_average_the_mean_over_every_order(
    labels: list[float | None], name: str
) -> None:
    df = pl.DataFrame(
        {"query": [1] * 8, "item": list("abcdefgh"),
         "score": [3.0, 2.0, 2.0, 2.0, 1.0, 1.0, None, None], "relevance": [*labels, 4, 0]}
    )  # fmt: skip
    got = df.graded.evaluate([name], ties="average")[name][0]
    assert got == pytest.approx(every_order_mean(df, name), abs=1e-12)


def test_untied_rows_keep_their_bits_under_ties_average() -> None:
    data = random_table(12, queries=40).with_columns(
        pl.col("score") + pl.int_range(pl.len()) * 1e-3
    )
    names = ["ndcg_rel", "rndcg", "ndcg_rel(gain={1:3,2:9})"]
    plain = data.graded.evaluate(names, by="system")
    assert plain.equals(data.graded.evaluate(names, by="system", ties="average"))


def test_ndcg_rel_with_a_negative_gain_refuses_ties_average() -> None:
    with pytest.raises(pg.MeasureParameterError, match="negative gain: ties='average'"):
        table([1, 0]).graded.evaluate(["ndcg_rel(gain={2:-1})"], ties="average")


@pytest.mark.parametrize(("text", "words"), [
    ("ndcg_rel@10", "no cutoff"), ("rndcg@10", "no cutoff"), ("rndcg(rel=0)", "must be > 0"),
])  # fmt: skip
def test_bad_parameters(text: str, words: str) -> None:
    with pytest.raises(pg.MeasureParameterError, match=words):
        pg.parse_measure(text)


def test_table_options_give_the_same_values() -> None:
    check_table_options(["ndcg_rel", "rndcg", "rndcg(gain={2:-1},rel=2)"])


@pytest.mark.parametrize(("trec", "name", "rel"), [
    ("ndcg_rel", "ndcg_rel", 1),
    ("Rndcg", "rndcg", 1),
    ("Rndcg", "rndcg(rel=2)", 2),
])  # fmt: skip
def test_equals_pytrec_eval_on_a_real_run(trec: str, name: str, rel: int) -> None:
    """TREC DL 2019 passage, BM25, graded qrels 0..3: every query to 1e-9."""
    assert not real_run_mismatches(trec, name, rel=rel)


def test_trec_eval_10_expected_output_of_a_truncated_run_at_depth_100() -> None:
    check_truncated_run_at_depth_100({"ndcg_rel": "ndcg_rel", "Rndcg": "rndcg"})


def test_finite_on_any_valid_table() -> None:
    check_finite_on_valid_tables(
        ["ndcg_rel", "ndcg_rel(gain={0:1,2:-1})", "rndcg", "rndcg(gain=exp)"]
    )
