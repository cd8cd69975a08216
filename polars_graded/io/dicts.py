"""pytrec_eval's dictionaries as the long table: ``{query: {item: score}}`` runs and
``{query: {item: label}}`` judgments, the form pytrec_eval, ranx and ir_measures hold.

The dicts are flattened into columns with list operations and joined by
:func:`~polars_graded.io.trec.join_run_qrels`, so the queries kept, unjudged and unretrieved
rows follow that function's rules (docs/conventions.md §1, "Run plus judgments").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from itertools import repeat
from numbers import Integral, Real
from typing import Any, Final

import polars as pl

from polars_graded.errors import ColumnTypeError, InvalidValueError
from polars_graded.io.trec import QueriesMode, join_run_qrels
from polars_graded.options import TableSpec

Nested = Mapping[Any, Mapping[Any, Any]]
"""``{query: {item: value}}``; with ``by=``, the run is ``{system: {query: {item: score}}}``."""

_BY: Final = "by"  # the system column's name inside, whatever the user calls it
_EXAMPLES = 3
_WIDE = "integers must lie in [-2**63, 2**63 - 1]"


def from_dicts(
    run: Mapping[Any, Any],
    qrels: Nested,
    *,
    by: str | None = None,
    queries: QueriesMode = "qrels",
    query: str = TableSpec.query,
    item: str = TableSpec.item,
    score: str = TableSpec.score,
    relevance: str = TableSpec.relevance,
) -> pl.DataFrame:
    """The long table of a run and its judgments held as pytrec_eval's dicts.

    Every (query, item) of the run gets its score; a judged item the run did not return
    gets a null score (unretrieved); a returned item nobody judged gets a null label
    (unjudged), as :func:`~polars_graded.join_run_qrels` joins two tables.

    Parameters
    ----------
    run
        ``{query: {item: score}}``; with ``by``, ``{system: {query: {item: score}}}``,
        several systems evaluated in one pass. Scores are numbers (ints or floats, ``±inf``
        allowed, NaN refused): the column is Float64.
    qrels
        ``{query: {item: label}}``, shared by every system. Labels are finite numbers: the
        column is Int64 when every label is an integer, else Float64.
    by
        The name of the system column when ``run`` holds several systems.
    queries
        Which queries the table holds, as for :func:`~polars_graded.join_run_qrels`:
        ``"qrels"`` (default, ``trec_eval -c``) every judged query, a judged query a system
        returned nothing for scoring 0; ``"both"``, per system, the queries judged and
        returned, the queries pytrec_eval reports (and so its means); ``"all"`` every query
        of either dict. A query's value is the same under each.
    query, item, score, relevance
        The column names (defaults as everywhere: ``"query"``, ``"item"``, ``"score"``,
        ``"relevance"``).

    Returns
    -------
    pl.DataFrame
        Columns ``[by,] query, item, score, relevance``, rows in no particular order (as
        :func:`~polars_graded.join_run_qrels` gives them; sorting a million rows would cost
        more than the rest, and no measure needs it). Keys keep their Python type: ``str``
        keys (pytrec_eval's) give String columns, ``int`` keys Int64. An empty inner dict
        (``{"q1": {}}``) is an absent query; a system without entries returned nothing (it
        scores 0 on every judged query, and has no row under ``queries="both"``); empty
        dicts give an empty table.

    Raises
    ------
    ColumnTypeError
        A level of the dicts is not a dict (e.g. a run with systems given without
        ``by=``), the keys of a level mix types (str and int) or are neither, or a score or
        label is not a number; the message names an offending entry.
    InvalidValueError
        A NaN score, a NaN or infinite label, two columns with the same name, or a bad
        ``queries``.

    Notes
    -----
    ``pg.evaluate(pg.from_dicts(run, qrels), measures)`` gives, for every query pytrec_eval
    reports, the value of ``pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)``
    (with ``compat="trec_eval_9"``, pytrec_eval's 32-bit score comparison; the measure
    names differ, see docs/measures.md). pytrec_eval skips judged queries the run did
    not return, and so averages over fewer queries; the default keeps them at 0, as
    ``trec_eval -c`` and the rest of this library do: pass ``queries="both"`` for its
    queries. Integer item ids break ties as numbers; pytrec_eval's are strings.

    Examples
    --------
    >>> import polars_graded as pg
    >>> run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d1": 0.5}}
    >>> qrels = {"q1": {"d2": 1, "d3": 2}, "q3": {"d1": 1}}
    >>> pg.from_dicts(run, qrels).sort("query", "item")
    shape: (4, 4)
    ┌───────┬──────┬───────┬───────────┐
    │ query ┆ item ┆ score ┆ relevance │
    │ ---   ┆ ---  ┆ ---   ┆ ---       │
    │ str   ┆ str  ┆ f64   ┆ i64       │
    ╞═══════╪══════╪═══════╪═══════════╡
    │ q1    ┆ d1   ┆ 2.0   ┆ null      │
    │ q1    ┆ d2   ┆ 1.0   ┆ 1         │
    │ q1    ┆ d3   ┆ null  ┆ 2         │
    │ q3    ┆ d1   ┆ null  ┆ 1         │
    └───────┴──────┴───────┴───────────┘

    pytrec_eval's queries (judged and returned) and its ``map`` and ``ndcg_cut_10``
    (``{'q1': {'map': 0.25, 'ndcg_cut_10': 0.2398...}}``):

    >>> names = {"map": "ap", "ndcg_cut_10": "ndcg(gain=linear)@10"}
    >>> pg.evaluate(pg.from_dicts(run, qrels, queries="both"), names)
    shape: (1, 3)
    ┌───────┬──────┬─────────────┐
    │ query ┆ map  ┆ ndcg_cut_10 │
    │ ---   ┆ ---  ┆ ---         │
    │ str   ┆ f64  ┆ f64         │
    ╞═══════╪══════╪═════════════╡
    │ q1    ┆ 0.25 ┆ 0.239812    │
    └───────┴──────┴─────────────┘

    Several systems, one table:

    >>> runs = {"bm25": run, "dense": {"q1": {"d3": 1.0}}}
    >>> pg.summary(pg.from_dicts(runs, qrels, by="system"), ["ap"], by="system")
    shape: (2, 3)
    ┌────────┬───────┬───────┐
    │ system ┆ num_q ┆ ap    │
    │ ---    ┆ ---   ┆ ---   │
    │ str    ┆ u32   ┆ f64   │
    ╞════════╪═══════╪═══════╡
    │ bm25   ┆ 2     ┆ 0.125 │
    │ dense  ┆ 2     ┆ 0.25  │
    └────────┴───────┴───────┘
    """
    names = {"query": query, "item": item, "score": score, "relevance": relevance}
    if by is not None:
        names[_BY] = by
    _check_names(names)
    systems, run_queries, items, scores = _flatten_run(run, by)
    judged_queries, judged_items, labels = _flatten(_mapping(qrels, "qrels"), "qrels")

    def in_run(at: int) -> str:
        keys = (systems[at],) if systems else ()
        return "run" + "".join(f"[{key!r}]" for key in (*keys, run_queries[at], items[at]))

    def in_qrels(at: int) -> str:
        return f"qrels[{judged_queries[at]!r}][{judged_items[at]!r}]"

    run_table = pl.DataFrame(
        {
            "query": _keys(run_queries, "query", "run"),
            "item": _keys(items, "item", "run"),
            "score": _numbers(scores, "score", in_run, integers=False),
        }
    )
    qrels_table = pl.DataFrame(
        {
            "query": _keys(judged_queries, "query", "qrels"),
            "item": _keys(judged_items, "item", "qrels"),
            "relevance": _numbers(labels, "label", in_qrels),
        }
    )
    run_table, qrels_table = _same_key_types(run_table, qrels_table, run_queries, items)
    if by is None:
        table = join_run_qrels(run_table, qrels_table, queries=queries)
        return table.rename(names)
    system_type = _keys(list(run), "system", "run").dtype  # every system, even an empty one
    run_table = run_table.insert_column(0, pl.Series(_BY, systems, dtype=system_type))
    table = join_run_qrels(run_table, qrels_table, by=_BY, queries=queries)
    table = pl.concat([table, _empty_systems(run, table, qrels_table, queries)], how="diagonal")
    return table.select(_BY, "query", "item", "score", "relevance").rename(names)


def _check_names(names: Mapping[str, object]) -> None:
    """The output columns have distinct names."""
    for role, name in names.items():
        if not isinstance(name, str):
            msg = f"{'by' if role == _BY else role}= must be a column name (str), got {name!r}"
            raise InvalidValueError(msg)
    if len(set(names.values())) < len(names):
        given = ", ".join(
            f"{'by' if role == _BY else role}={name!r}" for role, name in names.items()
        )
        msg = f"from_dicts() needs distinct column names; got {given}"
        raise InvalidValueError(msg)


def _mapping(nested: object, where: str) -> Mapping[Any, Any]:
    """``nested`` if it is a dict, else an error saying what ``where`` must be."""
    if isinstance(nested, Mapping):
        return nested
    if isinstance(nested, pl.DataFrame | pl.LazyFrame):
        hint = "; for a run and qrels as tables use pg.join_run_qrels(run, qrels)"
    else:
        hint = ""
    msg = (
        f"from_dicts(): {where} must be a dict {{key: {{item: value}}}} as pytrec_eval takes "
        f"it, got a {type(nested).__name__}{hint}"
    )
    raise ColumnTypeError(msg)


def _flatten(
    nested: Mapping[Any, Any], where: str, hint: str = ""
) -> tuple[list[Any], list[Any], list[Any]]:
    """The outer keys (repeated), inner keys and values of ``{key: {item: value}}``;
    ``hint`` ends the error of a level that is not a dict."""
    outer: list[Any] = []
    inner: list[Any] = []
    values: list[Any] = []
    for key, entries in nested.items():
        if not isinstance(entries, Mapping):
            msg = (
                f"from_dicts(): {where}[{key!r}] must be a dict {{item: value}}, got a "
                f"{type(entries).__name__} ({entries!r:.40}){hint}"
            )
            raise ColumnTypeError(msg)
        outer.extend(repeat(key, len(entries)))
        inner.extend(entries.keys())
        values.extend(entries.values())
    return outer, inner, values


def _flatten_run(
    run: Mapping[Any, Any], by: str | None
) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    """Systems (repeated; empty without ``by``), queries, items and scores of the run."""
    run = _mapping(run, "run")
    if by is None:
        return [], *_flatten(run, "run")
    systems: list[Any] = []
    queries: list[Any] = []
    items: list[Any] = []
    scores: list[Any] = []
    for system, system_run in run.items():
        where = f"run[{system!r}]"
        hint = f" (by={by!r} takes {{system: {{query: {{item: score}}}}}})"
        qs, its, values = _flatten(_mapping(system_run, where), where, hint)
        systems.extend(repeat(system, len(qs)))
        queries.extend(qs)
        items.extend(its)
        scores.extend(values)
    return systems, queries, items, scores


def _keys(keys: list[Any], name: str, where: str) -> pl.Series:
    """``keys`` as a String (all ``str``) or Int64 (all ``int``) column named ``name``."""
    kinds = set(map(type, keys))
    if kinds <= {str}:
        return pl.Series(name, keys, dtype=pl.String)
    if all(kind is not bool and issubclass(kind, Integral) for kind in kinds):
        try:
            return pl.Series(name, keys, dtype=pl.Int64)  # strict: no overflow to null
        except (OverflowError, TypeError, pl.exceptions.PolarsError) as error:
            msg = f"from_dicts(): a {name} key of the {where} is beyond Int64's range; {_WIDE}"
            raise ColumnTypeError(msg) from error
    examples: dict[str, object] = {}
    for key in keys:  # one example of each type, in their order of appearance
        examples.setdefault(type(key).__name__, key)
    shown = ", ".join(f"{kind} {key!r}" for kind, key in list(examples.items())[:_EXAMPLES])
    msg = (
        f"from_dicts(): the {name} keys of the {where} must be all str (as pytrec_eval's) or "
        f"all int; found {shown}; convert them, e.g. {{str(k): v for k, v in d.items()}}"
    )
    raise ColumnTypeError(msg)


def _same_key_types(
    run: pl.DataFrame, qrels: pl.DataFrame, queries: list[Any], items: list[Any]
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The two tables with the same key types: an empty side takes the other's, and keys of
    different types are an error naming an example of each."""
    if run.is_empty():
        return run.cast(qrels.select("query", "item").schema), qrels
    if qrels.is_empty():
        return run, qrels.cast(run.select("query", "item").schema)
    for column, keys in (("query", queries), ("item", items)):
        if run.schema[column] != qrels.schema[column]:
            judged = qrels.item(0, column)
            msg = (
                f"from_dicts(): the {column} keys of the run are {type(keys[0]).__name__} "
                f"(e.g. {keys[0]!r}) but those of the qrels {type(judged).__name__} "
                f"(e.g. {judged!r}); make both str (as pytrec_eval's) or both int"
            )
            raise ColumnTypeError(msg)
    return run, qrels


def _numbers(
    values: list[Any], what: str, locate: Callable[[int], str], *, integers: bool = True
) -> pl.Series:
    """Scores (Float64) or labels (Int64 when ``integers`` and all are ints, else Float64),
    each a finite number (a score may be infinite); ``locate`` names the entry of a value
    by its position."""
    kinds = set(map(type, values))
    bad = [kind for kind in kinds if kind is bool or not issubclass(kind, Real)]
    if bad:
        at = next(i for i, value in enumerate(values) if type(value) in bad)
        value = values[at]
        hint = " (several systems? pass by='system')" if isinstance(value, Mapping) else ""
        given = "None" if value is None else f"a {type(value).__name__} ({value!r:.40})"
        msg = f"from_dicts(): a {what} must be a number; {locate(at)} is {given}{hint}"
        raise ColumnTypeError(msg)
    whole = integers and all(issubclass(kind, Integral) for kind in kinds)
    try:  # strict for integers: one too large for Int64 must not become a null
        column = pl.Series(what, values, dtype=pl.Int64 if whole else pl.Float64, strict=whole)
    except (OverflowError, TypeError, pl.exceptions.PolarsError) as error:
        msg = f"from_dicts(): a {what} is beyond Int64's range; {_WIDE}"
        raise ColumnTypeError(msg) from error
    if not whole:
        broken = column.is_nan() | (column.is_infinite() & (what == "label"))
        if broken.any():
            at = int(broken.arg_true()[0])
            rule = "NaN" if math.isnan(values[at]) else "infinite"
            rule_of = "finite" if what == "label" else "a number, not NaN (-inf ranks last)"
            msg = f"from_dicts(): {locate(at)} is {rule}; a {what} must be {rule_of}"
            raise InvalidValueError(msg)
    return column


def _empty_systems(
    run: Mapping[Any, Any], table: pl.DataFrame, qrels: pl.DataFrame, queries: QueriesMode
) -> pl.DataFrame:
    """The rows of the systems without a single entry: every judged row, unretrieved
    (none under ``queries="both"``), as :func:`join_run_qrels` gives a system that
    returned nothing for a judged query."""
    present = set(table.get_column(_BY).unique().to_list())
    empty = [system for system in run if system not in present]
    if not empty or queries == "both" or qrels.is_empty():
        return table.clear()
    systems = pl.Series(_BY, empty, dtype=table.schema[_BY])
    rows = systems.to_frame().join(qrels, how="cross")
    return rows.with_columns(pl.lit(None, pl.Float64).alias("score")).select(table.columns)
