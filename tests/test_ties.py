"""``ties=``: how rows with equal scores are ordered, or averaged over. Which scores are
equal depends on the release (conventions §2): by default they are compared as float64 (trec_eval
10.0), with ``compat="trec_eval_9"`` as float32 (9.x), where 2.0 and 2.0 + 1e-9 tie too.

``"trec_eval"`` (the default) breaks a tie by item descending, ``"input"`` keeps the table's
row order, ``"optimistic"`` / ``"pessimistic"`` put the higher / lower label first (null
last / first), and ``"average"`` is the exact expected value over every ordering of every tie
group (McSherry and Najork, ECIR 2008). The oracle of tests/support/oracle_ties.py enumerates those
orderings with ``itertools.permutations``; a second, independent route rewrites the item ids
so that the default item-descending tie order is the intended one. The sorter itself
(``ranking.sort_ranked``, ranked input) is tested in test_ranking, the option in
test_options.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any
from unittest.mock import patch

import polars as pl
import pytest
from hypothesis import HealthCheck, assume, find, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from support import oracle, oracle_ties
from support.oracle import Key, RefQuery, load
from support.oracle_ties import POLICIES, policy_values
from support.strategies import TiedTable, long_tables, tied_tables

import polars_graded as pg
from polars_graded.cli import main
from polars_graded.measures import MEASURES as LIBRARY_MEASURES
from polars_graded.measures.kernels import mu_ap_sweep
from polars_graded.options import Compat, TiePolicy


def base_name(measure: str) -> str:
    """``"ap(rel=2)@3"`` -> ``"ap"``."""
    return measure.split("(", maxsplit=1)[0].split("@", maxsplit=1)[0]


# every measure of the oracle that the library has (see test_every_measure_is_covered)
MEASURES = [m for m in oracle.MEASURES if base_name(m) in LIBRARY_MEASURES]
MONOTONE = [m for m in oracle.MONOTONE if m in MEASURES]
ANTITONE = [m for m in oracle.ANTITONE if m in MEASURES]
TOL = 1e-12
SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FEWER = settings(SETTINGS, max_examples=15)

# --- tables -------------------------------------------------------------------------------


def test_tied_tables_cover_the_cases() -> None:
    """The strategy really draws what its docstring promises."""
    keys = ["system", "query"]

    def per_query(table: TiedTable) -> pl.DataFrame:
        df, by = table
        df = df if by else df.with_columns(system=pl.lit(0))
        return df.group_by(keys).agg(
            top=pl.col("relevance").max(),
            biggest_tie=pl.col("score")
            .cast(pl.Float32)
            .drop_nulls()
            .value_counts()
            .struct[1]
            .max(),
            f32_tie=pl.col("score").drop_nulls().n_unique()
            > pl.col("score").cast(pl.Float32).drop_nulls().n_unique(),
            unretrieved=pl.col("score").null_count(),
            unjudged=pl.col("relevance").null_count(),
            negative=(pl.col("relevance") < 0).sum(),
        )

    cases = {
        "two systems": lambda t: t[0]["system"].n_unique() == 2 if t[1] else False,
        "a tie of 4": lambda t: (per_query(t)["biggest_tie"] >= 4).any(),
        "a float32-only tie": lambda t: per_query(t)["f32_tie"].any(),
        "unretrieved rows": lambda t: (per_query(t)["unretrieved"] > 0).any(),
        "unjudged rows": lambda t: (per_query(t)["unjudged"] > 0).any(),
        "negative labels": lambda t: (per_query(t)["negative"] > 0).any(),
        "no relevant row": lambda t: (per_query(t)["top"].fill_null(0) <= 0).any(),
    }
    for name, predicate in cases.items():
        assert find(tied_tables(), predicate, settings=settings(max_examples=500)), name


def test_every_measure_is_covered() -> None:
    """Every measure of the library is checked here against the oracle or, under every tie
    policy (``ties="average"`` against every order of the tied rows, or its refusal), in the
    test file of its own module, ``tests/test_measures_<module>.py``; the required ones are
    here."""
    here = {base_name(m) for m in MEASURES}
    for name in set(LIBRARY_MEASURES) - here:
        module = type(LIBRARY_MEASURES[name]).__module__.rsplit(".", 1)[-1]
        own = Path(__file__).parent / f"test_measures_{module}.py"
        assert own.is_file(), f"{name}: neither in tests/support/oracle.py nor in {own.name}"
        text = own.read_text()
        assert name in text and "average" in text, f"{name}: {own.name} checks no tie policy"
    required = ["ap", "ap(rel=2)", "ap@3", "mu_ap", "mu_ap(levels=table)"]
    required += ["mu_ap(levels=[1,2,3])", "mu_ap@3", "ndcg", "ndcg@3", "ndcg(gain=linear)@2"]
    required += ["ndcg(gain={1:3,2:1})", "ndcng", "ndcng@3", "dcg@3", "mean_ndcg", "mean_ndcng"]
    required += ["p", "p@2", "recall@3", "r_precision", "rr", "rr@2", "rr(rel=2)"]
    assert set(required) <= set(MEASURES)
    assert [str(pg.parse_measure(m)) for m in MEASURES] == MEASURES  # canonical names


# --- helpers ------------------------------------------------------------------------------


def library_values(result: pl.DataFrame, keys: list[str]) -> dict[Key, dict[str, float]]:
    """``{(by..., query): {measure: value}}`` of a per-query result frame."""
    return {
        tuple(row[k] for k in keys): {c: v for c, v in row.items() if c not in keys}
        for row in result.iter_rows(named=True)
    }


def assert_close(
    got: dict[Key, dict[str, float]],
    expected: dict[Key, dict[str, float]],
    df: pl.DataFrame,
    what: str,
) -> None:
    """Every (key, measure) within TOL; the message names each difference and the table."""
    assert got.keys() == expected.keys(), what
    bad = [
        (key, name, got[key][name], value)
        for key, values in expected.items()
        for name, value in values.items()
        if not abs(got[key][name] - value) <= TOL
    ]
    assert not bad, (
        f"{what}: (key, measure, library, reference) differ on {len(bad)}: {bad[:8]}\n"
        f"table: {df.to_dict(as_series=False)}"
    )


def rewrite_items(df: pl.DataFrame, by: list[str], ties: str) -> pl.DataFrame:
    """The table with item ids that make trec_eval's item-descending tie order the order
    ``ties`` intends (an id per query; the first in the intended order gets the largest).

    Independent of tests/support/oracle_ties.py: the order is a Polars sort of the whole query.
    """
    keys = [*by, "query"]
    # (columns, descending, nulls_last) of the order within a query
    if ties == "input":
        cols, descending, nulls_last = ["__row"], [False], [False]
    elif ties == "optimistic":  # higher label first, null last, then item descending
        cols, descending, nulls_last = ["relevance", "item"], [True, True], [True, True]
    else:  # pessimistic: lower label first, null first, then item descending
        cols, descending, nulls_last = ["relevance", "item"], [False, True], [False, True]
    indexed = df.with_row_index("__row")
    ranked = indexed.sort(
        [*keys, *cols],
        descending=[False] * len(keys) + descending,
        nulls_last=[False] * len(keys) + nulls_last,
        maintain_order=True,
    ).with_columns(
        __new=(pl.len() - pl.int_range(pl.len())).over(keys).cast(pl.String).str.zfill(4)
    )
    return (
        ranked.sort("__row")
        .with_columns(item=pl.col("__new"))
        .drop("__row", "__new")
        .select(df.columns)
    )


# --- the brute-force reference on its own ---------------------------------------------------


@SETTINGS
@given(tied_tables(tied=False))
def test_reference_without_ties_equals_the_library_default(table: TiedTable) -> None:
    """Without ties every policy of the brute force gives the library's default values."""
    df, by = table
    result = df.graded.evaluate(MEASURES, by=by or None)
    got = library_values(result, [*by, "query"])
    for ties in POLICIES:
        assert_close(got, policy_values(df, MEASURES, ties, by), df, ties)


@SETTINGS
@given(tied_tables())
def test_reference_trec_eval_policy_equals_the_library_default(table: TiedTable) -> None:
    """With ties, the brute force's ``"trec_eval"`` order is :func:`oracle.load`'s and the
    library's default one."""
    df, by = table
    expected = policy_values(df, MEASURES, "trec_eval", by)
    plain = load(df, by=by or None)
    assert expected.keys() == plain.keys()
    for key, q in plain.items():
        assert expected[key]["mu_ap"] == q.mu_ap()
        assert expected[key]["ndcg@3"] == q.ndcg(3)
    got = library_values(df.graded.evaluate(MEASURES, by=by or None), [*by, "query"])
    assert_close(got, expected, df, "trec_eval")


@SETTINGS
@given(tied_tables())
def test_rewritten_items_agree_with_the_brute_force(table: TiedTable) -> None:
    """The two routes to a deterministic order agree before the library's ``ties=`` is
    involved: default evaluation of the rewritten table = the brute force's policy."""
    df, by = table
    for ties in ("input", "optimistic", "pessimistic"):
        rewritten = rewrite_items(df, by, ties).graded.evaluate(MEASURES, by=by or None)
        got = library_values(rewritten, [*by, "query"])
        assert_close(got, policy_values(df, MEASURES, ties, by), df, ties)


@SETTINGS
@given(tied_tables())
def test_every_policy_under_trec_eval_9_equals_the_brute_force_on_float32_ties(
    table: TiedTable,
) -> None:
    """``compat="trec_eval_9"``: the tie groups are those of the float32 scores, under every
    policy (the oracle's ``compat`` too)."""
    df, by = table
    keys = [*by, "query"]
    for ties in POLICIES:
        got = df.graded.evaluate(MEASURES, by=by or None, ties=ties, compat="trec_eval_9")
        expected = policy_values(df, MEASURES, ties, by, compat="trec_eval_9")
        assert_close(library_values(got, keys), expected, df, f"{ties}, trec_eval_9")


@pytest.mark.parametrize(
    ("compat", "average_ap", "trec_eval_ap"),
    [
        # 2 + 1e-9 > 2: a first, then b and c tied (c, b by item descending)
        ("trec_eval_10", 1.0, 1.0),
        # all three tied: as three_tied below, 11/18 and (c, b, a) 1/3
        ("trec_eval_9", 11 / 18, 1 / 3),
    ],
)
def test_a_float32_only_tie_is_a_tie_under_trec_eval_9_only(
    compat: Compat, average_ap: float, trec_eval_ap: float
) -> None:
    """Items a, b, c scored 2 + 1e-9, 2, 2; a (the relevant one) ties with b and c only as
    float32."""
    df = pl.DataFrame(
        {"query": 1, "item": ["a", "b", "c"], "score": [2.0 + 1e-9, 2.0, 2.0],
         "relevance": [1, 0, 0]}
    )  # fmt: skip
    average = df.graded.evaluate(["ap"], ties="average", compat=compat)["ap"][0]
    assert average == pytest.approx(average_ap, abs=TOL)
    assert df.graded.ap(compat=compat)["ap"][0] == pytest.approx(trec_eval_ap, abs=TOL)
    expected = policy_values(df, ["ap"], "average", compat=compat)[(1,)]["ap"]
    assert expected == pytest.approx(average_ap, abs=TOL)


# --- a hand-computed case -------------------------------------------------------------------


def three_tied() -> pl.DataFrame:
    """One query, items a, b, c all scored 1.0, labels [1, 0, 0] (a is the relevant one)."""
    return pl.DataFrame(
        {"query": [1, 1, 1], "item": ["a", "b", "c"], "score": [1.0] * 3, "relevance": [1, 0, 0]}
    )


def test_three_tied_items_by_hand() -> None:
    """a (relevant, R = 1) is at position 1, 2 or 3, each in 2 of the 3! orderings.

    - average: AP = RR = 1/p averaged = (1 + 1/2 + 1/3) / 3 = 11/18; P@1 = P(a first) = 1/3;
      NDCG = (1/log2(2) + 1/log2(3) + 1/log2(4)) / 3 (ideal DCG = 1); P = 1/3 in every order.
    - optimistic: a first, AP = 1. pessimistic: a last, AP = 1/3.
    - trec_eval: item descending c, b, a, AP = 1/3. input: a, b, c, AP = 1.
    """
    df = three_tied()
    measures = ["ap", "rr", "p@1", "ndcg", "p"]
    average = df.graded.evaluate(measures, ties="average").row(0, named=True)
    eleven_18 = float(Fraction(11, 18))
    assert average["ap"] == pytest.approx(eleven_18, abs=TOL)
    assert average["rr"] == pytest.approx(eleven_18, abs=TOL)
    assert average["p@1"] == pytest.approx(1 / 3, abs=TOL)
    assert average["ndcg"] == pytest.approx((1 + 1 / math.log2(3) + 1 / 2) / 3, abs=TOL)
    assert average["p"] == pytest.approx(1 / 3, abs=TOL)
    for ties, ap in [
        ("optimistic", 1.0),
        ("pessimistic", 1 / 3),
        ("trec_eval", 1 / 3),
        ("input", 1.0),
    ]:
        assert df.graded.ap(ties=ties)["ap"][0] == pytest.approx(ap, abs=TOL), ties
    assert df.graded.ap()["ap"][0] == pytest.approx(1 / 3, abs=TOL)


def test_mu_ap_of_three_tied_labels_by_hand() -> None:
    """Items a, b, c tied, labels [2, 1, 0]; levels {1, 2}, distance 1 each.

    AP^2 (only a relevant) averages 11/18 as above. AP^1 (a and b relevant, R = 2) by the
    positions of the two relevant items, each pair in 2 of the 6 orderings:
    {1,2}: (1 + 2/2)/2 = 1; {1,3}: (1 + 2/3)/2 = 5/6; {2,3}: (1/2 + 2/3)/2 = 7/12;
    mean 29/36. µAP = (11/18 + 29/36) / 2 = 51/72 = 17/24.
    A fourth item d with score 2.0 and label 0 ranked alone on top shifts every position
    by one: then AP^2 = (1/2 + 1/3 + 1/4)/3 = 13/36.
    """
    df = three_tied().with_columns(relevance=pl.Series([2, 1, 0]))
    got = df.graded.evaluate(["mu_ap", "ap", "ap(rel=2)"], ties="average").row(0, named=True)
    assert got["ap(rel=2)"] == pytest.approx(11 / 18, abs=TOL)
    assert got["ap"] == pytest.approx(29 / 36, abs=TOL)
    assert got["mu_ap"] == pytest.approx(17 / 24, abs=TOL)
    four = pl.concat(
        [df, pl.DataFrame({"query": [1], "item": ["d"], "score": [2.0], "relevance": [0]})]
    )
    assert four.graded.evaluate(["ap(rel=2)"], ties="average")["ap(rel=2)"][0] == pytest.approx(
        13 / 36, abs=TOL
    )


# --- "average" against the brute force ------------------------------------------------------


@SETTINGS
@given(tied_tables())
def test_average_equals_the_mean_over_all_orderings(table: TiedTable) -> None:
    """Every measure under ``"average"`` is the mean over every ordering of every tie group."""
    df, by = table
    result = df.graded.evaluate(MEASURES, by=by or None, ties="average")
    assert result.columns == [*by, "query", *MEASURES]
    got = library_values(result, [*by, "query"])
    assert_close(got, policy_values(df, MEASURES, "average", by), df, "average")


@SETTINGS
@given(tied_tables())
def test_optimistic_average_pessimistic_are_ordered(table: TiedTable) -> None:
    """With a gain that grows with the label, optimistic >= average >= pessimistic per query."""
    df, by = table
    keys = [*by, "query"]
    values = {
        ties: library_values(df.graded.evaluate(MEASURES, by=by or None, ties=ties), keys)
        for ties in ("optimistic", "average", "pessimistic")
    }
    for key, best in values["optimistic"].items():
        mean, worst = values["average"][key], values["pessimistic"][key]
        for name in MONOTONE:
            assert best[name] >= mean[name] - TOL >= worst[name] - 2 * TOL, (key, name, df)
        for name in ANTITONE:  # the RBP residual: unjudged rows last is the smallest
            assert best[name] <= mean[name] + TOL <= worst[name] + 2 * TOL, (key, name, df)


def test_average_of_a_tie_group_of_nine() -> None:
    """A tie group bigger than the random tables': one row above it, two below, a relevant
    row not retrieved; the brute force runs over the 9!/(4!3!) = 2520 distinct label lists
    of the group (each the label list of 4!3! of the 9! orderings)."""
    tied = [0, 0, 0, 0, 1, 1, 1, 3, None]
    rows: list[tuple[str, float | None, int | None]] = [("top", 5.0, 2)]
    rows += [(f"t{i}", 2.0, label) for i, label in enumerate(tied)]
    rows += [("b1", 1.0, 1), ("b2", 0.5, 0), ("u", None, 3)]
    df = pl.DataFrame(rows, schema=["item", "score", "relevance"], orient="row").with_columns(
        query=pl.lit(1)
    )
    judged: list[float] = [label for _, _, label in rows if label is not None]
    levels: list[float] = sorted({label for label in judged if label > 0})
    orders = oracle_ties.distinct_orderings(tied)
    assert len(orders) == 2520
    expected = {
        name: sum(oracle.REFERENCE[name](RefQuery([2, *o, 1, 0], judged, levels)) for o in orders)
        / len(orders)
        for name in MEASURES
    }
    got = df.graded.evaluate(MEASURES, ties="average").row(0, named=True)
    assert_close({(1,): got}, {(1,): expected}, df, "average")


# --- µAP on many levels: the pair sweep under "average" -------------------------------------

# continuous labels: about a level per judged row, more than mu_ap_sweep.FEW_LEVELS
MANY_LABELS = st.integers(min_value=-8, max_value=48).map(lambda x: x / 8)
# the library's choice, Fenwick trees only, merged blocks only
SWEEPS: dict[str, dict[str, Any]] = {
    "default": {"FEW_LEVELS": mu_ap_sweep.FEW_LEVELS},
    "fenwick": {"FEW_LEVELS": 0},
    "merged": {"FEW_LEVELS": 0, "DEEP": 1},
}


@st.composite
def many_level_tables(draw: st.DrawFn) -> tuple[pl.DataFrame, int]:
    """One or two queries of up to 12 rows with continuous labels (negative, null, and judged
    rows without a score too), heavy ties, and a cutoff that may cut a tie group; at most
    5,000 orderings per query, for the brute force."""
    rows = []
    for q in range(draw(st.integers(1, 2))):
        items = draw(st.integers(1, 12))
        for item in range(items):
            label = None if draw(st.integers(0, 6)) == 0 else draw(MANY_LABELS)
            unretrieved = label is not None and draw(st.integers(0, 6)) == 0
            score = None if unretrieved else float(draw(st.integers(0, 4)))
            rows.append((q, item, score, label))
    df = pl.DataFrame(rows, schema=["query", "item", "score", "relevance"], orient="row")
    groups = (
        df.drop_nulls("score")
        .group_by("query")
        .agg(pl.col("score").value_counts().struct[1].alias("sizes"))
    )
    for sizes in groups["sizes"].to_list():
        assume(math.prod(math.factorial(n) for n in sizes) <= 5000)
    return df, draw(st.integers(1, 13))


def brute_force_mu_ap(df: pl.DataFrame, k: int) -> dict[Key, dict[str, float]]:
    """mu_ap, mu_ap@k and mu_ap(levels=table)@k: the mean over every ordering of every tie
    group (tests/support/oracle_ties.py), each ordering scored by tests/support/oracle.py."""
    rows, levels = oracle.read_queries(df)
    out = {}
    for key, query_rows in rows.items():
        judged = [r.label for r in query_rows if r.label is not None]
        orderings = oracle_ties.all_orderings(query_rows)
        total = sum(orderings.values())
        scores: dict[str, Callable[[RefQuery], float]] = {
            "mu_ap": lambda q: q.mu_ap("query"),
            f"mu_ap@{k}": lambda q: q.mu_ap("query", k),
            f"mu_ap(levels=table)@{k}": lambda q: q.mu_ap("table", k),
        }
        queries = [(RefQuery(list(o), judged, levels[()]), n) for o, n in orderings.items()]
        out[key] = {
            name: sum(n * score(q) for q, n in queries) / total for name, score in scores.items()
        }
    return out


@pytest.mark.parametrize("sweep", list(SWEEPS))
@FEWER
@given(many_level_tables())
def test_average_mu_ap_on_many_levels_equals_the_brute_force(
    sweep: str, drawn: tuple[pl.DataFrame, int]
) -> None:
    """Issue 14, item 2: µAP under ``"average"`` in O(rows) memory on continuous labels, by
    every sweep, equals the mean over all orderings, cutoffs inside a tie group included."""
    df, k = drawn
    expected = brute_force_mu_ap(df, k)
    with patch.multiple(mu_ap_sweep, **SWEEPS[sweep]):
        result = df.graded.evaluate(list(next(iter(expected.values()))), ties="average")
    assert_close(library_values(result, ["query"]), expected, df, f"average, {sweep} sweep")


def test_a_cutoff_inside_a_tie_group_by_hand() -> None:
    """Labels [3, 1, 0] all tied, k = 2. mu_ap@2 = (1/3) AP^1@2 + (2/3) AP^3@2 (levels 1, 3).
    AP^3@2 (R = 1): the 3 lands at position 1 or 2 with chance 1/3 each: (1 + 1/2) / 3 = 1/2.
    AP^1@2 (R = 2): E[hit at 1] = 2/3; E[hit at 2 * 2 hits] = (2/3)(1/2) = 1/3, so
    E[hit at 2 * precision] = (1/3)(2/2) + (P(hit at 2) - 1/3)(1/2) = 1/3 + (1/3)(1/2) = 1/2
    and AP^1@2 = (2/3 + 1/2) / 2 = 7/12. mu_ap@2 = 7/36 + 1/3 = 19/36."""
    df = pl.DataFrame({"query": 1, "item": [1, 2, 3], "score": 1.0, "relevance": [3, 1, 0]})
    got = df.graded.evaluate(["mu_ap@2"], ties="average")["mu_ap@2"][0]
    assert got == pytest.approx(19 / 36, abs=TOL)


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_AS is POSIX")
def test_average_mu_ap_memory_is_bounded_on_continuous_labels() -> None:
    """Issue 14, item 2: 20,000 rows of one query, a level per row, in tie groups of 4, under
    a 2 GiB address-space limit (the former row-by-level join needed about 10 GB)."""
    script = textwrap.dedent(
        """
        import resource
        limit = 2 * 2**30
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        import numpy as np, polars as pl
        import polars_graded
        n = 20_000
        label = np.random.default_rng(0).permutation(n) / n + 0.001
        df = pl.DataFrame({"query": 1, "item": np.arange(n),
                           "score": np.arange(n) // 4, "relevance": label})
        plain = df.graded.evaluate(["mu_ap"])["mu_ap"][0]
        mean = df.graded.evaluate(["mu_ap"], ties="average")["mu_ap"][0]
        print(plain, mean)
        """
    )
    env = {**os.environ, "POLARS_MAX_THREADS": "2"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        check=False,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    plain, mean = map(float, done.stdout.split())
    assert 0 < mean < 1 and abs(plain - mean) < 0.05  # groups of 4 of 20,000 rows move it little


# --- the deterministic policies -------------------------------------------------------------


@SETTINGS
@given(tied_tables())
def test_deterministic_policies_equal_the_default_on_rewritten_items(table: TiedTable) -> None:
    """``input``, ``optimistic`` and ``pessimistic`` equal the default evaluation of the table
    whose item ids make item-descending the intended tie order, and the brute force."""
    df, by = table
    keys = [*by, "query"]
    for ties in ("input", "optimistic", "pessimistic"):
        got = df.graded.evaluate(MEASURES, by=by or None, ties=ties)
        rewritten = rewrite_items(df, by, ties).graded.evaluate(MEASURES, by=by or None)
        assert_frame_equal(got, rewritten, check_exact=True)
        assert_close(library_values(got, keys), policy_values(df, MEASURES, ties, by), df, ties)


@SETTINGS
@given(tied_tables(tied=False))
def test_without_ties_every_policy_gives_the_same_bits(table: TiedTable) -> None:
    """No two retrieved rows of a query share a score, as float64 or float32: the policy
    changes nothing."""
    df, by = table
    expected = df.graded.evaluate(MEASURES, by=by or None)
    differ = []
    for ties in POLICIES:
        got = df.graded.evaluate(MEASURES, by=by or None, ties=ties)
        assert got.columns == expected.columns
        assert got.select(*by, "query").equals(expected.select(*by, "query"))
        differ += [
            (ties, name, a, b)
            for name in MEASURES
            for a, b in zip(got[name], expected[name], strict=True)
            if a != b
        ]
    assert not differ, f"(ties, measure, value, default): {differ}\n{df.to_dict(as_series=False)}"


def test_average_gives_the_same_bits_every_run() -> None:
    """Evaluating the same table twice gives the same bits, as under the default policy,
    and a LazyFrame collected on the in-memory engine gives a DataFrame's bits.

    One query, three tied rows after a top one, four levels: the sums over levels and over
    positions must not depend on thread scheduling.
    """
    df = pl.DataFrame(
        {
            "query": [44] * 4,
            "item": [12, 26, 14, 19],
            "score": [2.0, 3.0, 2.0, 2.0],
            "relevance": [2, 3, 1, 3],
        }
    )
    results = [df.graded.evaluate(MEASURES, ties="average") for _ in range(30)]
    lazy = df.lazy().graded.evaluate(MEASURES, ties="average")
    results += [lazy.collect(engine="in-memory") for _ in range(10)]
    varying = {
        name: sorted({repr(r[name][0]) for r in results})
        for name in MEASURES
        if len({r[name][0] for r in results}) > 1
    }
    assert not varying, f"values that change between runs: {varying}"


def test_trec_eval_is_the_default() -> None:
    """``ties="trec_eval"`` is what no ``ties=`` gives."""
    df = three_tied()
    assert_frame_equal(
        df.graded.evaluate(MEASURES, ties="trec_eval"),
        df.graded.evaluate(MEASURES),
        check_exact=True,
    )


# --- the option flows everywhere --------------------------------------------------------------

FLOW_MEASURES = ["ap", "mu_ap", "ndcg@3", "ndcng", "p@2", "rr", "mean_ndcg"]


@FEWER
@given(tied_tables())
def test_summary_lazy_and_expressions_take_ties(table: TiedTable) -> None:
    """summary = mean of evaluate; LazyFrame = DataFrame; user expressions = namespace."""
    df, by = table
    keys = [*by, "query"]
    per_query = df.graded.evaluate(FLOW_MEASURES, by=by or None, ties="average")
    # summary
    summary = df.graded.summary(FLOW_MEASURES, by=by or None, ties="average")
    means = (
        per_query.group_by(by).agg(pl.len().alias("num_q"), pl.col(FLOW_MEASURES).mean())
        if by
        else per_query.select(pl.len().alias("num_q"), pl.col(FLOW_MEASURES).mean())
    )
    assert_frame_equal(summary, means, check_row_order=False, check_dtypes=False, abs_tol=TOL)
    # LazyFrame
    lazy = df.lazy().graded.evaluate(FLOW_MEASURES, by=by or None, ties="average")
    assert isinstance(lazy, pl.LazyFrame)
    assert_frame_equal(lazy.collect(engine="in-memory"), per_query, check_exact=True)
    assert_frame_equal(lazy.collect(), per_query, abs_tol=TOL)
    lazy_summary = df.lazy().graded.summary(FLOW_MEASURES, by=by or None, ties="average")
    assert_frame_equal(lazy_summary.collect(), summary, check_row_order=False, abs_tol=TOL)
    # the namespace's per-measure methods
    assert_frame_equal(
        df.graded.ap(by=by or None, ties="average"), per_query.select(*keys, "ap"), abs_tol=TOL
    )
    assert_frame_equal(
        df.graded.mu_ap(by=by or None, ties="average"),
        per_query.select(*keys, "mu_ap"),
        abs_tol=TOL,
    )
    # expressions in a group_by of one's own
    exprs = [
        pg.ap(ties="average"),
        pg.ndcg(k=3, ties="average"),
        pg.ndcng(ties="average"),
        pg.precision(k=2, ties="average"),
        pg.rr(ties="average"),
        pg.mean_ndcg(ties="average"),
        pg.measure_expr(pg.MuAP(levels=[1, 2, 3]), ties="average"),
    ]
    mine = df.group_by(keys).agg(exprs).sort(keys)
    names = ["ap", "ndcg@3", "ndcng", "p@2", "rr", "mean_ndcg", "mu_ap(levels=[1,2,3])"]
    namespace = df.graded.evaluate(names, by=by or None, ties="average")
    assert_frame_equal(mine, namespace, abs_tol=TOL)


def flow_table() -> pl.DataFrame:
    """Two systems, twelve queries, heavy ties (scores 1..3), some null scores and labels."""
    rows = []
    for q in range(12):
        for i in range(6):
            label = None if (q + i) % 7 == 0 else (q * 3 + i * 5) % 4 - 1
            for s in ("a", "b"):
                score = (
                    None
                    if label is not None and (q + i + (s == "b")) % 9 == 0
                    else float((q + i * (2 if s == "a" else 3)) % 3 + 1)
                )
                rows.append((s, f"q{q:02d}", f"d{i}", score, label))
    return pl.DataFrame(
        rows, schema=["system", "query", "item", "score", "relevance"], orient="row"
    )


def test_evaluate_parquet_takes_ties(tmp_path: Path) -> None:
    """Partitions of a Parquet file give the in-memory values under ``ties="average"``."""
    df = flow_table()
    path = tmp_path / "run.parquet"
    df.write_parquet(path)
    got = pg.evaluate_parquet(path, FLOW_MEASURES, by="system", ties="average", partitions=3)
    expected = df.graded.evaluate(FLOW_MEASURES, by="system", ties="average")
    assert_frame_equal(got, expected, check_exact=True)
    assert not got.equals(df.graded.evaluate(FLOW_MEASURES, by="system"))  # ties matter here
    summary = pg.summary_parquet(path, FLOW_MEASURES, by="system", ties="average", partitions=3)
    assert_frame_equal(
        summary, df.graded.summary(FLOW_MEASURES, by="system", ties="average"), abs_tol=TOL
    )


def test_every_namespace_method_takes_ties() -> None:
    """Each per-measure method with ``ties="average"`` gives evaluate's column, eager and lazy."""
    df = flow_table()
    opts: dict[str, Any] = {"by": "system", "ties": "average"}
    calls: dict[str, Callable[[Any], Any]] = {
        "mu_ap(levels=table)@3": lambda ns: ns.mu_ap(levels="table", k=3, **opts),
        "ap(rel=2)@3": lambda ns: ns.ap(rel=2, k=3, **opts),
        "ndcg(gain=linear)@2": lambda ns: ns.ndcg(k=2, gain="linear", **opts),
        "ndcng@3": lambda ns: ns.ndcng(k=3, **opts),
        "dcg@3": lambda ns: ns.dcg(k=3, **opts),
        "p@2": lambda ns: ns.precision(k=2, **opts),
        "recall@3": lambda ns: ns.recall(k=3, **opts),
        "r_precision": lambda ns: ns.r_precision(**opts),
        "rr@2": lambda ns: ns.rr(k=2, **opts),
        "mean_ndcg": lambda ns: ns.mean_ndcg(**opts),
        "mean_ndcng": lambda ns: ns.mean_ndcng(**opts),
    }
    expected = df.graded.evaluate(list(calls), **opts)
    default = df.graded.evaluate(list(calls), by="system")
    for name, call in calls.items():
        want = expected.select("system", "query", name)
        assert_frame_equal(call(df.graded), want, abs_tol=TOL)
        assert_frame_equal(call(df.lazy().graded).collect(), want, abs_tol=TOL)
        assert not want.equals(default.select("system", "query", name)), name  # ties matter


def test_cli_ties_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--ties average`` writes the per-query values of ``ties="average"``."""
    df = flow_table()
    path, out = tmp_path / "table.parquet", tmp_path / "out.parquet"
    df.write_parquet(path)
    args = ["evaluate", str(path), "-m", "ap,ndcg@3", "--by", "system", "--ties", "average"]
    assert main([*args, "-o", str(out)]) == 0
    capsys.readouterr()
    expected = df.graded.evaluate(["ap", "ndcg@3"], by="system", ties="average")
    assert_frame_equal(pl.read_parquet(out), expected, abs_tol=TOL)


def test_compare_takes_ties() -> None:
    """compare(..., ties="average") reports the means of evaluate(..., ties="average")."""
    df = flow_table()
    measures = ["ap", "ndcg@3"]
    out = df.graded.compare(measures, by="system", ties="average", trials=50, bootstrap=50)
    means = (
        df.graded.evaluate(measures, by="system", ties="average")
        .group_by("system")
        .agg(pl.col(measures).mean())
    )
    for row in out.iter_rows(named=True):
        expected = means.filter(pl.col("system") == row["system"])[row["measure"]][0]
        assert row["mean"] == pytest.approx(expected, abs=TOL)
    default = df.graded.compare(measures, by="system", trials=50, bootstrap=50)
    assert not out["mean"].equals(default["mean"])  # ties matter here


# --- more parameters: ERR, RBP and its residual, bpref, Judged@k and success@k ---------------
# Parameters the oracle's REFERENCE does not list, on small tables with heavy ties; each
# measure's own file (test_measures_err, _rbp, _bpref, _judged, _rank) holds its other tests.

MORE: dict[str, Callable[[RefQuery], float]] = {
    "err": lambda q: q.err(),
    "err@3": lambda q: q.err(3),
    "err(max_rel=6)@2": lambda q: q.err(2, max_rel=6),
    "rbp": lambda q: q.rbp(),
    "rbp(p=0.5,rel=2)@3": lambda q: q.rbp(0.5, rel=2, k=3),
    "rbp_residual": lambda q: q.rbp_residual(),
    "rbp_residual(p=0.9)@2": lambda q: q.rbp_residual(0.9, k=2),
    "judged": lambda q: q.judged_share(),
    "judged@3": lambda q: q.judged_share(3),
    "success@1": lambda q: q.success(k=1),
    "success(rel=2)@3": lambda q: q.success(rel=2, k=3),
    "success": lambda q: q.success(),
    "bpref": lambda q: q.bpref(),
    "bpref(rel=2)": lambda q: q.bpref(rel=2),
}
"""Measure string -> its oracle value on one query."""
# A rise in a label never lowers these (judged and the residual are about judgments).
MORE_MONOTONE = [m for m in MORE if not m.startswith(("judged", "rbp_residual"))]
MORE_SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def more_oracle_values(df: pl.DataFrame, ties: TiePolicy) -> dict[Key, dict[str, float]]:
    """``{(query,): {measure: value}}`` of :data:`MORE` under ``ties``: the order of
    :func:`oracle_ties.policy_order`, or for ``"average"`` the mean over every ordering of
    the tie groups (:func:`oracle_ties.all_orderings`)."""
    rows, _ = oracle.read_queries(df)
    out = {}
    for key, query_rows in rows.items():
        judged = [r.label for r in query_rows if r.label is not None]
        if ties == "average":
            orderings = oracle_ties.all_orderings(query_rows)
        else:
            ranked = tuple(r.label for r in oracle_ties.policy_order(query_rows, ties))
            orderings = Counter([ranked])
        total = sum(orderings.values())
        out[key] = {
            name: sum(n * ref(RefQuery(list(labels), judged)) for labels, n in orderings.items())
            / total
            for name, ref in MORE.items()
        }
    return out


def assert_matches_more_oracle(df: pl.DataFrame, ties: TiePolicy) -> None:
    got = df.graded.evaluate(list(MORE), ties=ties)
    assert_close(library_values(got, ["query"]), more_oracle_values(df, ties), df, ties)


@settings(MORE_SETTINGS, max_examples=80)
@given(long_tables(labels="int", max_queries=4, max_items=12))
def test_more_parameters_equal_the_oracle(df: pl.DataFrame) -> None:
    assert_matches_more_oracle(df, "trec_eval")


# Small scores tie often; at most 7 retrieved rows keep the enumeration small.
HEAVY_TIES = st.integers(0, 2).map(float)


@st.composite
def small_tied_tables(draw: st.DrawFn) -> pl.DataFrame:
    rows = []
    for query in range(draw(st.integers(1, 3))):
        for item in range(draw(st.integers(1, 7))):
            label = draw(st.one_of(st.none(), st.integers(-2, 5)))
            score = draw(HEAVY_TIES) if label is None or draw(st.integers(0, 4)) else None
            rows.append((query, f"d{item}", score, label))
    schema = {"query": pl.Int64, "item": pl.String, "score": pl.Float64, "relevance": pl.Int64}
    return pl.DataFrame(rows, schema=schema, orient="row")


@settings(MORE_SETTINGS, max_examples=120)
@given(small_tied_tables())
def test_more_parameters_average_the_oracle_over_every_order(df: pl.DataFrame) -> None:
    assert_matches_more_oracle(df, "average")


@settings(MORE_SETTINGS, max_examples=60)
@given(small_tied_tables())
def test_more_parameters_optimistic_average_pessimistic_are_ordered(df: pl.DataFrame) -> None:
    values = {
        ties: df.graded.evaluate(MORE_MONOTONE, ties=ties)
        for ties in ("optimistic", "average", "pessimistic")
    }
    for name in MORE_MONOTONE:
        high, mid, low = (values[t][name].to_numpy() for t in values)
        assert (high >= mid - TOL).all(), name
        assert (mid >= low - TOL).all(), name


@settings(MORE_SETTINGS, max_examples=40)
@given(long_tables(labels="int", max_queries=3, max_items=10))
def test_more_parameters_without_ties_give_the_same_bits(df: pl.DataFrame) -> None:
    df = df.with_columns(score=pl.int_range(pl.len()).cast(pl.Float64))  # all distinct
    expected = df.graded.evaluate(list(MORE))
    for ties in ("input", "optimistic", "pessimistic", "average"):
        got = df.graded.evaluate(list(MORE), ties=ties)
        assert_frame_equal(got, expected, check_exact=True)


def test_err_rbp_judged_success_and_bpref_by_hand() -> None:
    """One query: a (score 3, label 0), b and c tied at 2 (labels 2, unjudged), d unretrieved
    (label 1). trec_eval order a, c, b; ERR's R(2) = 3/16."""
    df = pl.DataFrame(
        {
            "query": [1, 1, 1, 1],
            "item": ["a", "b", "c", "d"],
            "score": [3.0, 2.0, 2.0, None],
            "relevance": [0, 2, None, 1],
        }
    )
    measures = ["err", "rbp", "rbp_residual", "judged@3", "success@2", "bpref"]
    got = df.graded.evaluate(measures).row(0, named=True)
    assert got["err"] == pytest.approx((3 / 16) / 3)
    assert got["rbp"] == pytest.approx(0.2 * 0.8**2)  # b at position 3
    assert got["rbp_residual"] == pytest.approx(0.2 * 0.8 + 0.8**3)  # c unjudged at 2
    assert got["judged@3"] == pytest.approx(2 / 3)
    assert got["success@2"] == 0.0
    assert got["bpref"] == 0.0  # a (non-relevant) precedes b, min(1, R=2) / min(R, N=1) = 1
    average = df.graded.evaluate(measures, ties="average").row(0, named=True)
    assert average["err"] == pytest.approx((3 / 16) * (1 / 2 + 1 / 3) / 2)
    assert average["success@2"] == pytest.approx(0.5)


# --- bad values -------------------------------------------------------------------------------


def test_cli_rejects_a_bad_tie_policy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI exits with status 2 and says what is wrong."""
    path = tmp_path / "table.parquet"
    three_tied().write_parquet(path)
    try:
        code: int | str | None = main(["evaluate", str(path), "-m", "ap", "--ties", "random"])
    except SystemExit as exit_:  # argparse choices exit from inside main
        code = exit_.code
    assert code == 2
    assert "ties" in capsys.readouterr().err
