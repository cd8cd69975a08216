"""What a report holds (:class:`Report`: its settings, the data's description, the numbers)
and the files it is written to (:data:`FILES`)."""

from __future__ import annotations

import datetime as dt
import platform
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

import polars as pl

from polars_graded.defaults import SYSTEM
from polars_graded.options import DEFAULT_COMPAT, Compat, TableSpec, Ties
from polars_graded.stats.options import DEFAULTS, Statistics
from polars_graded.stats.segments import MIN_QUERIES

if TYPE_CHECKING:  # a Diff is only held here; the report computes it in report/moved.py
    from polars_graded.stats.diff import Diff

FILES: tuple[str, str, str] = ("report.html", "report.md", "per_query.parquet")
"""The files of a report, in the order of :class:`~polars_graded.report.ReportFiles`."""

try:  # read as ``polars_graded.__version__`` is: importing the package here would be a cycle
    VERSION = version("polars-graded")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    VERSION = "0.0.0"
"""The version of polars_graded a report names (``pg.__version__``)."""


@dataclass(frozen=True)
class Settings:
    """The measures, the baseline, and the tests' parameters (see
    :func:`~polars_graded.report.compute_report`); ``ties`` is the checked tie policy,
    ``statistics`` the checked options of the tests and intervals.

    Examples
    --------
    >>> Settings(measures=("ap",), baseline="bm25").ties.policy
    'trec_eval'
    >>> Settings(measures=("ap",), baseline="bm25").statistics.trials
    10000
    """

    measures: tuple[str, ...]
    baseline: str
    statistics: Statistics = DEFAULTS
    title: str = "Evaluation report"
    differences: tuple[str, ...] = ()
    ties: Ties = field(default_factory=Ties)
    compat: Compat = DEFAULT_COMPAT
    all_pairs: bool = False
    segment: tuple[str, ...] = ()
    min_queries: int = MIN_QUERIES
    unjudged_label: float | None = None
    trend: str | None = None
    weight: str | None = None
    """The column of traffic weights every mean, interval and test is weighted by."""


@dataclass(frozen=True)
class Description:
    """The data behind a report (see :func:`~polars_graded.report.describe`).

    ``per_system``: ``system``, ``queries``, ``rows``, ``retrieved`` (score not null),
    ``unjudged`` (retrieved, relevance null), ``unjudged_share``. ``levels``: ``relevance``
    and ``judgments``, the distinct judged (query, item) pairs with that label.
    ``no_relevant``: the queries without a judged row of label > 0.

    Examples
    --------
    >>> from polars_graded.report import describe
    >>> from polars_graded.report.inputs import example_table
    >>> describe(example_table()).levels.rows()
    [(0, 2), (1, 1), (2, 1)]
    """

    queries: int
    rows: int
    per_system: pl.DataFrame
    levels: pl.DataFrame
    no_relevant: tuple[str, ...]
    item_type: str


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _versions() -> str:
    return f"polars_graded {VERSION}, Polars {pl.__version__}, Python {platform.python_version()}"


@dataclass(frozen=True)
class Report:
    """Everything a report shows (see :func:`~polars_graded.report.compute_report`).

    ``per_query``: ``evaluate(measures, by=system)``. ``comparison``: the output of
    :func:`polars_graded.compare`, its key column named ``system``. ``thresholds``: of
    :func:`~polars_graded.api.per_threshold` by system. ``order``: the systems as the
    tables and charts list them, the baseline first, then by the first measure's mean.
    ``ties``: per system (in ``order``) and measure, what the tie policy changes (see
    :func:`~polars_graded.report.ties.tie_effects`). ``pairs``: every pair of systems
    (:func:`~polars_graded.stats.pairs.compare_pairs`); ``segments``: per segment
    (``Settings.segment``; ``None`` without one); ``judgments``: each mean with unjudged rows
    counted as not relevant, as relevant, and removed; ``stability``: Kendall's tau and
    tau_AP between the orders of systems under each variant; ``power``: discriminative
    power per measure. ``trend``: per period of ``Settings.trend`` and system, the
    comparison with the baseline and what changed since the previous period
    (:func:`~polars_graded.stats.trends.trend`; ``None`` without a trend column).
    ``moved``: per system but the baseline, why its first measure's mean differs from the
    baseline's (:func:`~polars_graded.stats.diff.diff_with`: the top queries, their moved
    items, the segments). ``system`` and ``query`` name the key columns of ``per_query``.
    ``outputs``: the files the report is written to, which the page's footer and the
    Markdown's last line name (:data:`FILES`, and ``report.tex`` when
    :func:`~polars_graded.report.write_report` writes it).

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> rep.order, rep.settings.baseline, rep.per_query.columns
    (('a', 'b'), 'a', ['system', 'query', 'ap'])
    """

    settings: Settings
    per_query: pl.DataFrame
    comparison: pl.DataFrame
    thresholds: pl.DataFrame
    description: Description
    order: tuple[str, ...]
    ties: pl.DataFrame
    pairs: pl.DataFrame | None = None
    segments: pl.DataFrame | None = None
    judgments: pl.DataFrame | None = None
    stability: pl.DataFrame | None = None
    power: pl.DataFrame | None = None
    trend: pl.DataFrame | None = None
    moved: tuple[Diff, ...] = ()
    sizing: pl.DataFrame | None = None
    """Per measure and system, the difference the paired t-test detects and the queries it
    would need for 0.01 (:func:`~polars_graded.report.sizing.report_sizing`; ``power`` is
    discriminative power)."""
    system: str = SYSTEM
    query: str = TableSpec.query
    source: str = ""
    created: str = field(default_factory=_now)
    versions: str = field(default_factory=_versions)
    outputs: tuple[str, ...] = FILES
