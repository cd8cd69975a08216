"""The ``graded`` namespace on DataFrame and LazyFrame: thin sugar over the measures.

Every method builds a lazy plan with :mod:`polars_graded.plan`; a DataFrame collects it, a
LazyFrame returns it unevaluated. No maths lives here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Generic, TypedDict, TypeVar, Unpack

import polars as pl

from polars_graded import plan
from polars_graded.measures import (
    AP,
    DCG,
    NDCG,
    NDCNG,
    RR,
    MeanNDCG,
    MeanNDCNG,
    MeasureSpec,
    MuAP,
    P,
    R,
    RPrec,
    as_named_measures,
)
from polars_graded.measures.judgments import BinaryPreference, JudgedShare
from polars_graded.measures.sets import SuccessAtK
from polars_graded.measures.user_models import (
    ExpectedReciprocalRank,
    RankBiasedPrecision,
    RankBiasedPrecisionResidual,
)
from polars_graded.ranking import Columns, TiePolicy, as_by

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
MeasureArg = MeasureSpec
"""One measure or name, a list of them, or a mapping output name -> measure or name."""
GainArg = str | Mapping[float, float]


class ColumnOptions(TypedDict, total=False):
    """Keyword arguments describing the table, shared by every method.

    query, item, score, relevance
        Column names (defaults: ``"query"``, ``"item"``, ``"score"``, ``"relevance"``).
    by
        Extra key column(s), e.g. ``"system"``: every result is keyed by ``by + [query]``.
    ranked
        ``True`` when the rows are already in ranked order, as in TREC run files and most
        ranking logs: sorted by ``by + [query]``'s groups (each query's rows contiguous),
        then score descending, ties by item descending, rows with a null score last. The
        per-query sort is skipped; rows out of that order raise an error naming a query
        and an item. Default ``False``: the rows may come in any order.
    ties
        How rows with equal scores (compared as float32) are ordered: ``"trec_eval"``
        (default: item descending, as trec_eval), ``"input"`` (the rows' order in the
        table), ``"optimistic"`` / ``"pessimistic"`` (the higher / lower label first), or
        ``"average"``: the exact expected value of each measure over every order of each
        group of tied rows (McSherry and Najork, ECIR 2008), in closed form. With
        ``ranked=True``, ``"trec_eval"`` requires ties by item descending and the others
        take tied rows in any order.
    """

    query: str
    item: str
    score: str
    relevance: str
    by: str | Sequence[str] | None
    ranked: bool
    ties: TiePolicy


def _columns(options: ColumnOptions) -> Columns:
    by = as_by(options.get("by"))
    rest = {k: v for k, v in options.items() if k != "by"}
    unknown = set(rest) - {"query", "item", "score", "relevance", "ranked", "ties"}
    if unknown:
        msg = (
            f"unknown keyword argument(s) {sorted(unknown)}; "
            "the table arguments are query=, item=, score=, relevance=, by=, ranked=, ties="
        )
        raise TypeError(msg)
    if not isinstance(rest.get("ranked", False), bool):
        msg = f"ranked= must be True or False, got {rest['ranked']!r}"
        raise TypeError(msg)
    return Columns(by=by, **rest)  # type: ignore[arg-type]


class GradedNamespace(Generic[FrameT]):
    """Evaluate rankings in a long ``(query, item, score, relevance)`` table.

    Registered as ``df.graded`` and ``lf.graded``. On a LazyFrame every method returns a
    LazyFrame and nothing is computed until it is collected.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_graded
    >>> df = pl.DataFrame({
    ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
    ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
    ... })
    >>> df.lazy().graded.evaluate(["mu_ap", "ndcg@2"]).collect()
    shape: (1, 3)
    ┌───────┬──────────┬──────────┐
    │ query ┆ mu_ap    ┆ ndcg@2   │
    │ ---   ┆ ---      ┆ ---      │
    │ i64   ┆ f64      ┆ f64      │
    ╞═══════╪══════════╪══════════╡
    │ 1     ┆ 0.541667 ┆ 0.521296 │
    └───────┴──────────┴──────────┘
    """

    def __init__(self, frame: FrameT) -> None:
        self._frame = frame

    def _finish(self, lf: pl.LazyFrame) -> FrameT:
        if isinstance(self._frame, pl.DataFrame):
            # The data is in memory already, and this plan runs faster on that engine.
            return lf.collect(engine="in-memory")  # type: ignore[return-value]
        return lf  # type: ignore[return-value]

    def evaluate(self, measures: MeasureArg, **columns: Unpack[ColumnOptions]) -> FrameT:
        """Per-query values of many measures, in one lazy plan.

        Parameters
        ----------
        measures
            Measure objects or names (``"mu_ap"``, ``"ndcg@10"``, ``"ap(rel=2)@10"``, ...),
            or a mapping output name -> measure or name (``{"rbp80": "rbp(p=0.8)@5"}``)
            to name the result columns yourself.
        **columns
            ``query=``, ``item=``, ``score=``, ``relevance=``, ``by=``, ``ranked=`` (see
            :class:`ColumnOptions`).

        Returns
        -------
        DataFrame or LazyFrame
            One row per ``by + [query]`` (sorted), one Float64 column per measure: named by
            its canonical string (defaults dropped: ``"rbp(p=0.8,rel=1)@5"`` gives
            ``rbp@5``, see :func:`polars_graded.measure_name`), or by the mapping, in its
            order.

        Raises
        ------
        GradedError
            Bad input (the message names the column, the rule and example rows), a bad
            measure or output name (one that is also a key column), or a measure value
            that would be NaN or infinite.

        Warns
        -----
        GradedWarning
            A measure's relevance threshold is above every label of the table.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.evaluate(["mu_ap", "ndcg@2", "ap(rel=2)"])
        shape: (1, 4)
        ┌───────┬──────────┬──────────┬───────────┐
        │ query ┆ mu_ap    ┆ ndcg@2   ┆ ap(rel=2) │
        │ ---   ┆ ---      ┆ ---      ┆ ---       │
        │ i64   ┆ f64      ┆ f64      ┆ f64       │
        ╞═══════╪══════════╪══════════╪═══════════╡
        │ 1     ┆ 0.541667 ┆ 0.521296 ┆ 0.5       │
        └───────┴──────────┴──────────┴───────────┘
        >>> df.graded.evaluate({"rbp80": "rbp(p=0.8)@2", "top2": polars_graded.NDCG @ 2})
        shape: (1, 3)
        ┌───────┬───────┬──────────┐
        │ query ┆ rbp80 ┆ top2     │
        │ ---   ┆ ---   ┆ ---      │
        │ i64   ┆ f64   ┆ f64      │
        ╞═══════╪═══════╪══════════╡
        │ 1     ┆ 0.16  ┆ 0.521296 │
        └───────┴───────┴──────────┘
        """
        cols = _columns(columns)
        return self._finish(plan.per_query(self._frame.lazy(), measures, cols))

    def summary(
        self,
        measures: MeasureArg,
        *,
        mean: plan.MeanKind = "arithmetic",
        **columns: Unpack[ColumnOptions],
    ) -> FrameT:
        """Per ``by`` group, the number of queries ``num_q`` and the mean of each measure.

        The mean of ``mu_ap`` is µMAP. Every query of the table counts, including those with
        no relevant row (they score 0), as trec_eval does with ``-c``. ``mean="geometric"``
        gives trec_eval's geometric mean instead (``gm_map`` for ``ap``: values below 1e-5
        count as 1e-5), in columns named ``gm_<measure>``. ``measures`` as for
        :meth:`evaluate`: a mapping output name -> measure names the columns.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.summary(["mu_ap", "ndcg@2"])
        shape: (1, 3)
        ┌───────┬──────────┬──────────┐
        │ num_q ┆ mu_ap    ┆ ndcg@2   │
        │ ---   ┆ ---      ┆ ---      │
        │ u32   ┆ f64      ┆ f64      │
        ╞═══════╪══════════╪══════════╡
        │ 1     ┆ 0.541667 ┆ 0.521296 │
        └───────┴──────────┴──────────┘
        """
        cols = _columns(columns)
        wanted = as_named_measures(measures)
        values = plan.per_query(self._frame.lazy(), wanted, cols)
        return self._finish(plan.summary(values, list(wanted), cols.by, mean))

    def mu_ap(
        self,
        *,
        levels: str | Sequence[float] = "query",
        k: int | None = None,
        **columns: Unpack[ColumnOptions],
    ) -> FrameT:
        """µAP per query: AP averaged over all relevance thresholds, weighted by level distance.

        The mean over queries (``summary``) is µMAP.

        Parameters
        ----------
        levels
            ``"query"`` (each query's own distinct positive labels, the default), ``"table"``
            (those of the whole table, or of each ``by`` group) or a list of levels (> 0).
        k
            Cutoff: only the first ``k`` retrieved rows count; ``None`` for all.
        **columns
            ``query=``, ``item=``, ``score=``, ``relevance=`` (column names) and ``by=`` (extra
            key columns such as ``"system"``); see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.mu_ap()
        shape: (1, 2)
        ┌───────┬──────────┐
        │ query ┆ mu_ap    │
        │ ---   ┆ ---      │
        │ i64   ┆ f64      │
        ╞═══════╪══════════╡
        │ 1     ┆ 0.541667 │
        └───────┴──────────┘
        """
        return self.evaluate(MuAP(levels=levels, k=k), **columns)  # type: ignore[arg-type]

    def ap(
        self, *, rel: float = 1, k: int | None = None, **columns: Unpack[ColumnOptions]
    ) -> FrameT:
        """Average precision at relevance threshold ``rel`` (trec_eval ``map`` / ``map_cut.k``).

        Parameters
        ----------
        rel
            Relevance threshold, > 0: rows with a label >= ``rel`` are relevant (default 1).
        k
            Cutoff: only the first ``k`` retrieved rows count; ``None`` for all.
        **columns
            ``query=``, ``item=``, ``score=``, ``relevance=`` (column names) and ``by=`` (extra
            key columns such as ``"system"``); see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.ap(rel=2)
        shape: (1, 2)
        ┌───────┬───────────┐
        │ query ┆ ap(rel=2) │
        │ ---   ┆ ---       │
        │ i64   ┆ f64       │
        ╞═══════╪═══════════╡
        │ 1     ┆ 0.5       │
        └───────┴───────────┘
        """
        return self.evaluate(AP(rel=rel, k=k), **columns)

    def ndcg(
        self, *, k: int | None = None, gain: GainArg = "exp", **columns: Unpack[ColumnOptions]
    ) -> FrameT:
        """NDCG@k; gain ``"exp"`` (2^rel - 1), ``"linear"`` (trec_eval) or a label -> gain map.

        Parameters
        ----------
        k
            Cutoff: only the first ``k`` retrieved rows count; ``None`` for all.
        gain
            ``"exp"`` (``2^rel - 1``, the paper's), ``"linear"`` (``rel``, trec_eval's) or a
            mapping label -> gain (unlisted positive labels keep gain = label).
        **columns
            ``query=``, ``item=``, ``score=``, ``relevance=`` (column names) and ``by=`` (extra
            key columns such as ``"system"``); see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.ndcg(k=2)
        shape: (1, 2)
        ┌───────┬──────────┐
        │ query ┆ ndcg@2   │
        │ ---   ┆ ---      │
        │ i64   ┆ f64      │
        ╞═══════╪══════════╡
        │ 1     ┆ 0.521296 │
        └───────┴──────────┘
        """
        return self.evaluate(NDCG(k=k, gain=gain), **columns)  # type: ignore[arg-type]

    def ndcng(self, *, k: int | None = None, **columns: Unpack[ColumnOptions]) -> FrameT:
        """NDCNG@k: NDCG with exponential gain on labels divided by the query's top label.

        Parameters
        ----------
        k
            Cutoff: only the first ``k`` retrieved rows count; ``None`` for all.
        **columns
            ``query=``, ``item=``, ``score=``, ``relevance=`` (column names) and ``by=`` (extra
            key columns such as ``"system"``); see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.ndcng(k=2)
        shape: (1, 2)
        ┌───────┬──────────┐
        │ query ┆ ndcng@2  │
        │ ---   ┆ ---      │
        │ i64   ┆ f64      │
        ╞═══════╪══════════╡
        │ 1     ┆ 0.500206 │
        └───────┴──────────┘
        """
        return self.evaluate(NDCNG(k=k), **columns)

    def dcg(
        self,
        *,
        k: int | None = None,
        gain: GainArg = "exp",
        base: float = 2,
        **columns: Unpack[ColumnOptions],
    ) -> FrameT:
        """DCG@k with log ``base``.

        Parameters
        ----------
        k
            Cutoff: only the first ``k`` retrieved rows count; ``None`` for all.
        gain
            ``"exp"`` (``2^rel - 1``, the paper's), ``"linear"`` (``rel``, trec_eval's) or a
            mapping label -> gain (unlisted positive labels keep gain = label).
        base
            Base of the logarithm in the discount ``1 / log_base(p + 1)``.
        **columns
            ``query=``, ``item=``, ``score=``, ``relevance=`` (column names) and ``by=`` (extra
            key columns such as ``"system"``); see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.dcg(k=2, base=10)
        shape: (1, 2)
        ┌───────┬────────────────┐
        │ query ┆ dcg(base=10)@2 │
        │ ---   ┆ ---            │
        │ i64   ┆ f64            │
        ╞═══════╪════════════════╡
        │ 1     ┆ 6.28771        │
        └───────┴────────────────┘
        """
        return self.evaluate(DCG(k=k, gain=gain, base=base), **columns)  # type: ignore[arg-type]

    def precision(
        self, *, k: int | None = None, rel: float = 1, **columns: Unpack[ColumnOptions]
    ) -> FrameT:
        """P@k (trec_eval ``P_k``); without ``k``, precision of everything retrieved.

        Parameters
        ----------
        k
            Cutoff: only the first ``k`` retrieved rows count; ``None`` for all.
        rel
            Relevance threshold, > 0: rows with a label >= ``rel`` are relevant (default 1).
        **columns
            ``query=``, ``item=``, ``score=``, ``relevance=`` (column names) and ``by=`` (extra
            key columns such as ``"system"``); see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.precision(k=2)
        shape: (1, 2)
        ┌───────┬─────┐
        │ query ┆ p@2 │
        │ ---   ┆ --- │
        │ i64   ┆ f64 │
        ╞═══════╪═════╡
        │ 1     ┆ 0.5 │
        └───────┴─────┘
        """
        return self.evaluate(P(k=k, rel=rel), **columns)

    def recall(
        self, *, k: int | None = None, rel: float = 1, **columns: Unpack[ColumnOptions]
    ) -> FrameT:
        """Recall@k (trec_eval ``recall_k``); without ``k``, recall of everything retrieved.

        Parameters
        ----------
        k
            Cutoff: only the first ``k`` retrieved rows count; ``None`` for all.
        rel
            Relevance threshold, > 0: rows with a label >= ``rel`` are relevant (default 1).
        **columns
            ``query=``, ``item=``, ``score=``, ``relevance=`` (column names) and ``by=`` (extra
            key columns such as ``"system"``); see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.recall(k=2)
        shape: (1, 2)
        ┌───────┬──────────┐
        │ query ┆ recall@2 │
        │ ---   ┆ ---      │
        │ i64   ┆ f64      │
        ╞═══════╪══════════╡
        │ 1     ┆ 0.5      │
        └───────┴──────────┘
        """
        return self.evaluate(R(k=k, rel=rel), **columns)

    def r_precision(self, *, rel: float = 1, **columns: Unpack[ColumnOptions]) -> FrameT:
        """R-precision (trec_eval ``Rprec``).

        Parameters
        ----------
        rel
            Relevance threshold, > 0: rows with a label >= ``rel`` are relevant (default 1).
        **columns
            ``query=``, ``item=``, ``score=``, ``relevance=`` (column names) and ``by=`` (extra
            key columns such as ``"system"``); see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.r_precision()
        shape: (1, 2)
        ┌───────┬─────────────┐
        │ query ┆ r_precision │
        │ ---   ┆ ---         │
        │ i64   ┆ f64         │
        ╞═══════╪═════════════╡
        │ 1     ┆ 0.5         │
        └───────┴─────────────┘
        """
        return self.evaluate(RPrec(rel=rel), **columns)

    def rr(
        self, *, rel: float = 1, k: int | None = None, **columns: Unpack[ColumnOptions]
    ) -> FrameT:
        """Reciprocal rank of the first relevant row (trec_eval ``recip_rank``).

        Parameters
        ----------
        rel
            Relevance threshold, > 0: rows with a label >= ``rel`` are relevant (default 1).
        k
            Cutoff: only the first ``k`` retrieved rows count; ``None`` for all.
        **columns
            ``query=``, ``item=``, ``score=``, ``relevance=`` (column names) and ``by=`` (extra
            key columns such as ``"system"``); see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.rr()
        shape: (1, 2)
        ┌───────┬─────┐
        │ query ┆ rr  │
        │ ---   ┆ --- │
        │ i64   ┆ f64 │
        ╞═══════╪═════╡
        │ 1     ┆ 0.5 │
        └───────┴─────┘
        """
        return self.evaluate(RR(rel=rel, k=k), **columns)

    def mean_ndcg(self, *, gain: GainArg = "exp", **columns: Unpack[ColumnOptions]) -> FrameT:
        """Mean of NDCG@1..NDCG@N per query (the paper's "mean NDCG").

        Parameters
        ----------
        gain
            ``"exp"`` (``2^rel - 1``, the paper's), ``"linear"`` (``rel``, trec_eval's) or a
            mapping label -> gain (unlisted positive labels keep gain = label).
        **columns
            ``query=``, ``item=``, ``score=``, ``relevance=`` (column names) and ``by=`` (extra
            key columns such as ``"system"``); see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.mean_ndcg()
        shape: (1, 2)
        ┌───────┬───────────┐
        │ query ┆ mean_ndcg │
        │ ---   ┆ ---       │
        │ i64   ┆ f64       │
        ╞═══════╪═══════════╡
        │ 1     ┆ 0.393433  │
        └───────┴───────────┘
        """
        return self.evaluate(MeanNDCG(gain=gain), **columns)  # type: ignore[arg-type]

    def err(
        self, *, max_rel: float = 4, k: int | None = None, **columns: Unpack[ColumnOptions]
    ) -> FrameT:
        """Expected reciprocal rank (Chapelle et al. 2009); not in trec_eval.

        A user goes down the ranking and stops at a row with chance
        ``(2^rel - 1) / 2^max_rel``, scoring ``1/position`` there.

        Parameters
        ----------
        max_rel
            The top grade of the scale (default 4, as TREC's gdeval); labels above it
            count as it.
        k
            Cutoff: only the first ``k`` retrieved rows count; ``None`` for all.
        **columns
            Column names, ``by=``, ``ranked=`` and ``ties=``; see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.err()
        shape: (1, 2)
        ┌───────┬──────────┐
        │ query ┆ err      │
        │ ---   ┆ ---      │
        │ i64   ┆ f64      │
        ╞═══════╪══════════╡
        │ 1     ┆ 0.110677 │
        └───────┴──────────┘
        """
        return self.evaluate(ExpectedReciprocalRank(max_rel=max_rel, k=k), **columns)

    def rbp(
        self,
        *,
        p: float = 0.8,
        rel: float = 1,
        k: int | None = None,
        **columns: Unpack[ColumnOptions],
    ) -> FrameT:
        """Rank-biased precision (Moffat and Zobel 2008): ``(1 - p) sum_i hit_i p^(i-1)``.

        Parameters
        ----------
        p
            Persistence, the chance of going on to the next row (0 < p < 1).
        rel
            Relevance threshold, > 0: rows with a label >= ``rel`` are relevant (default 1).
        k
            Cutoff: only the first ``k`` retrieved rows count; ``None`` for all.
        **columns
            Column names, ``by=``, ``ranked=`` and ``ties=``; see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.rbp()
        shape: (1, 2)
        ┌───────┬───────┐
        │ query ┆ rbp   │
        │ ---   ┆ ---   │
        │ i64   ┆ f64   │
        ╞═══════╪═══════╡
        │ 1     ┆ 0.288 │
        └───────┴───────┘
        """
        return self.evaluate(RankBiasedPrecision(p=p, rel=rel, k=k), **columns)

    def rbp_residual(
        self, *, p: float = 0.8, k: int | None = None, **columns: Unpack[ColumnOptions]
    ) -> FrameT:
        """RBP's residual: what unjudged rows and the rows beyond the ranking could still add.

        Parameters
        ----------
        p
            Persistence (0 < p < 1).
        k
            Cutoff: only the first ``k`` retrieved rows count; ``None`` for all.
        **columns
            Column names, ``by=``, ``ranked=`` and ``ties=``; see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.rbp_residual()
        shape: (1, 2)
        ┌───────┬──────────────┐
        │ query ┆ rbp_residual │
        │ ---   ┆ ---          │
        │ i64   ┆ f64          │
        ╞═══════╪══════════════╡
        │ 1     ┆ 0.512        │
        └───────┴──────────────┘
        """
        return self.evaluate(RankBiasedPrecisionResidual(p=p, k=k), **columns)

    def bpref(self, *, rel: float = 1, **columns: Unpack[ColumnOptions]) -> FrameT:
        """bpref (trec_eval ``bpref``): how rarely judged non-relevant rows precede relevant ones.

        Parameters
        ----------
        rel
            Relevance threshold, > 0: rows with a label >= ``rel`` are relevant (default 1).
        **columns
            Column names, ``by=``, ``ranked=`` and ``ties=``; see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.bpref()
        shape: (1, 2)
        ┌───────┬───────┐
        │ query ┆ bpref │
        │ ---   ┆ ---   │
        │ i64   ┆ f64   │
        ╞═══════╪═══════╡
        │ 1     ┆ 0.0   │
        └───────┴───────┘
        """
        return self.evaluate(BinaryPreference(rel=rel), **columns)

    def judged(self, *, k: int | None = None, **columns: Unpack[ColumnOptions]) -> FrameT:
        """Judged@k: the share of the top ``min(k, N)`` retrieved rows that are judged.

        Parameters
        ----------
        k
            Cutoff: only the first ``k`` retrieved rows count; ``None`` for all.
        **columns
            Column names, ``by=``, ``ranked=`` and ``ties=``; see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.judged(k=2)
        shape: (1, 2)
        ┌───────┬──────────┐
        │ query ┆ judged@2 │
        │ ---   ┆ ---      │
        │ i64   ┆ f64      │
        ╞═══════╪══════════╡
        │ 1     ┆ 1.0      │
        └───────┴──────────┘
        """
        return self.evaluate(JudgedShare(k=k), **columns)

    def success(
        self, *, rel: float = 1, k: int | None = None, **columns: Unpack[ColumnOptions]
    ) -> FrameT:
        """Success@k (trec_eval ``success.k``): 1 when a relevant row is in the top ``k``, else 0.

        Parameters
        ----------
        rel
            Relevance threshold, > 0: rows with a label >= ``rel`` are relevant (default 1).
        k
            Cutoff: only the first ``k`` retrieved rows count; ``None`` for all.
        **columns
            Column names, ``by=``, ``ranked=`` and ``ties=``; see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.success(k=1)
        shape: (1, 2)
        ┌───────┬───────────┐
        │ query ┆ success@1 │
        │ ---   ┆ ---       │
        │ i64   ┆ f64       │
        ╞═══════╪═══════════╡
        │ 1     ┆ 0.0       │
        └───────┴───────────┘
        """
        return self.evaluate(SuccessAtK(rel=rel, k=k), **columns)

    def mean_ndcng(self, **columns: Unpack[ColumnOptions]) -> FrameT:
        """Mean of NDCNG@1..NDCNG@N per query (the paper's "mean NDCNG").

        Parameters
        ----------
        **columns
            ``query=``, ``item=``, ``score=``, ``relevance=`` (column names) and ``by=`` (extra
            key columns such as ``"system"``); see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame: one row per ``by + [query]``, sorted, with one Float64
            column named by the measure's canonical string.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.mean_ndcng()
        shape: (1, 2)
        ┌───────┬────────────┐
        │ query ┆ mean_ndcng │
        │ ---   ┆ ---        │
        │ i64   ┆ f64        │
        ╞═══════╪════════════╡
        │ 1     ┆ 0.388203   │
        └───────┴────────────┘
        """
        return self.evaluate(MeanNDCNG, **columns)

    def compare(
        self,
        measures: MeasureArg,
        *,
        by: str | Sequence[str] = "system",
        baseline: object | None = None,
        missing: str = "zero",
        trials: int = 10_000,
        bootstrap: int = 10_000,
        confidence: float = 0.95,
        alpha: float = 0.05,
        seed: int = 0,
        query: str = "query",
        item: str = "item",
        score: str = "score",
        relevance: str = "relevance",
        ranked: bool = False,
        ties: TiePolicy = "trec_eval",
    ) -> pl.DataFrame:
        """Evaluate ``measures`` per query and compare every system with a baseline.

        ``evaluate(measures, by=by)`` followed by :func:`polars_graded.compare.compare`:
        bootstrap intervals of the means and of the paired differences, a paired t-test and
        a paired randomization test, Holm-adjusted across systems. Needs scipy
        (``pip install "polars-graded[stats]"``).

        Parameters
        ----------
        measures
            Measure objects or names, as for :meth:`evaluate`.
        by
            The one column that names the systems (a one-element list is accepted).
        baseline, missing, trials, bootstrap, confidence, alpha, seed
            See :func:`polars_graded.compare.compare`.
        query, item, score, relevance
            Column names.
        ranked, ties
            Input in ranked order, and the tie policy; see :class:`ColumnOptions`.

        Returns
        -------
        DataFrame
            Always a DataFrame, also on a LazyFrame (the per-query values are collected):
            the statistics are not lazy. One row per (system, measure), the columns of
            :func:`polars_graded.compare.compare` with the system column named ``by``.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "system": ["a"] * 4 + ["b"] * 4,
        ...     "query": [1, 1, 2, 2] * 2,
        ...     "item": ["x", "y"] * 4,
        ...     "score": [2.0, 1.0, 2.0, 1.0, 1.0, 2.0, 2.0, 1.0],
        ...     "relevance": [0, 1, 1, 0] * 2,
        ... })
        >>> out = df.graded.compare(["ap"], trials=100, bootstrap=100)
        >>> out.select("system", "measure", "mean", "diff", "p_ttest")
        shape: (2, 5)
        ┌────────┬─────────┬──────┬──────┬─────────┐
        │ system ┆ measure ┆ mean ┆ diff ┆ p_ttest │
        │ ---    ┆ ---     ┆ ---  ┆ ---  ┆ ---     │
        │ str    ┆ str     ┆ f64  ┆ f64  ┆ f64     │
        ╞════════╪═════════╪══════╪══════╪═════════╡
        │ a      ┆ ap      ┆ 0.75 ┆ 0.0  ┆ null    │
        │ b      ┆ ap      ┆ 1.0  ┆ 0.25 ┆ 0.5     │
        └────────┴─────────┴──────┴──────┴─────────┘
        """
        from polars_graded.compare import compare
        from polars_graded.errors import InvalidValueError

        systems = as_by(by)
        if len(systems) != 1:
            msg = (
                f"compare needs exactly one system column in by=, got {list(systems)}; "
                "combine several into one first, e.g. pl.concat_str(...)"
            )
            raise InvalidValueError(msg)
        cols = Columns(
            query=query,
            item=item,
            score=score,
            relevance=relevance,
            by=systems,
            ranked=ranked,
            ties=ties,
        )
        wanted = as_named_measures(measures)
        engine = "in-memory" if isinstance(self._frame, pl.DataFrame) else "auto"
        values = plan.per_query(self._frame.lazy(), wanted, cols).collect(engine=engine)
        return compare(
            values,
            list(wanted),
            system=systems[0],
            query=query,
            baseline=baseline,
            missing=missing,  # type: ignore[arg-type]
            trials=trials,
            bootstrap=bootstrap,
            confidence=confidence,
            alpha=alpha,
            seed=seed,
        )

    def per_threshold(self, **columns: Unpack[ColumnOptions]) -> FrameT:
        """MAP at each relevance level of the table, and its share of µMAP.

        See :func:`polars_graded.breakdown.per_threshold`: one row per ``by`` group and
        threshold, columns ``[*by, "threshold", "weight", "map", "contribution",
        "mu_map_table_levels", "mu_map"]``; ``mu_map`` is ``summary(["mu_ap"])``'s µMAP and
        the sum of the contributions, ``mu_map_table_levels = sum(weight * map)``.

        Parameters
        ----------
        **columns
            ``query=``, ``item=``, ``score=``, ``relevance=`` (column names), ``by=`` (extra
            key columns such as ``"system"``), ``ranked=`` and ``ties=``; see
            :class:`ColumnOptions`.

        Returns
        -------
        DataFrame or LazyFrame
            The same kind as the frame.

        Examples
        --------
        >>> import polars as pl
        >>> import polars_graded
        >>> df = pl.DataFrame({
        ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
        ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
        ... })
        >>> df.graded.per_threshold()
        shape: (2, 6)
        ┌───────────┬────────┬──────────┬──────────────┬─────────────────────┬──────────┐
        │ threshold ┆ weight ┆ map      ┆ contribution ┆ mu_map_table_levels ┆ mu_map   │
        │ ---       ┆ ---    ┆ ---      ┆ ---          ┆ ---                 ┆ ---      │
        │ f64       ┆ f64    ┆ f64      ┆ f64          ┆ f64                 ┆ f64      │
        ╞═══════════╪════════╪══════════╪══════════════╪═════════════════════╪══════════╡
        │ 1.0       ┆ 0.5    ┆ 0.583333 ┆ 0.291667     ┆ 0.541667            ┆ 0.541667 │
        │ 2.0       ┆ 0.5    ┆ 0.5      ┆ 0.25         ┆ 0.541667            ┆ 0.541667 │
        └───────────┴────────┴──────────┴──────────────┴─────────────────────┴──────────┘
        """
        from polars_graded.breakdown import per_threshold

        cols = _columns(columns)
        return per_threshold(
            self._frame,
            by=list(cols.by),
            query=cols.query,
            item=cols.item,
            score=cols.score,
            relevance=cols.relevance,
            ranked=cols.ranked,
            ties=cols.ties,
        )


pl.api.register_dataframe_namespace("graded")(GradedNamespace)
pl.api.register_lazyframe_namespace("graded")(GradedNamespace)
