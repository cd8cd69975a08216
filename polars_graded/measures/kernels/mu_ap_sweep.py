"""µAP's numerator, and AP at every level, for every ranking at once in O(n log n) (the sweep).

µAP_q * top_q = sum_i d_i AP^(l_i) over the query's levels. Swapping the sums turns it
into a sum over pairs of relevant retrieved rows (SPEC.md §4):

    sum_i d_i AP^(l_i) = sum_j (1/p_j) * sum_{i <= j} min(w_i, w_j),
    w = W(label),  W(x) = sum_{levels l <= x} d_l / R^l,

where i, j run over the relevant retrieved rows in ranked order, p_j is j's position and
R^l counts every judged row with label >= l, retrieved or not. W rises with the label, so
the inner sum needs, for each row, the rows before it with a smaller and a larger label.
AP at one level t is the same kind of sum: each pair (i <= j) adds 1/p_j to the AP
numerator of every t <= min(l_i, l_j), so :func:`ap_at_levels` puts each pair's 1/p_j at
its minimum level and sums from the top level down. Under ``ties="average"`` only the
pair weights change (see :mod:`polars_graded.measures.kernels.tie_average`).

Rankings with a few levels (graded labels such as 0..4) keep one running count per level:
O(n * m), a handful of vectorised passes. Rankings with many levels (continuous labels, a
level per row) need, for each row, the count and weight of the earlier rows at or below a
level (:func:`_earlier_sums`): rankings of up to :data:`DEEP` rows keep a prefix sum over
their levels in one Fenwick tree each, all advancing together one ranked row at a time (a
Python step per position, never per query; two threads); deeper ones merge sorted blocks of
rows, a vectorised pass per doubling of the block size. A row finds its level by its rank
among the ranking's labels, never by a join on the label (:func:`_row_levels`). Memory
stays O(n): no row meets a level.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np
import polars as pl

from polars_graded.measures.kernels.tie_average import later_in_group, tie_group_weights
from polars_graded.ranking import (
    IDEAL_REL,
    N_RETRIEVED,
    POSITION,
    RANKED_REL,
    RANKING_ID,
    TIE_END,
    TIE_START,
)

T = TypeVar("T")

NUMERATOR = "_mu_ap_numerator"
TOP = "_top"
AP_AT_LEVEL = "_ap"
TIED = "__pg_tied"
"""Per row under ``ties="average"``: its ranking has tied retrieved rows."""
FEW_LEVELS = 8
"""Rankings with at most this many levels take the O(n * m) sweep, the others O(n log m)."""
DEEP = 4096
"""Rankings with more rows than this merge sorted blocks instead of a Python step per row."""
FENWICK_CHUNK = 1 << 19
"""Rows of rankings (about) whose Fenwick trees are swept together: 8 MiB per thread, in cache."""


def mu_ap_numerators(
    ranked: pl.LazyFrame, k: int | None, by: list[str], *, averaged: bool = False
) -> pl.LazyFrame:
    """Per ranking with a relevant row: ``sum_i d_i AP^(l_i)@k`` and its top label ``_top``.

    ``ranked`` is the exploded ranked table of :mod:`polars_graded.ranking`; the ``by``
    columns are carried along. ``averaged``: the expectation over the orders of tied rows
    (``ties="average"``, see :mod:`polars_graded.measures.kernels.tie_average`).

    Examples
    --------
    Labels 0, 2, 1 by score: ``AP^2 = 1/2`` and ``AP^1 = (1/2 + 2/3) / 2``, each level 1
    apart, so the numerator is 13/12 and µAP = 13/12 / 2 = 0.541667.

    >>> from polars_graded.options import TableSpec
    >>> from polars_graded.ranking import explode_ranked, number_rankings, ranked_lists
    >>> df = pl.LazyFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> grouped = df.group_by("query").agg(ranked_lists(TableSpec()))
    >>> ranked = explode_ranked(number_rankings(grouped, TableSpec()), TableSpec())
    >>> mu_ap_numerators(ranked, None, []).collect().rows()  # (ranking, _top, numerator)
    [(0, 2.0, 1.0833333333333333)]
    """
    if averaged:
        retrieved = pl.col(POSITION) <= pl.col(N_RETRIEVED)
        tied = retrieved & (pl.col(TIE_END) > pl.col(TIE_START))
        ranked = ranked.with_columns(tied.any().over(RANKING_ID).alias(TIED))
    leveled = _row_levels(ranked)
    sums = _averaged_where_tied(leveled, k) if averaged else _swept(leveled, k)
    # The ideal column's first row holds the top label of a ranking with a relevant row.
    tops = ranked.filter((pl.col(POSITION) == 1) & (pl.col(IDEAL_REL) > 0)).select(
        RANKING_ID, *by, pl.col(IDEAL_REL).alias(TOP)
    )
    return tops.join(sums, on=RANKING_ID, how="left").with_columns(pl.col(NUMERATOR).fill_null(0.0))


def _averaged_where_tied(leveled: pl.LazyFrame, k: int | None) -> pl.LazyFrame:
    """Rankings with tied retrieved rows (:data:`TIED`) take the per-level expectation, the
    others the sweep: the same bits as without tie averaging, and less work."""
    tied = pl.col(TIED)
    # Both branches read the levels: cached, or Polars would find them twice.
    leveled = leveled.cache()
    return pl.concat([_swept(leveled.filter(~tied), k), _averaged(leveled.filter(tied), k)])


def _averaged(leveled: pl.LazyFrame, k: int | None) -> pl.LazyFrame:
    """The sums of the module docstring averaged over the orders of tied rows."""
    # Groups that start beyond the cutoff add nothing, and come after every row that does.
    shown = leveled if k is None else leveled.filter(pl.col(TIE_START) <= k)
    return _relevant_rows(shown, [TIE_START, TIE_END]).map_batches(
        lambda frame: _averaged_numerators(frame, k),
        schema=pl.Schema({RANKING_ID: pl.UInt32, NUMERATOR: pl.Float64}),
    )


def _swept(leveled: pl.LazyFrame, k: int | None) -> pl.LazyFrame:
    """The sums of the module docstring for every ranking (rows in ranked order)."""
    return _relevant_rows(leveled).map_batches(
        lambda frame: _numerators(frame, k),
        schema=pl.Schema({RANKING_ID: pl.UInt32, NUMERATOR: pl.Float64}),
    )


def _row_levels(ranked: pl.LazyFrame) -> pl.LazyFrame:
    """The rows of ``ranked`` with a positive ranked or ideal label, each with ``_level``,
    ``_w`` and ``_n_levels`` of its ranked label (as :func:`_levels` has them; meaningful
    where the ranked label is positive).

    Every judged row stays in its ranking's list, so the ranked and the ideal column hold
    the same labels: a row labelled x finds its level at ideal position ``R^x``, the count
    of rows labelled x or more (a rank within the ranking), the last row of x's run. The
    level values are spread over every row of their run, so that position is read by a
    gather, no join on the label. The positive ideal labels come first in each ranking, so
    the rows kept start with all of them, at their own positions.
    """
    label, ranking = pl.col(IDEAL_REL), pl.col(RANKING_ID)
    next_label = label.shift(-1)
    same_next = (ranking == ranking.shift(-1)).fill_null(False)
    run_end = ((label > 0) & ~(same_next & (label == next_label)).fill_null(False)).fill_null(False)
    below = pl.when(same_next & (next_label > 0)).then(next_label).otherwise(0.0)
    # Zeros between the run ends leave each running sum's bits as :func:`_levels` makes them.
    step = pl.when(run_end).then((label - below) / pl.col(POSITION)).otherwise(0.0)
    at_or_above = pl.col(RANKED_REL).rank("max", descending=True).over(RANKING_ID)
    row = pl.col("__pg_row").cast(pl.Int64)
    end_row = row.first().over(RANKING_ID) - 1 + at_or_above.fill_null(1).cast(pl.Int64)
    # The row-wise columns first: inside a window, every expression would run per ranking.
    return (
        ranked.filter((pl.col(IDEAL_REL) > 0) | (pl.col(RANKED_REL) > 0))
        .with_row_index("__pg_row")
        .with_columns(_w=step, _level=run_end.cast(pl.Int64))
        .with_columns(
            pl.col("_w", "_level").cum_sum(reverse=True).over(RANKING_ID),
            _n_levels=pl.col("_level").sum().over(RANKING_ID),
            __pg_end_row=end_row,
        )
        .with_columns(pl.col("_w", "_level").gather(pl.col("__pg_end_row")))
        .drop("__pg_row", "__pg_end_row")
    )


def _relevant_rows(leveled: pl.LazyFrame, extra: Sequence[str] = ()) -> pl.LazyFrame:
    """The relevant retrieved rows of :func:`_row_levels` in ranked order with their
    ``_label``, ``_level``, ``_w``, ``_n_levels`` and position ``_pos`` (and ``extra``)."""
    # Filtering keeps the ranked order (ranking, then position) that the sweeps need.
    return leveled.filter(
        (pl.col(RANKED_REL) > 0) & (pl.col(POSITION) <= pl.col(N_RETRIEVED))
    ).select(
        RANKING_ID,
        *extra,
        "_level",
        "_w",
        "_n_levels",
        _label=pl.col(RANKED_REL),
        _pos=pl.col(POSITION),
    )


def ap_at_levels(ranked: pl.LazyFrame, by: Sequence[str], *, averaged: bool) -> pl.LazyFrame:
    """AP at every level of every ranking: one row per (ranking, level), no cutoff.

    Columns ``RANKING_ID``, the ``by`` columns, ``_label`` (the level), ``_top`` (the
    ranking's top label) and :data:`AP_AT_LEVEL`, ``AP^label``; each ranking's rows from
    its top level down. ``averaged``: the expectation over the orders of tied rows
    (``ties="average"``). A ranking without a positive judged label has no row.

    Examples
    --------
    Labels 0, 2, 1 by score: ``AP^2 = 1/2`` and ``AP^1 = (1/2 + 2/3) / 2``.

    >>> from polars_graded.options import TableSpec
    >>> from polars_graded.ranking import explode_ranked, number_rankings, ranked_lists
    >>> df = pl.LazyFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> grouped = df.group_by("query").agg(ranked_lists(TableSpec()))
    >>> ranked = explode_ranked(number_rankings(grouped, TableSpec()), TableSpec())
    >>> ap_at_levels(ranked, [], averaged=False).collect().rows()  # (ranking, _label, _top, _ap)
    [(0, 2.0, 2.0, 0.5), (0, 1.0, 2.0, 0.5833333333333333)]
    """
    levels = _levels(ranked, list(by))
    extra = [TIE_START, TIE_END] if averaged else []
    masses = _relevant_rows(_row_levels(ranked), extra).map_batches(
        lambda frame: _level_masses(frame, averaged=averaged),
        schema=pl.Schema({RANKING_ID: pl.UInt32, "_level": pl.Int64, "_mass": pl.Float64}),
    )
    # Levels run from the top down, so a running sum holds every pair at or above a level.
    numerator = pl.col("_mass").fill_null(0.0).cum_sum().over(RANKING_ID)
    return levels.join(masses, on=[RANKING_ID, "_level"], how="left", maintain_order="left").select(
        RANKING_ID,
        *by,
        "_label",
        pl.col("_label").first().over(RANKING_ID).alias("_top"),
        (numerator / pl.col("_at_or_above")).alias(AP_AT_LEVEL),
    )


def _levels(ranked: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """Per (ranking, level): ``_label``, ``_level`` (1..m, ascending), ``_w = W(label)``, m,
    the distance ``_d`` to the level below and ``_at_or_above`` (``R^l``).

    The ideal column holds each ranking's judged labels sorted descending, so its runs of
    equal positive labels are the levels from the top down, and the position of a run's
    last row is ``R^l``, the number of rows at or above the level: no sort, no hashing.
    """
    label, ranking = pl.col("_label"), pl.col(RANKING_ID)
    same_next = (ranking == ranking.shift(-1)).fill_null(False)
    run_ends = (
        ranked.filter(pl.col(IDEAL_REL) > 0)
        .select(RANKING_ID, *by, _label=pl.col(IDEAL_REL), _at_or_above=pl.col(POSITION))
        .filter(~same_next | (label != label.shift(-1)))
    )
    below = pl.when(same_next).then(label.shift(-1)).otherwise(0.0)
    n_levels = pl.len().over(RANKING_ID).cast(pl.Int64)
    return run_ends.with_columns(
        _w=((label - below) / pl.col("_at_or_above")).cum_sum(reverse=True).over(RANKING_ID),
        _d=label - below,
        _level=n_levels - pl.int_range(pl.len()).over(RANKING_ID),
        _n_levels=n_levels,
    )


def _numerators(frame: pl.DataFrame, k: int | None) -> pl.DataFrame:
    """``sum_j (1/p_j) sum_{i<=j} min(w_i, w_j)`` per ranking; rows sorted by ranking, position.

    ``frame`` holds the relevant retrieved rows with their level (``_level``), ``W`` of it
    (``_w``), position (``_pos``) and the ranking's level count (``_n_levels``).
    """
    ranking = frame[RANKING_ID].to_numpy()
    if ranking.size == 0:
        return pl.DataFrame(schema={RANKING_ID: pl.UInt32, NUMERATOR: pl.Float64})
    position = frame["_pos"].to_numpy().astype(np.float64)
    starts, group = _segments(ranking)
    contribution = _pair_sums(frame) / position
    if k is not None:
        contribution[position > k] = 0.0
    # bincount adds in row order: the same bits on every run.
    totals = np.bincount(group, weights=contribution, minlength=starts.size)
    return pl.DataFrame({RANKING_ID: ranking[starts], NUMERATOR: totals})


def _averaged_numerators(frame: pl.DataFrame, k: int | None) -> pl.DataFrame:
    """:func:`_numerators` averaged over the orders of tied rows (``frame`` also holds the
    tie bounds).

    Per tie group g of n_g rows, with H_g and G_g the sums of 1/p and (p - start_g)/p over
    its positions within k: the pairs whose later row is in g add ``(H_g/n_g) min(w_i, w_j)``
    and the pairs inside g ``2 G_g/(n_g (n_g - 1)) min(w_i, w_j)``. The pair sums of the
    plain sweep, added over g, hold the pairs inside g once (U_g, from g's sorted
    weights) and every other pair of g's rows, whatever the order inside g.
    """
    ranking = frame[RANKING_ID].to_numpy()
    if ranking.size == 0:
        return pl.DataFrame(schema={RANKING_ID: pl.UInt32, NUMERATOR: pl.Float64})
    tie_start, tie_end = frame[TIE_START].to_numpy(), frame[TIE_END].to_numpy()
    weight = frame["_w"].to_numpy()
    firsts, group = _segments(ranking, tie_start)
    single, within = tie_group_weights(group, tie_start, tie_end, k)
    pairs = np.bincount(group, weights=_pair_sums(frame), minlength=firsts.size)
    inside = np.bincount(
        group,
        weights=weight * later_in_group(group, frame["_level"].to_numpy()),
        minlength=firsts.size,
    )
    terms = single * (pairs - inside) + within * inside
    starts, owner = _segments(ranking[firsts])
    totals = np.bincount(owner, weights=terms, minlength=starts.size)
    return pl.DataFrame({RANKING_ID: ranking[firsts][starts], NUMERATOR: totals})


def _pair_sums(frame: pl.DataFrame) -> np.ndarray:
    """For each relevant retrieved row j: ``sum over rows i <= j of min(w_i, w_j)``."""
    ranking = frame[RANKING_ID].to_numpy()
    level = frame["_level"].to_numpy()
    weight = frame["_w"].to_numpy()
    row_levels = frame["_n_levels"].to_numpy()
    # Whole rankings go one way or the other, so a query's bits never depend on its neighbours.
    few = row_levels <= FEW_LEVELS
    if few.all() or not few.any():  # one sweep, no copies of the rows
        sweep = _per_level_sums_in_two if few.all() else _sorted_sums
        return sweep(ranking, level, weight, row_levels)
    pair_sums = np.empty(ranking.size)
    for rows, sums in ((few, _per_level_sums_in_two), (~few, _sorted_sums)):
        pair_sums[rows] = sums(ranking[rows], level[rows], weight[rows], row_levels[rows])
    return pair_sums


def _level_masses(frame: pl.DataFrame, *, averaged: bool) -> pl.DataFrame:
    """Per (ranking, level): the AP numerator's pairs whose lower level is that level.

    A pair i <= j of relevant retrieved rows counts in ``AP^t`` for every ``t <= min(l_i,
    l_j)`` with weight 1/p_j (with ``averaged``, the pair weights of
    :mod:`~polars_graded.measures.kernels.tie_average`). The pairs with ``l_i >= l_j`` (i = j
    included) go to j's level, counted forward; the others to i's level, summed backward
    over the later rows at a higher level.
    """
    ranking = frame[RANKING_ID].to_numpy()
    if ranking.size == 0:
        return pl.DataFrame(schema={RANKING_ID: pl.UInt32, "_level": pl.Int64, "_mass": pl.Float64})
    level = frame["_level"].to_numpy().astype(np.int64)
    starts, owner = _segments(ranking)
    ordinal = np.arange(ranking.size) - starts[owner]
    if averaged:
        tie_start, tie_end = frame[TIE_START].to_numpy(), frame[TIE_END].to_numpy()
        _, group = _segments(ranking, tie_start)
        single, within = tie_group_weights(group, tie_start, tie_end, None)
        weight = single[group]
    else:
        weight = 1.0 / frame["_pos"].to_numpy()
    lower, _ = _earlier_sums(ranking, level, level - 1)
    # Each ranking's rows backward: "earlier" becomes "later", a higher level a lower one.
    ends = np.r_[starts[1:], ranking.size]
    back = (ends - 1)[owner] - ordinal
    n_levels = frame["_n_levels"].to_numpy().astype(np.int64)
    flipped = (n_levels + 1 - level)[back]
    _, higher_later = _earlier_sums(ranking[back], flipped, flipped - 1, weight[back])
    mass = weight * (ordinal + 1 - lower) + higher_later[back]
    if averaged:
        mass += (within - single)[group] * later_in_group(group, level)
    # Slot of (ranking, level): every level of each ranking present among the rows.
    first_levels = n_levels[starts]
    base = np.cumsum(first_levels) - first_levels
    totals = np.bincount(base[owner] + level - 1, weights=mass, minlength=int(first_levels.sum()))
    return pl.DataFrame(
        {
            RANKING_ID: np.repeat(ranking[starts], first_levels),
            "_level": np.arange(totals.size) - np.repeat(base, first_levels) + 1,
            "_mass": totals,
        },
        schema={RANKING_ID: pl.UInt32, "_level": pl.Int64, "_mass": pl.Float64},
    )


def _segments(*keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First row of each run of equal ``keys``, and each row's run number 0..n-1 (runs
    contiguous)."""
    size = keys[0].size
    change = np.zeros(size, dtype=bool)
    change[0:1] = True
    for key in keys:
        change[1:] |= key[1:] != key[:-1]
    starts = np.flatnonzero(change)
    group = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, size]))
    return starts, group


def _per_level_sums_in_two(
    ranking: np.ndarray, level: np.ndarray, weight: np.ndarray, row_levels: np.ndarray
) -> np.ndarray:
    """:func:`_per_level_sums` in two threads (:func:`_on_two_halves`)."""
    return np.concatenate(_on_two_halves(_per_level_sums, ranking, level, weight, row_levels))


def _on_two_halves(sweep: Callable[..., T], ranking: np.ndarray, *columns: np.ndarray) -> list[T]:
    """``sweep(ranking, *columns)`` on each of :func:`_two_halves` of the rows, in two threads
    (numpy frees the interpreter in its array work): a sweep whose results per ranking are
    the same in either half. One result per half, in row order."""
    halves = _two_halves(ranking)
    if len(halves) == 1:
        return [sweep(ranking, *columns)]
    with ThreadPoolExecutor(2) as pool:
        parts = [pool.submit(sweep, ranking[rows], *(c[rows] for c in columns)) for rows in halves]
        return [part.result() for part in parts]


def _two_halves(ranking: np.ndarray) -> list[slice]:
    """Two slices of whole rankings (rows contiguous per ranking) with about half of the rows
    each; one slice when there is a single ranking.

    Examples
    --------
    >>> _two_halves(np.array([0, 0, 0, 1, 2, 2]))
    [slice(0, 3, None), slice(3, None, None)]
    >>> _two_halves(np.array([5, 5]))
    [slice(0, None, None)]
    """
    starts, _ = _segments(ranking)
    if starts.size < 2:
        return [slice(0, None)]
    cut = int(starts[min(max(int(np.searchsorted(starts, ranking.size // 2)), 1), starts.size - 1)])
    return [slice(0, cut), slice(cut, None)]


def _per_level_sums(
    ranking: np.ndarray, level: np.ndarray, weight: np.ndarray, row_levels: np.ndarray
) -> np.ndarray:
    """For each row j: ``sum over rows i <= j of its ranking of min(w_i, w_j)``, level by level.

    ``sum_i min(w_i, w_j) = sum over the levels v <= level_j present among the rows of
    (W_v - W_below_v) * #{i <= j: level_i >= v}``: one running count per level, O(n * m).
    """
    starts, group = _segments(ranking)
    top = int(row_levels.max())
    present = np.full((starts.size, top + 1), np.nan)
    present[:, 0] = 0.0
    present[group, level] = weight
    # The weight of the nearest present level below each level (0 below the lowest).
    last_seen = np.maximum.accumulate(np.where(np.isnan(present), 0, np.arange(top + 1)), axis=1)
    below = np.take_along_axis(present, last_seen, axis=1)
    step = np.nan_to_num(present[:, 1:] - below[:, :-1])
    out = np.zeros(ranking.size)
    for v in range(1, top + 1):
        at_or_above = level >= v
        running = np.cumsum(at_or_above)
        count = running - (running[starts] - at_or_above[starts])[group]
        out += np.where(at_or_above, step[group, v - 1] * count, 0.0)
    return out


def _sorted_sums(
    ranking: np.ndarray, level: np.ndarray, weight: np.ndarray, row_levels: np.ndarray
) -> np.ndarray:
    """For each row j: ``sum over rows i <= j of its ranking of min(w_i, w_j)``.

    ``level`` is the dense rank of ``weight`` within the ranking, so a smaller level means
    a smaller weight: the earlier rows at or below j's level give their own weight, the
    others (and j itself) give w_j.
    """
    del row_levels  # the sweeps size their trees from the levels they see
    starts, group = _segments(ranking)
    ordinal = np.arange(ranking.size) - starts[group]
    count, below = _earlier_sums(ranking, level, level, weight)
    sums: np.ndarray = below + weight * (ordinal - count) + weight
    return sums


def _earlier_sums(
    ranking: np.ndarray,
    level: np.ndarray,
    query: np.ndarray,
    weight: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """For each row j: the rows i before it in its ranking with ``level_i <= query_j``, as a
    count and a sum of ``weight_i`` (0 without weights).

    Rows are contiguous per ranking and in ranked order; levels are positive integers (the
    dense ranks of the labels within a ranking), ``query`` >= 0 rises with the level (equal
    levels, equal queries: ``level`` or ``level - 1``). Each ranking takes one
    sweep by its own length, so its bits never depend on the other rankings.
    """
    weight = np.zeros(ranking.size) if weight is None else weight
    starts, group = _segments(ranking)
    deep = np.diff(np.r_[starts, ranking.size])[group] > DEEP
    if ranking.size and (deep.all() or not deep.any()):  # one sweep, no copies of the rows
        return (_merged_in_two if deep.all() else _fenwick_earlier)(ranking, level, query, weight)
    count, total = np.zeros(ranking.size), np.zeros(ranking.size)
    for rows, sweep in ((~deep, _fenwick_earlier), (deep, _merged_in_two)):
        if rows.any():
            count[rows], total[rows] = sweep(ranking[rows], level[rows], query[rows], weight[rows])
    return count, total


def _fenwick_earlier(
    ranking: np.ndarray, level: np.ndarray, query: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_earlier_sums` with one Fenwick tree per ranking, holding per level the count
    and the weight sum of the rows seen so far; the k-th rows of all rankings go together.

    Whole rankings go in chunks of about :data:`FENWICK_CHUNK` rows, so that the trees of a
    chunk stay in the processor's cache (each ranking's sums are the same in any chunk), two
    chunks at a time (numpy frees the interpreter in its array work).
    """
    starts, _ = _segments(ranking)
    first = np.searchsorted(starts, np.arange(0, ranking.size, FENWICK_CHUNK))
    cuts = np.unique(starts[np.minimum(first, starts.size - 1)])
    count, total = np.empty(ranking.size), np.empty(ranking.size)

    def sweep(rows: slice) -> None:
        count[rows], total[rows] = _fenwick_chunk(
            ranking[rows], level[rows], query[rows], weight[rows]
        )

    chunks = [slice(a, b) for a, b in zip(cuts, np.r_[cuts[1:], ranking.size], strict=True)]
    if len(chunks) == 1:
        sweep(chunks[0])
    else:
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(sweep, chunks))
    return count, total


def _fenwick_chunk(
    ranking: np.ndarray, level: np.ndarray, query: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_fenwick_earlier` on whole rankings, all at once.

    ``trees`` holds, per slot, a row count (real part) and a weight sum (imaginary part):
    complex addition adds each part exactly as two float arrays would, in one memory visit
    (the sweep is bound by memory access). The rows go in step order (the k-th rows of all
    rankings together), so that each step reads slices; a step holds one row per ranking,
    so no slot repeats within a write.
    """
    starts, group = _segments(ranking)
    n_levels = np.maximum.reduceat(np.maximum(level, query), starts)
    # Ranking g's tree: slot base[g] + 0 always holds 0 (where finished reads land), slots
    # + 1 .. + m_g the levels, slot + m_g + 1 a sink for finished writes: no masks needed.
    base = np.r_[0, np.cumsum(n_levels + 2)[:-1]]
    trees = np.zeros(int((n_levels + 2).sum()), dtype=np.complex128)
    ordinal = np.arange(group.size) - starts[group]
    order = np.argsort(ordinal, kind="stable")
    bounds = np.searchsorted(ordinal[order], np.arange(ordinal.max() + 2))
    by_step = group[order]
    row_base, row_sink = base[by_step], (base + n_levels + 1)[by_step]
    row_query, row_level = query[order], level[order]
    row_value = 1.0 + 1j * weight[order]
    seen = np.zeros(group.size, dtype=np.complex128)
    for step in range(ordinal.max() + 1):
        rows = slice(bounds[step], bounds[step + 1])
        at = row_base[rows]
        seen[rows] = _fenwick_prefix(trees, at, row_query[rows])
        _fenwick_add(trees, at, row_level[rows], row_sink[rows], row_value[rows])
    count, total = np.empty(group.size), np.empty(group.size)
    count[order], total[order] = seen.real, seen.imag
    return count, total


def _fenwick_prefix(trees: np.ndarray, base: np.ndarray, level: np.ndarray) -> np.ndarray:
    """Per tree: the slots' sum over levels 1..level (count + 1j * weight sum)."""
    seen: np.ndarray = trees[base + level]
    index = level & (level - 1)
    while index.any():
        seen += trees[base + index]
        index &= index - 1  # drops the lowest set bit
    return seen


def _fenwick_add(
    trees: np.ndarray, base: np.ndarray, level: np.ndarray, sink: np.ndarray, value: np.ndarray
) -> None:
    """Add ``value`` at ``level`` of each tree (``sink``: past its top level)."""
    slot = base + level
    index = level.copy()
    while (slot < sink).any():
        trees[slot] += value
        index += index & -index
        slot = np.minimum(base + index, sink)


def _merged_in_two(
    ranking: np.ndarray, level: np.ndarray, query: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_merged_earlier` in two threads (:func:`_on_two_halves`)."""
    counts, totals = zip(
        *_on_two_halves(_merged_earlier, ranking, level, query, weight), strict=True
    )
    return np.concatenate(counts), np.concatenate(totals)


def _merged_earlier(
    ranking: np.ndarray, level: np.ndarray, query: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_earlier_sums` by merging: O(n log n) in log2(length) vectorised passes.

    At pass s every ranking is cut into blocks of 2 * 2^s rows; a row in the second half of
    its block (bit s of its ordinal set) looks up the first half, sorted by level. Each
    earlier row is looked up exactly once: in the pass of the highest bit where the two
    ordinals differ. Weights add up inside each first half (a cumulative sum per half), so
    rounding stays relative to the rows that count. ``query`` must rise with ``level``
    (equal levels, equal queries), as ``level`` and ``level - 1`` do.

    The halves stay sorted from pass to pass (a merge sort): one stable sort per pass puts
    each second half's queries among its first half's levels, a merge of two sorted runs
    (linear for numpy's timsort), and a row's move gives its count, no binary search.
    """
    starts, group = _segments(ranking)
    ordinal = np.arange(ranking.size) - starts[group]
    length = np.diff(np.r_[starts, ranking.size])[group]
    longest = int(length.max())
    count, total = np.zeros(ranking.size), np.zeros(ranking.size)
    # Keys 2 * level (first halves) and 2 * query + 1 (second halves): a query goes after
    # the levels at or below it; the stride keeps the blocks apart.
    stride = 2 * int(max(level.max(), query.max())) + 4
    same = np.array_equal(query, level)  # then the probe order is the level order
    # The rows, their keys and weights by level inside each block of ``half`` rows.
    perm, keys, probes, weights = np.arange(ranking.size), 2 * level, 2 * query + 1, weight
    half = 1
    while half < longest:
        second = (ordinal & half) != 0
        # First halves with a second half are full: each is ``half`` rows.
        in_first = ~second & ((ordinal & ~(2 * half - 1)) + half < length)
        sums = weights[in_first].reshape(-1, half).cumsum(axis=1).ravel()
        mine = np.cumsum(in_first) // half - 1  # a first half's number among the halves
        block = stride * np.cumsum((ordinal & (2 * half - 1)) == 0)
        probe = (keys + second if same else np.where(second, probes, keys)) + block
        order = np.argsort(probe, kind="stable")
        moved = second[order]
        old = order[moved]
        # A second-half row moves back by the first-half rows it does not pass.
        found = np.flatnonzero(moved) - old + half
        rows = perm[old]
        count[rows] += found
        total[rows] += np.where(found > 0, sums[mine[old] * half + np.maximum(found - 1, 0)], 0.0)
        if not same and 2 * half < longest:
            order = np.argsort(keys + block, kind="stable")
        perm, keys, weights = perm[order], keys[order], weights[order]
        if not same:
            probes = probes[order]
        half *= 2
    return count, total
