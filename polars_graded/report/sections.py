"""The report's sections built from :mod:`~polars_graded.report.blocks` parts, in page order:
all pairs, segments, what moved, incomplete judgments, stability of the verdict, trend. Both
renderings draw each :class:`~polars_graded.report.blocks.Section` that applies to the
report."""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from polars_graded.options import TableSpec
from polars_graded.report.blocks import Section
from polars_graded.report.content import Report
from polars_graded.report.judgments import add_judgments, judgments_section
from polars_graded.report.moved import add_moved, moved_section
from polars_graded.report.pairs import add_pairs, pairs_section
from polars_graded.report.segments import add_segments, segments_section
from polars_graded.report.stability import add_stability, stability_section
from polars_graded.report.trend import add_trend, trend_section

BLOCK_STEPS: tuple[Callable[[pl.LazyFrame, TableSpec, Report], Report], ...] = (
    add_pairs,
    add_segments,
    add_moved,
    add_judgments,
    add_stability,
    add_trend,
)
"""What :func:`~polars_graded.report.compute_report` adds after the comparison, in order:
each step returns the report with its frame set (stability reads the pairs)."""

BLOCK_SECTIONS: tuple[Callable[[Report], Section | None], ...] = (
    pairs_section,
    segments_section,
    moved_section,
    judgments_section,
    stability_section,
    trend_section,
)
"""The builders, in page order; each returns ``None`` when its section does not apply."""


def block_sections(report: Report) -> list[Section]:
    """The sections that apply to ``report``, in page order.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> isinstance(block_sections(rep), list)
    True
    """
    return [s for build in BLOCK_SECTIONS if (s := build(report)) is not None]
