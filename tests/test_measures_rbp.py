"""RBP and its residual (polars_graded/measures/rbp.py): Moffat and Zobel's formulas by hand,
and their parameter errors; trec_eval 10.0's graded rbp and its rbp_resid by hand, on its
expected outputs and under ties="average" (pytrec_eval, trec_eval 9, has neither).

Also checked against the oracle (tests/support/oracle.py) on random tables (test_bruteforce) and
under every tie policy (test_ties).
"""

from __future__ import annotations

import itertools

import polars as pl
import pytest
from support.trec_eval import (
    TEMPLATES,
    check_finite_on_valid_tables,
    check_table_options,
    check_truncated_run_at_depth_100,
    expected_output,
    printed,
    trec_eval_test_table,
)

import polars_graded as pg


def test_rbp_and_its_residual_by_hand() -> None:
    """Ranked labels 1, 0, unjudged, 2 with p = 0.5: RBP = (1 - p)(p^0 + p^3) = 0.5625;
    at rel=2 only the last counts, (1 - p) p^3 = 0.0625. The residual: the unjudged row's
    weight (1 - p) p^2 plus p^4 beyond the ranking = 0.1875; at depth 2 nothing unjudged,
    p^2 = 0.25 beyond."""
    df = pl.DataFrame(
        {"query": [1] * 4, "item": ["a", "b", "c", "d"], "score": [4.0, 3.0, 2.0, 1.0],
         "relevance": [1, 0, None, 2]}
    )  # fmt: skip
    measures = ["rbp(p=0.5)", "rbp(p=0.5,rel=2)", "rbp(p=0.5)@2"]
    measures += ["rbp_residual(p=0.5)", "rbp_residual(p=0.5)@2"]
    got = df.graded.evaluate(measures).row(0, named=True)
    assert got["rbp(p=0.5)"] == 0.5625
    assert got["rbp(p=0.5,rel=2)"] == 0.0625
    assert got["rbp(p=0.5)@2"] == 0.5
    assert got["rbp_residual(p=0.5)"] == 0.1875
    assert got["rbp_residual(p=0.5)@2"] == 0.25


@pytest.mark.parametrize(
    ("text", "words"),
    [("rbp(p=1.5)", "between 0 and 1"), ("rbp_residual(p=0)", "between 0 and 1")],
)
def test_bad_parameters(text: str, words: str) -> None:
    with pytest.raises(pg.MeasureParameterError, match=words):
        pg.parse_measure(text)


# --- trec_eval 10.0's rbp and rbp_resid: graded_rbp and trec_rbp_residual ----------------


def test_graded_rbp_and_trec_residual_by_hand() -> None:
    """Ranked labels 2, -1, unjudged, 4, 0; top label 4, so gains 1/2, 0, 0, 1, 0; p = 0.5:
    graded RBP = (1 - p)(1/2 + p^3) = 0.3125, at depth 2: (1 - p)/2 = 0.25. trec_eval's
    residual counts the -1 and the unjudged row: (1 - p)(p + p^2) + p^5 = 0.40625; a
    ranking without an unjudged or negative row has 0 (no tail p^N)."""
    df = pl.DataFrame(
        {"query": [1] * 5, "item": list("abcde"), "score": [5.0, 4.0, 3.0, 2.0, 1.0],
         "relevance": [2, -1, None, 4, 0]}
    )  # fmt: skip
    got = df.graded.evaluate(
        ["graded_rbp(p=0.5)", "graded_rbp(p=0.5)@2", "trec_rbp_residual(p=0.5)"]
    ).row(0, named=True)
    assert got["graded_rbp(p=0.5)"] == 0.3125
    assert got["graded_rbp(p=0.5)@2"] == 0.25
    assert got["trec_rbp_residual(p=0.5)"] == 0.40625
    judged = df.filter(pl.col("relevance") >= 0)
    assert judged.graded.trec_rbp_residual()["trec_rbp_residual"][0] == 0.0
    # labels up to 1 are their own gains: graded RBP is binary RBP on 0/1 labels
    binary = df.with_columns(pl.col("relevance").clip(upper_bound=1))
    both = binary.graded.evaluate(["graded_rbp", "rbp"]).row(0, named=True)
    assert both["graded_rbp"] == pytest.approx(both["rbp"], abs=1e-15)


@pytest.mark.parametrize(("qrels", "out"), [
    ("qrels.test", "out.test.aq"), ("qrels.rel_level", "out.test.aql"),
])  # fmt: skip
def test_trec_eval_10_expected_output(qrels: str, out: str) -> None:
    """trec_eval's rbp and rbp_resid (persistence 0.9) on its own test files, per query and
    mean: the binary qrels and the graded ones (labels -1..4)."""
    expected = expected_output(out)
    data = trec_eval_test_table(qrels)
    assert printed(data, "graded_rbp(p=0.9)") == expected["rbp"]
    assert printed(data, "trec_rbp_residual(p=0.9)") == expected["rbp_resid"]


def test_trec_names_map_to_persistence_0_9() -> None:
    assert TEMPLATES["rbp"] == "graded_rbp(p=0.9)"
    assert TEMPLATES["rbp_resid"] == "trec_rbp_residual(p=0.9)"


@pytest.mark.parametrize("name", ["graded_rbp(p=0.5)", "trec_rbp_residual(p=0.5)"])
def test_under_ties_average_the_mean_over_every_order(name: str) -> None:
    labels = [3, None, 0, -1, 1, 2]
    df = pl.DataFrame(
        {"query": [1] * 7, "item": list("abcdefg"),
         "score": [3.0, 2.0, 2.0, 2.0, 1.0, 1.0, None], "relevance": [*labels, 4]}
    )  # fmt: skip
    retrieved, rest = df.filter(pl.col("score").is_not_null()), df.filter(pl.col("score").is_null())
    groups = [list(g["item"]) for g in retrieved.partition_by("score", maintain_order=True)]
    values = []
    for orders in itertools.product(*(itertools.permutations(g) for g in groups)):
        ranked = [item for order in orders for item in order]
        scores = {item: float(len(ranked) - i) for i, item in enumerate(ranked)}
        broken = retrieved.with_columns(pl.col("item").replace_strict(scores).alias("score"))
        values.append(pl.concat([broken, rest]).graded.evaluate([name])[name][0])
    got = df.graded.evaluate([name], ties="average")[name][0]
    assert got == pytest.approx(sum(values) / len(values), abs=1e-12)


@pytest.mark.parametrize(
    ("text", "words"),
    [("graded_rbp(p=1)", "between 0 and 1"), ("trec_rbp_residual@5", "no cutoff")],
)
def test_bad_trec_parameters(text: str, words: str) -> None:
    with pytest.raises(pg.MeasureParameterError, match=words):
        pg.parse_measure(text)


def test_table_options_give_the_same_values() -> None:
    check_table_options(["graded_rbp", "graded_rbp(p=0.9)@5", "trec_rbp_residual"])


def test_trec_eval_10_expected_output_of_a_truncated_run_at_depth_100() -> None:
    check_truncated_run_at_depth_100(
        {"rbp": "graded_rbp(p=0.9)", "rbp_resid": "trec_rbp_residual(p=0.9)"}
    )


def test_finite_on_any_valid_table() -> None:
    check_finite_on_valid_tables(["graded_rbp", "graded_rbp@3", "trec_rbp_residual"])
