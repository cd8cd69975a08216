"""trec_eval's values to compare ours with, and the tables they are computed on.

Two references:

- pytrec_eval (trec_eval 9.0.x) on :func:`random_table` (two systems sharing judgments,
  integer labels -2..4, ties, unjudged and unretrieved rows, empty queries), which ours
  reproduce under ``compat="trec_eval_9"`` (:data:`PYTREC_EVAL`). :func:`pytrec_values`
  gives many measures at once, read into our names with the registry's templates
  (:func:`our_measure`: the suffix fills ``{k}``, the relevance level is the measure's
  ``rel``); :func:`pytrec_measure` one measure with its parameters after a dot, as the tests
  of the graded and sampling measures (infAP, G, binG, ndcg_rel, Rndcg) take it, on the
  smaller :func:`graded_table`. :func:`mismatches` and :func:`measure_mismatches` list where
  ours differ.
- trec_eval 10.0's own expected outputs in ``../shared/data/trec_eval-test`` (for what
  9.0.x lacks or computes otherwise), which ours reproduce by default: per query as numbers
  (:func:`trec_eval_10` beside :func:`ours_on_files`) or as printed (:func:`expected_output`
  beside :func:`printed`).

Also: :data:`TEMPLATES` (trec_eval's names and ours), :func:`trec_dicts` (a table as
pytrec_eval's qrels and run), :func:`read_trec_eval_output`, the oracle of
``ties="average"`` by enumeration (:func:`tie_averaged`), and the checks the graded
measures' tests share (``check_*``).
"""

from __future__ import annotations

import functools
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import polars as pl
import pytrec_eval
from hypothesis import HealthCheck, given, settings

import polars_graded as pg
from polars_graded.measures.registry import trec_eval_templates
from polars_graded.options import Compat
from support.environment import require_shared_data
from support.hostile_tables import Table, tables
from support.oracle import Label, read_queries
from support.oracle_ties import all_orderings
from support.tables import assert_finite, make_random_table

TEMPLATES = trec_eval_templates()
"""trec_eval's measure names and the polars_graded names that compute the same values:
``{r}`` stands for the relevance-level suffix (``""`` or ``"(rel=2)"``), ``{k}`` for the
cutoff. Read from the measure registry, where each measure declares its trec_eval names."""
GEOMETRIC = {"gm_map": "ap{r}", "gm_bpref": "bpref{r}"}
"""trec_eval's geometric means and the measure whose geometric mean each is."""

SYSTEMS = ("s0", "s1")
N_QUERIES = 240
TOL = 1e-9
TREC_EVAL_TEST = "trec_eval-test"
# trec_eval prints 4 decimals
PRINTED = 0.5e-4 + 1e-12
PYTREC_EVAL: Compat = "trec_eval_9"
"""The ``compat=`` that reproduces pytrec_eval (trec_eval 9.0.x): float32 scores, 9.x's
recall points."""

Qrels = dict[str, dict[str, int]]
"""pytrec_eval's qrels: {query: {item: label}}."""
Run = dict[str, dict[str, float]]
"""pytrec_eval's run: {query: {item: score}}."""
Values = dict[tuple[str, str], float]
"""{(system, query) or (query, measure): value}."""


# --------------------------------------------------------------------------- tables and files


def random_table(seed: int, queries: int = N_QUERIES, max_items: int = 59) -> pl.DataFrame:
    """A long table (system, query, item, score, relevance) full of trec_eval edge cases:
    two systems (:data:`SYSTEMS`) sharing judgments, integer labels -2..4, up to
    ``max_items`` items per query, ties, unjudged and unretrieved rows, empty queries."""
    table = make_random_table(
        seed,
        systems=len(SYSTEMS),
        queries=queries,
        max_items=max_items,
        int_labels=True,
        label_kinds=("few",),
        trec_eval_safe=True,
    )
    return table.sort("system", "query", "item")


def graded_table(seed: int, queries: int = 160) -> pl.DataFrame:
    """:func:`random_table` of the graded measures' tests: 160 queries of up to 40 items."""
    return random_table(seed, queries, max_items=40)


def small_tied_table(seed: int) -> pl.DataFrame:
    """Queries of at most 7 rows with many tied scores, for :func:`tie_averaged`."""
    table = make_random_table(seed, queries=40, max_items=7, int_labels=True)
    return table.with_columns(pl.col("score").round(0))


def trec_dicts(table: pl.DataFrame, system: str) -> tuple[Qrels, Run]:
    """pytrec_eval's qrels (rows with a label) and run (rows with a score) of one system."""
    mine = table.filter(pl.col("system") == system)
    qrels: defaultdict[str, dict[str, int]] = defaultdict(dict)
    judged = mine.filter(pl.col("relevance").is_not_null())
    for query, item, rel in judged.select("query", "item", "relevance").iter_rows():
        qrels[query][item] = rel
    run: defaultdict[str, dict[str, float]] = defaultdict(dict)
    retrieved = mine.filter(pl.col("score").is_not_null())
    for query, item, score in retrieved.select("query", "item", "score").iter_rows():
        run[query][item] = score
    return dict(qrels), dict(run)


def read_trec_eval_output(path: Path) -> dict[tuple[str, str], str]:
    """{(measure, query or "all"): value as printed} of a trec_eval output file (``out.*``)."""
    expected = {}
    for line in path.read_text().splitlines():
        measure, query, value = (field.strip() for field in line.split("\t"))
        expected[measure, query] = value
    return expected


def trec_eval_test_table(qrels: str, run: str = "results.test") -> pl.DataFrame:
    """A run of ``trec_eval-test`` joined to its qrels (the queries of the run)."""
    folder = require_shared_data(TREC_EVAL_TEST)
    return pg.join_run_qrels(pg.read_trec_run(folder / run), pg.read_trec_qrels(folder / qrels))


@functools.cache
def dl19_bm25() -> tuple[pl.DataFrame, Qrels, Run]:
    """The TREC DL 2019 passage BM25 run joined to its graded qrels (labels 0..3), and
    pytrec_eval's qrels and run of it."""
    folder = require_shared_data("trec-dl-2019-2020-passage")
    qrels = pg.read_trec_qrels(folder / "qrels.dl19-passage.txt")
    run = pg.read_trec_run(folder / "runs" / "BM25" / "trec_results_dl19.txt.gz")
    table = pg.join_run_qrels(run, qrels).with_columns(pl.lit("s0").alias("system"))
    return table, *trec_dicts(table, "s0")


# --------------------------------------------------------------------------- names


def our_measure(trec: str, rel: int = 1) -> str:
    """Our canonical name for a trec_eval output name at relevance level ``rel``.

    ``"P_10"`` -> ``"p@10"``; ``"iprec_at_recall_0.10"`` -> ``"iprec(recall=0.1)"``;
    ``"utility_2,-1,0,0"`` -> ``"utility(coefficients=[2,-1,0,0])"``; without a suffix
    (``"utility"``, ``"11pt_avg"``) a template whose parameter is ``{k}`` means the
    measure with its default parameters.
    """
    base, k = trec, ""
    if trec not in TEMPLATES:
        base, _, k = trec.rpartition("_")
    template = TEMPLATES[base]
    if not k and "{k}" in template and "(" in template.split("{k}")[0]:
        template = template.split("(")[0]  # no suffix: the default parameters
    measure = pg.parse_measure(template.format(r="", k=k))
    return str(measure(rel=rel)) if rel != 1 and hasattr(measure, "rel") else str(measure)


# --------------------------------------------------------------------------- trec_eval 10.0


def trec_eval_10(
    shared_data: Callable[[str], Path],
    out: str,
    qrels: str,
    run: str,
    *,
    wanted: Callable[[str], bool],
    rel: int = 1,
) -> Values:
    """{(query, our name): value} of the per-query lines of ``out`` whose name is ``wanted``."""
    folder = shared_data(TREC_EVAL_TEST)
    return {
        (query, our_measure(name, rel)): float(value)
        for (name, query), value in read_trec_eval_output(folder / out).items()
        if query != "all" and wanted(name)
    }


def ours_on_files(
    shared_data: Callable[[str], Path], qrels: str, run: str, measures: Iterable[str]
) -> Values:
    """{(query, measure): our value} on a trec_eval test qrels and run (plain trec_eval's
    queries: judged and retrieved), by default: as trec_eval 10.0, whose outputs these
    files are."""
    folder = shared_data(TREC_EVAL_TEST)
    table = pg.join_run_qrels(
        pg.read_trec_run(folder / run), pg.read_trec_qrels(folder / qrels), queries="both"
    )
    names = sorted(set(measures))
    per_query = table.graded.evaluate(names)
    return {(row["query"], m): row[m] for row in per_query.iter_rows(named=True) for m in names}


def expected_output(name: str) -> dict[str, dict[str, str]]:
    """trec_eval 10.0's ``out.*`` file: {measure: {query or "all": value as printed}}, to
    compare with our default (10.0)."""
    path = require_shared_data(f"{TREC_EVAL_TEST}/{name}")
    out: defaultdict[str, dict[str, str]] = defaultdict(dict)
    for (measure, query), value in read_trec_eval_output(path).items():
        out[measure][query] = value
    return dict(out)


def printed(table: pl.DataFrame, measure: str, **options: Any) -> dict[str, str]:
    """Our per-query values and their mean (as ``"all"``), printed with 4 decimals."""
    per_query = table.graded.evaluate([measure], **options)
    values = {q: f"{v:.4f}" for q, v in per_query.iter_rows()}
    mean = per_query[measure].mean()
    assert isinstance(mean, float), mean
    values["all"] = f"{mean:.4f}"
    return values


# --------------------------------------------------------------------------- pytrec_eval (9.0.x)


def pytrec_values(
    table: pl.DataFrame, measures: set[str], rel: int = 1, **params: str
) -> dict[tuple[str, str], dict[str, float]]:
    """{(system, query): {our name: pytrec_eval's value}} for the queries it evaluates.

    ``params`` are trec_eval parameters that hold commas (``utility="2,-1,0,0"``): the
    pytrec_eval wrapper splits on them, so those go to its extension directly.
    """
    out: dict[tuple[str, str], dict[str, float]] = {}
    for system in SYSTEMS:
        qrels, run = trec_dicts(table, system)
        if params:
            evaluator_class = pytrec_eval.RelevanceEvaluator.__mro__[1]
            specs = {f"{name}.{value}" for name, value in params.items()}
            evaluator = evaluator_class(
                query_relevance=qrels, measures=specs, relevance_level=rel,
                judged_docs_only_flag=False,
            )  # fmt: skip
        else:
            evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=rel)
        for query, values in evaluator.evaluate(run).items():
            row = out.setdefault((system, query), {})
            for trec, value in values.items():
                row[our_measure(trec if not params else _with_suffix(trec, params), rel)] = value
    return out


def _with_suffix(trec: str, params: dict[str, str]) -> str:
    """The extension prints ``utility`` for ``utility.2,-1,0,0``: put the parameters back."""
    return f"{trec}_{params[trec]}" if trec in params else trec


def mismatches(
    table: pl.DataFrame,
    expected: dict[tuple[str, str], dict[str, float]],
    tol: float = TOL,
    *,
    skipped_zero: bool = True,
) -> list[tuple[tuple[str, str], str, float, float]]:
    """Where our per-query values (by system, under ``compat="trec_eval_9"``) differ from
    pytrec_eval's ``expected`` (:func:`pytrec_values`) by more than ``tol``; with
    ``skipped_zero``, also where a query pytrec_eval skips (nothing retrieved or nothing
    judged) does not score 0."""
    names = sorted({name for values in expected.values() for name in values})
    per_query = table.graded.evaluate(names, by="system", compat=PYTREC_EVAL)
    ours = {(row["system"], row["query"]): row for row in per_query.iter_rows(named=True)}
    bad = [
        (key, name, ours[key][name], theirs)
        for key, values in expected.items()
        for name, theirs in values.items()
        if abs(ours[key][name] - theirs) > tol
    ]
    skipped = [key for key in ours if key not in expected] if skipped_zero else []
    bad += [(key, m, ours[key][m], 0) for key in skipped for m in names if ours[key][m] != 0]
    return bad


def pytrec_measure(table: pl.DataFrame, measure: str, *, rel: int = 1) -> Values:
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


def ours(table: pl.DataFrame, measure: str, **options: Any) -> Values:
    """{(system, query): value} of one of our measure strings (``options``: the table
    options; pass ``compat=PYTREC_EVAL`` to compare with :func:`pytrec_measure`)."""
    per_query = table.graded.evaluate([measure], by="system", **options)
    return {(s, q): v for s, q, v in per_query.iter_rows()}


def measure_mismatches(expected: Values, got: Values) -> list[tuple[tuple[str, str], float, float]]:
    """The keys where ``got`` (:func:`ours`) differs from ``expected``
    (:func:`pytrec_measure`) by more than :data:`TOL`."""
    return [(key, got[key], want) for key, want in expected.items() if abs(got[key] - want) > TOL]


def real_run_mismatches(
    trec: str, ours_name: str, *, rel: int = 1
) -> list[tuple[tuple[str, str], float, float]]:
    """Per-query differences between pytrec_eval's ``trec`` and our ``ours_name`` (under
    ``compat="trec_eval_9"``) on :func:`dl19_bm25`."""
    table, qrels, run = dl19_bm25()
    qrels = {q: {d: int(v) for d, v in docs.items()} for q, docs in qrels.items()}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {trec}, relevance_level=rel)
    expected = {("s0", q): v[trec] for q, v in evaluator.evaluate(run).items()}
    assert len(expected) == 43
    return measure_mismatches(expected, ours(table, ours_name, compat=PYTREC_EVAL))


# --------------------------------------------------------------------------- shared checks


def tie_averaged(
    df: pl.DataFrame, reference: Callable[[list[Label], list[float]], float]
) -> dict[object, float]:
    """{query: the mean of ``reference(ranked labels, judged labels)`` over every order of
    the query's tied rows} (the oracle of ``ties="average"``, by enumeration; ties as the
    default compares scores, float64)."""
    rows, _ = read_queries(df)
    out = {}
    for (query,), query_rows in rows.items():
        judged = [r.label for r in query_rows if r.label is not None]
        orderings = all_orderings(query_rows)
        total = sum(orderings.values())
        out[query] = sum(n * reference(list(o), judged) for o, n in orderings.items()) / total
    return out


def check_table_options(names: list[str]) -> None:
    """``names`` give the same values on a shuffled DataFrame, a LazyFrame, input in ranked
    order (``ranked=True``; sorted by score as float64, the default's comparison), each
    system alone and a string ``by``; every value finite, and the standalone expressions
    agree with evaluate."""
    data = graded_table(20260616, queries=60)
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
    scores and labels included; :func:`support.hostile_tables.tables`), or a GradedError (a
    gain beyond float64), never NaN or inf."""

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(tables(hostile=False))
    def check(t: Table) -> None:
        try:
            with warnings.catch_warnings():  # thresholds above every label: a warning, fine
                warnings.simplefilter("ignore", pg.GradedWarning)
                out = t.df.graded.evaluate(names, **t.columns)
        except pg.GradedError as error:
            assert t.must_raise or "float64" in str(error), error
            return
        assert t.must_raise is None, t.must_raise
        assert_finite(out, names, "evaluate")

    check()
