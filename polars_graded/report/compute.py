"""A report's numbers: evaluate a long table with a system column through the typed API,
compare every system with a baseline, break µMAP down by threshold, count the ties, and
describe the data (:func:`compute_report`, :func:`describe`); and the steps of a report its
progress bar shows (:data:`STEPS`, :func:`report_steps`)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Literal, Unpack

import polars as pl

from polars_graded import api, plan
from polars_graded.defaults import ENGINE, REPORT_MEASURES
from polars_graded.errors import InvalidValueError, MissingColumnError
from polars_graded.frames import Table, as_polars
from polars_graded.measures import MuAP, as_measures
from polars_graded.measures.kernels import mu_ap_thresholds
from polars_graded.options import ColumnOptions, TableSpec
from polars_graded.report.content import Description, Report, Settings
from polars_graded.report.inputs import report_spec
from polars_graded.report.sections import BLOCK_STEPS
from polars_graded.report.sizing import report_sizing
from polars_graded.report.ties import tie_effects
from polars_graded.report.trend import trend_units
from polars_graded.scale.progress import Progress, progress_bar
from polars_graded.stats.baseline import compare_with
from polars_graded.stats.grid import order_systems, query_grid
from polars_graded.stats.options import (
    DEFAULTS,
    BootstrapMethod,
    Correction,
    LargeSample,
    MissingPolicy,
    Statistics,
    Test,
)
from polars_graded.stats.segments import MIN_QUERIES

EXTRAS = ("matplotlib", "scipy")
"""The packages a report needs beyond the library's own."""
EXTRAS_HINT = "pip install 'polars-graded[report]'"


def require_extras() -> None:
    """Raise :class:`ModuleNotFoundError` naming the pip command if an extra is missing.

    Examples
    --------
    >>> require_extras()  # matplotlib and scipy are installed
    """
    missing = [name for name in EXTRAS if importlib.util.find_spec(name) is None]
    if missing:
        msg = f"the report needs {' and '.join(missing)}: {EXTRAS_HINT}"
        raise ModuleNotFoundError(msg)


def describe(
    table: Table,
    *,
    system: str | None = None,
    **columns: Unpack[ColumnOptions],
) -> Description:
    """Systems, queries, rows, labels and unjudged rows of a long table.

    ``table`` is a Polars DataFrame or LazyFrame, a pandas DataFrame or an Arrow table (as
    :func:`polars_graded.evaluate` takes it). ``by`` names the system column (default
    ``"system"``; ``system=`` is its deprecated alias), ``query``, ``item``, ``score`` and
    ``relevance`` the others.

    Examples
    --------
    >>> df = pl.DataFrame({
    ...     "system": ["a", "a", "a"], "query": [1, 1, 2], "item": ["x", "y", "x"],
    ...     "score": [2.0, 1.0, None], "relevance": [1, None, 0],
    ... })
    >>> d = describe(df)
    >>> d.queries, d.no_relevant, d.levels.rows()
    (2, ('2',), [(0, 1), (1, 1)])
    """
    return _describe(as_polars(table, "describe").lazy(), report_spec(columns, system))


def _describe(lf: pl.LazyFrame, spec: TableSpec) -> Description:
    query, relevance = spec.query, spec.relevance
    judged = lf.filter(pl.col(relevance).is_not_null()).select(query, spec.item, relevance)
    levels = judged.unique().group_by(relevance).agg(judgments=pl.len()).sort(relevance)
    top = lf.group_by(query).agg(top=pl.col(relevance).max())
    no_relevant = top.filter(pl.col("top").fill_null(0) <= 0).select(query).sort(query)
    counts = lf.select(queries=pl.col(query).n_unique(), rows=pl.len())
    systems, labels, empty, sizes = pl.collect_all(
        [_per_system(lf, spec), levels, no_relevant, counts]
    )
    return Description(
        queries=int(sizes["queries"][0]),
        rows=int(sizes["rows"][0]),
        per_system=systems,
        levels=labels.rename({relevance: "relevance"}),
        no_relevant=tuple(str(q) for q in empty[query]),
        item_type=str(lf.collect_schema()[spec.item]),
    )


def _per_system(lf: pl.LazyFrame, spec: TableSpec) -> pl.LazyFrame:
    """Per system: queries, rows, retrieved and unjudged rows, the unjudged share."""
    system = spec.by[0]
    retrieved = pl.col(spec.score).is_not_null()
    per_system = lf.group_by(system).agg(
        queries=pl.col(spec.query).n_unique(),
        rows=pl.len(),
        retrieved=retrieved.sum(),
        unjudged=(retrieved & pl.col(spec.relevance).is_null()).sum(),
    )
    return per_system.select(
        pl.col(system).cast(pl.String).alias("system"),
        pl.exclude(system),
        unjudged_share=pl.col("unjudged") / pl.col("retrieved"),
    ).sort("system")


class ReportOptions(ColumnOptions, total=False):
    """The keywords of :func:`compute_report` but ``system`` (the table's options, the tests'
    and the report's own), for :func:`~polars_graded.report.build_report`'s ``**options``.

    tests/test_report_compute.py checks that they are :func:`compute_report`'s.
    """

    baseline: str | None
    missing: MissingPolicy
    trials: int
    bootstrap: int
    confidence: float
    alpha: float
    seed: int
    all_pairs: bool
    correction: Correction
    bootstrap_method: BootstrapMethod
    test: Test
    large_sample: LargeSample
    segment: str | Sequence[str]
    min_queries: int
    title: str
    differences: Sequence[str] | Literal["all"] | None
    source: str
    unjudged_label: float | None
    trend: str | None
    weight: str | None
    progress: bool


BLOCK_STEP_NAMES = {
    "add_pairs": "all pairs (randomization test, Tukey HSD)",
    "add_segments": "segments",
    "add_moved": "what moved (the queries behind each difference)",
    "add_judgments": "judgment bounds (the runs evaluated twice more)",
    "add_stability": "stability of the order of systems",
    "add_trend": "trend (the comparison per period)",
}
"""How the progress names a section's step (else by its function's name)."""


def _section_step(add: Callable[..., Report]) -> str:
    """The progress's name of a section's step (:data:`BLOCK_STEP_NAMES`)."""
    return BLOCK_STEP_NAMES.get(add.__name__, add.__name__.removeprefix("add_"))


RENDERING = "drawing charts and writing the report"
"""The last step: the charts drawn and the files (or a notebook's page) written, shown by
:func:`~polars_graded.report.build_report` and
:class:`~polars_graded.report.notebook.NotebookReport` (it takes seconds)."""

STEPS = (
    "evaluating",
    "comparing with the baseline (tests, bootstrap intervals)",
    "MAP by threshold",
    "describing the data",
    "tied scores",
    *map(_section_step, BLOCK_STEPS),
    RENDERING,
)
"""Every step a report shows with ``progress=True``, in order: :func:`compute_report`'s,
then the sections' (:data:`~polars_graded.report.sections.BLOCK_STEPS`), then
:data:`RENDERING` when the report is written or shown."""

COMPUTING = STEPS[: STEPS.index(RENDERING)]
"""The steps of :func:`compute_report`: all but :data:`RENDERING`."""


class ReportSteps:
    """A report's ``steps`` on one progress bar (none without ``progress``), k of n.

    Examples
    --------
    >>> steps = ReportSteps(False)  # what compute_report alone shows, here no bar
    >>> steps.steps == COMPUTING, steps.steps[-1] != RENDERING
    (True, True)
    """

    def __init__(self, progress: bool, steps: Sequence[str] = COMPUTING) -> None:
        self.steps = tuple(steps)
        self.bar: Progress | None = (
            progress_bar(len(self.steps), unit="steps", what="report") if progress else None
        )

    def start(self, step: str) -> None:
        """Show ``step`` (one of :attr:`steps`) under way."""
        if self.bar is not None:
            self.bar.update(self.steps.index(step), step)

    def end(self) -> None:
        """Fill the bar: every step done."""
        if self.bar is not None:
            self.bar.update(len(self.steps))

    def close(self) -> None:
        """End the bar's line before the last step (a step raised)."""
        if self.bar is not None:
            self.bar.close()


_OPEN: ContextVar[ReportSteps | None] = ContextVar("polars_graded_report_steps", default=None)
"""The bar of the report under way in this context. :func:`~polars_graded.report.build_report`
opens one over :data:`STEPS`, and :func:`compute_report`, which it calls with the same
``progress``, goes on with it rather than drawing a bar of its own: one bar, k of n."""


@contextmanager
def report_steps(progress: bool, steps: Sequence[str] = COMPUTING) -> Iterator[ReportSteps]:
    """The progress of a report's ``steps``: the bar open in this context if there is one
    (its steps include these; its owner ends it), else a new one (none without
    ``progress``), filled when the block ends and ended early when it raises.

    Examples
    --------
    >>> with report_steps(False, STEPS) as steps:  # no bar: the steps are shown by none
    ...     steps.start(RENDERING)
    >>> steps.steps == STEPS, steps.bar is None
    (True, True)
    """
    outer = _OPEN.get()
    if outer is not None:
        yield outer
        return
    shown = ReportSteps(progress, steps)
    token = _OPEN.set(shown)
    try:
        yield shown
    except BaseException:
        shown.close()
        raise
    finally:
        _OPEN.reset(token)
    shown.end()


def compute_report(
    table: Table,
    measures: Sequence[str] | str | None = None,
    *,
    baseline: str | None = None,
    missing: MissingPolicy = DEFAULTS.missing,
    trials: int = DEFAULTS.trials,
    bootstrap: int = DEFAULTS.bootstrap,
    confidence: float = DEFAULTS.confidence,
    alpha: float = DEFAULTS.alpha,
    seed: int = DEFAULTS.seed,
    system: str | None = None,
    all_pairs: bool = False,
    correction: Correction = DEFAULTS.correction,
    bootstrap_method: BootstrapMethod = DEFAULTS.bootstrap_method,
    test: Test = DEFAULTS.test,
    large_sample: LargeSample = DEFAULTS.large_sample,
    segment: str | Sequence[str] = (),
    min_queries: int = MIN_QUERIES,
    title: str = Settings.title,
    differences: Sequence[str] | Literal["all"] | None = None,
    source: str = "",
    unjudged_label: float | None = None,
    trend: str | None = None,
    weight: str | None = None,
    progress: bool = False,
    **columns: Unpack[ColumnOptions],
) -> Report:
    """Evaluate, compare and describe a long table with a system column.

    Parameters
    ----------
    table
        One row per (system, query, item) with the score and the relevance label: a Polars
        DataFrame or LazyFrame, or a pandas DataFrame or an Arrow table, converted as
        :func:`polars_graded.evaluate` converts it (the report's frames are Polars
        DataFrames).
    measures
        Measure names (default :data:`polars_graded.defaults.REPORT_MEASURES`).
    baseline
        The system every other is compared with (default: the first in sorted order).
    missing
        A query a system has no row for: ``"zero"`` scores it 0, ``"common"`` keeps only
        the queries every system has (see :func:`~polars_graded.stats.compare.compare`).
    trials, bootstrap, confidence, alpha, seed
        Randomization-test trials, bootstrap resamples, confidence level of the
        intervals, significance level, random seed.
    system
        Deprecated alias of ``by``.
    all_pairs
        Show the section "All pairs": every system against every other (``pairs="all"``
        of :func:`~polars_graded.stats.compare.compare`).
    correction
        The multiple-testing correction of every section: across the systems compared
        with the baseline (per measure and test), the pairs of systems (section "All
        pairs"; discriminative power) and the segments x systems (section "Segments"):
        ``"bonferroni"``, ``"holm"`` (default), ``"holm-sidak"``, ``"bh"`` or ``"none"``
        (:func:`~polars_graded.stats.corrections.adjust`).
    bootstrap_method
        How every bootstrap interval is read from the resamples: ``"percentile"``
        (default) or ``"bca"`` (see :func:`~polars_graded.stats.compare.compare`).
    test
        The paired test that decides every mark, letter and count of significance:
        ``"randomization"`` (default), ``"t"`` or ``"wilcoxon"`` (see
        :func:`~polars_graded.stats.compare.compare`); the tables show its p-values.
    large_sample
        Resample (``"resample"``), take the normal limit of each resampling distribution
        (``"normal"``), or choose per procedure by its cost (``"auto"``, default: on a log of
        many queries the limit; :func:`~polars_graded.stats.limits.resampling_plan`). The
        section "Tests" says, per procedure, which was used and why.
    segment
        Columns of the table that put each query in a segment (a language, a market): the
        section "Segments" tests every system against the baseline per segment.
    min_queries
        A segment with fewer queries is shown but not tested (default 20).
    title
        The report's title.
    differences
        Measures of the per-query difference plots: default the first, ``"all"`` each.
    source
        A line on where the data came from, shown under the title.
    unjudged_label
        The label an unjudged retrieved row gets in the upper scenario of the section
        "Incomplete judgments" (default: the table's top label).
    trend
        A column of periods (a day, a week): adds the section "Trend", every system against
        the baseline per period (:func:`~polars_graded.stats.trends.trend`, ``report.trend``).
        A period is then part of a query's identity: every section treats each
        (period, query) as one query, named ``<period>/<query>``
        (:func:`~polars_graded.report.trend.trend_units`).
    weight
        A column of traffic weights, one per query (see :func:`polars_graded.evaluate`):
        every comparison (baseline, all pairs, segments) is then traffic-weighted, as
        :func:`~polars_graded.stats.compare.compare` with ``weight=``; the per-query
        values carry it.
    progress
        Show on stderr which step is under way, k of n (evaluating, comparing, all pairs,
        judgment bounds, ...; :data:`COMPUTING`): a ``tqdm.auto`` bar when tqdm is
        installed (a widget in Jupyter), else one line redrawn.
        :func:`~polars_graded.report.build_report` draws the same bar, one step longer: the
        charts and the files (:data:`RENDERING`; in a notebook, when the page is first
        shown). Default off; ``polars-graded report`` turns it on when stderr is a terminal
        (``--quiet`` turns it off).
    **columns
        The table's columns as for :func:`polars_graded.evaluate`
        (:class:`~polars_graded.options.ColumnOptions`): ``by`` the one system column
        (default ``"system"``), ``query``, ``item``, ``score``, ``relevance``, ``ranked``,
        and ``ties``, the tie policy of every number (default ``"trec_eval"``: ties by item
        id descending); the section "Tied scores" sets it beside ``"average"`` (or
        ``"average"`` beside ``"trec_eval"``), see
        :func:`~polars_graded.report.ties.tie_effects`.

    Returns
    -------
    Report

    Examples
    --------
    >>> df = pl.DataFrame({
    ...     "system": ["a"] * 4 + ["b"] * 4, "query": [1, 1, 2, 2] * 2,
    ...     "item": ["x", "y"] * 4, "score": [2.0, 1.0] * 2 + [1.0, 2.0] * 2,
    ...     "relevance": [0, 1, 0, 2] * 2,
    ... })
    >>> rep = compute_report(df, ["ap"], trials=100, bootstrap=100)
    >>> rep.comparison.select("system", "mean", "diff", "significant").rows()
    [('a', 0.5, 0.0, False), ('b', 1.0, 0.5, False)]
    >>> from polars_graded.report import to_markdown
    >>> print(to_markdown(rep).splitlines()[6:10])  # doctest: +NORMALIZE_WHITESPACE
    ['| system | queries | ap |', '| --- | --: | --: |',
     '| a (baseline) | 2 | 0.5000 |', '| b | 2 | 1.0000 |']
    """
    frame = as_polars(table, "compute_report")
    require_extras()
    spec = report_spec(columns, system)
    lf = frame.lazy()
    _require_system(lf, spec)
    if trend is not None:  # before any number: the unit is (period, query) everywhere
        lf = trend_units(lf, spec, trend)
    names = tuple(str(m) for m in as_measures(measures or list(REPORT_MEASURES)))
    with report_steps(progress) as steps:  # an error (in a step, in the settings) ends the line
        steps.start("evaluating")
        values = api.evaluate_spec(lf, list(names), spec, weight=weight)
        per_query = values.collect(engine=ENGINE)
        settings = Settings(
            measures=names,
            baseline=_baseline(per_query, spec, baseline),
            title=title,
            differences=_differences(differences, names),
            # After the baseline and the measures: the comparison checked them first.
            statistics=Statistics(
                missing,
                trials,
                bootstrap,
                confidence,
                alpha,
                seed,
                correction,
                test=test,
                bootstrap_method=bootstrap_method,
                large_sample=large_sample,
            ),
            ties=spec.ties,
            compat=spec.compat,
            all_pairs=all_pairs,
            segment=(segment,) if isinstance(segment, str) else tuple(segment),
            min_queries=min_queries,
            unjudged_label=unjudged_label,
            trend=trend,
            weight=weight,
        )
        return _report(lf, per_query, spec, settings, source, steps=steps)


def _require_system(lf: pl.LazyFrame, spec: TableSpec) -> None:
    if spec.by[0] not in lf.collect_schema():
        msg = f"the table has no system column {spec.by[0]!r}; name it with by= (--by)"
        raise MissingColumnError(msg)


def _baseline(per_query: pl.DataFrame, spec: TableSpec, wanted: str | None) -> str:
    """The baseline of :func:`~polars_graded.stats.grid.order_systems` among the systems, as
    text."""
    systems = per_query.get_column(spec.by[0]).cast(pl.String)
    if systems.is_empty():
        msg = "the table has no rows to report on"
        raise InvalidValueError(msg)
    return str(order_systems(systems, None if wanted is None else str(wanted))[0])


def _differences(wanted: Sequence[str] | str | None, names: tuple[str, ...]) -> tuple[str, ...]:
    """The measures of the difference plots: the first by default, ``"all"`` each."""
    if wanted is None:
        return names[:1]
    if wanted == "all":
        return names
    chosen = tuple(str(m) for m in as_measures(wanted))
    unknown = [m for m in chosen if m not in names]
    if unknown:
        msg = f"difference plots of {unknown}: not among the report's measures {list(names)}"
        raise InvalidValueError(msg)
    return chosen


def _report(
    lf: pl.LazyFrame,
    per_query: pl.DataFrame,
    spec: TableSpec,
    settings: Settings,
    source: str,
    *,
    steps: ReportSteps,
) -> Report:
    """The comparison, the thresholds, the description and the ties around ``per_query``."""
    system = spec.by[0]
    steps.start("comparing with the baseline (tests, bootstrap intervals)")
    comparison = compare_with(
        per_query.with_columns(pl.col(system).cast(pl.String)),
        list(settings.measures),
        settings.statistics,
        by=system,
        query=spec.query,
        baseline=settings.baseline,
        weight=settings.weight,
    ).rename({system: "system"})  # the key is ``system`` in the report
    steps.start("MAP by threshold")
    thresholds = _thresholds(lf, per_query, spec, settings.measures)
    order = _order(comparison, settings)
    steps.start("describing the data")
    description = _describe(lf, spec)
    steps.start("tied scores")
    ties = tie_effects(
        lf, per_query, spec, settings.measures, order, missing=settings.statistics.missing
    )
    report = Report(
        settings=settings,
        per_query=per_query,
        comparison=comparison,
        thresholds=thresholds.with_columns(pl.col(system).cast(pl.String)),
        description=description,
        order=order,
        ties=ties,
        system=system,
        query=spec.query,
        source=source,
        sizing=report_sizing(per_query, settings, system=system, query=spec.query),
    )
    for step in BLOCK_STEPS:
        steps.start(_section_step(step))
        report = step(lf, spec, report)
    return report


def _thresholds(
    lf: pl.LazyFrame, per_query: pl.DataFrame, spec: TableSpec, measures: Sequence[str]
) -> pl.DataFrame:
    """:func:`~polars_graded.api.per_threshold` by system; when the report evaluated
    ``mu_ap`` already, its µMAP is read from ``per_query`` rather than evaluated again (on a
    log, every evaluation is a sort of the whole table)."""
    mu_ap = str(MuAP())
    if mu_ap not in measures:
        return api.per_threshold_spec(lf, spec).collect()
    mu_ap_thresholds.check_by(spec)
    values = per_query.lazy().select(*spec.by, spec.query, mu_ap)
    means = plan.summary(values, [mu_ap], spec.by).collect()
    names = {plan.SUMMARY_COUNT: mu_ap_thresholds.QUERIES, mu_ap: mu_ap_thresholds.MU_MAP}
    return mu_ap_thresholds.breakdown(lf, spec, means.rename(names))


def _order(comparison: pl.DataFrame, settings: Settings) -> tuple[str, ...]:
    """The baseline, then the other systems by the first measure's mean, best first."""
    first = comparison.filter(pl.col("measure") == settings.measures[0])
    ranked = first.sort(["mean", "system"], descending=[True, False])["system"].cast(pl.String)
    return (settings.baseline, *(s for s in ranked if s != settings.baseline))


def paired_differences(report: Report, measure: str) -> pl.DataFrame:
    """Per system other than the baseline and query: ``diff`` = its value − the baseline's.

    Queries a system has no value for follow ``missing``: 0 with ``"zero"``, left out
    with ``"common"`` (only the queries every system has; see
    :func:`~polars_graded.stats.grid.query_grid`).

    Examples
    --------
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> paired_differences(rep, "ap").rows()
    [('b', 1, 0.5), ('b', 2, 0.5)]
    """
    values = report.per_query.select(
        system=pl.col(report.system).cast(pl.String), query=pl.col(report.query), value=measure
    )
    grid = query_grid(values, report.order, report.settings.statistics.missing)
    base = grid.filter(pl.col("system") == report.settings.baseline).select("query", base="value")
    others = grid.filter(pl.col("system") != report.settings.baseline).join(base, on="query")
    return others.select("system", "query", diff=pl.col("value") - pl.col("base"))
