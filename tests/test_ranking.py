"""The one sorter (polars_graded/ranking.py): the ranked order of every tie policy, the tie
groups, the compared score and the :class:`Ranked` bundles the measures read.

The orders are checked against tests/support/oracle_ties.py (Python sorts written from the
policies' definitions), under both releases' score comparisons (conventions §2: float64 by default,
as trec_eval 10.0; float32 with ``compat="trec_eval_9"``); the bundles' helpers on a
hand-computed query.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from polars.testing import assert_frame_equal
from support import oracle, oracle_ties
from support.oracle_ties import POLICIES
from support.strategies import TiedTable, tied_tables

import polars_graded  # noqa: F401  (registers the namespace)
from polars_graded.measures.kernels.tie_average import group_hits
from polars_graded.options import Compat, TableSpec, TiePolicy, Ties
from polars_graded.ranking import (
    IN_ORDER,
    RANKING_ID,
    RowCounts,
    compared_score,
    explode_ranked,
    mark_ranked_order,
    number_rankings,
    pre_ranked,
    rank_in_group,
    ranked_lists,
    ranking_order,
    skips_sort,
    sort_ranked,
    tie_size,
)

SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FEWER = settings(SETTINGS, max_examples=15)
TOL = 1e-12
COMPATS: tuple[Compat, ...] = ("trec_eval_10", "trec_eval_9")
"""The releases (conventions §2), written here: the default compares scores as float64, 9.x as
float32."""


def spec_of(by: list[str], ties: str, **options: object) -> TableSpec:
    return TableSpec.of({"by": by, "ties": ties, **options})


def oracle_order(
    rows: list[oracle.Row], ties: str, compat: str = "trec_eval_10"
) -> list[oracle.Row]:
    """The retrieved rows in the oracle's order; ``"average"`` works on trec_eval's order."""
    policy = "trec_eval" if ties == "average" else ties
    return oracle_ties.policy_order(rows, policy, float32=oracle.uses_float32(compat))


# --------------------------------------------------------------------------- the order


@SETTINGS
@given(tied_tables())
def test_sort_ranked_gives_each_policys_order(table: TiedTable) -> None:
    """Rankings in key order, each contiguous: its retrieved rows in the oracle's order of
    the policy, then its unretrieved rows."""
    df, by = table
    rows, _ = oracle.read_queries(df, by)
    for ties, compat in itertools.product(POLICIES, COMPATS):
        spec = spec_of(by, ties, compat=compat)
        got = sort_ranked(df.lazy(), spec).collect()
        assert got.height == df.height
        keys = got.select(spec.keys).rows()
        assert keys == sorted(keys), ties
        blocks: dict[oracle.Key, list[tuple[Any, float]]] = {}
        for key, (item, score) in zip(keys, got.select("item", "score").rows(), strict=True):
            blocks.setdefault(key, []).append((item, score))
        assert len(blocks) == len(rows)
        for key, query_rows in rows.items():
            expected = [r.item for r in oracle_order(query_rows, ties, compat)]
            block = blocks[key]
            assert [item for item, _ in block[: len(expected)]] == expected, (ties, compat, key)
            assert all(score is None for _, score in block[len(expected) :]), (ties, key)


@pytest.mark.parametrize(
    ("ties", "keys", "maintain_order"),
    [
        ("trec_eval", 2, False),
        ("average", 2, False),
        ("input", 1, True),
        ("optimistic", 3, False),
        ("pessimistic", 3, False),
    ],
)
def test_ranking_order_sorts_by_score_then_what_the_policy_says(
    ties: TiePolicy, keys: int, maintain_order: bool
) -> None:
    order = ranking_order("score", "item", "relevance", ties)
    assert len(order.keys) == len(order.descending) == len(order.nulls_last) == keys
    assert order.descending[0] and order.nulls_last[0]  # score descending, unretrieved last
    assert order.maintain_order is maintain_order
    same = ranking_order("score", "item", "relevance", Ties(ties))
    assert all(a.meta.eq(b) for a, b in zip(same.keys, order.keys, strict=True))
    assert compared_score("score").meta.eq(order.keys[0])
    nine = ranking_order("score", "item", "relevance", ties, "trec_eval_9")
    assert compared_score("score", "trec_eval_9").meta.eq(nine.keys[0])
    assert not nine.keys[0].meta.eq(order.keys[0])
    assert all(a.meta.eq(b) for a, b in zip(nine.keys[1:], order.keys[1:], strict=True))


@pytest.mark.parametrize(
    ("compat", "b_ranks"),
    [
        # 1000 + 1e-9 > 1000 as float64: x, the higher score, first
        ("trec_eval_10", [("b", 1, "x"), ("b", 1, "y")]),
        # equal as float32: a tie, item descending puts y first
        ("trec_eval_9", [("b", 1, "y"), ("b", 1, "x")]),
    ],
)
def test_sort_ranked_example_by_hand(compat: str, b_ranks: list[tuple[str, int, str]]) -> None:
    """Two systems; system b's scores 1000 + 1e-9 (x) and 1000 (y) differ as float64 and
    tie as float32, where the tie goes item descending."""
    df = pl.LazyFrame(
        {
            "system": ["b", "b", "a", "a", "a"],
            "query": [1, 1, 2, 1, 1],
            "item": ["x", "y", "z", "x", "y"],
            "score": [1000.0 + 1e-9, 1000.0, None, 2.0, 1.0],
        }
    )
    got = sort_ranked(df, TableSpec.of({"by": "system", "compat": compat})).collect()
    assert got.select("system", "query", "item").rows() == [
        ("a", 1, "x"),
        ("a", 1, "y"),
        ("a", 2, "z"),
        *b_ranks,
    ]


def test_sort_ranked_by_default_is_trec_eval_10() -> None:
    """No ``compat=``: the float64 order of trec_eval 10.0, not 9.x's float32 one."""
    df = pl.LazyFrame({"query": [1, 1], "item": ["x", "y"], "score": [1000.0 + 1e-9, 1000.0]})
    default = sort_ranked(df, TableSpec()).collect()["item"].to_list()
    ten = sort_ranked(df, TableSpec(compat="trec_eval_10")).collect()["item"].to_list()
    nine = sort_ranked(df, TableSpec(compat="trec_eval_9")).collect()["item"].to_list()
    assert default == ten == ["x", "y"]
    assert nine == ["y", "x"]


SCORES = [1000.0, 1000.0 + 1e-9, 1000.0001, None, -2.5, 0.1, 0.1 + 1e-12]


def test_compared_score_is_float64_by_default() -> None:
    """trec_eval 10.0 ("Convert float to double"): every float64 score stays itself, so
    scores that differ only beyond float32's precision stay apart."""
    got = pl.DataFrame({"s": SCORES}).select(compared_score("s"))["s"]
    assert got.dtype == pl.Float64
    assert got.to_list() == SCORES
    assert got[0] != got[1] != got[2]
    assert got[5] != got[6]
    assert compared_score("s", "trec_eval_10").meta.eq(compared_score("s"))


def test_compared_score_is_float32_under_trec_eval_9() -> None:
    """trec_eval 9.x and pytrec_eval store a score as a C float: 1000 and 1000 + 1e-9 are one
    value, 1000.0001 another."""
    got = pl.DataFrame({"s": SCORES}).select(compared_score("s", "trec_eval_9"))["s"]
    assert got.dtype == pl.Float32
    assert got.to_list() == [None if s is None else oracle.f32(s) for s in SCORES]
    assert got[0] == got[1] != got[2]  # equal as float32 only
    assert got[5] == got[6]


def test_compared_score_keeps_an_integer_score_column_exact_by_default() -> None:
    """An Int64 score beyond float32's 24-bit mantissa: distinct as float64 (the default),
    a tie as float32."""
    df = pl.DataFrame({"s": [2**24, 2**24 + 1]})
    assert df.select(compared_score("s").n_unique()).item() == 2
    assert df.select(compared_score("s", "trec_eval_9").n_unique()).item() == 1


@pytest.mark.parametrize("compat", COMPATS)
def test_mark_ranked_order_compares_scores_as_the_release_does(compat: Compat) -> None:
    """Input said to be ranked: y (1000) before x (1000 + 1e-9) is out of order as float64
    (a lower score first), and in order as float32 (a tie, the larger item first)."""
    df = pl.LazyFrame({"query": [1, 1], "item": ["y", "x"], "score": [1000.0, 1000.0 + 1e-9]})
    spec = TableSpec(ranked=True, compat=compat)
    flags = mark_ranked_order(df, spec).collect()[IN_ORDER].to_list()
    assert flags[0] is (compat == "trec_eval_9")


@SETTINGS
@given(tied_tables())
def test_tie_size_counts_the_rows_of_a_ranking_with_the_same_compared_score(
    table: TiedTable,
) -> None:
    df, by = table
    for compat in COMPATS:
        spec = spec_of(by, "trec_eval", compat=compat)
        got = df.select(tie_size(spec))["len"].to_list()
        float32 = oracle.uses_float32(compat)
        group_of = [
            (*key, None if score is None else oracle.compared(score, float32=float32))
            for *key, score in df.select(*spec.keys, "score").rows()
        ]
        counts = Counter(group_of)
        assert got == [counts[g] for g in group_of], compat


def test_skips_sort_only_for_ranked_input_whose_order_the_policy_keeps() -> None:
    for ties in POLICIES:
        assert not skips_sort(spec_of([], ties))
        assert skips_sort(spec_of([], ties, ranked=True)) == (
            ties not in ("optimistic", "pessimistic")
        )


@FEWER
@given(tied_tables())
def test_ranked_input_takes_ties(table: TiedTable) -> None:
    """``ranked=True`` on the rows sorted by score (ties in table order) gives the values of
    the sorting path under every policy but ``"trec_eval"`` (which needs item order)."""
    df, by = table
    keys = [*by, "query"]
    measures = ["ap", "mu_ap", "ndcg@3", "ndcng", "p@2", "rr", "mean_ndcg", "err", "bpref"]
    for compat, dtype in (("trec_eval_10", pl.Float64), ("trec_eval_9", pl.Float32)):
        ranked = df.sort(
            [*keys, pl.col("score").cast(dtype)],
            descending=[False] * len(keys) + [True],
            nulls_last=True,
            maintain_order=True,
        )
        for ties in ("input", "optimistic", "pessimistic", "average"):
            options: dict[str, Any] = {"by": by or None, "ties": ties, "compat": compat}
            expected = df.graded.evaluate(measures, **options)
            got = ranked.graded.evaluate(measures, ranked=True, **options)
            assert_frame_equal(got, expected, abs_tol=TOL)


# --------------------------------------------------------------------------- the bundles


def bundle_lists(df: pl.DataFrame, spec: TableSpec) -> dict[oracle.Key, dict[str, Any]]:
    """Per ranking, what :func:`rank_in_group` gives inside the user's own group_by."""
    ranked = rank_in_group(spec.relevance, spec.score, spec.item, spec.ties, spec.compat)
    exprs = {
        "rel": ranked.rel,
        "ideal": ranked.ideal,
        "position": ranked.position,
        "n_retrieved": ranked.n_retrieved,
        "top": ranked.top,
    }
    if ranked.tie_start is not None and ranked.tie_end is not None:
        exprs |= {"tie_start": ranked.tie_start, "tie_end": ranked.tie_end}
    out = df.group_by(spec.keys).agg(**exprs)
    return {
        tuple(row[k] for k in spec.keys): {c: row[c] for c in exprs}
        for row in out.iter_rows(named=True)
    }


def as_float(label: oracle.Label) -> float | None:
    return None if label is None else float(label)


@SETTINGS
@given(tied_tables())
def test_rank_in_group_gives_the_oracles_ranking(table: TiedTable) -> None:
    """``rel`` in the policy's order (unretrieved rows after), ``ideal`` the labels sorted
    descending with the unjudged last, positions from 1, N and the top label; with
    ``"average"``, the bounds of each retrieved row's tie group."""
    df, by = table
    rows, _ = oracle.read_queries(df, by)
    for ties, compat in itertools.product(POLICIES, COMPATS):
        float32 = oracle.uses_float32(compat)
        got = bundle_lists(df, spec_of(by, ties, compat=compat))
        assert got.keys() == rows.keys()
        for key, query_rows in rows.items():
            mine = got[key]
            order = oracle_order(query_rows, ties, compat)
            n = len(order)
            labels = [as_float(r.label) for r in query_rows]
            judged = sorted((x for x in labels if x is not None), reverse=True)
            assert mine["rel"][:n] == [as_float(r.label) for r in order], (ties, compat, key)
            unretrieved = [as_float(r.label) for r in query_rows if r.score is None]
            assert Counter(mine["rel"][n:]) == Counter(unretrieved)
            assert mine["ideal"] == judged + [None] * (len(labels) - len(judged))
            assert mine["position"] == list(range(1, len(labels) + 1))
            assert mine["n_retrieved"] == n
            assert mine["top"] == (judged[0] if judged else None)
            assert ("tie_start" in mine) == (ties == "average")
            if ties == "average":
                bounds: list[tuple[int, int]] = []
                for group in oracle_ties.tie_groups(query_rows, float32=float32):
                    start = len(bounds) + 1
                    bounds += [(start, start + len(group) - 1)] * len(group)
                got_bounds = list(zip(mine["tie_start"], mine["tie_end"], strict=True))
                assert got_bounds[:n] == bounds, (compat, key)


@FEWER
@given(tied_tables())
def test_the_pre_ranked_columns_hold_the_same_rankings(table: TiedTable) -> None:
    """One sort per query (ranked_lists, number_rankings, explode_ranked) read through
    pre_ranked gives what rank_in_group gives inside a group."""
    df, by = table
    for ties, compat in itertools.product(POLICIES, COMPATS):
        spec = spec_of(by, ties, compat=compat)
        numbered = number_rankings(df.lazy().group_by(spec.keys).agg(ranked_lists(spec)), spec)
        ids = numbered.select(RANKING_ID, *spec.keys).collect().rows()
        key_of = {row[0]: tuple(row[1:]) for row in ids}
        bundle = pre_ranked(spec)
        exprs = {
            "rel": bundle.rel,
            "ideal": bundle.ideal,
            "position": bundle.position,
            "n_retrieved": bundle.n_retrieved.first(),
            "top": bundle.top.first(),
        }
        if bundle.tie_start is not None and bundle.tie_end is not None:
            exprs |= {"tie_start": bundle.tie_start, "tie_end": bundle.tie_end}
        pre = explode_ranked(numbered, spec).group_by(RANKING_ID).agg(**exprs).collect()
        got = {
            key_of[row[RANKING_ID]]: {c: row[c] for c in exprs} for row in pre.iter_rows(named=True)
        }
        assert got == bundle_lists(df, spec), (ties, compat)


@FEWER
@given(tied_tables())
def test_row_counts_equal_the_counts_inside_each_group(table: TiedTable) -> None:
    """RowCounts (whole columns, before the group_by) gives each row the tie-group counts
    that group_hits computes inside the group, for several flags at once."""
    df, by = table
    spec = spec_of(by, "average")
    numbered = number_rankings(df.lazy().group_by(spec.keys).agg(ranked_lists(spec)), spec)
    ranked = explode_ranked(numbered, spec)
    inside, counts = pre_ranked(spec), RowCounts()
    flags = [inside.hits(1), inside.hits(2), inside.rel.is_null(), inside.in_list(3)]
    exprs, expected = [], []
    for i, flag in enumerate(flags):
        for name, value in zip(("before", "within"), counts.of(flag), strict=True):
            exprs.append(value.alias(f"{name}{i}"))
        for name, value in zip(("before", "within"), group_hits(inside, flag), strict=True):
            expected.append(value.alias(f"{name}{i}"))
    counts.of(inside.hits(1))  # asked again: no new columns
    added = len(counts.add_to(ranked).collect_schema()) - len(ranked.collect_schema())
    assert added == 2 * len(flags)
    got = counts.add_to(ranked).group_by(RANKING_ID).agg(exprs).sort(RANKING_ID).collect()
    want = ranked.group_by(RANKING_ID).agg(expected).sort(RANKING_ID).collect()
    assert_frame_equal(got, want)


def test_number_rankings_follows_the_sorted_keys() -> None:
    grouped = pl.LazyFrame({"system": ["b", "a", "a"], "query": [1, 2, 1]})
    spec = TableSpec.of({"by": "system"})
    got = number_rankings(grouped, spec).collect()
    assert got.rows() == [(0, "a", 1), (1, "a", 2), (2, "b", 1)]


def hand_query(ties: TiePolicy) -> pl.DataFrame:
    """Items a..e, scores 3, 2, 2, 2 and unretrieved, labels 1, 0, 2, unjudged, 3.

    Ranked (ties by item descending): a, d, c, b, then e: rel = [1, None, 2, 0, 3],
    N = 4, the tie group of d, c, b at positions 2-4.
    """
    df = pl.DataFrame(
        {
            "query": [1] * 5,
            "item": ["a", "b", "c", "d", "e"],
            "score": [3.0, 2.0, 2.0, 2.0, None],
            "relevance": [1, 0, 2, None, 3],
        }
    )
    ranked = rank_in_group(ties=ties)
    return df.group_by("query").agg(
        rel=ranked.rel,
        in_all=ranked.in_list(None),
        in_top2=ranked.in_list(2),
        hits=ranked.hits(1),
        n_relevant=ranked.n_relevant(1),
        evaluated=ranked.evaluated(None),
        evaluated_2=ranked.evaluated(2),
        evaluated_10=ranked.evaluated(10),
        tie_mean=ranked.tie_mean(ranked.hits(1)),
        averages=pl.lit(ranked.averages_ties),
    )


def test_the_bundles_helpers_by_hand() -> None:
    got = hand_query("average").row(0, named=True)
    assert got["rel"] == [1.0, None, 2.0, 0.0, 3.0]
    assert got["in_all"] == [True, True, True, True, False]
    assert got["in_top2"] == [True, True, False, False, False]
    assert got["hits"] == [True, False, True, False, True]
    assert got["n_relevant"] == 3  # labels 1, 2, 3; the unretrieved one counts
    assert (got["evaluated"], got["evaluated_2"], got["evaluated_10"]) == (4, 2, 4)
    # one relevant row of three tied at positions 2-4: 1/3 expected at each of them
    assert got["tie_mean"] == pytest.approx([1.0, 1 / 3, 1 / 3, 1 / 3, 1.0], abs=TOL)
    assert got["averages"]


def test_tie_mean_without_average_is_the_values_themselves() -> None:
    got = hand_query("trec_eval").row(0, named=True)
    assert got["tie_mean"] == [1.0, 0.0, 1.0, 0.0, 1.0]
    assert not got["averages"]
