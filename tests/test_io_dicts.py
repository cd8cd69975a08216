"""pytrec_eval's dicts as the long table (polars_graded/io/dicts.py): the same values as
pytrec_eval on the same dicts, the queries kept, key types, and clear errors."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

import polars as pl
import pytest
import pytrec_eval
from support.trec_eval import PYTREC_EVAL, Qrels, Run, our_measure

import polars_graded as pg

TREC_MEASURES = (
    "map",
    "ndcg_cut_10",
    "ndcg",
    "P_5",
    "recall_10",
    "recip_rank",
    "Rprec",
    "bpref",
    "map_cut_10",
    "success_1",
)
"""pytrec_eval's names of the measures compared; :func:`our_measure` gives ours."""
TOL = 1e-9


def random_dicts(seed: int, queries: int = 60) -> tuple[Run, Qrels]:
    """A run and qrels as pytrec_eval takes them, full of its edge cases: tied scores,
    judged items the run did not return, returned items nobody judged, labels -1..3, judged
    queries the run misses, returned queries nobody judged, empty inner dicts."""
    rng = random.Random(seed)
    run: Run = {}
    qrels: Qrels = {}
    for q in range(queries):
        query = f"q{q}"
        pool = [f"d{i}" for i in range(rng.randint(1, 30))]
        if rng.random() < 0.85:  # else the run misses this query
            returned = rng.sample(pool, rng.randint(0, len(pool)))
            # A score among few values: many ties, broken by item as trec_eval breaks them.
            run[query] = {item: rng.choice([0.5, 1.0, 1.25, 2.0, 3.5, -1.0]) for item in returned}
        if rng.random() < 0.85:  # else nobody judged this query
            judged = rng.sample(pool, rng.randint(0, len(pool)))
            qrels[query] = {item: rng.randint(-1, 3) for item in judged}
    return run, qrels


def pytrec(run: Run, qrels: Qrels) -> dict[str, dict[str, float]]:
    """pytrec_eval's values, {query: {our measure name: value}}.

    The run's empty queries are left out: pytrec_eval (0.5) crashes on one when it computes
    bpref, and otherwise skips it as a query the run misses (a run {"q": {}} and a run
    without "q" give the same results there)."""
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_MEASURES))
    run = {query: scores for query, scores in run.items() if scores}
    return {
        query: {our_measure(name): value for name, value in values.items()}
        for query, values in evaluator.evaluate(run).items()
    }


def ours(table: pl.DataFrame, by: list[str] | None = None) -> dict[Any, dict[str, float]]:
    """Our values under pytrec_eval's score comparison, {by + query: {measure: value}}."""
    names = sorted({our_measure(name) for name in TREC_MEASURES})
    keys = [*(by or []), "query"]
    per_query = pg.evaluate(table, names, by=by, compat=PYTREC_EVAL)
    return {
        row[keys[0]] if not by else tuple(row[k] for k in keys): {n: row[n] for n in names}
        for row in per_query.iter_rows(named=True)
    }


def differences(
    expected: Mapping[Any, dict[str, float]], got: dict[Any, dict[str, float]]
) -> list[tuple[Any, str, float, float]]:
    return [
        (query, name, got[query][name], value)
        for query, values in expected.items()
        for name, value in values.items()
        if not math.isclose(got[query][name], value, rel_tol=0, abs_tol=TOL)
    ]


@pytest.mark.parametrize("seed", [1, 2])
def test_values_are_pytrec_evals_on_the_same_dicts(seed: int) -> None:
    run, qrels = random_dicts(seed)
    expected = pytrec(run, qrels)
    assert len(expected) > 20  # the comparison is not vacuous
    both = ours(pg.from_dicts(run, qrels, queries="both"))
    assert set(both) == set(expected)  # pytrec_eval's queries: judged and returned
    assert differences(expected, both) == []
    # The default keeps the judged queries the run missed, at 0 (trec_eval -c).
    default = ours(pg.from_dicts(run, qrels))
    judged = {query for query, labels in qrels.items() if labels}
    assert set(default) == judged
    assert differences(expected, default) == []
    missed = judged - set(expected)
    assert missed  # the random dicts have such queries
    assert all(value == 0 for query in missed for value in default[query].values())


def test_by_evaluates_each_system_as_pytrec_eval_does_alone() -> None:
    run_a, qrels = random_dicts(3)
    run_b, _ = random_dicts(4)
    table = pg.from_dicts({"a": run_a, "b": run_b}, qrels, by="system", queries="both")
    assert table.columns == ["system", "query", "item", "score", "relevance"]
    got = ours(table, by=["system"])
    for system, run in (("a", run_a), ("b", run_b)):
        expected = {(system, q): v for q, v in pytrec(run, qrels).items()}
        assert {key for key in got if key[0] == system} == set(expected)
        assert differences(expected, got) == []


def test_rows_follow_the_table_contract() -> None:
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"a": 1.0}}
    qrels = {"q1": {"b": 1, "c": 2}, "q3": {"a": 0}}
    table = pg.from_dicts(run, qrels).sort("query", "item")
    assert table.schema == pl.Schema(
        {"query": pl.String, "item": pl.String, "score": pl.Float64, "relevance": pl.Int64}
    )
    assert table.rows() == [
        ("q1", "a", 2.0, None),  # returned, unjudged
        ("q1", "b", 1.0, 1),
        ("q1", "c", None, 2),  # judged, not returned
        ("q3", "a", None, 0),  # a judged query the run missed (q2: never judged, dropped)
    ]
    every = pg.from_dicts(run, qrels, queries="all")
    assert sorted(every.get_column("query").unique()) == ["q1", "q2", "q3"]


def test_column_names_and_int_keys() -> None:
    table = pg.from_dicts(
        {"s": {1: {10: 1.0}}},
        {1: {10: 2.5, 11: 1}},
        by="run",
        query="topic",
        item="doc",
        score="s",
        relevance="label",
    )
    assert table.schema == pl.Schema(
        {"run": pl.String, "topic": pl.Int64, "doc": pl.Int64, "s": pl.Float64, "label": pl.Float64}
    )
    assert sorted(table.rows()) == [("s", 1, 10, 1.0, 2.5), ("s", 1, 11, None, 1.0)]


def test_empty_dicts_and_systems() -> None:
    empty = pg.from_dicts({}, {})
    assert empty.is_empty() and empty.columns == ["query", "item", "score", "relevance"]
    assert pg.evaluate(empty, ["ap"]).is_empty()
    # A system with no entries returned nothing: 0 on every judged query, as pytrec_eval
    # gives a run missing a query 0 under trec_eval -c (and skips it otherwise).
    qrels = {"q1": {"a": 1}, "q2": {}}
    runs: dict[str, Run] = {"full": {"q1": {"a": 1.0}}, "none": {}, "blank": {"q1": {}}}
    summary = pg.summary(pg.from_dicts(runs, qrels, by="system"), ["ap"], by="system")
    assert summary.sort("system").rows() == [("blank", 1, 0.0), ("full", 1, 1.0), ("none", 1, 0.0)]
    both = pg.from_dicts(runs, qrels, by="system", queries="both")
    assert both.get_column("system").unique().to_list() == ["full"]


ERRORS: dict[str, tuple[Any, Any, dict[str, Any], type[Exception], str]] = {
    "systems without by": (
        {"bm25": {"q1": {"a": 1.0}}},
        {"q1": {"a": 1}},
        {},
        pg.ColumnTypeError,
        r"run\['bm25'\]\['q1'\] is a dict .*several systems\? pass by='system'",
    ),
    "by without systems": (
        {"q1": {"a": 1.0}},
        {"q1": {"a": 1}},
        {"by": "system"},
        pg.ColumnTypeError,
        r"run\['q1'\]\['a'\] must be a dict \{item: value\}, got a float .*by='system' takes",
    ),
    "mixed key types": (
        {1: {"a": 1.0}, "q2": {"a": 1.0}},
        {"q2": {"a": 1}},
        {},
        pg.ColumnTypeError,
        r"query keys of the run must be all str .* or all int; found int 1, str 'q2'",
    ),
    "run and qrels keys differ": (
        {"q1": {1: 1.0}},
        {"q1": {"1": 1}},
        {},
        pg.ColumnTypeError,
        r"item keys of the run are int \(e\.g\. 1\) but those of the qrels str \(e\.g\. '1'\)",
    ),
    "text score": (
        {"q1": {"a": "high"}},
        {},
        {},
        pg.ColumnTypeError,
        r"a score must be a number; run\['q1'\]\['a'\] is a str \('high'\)",
    ),
    "NaN score": (
        {"s": {"q1": {"a": float("nan")}}},
        {},
        {"by": "system"},
        pg.InvalidValueError,
        r"run\['s'\]\['q1'\]\['a'\] is NaN; a score must be a number, not NaN",
    ),
    "infinite label": (
        {},
        {"q1": {"a": float("inf")}},
        {},
        pg.InvalidValueError,
        r"qrels\['q1'\]\['a'\] is infinite; a label must be finite",
    ),
    "boolean label": (
        {},
        {"q1": {"a": True}},
        {},
        pg.ColumnTypeError,
        r"a label must be a number; qrels\['q1'\]\['a'\] is a bool",
    ),
    "label beyond Int64": (
        {},
        {"q1": {"a": 2**64}},
        {},
        pg.ColumnTypeError,
        r"beyond Int64's range",
    ),
    "a table for a dict": (
        pl.DataFrame({"query": ["q1"]}),
        {},
        {},
        pg.ColumnTypeError,
        r"run must be a dict .*got a DataFrame; .*pg\.join_run_qrels",
    ),
    "a list for the inner dict": (
        {"q1": ["a", "b"]},
        {},
        {},
        pg.ColumnTypeError,
        r"run\['q1'\] must be a dict \{item: value\}, got a list",
    ),
    "clashing names": (
        {},
        {},
        {"by": "query"},
        pg.InvalidValueError,
        r"distinct column names; got query='query', .* by='query'",
    ),
    "bad queries": ({}, {}, {"queries": "run"}, pg.InvalidValueError, r"queries must be"),
}


@pytest.mark.parametrize("case", ERRORS)
def test_bad_dicts_are_clear_errors(case: str) -> None:
    run, qrels, options, error, message = ERRORS[case]
    with pytest.raises(error, match=message):
        pg.from_dicts(run, qrels, **options)
