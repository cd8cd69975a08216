"""trec_eval's values for the measures of issue 16, per query, to compare ours with.

Two references: pytrec_eval (trec_eval 9.0.x) on the random tables of
``test_trec_eval_differential``, which ours reproduce under ``compat="trec_eval_9"``
(:data:`PYTREC_EVAL`), and trec_eval 10.0's own expected outputs in
``../shared/data/trec_eval-test`` (for what 9.0.x lacks or computes otherwise), which ours
reproduce by default. trec_eval
names are read with the registry's templates (:func:`our_measure`): the suffix fills
``{k}``, and the relevance level is the measure's ``rel`` (the templates of parameterised
measures have no ``{r}``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import polars as pl
import pytrec_eval
from conftest import read_trec_eval_output, trec_dicts
from test_trec_eval_differential import SYSTEMS, random_table
from trec_names import TEMPLATES

import polars_graded as pg

TOL = 1e-9
TREC_EVAL_TEST = "trec_eval-test"
# trec_eval prints 4 decimals
PRINTED = 0.5e-4 + 1e-12
PYTREC_EVAL = "trec_eval_9"
"""The ``compat=`` that reproduces pytrec_eval (trec_eval 9.0.x): float32 scores, 9.x's
recall points."""

__all__ = ["PYTREC_EVAL", "SYSTEMS", "TOL", "random_table"]


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


def trec_eval_10(
    shared_data: Callable[[str], Path],
    out: str,
    qrels: str,
    run: str,
    *,
    wanted: Callable[[str], bool],
    rel: int = 1,
) -> dict[tuple[str, str], float]:
    """{(query, our name): value} of the per-query lines of ``out`` whose name is ``wanted``."""
    folder = shared_data(TREC_EVAL_TEST)
    return {
        (query, our_measure(name, rel)): float(value)
        for (name, query), value in read_trec_eval_output(folder / out).items()
        if query != "all" and wanted(name)
    }


def ours_on_files(
    shared_data: Callable[[str], Path], qrels: str, run: str, measures: Iterable[str]
) -> dict[tuple[str, str], float]:
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
) -> list[tuple]:
    """Where our per-query values (by system, under ``compat="trec_eval_9"``) differ from
    pytrec_eval's ``expected`` by more than ``tol``; with ``skipped_zero``, also where a
    query pytrec_eval skips (nothing retrieved or nothing judged) does not score 0."""
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


Label = float | None


def tie_averaged(
    df: pl.DataFrame, reference: Callable[[list[Label], list[float]], float]
) -> dict[object, float]:
    """{query: the mean of ``reference(ranked labels, judged labels)`` over every order of
    the query's tied rows} (the oracle of ``ties="average"``, by enumeration; ties as the
    default compares scores, float64)."""
    from oracle import read_queries
    from oracle_ties import all_orderings

    rows, _ = read_queries(df)
    out = {}
    for (query,), query_rows in rows.items():
        judged = [r.label for r in query_rows if r.label is not None]
        orderings = all_orderings(query_rows)
        total = sum(orderings.values())
        out[query] = sum(n * reference(list(o), judged) for o, n in orderings.items()) / total
    return out


def small_tied_table(seed: int) -> pl.DataFrame:
    """Queries of at most 7 rows with many tied scores, for :func:`tie_averaged`."""
    from conftest import make_random_table

    table = make_random_table(seed, queries=40, max_items=7, int_labels=True)
    return table.with_columns(pl.col("score").round(0))
