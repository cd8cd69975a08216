"""GAP (polars_graded/measures/graded_ap.py): hand-computed cases, the oracle's
:func:`oracle.gap_reference` on random tables under every tie policy, its relations to AP,
and its parameter errors.

test_ties also checks GAP against the oracle's enumeration of tied orders (the oracle's
REFERENCE holds ``gap``, ``gap@3`` and ``gap(g={1:0.25,2:0.75})@3``).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from support.oracle import Key, gap_reference, load
from support.oracle_ties import POLICIES, policy_values
from support.tables import FrameKind, make_random_table

import polars_graded as pg
from polars_graded.options import TableSpec, TiePolicy
from polars_graded.ranking import sort_ranked

TOL = 1e-12
MEASURES = ["gap", "gap@3", "gap(g={1:0.25,2:0.75})@3", "gap(g={0.5:1,2:3})"]


def hand_table() -> pl.DataFrame:
    """Ranked labels 2, 0, 1, 2, unjudged; one judged row not retrieved (label 1)."""
    return pl.DataFrame(
        {"query": [1] * 6, "item": list("abcdef"),
         "score": [5.0, 4.0, 3.0, 2.0, 1.0, None],
         "relevance": [2, 0, 1, 2, None, 1]}
    )  # fmt: skip


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


def test_gap_by_hand() -> None:
    """Levels 1 and 2, each with g = 1/2: G(1) = 1/2, G(2) = 1; the judged labels 2, 0, 1, 2,
    1 give the denominator 1 + 1/2 + 1 + 1/2 = 3. The relevant rows at 1, 3 and 4 add
    G(2)/1, (G(1) + G(1))/3 and (G(2) + G(1) + G(2))/4: 1 + 1/3 + 5/8 = 47/24; GAP = 47/72.
    The same as AP at each level weighted by g_t R^t: (2 * 29/48 + 1 * 3/4) / 3.

    With g = {1: 1/4, 2: 3/4}: G(1) = 1/4, the denominator 5/2 and the numerator
    1 + 1/6 + 9/16 = 83/48, so GAP = 83/120. With a cutoff of 2 only the first row counts:
    1/3 (the denominator keeps every judged row, as AP@k's R does).
    """
    df = hand_table()
    got = df.graded.evaluate(["gap", "gap(g={1:0.25,2:0.75})", "gap@2", "ap"]).row(0, named=True)
    assert got["gap"] == pytest.approx(47 / 72, abs=TOL)
    assert got["gap(g={1:0.25,2:0.75})"] == pytest.approx(83 / 120, abs=TOL)
    assert got["gap@2"] == pytest.approx(1 / 3, abs=TOL)
    assert got["gap"] == pytest.approx((2 * 29 / 48 + 3 / 4) / 3, abs=TOL)
    # the probabilities need not sum to 1: only their ratios matter
    assert df.graded.gap(g={1: 1, 2: 3})["gap(g={1:1,2:3})"][0] == pytest.approx(83 / 120)
    # the oracle agrees
    query = load(df)[(1,)]
    assert gap_reference(query) == pytest.approx(47 / 72, abs=TOL)
    assert gap_reference(query, {1: 0.25, 2: 0.75}) == pytest.approx(83 / 120, abs=TOL)


def test_gap_without_relevant_or_retrieved_rows_is_zero() -> None:
    df = pl.DataFrame(
        {"query": [1, 1, 2, 2, 3], "item": ["a", "b", "a", "b", "a"],
         "score": [2.0, 1.0, None, None, 1.0], "relevance": [0, -1, 2, 1, None]}
    )  # fmt: skip
    got = df.graded.evaluate(["gap", "gap(g={2:1})", "gap@1"])
    assert got.select(pl.exclude("query")).to_numpy().tolist() == [[0.0] * 3] * 3


# --- the oracle on random tables ---------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_gap_equals_the_oracle(seed: int, frame_kind: FrameKind) -> None:
    """Random tables with ties, unretrieved and unjudged rows, negative and continuous
    labels, up to 60 levels (the sweep's many-level path), two systems."""
    kinds = [("few", "continuous"), ("many",), ("pool",)][seed % 3]
    df = make_random_table(seed, systems=2, queries=8, max_items=40, label_kinds=kinds)
    result = frame_kind.collect(frame_kind(df).graded.evaluate(MEASURES, by="system"))
    assert_close(
        values(result, ["system", "query"]), policy_values(df, MEASURES, "trec_eval", ["system"])
    )


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("seed", range(6))
def test_gap_under_every_tie_policy(seed: int, ties: TiePolicy) -> None:
    """Small rankings, so that the oracle can enumerate every order of the tie groups."""
    df = make_random_table(seed + 100, systems=2, queries=6, max_items=7)
    result = df.graded.evaluate(MEASURES, by="system", ties=ties)
    assert_close(values(result, ["system", "query"]), policy_values(df, MEASURES, ties, ["system"]))


def test_ranked_input_and_expressions_give_the_same_values() -> None:
    df = make_random_table(7, systems=2, queries=8, max_items=30)
    expected = df.graded.evaluate(MEASURES, by="system")
    ranked = sort_ranked(df.lazy(), TableSpec(by=("system",))).collect()
    got = ranked.graded.evaluate(MEASURES, by="system", ranked=True)
    assert_close(values(got, ["system", "query"]), values(expected, ["system", "query"]))
    own = df.group_by("system", "query").agg(pg.gap(g={1: 0.25, 2: 0.75}, k=3).alias("explicit"))
    column = expected.join(own, on=["system", "query"])
    assert_close(
        {(i,): {"x": v} for i, v in enumerate(column["explicit"])},
        {(i,): {"x": v} for i, v in enumerate(column["gap(g={1:0.25,2:0.75})@3"])},
    )


def test_parquet_partitions_give_the_in_memory_values(tmp_path: Path) -> None:
    df = make_random_table(8, systems=2, queries=10, max_items=20)
    path = tmp_path / "table.parquet"
    df.write_parquet(path)
    got = pg.evaluate_parquet(path, MEASURES, by="system", partitions=3)
    expected = df.graded.evaluate(MEASURES, by="system")
    assert_close(values(got, ["system", "query"]), values(expected, ["system", "query"]))


@pytest.mark.parametrize("ties", ["trec_eval", "average"])
def test_a_deep_query_on_many_levels_is_the_weighted_mean_of_ap(ties: TiePolicy) -> None:
    """5000 rows on 40 levels (the sweep's block-merging path, beyond its 4096 rows) against
    the form ``sum_t R^t AP^t / sum_t R^t`` over the levels, with AP from the library."""
    rng = np.random.default_rng(5)
    n = 5000
    df = pl.DataFrame(
        {"query": 1, "item": np.arange(n), "score": rng.integers(0, 900, n).astype(float),
         "relevance": rng.integers(-1, 40, n)}
    )  # fmt: skip
    levels = sorted(x for x in set(df["relevance"].to_list()) if x > 0)
    aps = df.graded.evaluate([f"ap(rel={t})" for t in levels], ties=ties).row(0)[1:]
    at_or_above = [int((df["relevance"] >= t).sum()) for t in levels]
    expected = sum(r * ap for r, ap in zip(at_or_above, aps, strict=True)) / sum(at_or_above)
    got = df.graded.gap(ties=ties)["gap"][0]
    assert got == pytest.approx(expected, rel=1e-12)


# --- relations ---------------------------------------------------------------------------------


@pytest.mark.parametrize("ties", POLICIES)
@pytest.mark.parametrize("seed", range(5))
def test_gap_on_binary_labels_is_ap(seed: int, ties: TiePolicy) -> None:
    df = make_random_table(seed + 200, systems=2, queries=8, max_items=25)
    binary = df.with_columns(pl.col("relevance").clip(0, 1).ceil())
    got = binary.graded.evaluate(["gap", "ap", "gap@5", "ap@5"], by="system", ties=ties)
    for a, b in (("gap", "ap"), ("gap@5", "ap@5")):
        assert got[a].to_list() == pytest.approx(got[b].to_list(), abs=TOL)


@pytest.mark.parametrize("seed", range(5))
def test_one_threshold_is_ap_at_it_and_gap_is_scale_free(seed: int) -> None:
    """g = {t: 1} is AP^t; doubling every label leaves GAP on the query's levels alone."""
    df = make_random_table(seed + 300, queries=10, max_items=30, label_kinds=("few", "many"))
    got = df.graded.evaluate(["gap(g={2:1})", "ap(rel=2)", "gap"])
    assert got["gap(g={2:1})"].to_list() == pytest.approx(got["ap(rel=2)"].to_list(), abs=TOL)
    doubled = df.with_columns(pl.col("relevance") * 2).graded.evaluate(["gap"])
    assert doubled["gap"].to_list() == pytest.approx(got["gap"].to_list(), abs=TOL)
    assert all(0.0 <= v <= 1.0 for v in got["gap"])


@pytest.mark.parametrize("ties", POLICIES)
def test_an_ideal_ranking_scores_one(ties: TiePolicy) -> None:
    """Every judged row retrieved, by label (unjudged rows last): 1 on every query with a
    relevant row, 0 on the others."""
    df = make_random_table(400, queries=12, max_items=30, label_kinds=("few", "continuous"))
    ideal = df.with_columns(score=pl.col("relevance").fill_null(-100.0))
    got = ideal.graded.evaluate(["gap", "gap(g={1:0.25,2:0.75})"], ties=ties)
    relevant = ideal.group_by("query").agg(top=pl.col("relevance").max().fill_null(0))
    got = got.join(relevant, on="query")
    for row in got.iter_rows(named=True):
        assert row["gap"] == pytest.approx(1.0 if row["top"] > 0 else 0.0, abs=TOL)
        assert row["gap(g={1:0.25,2:0.75})"] == pytest.approx(
            1.0 if row["top"] >= 1 else 0.0, abs=TOL
        )


# --- parameters ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("gap(g={0:1})", "must be > 0"),
        ("gap(g={1:-1})", "probabilities >= 0"),
        ("gap(g={1:0,2:0})", "not all 0"),
        ("gap(g=table)", "'query' or a mapping"),
    ],
)
def test_bad_parameters(text: str, words: str) -> None:
    with pytest.raises(pg.MeasureParameterError, match=words):
        pg.parse_measure(text)


def test_canonical_names_and_the_expression_form() -> None:
    assert str(pg.parse_measure("gap(g={2:0.75,1:0.25})@5")) == "gap(g={1:0.25,2:0.75})@5"
    assert pg.GAP(g={1: 1}).lowest_threshold() == 1.0
    assert not pg.GAP(g={1: 1}).needs_frame()
    with pytest.raises(pg.MeasureParameterError, match="no single-expression form"):
        pg.measure_expr(pg.GAP)
    with pytest.raises(TypeError, match="'g'"):
        pg.gap()  # type: ignore[call-arg]
