"""Why a number moved: ``pg.diff`` splits the change of a measure's mean between two systems
into the queries, the items and the segments that make it.

:func:`diff` evaluates the measures per query for a baseline and a candidate
(:func:`polars_graded.api.evaluate`), pairs the two on the compared queries (the missing-query
policy of :mod:`polars_graded.stats.grid`, as :func:`~polars_graded.stats.compare.compare`),
and gives each query its contribution to the change of the mean (the contributions sum to
it), the relevant items of the top queries that moved (:mod:`polars_graded.stats.diff_items`)
and, with segments, each segment's part of the change. :func:`diff_with` does the same from
per-query values already computed (the report's section "What moved").
``polars-graded diff`` (:mod:`polars_graded.cli.diff`) is its command line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Unpack

import polars as pl

from polars_graded.api import evaluate_spec
from polars_graded.defaults import SYSTEM
from polars_graded.errors import InvalidValueError, MissingColumnError
from polars_graded.frames import Table, as_polars
from polars_graded.measures import MeasureSpec, as_measures
from polars_graded.options import ColumnOptions, TableSpec
from polars_graded.stats.diff_items import moved_items
from polars_graded.stats.grid import by_column, check_two_systems, query_grid
from polars_graded.stats.options import DEFAULTS, MissingPolicy, check_count, check_missing
from polars_graded.stats.resampling import TIE_TOLERANCE
from polars_graded.stats.segments import check_segment_types, join_segment_table
from polars_graded.weights import check_weights, query_weights

QUERY_COLUMNS: Final = (
    "measure",
    "baseline_value",
    "candidate_value",
    "change",
    "contribution",
    "share",
    "missing_in",
)
"""The columns of :attr:`Diff.queries`: ``measure``, then the query column (and the weight
column with ``weight=``), then the rest, in this order."""

SUMMARY_COLUMNS: Final = ("measure", "n_queries", "baseline_mean", "candidate_mean", "diff")
"""The columns of :attr:`Diff.summary`."""

SEGMENT_COLUMNS: Final = (
    "measure",
    "n_queries",
    "baseline_mean",
    "candidate_mean",
    "diff",
    "contribution",
    "share",
)
"""The columns of :attr:`Diff.segments`: ``measure``, the segment columns, then the rest."""

TOP: Final = 10
"""Queries per measure whose moved items :func:`diff` lists, by default."""
ITEMS: Final = 5
"""Moved items listed per top query, by default."""

Segments = str | Sequence[str] | pl.DataFrame
"""Segment columns of the table, or a segment table (the query column, then segments)."""

_W = "__pg_w"
_ORDER = "__pg_measure_order"


@dataclass(frozen=True)
class Diff:
    """What :func:`diff` found: the change of each mean, split by query, item and segment.

    Examples
    --------
    >>> d = Diff(("ap",), "a", "b", pl.DataFrame(), pl.DataFrame(), pl.DataFrame())
    >>> d.segments is None, d.weight is None
    (True, True)
    """

    measures: tuple[str, ...]
    baseline: object
    candidate: object
    summary: pl.DataFrame
    """Per measure: ``n_queries`` (compared), ``baseline_mean``, ``candidate_mean`` (weighted
    with ``weight=``) and ``diff`` = ``candidate_mean - baseline_mean``."""
    queries: pl.DataFrame
    """Per (measure, query), by ``|contribution|`` descending: :data:`QUERY_COLUMNS`."""
    items: pl.DataFrame
    """The moved relevant items of the ``top`` queries of each measure (see
    :func:`~polars_graded.stats.diff_items.moved_items`)."""
    segments: pl.DataFrame | None = None
    """Per (measure, segment): :data:`SEGMENT_COLUMNS`; ``None`` without segments."""
    segment: tuple[str, ...] = ()
    """The segment columns."""
    weight: str | None = None
    """The weight column, or ``None``: every query weighs the same."""
    query: str = "query"
    """The query column's name."""
    item: str = "item"
    """The item column's name."""

    def __repr__(self) -> str:
        """The change of each mean and its largest contributions, then the frames' shapes."""
        weighted = f", weighted by {self.weight!r}" if self.weight else ""
        lines = [f"Diff of {self.candidate!r} against the baseline {self.baseline!r}{weighted}"]
        for row in self.summary.iter_rows(named=True):
            lines.append(
                f"  {row['measure']}: {row['baseline_mean']:.4f} -> {row['candidate_mean']:.4f}"
                f" ({row['diff']:+.4f}) over {row['n_queries']:,} queries"
            )
            top = self.queries.filter(pl.col("measure") == row["measure"]).head(3)
            shown = [
                f"{self.query} {q[self.query]!r} {signed(q['contribution'])}"
                for q in top.iter_rows(named=True)
            ]
            if shown:
                lines.append(f"    largest contributions: {', '.join(shown)}")
        parts = [f".{name} {getattr(self, name).shape}" for name in ("summary", "queries", "items")]
        parts.append(f".segments {None if self.segments is None else self.segments.shape}")
        lines.append(f"  frames: {', '.join(parts)}")
        return "\n".join(lines)


def signed(value: float | None) -> str:
    """A change or a contribution as text: 4 decimals, or 2 significant digits when that
    would show a non-zero value as 0 (one query's contribution among 100,000); ``–`` for none.

    Examples
    --------
    >>> signed(0.01234), signed(-0.0000123), signed(0.0), signed(None)
    ('+0.0123', '-1.2e-05', '+0.0000', '–')
    """
    if value is None:
        return "–"
    return f"{value:+.1e}" if 0 < abs(value) < 5e-5 else f"{value:+.4f}"


def diff(
    table: Table,
    measures: MeasureSpec,
    *,
    baseline: object,
    candidate: object,
    segments: Segments | None = None,
    top: int = TOP,
    items: int = ITEMS,
    weight: str | None = None,
    missing: MissingPolicy = DEFAULTS.missing,
    **columns: Unpack[ColumnOptions],
) -> Diff:
    """Why a mean moved from a baseline to a candidate: per query, per item, per segment.

    Parameters
    ----------
    table
        The long table (one row per system, query and item) with a system column: a Polars
        DataFrame or LazyFrame, or a pandas DataFrame or an Arrow table, converted as
        :func:`polars_graded.evaluate` converts it.
    measures
        Measure names or objects, evaluated per query by :func:`polars_graded.evaluate`.
    baseline, candidate
        The two systems (values of the ``by`` column), distinct.
    segments
        Columns of ``table`` that put each query in a segment (the same on every row of a
        query), or a segment table: the query column and one or more segment columns (its
        other columns), joined on the query as
        :func:`~polars_graded.stats.segments.join_segment_table` does (a query it lacks
        gets a null segment, with a warning). ``None``: no segment rollup.
    top
        Queries per measure (the largest ``|contribution|``) whose moved items are listed.
    items
        Moved relevant items listed per top query.
    weight
        A column of per-query weights (traffic: impressions, sessions), the same on every
        row of a query for both systems (:func:`polars_graded.weights.check_weights`); the
        means are ``sum(w * v) / sum(w)``. ``None``: every query weighs the same.
    missing
        A query only one of the two systems has: ``"zero"`` (default) scores it 0 for the
        other, as :func:`~polars_graded.stats.compare.compare` does (``missing_in`` names
        that system); ``"common"`` leaves it out.
    **columns
        The table's options as :func:`polars_graded.evaluate` takes them: ``by=`` the one
        system column (default ``"system"``), ``query=``,
        ``item=``, ``score=``, ``relevance=``, ``ties=``, ``compat=``, ``ranked=``,
        ``judged_only=``, ``depth=``); the ranks of the items follow them.

    Returns
    -------
    Diff
        Polars DataFrames, whatever the input's kind:

        - ``summary``: per measure, ``n_queries``, ``baseline_mean``, ``candidate_mean``
          and ``diff`` (what :func:`~polars_graded.stats.compare.compare` reports as the
          candidate's ``diff`` without weights);
        - ``queries``: per measure (in the given order) and compared query, by
          ``|contribution|`` descending then query: ``baseline_value``,
          ``candidate_value``, ``change`` = candidate - baseline; ``contribution`` =
          ``change / n`` (weighted: ``w * change / sum(w)``), which sums to ``diff`` over
          the queries; ``share`` = ``contribution / diff``, the query's fraction of the
          change (over 1, or negative, for a query that moved against it; null when
          ``diff`` is 0 up to rounding, ``1e-9 * sum |contribution|``); ``missing_in``:
          the system that has no row for the query (it scored 0), else null. With
          ``weight=`` the weight column sits after the query column;
        - ``items``: for the ``top`` queries of each measure, the ``items`` relevant items
          (label > 0) that moved most: ``label``, ``rank_before`` (the baseline's rank,
          null when not ranked), ``rank_after`` (the candidate's), ``moved`` =
          ``rank_before - rank_after`` (positive: up), ``movement`` (``up``, ``down``,
          ``entered``, ``left``); ranks as the measures see them, under the tie policy
          (:func:`~polars_graded.stats.diff_items.moved_items`); items that did not move
          are left out;
        - ``segments``: per measure and segment, by ``|contribution|`` descending:
          ``n_queries``, the segment's means and ``diff`` within it, ``contribution``
          (the sum of its queries' contributions: the segments' sum to ``diff``) and
          ``share``.

    Raises
    ------
    InvalidValueError
        The baseline or the candidate is not a system of ``by`` (the message lists them),
        the two are the same, no compared query, a bad ``top``, ``items`` or
        ``missing``, a query in two segments, a column named like a column of the result.
    UnknownMeasureError
        A measure name the grammar does not know, or no measure.
    MissingColumnError
        The system, weight or segment column is absent.
    InvalidWeightError
        A weight that is null, negative, not finite or varies within a query.

    Examples
    --------
    System ``b`` moves the relevant item ``y`` of query 1 to the top:

    >>> import polars as pl
    >>> import polars_graded as pg
    >>> table = pl.DataFrame({
    ...     "system": ["a"] * 4 + ["b"] * 4, "query": [1, 1, 2, 2] * 2,
    ...     "item": ["x", "y", "x", "y"] * 2,
    ...     "score": [2.0, 1.0, 2.0, 1.0, 1.0, 2.0, 2.0, 1.0], "relevance": [0, 1, 1, 0] * 2,
    ... })
    >>> d = pg.diff(table, "rr", baseline="a", candidate="b")
    >>> d.summary.rows()
    [('rr', 2, 0.75, 1.0, 0.25)]
    >>> d.queries.select("query", "change", "contribution", "share").rows()
    [(1, 0.5, 0.25, 1.0), (2, 0.0, 0.0, 0.0)]
    >>> d.items.select("query", "item", "rank_before", "rank_after", "moved").rows()
    [(1, 'y', 2, 1, 1)]
    """
    frame = as_polars(table, "diff")
    by = by_column(columns.get("by", SYSTEM), depth=2)
    spec = TableSpec.of({**columns, "by": (by,)})
    check_count("top", top)
    check_count("items", items)
    check_missing(missing)
    lazy = frame.lazy()
    check_two_systems(lazy, by, baseline, candidate)
    names = [str(m) for m in as_measures(measures)]  # none or unknown: a clear error
    pair = lazy.filter(pl.col(by).is_in([baseline, candidate]))
    weights = None
    if weight is not None:
        check_weights(pair, weight, [spec.query])
        weights = query_weights(pair, weight, [spec.query]).collect()
    labels = None if segments is None else segment_labels(pair, segments, query=spec.query)
    per_query = evaluate_spec(pair, names, spec).collect()
    names = [c for c in per_query.columns if c not in spec.keys]
    return diff_with(
        pair,
        per_query,
        names,
        spec,
        baseline=baseline,
        candidate=candidate,
        labels=labels,
        weights=weights,
        top=top,
        items=items,
        missing=missing,
    )


def diff_with(
    lf: pl.LazyFrame,
    per_query: pl.DataFrame,
    measures: Sequence[str],
    spec: TableSpec,
    *,
    baseline: object,
    candidate: object,
    labels: pl.DataFrame | None = None,
    weights: pl.DataFrame | None = None,
    top: int = TOP,
    items: int = ITEMS,
    missing: MissingPolicy = DEFAULTS.missing,
) -> Diff:
    """:func:`diff` from per-query values computed already: ``per_query`` as
    ``evaluate_spec(lf, measures, spec)`` gives it (``spec.by`` one system column), the
    table ``lf`` for the items' ranks, ``labels`` (the query column and the segment columns,
    one row per query: :func:`segment_labels`) and ``weights`` (the query column and the
    weight column, one row per query), all checked already.

    Examples
    --------
    >>> lf = pl.LazyFrame({"system": ["a", "b"], "query": [1, 1], "item": ["x", "x"],
    ...                    "score": [None, 1.0], "relevance": [1, 1]})
    >>> spec = TableSpec(by=("system",))
    >>> per_query = pl.DataFrame({"system": ["a", "b"], "query": [1, 1], "rr": [0.0, 1.0]})
    >>> d = diff_with(lf, per_query, ["rr"], spec, baseline="a", candidate="b")
    >>> d.items.select("item", "rank_before", "rank_after", "movement").rows()
    [('x', None, 1, 'entered')]
    """
    by, query = spec.by[0], spec.query
    weight = None if weights is None else next(c for c in weights.columns if c != query)
    segment = () if labels is None else tuple(c for c in labels.columns if c != query)
    _check_result_names(query, weight, segment, spec.item)
    values = _paired(per_query, measures, by=by, query=query, pair=(baseline, candidate))
    values = _with_missing(values, per_query, by=by, query=query, pair=(baseline, candidate))
    if missing == "common":
        values = values.filter(pl.col("missing_in").is_null())
    if values.is_empty():
        msg = f"no query to compare: neither {baseline!r} nor {candidate!r} has a query"
        raise InvalidValueError(msg)
    if weights is not None:
        values = values.join(weights, on=query, how="left").with_columns(
            pl.col(weight).alias(_W)  # type: ignore[arg-type]
        )
    else:
        values = values.with_columns(pl.lit(1.0).alias(_W))
    values, sums = _contributions(values, measures, query=query, weight=weight)
    queries = _queries(values, sums, query=query, weight=weight)
    top_queries = queries.filter(pl.int_range(pl.len()).over("measure") < top)
    moved = moved_items(
        lf.select(spec.columns),
        spec,
        top_queries.select("measure", query),
        by=by,
        baseline=baseline,
        candidate=candidate,
        items=items,
    )
    rolled = None
    if labels is not None:
        rolled = _segments(values, sums, labels, query=query, segment=segment)
    return Diff(
        measures=tuple(measures),
        baseline=baseline,
        candidate=candidate,
        summary=sums.select(SUMMARY_COLUMNS),
        queries=queries,
        items=moved,
        segments=rolled,
        segment=segment,
        weight=weight,
        query=query,
        item=spec.item,
    )


def segment_labels(frame: pl.LazyFrame, segments: Segments, *, query: str) -> pl.DataFrame:
    """One row per query of ``frame``: the query and its segment columns, checked.

    ``segments`` names columns of ``frame`` (the same on every row of a query), or is a
    segment table (the query column, then the segment columns) joined on the query by
    :func:`~polars_graded.stats.segments.join_segment_table`.

    Examples
    --------
    >>> lf = pl.LazyFrame({"query": [1, 1, 2], "lang": ["en", "en", "de"]})
    >>> segment_labels(lf, "lang", query="query").sort("query").rows()
    [(1, 'en'), (2, 'de')]
    >>> segment_labels(lf.with_columns(lang=pl.Series(["en", "de", "de"])), "lang", query="query")
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: query 1 is in two segments of column 'lang' ('de' \
and 'en'); a segment is a property of the query, the same on every row of the query
    """
    if isinstance(segments, pl.DataFrame):
        if query not in segments.columns:
            msg = f"the segment table has no query column {query!r}; it has {segments.columns}"
            raise MissingColumnError(msg)
        columns = [c for c in segments.columns if c != query]
        if not columns:
            msg = f"the segment table has no segment column besides {query!r}"
            raise InvalidValueError(msg)
        frame = join_segment_table(frame, segments, columns, query=query)
    else:
        columns = [segments] if isinstance(segments, str) else list(segments)
        if not columns:
            msg = "segments= names no column; give one, e.g. segments='lang'"
            raise InvalidValueError(msg)
        names = frame.collect_schema().names()
        absent = [c for c in columns if c not in names]
        if absent:
            msg = f"segment column(s) {absent} not found; the table has {names}"
            raise MissingColumnError(msg)
    labels = frame.select(query, *columns).unique().collect()
    check_segment_types(labels, columns)
    twice = labels.filter(pl.col(query).is_duplicated()).sort(query, *columns, nulls_last=True)
    if twice.height:
        first = twice.row(0, named=True)[query]
        rows = twice.filter(pl.col(query).eq_missing(first))
        column = next(c for c in columns if rows.get_column(c).n_unique() > 1)
        values = " and ".join(repr(v) for v in rows.get_column(column).unique().sort()[:2])
        msg = (
            f"query {first!r} is in two segments of column {column!r} ({values}); a segment "
            "is a property of the query, the same on every row of the query"
        )
        raise InvalidValueError(msg)
    return labels


def _check_result_names(query: str, weight: str | None, segment: Sequence[str], item: str) -> None:
    """The query, weight, item and segment columns do not clash with the result's columns."""
    taken = {*QUERY_COLUMNS, *SEGMENT_COLUMNS, "label", "rank_before", "rank_after", "moved"}
    for what, names in (("query", [query, item]), ("weight", [weight]), ("segment", segment)):
        clash = [n for n in names if n in taken]
        if clash:
            msg = (
                f"the {what} column {clash[0]!r} has the name of a column of diff's result; "
                f"rename it first, e.g. frame.rename({{{clash[0]!r}: '{clash[0]}_'}})"
            )
            raise InvalidValueError(msg)


def _paired(
    per_query: pl.DataFrame,
    measures: Sequence[str],
    *,
    by: str,
    query: str,
    pair: tuple[object, object],
) -> pl.DataFrame:
    """Long: ``measure``, the query, ``baseline_value``, ``candidate_value`` on every query
    of either system (a value a system lacks as 0, :func:`~polars_graded.stats.grid.query_grid`)."""
    rows = per_query.filter(pl.col(by).is_in(list(pair))).select(by, query, *measures)
    grid = query_grid(rows, list(pair), "zero", by=by, query=query)
    half = grid.height // 2  # the baseline's queries, then the candidate's, in the same order
    base, cand = grid.slice(0, half), grid.slice(half)
    return pl.concat(
        pl.DataFrame(
            {
                "measure": pl.Series([name] * half, dtype=pl.String),
                query: base.get_column(query),
                "baseline_value": base.get_column(name).cast(pl.Float64),
                "candidate_value": cand.get_column(name).cast(pl.Float64),
            }
        ).with_columns(pl.lit(i).alias(_ORDER))
        for i, name in enumerate(measures)
    )


def _with_missing(
    values: pl.DataFrame,
    per_query: pl.DataFrame,
    *,
    by: str,
    query: str,
    pair: tuple[object, object],
) -> pl.DataFrame:
    """``missing_in``: the system of ``pair`` that has no row for the query, else null."""
    present = [
        per_query.filter(pl.col(by).is_in([system])).get_column(query).implode() for system in pair
    ]
    lacks = [~pl.col(query).is_in(ids) for ids in present]
    return values.with_columns(
        missing_in=pl.when(lacks[0])
        .then(pl.lit(str(pair[0])))
        .when(lacks[1])
        .then(pl.lit(str(pair[1])))
    )


def _contributions(
    values: pl.DataFrame, measures: Sequence[str], *, query: str, weight: str | None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``values`` with ``change`` and ``contribution``, and the per-measure sums (means,
    ``diff``, ``spread`` = the sum of ``|contribution|``), keyed by the measure's order."""
    w = pl.col(_W)
    change = pl.col("candidate_value") - pl.col("baseline_value")
    values = values.with_columns(change=change).with_columns(
        contribution=w * pl.col("change") / w.sum().over(_ORDER)
    )
    sums = values.group_by(_ORDER).agg(
        n_queries=pl.len().cast(pl.Int64),
        baseline_mean=(w * pl.col("baseline_value")).sum() / w.sum(),
        candidate_mean=(w * pl.col("candidate_value")).sum() / w.sum(),
        spread=pl.col("contribution").abs().sum(),
        total=w.sum(),
    )
    if sums.filter(pl.col("total") <= 0).height:
        msg = f"the compared queries' weights (column {weight!r}) sum to 0: no weighted mean"
        raise InvalidValueError(msg)
    sums = sums.sort(_ORDER).with_columns(
        measure=pl.Series(list(measures), dtype=pl.String),
        diff=pl.col("candidate_mean") - pl.col("baseline_mean"),
    )
    return values, sums


def _queries(
    values: pl.DataFrame, sums: pl.DataFrame, *, query: str, weight: str | None
) -> pl.DataFrame:
    """The ``queries`` frame: per measure, by ``|contribution|`` descending, then query."""
    shown = values.join(sums.select(_ORDER, "diff", "spread"), on=_ORDER)
    ordered = shown.with_columns(share=_share()).sort(
        [_ORDER, pl.col("contribution").abs(), query], descending=[False, True, False]
    )
    keys = [query] if weight is None else [query, weight]
    return ordered.select("measure", *keys, *QUERY_COLUMNS[1:])


def _share(overall: str = "diff") -> pl.Expr:
    """``contribution`` over the change of the mean, the column ``overall``; null when that
    is 0 up to rounding: at most ``TIE_TOLERANCE`` times ``spread``, the sum of
    ``|contribution|``."""
    diff = pl.col(overall)
    moved = (diff.abs() > TIE_TOLERANCE * pl.col("spread")) & (diff != 0)
    contribution = pl.col("contribution")
    share = pl.when(contribution != 0).then(contribution / diff).otherwise(0.0)  # never -0.0
    return pl.when(moved).then(share)


def _segments(
    values: pl.DataFrame,
    sums: pl.DataFrame,
    labels: pl.DataFrame,
    *,
    query: str,
    segment: Sequence[str],
) -> pl.DataFrame:
    """Per measure and segment (by ``|contribution|`` descending, then segment): queries,
    the means and the change within, and the sum of its queries' contributions."""
    w = pl.col(_W)
    total = w.sum()
    out = (
        values.join(labels, on=query, how="left")
        .group_by(_ORDER, *segment)
        .agg(
            n_queries=pl.len().cast(pl.Int64),
            baseline_mean=pl.when(total > 0).then((w * pl.col("baseline_value")).sum() / total),
            candidate_mean=pl.when(total > 0).then((w * pl.col("candidate_value")).sum() / total),
            contribution=pl.col("contribution").sum(),
        )
        .join(sums.select(_ORDER, "measure", "spread", overall=pl.col("diff")), on=_ORDER)
        .with_columns(diff=pl.col("candidate_mean") - pl.col("baseline_mean"))
    )
    ordered = out.with_columns(share=_share("overall")).sort(
        [_ORDER, pl.col("contribution").abs(), *segment],
        descending=[False, True, *[False] * len(segment)],
        nulls_last=True,
    )
    return ordered.select("measure", *segment, *SEGMENT_COLUMNS[1:])
