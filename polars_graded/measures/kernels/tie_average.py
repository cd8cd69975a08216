"""Measures averaged over the orders of tied rows (``ties="average"``), in closed form.

Scores tie often, and each tool orders tied rows its own way. With ``ties="average"`` a
measure's value is its expected value when every group of rows with equal scores is put in
a uniformly random order (McSherry and Najork, ECIR 2008), computed without enumerating
orders. For a row at offset ``j`` (1-based) of a tie group of ``n`` rows holding ``c``
relevant ones, after ``C`` relevant rows in earlier groups:

* P(the row is relevant) = ``c / n``; so measures that add a value per position (P@k,
  recall, R-precision, DCG and its normalisations) take, at each position, the mean of
  that value over the group (:meth:`Ranked.tie_mean <polars_graded.ranking.Ranked.tie_mean>`);
* AP: E[hit at j * precision at j] = ``(c/n) * (C + 1 + (j-1)(c-1)/(n-1)) / p``;
* RR and success@k: P(the first relevant row is at j) = ``prod_{i<j} q_i * (1 - q_j)``
  with ``q_i = (n - i + 1 - c) / (n - i + 1)``, the chance that row i is not relevant
  when the rows before it in the group were not;
* bpref: the judged non-relevant rows of its group above a relevant row are uniform on
  ``0..a`` (see :mod:`polars_graded.measures.bpref`);
* ERR: the chance of stopping at a group's j-th row is a difference of mean products
  over subsets of the group (see :mod:`polars_graded.measures.err`);
* AP at every level of a ranking, and µAP, at once: summed over a tie group g of ``n_g``
  rows, the AP formula gives ``(c/n)(C + 1) H_g + c(c-1)/(n(n-1)) G_g`` with ``H_g`` and
  ``G_g`` the sums of ``1/p`` and ``(p - start_g)/p`` over g's positions within the cutoff.
  ``c C``, ``c`` and ``c(c-1)`` count pairs of rows with both labels >= t, so every pair of
  relevant rows adds its weight to each threshold up to ``min(label_a, label_b)``:
  ``H_g / n_g`` when the later row is in g (and for a row of g with itself),
  ``2 G_g / (n_g (n_g - 1))`` for two rows of g.
  :mod:`~polars_graded.measures.kernels.mu_ap_numerators` adds up the pairs in O(rows log
  rows) with :func:`tie_group_weights` and :func:`later_in_group`, never a row per level.

Untied rows (groups of one) take the plain formulas' arithmetic, so a table without ties
gives the same bits under every tie policy.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from polars_graded.ranking import Ranked


def group_hits(r: Ranked, hit: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """For each row: relevant rows before its tie group, and relevant rows in it.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [1.0, 1.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group(ties="average")
    >>> before, within = group_hits(r, r.hits(2))
    >>> df.group_by("query").agg(before, within.alias("within")).row(0)
    (1, [0, 0, 0], [1, 1, 1])
    """
    if r.row_counts is not None:
        return r.row_counts.of(hit)
    return group_sums(r, hit.cast(pl.Int64))


def group_sums(r: Ranked, values: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """For each row: the sum of ``values`` before its tie group, and within it.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [2.0, 1.0, 1.0], "relevance": [3, 2, 1]})
    >>> r = rank_in_group(ties="average")
    >>> before, within = group_sums(r, r.rel)
    >>> df.group_by("query").agg(before, within.alias("within")).row(0)
    (1, [0.0, 3.0, 3.0], [3.0, 3.0, 3.0])
    """
    through = values.cum_sum()
    before = (through - values).gather(r.tie_start - 1)  # type: ignore[operator]
    within = through.gather(r.tie_end - 1) - before  # type: ignore[operator]
    return before, within


def expected_earlier_hits(r: Ranked, within: pl.Expr) -> pl.Expr:
    """For a relevant row of a tie group holding ``within`` relevant rows: how many of the
    group's other relevant rows come before it on average, given its position in the group.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [1.0, 1.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group(ties="average")
    >>> _, within = group_hits(r, r.hits(1))
    >>> df.group_by("query").agg(expected_earlier_hits(r, within)).item(0, 1).to_list()
    [0.0, 0.5, 1.0]
    """
    size = r.tie_size()
    offset = r.position - r.tie_start
    return pl.when(size > 1).then(offset * (within - 1) / (size - 1)).otherwise(0.0)


def expected_precision_at_hits(r: Ranked, hit: pl.Expr, k: int | None) -> pl.Expr:
    """Per row within ``k``: E[hit * precision] at its position; sums to AP's numerator.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [1.0, 1.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group(ties="average")
    >>> numerator = expected_precision_at_hits(r, r.hits(1), None).sum()
    >>> round(df.group_by("query").agg(numerator).item(0, 1), 6)
    1.611111
    """
    before, within = group_hits(r, hit)
    earlier = expected_earlier_hits(r, within)
    term = (within / r.tie_size()) * (before + 1 + earlier) / r.position
    return pl.when(r.in_list(k) & (within > 0)).then(term)


def first_relevant_chance(r: Ranked, hit: pl.Expr) -> pl.Expr:
    """Per row: the chance that the first relevant row of the ranking is this one.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [1.0, 1.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group(ties="average")
    >>> chance = first_relevant_chance(r, r.hits(1)).round(6)
    >>> df.group_by("query").agg(chance).item(0, 1).to_list()
    [0.666667, 0.333333, 0.0]
    """
    _, within = group_hits(r, hit)
    left = r.tie_end - r.position + 1
    stays_clear = (left - within) / left
    clear_before = stays_clear.cum_prod().shift(1, fill_value=1.0)
    return clear_before * (1.0 - stays_clear)


def averaged_reciprocal_rank(r: Ranked, hit: pl.Expr, k: int | None) -> pl.Expr:
    """E[1 / position of the first relevant row within ``k``] (0 when there is none).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [1.0, 1.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group(ties="average")
    >>> round(df.group_by("query").agg(averaged_reciprocal_rank(r, r.hits(1), None)).item(0, 1), 6)
    0.833333
    """
    first_here = first_relevant_chance(r, hit)
    # Where first_here > 0, said without it (inside a group_by each use of it costs a
    # cum_prod): no relevant row before the row's tie group, one in it, and at most
    # n - c rows of the group's n ahead of this one.
    before, within = group_hits(r, hit)
    ahead = r.position - r.tie_start
    can_be_first = (before == 0) & (within > 0) & (ahead <= r.tie_size() - within)
    return pl.when(r.in_list(k) & can_be_first).then(first_here / r.position).sum()


def tie_group_weights(
    group: np.ndarray,
    tie_start: np.ndarray,
    tie_end: np.ndarray,
    k: int | None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per tie group: the pair weights ``H_g / n_g`` and ``2 G_g / (n_g (n_g - 1))``.

    ``group`` numbers the groups 0..G-1 for rows given in ranked order (the rows of a
    group contiguous); ``tie_start`` and ``tie_end`` are each row's group bounds (positions,
    the same on every row of a group). Only the group's bounds are read, not its rows:
    the sums run over every position of the group within the cutoff ``k``, in position
    order, so a group of one row gets ``1/p`` exactly and a pair weight of 0 (no 0/0).

    Examples
    --------
    >>> import numpy as np
    >>> group, start, end = np.array([0, 0, 1]), np.array([1, 1, 3]), np.array([2, 2, 3])
    >>> single, within = tie_group_weights(group, start, end, None)
    >>> single.tolist(), within.tolist()
    ([0.75, 0.3333333333333333], [0.5, 0.0])
    """
    firsts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    start = tie_start[firsts].astype(np.int64)
    end = tie_end[firsts].astype(np.int64)
    size = end - start + 1
    shown = np.clip(end if k is None else np.minimum(end, k), start - 1, None) - start + 1
    owner = np.repeat(np.arange(firsts.size), shown)
    position = (np.arange(owner.size) - np.repeat(np.cumsum(shown) - shown, shown)) + np.repeat(
        start, shown
    )
    inverse = 1.0 / position
    harmonic = np.bincount(owner, weights=inverse, minlength=firsts.size)
    offsets = np.bincount(owner, weights=(position - start[owner]) * inverse, minlength=firsts.size)
    pairs = np.maximum(size * (size - 1), 1)
    return harmonic / size, np.where(size > 1, 2.0 * offsets / pairs, 0.0)


def later_in_group(group: np.ndarray, key: np.ndarray) -> np.ndarray:
    """For each row: the rows of its group after it when the group is sorted by ``key``.

    Summed over a group, ``f(row) * later_in_group`` adds ``f`` of the smaller row of each
    unordered pair in the group (equal keys in either order give the same minimum).

    Examples
    --------
    >>> import numpy as np
    >>> later_in_group(np.array([0, 0, 0]), np.array([2, 1, 3])).tolist()
    [1, 2, 0]
    """
    order = np.lexsort((key, group))
    sorted_group = group[order]
    firsts = np.flatnonzero(np.r_[True, sorted_group[1:] != sorted_group[:-1]])
    ends = np.r_[firsts[1:], group.size]
    per_group = np.repeat(ends, ends - firsts)
    out = np.empty(group.size, dtype=np.int64)
    out[order] = per_group - np.arange(group.size) - 1
    return out
