"""Differential tests: polars_graded against trec_eval (pytrec_eval) on a random long table.

The table (:func:`support.trec_eval.random_table`, two systems sharing one set of judgments)
holds every case trec_eval has an opinion on: tied scores, scores that tie only at float32,
unretrieved judged rows (null score), retrieved unjudged rows (null relevance), negative
labels (-1, -2), queries with no relevant row, queries a system returned nothing for, and
queries with no judgment at all. pytrec_eval gets its qrels from the rows with a relevance
and its run from the rows with a score, and only evaluates queries that are in both: for
the others our value must be 0.

pytrec_eval is trec_eval 9.x, which stores scores as float32: ours are compared with it under
``compat="trec_eval_9"`` and must agree exactly. Our default follows trec_eval 10.0, which
compares doubles (conventions §2): it differs from pytrec_eval on some queries with float32-only
ties, and on those only.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import polars as pl
import pytest
import pytrec_eval
from support.trec_eval import SYSTEMS, TEMPLATES, random_table, trec_dicts

import polars_graded as pg
from polars_graded.options import Compat

TOL = 1e-9
PYTREC_EVAL: Compat = "trec_eval_9"
"""The ``compat=`` that reproduces pytrec_eval (trec_eval 9.x)."""
PerQuery = dict[tuple[str, str], dict[str, Any]]
"""{(system, query): {measure: value}}, trec_eval's or ours (our rows hold the keys too)."""

# pytrec_eval measure specification per relevance level
TREC_MEASURES = {
    1: {
        "map",
        "map_cut.5,10,20,100",
        "ndcg",
        "ndcg_cut.5,10,20,100",
        "P.1,5,10,20,100",
        "recall.5,10,20,100",
        "Rprec",
        "recip_rank",
        "set_P",
        "set_recall",
        "bpref",
        "success.1,5,10",
    },
    2: {"map", "map_cut.10", "P.5,10", "recall.10", "Rprec", "recip_rank", "set_P", "bpref"},
    3: {"map", "P.10", "Rprec", "recip_rank", "bpref", "success.5"},
}


def our_name(trec: str, rel: int) -> str:
    """Canonical polars_graded column for a trec_eval output name at relevance level rel."""
    base, _, k = trec.rpartition("_") if trec[-1].isdigit() else (trec, "", "")
    text = TEMPLATES[base].format(r="" if rel == 1 else f"(rel={rel})", k=k)
    return str(pg.parse_measure(text))


def trec_values(table: pl.DataFrame) -> dict[tuple[str, str], dict[str, float]]:
    """{(system, query): {our measure name: trec_eval value}} for the queries it evaluates."""
    out: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for system in SYSTEMS:
        qrels, run = trec_dicts(table, system)
        for rel, measures in TREC_MEASURES.items():
            evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=rel)
            for query, values in evaluator.evaluate(run).items():
                for trec, value in values.items():
                    out[system, query][our_name(trec, rel)] = value
    return dict(out)


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return random_table(20110711)


@pytest.fixture(scope="module")
def expected(table: pl.DataFrame) -> dict[tuple[str, str], dict[str, float]]:
    return trec_values(table)


@pytest.fixture(scope="module")
def measures(expected: PerQuery) -> list[str]:
    return sorted({name for values in expected.values() for name in values})


@pytest.fixture(scope="module")
def ours(table: pl.DataFrame, measures: list[str]) -> PerQuery:
    """Our values under ``compat="trec_eval_9"``, pytrec_eval's release."""
    per_query = table.graded.evaluate(measures, by="system", compat=PYTREC_EVAL)
    return {(row["system"], row["query"]): row for row in per_query.iter_rows(named=True)}


@pytest.fixture(scope="module")
def ours_default(table: pl.DataFrame, measures: list[str]) -> PerQuery:
    """Our values by default (trec_eval 10.0: scores compared as float64)."""
    per_query = table.graded.evaluate(measures, by="system")
    return {(row["system"], row["query"]): row for row in per_query.iter_rows(named=True)}


def test_the_table_has_the_edge_cases(table: pl.DataFrame, expected: PerQuery) -> None:
    keys = table.group_by("system", "query").agg(
        retrieved=pl.col("score").is_not_null().sum(),
        judged=pl.col("relevance").is_not_null().sum(),
        relevant=(pl.col("relevance") >= 1).sum(),
        float32_ties=pl.col("score").n_unique() - pl.col("score").cast(pl.Float32).n_unique(),
    )
    assert len(expected) >= 2 * 200  # queries trec_eval evaluates
    assert keys.filter(pl.col("retrieved") == 0, pl.col("judged") > 0).height >= 5
    assert keys.filter(pl.col("judged") == 0).height >= 5
    assert keys.filter(pl.col("relevant") == 0, pl.col("judged") > 0).height >= 10
    assert keys.filter(pl.col("float32_ties") > 0).height >= 100
    labels = set(table["relevance"].drop_nulls())
    assert {-2, -1, 0, 1, 2, 3, 4} <= labels
    assert table["score"].null_count() > 0
    assert table["relevance"].null_count() > 0


def test_per_query_values_equal_trec_eval(expected: PerQuery, ours: PerQuery) -> None:
    mismatches = [
        (key, name, mine, theirs)
        for key, values in expected.items()
        for name, theirs in values.items()
        if abs((mine := ours[key][name]) - theirs) > TOL
    ]
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:10]}"


def test_the_default_differs_from_trec_eval_9_only_on_float32_ties(
    table: pl.DataFrame, expected: PerQuery, ours: PerQuery, ours_default: PerQuery
) -> None:
    """trec_eval 10.0 compares scores as doubles: where two scores tie as float32 but not as
    float64, the order (and so a value) may change; nowhere else."""
    tied = table.group_by("system", "query").agg(
        pl.col("score").drop_nulls().n_unique()
        > pl.col("score").drop_nulls().cast(pl.Float32).n_unique()
    )
    float32_tied = set(tied.filter(pl.col("score")).select("system", "query").rows())
    differ = {
        key
        for key, values in expected.items()
        for name, theirs in values.items()
        if abs(ours_default[key][name] - theirs) > TOL
    }
    assert differ <= float32_tied, sorted(differ - float32_tied)[:10]
    assert len(differ) >= 10  # the release matters on this table
    # the queries pytrec_eval skips score 0 under both releases
    assert {key for key in ours_default if key not in expected} == {
        key for key in ours if key not in expected
    }


def test_queries_trec_eval_skips_score_zero(
    expected: PerQuery, ours: PerQuery, measures: list[str]
) -> None:
    skipped = [key for key in ours if key not in expected]
    assert len(skipped) >= 10  # nothing retrieved, or nothing judged
    nonzero = [(key, m, ours[key][m]) for key in skipped for m in measures if ours[key][m] != 0]
    assert not nonzero, nonzero[:10]


def test_means_equal_trec_eval_with_c(table: pl.DataFrame, expected: PerQuery) -> None:
    """trec_eval -c: every judged query counts, the ones a system missed with 0."""
    names = ["ap", "ndcg(gain=linear)@10", "p(rel=2)@10", "rr(rel=3)"]
    judged = table.filter(pl.col("relevance").is_not_null().any().over("query"))
    summary = judged.graded.summary(names, by="system", compat=PYTREC_EVAL)
    for row in summary.iter_rows(named=True):
        queries = judged.filter(pl.col("system") == row["system"])["query"].unique()
        assert row["num_q"] == len(queries)
        for name in names:
            values = [expected.get((row["system"], q), {}).get(name, 0.0) for q in queries]
            assert row[name] == pytest.approx(sum(values) / len(values), abs=TOL)


def test_each_system_alone_equals_by_system(table: pl.DataFrame, ours: PerQuery) -> None:
    alone = table.filter(pl.col("system") == SYSTEMS[1]).drop("system")
    names = ["ap(rel=2)", "ndcg(gain=linear)"]
    per_query = alone.lazy().graded.evaluate(names, compat=PYTREC_EVAL).collect()
    for row in per_query.iter_rows(named=True):
        mine = ours[SYSTEMS[1], row["query"]]
        assert row["ap(rel=2)"] == pytest.approx(mine["ap(rel=2)"], abs=TOL)
        assert row["ndcg(gain=linear)"] == pytest.approx(mine["ndcg(gain=linear)"], abs=TOL)


# Custom gains. trec_eval's own rules, read in m_ndcg.c / form_res_rels.c: a listed label
# gets its gain, an unlisted level l >= 0 keeps gain l, and the ideal ranking walks the
# levels sorted by gain, counting the positive ones. Two quirks are left out on purpose:
# trec_eval sorts the levels with an int-truncated comparison (gains closer than 1 may be
# misordered in its ideal ranking), and it looks up every negative judgment as label -2
# and every unjudged document as -1, so listed negative labels mean something else there.
CUSTOM_GAINS = ["1=3,2=9,4=4.5", "0=1,1=3,3=7", "2=-1", "4=0,3=1", "1=10,2=5"]


@pytest.mark.parametrize("pairs", CUSTOM_GAINS)
def test_custom_gains_equal_trec_eval(table: pl.DataFrame, pairs: str) -> None:
    # the pytrec_eval wrapper splits parameters on ",", so call its extension directly
    evaluator_class = pytrec_eval.RelevanceEvaluator.__mro__[1]
    ours_name = str(pg.parse_measure(f"ndcg(gain={{{pairs.replace('=', ':')}}})"))
    per_query = table.graded.evaluate([ours_name], by="system", compat=PYTREC_EVAL)
    ours = {(r[0], r[1]): r[2] for r in per_query.iter_rows()}
    mismatches = []
    for system in SYSTEMS:
        qrels, run = trec_dicts(table, system)
        evaluator = evaluator_class(
            query_relevance=qrels,
            measures={f"ndcg.{pairs}"},
            relevance_level=1,
            judged_docs_only_flag=False,
        )
        result = evaluator.evaluate(run)
        assert len(result) >= 200
        mismatches += [
            (system, q, ours[system, q], v["ndcg"])
            for q, v in result.items()
            if abs(ours[system, q] - v["ndcg"]) > TOL
        ]
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:10]}"
