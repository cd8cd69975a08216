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
    Measure,
    MuAP,
    P,
    R,
    RPrec,
    as_measures,
)
from polars_graded.ranking import Columns, as_by

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
MeasureArg = Measure | str | Sequence[Measure | str]
GainArg = str | Mapping[float, float]


class ColumnOptions(TypedDict, total=False):
    """Column keyword arguments shared by every method.

    query, item, score, relevance
        Column names (defaults: ``"query"``, ``"item"``, ``"score"``, ``"relevance"``).
    by
        Extra key column(s), e.g. ``"system"``: every result is keyed by ``by + [query]``.
    """

    query: str
    item: str
    score: str
    relevance: str
    by: str | Sequence[str] | None


def _columns(options: ColumnOptions) -> Columns:
    by = as_by(options.get("by"))
    rest = {k: v for k, v in options.items() if k != "by"}
    unknown = set(rest) - {"query", "item", "score", "relevance"}
    if unknown:
        msg = (
            f"unknown keyword argument(s) {sorted(unknown)}; "
            "the column arguments are query=, item=, score=, relevance=, by="
        )
        raise TypeError(msg)
    return Columns(by=by, **rest)  # type: ignore[arg-type]


class GradedNamespace(Generic[FrameT]):
    """Evaluate rankings in a long ``(query, item, score, relevance)`` table.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_graded  # registers the namespace
    >>> df = pl.DataFrame({
    ...     "query": [1, 1, 1], "item": ["a", "b", "c"],
    ...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
    ... })
    >>> df.graded.evaluate(["mu_ap", "ndcg@2"])
    shape: (1, 3)
    ┌───────┬──────────┬──────────┐
    │ query ┆ mu_ap    ┆ ndcg@2   │
    │ ---   ┆ ---      ┆ ---      │
    │ i64   ┆ f64      ┆ f64      │
    ╞═══════╪══════════╪══════════╡
    │ 1     ┆ 0.527778 ┆ 0.571911 │
    └───────┴──────────┴──────────┘
    """

    def __init__(self, frame: FrameT) -> None:
        self._frame = frame

    def _finish(self, lf: pl.LazyFrame) -> FrameT:
        if isinstance(self._frame, pl.DataFrame):
            return lf.collect()  # type: ignore[return-value]
        return lf  # type: ignore[return-value]

    def evaluate(self, measures: MeasureArg, **columns: Unpack[ColumnOptions]) -> FrameT:
        """Per-query values of many measures, in one lazy plan.

        Parameters
        ----------
        measures
            Measure objects or names (``"mu_ap"``, ``"ndcg@10"``, ``"ap(rel=2)@10"``, ...).
        **columns
            ``query=``, ``item=``, ``score=``, ``relevance=``, ``by=`` (see
            :class:`ColumnOptions`).

        Returns
        -------
        DataFrame or LazyFrame
            One row per ``by + [query]`` (sorted), one Float64 column per measure named by
            its canonical string.
        """
        cols = _columns(columns)
        return self._finish(plan.per_query(self._frame.lazy(), as_measures(measures), cols))

    def summary(self, measures: MeasureArg, **columns: Unpack[ColumnOptions]) -> FrameT:
        """Per ``by`` group, the number of queries ``num_q`` and the mean of each measure.

        The mean of ``mu_ap`` is µMAP. Every query of the table counts, including those with
        no relevant row (they score 0), as trec_eval does with ``-c``.
        """
        cols = _columns(columns)
        wanted = as_measures(measures)
        values = plan.per_query(self._frame.lazy(), wanted, cols)
        return self._finish(plan.summary(values, wanted, cols))

    def mu_ap(
        self,
        *,
        levels: str | Sequence[float] = "query",
        k: int | None = None,
        **columns: Unpack[ColumnOptions],
    ) -> FrameT:
        """µAP per query: AP averaged over all relevance thresholds, weighted by level distance.

        ``levels``: ``"query"`` (each query's own labels), ``"table"`` or a list of levels.
        """
        return self.evaluate(MuAP(levels=levels, k=k), **columns)  # type: ignore[arg-type]

    def ap(
        self, *, rel: float = 1, k: int | None = None, **columns: Unpack[ColumnOptions]
    ) -> FrameT:
        """Average precision at relevance threshold ``rel`` (trec_eval ``map`` / ``map_cut.k``)."""
        return self.evaluate(AP(rel=rel, k=k), **columns)

    def ndcg(
        self, *, k: int | None = None, gain: GainArg = "exp", **columns: Unpack[ColumnOptions]
    ) -> FrameT:
        """NDCG@k; gain ``"exp"`` (2^rel - 1), ``"linear"`` (trec_eval) or a label -> gain map."""
        return self.evaluate(NDCG(k=k, gain=gain), **columns)  # type: ignore[arg-type]

    def ndcng(self, *, k: int | None = None, **columns: Unpack[ColumnOptions]) -> FrameT:
        """NDCNG@k: NDCG with exponential gain on labels divided by the query's top label."""
        return self.evaluate(NDCNG(k=k), **columns)

    def dcg(
        self,
        *,
        k: int | None = None,
        gain: GainArg = "exp",
        base: float = 2,
        **columns: Unpack[ColumnOptions],
    ) -> FrameT:
        """DCG@k with log ``base``."""
        return self.evaluate(DCG(k=k, gain=gain, base=base), **columns)  # type: ignore[arg-type]

    def precision(
        self, *, k: int | None = None, rel: float = 1, **columns: Unpack[ColumnOptions]
    ) -> FrameT:
        """P@k (trec_eval ``P_k``); without ``k``, precision of everything retrieved."""
        return self.evaluate(P(k=k, rel=rel), **columns)

    def recall(
        self, *, k: int | None = None, rel: float = 1, **columns: Unpack[ColumnOptions]
    ) -> FrameT:
        """Recall@k (trec_eval ``recall_k``); without ``k``, recall of everything retrieved."""
        return self.evaluate(R(k=k, rel=rel), **columns)

    def r_precision(self, *, rel: float = 1, **columns: Unpack[ColumnOptions]) -> FrameT:
        """R-precision (trec_eval ``Rprec``)."""
        return self.evaluate(RPrec(rel=rel), **columns)

    def rr(
        self, *, rel: float = 1, k: int | None = None, **columns: Unpack[ColumnOptions]
    ) -> FrameT:
        """Reciprocal rank of the first relevant row (trec_eval ``recip_rank``)."""
        return self.evaluate(RR(rel=rel, k=k), **columns)

    def mean_ndcg(self, *, gain: GainArg = "exp", **columns: Unpack[ColumnOptions]) -> FrameT:
        """Mean of NDCG@1..NDCG@N per query (the paper's "mean NDCG")."""
        return self.evaluate(MeanNDCG(gain=gain), **columns)  # type: ignore[arg-type]

    def mean_ndcng(self, **columns: Unpack[ColumnOptions]) -> FrameT:
        """Mean of NDCNG@1..NDCNG@N per query (the paper's "mean NDCNG")."""
        return self.evaluate(MeanNDCNG, **columns)


pl.api.register_dataframe_namespace("graded")(GradedNamespace)
pl.api.register_lazyframe_namespace("graded")(GradedNamespace)
