"""The one place that orders a query: scores, ties, positions.

A query's rows are ranked by score, highest first, compared as float32 as trec_eval does;
ties go to the larger item (trec_eval's ``item`` descending). Rows with a null score were
not retrieved: they sort after every retrieved row and have no position in the ranked list,
but they count in ``R`` and in the ideal ranking.

Measures never sort by themselves. They are written against :class:`Ranked`, a bundle of
expressions that give, inside one query's group, the relevance in ranked order, the
relevance in ideal order, positions, the number of retrieved rows and the top label. Two
bundles exist:

* :func:`rank_in_group` sorts inside the group, so a measure works in any
  ``group_by(...).agg(...)`` a user writes;
* :data:`PRE_RANKED` reads the columns of :func:`ranked_lists` and :func:`explode_ranked`,
  which sort each query once so that many measures share the work.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

RANKED_REL = "__pg_rel"
IDEAL_REL = "__pg_ideal"
N_RETRIEVED = "__pg_n_ret"
POSITION = "__pg_pos"
RANKING_ID = "__pg_ranking"
TOP_LABEL = "__pg_top"
IN_ORDER = "__pg_in_order"
RUN = "__pg_run"


@dataclass(frozen=True)
class Columns:
    """Names of the long table's columns, as the user gave them."""

    query: str = "query"
    item: str = "item"
    score: str = "score"
    relevance: str = "relevance"
    by: tuple[str, ...] = ()
    ranked: bool = False
    """The rows are already in ranked order: no sort (see :func:`mark_ranked_order`)."""

    @property
    def keys(self) -> list[str]:
        """The columns that identify one ranked list: ``by + [query]``."""
        return [*self.by, self.query]


def as_by(by: str | Sequence[str] | None) -> tuple[str, ...]:
    """Normalise a ``by=`` argument to a tuple of column names."""
    if by is None:
        return ()
    if isinstance(by, str):
        return (by,)
    return tuple(by)


@dataclass(frozen=True)
class Ranked:
    """Expressions describing one query's ranking inside an aggregation.

    Measures combine them with element-wise operations and plain aggregations (``sum``,
    ``min``, ``first``), which Polars runs on whole columns at once; per-group operations
    such as ``head`` or ``filter`` would run once per query.

    Attributes
    ----------
    rel
        Relevance in ranked order (Float64): retrieved rows first, then the unretrieved
        ones; null where the row is unjudged.
    ideal
        Relevance of the same rows sorted descending, nulls last: the ideal ranking.
    n_retrieved
        Number of retrieved rows: a scalar, or the same value on every row of the query.
    position
        1-based position of each row of :attr:`rel` (and of :attr:`ideal`).
    top
        The query's top label, ``max(ideal)``: a scalar or repeated on every row.
    """

    rel: pl.Expr
    ideal: pl.Expr
    n_retrieved: pl.Expr
    position: pl.Expr
    top: pl.Expr

    def in_list(self, k: int | pl.Expr | None) -> pl.Expr:
        """True for the rows of :attr:`rel` that are retrieved and within cutoff ``k``."""
        retrieved = self.position <= self.n_retrieved
        return retrieved if k is None else retrieved & (self.position <= k)

    def hits(self, rel: float) -> pl.Expr:
        """True where the ranked row is relevant at threshold ``rel`` (null counts as not)."""
        return (self.rel >= rel).fill_null(False)

    def n_relevant(self, rel: float) -> pl.Expr:
        """``R^t``: judged rows of the query with relevance >= ``rel``, retrieved or not."""
        return (self.ideal >= rel).fill_null(False).sum()


def ranking_order(score: str, item: str) -> tuple[list[pl.Expr], list[bool]]:
    """Sort keys (and their directions) that put a query's rows in ranked order."""
    return [pl.col(score).cast(pl.Float32), pl.col(item)], [True, True]


def rank_in_group(relevance: str = "relevance", score: str = "score", item: str = "item") -> Ranked:
    """A :class:`Ranked` bundle that sorts inside the group, for standalone expressions.

    Parameters
    ----------
    relevance, score, item
        Column names.
    """
    keys, descending = ranking_order(score, item)
    rel = pl.col(relevance).cast(pl.Float64)
    # Groups are already sorted in parallel; a multithreaded sort inside each only adds overhead.
    return Ranked(
        rel=rel.sort_by(keys, descending=descending, nulls_last=True, multithreaded=False),
        ideal=rel.sort(descending=True, nulls_last=True),
        n_retrieved=pl.col(score).count(),
        position=pl.int_range(1, pl.len() + 1, dtype=pl.Int64),
        top=rel.max(),
    )


PRE_RANKED = Ranked(
    rel=pl.col(RANKED_REL),
    ideal=pl.col(IDEAL_REL),
    n_retrieved=pl.col(N_RETRIEVED),
    position=pl.col(POSITION),
    top=pl.col(TOP_LABEL),
)
"""The :class:`Ranked` bundle over the columns of :func:`explode_ranked`."""


def ranked_lists(cols: Columns) -> list[pl.Expr]:
    """Per-query aggregations holding the query's ranking as lists (see :func:`explode_ranked`)."""
    own = rank_in_group(cols.relevance, cols.score, cols.item)
    # Input in ranked order keeps its row order: group_by keeps the order within groups.
    rel = pl.col(cols.relevance).cast(pl.Float64) if cols.ranked else own.rel
    return [
        rel.alias(RANKED_REL),
        own.ideal.alias(IDEAL_REL),
        own.n_retrieved.alias(N_RETRIEVED),
        own.position.alias(POSITION),
        own.top.alias(TOP_LABEL),
    ]


def mark_ranked_order(lf: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
    """Flag, for input said to be in ranked order, the rows where it is not.

    Adds :data:`IN_ORDER`, true when the next row belongs to another ranking or comes after
    this one in ranked order (score descending as float32, ties by item descending,
    unretrieved rows last), and :data:`RUN`, a number that changes wherever the keys
    change, so that a ranking split into several runs shows. One pass, no sort.
    """
    same_next = pl.all_horizontal(pl.col(k).eq_missing(pl.col(k).shift(-1)) for k in cols.keys)
    new_run = ~pl.all_horizontal(pl.col(k).eq_missing(pl.col(k).shift(1)) for k in cols.keys)
    score, item = pl.col(cols.score).cast(pl.Float32), pl.col(cols.item)
    next_score, next_item = score.shift(-1), item.shift(-1)
    before_next = (score > next_score) | ((score == next_score) & (item > next_item))
    in_order = (
        ~same_next
        | next_score.is_null()
        | (score.is_not_null() & before_next.fill_null(value=False))
    )
    return lf.with_columns(in_order.alias(IN_ORDER), new_run.cum_sum().alias(RUN))


def number_rankings(grouped: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
    """Number the rankings (one per ``by + [query]``) in key order, as :data:`RANKING_ID`.

    Later steps group and join on this one integer instead of the user's key columns. The
    numbering follows the sorted keys, so it is the same however often the plan computes it.
    """
    return grouped.sort(cols.keys, nulls_last=True).with_row_index(RANKING_ID)


def explode_ranked(numbered: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
    """One row per (ranking, position) from the lists of :func:`ranked_lists`.

    The rows of each ranking stay contiguous and in ranked order, and Polars keeps the order
    of rows within a group, so a later ``group_by(RANKING_ID)`` sees each ranking in order.
    """
    return numbered.select(
        RANKING_ID, *cols.by, RANKED_REL, IDEAL_REL, N_RETRIEVED, POSITION, TOP_LABEL
    ).explode([RANKED_REL, IDEAL_REL, POSITION])
