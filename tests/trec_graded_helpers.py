"""Shared by the tests of trec_eval's graded and sampling measures (infAP, G, binG,
ndcg_rel, Rndcg, rbp, rbp_resid): pytrec_eval's values on the suite's random table (which
ours reproduce under ``compat="trec_eval_9"``, :data:`PYTREC_EVAL`), and trec_eval 10.0's
expected per-query values from ``../shared/data/trec_eval-test`` (ours by default).
"""

from __future__ import annotations

import functools
import warnings
from collections import defaultdict
from pathlib import Path

import polars as pl
import pytrec_eval
from conftest import (
    Table,
    assert_finite,
    make_random_table,
    read_trec_eval_output,
    require_shared_data,
    tables,
    trec_dicts,
)
from hypothesis import HealthCheck, given, settings

import polars_graded as pg

SYSTEMS = ("s0", "s1")
TOL = 1e-9
TREC_EVAL_TEST = "trec_eval-test"
PYTREC_EVAL = "trec_eval_9"
"""The ``compat=`` that reproduces pytrec_eval (trec_eval 9.0.x): float32 scores."""


def random_table(seed: int, queries: int = 160) -> pl.DataFrame:
    """Two systems sharing judgments: integer labels -2..4, ties, unjudged and unretrieved
    rows, empty queries (as in test_trec_eval_differential)."""
    table = make_random_table(
        seed,
        systems=len(SYSTEMS),
        queries=queries,
        max_items=40,
        int_labels=True,
        label_kinds=("few",),
        trec_eval_safe=True,
    )
    return table.sort("system", "query", "item")


def pytrec_values(
    table: pl.DataFrame, measure: str, *, rel: int = 1
) -> dict[tuple[str, str], float]:
    """{(system, query): value} of one pytrec_eval measure (parameters after a dot, as
    ``G.1=3,2=9``) for the queries it evaluates, skipping queries without a judged label
    >= 0: trec_eval then reads the gain table of the query before (a stale cache)."""
    evaluator_class = pytrec_eval.RelevanceEvaluator.__mro__[1]  # splits no parameters
    name = measure.partition(".")[0]
    out = {}
    for system in SYSTEMS:
        qrels, run = trec_dicts(table, system)
        evaluator = evaluator_class(
            query_relevance=qrels,
            measures={measure},
            relevance_level=rel,
            judged_docs_only_flag=False,
        )
        for query, values in evaluator.evaluate(run).items():
            if max(qrels[query].values()) >= 0:
                out[system, query] = values[name]
    return out


def ours(table: pl.DataFrame, measure: str, **options: object) -> dict[tuple[str, str], float]:
    """{(system, query): value} of one of our measure strings (``options``: the table
    options; pass ``compat=PYTREC_EVAL`` to compare with :func:`pytrec_values`)."""
    per_query = table.graded.evaluate([measure], by="system", **options)  # type: ignore[arg-type]
    return {(s, q): v for s, q, v in per_query.iter_rows()}


def mismatches(
    expected: dict[tuple[str, str], float], got: dict[tuple[str, str], float]
) -> list[tuple[tuple[str, str], float, float]]:
    """The keys where ``got`` differs from ``expected`` by more than :data:`TOL`."""
    return [(key, got[key], want) for key, want in expected.items() if abs(got[key] - want) > TOL]


def expected_output(name: str) -> dict[str, dict[str, str]]:
    """trec_eval 10.0's ``out.*`` file: {measure: {query or "all": value as printed}}, to
    compare with our default (10.0)."""
    path: Path = require_shared_data(f"{TREC_EVAL_TEST}/{name}")
    out: dict[str, dict[str, str]] = defaultdict(dict)
    for (measure, query), value in read_trec_eval_output(path).items():
        out[measure][query] = value
    return dict(out)


def trec_eval_test_table(qrels: str, run: str = "results.test") -> pl.DataFrame:
    """A run of ``trec_eval-test`` joined to its qrels (the queries of the run)."""
    folder = require_shared_data(TREC_EVAL_TEST)
    return pg.join_run_qrels(pg.read_trec_run(folder / run), pg.read_trec_qrels(folder / qrels))


def printed(table: pl.DataFrame, measure: str, **options: object) -> dict[str, str]:
    """Our per-query values and their mean (as ``"all"``), printed with 4 decimals."""
    per_query = table.graded.evaluate([measure], **options)  # type: ignore[arg-type]
    values = {q: f"{v:.4f}" for q, v in per_query.iter_rows()}
    values["all"] = f"{per_query[measure].mean():.4f}"
    return values


def check_table_options(names: list[str]) -> None:
    """``names`` give the same values on a shuffled DataFrame, a LazyFrame, input in ranked
    order (``ranked=True``; sorted by score as float64, the default's comparison), each
    system alone and a string ``by``; every value finite, and the standalone expressions
    agree with evaluate."""
    data = random_table(20260616, queries=60)
    expected = data.sample(fraction=1.0, shuffle=True, seed=3).graded.evaluate(names, by="system")
    assert all(expected[name].is_finite().all() for name in names)
    lazy = data.lazy().graded.evaluate(names, by="system").collect(engine="in-memory")
    assert lazy.equals(expected)
    ranked = data.sort(
        ["system", "query", "score", "item"],
        descending=[False, False, True, True],
        nulls_last=True,
    )
    assert ranked.graded.evaluate(names, by="system", ranked=True).equals(expected)
    alone = data.filter(pl.col("system") == SYSTEMS[0]).drop("system").graded.evaluate(names)
    assert alone.equals(expected.filter(pl.col("system") == SYSTEMS[0]).drop("system"))
    exprs = [pg.measure_expr(pg.parse_measure(name)) for name in names]
    grouped = data.group_by("system", "query").agg(exprs).sort("system", "query")
    for name in names:
        got, want = grouped[name].to_list(), expected[name].to_list()
        assert max(abs(a - b) for a, b in zip(got, want, strict=True)) <= TOL, name


@functools.cache
def dl19_bm25() -> tuple[pl.DataFrame, dict, dict]:
    """The TREC DL 2019 passage BM25 run joined to its graded qrels (labels 0..3), and
    pytrec_eval's qrels and run of it."""
    folder = require_shared_data("trec-dl-2019-2020-passage")
    qrels = pg.read_trec_qrels(folder / "qrels.dl19-passage.txt")
    run = pg.read_trec_run(folder / "runs" / "BM25" / "trec_results_dl19.txt.gz")
    table = pg.join_run_qrels(run, qrels).with_columns(pl.lit("s0").alias("system"))
    return table, *trec_dicts(table, "s0")


def real_run_mismatches(trec: str, ours_name: str, *, rel: int = 1) -> list:
    """Per-query differences between pytrec_eval's ``trec`` and our ``ours_name`` (under
    ``compat="trec_eval_9"``) on :func:`dl19_bm25`."""
    table, qrels, run = dl19_bm25()
    qrels = {q: {d: int(v) for d, v in docs.items()} for q, docs in qrels.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {trec}, relevance_level=rel)
    expected = {("s0", q): v[trec] for q, v in evaluator.evaluate(run).items()}
    assert len(expected) == 43
    return mismatches(expected, ours(table, ours_name, compat=PYTREC_EVAL))


def check_truncated_run_at_depth_100(names: dict[str, str]) -> None:
    """trec_eval's ``out.test.aqcM`` (``-c -M100`` on ``results.trunc``, topic 302 missing
    from the run) for {trec_eval name: our measure string}: ``depth=100``, and the queries
    of the qrels, the missing one scoring 0."""
    expected = expected_output("out.test.aqcM")
    table = trec_eval_test_table("qrels.test", "results.trunc")
    for trec, name in names.items():
        assert printed(table, name, depth=100) == expected[trec], trec


def check_finite_on_valid_tables(names: list[str]) -> None:
    """``names`` give a finite value for every ranking of any valid drawn table (extreme
    scores and labels included; conftest's ``tables``), or a GradedError (a gain beyond
    float64), never NaN or inf."""

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(tables(hostile=False))
    def check(t: Table) -> None:
        try:
            with warnings.catch_warnings():  # thresholds above every label: a warning, fine
                warnings.simplefilter("ignore", pg.GradedWarning)
                out = t.df.graded.evaluate(names, **t.columns)  # type: ignore[arg-type]
        except pg.GradedError as error:
            assert t.must_raise or "float64" in str(error), error
            return
        assert t.must_raise is None, t.must_raise
        assert_finite(out, names, "evaluate")

    check()
