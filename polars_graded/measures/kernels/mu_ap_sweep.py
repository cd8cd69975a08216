"""The µAP sweep's numpy kernels: for each row, sums over the earlier rows of its ranking.

Rows come as numpy arrays, contiguous per ranking and in ranked order, with each row's level
(the dense rank of its label within the ranking, 1..m) and weight ``w``. :func:`pair_sums`
gives, for each row j, ``sum over rows i <= j of min(w_i, w_j)``; :func:`earlier_sums` the
count and weight sum of the earlier rows at or below a level. The sums they serve (µAP's
numerator, AP at every level) and the Polars plans around them are in
:mod:`polars_graded.measures.kernels.mu_ap_numerators`.

Rankings with a few levels (graded labels such as 0..4) keep one running count per level:
O(n * m), a handful of vectorised passes. Rankings with many levels (continuous labels, a
level per row) need, for each row, the count and weight of the earlier rows at or below a
level (:func:`earlier_sums`): rankings of up to :data:`DEEP` rows keep a prefix sum over
their levels in one Fenwick tree each, all advancing together one ranked row at a time (a
Python step per position, never per query; two threads); deeper ones merge sorted blocks of
rows, a vectorised pass per doubling of the block size. Memory stays O(n): no row meets a
level. A ranking's bits never depend on the other rankings: its sweep follows from its own
length and levels, and chunks and threads split the rows between whole rankings.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np

T = TypeVar("T")

FEW_LEVELS = 8
"""Rankings with at most this many levels take the O(n * m) sweep, the others O(n log m)."""
DEEP = 4096
"""Rankings with more rows than this merge sorted blocks instead of a Python step per row."""
FENWICK_CHUNK = 1 << 19
"""Rows of rankings (about) whose Fenwick trees are swept together: 8 MiB per thread, in cache."""


def pair_sums(
    ranking: np.ndarray, level: np.ndarray, weight: np.ndarray, row_levels: np.ndarray
) -> np.ndarray:
    """For each row j: ``sum over rows i <= j of its ranking of min(w_i, w_j)``.

    ``level`` is the dense rank of ``weight`` within the ranking (a smaller level, a smaller
    weight), ``row_levels`` the ranking's level count m on each of its rows.

    Examples
    --------
    >>> pair_sums(np.array([0, 0, 0]), np.array([2, 1, 2]), np.array([0.5, 0.25, 0.5]),
    ...           np.array([2, 2, 2])).tolist()
    [0.5, 0.5, 1.25]
    """
    # Whole rankings go one way or the other, so a query's bits never depend on its neighbours.
    few = row_levels <= FEW_LEVELS
    if few.all() or not few.any():  # one sweep, no copies of the rows
        sweep = _per_level_sums_in_two if few.all() else _sorted_sums
        return sweep(ranking, level, weight, row_levels)
    sums = np.empty(ranking.size)
    for rows, sweep in ((few, _per_level_sums_in_two), (~few, _sorted_sums)):
        sums[rows] = sweep(ranking[rows], level[rows], weight[rows], row_levels[rows])
    return sums


def segments(*keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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
    starts, _ = segments(ranking)
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
    starts, group = segments(ranking)
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
    starts, group = segments(ranking)
    ordinal = np.arange(ranking.size) - starts[group]
    count, below = earlier_sums(ranking, level, level, weight)
    sums: np.ndarray = below + weight * (ordinal - count) + weight
    return sums


def earlier_sums(
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
    starts, group = segments(ranking)
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
    """:func:`earlier_sums` with one Fenwick tree per ranking, holding per level the count
    and the weight sum of the rows seen so far; the k-th rows of all rankings go together.

    Whole rankings go in chunks of about :data:`FENWICK_CHUNK` rows, so that the trees of a
    chunk stay in the processor's cache (each ranking's sums are the same in any chunk), two
    chunks at a time (numpy frees the interpreter in its array work).
    """
    starts, _ = segments(ranking)
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
    starts, group = segments(ranking)
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
    """:func:`earlier_sums` by merging: O(n log n) in log2(length) vectorised passes.

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
    starts, group = segments(ranking)
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
