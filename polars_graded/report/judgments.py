"""The report's section "Incomplete judgments": each mean with unjudged retrieved rows
counted as not relevant, as relevant and removed
(:func:`~polars_graded.stats.judgment_bounds.judgment_bounds`), beside Judged@k, and the pairs
of systems whose order those bounds leave open
(:func:`~polars_graded.stats.judgment_bounds.order_flips`)."""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from polars_graded.options import TableSpec
from polars_graded.report.blocks import Section, Table
from polars_graded.report.content import Report
from polars_graded.report.names import with_short_names
from polars_graded.report.text import fmt
from polars_graded.stats.judgment_bounds import (
    bounded_measures,
    default_label,
    judgment_bounds,
    order_flips,
)

KEY = "judgments"
TITLE = "Incomplete judgments"
JUDGED_AT = 10
"""The k of the Judged@k column."""
MAX_FLIPS = 10
"""At most this many pairs are listed per measure (the closest); the section says so."""
_SPAN = ("value", "low", "high")


def add_judgments(lf: pl.LazyFrame, spec: TableSpec, report: Report) -> Report:
    """``report`` with ``judgments``: the bounds of its measures (those
    :func:`~polars_graded.stats.judgment_bounds.bounded_measures` keeps; ``None`` when none is
    left) under its table options, ``missing`` and ``unjudged_label``, the system column
    named ``system`` as String.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> rep.judgments.select("system", "measure", "low", "high", "unjudged").rows()
    [('a', 'ap', 0.5, 0.5, 0), ('b', 'ap', 1.0, 1.0, 0)]
    """
    measures = list(bounded_measures(list(report.settings.measures)))
    if not measures:
        return report
    bounds = judgment_bounds(
        lf,
        measures,
        unjudged_label=report.settings.unjudged_label,
        judged_at=JUDGED_AT,
        missing=report.settings.statistics.missing,
        **spec.options(),
    )
    system = spec.by[0]
    bounds = bounds.rename({system: "system"}).with_columns(pl.col("system").cast(pl.String))
    return replace(report, judgments=bounds)


def judgments_section(report: Report) -> Section | None:
    """The section "Incomplete judgments", or ``None`` without ``report.judgments``.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> judgments_section(rep).parts
    ('No retrieved row is unjudged: the bounds equal the values.',)
    """
    bounds = report.judgments
    if bounds is None:
        return None
    retrieved, unjudged = bounds.unique("system").select("retrieved", "unjudged").sum().row(0)
    if unjudged == 0:
        return Section(KEY, TITLE, ("No retrieved row is unjudged: the bounds equal the values.",))
    intro = (
        f"{unjudged / retrieved:.1%} of the retrieved rows ({unjudged:,} of {retrieved:,}) "
        "are unjudged; every other section counts them as not relevant. Each mean is shown "
        "as value [low, high]: the least and the greatest of the mean with unjudged rows "
        f"not relevant, relevant at label {_label(report)}, and removed from the ranking "
        "(trec_eval -J, condensed lists). Labelling them relevant can lower a mean too "
        "(AP, NDCG: R and the ideal ranking grow). "
        f"judged@{JUDGED_AT} is the mean share of the top {JUDGED_AT} retrieved rows that "
        "are judged."
    )
    shown = with_short_names(_means_table(bounds, report.order), report.order, "system")
    means = Table("judgment-bounds", shown, "Means within their bounds")
    return Section(KEY, TITLE, (intro, means, *_flip_parts(bounds, report.order)))


def _label(report: Report) -> str:
    """The label unjudged rows get in ``unjudged_relevant``, as the section names it."""
    wanted = report.settings.unjudged_label
    if wanted is None:
        labels = report.description.levels.get_column("relevance").cast(pl.Float64)
        wanted = default_label(labels.max() if labels.len() else None)  # type: ignore[arg-type]
    return f"{wanted:g}"


def _interval(suffix: str = "") -> pl.Expr:
    """``value [low, high]`` as text, of the columns with ``suffix``."""
    parts = (pl.col(f"{c}{suffix}").map_elements(fmt, return_dtype=pl.String) for c in _SPAN)
    return pl.format("{} [{}, {}]", *parts)


def _means_table(bounds: pl.DataFrame, order: tuple[str, ...]) -> pl.DataFrame:
    """Per system (in ``order``): judged@k, then ``value [low, high]`` per measure."""
    wide = bounds.with_columns(cell=_interval()).pivot(
        "measure", index="system", values="cell", sort_columns=False
    )
    judged = bounds.unique("system").select(
        "system", pl.format("{}%", (pl.col("judged") * 100).round(1)).alias(f"judged@{JUDGED_AT}")
    )
    systems = pl.DataFrame({"system": list(order)}, schema={"system": pl.String})
    return systems.join(judged, on="system", maintain_order="left").join(
        wide, on="system", maintain_order="left"
    )


def _flip_parts(bounds: pl.DataFrame, order: tuple[str, ...]) -> tuple[str | Table, ...]:
    """A sentence on the pairs whose order could flip, per measure, and the closest of
    them (at most :data:`MAX_FLIPS` per measure; the systems of ``order`` named as the
    tables show them)."""
    flips = order_flips(bounds)
    if flips.is_empty():
        return (
            "No order can flip: for every measure, each system's bounds stay on its side "
            "of every other system's value.",
        )
    systems = bounds.get_column("system").n_unique()
    counts = flips.group_by("measure", maintain_order=True).len()
    per_measure = ", ".join(f"{m} {n:,}" for m, n in counts.iter_rows())
    note = (
        f"Pairs of systems (of {systems * (systems - 1) // 2:,} per measure) whose order "
        f"could flip within the bounds: {per_measure}; the higher mean's low is below the "
        "lower mean's high. Each system's bounds are taken on their own, so this is "
        "conservative: it may list a pair that no single completion of the judgments flips."
    )
    if counts.get_column("len").max() > MAX_FLIPS:  # type: ignore[operator]
        note += (
            f" Listed: the {MAX_FLIPS} closest pairs of each measure; "
            "order_flips(report.judgments) gives all."
        )
    shown = with_short_names(shown_flips(flips), order, "higher", "lower")
    return note, Table("judgment-flips", shown, "Pairs whose order could flip")


def shown_flips(flips: pl.DataFrame) -> pl.DataFrame:
    """The pairs of :func:`~polars_graded.stats.judgment_bounds.order_flips` the section lists:
    per measure (in their order) the :data:`MAX_FLIPS` with the smallest difference of
    values first, as text.

    Examples
    --------
    >>> flips = pl.DataFrame({
    ...     "measure": ["ap", "ap"], "system_a": ["a", "a"], "system_b": ["b", "c"],
    ...     "value_a": [0.5, 0.5], "low_a": [0.4, 0.4], "high_a": [0.5, 0.5],
    ...     "value_b": [0.3, 0.45], "low_b": [0.3, 0.45], "high_b": [0.6, 0.5],
    ... })
    >>> shown_flips(flips).rows()
    [('ap', 'a', 'c', '0.5000 [0.4000, 0.5000]', '0.4500 [0.4500, 0.5000]'), \
('ap', 'a', 'b', '0.5000 [0.4000, 0.5000]', '0.3000 [0.3000, 0.6000]')]
    """
    gap = pl.col("value_a") - pl.col("value_b")
    closest = flips.with_columns(gap=gap).sort("gap", maintain_order=True)
    per_measure = closest.group_by("measure", maintain_order=False).head(MAX_FLIPS)
    order = flips.select("measure").unique(maintain_order=True).with_row_index("rank")
    ranked = per_measure.join(order, on="measure").sort(["rank", "gap"], maintain_order=True)
    return ranked.select(
        "measure",
        higher=pl.col("system_a"),
        lower=pl.col("system_b"),
        higher_bounds=_interval("_a"),
        lower_bounds=_interval("_b"),
    )
