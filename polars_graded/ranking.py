"""The one place that orders a query: scores, ties, positions.

A query's rows are ranked by score, highest first, compared as 64-bit floats as trec_eval
10.0 does (as 32-bit floats, as 9.x and pytrec_eval do, with ``compat="trec_eval_9"``);
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

from dataclasses import dataclass, replace

import polars as pl

from polars_graded.options import DEFAULT_COMPAT, Compat, TableSpec, TiePolicy, Ties

RANKED_REL = "__pg_rel"
IDEAL_REL = "__pg_ideal"
N_RETRIEVED = "__pg_n_ret"
POSITION = "__pg_pos"
RANKING_ID = "__pg_ranking"
TOP_LABEL = "__pg_top"
IN_ORDER = "__pg_in_order"
RUN = "__pg_run"
TIE_START = "__pg_tie_start"
TIE_END = "__pg_tie_end"
TIE_SCORE = "__pg_tie_score"


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
    tie_start, tie_end
        With ``ties="average"`` only: the positions of the first and last row of each row's
        group of tied scores. Measures then return their expected value over every order
        of each group (see :mod:`polars_graded.measures.kernels.tie_average`).

    Examples
    --------
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.select(rel=r.rel, ideal=r.ideal, hit=r.hits(2)).to_dict(as_series=False)
    {'rel': [0.0, 2.0, 1.0], 'ideal': [2.0, 1.0, 0.0], 'hit': [False, True, False]}
    """

    rel: pl.Expr
    ideal: pl.Expr
    n_retrieved: pl.Expr
    position: pl.Expr
    top: pl.Expr
    tie_start: pl.Expr | None = None
    tie_end: pl.Expr | None = None
    row_counts: RowCounts | None = None
    """Where the plan computes tie groups' hit counts over whole columns, before grouping
    (see :class:`RowCounts`); ``None``: inside each group."""
    compat: Compat = DEFAULT_COMPAT
    """The trec_eval release whose rounding measures reproduce (interpolated precision's
    recall points, see :func:`polars_graded.options.check_compat`)."""

    @property
    def averages_ties(self) -> bool:
        """True when measures are averaged over the orders of tied rows."""
        return self.tie_start is not None

    def in_list(self, k: int | pl.Expr | None) -> pl.Expr:
        """True for the rows of :attr:`rel` that are retrieved and within cutoff ``k``."""
        retrieved = self.position <= self.n_retrieved
        return retrieved if k is None else retrieved & (self.position <= k)

    def hits(self, rel: float | pl.Expr) -> pl.Expr:
        """True where the ranked row is relevant at threshold ``rel`` (null counts as not)."""
        return (self.rel >= rel).fill_null(False)

    def n_relevant(self, rel: float) -> pl.Expr:
        """``R^t``: judged rows of the query with relevance >= ``rel``, retrieved or not."""
        return (self.ideal >= rel).fill_null(False).sum()

    def evaluated(self, k: int | None) -> pl.Expr:
        """How many rows a measure with cutoff ``k`` reads: ``min(k, N)``, N retrieved."""
        retrieved = self.n_retrieved.first()
        return retrieved if k is None else pl.min_horizontal(retrieved, k)

    def per_query(self, value: float) -> pl.Expr:
        """``value`` as one number per query, for a divisor.

        Polars divides a column by a scalar as a multiplication by its inverse (``6 * (1/10)``
        is 0.6000000000000001) but a single value by a plain division (0.6), so dividing by a
        literal would make a query's last bit depend on how many queries the frame holds.
        A per-query divisor always divides: the exact quotient, as trec_eval's.
        """
        return self.n_retrieved.first() * 0 + value

    def tie_size(self) -> pl.Expr:
        """Rows in each row's tie group (only with :attr:`averages_ties`)."""
        return self.tie_end - self.tie_start + 1  # type: ignore[operator]

    def tie_mean(self, values: pl.Expr) -> pl.Expr:
        """The mean of ``values`` over each row's tie group: its expected value at that
        position over the orders of the group. ``values`` itself without tie averaging,
        and on untied rows (so that a table without ties gives the same bits)."""
        start, end = self.tie_start, self.tie_end
        if start is None or end is None:  # ties are not averaged
            return values
        values = values.cast(pl.Float64)
        through = values.cum_sum()
        group_sum = through.gather(end - 1) - (through - values).gather(start - 1)
        size = self.tie_size()
        return pl.when(size == 1).then(values).otherwise(group_sum / size)


class RowCounts:
    """Counts of rows per tie group, computed over whole columns before the group_by.

    Inside an aggregation Polars evaluates ``cum_sum`` and ``gather`` once per group, and
    once per occurrence: an expression that uses a group's count three times pays three
    times. Here each distinct flag (``rel >= 1``, ...) gets two columns, the flagged rows
    before each row's tie group and within it, computed once over the table of
    :func:`explode_ranked` (rankings contiguous, in ranked order): a cumulative sum over
    the column and gathers at each ranking's and group's first row. Counts are integers,
    so they equal the per-group arithmetic exactly.

    Examples
    --------
    >>> counts = RowCounts()
    >>> before, within = counts.of(pl.col(RANKED_REL) >= 1)
    >>> ranked = pl.DataFrame({RANKED_REL: [1.0, 1.0, 0.0, 1.0], POSITION: [1, 2, 1, 2],
    ...                        TIE_START: [1, 1, 1, 1], TIE_END: [2, 2, 2, 2]})
    >>> counts.add_to(ranked.lazy()).select(before, within).collect().rows()
    [(0, 2), (0, 2), (0, 1), (0, 1)]
    """

    def __init__(self) -> None:
        self._flags: list[pl.Expr] = []

    def of(self, flag: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
        """The (before, within) count columns of ``flag``, an element-wise boolean."""
        for i, known in enumerate(self._flags):
            if known.meta.eq(flag):
                return self._columns(i)
        self._flags.append(flag)
        return self._columns(len(self._flags) - 1)

    def add_to(self, ranked: pl.LazyFrame) -> pl.LazyFrame:
        """``ranked`` with the count columns of every flag asked for so far."""
        if not self._flags:
            return ranked
        row = pl.int_range(pl.len(), dtype=pl.Int64)
        first = row - pl.col(POSITION)  # the row of position 1, minus one
        start, end = first + pl.col(TIE_START), first + pl.col(TIE_END)
        columns = []
        for i, flag in enumerate(self._flags):
            values = flag.cast(pl.Int64)
            through = values.cum_sum()
            earlier = through - values
            before, within = (name.meta.output_name() for name in self._columns(i))
            group_earlier = earlier.gather(start)
            columns.append((group_earlier - earlier.gather(first + 1)).alias(before))
            columns.append((through.gather(end) - group_earlier).alias(within))
        return ranked.with_columns(columns)

    @staticmethod
    def _columns(i: int) -> tuple[pl.Expr, pl.Expr]:
        return pl.col(f"__pg_before_{i}"), pl.col(f"__pg_within_{i}")


@dataclass(frozen=True)
class SortKeys:
    """Arguments of the ``sort_by`` that puts a query's rows in ranked order.

    Examples
    --------
    >>> order = ranking_order("score", "item", ties="input")  # score only, a stable sort
    >>> len(order.keys), order.descending, order.maintain_order
    (1, [True], True)
    """

    keys: list[pl.Expr]
    descending: list[bool]
    nulls_last: list[bool]
    maintain_order: bool = False


def ranking_order(
    score: str,
    item: str,
    relevance: str = "relevance",
    ties: Ties | TiePolicy = "trec_eval",
    compat: Compat = DEFAULT_COMPAT,
) -> SortKeys:
    """Sort keys that put a query's rows in ranked order under a tie policy.

    Score descending (as :func:`compared_score` says), null scores last; within a tie: item
    descending (``"trec_eval"``, also the order ``"average"`` works on), the rows' own order
    (``"input"``), the higher label first (``"optimistic"``) or the lower label first, an
    unjudged row before any label (``"pessimistic"``), then item descending.

    Examples
    --------
    >>> df = pl.DataFrame({"item": ["a", "b", "c"], "score": [1.0, 2.0, 2.0],
    ...                    "relevance": [0, 1, 0]})
    >>> for ties in ("trec_eval", "optimistic"):
    ...     o = ranking_order("score", "item", ties=ties)
    ...     ranked = df.sort(o.keys, descending=o.descending, nulls_last=o.nulls_last)
    ...     print(ties, ranked["item"].to_list())
    trec_eval ['c', 'b', 'a']
    optimistic ['b', 'c', 'a']
    """
    ties = Ties.of(ties)
    score_key = compared_score(score, compat)
    if ties.in_input_order:
        return SortKeys([score_key], [True], [True], maintain_order=True)
    if ties.by_label:
        label = pl.col(relevance).cast(pl.Float64)
        best_first = ties.best_first
        return SortKeys(
            [score_key, label, pl.col(item)],
            [True, best_first, True],
            [True, best_first, True],
        )
    return SortKeys([score_key, pl.col(item)], [True, True], [True, True])


def compared_score(score: str, compat: Compat = DEFAULT_COMPAT) -> pl.Expr:
    """A score as every ranking compares it: a 64-bit float, as trec_eval 10.0 (its change
    "Convert float to double"); a 32-bit float with ``compat="trec_eval_9"``, as trec_eval
    9.x and pytrec_eval.

    Examples
    --------
    Two scores that differ as float64 but not as float32 tie only under trec_eval 9.x:

    >>> df = pl.DataFrame({"score": [0.1, 0.1 + 1e-12]})
    >>> [df.select(compared_score("score", c).n_unique()).item()
    ...  for c in ("trec_eval_10", "trec_eval_9")]
    [2, 1]
    """
    return pl.col(score).cast(pl.Float32 if compat == "trec_eval_9" else pl.Float64)


def sort_ranked(lf: pl.LazyFrame, spec: TableSpec) -> pl.LazyFrame:
    """The rows of every ranking in ranked order: ``spec.keys`` groups (ascending), then the
    order of :func:`ranking_order` under ``spec.ties`` (the TREC writer's order).

    Examples
    --------
    >>> df = pl.LazyFrame({"query": [1, 1, 1], "item": ["a", "b", "c"], "score": [1, 2, 2]})
    >>> sort_ranked(df, TableSpec()).collect()["item"].to_list()
    ['c', 'b', 'a']
    """
    order = ranking_order(spec.score, spec.item, spec.relevance, spec.ties, spec.compat)
    keys = [pl.col(key) for key in spec.keys]
    return lf.sort(
        [*keys, *order.keys],
        descending=[False] * len(keys) + order.descending,
        nulls_last=[False] * len(keys) + order.nulls_last,
        maintain_order=order.maintain_order,
    )


def tie_size(spec: TableSpec) -> pl.Expr:
    """For each row, the rows of its ranking with the same compared score (itself included).

    Examples
    --------
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"], "score": [1, 2, 2]})
    >>> df.select(tie_size(TableSpec()))["len"].to_list()
    [1, 2, 2]
    """
    return pl.len().over(*spec.keys, compared_score(spec.score, spec.compat))


def _sorted(expr: pl.Expr, order: SortKeys) -> pl.Expr:
    # Groups are already sorted in parallel; a multithreaded sort inside each only adds overhead.
    return expr.sort_by(
        order.keys,
        descending=order.descending,
        nulls_last=order.nulls_last,
        multithreaded=False,
        maintain_order=order.maintain_order,
    )


def tie_bounds(ranked_scores: pl.Expr, position: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Positions of the first and last row of each row's group of equal scores.

    ``ranked_scores`` are the scores (as compared) in ranked order; the unretrieved rows
    (null scores) at the end form one group of their own, which no measure reads.

    Examples
    --------
    >>> start, end = tie_bounds(pl.col("score"), pl.int_range(1, pl.len() + 1))
    >>> pl.DataFrame({"score": [3.0, 2.0, 2.0, 1.0]}).select(start=start, end=end).rows()
    [(1, 1), (2, 3), (2, 3), (4, 4)]
    """
    last = position == pl.len()
    starts = (position == 1) | ranked_scores.ne_missing(ranked_scores.shift(1))
    ends = last | ranked_scores.ne_missing(ranked_scores.shift(-1))
    start = pl.when(starts).then(position).forward_fill()
    end = pl.when(ends).then(position).backward_fill()
    return start, end


def rank_in_group(
    relevance: str = "relevance",
    score: str = "score",
    item: str = "item",
    ties: Ties | TiePolicy = "trec_eval",
    compat: Compat = DEFAULT_COMPAT,
) -> Ranked:
    """A :class:`Ranked` bundle that sorts inside the group, for standalone expressions.

    Parameters
    ----------
    relevance, score, item
        Column names.
    ties
        The tie policy (see :func:`ranking_order`).
    compat
        The trec_eval release to reproduce (:func:`polars_graded.options.check_compat`).

    Examples
    --------
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [1.0, 3.0, 2.0], "relevance": [1, 0, 2]})
    >>> df.group_by("query").agg(rank_in_group().rel)["relevance"].to_list()  # b, c, a
    [[0.0, 2.0, 1.0]]
    """
    ties = Ties.of(ties)
    order = ranking_order(score, item, relevance, ties, compat)
    rel = pl.col(relevance).cast(pl.Float64)
    position = pl.int_range(1, pl.len() + 1, dtype=pl.Int64)
    tie_start = tie_end = None
    if ties.averaged:
        tie_start, tie_end = tie_bounds(_sorted(compared_score(score, compat), order), position)
    return Ranked(
        rel=_sorted(rel, order),
        # Sorted before the cast, which keeps the order: a narrower type sorts faster.
        ideal=pl.col(relevance).sort(descending=True, nulls_last=True).cast(pl.Float64),
        n_retrieved=pl.col(score).count(),
        position=position,
        top=rel.max(),
        tie_start=tie_start,
        tie_end=tie_end,
        compat=compat,
    )


PRE_RANKED = Ranked(
    rel=pl.col(RANKED_REL),
    ideal=pl.col(IDEAL_REL),
    n_retrieved=pl.col(N_RETRIEVED),
    position=pl.col(POSITION),
    top=pl.col(TOP_LABEL),
)
"""The :class:`Ranked` bundle over the columns of :func:`explode_ranked`."""

PRE_RANKED_TIES_AVERAGED = replace(PRE_RANKED, tie_start=pl.col(TIE_START), tie_end=pl.col(TIE_END))
""":data:`PRE_RANKED` with the tie groups of ``ties="average"``."""


def pre_ranked(cols: TableSpec) -> Ranked:
    """The :class:`Ranked` bundle over the exploded table of this evaluation.

    Examples
    --------
    >>> pre_ranked(TableSpec()) is PRE_RANKED
    True
    >>> pre_ranked(TableSpec.of({"ties": "average"})).averages_ties
    True
    """
    ranked = PRE_RANKED_TIES_AVERAGED if cols.ties.averaged else PRE_RANKED
    return ranked if cols.compat == DEFAULT_COMPAT else replace(ranked, compat=cols.compat)


def skips_sort(cols: TableSpec) -> bool:
    """Input in ranked order needs no sort, unless the tie policy reorders ties by label.

    Examples
    --------
    >>> skips_sort(TableSpec(ranked=True))
    True
    >>> skips_sort(TableSpec.of({"ranked": True, "ties": "optimistic"}))
    False
    """
    return cols.ranked and not cols.ties.by_label


def ranked_lists(cols: TableSpec) -> list[pl.Expr]:
    """Per-query aggregations holding the query's ranking as lists (see :func:`explode_ranked`).

    Examples
    --------
    Ranked relevance, ideal relevance, rows retrieved and the top label (the positions are
    added by :func:`explode_ranked`, for all rankings at once):

    >>> df = pl.DataFrame({"query": [1, 1], "item": ["a", "b"], "score": [1.0, 2.0],
    ...                    "relevance": [1, 0]})
    >>> df.group_by("query").agg(ranked_lists(TableSpec())).row(0)
    (1, [0.0, 1.0], [1.0, 0.0], 2, 1.0)
    """
    own = rank_in_group(cols.relevance, cols.score, cols.item, cols.ties, cols.compat)
    # Input in ranked order keeps its row order: group_by keeps the order within groups.
    rel = pl.col(cols.relevance).cast(pl.Float64) if skips_sort(cols) else own.rel
    lists = [
        rel.alias(RANKED_REL),
        own.ideal.alias(IDEAL_REL),
        own.n_retrieved.alias(N_RETRIEVED),
        own.top.alias(TOP_LABEL),
    ]
    if cols.ties.averaged:
        # The scores in ranked order too, for explode_ranked to find the tie groups over
        # whole columns (inside each group their fills cost more than the sort). Label and
        # score are sorted together, as a list of structs that explode_ranked unnests: one
        # sort instead of two.
        pair = pl.struct(
            pl.col(cols.relevance).cast(pl.Float64).alias(RANKED_REL),
            compared_score(cols.score, cols.compat).alias(TIE_SCORE),
        )
        if not skips_sort(cols):
            order = ranking_order(cols.score, cols.item, cols.relevance, cols.ties, cols.compat)
            pair = _sorted(pair, order)
        lists[0] = pair.alias(RANKED_REL)
    return lists


def mark_ranked_order(lf: pl.LazyFrame, cols: TableSpec) -> pl.LazyFrame:
    """Flag, for input said to be in ranked order, the rows where it is not.

    Adds :data:`IN_ORDER`, true when the next row belongs to another ranking or comes after
    this one in ranked order (score descending as compared, unretrieved rows last; with
    ``ties="trec_eval"`` ties by item descending), and :data:`RUN`, a number that changes
    wherever the keys change, so that a ranking split into several runs shows. One pass,
    no sort.

    Examples
    --------
    >>> lf = pl.LazyFrame({"query": [1, 1, 1], "item": ["a", "b", "c"], "score": [3.0, 1.0, 2.0]})
    >>> mark_ranked_order(lf, TableSpec(ranked=True)).collect()[IN_ORDER].to_list()
    [True, False, True]
    """
    same_next = pl.all_horizontal(pl.col(k).eq_missing(pl.col(k).shift(-1)) for k in cols.keys)
    new_run = ~pl.all_horizontal(pl.col(k).eq_missing(pl.col(k).shift(1)) for k in cols.keys)
    score, item = compared_score(cols.score, cols.compat), pl.col(cols.item)
    next_score, next_item = score.shift(-1), item.shift(-1)
    tie_in_order = item > next_item if cols.ties.by_item else pl.lit(value=True)
    before_next = (score > next_score) | ((score == next_score) & tie_in_order)
    in_order = (
        ~same_next
        | next_score.is_null()
        | (score.is_not_null() & before_next.fill_null(value=False))
    )
    return lf.with_columns(in_order.alias(IN_ORDER), new_run.cum_sum().alias(RUN))


def number_rankings(grouped: pl.LazyFrame, cols: TableSpec) -> pl.LazyFrame:
    """Number the rankings (one per ``by + [query]``) in key order, as :data:`RANKING_ID`.

    Later steps group and join on this one integer instead of the user's key columns. The
    numbering follows the sorted keys, so it is the same however often the plan computes it.

    Examples
    --------
    >>> number_rankings(pl.LazyFrame({"query": [2, 1]}), TableSpec()).collect().rows()
    [(0, 1), (1, 2)]
    """
    return grouped.sort(cols.keys, nulls_last=True).with_row_index(RANKING_ID)


def explode_ranked(numbered: pl.LazyFrame, cols: TableSpec) -> pl.LazyFrame:
    """One row per (ranking, position) from the lists of :func:`ranked_lists`, with
    :data:`POSITION` (built here for every ranking at once, not inside each group).

    The rows of each ranking stay contiguous and in ranked order, and Polars keeps the order
    of rows within a group, so a later ``group_by(RANKING_ID)`` sees each ranking in order.

    Examples
    --------
    >>> df = pl.DataFrame({"query": [1, 1], "item": ["a", "b"], "score": [1.0, 2.0],
    ...                    "relevance": [1, 0]})
    >>> spec = TableSpec()
    >>> grouped = df.lazy().group_by("query").agg(ranked_lists(spec))
    >>> ranked = explode_ranked(number_rankings(grouped, spec), spec).collect()
    >>> ranked.select(RANKING_ID, RANKED_REL, POSITION).rows()
    [(0, 0.0, 1), (0, 1.0, 2)]
    """
    positions = pl.int_ranges(1, pl.col(RANKED_REL).list.len() + 1, dtype=pl.Int64)
    exploded = numbered.select(
        RANKING_ID,
        *cols.by,
        RANKED_REL,
        IDEAL_REL,
        N_RETRIEVED,
        positions.alias(POSITION),
        TOP_LABEL,
    ).explode([RANKED_REL, IDEAL_REL, POSITION])
    if not cols.ties.averaged:
        return exploded
    start, end = contiguous_tie_bounds(pl.col(TIE_SCORE), pl.col(POSITION))
    bounds = [start.alias(TIE_START), end.alias(TIE_END)]
    # Unnested in place: the columns keep the order of the plain case.
    return exploded.unnest(RANKED_REL).with_columns(bounds).drop(TIE_SCORE)


def contiguous_tie_bounds(ranked_scores: pl.Expr, position: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """:func:`tie_bounds` over whole columns holding many rankings one after another.

    Every ranking starts at position 1 and runs in ranked order, so a tie group never
    reaches into the next ranking: the fills run once over the column, not per ranking.

    Examples
    --------
    >>> df = pl.DataFrame({"score": [2.0, 2.0, 2.0, 1.0, 1.0], "pos": [1, 2, 1, 2, 3]})
    >>> start, end = contiguous_tie_bounds(pl.col("score"), pl.col("pos"))
    >>> df.select(start=start, end=end).rows()
    [(1, 2), (1, 2), (1, 1), (2, 3), (2, 3)]
    """
    same_as_previous = (position > 1) & ranked_scores.eq_missing(ranked_scores.shift(1))
    next_in_ranking = position.shift(-1).fill_null(1) > 1
    same_as_next = next_in_ranking & ranked_scores.eq_missing(ranked_scores.shift(-1))
    start = pl.when(~same_as_previous).then(position).forward_fill()
    end = pl.when(~same_as_next).then(position).backward_fill()
    return start, end
