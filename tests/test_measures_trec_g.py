"""G and binG (polars_graded/measures/trec_g.py): trec_eval's m_G.c and m_binG.c by hand, against
pytrec_eval per query on random tables (with trec_eval's gain mappings), against trec_eval
10.0's expected outputs, binG's expectation under ties="average" against every order of
the ties, and G's refusal of it."""

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

# Gain mappings trec_eval sorts unambiguously (it compares gains truncated to int).
GAIN_MAPPINGS = ["1=3,2=9,4=4.5", "0=1,1=3,3=7", "2=-1", "4=0,3=1", "1=10,2=5"]


def ranked_table(labels: list[float | None], unretrieved: Sequence[float] = ()) -> pl.DataFrame:
    n = len(labels)
    return pl.DataFrame(
        {
            "query": [1] * (n + len(unretrieved)),
            "item": [f"d{i:02}" for i in range(n + len(unretrieved))],
            "score": [float(n - i) for i in range(n)] + [None] * len(unretrieved),
            "relevance": [*labels, *unretrieved],
        }
    )


def test_g_by_hand() -> None:
    """Ranked labels 0, 2, unjudged, 1; a 3 not retrieved. Ideal gains 3, 2, 1, 0: the
    costs max(i, 1) add up to 3, 5, 6, 7; the gain so far to 0, 2, 2, 3. The 2 at position
    2 adds 2 / log2(2 + 5 - 2), the 1 at 4 adds 1 / log2(2 + 7 - 3); G = that / 6."""
    df = ranked_table([0, 2, None, 1], unretrieved=[3])
    want = (2 / math.log2(5) + 1 / math.log2(6)) / 6
    assert df.graded.g()["g"][0] == pytest.approx(want, abs=1e-15)
    # gain 9 for label 2: ideal 9, 3, 1; costs 9, 12, 13, 14; gains so far 0, 9, 9, 10
    mapped = (9 / math.log2(2 + 12 - 9) + 1 / math.log2(2 + 14 - 10)) / 13
    assert df.graded.g(gain={2: 9})["g(gain={2:9})"][0] == pytest.approx(mapped, abs=1e-15)


def test_bin_g_by_hand() -> None:
    """Same rows: at rel=1 the 2 has one row above that is not relevant, the 1 two (the 0
    and the unjudged row); R = 3. At rel=2 only the 2, R = 2."""
    df = ranked_table([0, 2, None, 1], unretrieved=[3])
    got = df.graded.evaluate(["bin_g", "bin_g(rel=2)", "bing"]).row(0, named=True)
    assert got["bin_g"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(4)) / 3, abs=1e-15)
    assert got["bin_g(rel=2)"] == pytest.approx(1 / math.log2(3) / 2, abs=1e-15)
    assert "bing" not in got  # the alias reads as the canonical name
    assert ranked_table([0, None], [0]).graded.bin_g()["bin_g"][0] == 0.0


@pytest.mark.parametrize("rel", [1, 2])
def test_bin_g_equals_pytrec_eval_per_query(rel: int) -> None:
    table = random_table(20260612)
    expected = pytrec_values(table, "binG", rel=rel)
    assert len(expected) >= 200
    name = "bin_g" if rel == 1 else f"bin_g(rel={rel})"
    assert not mismatches(expected, ours(table, name, compat=PYTREC_EVAL))


@pytest.mark.parametrize("pairs", ["", *GAIN_MAPPINGS])
def test_g_equals_pytrec_eval_per_query(pairs: str) -> None:
    table = random_table(20260613)
    expected = pytrec_values(table, f"G.{pairs}" if pairs else "G")
    assert len(expected) >= 200
    name = f"g(gain={{{pairs.replace('=', ':')}}})" if pairs else "g"
    assert not mismatches(expected, ours(table, str(pg.parse_measure(name)), compat=PYTREC_EVAL))


@pytest.mark.parametrize(("qrels", "out", "suffix"), [
    ("qrels.test", "out.test.aq", ""), ("qrels.rel_level", "out.test.aql", "(rel=2)"),
])  # fmt: skip
def test_trec_eval_10_expected_output(qrels: str, out: str, suffix: str) -> None:
    expected = expected_output(out)
    table = trec_eval_test_table(qrels)
    assert printed(table, "g") == expected["G"]
    assert printed(table, f"bin_g{suffix}") == expected["binG"]


@pytest.mark.parametrize("labels", [
    [1, 0, None, 2, 0, 1], [0, 0, 1, 1, -1, 2], [2, None, None, 0, 1, 0], [1, 2, 1, 0, 0, 0],
])  # fmt: skip
def test_bin_g_under_ties_average_is_the_mean_over_orders(labels: list[float | None]) -> None:
    df = pl.DataFrame(
        {"query": [1] * 7, "item": list("abcdefg"),
         "score": [3.0, 2.0, 2.0, 2.0, 1.0, 1.0, None], "relevance": [*labels, 1]}
    )  # fmt: skip
    for name in ("bin_g", "bin_g(rel=2)"):
        got = df.graded.evaluate([name], ties="average")[name][0]
        assert got == pytest.approx(every_order_mean(df, name), abs=1e-12)


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


def test_untied_rows_keep_their_bits_under_ties_average() -> None:
    table = random_table(11, queries=40).with_columns(
        pl.col("score") + pl.int_range(pl.len()) * 1e-3
    )
    plain = table.graded.evaluate(["bin_g"], by="system")
    averaged = table.graded.evaluate(["bin_g"], by="system", ties="average")
    assert plain.equals(averaged)


def test_g_refuses_ties_average() -> None:
    with pytest.raises(pg.MeasureParameterError, match="g: ties='average'"):
        ranked_table([1, 0]).graded.evaluate(["g"], ties="average")


@pytest.mark.parametrize(("text", "words"), [
    ("g@10", "no cutoff"), ("bin_g@10", "no cutoff"), ("g(gain=cubic)", "gain must be"),
])  # fmt: skip
def test_bad_parameters(text: str, words: str) -> None:
    with pytest.raises(pg.MeasureParameterError, match=words):
        pg.parse_measure(text)


def test_table_options_give_the_same_values() -> None:
    check_table_options(["g", "g(gain={1:3,2:9})", "bin_g", "bin_g(rel=2)"])


@pytest.mark.parametrize(("trec", "name", "rel"), [
    ("G", "g", 1),
    ("binG", "bin_g", 1),
    ("binG", "bin_g(rel=2)", 2),
])  # fmt: skip
def test_equals_pytrec_eval_on_a_real_run(trec: str, name: str, rel: int) -> None:
    """TREC DL 2019 passage, BM25, graded qrels 0..3: every query to 1e-9."""
    assert not real_run_mismatches(trec, name, rel=rel)


def test_trec_eval_10_expected_output_of_a_truncated_run_at_depth_100() -> None:
    check_truncated_run_at_depth_100({"G": "g", "binG": "bin_g"})


def test_finite_on_any_valid_table() -> None:
    check_finite_on_valid_tables(["g", "g(gain={1:3,2:9})", "g(gain=exp)", "bin_g"])
