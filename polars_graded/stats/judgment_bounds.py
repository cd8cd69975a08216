"""How far unjudged rows could move each system's mean: three evaluations of one table.

A retrieved row without a label (relevance null, docs/conventions.md §1) counts as not
relevant, so a system that retrieves many rows nobody judged (a new system in a shallow pool:
TREC DL, TREC-COVID) may be underrated. :func:`judgment_bounds` evaluates the table three ways:

- ``value``: as every other function does, unjudged retrieved rows not relevant;
- ``unjudged_relevant``: those rows labelled ``unjudged_label`` (default the table's top
  label), each system's own unjudged rows only (its copy of the judgments, docs/conventions.md §1);
- ``judged_only``: those rows removed from the ranking, the rows below moving up (trec_eval
  ``-J``, Sakai's condensed lists; ``judged_only=True`` of
  :class:`~polars_graded.options.ColumnOptions`);

and gives each system's mean under each, their minimum and maximum (``low``, ``high``),
beside Judged@k. :func:`order_flips` lists the pairs of systems whose order the bounds
leave open.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Unpack

import polars as pl

from polars_graded import api
from polars_graded.defaults import DEFAULT_MEASURES, ENGINE, SYSTEM
from polars_graded.errors import InvalidValueError
from polars_graded.frames import Table, as_dataframe, as_polars
from polars_graded.measures import Judged, Measure, MeasureSpec, as_named_measures
from polars_graded.options import ColumnOptions, TableSpec
from polars_graded.ranking import ranking_order
from polars_graded.stats.grid import by_column, order_systems, system_means
from polars_graded.stats.options import DEFAULTS, MissingPolicy, check_count, check_missing
from polars_graded.validate import check_schema

SCENARIOS: tuple[str, str, str] = ("value", "unjudged_relevant", "judged_only")
"""The three evaluations, as the columns of :func:`judgment_bounds` name them."""

BOUND_COLUMNS: tuple[str, ...] = (
    "measure",
    *SCENARIOS,
    "low",
    "high",
    "judged",
    "retrieved",
    "unjudged",
)
"""The columns of :func:`judgment_bounds` after the system column, in order."""

JUDGMENT_FAMILIES: tuple[str, ...] = ("judged", "unjudged")
"""Measures of the judgments themselves (Judged@k, Unjudged@k), left out of the bounds:
filling or removing the unjudged rows makes them 1 or 0 by construction."""

EQUAL_WITHIN = 1e-12
"""Relative difference under which :func:`order_flips` takes two means as equal."""

_UNJUDGED = "__pg_unjudged"


def bounded_measures(measures: MeasureSpec | None = None) -> dict[str, Measure]:
    """The measures :func:`judgment_bounds` bounds, by output name: ``measures`` (default
    :data:`~polars_graded.defaults.DEFAULT_MEASURES`) without counts (``num_ret``,
    ``num_rel``, ...: sizes of the data, not qualities of a ranking) and without the
    measures of :data:`JUDGMENT_FAMILIES`.

    Examples
    --------
    >>> list(bounded_measures(["ap", "num_ret", "judged@10", "ndcg@10"]))
    ['ap', 'ndcg@10']
    """
    named = as_named_measures(list(DEFAULT_MEASURES) if measures is None else measures)
    return {
        name: m
        for name, m in named.items()
        if not m.declaration.counts and m.declaration.name not in JUDGMENT_FAMILIES
    }


def judgment_bounds(
    table: Table,
    measures: MeasureSpec | None = None,
    *,
    unjudged_label: float | None = None,
    judged_at: int = 10,
    missing: MissingPolicy = DEFAULTS.missing,
    **columns: Unpack[ColumnOptions],
) -> pl.DataFrame:
    """Each system's mean per measure with unjudged retrieved rows not relevant, relevant,
    and removed: how far missing judgments could move it.

    Parameters
    ----------
    table
        The long table (docs/conventions.md §1) with a system column; a retrieved row (score
        not null) with a null relevance is unjudged. A Polars DataFrame or LazyFrame, or a
        pandas DataFrame or an Arrow table, converted as :func:`polars_graded.evaluate`
        converts it.
    measures
        As for :func:`polars_graded.evaluate` (default
        :data:`~polars_graded.defaults.DEFAULT_MEASURES`). Counts (``num_ret``, ...) and
        Judged@k / Unjudged@k are left out (:func:`bounded_measures`); Judged@k is the
        ``judged`` column instead.
    unjudged_label
        The label an unjudged retrieved row gets in ``unjudged_relevant``: a positive
        number the relevance column can hold. Default: the table's top label (1 when no
        label is positive). A measure with a higher threshold (``ap(rel=3)`` beside label
        1) still counts the row as not relevant.
    judged_at
        The k of the ``judged`` column (Judged@k, the share of the top k retrieved rows
        that are judged).
    missing
        Which queries each mean counts, as in :func:`polars_graded.compare`: ``"zero"``
        (every query of the table, 0 for one a system lacks) or ``"common"``.
    **columns
        As for :func:`polars_graded.evaluate`; ``by`` names the one system column
        (default ``"system"``). With ``depth=N`` only the first N rows of each ranking
        are retrieved, so only unjudged rows among them are filled, removed or counted.

    Returns
    -------
    DataFrame
        A Polars DataFrame, whatever the input's kind.
        One row per (measure, system): measures in the given order, systems sorted.
        Columns: the system column (its name and dtype), ``measure`` (String), then
        Float64 means over queries ``value`` (unjudged rows not relevant, what
        :func:`~polars_graded.evaluate` gives), ``unjudged_relevant`` (labelled
        ``unjudged_label``), ``judged_only`` (removed, trec_eval ``-J``), ``low`` and
        ``high`` (the least and the greatest of the three), ``judged`` (mean Judged@k),
        and Int64 counts of rows ``retrieved`` and ``unjudged`` (retrieved, label null).

    Notes
    -----
    Neither scenario is a bound by itself: labelling unjudged rows relevant raises R and
    fills the ideal ranking, so AP, R-precision or NDCG may go *down* (a system that ranks
    its relevant rows first and unjudged ones below them), and removing them may raise or
    lower a value. ``low`` and
    ``high`` are therefore the least and the greatest of the three values, not the
    value of one chosen scenario; they are not bounds over every possible judgment
    either (judging some unjudged rows relevant and others not can go beyond them).

    The cost is three evaluations of the table (the first also gives Judged@k), whatever
    the number of labels.

    Raises
    ------
    InvalidValueError
        ``unjudged_label`` not a positive finite number, or one the relevance column
        cannot hold (1.5 in an integer column); bad ``judged_at`` or ``missing``; no
        measure left to bound; what :func:`~polars_graded.evaluate` raises.
    ColumnTypeError
        ``table`` is not a table (a list, a dict: :data:`~polars_graded.frames.ACCEPTED`
        says what is; pytrec_eval's dicts go through :func:`polars_graded.from_dicts`), or
        as :func:`~polars_graded.evaluate`.

    Examples
    --------
    Both systems retrieved the unjudged row x. System a ranks it last: as relevant it
    raises R to 2, so AP goes *down* from 1 to (1 + 2/3) / 2. System b ranks it first: AP
    0.5 becomes 1 as relevant, and 1 without x.

    >>> import polars as pl
    >>> df = pl.DataFrame({
    ...     "system": ["a"] * 3 + ["b"] * 3, "query": [1] * 6, "item": ["y", "n", "x"] * 2,
    ...     "score": [3.0, 2.0, 1.0, 2.0, 1.0, 3.0], "relevance": [1, 0, None] * 2,
    ... })
    >>> out = judgment_bounds(df, ["ap"])
    >>> out.select("system", "value", "unjudged_relevant", "judged_only").rows()
    [('a', 1.0, 0.8333333333333333, 1.0), ('b', 0.5, 1.0, 1.0)]
    >>> out.select("system", "low", "high", "unjudged").rows()
    [('a', 0.8333333333333333, 1.0, 1), ('b', 0.5, 1.0, 1)]
    >>> order_flips(out).select("system_a", "system_b", "low_a", "high_b").rows()
    [('a', 'b', 0.8333333333333333, 1.0)]
    """
    frame = as_polars(table, "judgment_bounds")
    spec = TableSpec.of({**columns, "by": (by_column(columns.get("by", SYSTEM)),)})
    check_missing(missing)
    check_count("judged_at", judged_at)
    named = bounded_measures(measures)
    if not named:
        msg = (
            f"no measure to bound among {measures!r}: counts and Judged/Unjudged are left "
            "out (the bounds of a count or of the judged share say nothing); give e.g. "
            "['ap', 'ndcg@10']"
        )
        raise InvalidValueError(msg)
    lf = frame.lazy()
    check_schema(lf.collect_schema(), spec)
    lf = lf.with_columns(unjudged_rows(spec).alias(_UNJUDGED))
    label = _fill_label(lf, spec, unjudged_label)
    judged = {_free_name("judged", named): Judged @ judged_at}
    values = api.evaluate_spec(lf.drop(_UNJUDGED), {**named, **judged}, spec)
    negative = lf.select((pl.col(spec.relevance) < 0).any())
    counts, has_negative = pl.collect_all([_counts(lf, spec), negative], engine=ENGINE)
    if counts["unjudged"].sum() == 0 and not has_negative.item():
        # No row to label or to remove: both scenarios rank exactly the rows of the values,
        # so they are the values (on a log, each evaluation is a sort of the whole table).
        value = values.collect(engine=ENGINE)
        same = value.drop(list(judged))
        return _bounds([value, same, same, counts], spec, list(named), missing)
    frames = pl.collect_all(
        [
            values,
            api.evaluate_spec(_labelled(lf, spec, label), named, spec),
            _judged_only(lf, spec, named),
        ],
        engine=ENGINE,
    )
    return _bounds([*frames, counts], spec, list(named), missing)


def _free_name(name: str, taken: Collection[str]) -> str:
    """``name``, with underscores added until no output name of ``taken`` has it."""
    while name in taken:
        name += "_"
    return name


def retrieved_rows(spec: TableSpec) -> pl.Expr:
    """Per row of a table: retrieved (score not null), within ``spec.depth`` of its ranking.

    Examples
    --------
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, None], "relevance": [None, 1, None]})
    >>> df.select(retrieved_rows(TableSpec(depth=1))).to_series().to_list()
    [True, False, False]
    """
    retrieved = pl.col(spec.score).is_not_null()
    if spec.depth is None:
        return retrieved
    return retrieved & (_position(spec) <= spec.depth)


def unjudged_rows(spec: TableSpec) -> pl.Expr:
    """Per row of a table: retrieved (:func:`retrieved_rows`) and unjudged (label null).

    Examples
    --------
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, None], "relevance": [None, 1, None]})
    >>> df.select(unjudged_rows(TableSpec())).to_series().to_list()
    [True, False, False]
    """
    return retrieved_rows(spec) & pl.col(spec.relevance).is_null()


def _position(spec: TableSpec) -> pl.Expr:
    """Each row's place in its ranking under ``spec``'s tie policy (1 = first)."""
    sort = ranking_order(spec.score, spec.item, spec.relevance, spec.ties)
    sorted_rows = pl.int_range(pl.len(), dtype=pl.Int64).sort_by(
        sort.keys,
        descending=sort.descending,
        nulls_last=sort.nulls_last,
        maintain_order=sort.maintain_order,
    )
    # The inverse of the sorting permutation: where each row lands.
    return (sorted_rows.arg_sort() + 1).over(spec.keys)


def default_label(top: float | None) -> float:
    """The label unjudged rows get by default: the table's top label ``top``, or 1 when no
    label is positive (``top`` ``None`` when there is none).

    Examples
    --------
    >>> default_label(3), default_label(0), default_label(None)
    (3, 1, 1)
    """
    return top if top is not None and top > 0 else 1


def _fill_label(lf: pl.LazyFrame, spec: TableSpec, wanted: object) -> pl.Expr:
    """The label of an unjudged row in ``unjudged_relevant``, as a literal of the relevance
    column's dtype; checked (see :func:`judgment_bounds`)."""
    dtype = lf.collect_schema()[spec.relevance]
    target = pl.Float64() if dtype == pl.Null else dtype
    if wanted is None:
        wanted = default_label(
            lf.select(pl.col(spec.relevance).cast(pl.Float64).max()).collect().item()
        )
    if isinstance(wanted, bool) or not isinstance(wanted, int | float):
        msg = (
            f"unjudged_label= must be a number (the relevance label unjudged rows get), "
            f"got {wanted!r} of type {type(wanted).__name__}"
        )
        raise InvalidValueError(msg)
    if not math.isfinite(wanted) or wanted <= 0:
        msg = (
            f"unjudged_label= must be a positive finite label (a label > 0 is relevant), "
            f"got {wanted!r}"
        )
        raise InvalidValueError(msg)
    try:
        held = pl.Series([wanted]).cast(target, strict=True)
    except pl.exceptions.PolarsError:
        held = None
    if held is None or float(held.cast(pl.Float64)[0]) != float(wanted):
        msg = (
            f"unjudged_label={wanted!r} is not a label the {target} column "
            f"{spec.relevance!r} can hold; give one it can, or cast the column first, "
            f"e.g. pl.col({spec.relevance!r}).cast(pl.Float64)"
        )
        raise InvalidValueError(msg)
    return pl.lit(held[0], dtype=target)


def _labelled(lf: pl.LazyFrame, spec: TableSpec, label: pl.Expr) -> pl.LazyFrame:
    """The table with every unjudged retrieved row labelled ``label``."""
    filled = pl.when(pl.col(_UNJUDGED)).then(label).otherwise(pl.col(spec.relevance))
    return lf.with_columns(filled.alias(spec.relevance)).drop(_UNJUDGED)


def _judged_only(lf: pl.LazyFrame, spec: TableSpec, named: dict[str, Measure]) -> pl.LazyFrame:
    """Per-query values on the condensed lists: ``judged_only=True``; under
    ``ties="average"``, which refuses that option (and any depth), the unjudged retrieved
    rows are removed from the table, which gives the same lists."""
    if spec.ties.averaged:
        kept = lf.filter(~pl.col(_UNJUDGED)).drop(_UNJUDGED)
        return api.evaluate_spec(kept, named, spec)
    condensed = replace(spec, judged_only=True)
    return api.evaluate_spec(lf.drop(_UNJUDGED), named, condensed)


def _counts(lf: pl.LazyFrame, spec: TableSpec) -> pl.LazyFrame:
    """Per system: rows retrieved (within the depth) and unjudged among them."""
    return lf.group_by(spec.by[0]).agg(
        retrieved=retrieved_rows(spec).sum().cast(pl.Int64),
        unjudged=pl.col(_UNJUDGED).sum().cast(pl.Int64),
    )


def _bounds(
    frames: Sequence[pl.DataFrame], spec: TableSpec, names: list[str], missing: MissingPolicy
) -> pl.DataFrame:
    """The means of the three per-query frames in the long shape of :func:`judgment_bounds`."""
    value, relevant, condensed, counts = frames
    system = spec.by[0]
    systems = order_systems(value.get_column(system))
    judged = value.columns[-1]  # Judged@k, evaluated last beside the measures
    means = [_means(frame, systems, missing, spec) for frame in (value, relevant, condensed)]
    out = means[0].unpivot(index=system, on=names, variable_name="measure", value_name="value")
    for scenario, mean in zip(SCENARIOS[1:], means[1:], strict=True):
        long = mean.unpivot(index=system, on=names, variable_name="measure", value_name=scenario)
        out = out.join(long, on=[system, "measure"], maintain_order="left")
    lows = pl.min_horizontal(*SCENARIOS).alias("low")
    highs = pl.max_horizontal(*SCENARIOS).alias("high")
    judged_means = means[0].select(system, pl.col(judged).alias("judged"))
    out = out.with_columns(lows, highs).join(judged_means, on=system, maintain_order="left")
    out = out.join(counts, on=system, how="left", maintain_order="left")
    order = pl.col("measure").replace_strict(names, range(len(names)))
    return out.sort(order, maintain_order=True).select(system, *BOUND_COLUMNS)


def _means(
    per_query: pl.DataFrame, systems: pl.Series, missing: MissingPolicy, spec: TableSpec
) -> pl.DataFrame:
    """Per system (in ``systems``' order), the mean of each value column over the compared
    queries (:func:`~polars_graded.stats.grid.query_grid`)."""
    return system_means(per_query, systems, missing, by=spec.by[0], query=spec.query)


def order_flips(bounds: Table, *, by: str | None = None) -> pl.DataFrame:
    """The pairs of systems whose order by ``value`` could flip within their bounds.

    A pair (a, b) of one measure is listed when a's ``value`` is above b's but a's
    ``low`` is below b's ``high``: some scenario of a and some of b would put b first.
    Each system's interval is taken on its own (a's low and b's high may come from
    different scenarios, or from judgments that would have to differ between the two
    systems), so the list is conservative: it may hold pairs that no one completion of
    the judgments flips, never misses one the bounds allow. Equal values have no order
    and are not listed; numbers within :data:`EQUAL_WITHIN` of each other (relative) are
    equal, so that the rounding of two sums of the same values decides nothing.

    Parameters
    ----------
    bounds
        The output of :func:`judgment_bounds` (its columns ``measure``, ``value``, ``low``,
        ``high`` and the system column), as a Polars DataFrame or LazyFrame, a pandas
        DataFrame or an Arrow table.
    by
        The system column; default the first column of ``bounds``.

    Returns
    -------
    DataFrame
        One row per pair and measure: ``measure``, ``<by>_a`` (the higher value),
        ``<by>_b``, then ``value_a``, ``low_a``, ``high_a``, ``value_b``, ``low_b``,
        ``high_b``; measures in the order of ``bounds``, then by ``value_a`` and
        ``value_b`` descending.

    Examples
    --------
    >>> bounds = pl.DataFrame({
    ...     "system": ["a", "b", "c"], "measure": ["ap"] * 3,
    ...     "value": [0.5, 0.4, 0.1], "low": [0.45, 0.4, 0.1], "high": [0.5, 0.6, 0.2],
    ... })
    >>> order_flips(bounds).select("measure", "system_a", "system_b").rows()
    [('ap', 'a', 'b')]
    """
    frame = as_dataframe(bounds, "order_flips")
    system = frame.columns[0] if by is None else by
    needed = [system, "measure", "value", "low", "high"]
    absent = [c for c in needed if c not in frame.columns]
    if absent:
        msg = (
            f"order_flips() needs the columns {needed} of judgment_bounds(); "
            f"{absent} not found among {frame.columns}"
        )
        raise InvalidValueError(msg)
    a, b = f"{system}_a", f"{system}_b"
    order = frame.select("measure").unique(maintain_order=True).with_row_index("__pg_order")
    side = frame.select(needed)
    pairs = side.join(side, on="measure", suffix="_b").rename(
        {system: a, "value": "value_a", "low": "low_a", "high": "high_a"}
    )
    flips = pairs.filter(
        _above("value_a", "value_b") & _above("high_b", "low_a"),
    )
    flips = flips.join(order, on="measure").sort(
        ["__pg_order", "value_a", "value_b", a, b],
        descending=[False, True, True, False, False],
    )
    return flips.select("measure", a, b, "value_a", "low_a", "high_a", "value_b", "low_b", "high_b")


def _above(a: str, b: str) -> pl.Expr:
    """Column ``a`` above column ``b`` by more than :data:`EQUAL_WITHIN` (relative)."""
    scale = pl.max_horizontal(pl.col(a).abs(), pl.col(b).abs(), pl.lit(1.0))
    return pl.col(a) - pl.col(b) > EQUAL_WITHIN * scale
