"""The ``graded`` namespace on DataFrame and LazyFrame: it only forwards to the typed API.

``df.graded.evaluate / summary / per_threshold`` are :func:`polars_graded.api.evaluate`,
:func:`~polars_graded.api.summary` and :func:`~polars_graded.api.per_threshold` on ``df``;
``compare`` evaluates and then calls :func:`polars_graded.stats.compare.compare`; ``report``
is :func:`polars_graded.build_report` (in the notebook without a folder). Each takes
every keyword of its ``pg.*`` twin, with the same defaults (tests/test_namespace.py compares
the signatures). Each registered measure also has a shortcut,
``df.graded.<function>(params..., **columns)``, made at import from the measure registry
(:mod:`polars_graded.measures.registry`): ``df.graded.ap(rel=2)`` is
``api.evaluate(df, pg.AP(rel=2))``. A DataFrame gets a DataFrame back, a LazyFrame an
unevaluated LazyFrame. No maths lives here.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar, Unpack, overload

import polars as pl

from polars_graded import api, defaults, plan
from polars_graded.measures import MeasureSpec, as_named_measures, registry
from polars_graded.measures.base import Measure
from polars_graded.measures.generated import generate
from polars_graded.options import ColumnOptions, RankingOptions, TableSpec, as_by
from polars_graded.report import NotebookReport, ReportFiles, ReportOptions, build_report
from polars_graded.stats.compare import Pairs
from polars_graded.stats.compare import compare as compare_values
from polars_graded.stats.grid import by_column
from polars_graded.stats.options import (
    DEFAULTS,
    BootstrapMethod,
    Correction,
    LargeSample,
    MissingPolicy,
    Test,
)

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


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
        self._frame: FrameT = frame

    def evaluate(
        self,
        measures: MeasureSpec,
        *,
        weight: str | None = None,
        **columns: Unpack[ColumnOptions],
    ) -> FrameT:
        """Per-query values of many measures, in one lazy plan.

        :func:`polars_graded.api.evaluate` on this frame: its parameters, returns, errors and
        warnings.

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
        """
        return api.evaluate(self._frame, measures, weight=weight, **columns)

    def summary(
        self,
        measures: MeasureSpec,
        *,
        mean: plan.MeanKind = defaults.MEAN,
        weight: str | None = None,
        **columns: Unpack[ColumnOptions],
    ) -> FrameT:
        """Per ``by`` group, the number of queries ``num_q`` and the mean of each measure.

        :func:`polars_graded.api.summary` on this frame (µMAP is the mean of ``mu_ap``; every
        query counts, as trec_eval's ``-c``; ``mean="geometric"`` for trec_eval's ``gm_``;
        ``weight="traffic"`` for means weighted per query).

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
        return api.summary(self._frame, measures, mean=mean, weight=weight, **columns)

    def compare(
        self,
        measures: MeasureSpec,
        *,
        by: str | Sequence[str] = defaults.SYSTEM,
        query: str = TableSpec.query,
        baseline: object | None = None,
        missing: MissingPolicy = DEFAULTS.missing,
        trials: int = DEFAULTS.trials,
        bootstrap: int = DEFAULTS.bootstrap,
        confidence: float = DEFAULTS.confidence,
        alpha: float = DEFAULTS.alpha,
        seed: int = DEFAULTS.seed,
        system: str | None = None,
        pairs: Pairs = defaults.PAIRS,
        correction: Correction = DEFAULTS.correction,
        bootstrap_method: BootstrapMethod = DEFAULTS.bootstrap_method,
        test: Test = DEFAULTS.test,
        segment: str | Sequence[str] | None = None,
        min_queries: int | None = None,
        weight: str | None = None,
        large_sample: LargeSample = DEFAULTS.large_sample,
        **columns: Unpack[RankingOptions],
    ) -> pl.DataFrame:
        """Evaluate ``measures`` per query and compare every system with a baseline.

        ``evaluate(measures, by=by)`` followed by :func:`polars_graded.stats.compare.compare`
        with the same keywords: bootstrap intervals of the means and of the paired
        differences, a paired t-test and a paired randomization test, corrected across
        systems (or every pair of systems, or per segment). Needs scipy
        (``pip install "polars-graded[stats]"``).

        Parameters
        ----------
        measures
            Measure objects or names, as for :meth:`evaluate`.
        by, query
            The one column that names the systems (a one-element list is accepted), and the
            query's column.
        baseline, missing, trials, bootstrap, confidence, alpha, seed
            See :func:`polars_graded.stats.compare.compare`.
        system, pairs, correction, bootstrap_method
            As there: ``system`` is the deprecated alias of ``by``; ``pairs="all"`` tests
            every pair of systems; ``correction`` (Holm by default) corrects the p-values,
            ``bootstrap_method`` (``"percentile"`` or ``"bca"``) reads the intervals.
        test
            The paired test that decides ``significant``: ``"randomization"`` (default),
            ``"t"`` or ``"wilcoxon"``; every test's p-value is a column whatever the choice.
        segment, min_queries
            Compare within each segment of the queries: the table is evaluated by system
            and ``segment``, then compared by
            :func:`polars_graded.stats.segments.compare_segments` (see
            :func:`polars_graded.stats.compare.compare`).
        weight, large_sample
            A traffic weight column (kept by the evaluation, then every mean, interval and
            test weighted) and whether large samples take the normal limits, as in
            :func:`polars_graded.stats.compare.compare`.
        **columns
            The other table options, ``item=``, ``score=``, ``relevance=``, ``ranked=``,
            ``ties=``, ``compat=``, ``judged_only=`` and ``depth=``
            (:class:`~polars_graded.options.RankingOptions`), as for :meth:`evaluate`.

        Returns
        -------
        DataFrame
            Always a DataFrame, also on a LazyFrame (the per-query values are collected):
            the statistics are not lazy. One row per (system, measure), the columns of
            :func:`polars_graded.stats.compare.compare` with the system column named ``by``.

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
        column = by_column(by, system)  # exactly one column, checked before any work
        wanted = as_named_measures(measures)
        spec = TableSpec.of({**columns, "query": query, "by": (column, *as_by(segment))})
        per_query = api.evaluate_spec(self._frame, wanted, spec, weight=weight)
        values = per_query if isinstance(per_query, pl.DataFrame) else per_query.collect()
        return compare_values(
            values,
            list(wanted),
            by=column,
            query=query,
            baseline=baseline,
            missing=missing,
            trials=trials,
            bootstrap=bootstrap,
            confidence=confidence,
            alpha=alpha,
            seed=seed,
            pairs=pairs,
            correction=correction,
            bootstrap_method=bootstrap_method,
            test=test,
            segment=segment,
            min_queries=min_queries,
            weight=weight,
            large_sample=large_sample,
        )

    def per_threshold(self, **columns: Unpack[ColumnOptions]) -> FrameT:
        """MAP at each relevance level of the table, and its share of µMAP.

        :func:`polars_graded.api.per_threshold` on this frame: one row per ``by`` group and
        threshold; its parameters and columns are described there.

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
        return api.per_threshold(self._frame, **columns)

    @overload
    def report(
        self,
        out_dir: None = None,
        measures: Sequence[str] | str | None = None,
        *,
        system: str | None = None,
        latex: bool = False,
        **options: Unpack[ReportOptions],
    ) -> NotebookReport: ...
    @overload
    def report(
        self,
        out_dir: str | os.PathLike[str],
        measures: Sequence[str] | str | None = None,
        *,
        system: str | None = None,
        latex: bool = False,
        **options: Unpack[ReportOptions],
    ) -> ReportFiles: ...
    def report(
        self,
        out_dir: str | os.PathLike[str] | None = None,
        measures: Sequence[str] | str | None = None,
        *,
        system: str | None = None,
        latex: bool = False,
        **options: Unpack[ReportOptions],
    ) -> NotebookReport | ReportFiles:
        """The evaluation report of this table (a system column, ``by=``): in the notebook,
        or written into ``out_dir``.

        :func:`polars_graded.build_report` on this frame, its parameters and returns: without
        ``out_dir`` a :class:`~polars_graded.report.NotebookReport`, which a notebook cell
        shows as the report's page, with the numbers as DataFrames (``per_query``,
        ``comparison``, ...) and ``.write(folder)``; with ``out_dir`` the files written. On a
        LazyFrame too (the report collects it). Needs ``pip install 'polars-graded[report]'``.

        Examples
        --------
        >>> from polars_graded.report.inputs import example_table  # systems a and b
        >>> rep = example_table().graded.report(measures=["ap"], trials=100, bootstrap=100)
        >>> rep.comparison.select("system", "mean", "diff").rows()
        [('a', 0.5, 0.0), ('b', 1.0, 0.5)]
        """
        if system is not None:  # resolved here, so that the warning names the caller's line
            options["by"] = by_column(options.get("by", defaults.SYSTEM), system)
        return build_report(self._frame, out_dir, measures, latex=latex, **options)


COLUMNS_DOC = (
    "``query=``, ``item=``, ``score=``, ``relevance=`` (column names), ``by=`` (extra key "
    'columns such as ``"system"``), ``ranked=`` and ``ties=``; see '
    ":class:`~polars_graded.options.ColumnOptions`."
)


def shortcut(cls: type[Measure]) -> Callable[..., Any]:
    """The namespace method of a registered measure class, e.g. ``df.graded.ap``.

    Examples
    --------
    >>> from polars_graded.measures.rr import ReciprocalRank
    >>> import inspect
    >>> list(inspect.signature(shortcut(ReciprocalRank)).parameters)
    ['self', 'rel', 'k', 'columns']
    """
    declared = cls.declaration

    def method(self: GradedNamespace[FrameT], **options: Any) -> FrameT:
        measure, columns = registry.bind(cls, options)
        return api.evaluate(self._frame, measure, **columns)

    me = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    columns = inspect.Parameter(
        "columns", inspect.Parameter.VAR_KEYWORD, annotation="Unpack[ColumnOptions]"
    )
    own = registry.signature(cls)
    method.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [me, *own, columns], return_annotation="FrameT"
    )
    method.__name__ = declared.function
    method.__qualname__ = f"GradedNamespace.{declared.function}"
    method.__doc__ = "\n\n".join(
        [
            generate.sentence(declared.summary)[:-1] + ", per query.",
            generate.formula(cls),
            f"``evaluate`` of one :class:`{cls.__module__}.{cls.__qualname__}`.",
            generate.parameters_section(cls, COLUMNS_DOC),
            "Returns\n-------\nDataFrame or LazyFrame\n    The same kind as the frame: one row "
            "per ``by + [query]``, sorted, with one Float64\n    column named by the measure's "
            "canonical string.",
            "Examples\n--------\n" + generate.example(cls, "df.graded.{}"),
        ]
    )
    return method


for _function, _cls in registry.FUNCTIONS.items():
    setattr(GradedNamespace, _function, shortcut(_cls))

pl.api.register_dataframe_namespace("graded")(GradedNamespace)
pl.api.register_lazyframe_namespace("graded")(GradedNamespace)
