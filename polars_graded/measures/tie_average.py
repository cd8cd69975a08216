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
  ``0..a`` (see :mod:`polars_graded.measures.judgments`);
* ERR: the chance of stopping at a group's j-th row is a difference of mean products
  over subsets of the group (see :mod:`polars_graded.measures.user_models`);
* µAP: the distance-weighted mean of the tie-averaged AP at each level (by linearity of the
  expectation), one AP per level of each ranking: O(rows x levels).

Untied rows (groups of one) take the plain formulas' arithmetic, so a table without ties
gives the same bits under every tie policy.
"""

from __future__ import annotations

import polars as pl

from polars_graded.ranking import (
    N_RETRIEVED,
    POSITION,
    PRE_RANKED_TIES_AVERAGED,
    RANKED_REL,
    RANKING_ID,
    TIE_END,
    TIE_START,
    Ranked,
)


def group_hits(r: Ranked, hit: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """For each row: relevant rows before its tie group, and relevant rows in it."""
    hits = hit.cast(pl.Int64)
    through = hits.cum_sum()
    before = (through - hits).gather(r.tie_start - 1)  # type: ignore[operator]
    within = through.gather(r.tie_end - 1) - before  # type: ignore[operator]
    return before, within


def expected_precision_at_hits(r: Ranked, hit: pl.Expr, k: int | None) -> pl.Expr:
    """Per row within ``k``: E[hit * precision] at its position; sums to AP's numerator."""
    before, within = group_hits(r, hit)
    size = r.tie_size()
    offset = r.position - r.tie_start  # type: ignore[operator]
    earlier = pl.when(size > 1).then(offset * (within - 1) / (size - 1)).otherwise(0.0)
    term = (within / size) * (before + 1 + earlier) / r.position
    return pl.when(r.in_list(k) & (within > 0)).then(term)


def first_relevant_chance(r: Ranked, hit: pl.Expr) -> pl.Expr:
    """Per row: the chance that the first relevant row of the ranking is this one."""
    _, within = group_hits(r, hit)
    left = r.tie_end - r.position + 1  # type: ignore[operator]
    stays_clear = (left - within) / left
    clear_before = stays_clear.cum_prod().shift(1, fill_value=1.0)
    return clear_before * (1.0 - stays_clear)


def averaged_reciprocal_rank(r: Ranked, hit: pl.Expr, k: int | None) -> pl.Expr:
    """E[1 / position of the first relevant row within ``k``] (0 when there is none)."""
    first_here = first_relevant_chance(r, hit)
    return pl.when(r.in_list(k) & (first_here > 0)).then(first_here / r.position).sum()


def mu_ap_numerators_averaged(
    ranked: pl.LazyFrame, levels: pl.LazyFrame, k: int | None
) -> pl.LazyFrame:
    """``sum_i d_i E[AP^(l_i)@k]`` per ranking, from the levels of ``threshold_sweep._levels``.

    Every retrieved row meets every level of its ranking: O(rows x levels) rows, once.
    """
    r = PRE_RANKED_TIES_AVERAGED
    retrieved = ranked.filter(pl.col(POSITION) <= pl.col(N_RETRIEVED)).select(
        RANKING_ID, RANKED_REL, N_RETRIEVED, POSITION, TIE_START, TIE_END
    )
    # Left order: each ranking's rows stay in ranked order within every (ranking, level).
    pairs = retrieved.join(
        levels.select(RANKING_ID, "_label", "_d", "_at_or_above"),
        on=RANKING_ID,
        how="inner",
        maintain_order="left",
    )
    # Sums in row order (cum_sum): a plain sum may follow the chunks the joins happen to
    # produce, and the last bit with them.
    terms = expected_precision_at_hits(r, r.hits(pl.col("_label")), k).fill_null(0.0)
    per_level = pairs.group_by(RANKING_ID, "_label").agg(
        terms.cum_sum().last().alias("_ap_sum"),
        pl.col("_d").first(),
        pl.col("_at_or_above").first(),
    )
    weighted = pl.col("_d") * pl.col("_ap_sum") / pl.col("_at_or_above")
    return (
        per_level.sort(RANKING_ID, "_label")
        .group_by(RANKING_ID, maintain_order=True)
        .agg(weighted.cum_sum().last().alias("_numerator"))
    )
