"""Builds one lazy plan for many measures: one sort per query, shared by every measure.

The plan: group the table by ``by + [query]`` once, holding each query's ranking as lists
(and the per-query input checks); explode those lists so that each query's rows are
contiguous and ranked; aggregate every expression measure over that in one ``group_by``;
join the measures that need a frame of their own (µAP on data-dependent levels); check the
input rules and sort the per-query result by its keys.

When the result is collected, two more checks run on the per-query values, which are small:
no value may be NaN or infinite (an error names the measure, a query and the likely cause),
and a measure whose relevance threshold lies above every label of the table, so that it is
0 for every query, gets one :class:`~polars_graded.errors.GradedWarning`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Literal, get_args

import polars as pl

from polars_graded.defaults import MEAN
from polars_graded.errors import GradedWarning, InvalidValueError
from polars_graded.measures import Measure, MeasureSpec, as_named_measures
from polars_graded.measures.base import format_number
from polars_graded.options import Compat, TableSpec
from polars_graded.ranking import (
    N_RETRIEVED,
    POSITION,
    RANKED_REL,
    RANKING_ID,
    TIE_START,
    TOP_LABEL,
    RowCounts,
    explode_ranked,
    mark_ranked_order,
    number_rankings,
    pre_ranked,
    ranked_lists,
)
from polars_graded.validate import (
    check_aggregations,
    check_schema,
    prepare_checks,
    raise_on_bad_rows,
    table_flags,
)
from polars_graded.weights import weighted_mean

SUMMARY_COUNT = "num_q"
_VALUE_PREFIX = "__pg_value_"
"""Measure values are computed under these names; output names are given at the end."""
GEOMETRIC_FLOOR = 1e-5
"""trec_eval's ``MIN_GEO_MEAN``: the geometric mean counts smaller values (and 0) as this."""
MeanKind = Literal["arithmetic", "geometric"]
"""The means of a summary (the default: :data:`~polars_graded.defaults.MEAN`)."""
MEANS: tuple[str, ...] = get_args(MeanKind)


def check_mean(mean: object) -> MeanKind:
    """The kind of mean, or an :class:`~polars_graded.InvalidValueError` naming the choices.

    Examples
    --------
    >>> check_mean("geometric")
    'geometric'
    >>> check_mean("median")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: mean= must be 'arithmetic' or 'geometric', got ...
    """
    if mean not in MEANS:
        msg = f"mean= must be 'arithmetic' or 'geometric', got {mean!r}"
        raise InvalidValueError(msg)
    return mean  # type: ignore[return-value]


def per_query(
    lf: pl.LazyFrame,
    measures: MeasureSpec,
    cols: TableSpec,
    *,
    warn: bool | Callable[[float | None], object] = True,
) -> pl.LazyFrame:
    """Per-query values of ``measures``: one row per ``by + [query]``, one column each.

    ``measures``: measures or their names (columns named canonically), or a mapping output
    name -> measure; every output name of
    :func:`~polars_graded.measures.names.parse.as_named_measures` gets its column, and a
    measure under two names is computed once. ``warn``: when collected, a measure whose
    threshold is above every label gets a :class:`~polars_graded.errors.GradedWarning`
    (``True``), or nothing (``False``); a caller evaluating a table in parts may pass a
    function instead, which receives the part's largest label (``None`` without one), and
    then call :func:`warn_unreachable_thresholds` once with their maximum: no extra pass over
    the data.

    Examples
    --------
    The relevant row is second: RR is 1/2 and P@1 is 0.

    >>> lf = pl.LazyFrame({"query": [1, 1], "item": ["a", "b"], "score": [2.0, 1.0],
    ...                    "relevance": [0, 1]})
    >>> per_query(lf, ["rr", "p@1"], TableSpec()).collect().rows()
    [(1, 0.5, 0.0)]
    >>> per_query(lf, {"first": "rr", "mrr": "mrr"}, TableSpec()).collect().rows()
    [(1, 0.5, 0.5)]
    """
    named = as_named_measures(measures)
    groups = by_compat(named, cols)
    if len(groups) > 1:
        return _per_query_by_compat(lf, groups, list(named), cols, warn)
    # One release for every measure: its own (an ir_measures name's) or the table's.
    cols = replace(cols, compat=next(iter(groups)))
    schema = lf.collect_schema()
    check_schema(schema, cols)
    check_output_names(named, cols)
    if cols.ranked:
        lf = mark_ranked_order(lf, cols)
    # Read once, by the grouping and by the table-wide checks.
    lf = prepare_checks(lf, cols).cache()
    keys = cols.keys
    checks = check_aggregations(cols, schema)
    grouped = cut_rankings(lf.group_by(keys).agg(*ranked_lists(cols), *checks), cols)
    # Three branches read the grouped rankings (checks, one-pass measures, µAP); Polars
    # trims each differently and would not see they share it, so it is cached explicitly.
    numbered = number_rankings(grouped, cols).cache()
    ranked = explode_ranked(numbered, cols)

    # Internal column names, one per measure: an output name may be anything, even another
    # measure's name, and two output names of one measure share its one computation.
    distinct = list(dict.fromkeys(named.values()))
    inner = {measure: f"{_VALUE_PREFIX}{i}" for i, measure in enumerate(distinct)}
    by_inner = {inner[measure]: measure for measure in distinct}
    outputs: dict[str, str] = {}  # the first output name of each, for messages
    for name, measure in named.items():
        outputs.setdefault(inner[measure], name)
    result = numbered.select(RANKING_ID, *keys, *(c.meta.output_name() for c in checks), TOP_LABEL)
    result = result.join(table_flags(lf, cols), how="cross", maintain_order="left")
    for part in _one_pass_values(ranked, by_inner, cols):
        result = result.join(part, on=RANKING_ID, how="left", maintain_order="left")
    for column, measure in by_inner.items():
        if measure.needs_frame():
            values = measure.frame(ranked, cols).rename({str(measure): column})
            result = result.join(values, on=RANKING_ID, how="left", maintain_order="left")

    # Joins on the ranking number keep the left frame's order: already sorted by the keys.
    result = result.with_columns(pl.col(list(by_inner)).cast(pl.Float64).fill_null(0.0))
    out_types: dict[str, pl.DataType] = {k: schema[k] for k in keys}
    out_types.update({name: measure.dtype for name, measure in named.items()})
    out_schema = pl.Schema(out_types)

    def finish(frame: pl.DataFrame) -> pl.DataFrame:
        frame = raise_on_bad_rows(frame, cols, lf)
        raise_on_nonfinite(frame, by_inner, outputs, keys)
        largest = frame.get_column(TOP_LABEL).max()
        if callable(warn):
            warn(largest)  # type: ignore[arg-type]
        elif warn:
            warn_unreachable_thresholds(distinct, largest)
        # Counts were Float64 for the finite check; they leave as Int64.
        values = (pl.col(inner[m]).cast(m.dtype).alias(name) for name, m in named.items())
        return frame.select(*keys, *values)

    return result.map_batches(finish, schema=out_schema)


def by_compat(named: dict[str, Measure], cols: TableSpec) -> dict[Compat, dict[str, Measure]]:
    """The measures grouped by the trec_eval release they follow: their own ``compat``
    (set by the ``ir_measures:`` names), else the evaluation's ``compat=``.

    Examples
    --------
    >>> import polars_graded as pg
    >>> groups = by_compat(as_named_measures(["ap", "ir_measures:AP"]), TableSpec())
    >>> {compat: list(group) for compat, group in groups.items()}
    {'trec_eval_10': ['ap'], 'trec_eval_9': ['AP']}
    """
    groups: dict[Compat, dict[str, Measure]] = {}
    for name, measure in named.items():
        groups.setdefault(measure.release(cols.compat), {})[name] = measure
    return groups


def _per_query_by_compat(
    lf: pl.LazyFrame,
    groups: dict[Compat, dict[str, Measure]],
    order: list[str],
    cols: TableSpec,
    warn: bool | Callable[[float | None], object],
) -> pl.LazyFrame:
    """:func:`per_query` of measures that follow different trec_eval releases: each release
    ranks the table its own way (which scores tie), so each group is one plan of its own,
    and their per-query values are joined on the keys. ``warn`` is called once, with the
    largest label every part saw (not once per part)."""
    largest: list[float | None] = []
    parts = [
        per_query(lf, group, replace(cols, compat=c), warn=largest.append)
        for c, group in groups.items()
    ]
    result = parts[0]
    for part in parts[1:]:
        result = result.join(
            part, on=cols.keys, how="left", nulls_equal=True, maintain_order="left"
        )
    result = result.select(*cols.keys, *order)
    measures = list(dict.fromkeys(m for group in groups.values() for m in group.values()))

    def warn_once(frame: pl.DataFrame) -> pl.DataFrame:
        top = max((label for label in largest if label is not None), default=None)
        largest.clear()  # a LazyFrame may be collected again
        if callable(warn):
            warn(top)
        elif warn:
            warn_unreachable_thresholds(measures, top)
        return frame

    return result.map_batches(warn_once, schema=result.collect_schema())


def cut_rankings(grouped: pl.LazyFrame, cols: TableSpec) -> pl.LazyFrame:
    """Apply ``depth`` and ``judged_only`` to the grouped rankings of :func:`ranked_lists`.

    As trec_eval's ``-M`` and ``-J``, in that order: only the first ``depth`` rows of each
    ranking stay retrieved, then the ones among them that are not judged (a null relevance,
    or a negative label: trec_eval judges labels >= 0 only) move behind the retrieved rows,
    as unjudged rows, where they count for nothing. Every row stays in the
    list, so R and the ideal ranking keep every judged row. Without either option the
    frame is returned as it is.

    Examples
    --------
    The unjudged row ``b`` and the row ``c`` labelled -2 leave the ranking: ``d`` moves up to
    the second place.

    >>> df = pl.DataFrame({"query": [1, 1, 1, 1], "item": ["a", "b", "c", "d"],
    ...                    "score": [4.0, 3.0, 2.0, 1.0], "relevance": [0, None, -2, 1]})
    >>> spec = TableSpec(judged_only=True)
    >>> cut = cut_rankings(df.lazy().group_by("query").agg(ranked_lists(spec)), spec)
    >>> cut.select(RANKED_REL, N_RETRIEVED).collect().row(0)
    ([0.0, 1.0, None, None], 2)
    """
    if not cols.cuts_rankings:
        return grouped
    retrieved = pl.col(N_RETRIEVED)
    if cols.depth is not None:
        retrieved = pl.min_horizontal(retrieved, cols.depth).cast(
            grouped.collect_schema()[N_RETRIEVED]
        )
    if not cols.judged_only:
        return grouped.with_columns(retrieved.alias(N_RETRIEVED))
    rel = pl.col(RANKED_REL)
    top = rel.list.head(retrieved)
    judged = top.list.eval(pl.element().filter(pl.element() >= 0))  # drops nulls too
    unjudged = top.list.len() - judged.list.len()
    nulls = pl.lit(None, dtype=pl.Float64).repeat_by(unjudged)
    ranking = pl.concat_list(judged, rel.list.slice(retrieved), nulls)
    return grouped.with_columns(ranking.alias(RANKED_REL), judged.list.len().alias(N_RETRIEVED))


def check_output_names(named: dict[str, Measure], cols: TableSpec) -> None:
    """Output names must differ from the key columns ``by + [query]`` they sit beside.

    Examples
    --------
    >>> check_output_names(as_named_measures({"query": "ap"}), TableSpec())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: the output name 'query' (of 'ap') is also a key ...
    """
    for name, measure in named.items():
        if name in cols.keys:
            msg = (
                f"the output name {name!r} (of {str(measure)!r}) is also a key column "
                f"{cols.keys}; name the output otherwise, e.g. "
                f"evaluate({{'{name}_value': {str(measure)!r}}})"
            )
            raise InvalidValueError(msg)


def raise_on_nonfinite(
    frame: pl.DataFrame, measures: dict[str, Measure], outputs: dict[str, str], keys: list[str]
) -> None:
    """Raise if a measure value is NaN or infinite: no such value leaves the library.

    ``measures`` and ``outputs`` map each value column of ``frame`` to its measure and its
    output name. The input rules catch NaN and infinite labels; what is left is arithmetic
    beyond float64, e.g. exponential gain on labels >= 1024 in a DCG.

    Examples
    --------
    >>> import polars_graded as pg
    >>> frame = pl.DataFrame({"query": [1, 2], "v": [0.5, float("inf")]})
    >>> raise_on_nonfinite(frame, {"v": pg.DCG}, {"v": "dcg"}, ["query"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: measure 'dcg' is inf for 1 query, e.g. (query=2); ...
    """
    for column, measure in measures.items():
        values = frame.get_column(column)
        broken = frame.filter(~values.is_finite())
        if broken.height == 0:
            continue
        row = broken.row(0, named=True)
        key = ", ".join(f"{k}={row[k]!r}" for k in keys)
        affected = "1 query" if broken.height == 1 else f"{broken.height} queries"
        name = outputs[column]
        called = repr(str(measure)) if name == str(measure) else f"{name!r} ({measure})"
        msg = (
            f"measure {called} is {row[column]} for {affected}, e.g. ({key}); "
            f"likely cause: {measure.nonfinite_cause()}"
        )
        raise InvalidValueError(msg)


def warn_unreachable_thresholds(measures: Sequence[Measure], largest_label: object) -> None:
    """One :class:`GradedWarning` naming every measure whose threshold is above
    ``largest_label``, the table's largest label.

    Nothing when the table has no positive label (or none at all): every measure is 0
    there, whatever its threshold, so the threshold is not what to look at.

    Examples
    --------
    >>> import polars_graded as pg
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_unreachable_thresholds([pg.AP(rel=3), pg.AP(rel=2)], 2)
    >>> print(caught[0].message)  # doctest: +ELLIPSIS
    ap(rel=3): the relevance threshold is above every label of the table (the largest is 2), ...
    """
    if not isinstance(largest_label, int | float) or not largest_label > 0:
        return
    above = [m for m in measures if (t := m.lowest_threshold()) is not None and t > largest_label]
    if not above:
        return
    names = ", ".join(str(m) for m in above)
    msg = (
        f"{names}: the relevance threshold is above every label of the table (the largest "
        f"is {format_number(largest_label)}), so the value is 0 for every query; a row is "
        "relevant when its label is >= the threshold (rel=, default 1; µAP's lowest level): "
        "rescale the labels or lower the threshold"
    )
    warnings.warn(msg, GradedWarning, stacklevel=2)


def _one_pass_values(
    ranked: pl.LazyFrame, measures: dict[str, Measure], cols: TableSpec
) -> list[pl.LazyFrame]:
    """Per-ranking values of the measures that are one aggregation, in one or two passes.

    ``measures``: column name -> measure.

    Measures that read only the top of each list (``ndcg@10``, ``p@10``) are aggregated
    over the rows within their deepest cutoff, which is a small share of a long ranking
    (with ``ties="average"``, over whole tie groups: a group crossing the cutoff counts
    with all its rows).
    """
    r = pre_ranked(cols)
    top_rows = TIE_START if r.averages_ties else POSITION
    in_one_pass = {c: m for c, m in measures.items() if not m.needs_frame()}
    depths = {c: m.depth() for c, m in in_one_pass.items()}
    shallow = [c for c, d in depths.items() if d is not None]
    deep = [c for c, d in depths.items() if d is None]
    passes = []
    if shallow:
        deepest = max(d for d in depths.values() if d is not None)
        passes.append((ranked.filter(pl.col(top_rows) <= deepest), shallow))
    if deep:
        passes.append((ranked, deep))
    values = []
    for rows, group in passes:
        # Counts per tie group that the expressions ask for (ties="average") are computed
        # over the pass's whole columns first: inside the group_by each use would pay again.
        counts = RowCounts()
        exprs = [in_one_pass[c].expr(replace(r, row_counts=counts)).alias(c) for c in group]
        values.append(counts.add_to(rows).group_by(RANKING_ID).agg(exprs))
    return values


def summary(
    per_query_values: pl.LazyFrame,
    names: Sequence[str],
    by: Sequence[str],
    mean: MeanKind = MEAN,
    *,
    weight: str | None = None,
) -> pl.LazyFrame:
    """Per ``by`` group (one row without): the number of queries and the mean of ``names``.

    ``weight``: a column of checked per-query weights
    (:func:`~polars_graded.weights.check_weights`): each mean is then weighted,
    ``sum(w v) / sum(w)`` (null for a group whose weights sum to 0), and the sum of the
    group's weights comes after ``num_q`` under the weight's name; ``num_q`` still counts
    every query, those of weight 0 too.

    ``mean="geometric"`` gives trec_eval's geometric mean (``gm_map`` for ``ap``): values
    below :data:`GEOMETRIC_FLOOR` count as it, and the columns are named ``gm_<measure>``.

    Examples
    --------
    >>> values = pl.LazyFrame({"system": ["a", "a", "b"], "query": [1, 2, 1],
    ...                        "ap": [0.5, 1.0, 0.25]})
    >>> summary(values, ["ap"], ["system"]).collect().rows()
    [('a', 2, 0.75), ('b', 1, 0.25)]
    >>> summary(values, ["ap"], [], mean="geometric").collect().rows()  # (1/8) ** (1/3)
    [(3, 0.5)]
    """
    check_mean(mean)
    if SUMMARY_COUNT in names:
        msg = (
            f"the output name {SUMMARY_COUNT!r} is the summary's count of queries; "
            "name the measure otherwise"
        )
        raise InvalidValueError(msg)
    if SUMMARY_COUNT in by:
        msg = (
            f"the by= column {SUMMARY_COUNT!r} has the name of the summary's count of "
            "queries; rename it first"
        )
        raise InvalidValueError(msg)
    if weight is not None:
        if weight in (SUMMARY_COUNT, *names, *by):
            msg = f"the weight column {weight!r} has the name of a summary column; rename it"
            raise InvalidValueError(msg)
        w = pl.col(weight)
        geometric = mean == "geometric"
        means = [
            pl.len().alias(SUMMARY_COUNT),
            w.cum_sum().last().alias(weight),
            *(_weighted_mean(name, w, geometric=geometric) for name in names),
        ]
    else:
        average = _ordered_mean if mean == "arithmetic" else _ordered_geometric_mean
        means = [pl.len().alias(SUMMARY_COUNT), *(average(name) for name in names)]
    if not by:
        return per_query_values.select(means)
    return per_query_values.group_by(list(by)).agg(means).sort(list(by))


def _ordered_mean(name: str) -> pl.Expr:
    """Mean summed in query order, so that identical systems get identical bits.

    A plain ``mean()`` may add partial sums in whatever order the engine's threads finish.
    """
    return (pl.col(name).cum_sum().last() / pl.col(name).count()).alias(name)


def _weighted_mean(name: str, weight: pl.Expr, *, geometric: bool) -> pl.Expr:
    """The weighted arithmetic mean, or trec_eval's geometric mean weighted:
    ``exp(sum(w log(max(value, 1e-5))) / sum(w))``."""
    if not geometric:
        return weighted_mean(pl.col(name), weight).alias(name)
    logs = pl.col(name).clip(lower_bound=GEOMETRIC_FLOOR).log()
    return weighted_mean(logs, weight).exp().alias(f"gm_{name}")


def _ordered_geometric_mean(name: str) -> pl.Expr:
    """trec_eval's geometric mean: ``exp(mean(log(max(value, 1e-5))))``, in query order."""
    logs = pl.col(name).clip(lower_bound=GEOMETRIC_FLOOR).log()
    return (logs.cum_sum().last() / pl.col(name).count()).exp().alias(f"gm_{name}")
