"""The report's section "What moved": for each system against the baseline, on the report's
first measure, the queries that contribute most to the difference of the means, the relevant
items that moved most in each (rank in the baseline -> in the system), and the difference
per segment when the report has segments (:func:`~polars_graded.stats.diff.diff_with`, on
the report's per-query values: nothing is evaluated twice). Bounded at any number of
queries: :data:`TOP_QUERIES` queries and :data:`TOP_ITEMS` items each per system.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Final

import polars as pl

from polars_graded.options import TableSpec
from polars_graded.report.blocks import Part, Section, Table
from polars_graded.report.content import Report
from polars_graded.report.names import short_names, shorten
from polars_graded.report.segments import NULL_SEGMENT
from polars_graded.report.text import fmt, fmt_diff
from polars_graded.stats.diff import Diff, diff_with, segment_labels, signed

TOP_QUERIES: Final = 5
"""Queries shown per system: the largest contributions to its difference from the baseline."""
TOP_ITEMS: Final = 3
"""Moved relevant items shown per query."""
TOP_SEGMENTS: Final = 10
"""Segments shown per system: the largest contributions."""


def add_moved(lf: pl.LazyFrame, spec: TableSpec, report: Report) -> Report:
    """``report`` with ``moved``: one :class:`~polars_graded.stats.diff.Diff` per system but
    the baseline (in the report's order), on the first measure, from the report's
    per-query values (system names as text, as the report shows them).

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=99, bootstrap=99)
    >>> [(d.baseline, d.candidate, d.summary["diff"][0]) for d in rep.moved]
    [('a', 'b', 0.5)]
    """
    s = report.settings
    system, query, measure = spec.by[0], spec.query, s.measures[0]
    as_text = pl.col(system).cast(pl.String)
    table = lf.with_columns(as_text)
    per_query = report.per_query.select(as_text, query, measure)
    labels = segment_labels(table, s.segment, query=query) if s.segment else None
    # The weight is checked equal across systems already: one row per query.
    weights = (
        None
        if s.weight is None
        else report.per_query.select(query, s.weight).unique(query, keep="first")
    )
    moved = tuple(
        diff_with(
            table.filter(pl.col(system).is_in([s.baseline, other])),
            per_query,
            [measure],
            spec,
            baseline=s.baseline,
            candidate=other,
            labels=labels,
            weights=weights,
            top=TOP_QUERIES,
            items=TOP_ITEMS,
            missing=s.statistics.missing,
        )
        for other in report.order
        if other != s.baseline
    )
    return dataclasses.replace(report, moved=moved)


def moved_section(report: Report) -> Section | None:
    """The section "What moved", or None when the report has no system but the baseline.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=99, bootstrap=99)
    >>> section = moved_section(rep)
    >>> section.title, section.parts[2].frame.columns
    ('What moved', ['query', 'baseline', 'system', 'change', 'contribution', 'share', \
'relevant items moved'])
    """
    if not report.moved:
        return None
    parts: list[Part] = [_intro(report)]
    names = short_names(report.order)
    for index, found in enumerate(report.moved):
        parts += _system_parts(found, index, names)
    return Section("moved", "What moved", tuple(parts))


def _intro(report: Report) -> str:
    s = report.settings
    missing = (
        "A query only one of the two systems has scores 0 for the other."
        if s.statistics.missing == "zero"
        else "Only the queries both systems have are compared."
    )
    contribution = (
        "its change divided by the number of queries"
        if s.weight is None
        else f"its change times its weight ({s.weight}) over the total weight"
    )
    return (
        f"Why each system's mean of {s.measures[0]} differs from the baseline's "
        f"({s.baseline}): the {TOP_QUERIES} queries that contribute most to the difference "
        f"(a query's contribution is {contribution}, so the "
        "contributions of all queries sum to the difference; its share is the contribution "
        "divided by the difference, negative for a query that moved the other way), and in "
        f"each the {TOP_ITEMS} relevant items (label > 0) that moved most between the two "
        "rankings, moves near the top first: item (label): rank in the baseline → rank in "
        f"the system, – where not ranked. {missing} The library's pg.diff and polars-graded "
        "diff list more."
    )


def _system_parts(found: Diff, index: int, names: Mapping[str, str]) -> list[Part]:
    base, cand = (names.get(str(n), str(n)) for n in (found.baseline, found.candidate))
    row = found.summary.row(0, named=True)
    head = (
        f"{cand} against {base}: {row['measure']} {fmt(row['baseline_mean'])} → "
        f"{fmt(row['candidate_mean'])} ({fmt_diff(row['diff'])}) over "
        f"{row['n_queries']:,} queries."
    )
    caption = (
        f"The queries that contribute most to the difference of {cand} (system) from "
        f"{base} (baseline)."
    )
    table = _queries(found, found.queries.head(TOP_QUERIES))
    parts: list[Part] = [head, Table(f"moved-{index}", table, caption)]
    if found.segments is not None:
        shown = found.segments.height
        more = (
            f" The {TOP_SEGMENTS} largest of {shown} segments are shown."
            if shown > TOP_SEGMENTS
            else ""
        )
        caption = (
            f"The difference of {cand} from {base} per segment: within the segment, and its "
            f"contribution to the overall difference (the segments' contributions sum to it).{more}"
        )
        segments = _segments(found, found.segments.head(TOP_SEGMENTS))
        parts.append(Table(f"moved-segments-{index}", segments, caption))
    return parts


def _queries(found: Diff, queries: pl.DataFrame) -> pl.DataFrame:
    """One row per top query: its value for the baseline and the system, the change, the
    contribution, the share and the moved items."""
    rows = []
    for row in queries.iter_rows(named=True):
        key = row[found.query]
        items = found.items.filter(pl.col(found.query) == key).iter_rows(named=True)
        moved = "; ".join(_item(found, item) for item in items)
        rows.append(
            {
                "query": shorten(str(key)),
                "baseline": fmt(row["baseline_value"]),
                "system": fmt(row["candidate_value"]),
                "change": fmt_diff(row["change"]),
                "contribution": _signed(row["contribution"]),
                "share": _share(row["share"]),
                "relevant items moved": moved or "–",
            }
        )
    columns = [
        "query",
        "baseline",
        "system",
        "change",
        "contribution",
        "share",
        "relevant items moved",
    ]
    return pl.DataFrame(rows, schema=dict.fromkeys(columns, pl.String))


def _item(found: Diff, row: dict[str, object]) -> str:
    """``item (label): before → after``, ``–`` for a rank that is not."""
    label = row["label"]
    label_text = f"{label:g}" if isinstance(label, float) else str(label)
    before, after = ("–" if row[c] is None else str(row[c]) for c in ("rank_before", "rank_after"))
    return f"{shorten(str(row[found.item]), 24)} ({label_text}): {before} → {after}"


def _signed(value: float | None) -> str:
    """A contribution as :func:`~polars_graded.stats.diff.signed` gives it, with the
    report's minus sign."""
    return signed(value).replace("-", "−")


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}".replace("-", "−")


def _segments(found: Diff, segments: pl.DataFrame) -> pl.DataFrame:
    """One row per segment: its queries, the difference within, contribution and share."""
    name = " / ".join(found.segment)
    rows = [
        {
            name: " / ".join(
                NULL_SEGMENT if row[c] is None else str(row[c]) for c in found.segment
            ),
            "queries": row["n_queries"],
            "diff": fmt_diff(row["diff"]),
            "contribution": _signed(row["contribution"]),
            "share": _share(row["share"]),
        }
        for row in segments.iter_rows(named=True)
    ]
    schema = {
        name: pl.String,
        "queries": pl.Int64,
        **dict.fromkeys(["diff", "contribution", "share"], pl.String),
    }
    return pl.DataFrame(rows, schema=schema)
