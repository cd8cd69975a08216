"""Q-measure (polars_graded/measures/q_measure.py): hand-computed cases, the oracle's
:func:`oracle.q_measure_reference` on random tables under every tie policy, its relations to
AP, and its parameter errors.

test_ties also checks it against the oracle's enumeration of tied orders (the oracle's
REFERENCE holds ``q_measure``, ``q_measure(beta=0.5)@3`` and ``q_measure(gain={1:3,2:1})``).
"""

from __future__ import annotations

import math

import polars as pl
import pytest
from support.oracle import Key, load, q_measure_reference
from support.oracle_ties import POLICIES, policy_values
from support.tables import FrameKind, make_random_table

import polars_graded as pg
from polars_graded.options import TableSpec, TiePolicy
from polars_graded.ranking import sort_ranked

TOL = 1e-12
MEASURES = ["q_measure", "q_measure(beta=0.5)@3", "q_measure(gain={1:3,2:1})"]


def values(result: pl.DataFrame, keys: list[str]) -> dict[Key, dict[str, float]]:
    """``{(by..., query): {measure: value}}`` of a per-query frame."""
    return {
        tuple(row[k] for k in keys): {c: v for c, v in row.items() if c not in keys}
        for row in result.iter_rows(named=True)
    }


def assert_close(got: dict[Key, dict[str, float]], expected: dict[Key, dict[str, float]]) -> None:
    assert got.keys() == expected.keys()
    for key, row in expected.items():
        for name, value in row.items():
            assert math.isclose(got[key][name], value, rel_tol=TOL, abs_tol=TOL), (key, name)


# --- by hand ---------------------------------------------------------------------------------


def test_q_measure_by_hand() -> None:
    """Ranked labels 2, 0, 1, 2, unjudged; a judged 1 not retrieved. R = 4; the ideal gains
    2, 2, 1, 1, 0, 0 give cg* = 2, 4, 5, 6, 6, 6; the ranking's cg = 2, 2, 3, 5, 5.

    beta = 1: BR(1) = (1 + 2)/(1 + 2) = 1, BR(3) = (2 + 3)/(3 + 5) = 5/8,
    BR(4) = (3 + 5)/(4 + 6) = 4/5: Q = (1 + 5/8 + 4/5)/4 = 97/160. beta = 2:
    (1 + 8/13 + 13/16)/4. beta = 0: AP = (1 + 2/3 + 3/4)/4 = 29/48. Q@3 = (1 + 5/8)/4.
    Exponential gains 3, 3, 1, 1: BR(3) = (2 + 4)/(3 + 7), BR(4) = (3 + 7)/(4 + 8).
    """
    df = pl.DataFrame(
        {"query": [1] * 6, "item": list("abcdef"),
         "score": [5.0, 4.0, 3.0, 2.0, 1.0, None],
         "relevance": [2, 0, 1, 2, None, 1]}
    )  # fmt: skip
    names = ["q_measure", "q_measure(beta=2)", "q_measure(beta=0)", "q_measure@3", "ap"]
    got = df.graded.evaluate([*names, "q_measure(gain=exp)"]).row(0, named=True)
    assert got["q_measure"] == pytest.approx(97 / 160, abs=TOL)
    assert got["q_measure(beta=2)"] == pytest.approx((1 + 8 / 13 + 13 / 16) / 4, abs=TOL)
    assert got["q_measure(beta=0)"] == pytest.approx(29 / 48, abs=TOL) == got["ap"]
    assert got["q_measure@3"] == pytest.approx((1 + 5 / 8) / 4, abs=TOL)
    assert got["q_measure(gain=exp)"] == pytest.approx((1 + 6 / 10 + 10 / 12) / 4, abs=TOL)
    assert q_measure_reference(load(df)[(1,)]) == pytest.approx(97 / 160, abs=TOL)


def test_three_tied_rows_by_hand() -> None:
    """Labels 0, 2, 1 in one tie group; ideal cg* = 2, 3, 3. Over the six orders, BR of the
    2 at positions 1, 2, 3 with the 1 before or after it, and of the 1 likewise; the mean
    of the six values of Q is 29/36."""
    df = pl.DataFrame({"query": 1, "item": ["a", "b", "c"], "score": 1.0, "relevance": [0, 2, 1]})
    orders = {  # ranked labels -> (BR of each relevant row) summed
        (2, 1, 0): 1 + 1,
        (2, 0, 1): 1 + (2 + 3) / (3 + 3),
        (1, 2, 0): (1 + 1) / (1 + 2) + 1,
        (1, 0, 2): (1 + 1) / (1 + 2) + (2 + 3) / (3 + 3),
        (0, 2, 1): (1 + 2) / (2 + 3) + (2 + 3) / (3 + 3),
        (0, 1, 2): (1 + 1) / (2 + 3) + (2 + 3) / (3 + 3),
    }
    expected = sum(orders.values()) / 2 / 6
    assert expected == pytest.approx(29 / 36)
    got = df.graded.q_measure(ties="average")["q_measure"][0]
    assert got == pytest.approx(expected, abs=TOL)


def test_no_relevant_or_retrieved_rows_score_zero() -> None:
    df = pl.DataFrame(
        {"query": [1, 1, 2, 2, 3], "item": ["a", "b", "a", "b", "a"],
         "score": [2.0, 1.0, None, None, 1.0], "relevance": [0, -1, 2, 1, None]}
    )  # fmt: skip
    got = df.graded.evaluate(["q_measure", "q_measure(beta=0)@1", "q_measure(gain={0:5})"])
    assert got.select(pl.exclude("query")).to_numpy().tolist() == [[0.0] * 3] * 3


# --- the oracle on random tables ---------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_q_measure_equals_the_oracle(seed: int, frame_kind: FrameKind) -> None:
    kinds = [("few", "continuous"), ("many",), ("pool",)][seed % 3]
    df = make_random_table(seed, systems=2, queries=8, max_items=40, label_kinds=kinds)
    result = frame_kind.collect(frame_kind(df).graded.evaluate(MEASURES, by="system"))
    expected = policy_values(df, MEASURES, "trec_eval", ["system"])
    assert_close(values(result, ["system", "query"]), expected)


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("seed", range(6))
def test_q_measure_under_every_tie_policy(seed: int, ties: TiePolicy) -> None:
    """Small rankings, so that the oracle can enumerate every order of the tie groups."""
    df = make_random_table(seed + 100, systems=2, queries=6, max_items=7)
    result = df.graded.evaluate(MEASURES, by="system", ties=ties)
    expected = policy_values(df, MEASURES, ties, ["system"])
    assert_close(values(result, ["system", "query"]), expected)


@pytest.mark.parametrize("ties", ["trec_eval", "average"])
def test_ranked_input_and_expressions_give_the_same_values(ties: TiePolicy) -> None:
    df = make_random_table(7, systems=2, queries=8, max_items=30)
    expected = df.graded.evaluate(MEASURES, by="system", ties=ties)
    spec = TableSpec.of({"by": "system", "ties": ties})
    ranked = sort_ranked(df.lazy(), spec).collect()
    got = ranked.graded.evaluate(MEASURES, by="system", ranked=True, ties=ties)
    assert_close(values(got, ["system", "query"]), values(expected, ["system", "query"]))
    own = df.group_by("system", "query").agg(
        pg.q_measure(beta=0.5, k=3, ties=ties).alias("q_measure(beta=0.5)@3")
    )
    assert_close(
        values(own, ["system", "query"]),
        values(expected.select("system", "query", "q_measure(beta=0.5)@3"), ["system", "query"]),
    )


# --- relations ---------------------------------------------------------------------------------


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("seed", range(5))
def test_beta_zero_is_ap_on_integer_labels(seed: int, ties: TiePolicy) -> None:
    """With beta = 0, BR is precision; on integer labels "> 0" is "rel >= 1"."""
    df = make_random_table(seed + 200, systems=2, queries=8, max_items=25, int_labels=True)
    names = ["q_measure(beta=0)", "ap", "q_measure(beta=0)@5", "ap@5"]
    got = df.graded.evaluate(names, by="system", ties=ties)
    for a, b in (("q_measure(beta=0)", "ap"), ("q_measure(beta=0)@5", "ap@5")):
        assert got[a].to_list() == pytest.approx(got[b].to_list(), abs=TOL)


@pytest.mark.parametrize("ties", POLICIES)
def test_bounds_and_an_ideal_ranking_scores_one(ties: TiePolicy) -> None:
    df = make_random_table(400, queries=12, max_items=30, label_kinds=("few", "continuous"))
    names = ["q_measure", "q_measure(beta=10,gain=exp)"]
    got = df.graded.evaluate(names, ties=ties)
    assert all(0.0 <= v <= 1.0 for name in names for v in got[name])
    ideal = df.with_columns(score=pl.col("relevance").fill_null(-100.0))
    best = ideal.graded.evaluate(names, ties=ties).join(
        ideal.group_by("query").agg(top=pl.col("relevance").max().fill_null(0)), on="query"
    )
    for row in best.iter_rows(named=True):
        for name in names:
            assert row[name] == pytest.approx(1.0 if row["top"] > 0 else 0.0, abs=TOL)


# --- parameters ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("q_measure(beta=-1)", "beta must be >= 0"),
        ("q_measure(gain=table)", "gain must be"),
        ("q_measure(beta=x)", "finite number"),
    ],
)
def test_bad_parameters(text: str, words: str) -> None:
    with pytest.raises(pg.MeasureParameterError, match=words):
        pg.parse_measure(text)


def test_canonical_names() -> None:
    assert str(pg.parse_measure("q_measure(gain={2:3}, beta=0.5)@5")) == (
        "q_measure(beta=0.5,gain={2:3})@5"
    )
    assert str(pg.Q(gain="linear", beta=1)) == "q_measure"
