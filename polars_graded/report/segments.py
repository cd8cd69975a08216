"""The report's section "Segments": every system against the baseline within each segment of
the queries (``Settings.segment``: a language, a market), corrected across segments x
systems, and the systems whose order against the baseline reverses in a segment
(:func:`~polars_graded.stats.segments.compare_segments`,
:func:`~polars_graded.stats.segments.segment_reversals`): the significant ones in sentences, the
others in a table."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import polars as pl

from polars_graded.defaults import ENGINE
from polars_graded.errors import InvalidValueError, MissingColumnError
from polars_graded.options import TableSpec
from polars_graded.report.blocks import Part, Section, Table
from polars_graded.report.content import Report
from polars_graded.report.names import short_names, with_short_names
from polars_graded.report.text import BETTER, WORSE, fmt, fmt_diff, marker
from polars_graded.stats.options import CORRECTION_NAMES, TEST_NAMES
from polars_graded.stats.segments import compare_segments_with, segment_reversals

NULL_SEGMENT = "(null)"
"""How a null segment value is shown."""
_LABEL = "__pg_segment"


def add_segments(lf: pl.LazyFrame, spec: TableSpec, report: Report) -> Report:
    """``report`` with ``segments``: :func:`~polars_graded.stats.segments.compare_segments` with
    the report's settings on its per-query values, each query with its segment from the
    table (the system column named ``system``, as String); unchanged without
    ``Settings.segment``.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> table = example_table().with_columns(lang=pl.lit("en"))
    >>> rep = compute_report(table, ["ap"], segment="lang", trials=99, bootstrap=99)
    >>> rep.segments.select("lang", "system", "n_queries", "tested").rows()
    [('en', 'a', 2, False), ('en', 'b', 2, False)]
    """
    s = report.settings
    if not s.segment:
        return report
    system = spec.by[0]
    _check_columns(lf, s.segment, taken=(system, spec.query, *s.measures))
    # The report's per-query values with each query's segment: the same numbers as
    # evaluating by system and segment, once; a query in two segments gets two rows,
    # which compare_segments reports.
    labels = lf.select(spec.query, *s.segment).unique().collect(engine=ENGINE)
    per_query = report.per_query.join(labels, on=spec.query, how="left")
    segments = compare_segments_with(
        per_query.with_columns(pl.col(system).cast(pl.String)),
        list(s.measures),
        s.statistics,
        segment=s.segment,
        by=system,
        query=spec.query,
        baseline=s.baseline,
        min_queries=s.min_queries,
        weight=s.weight,
    )
    return dataclasses.replace(report, segments=segments.rename({system: "system"}))


def _check_columns(lf: pl.LazyFrame, segment: Sequence[str], taken: Sequence[str]) -> None:
    """The segment columns are in the table and none is named like a key or a measure of
    the per-query values (``taken``) or like the report's system key, ``system``."""
    names = lf.collect_schema().names()
    absent = [c for c in segment if c not in names]
    if absent:
        msg = f"segment column(s) {absent} not found; the table has {names} (--segment)"
        raise MissingColumnError(msg)
    clash = [c for c in segment if c in {*taken, "system"}]
    if clash:
        msg = (
            f"segment column(s) {clash} are named like a key column or a measure of the "
            f"report ({list(taken)}) or its system key 'system'; rename them first"
        )
        raise InvalidValueError(msg)


def segments_section(report: Report) -> Section | None:
    """The section "Segments", or None without segments: what was tested, a table of the
    means per segment and system (▲/▼ where significantly better/worse than the baseline
    after the correction), and the reversals against the baseline: a sentence each for the
    significant ones, a table of the others.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> table = example_table().with_columns(lang=pl.lit("en"))
    >>> rep = compute_report(table, ["ap"], segment="lang", trials=99, bootstrap=99)
    >>> section = segments_section(rep)
    >>> section.title, section.parts[1].frame.rows()
    ('Segments', [('en', 'a (baseline)', 2, '0.5000', 'fewer than 20 queries: not tested'), \
('en', 'b', 2, '1.0000', 'fewer than 20 queries: not tested')])
    """
    frame = report.segments
    if frame is None:
        return None
    caption = (
        f"Mean per segment; {BETTER} / {WORSE}: significantly better / worse than the "
        f"baseline in that segment (corrected p < {report.settings.statistics.alpha:g})."
    )
    frame = frame.with_columns(_labels(report.settings.segment).alias(_LABEL))
    parts: tuple[Part, ...] = (
        _intro(report, frame),
        Table("segments-table", _table(report, frame), caption),
        *_reversals(report, frame),
    )
    return Section("segments", "Segments", parts)


def _labels(segment: Sequence[str]) -> pl.Expr:
    """Each row's segment as text: its values joined by `` / ``, a null as ``(null)``."""
    values = [pl.col(c).cast(pl.String).fill_null(NULL_SEGMENT) for c in segment]
    return pl.concat_str(values, separator=" / ")


def _intro(report: Report, frame: pl.DataFrame) -> str:
    s = report.settings
    stats = s.statistics
    segments = frame.get_column(_LABEL).n_unique()
    tested = frame.filter(pl.col("tested")).get_column(_LABEL).n_unique()
    tests = frame.filter(pl.col("p_randomization").is_not_null(), measure=s.measures[0]).height
    others = "; the others are shown but not tested" if tested < segments else ""
    text = (
        f"Every system is compared with the baseline {s.baseline} within each segment of "
        f"{' / '.join(s.segment)}: {segments} segment{'s' * (segments != 1)}, {tested} with "
        f"at least {s.min_queries} queries and tested{others}."
    )
    if not tested:
        return text
    return (
        f"{text} The p-values of the {TEST_NAMES[stats.test]}, which decides the marks, are "
        f"{CORRECTION_NAMES[stats.correction]} across the {tests} tests of each measure (tested "
        "segments × systems)."
    )


def _table(report: Report, frame: pl.DataFrame) -> pl.DataFrame:
    """One row per segment (in the comparison's order) and system (in the report's order,
    named as the tables show it), one cell per measure: the mean, a space and its mark."""
    s, names = report.settings, short_names(report.order)
    rows: dict[tuple[str, str], dict[str, object]] = {}
    for row in frame.iter_rows(named=True):
        key = (row[_LABEL], row["system"])
        name = names.get(row["system"], row["system"])
        shown = f"{name} (baseline)" if row["system"] == s.baseline else name
        empty = {"system": shown, "queries": row["n_queries"], **dict.fromkeys(s.measures)}
        cells = rows.setdefault(key, {**empty, "note": row["note"] or ""})
        cells[row["measure"]] = f"{fmt(row['mean'])} {marker(row)}".rstrip()
    segments = {label: i for i, label in enumerate(dict.fromkeys(k[0] for k in rows))}
    systems = {system: i for i, system in enumerate(report.order)}
    order = sorted(rows, key=lambda k: (segments[k[0]], systems.get(k[1], len(systems))))
    return pl.DataFrame(
        [{" / ".join(s.segment): k[0], **rows[k]} for k in order],
        schema_overrides=dict.fromkeys(s.measures, pl.String),
    )


def _reversals(report: Report, frame: pl.DataFrame) -> list[Part]:
    """Where a system's order against the baseline reverses in a segment (by measure): a
    sentence on them all, one per significant reversal, then a table of the others; or a
    sentence saying there is none."""
    s = report.settings
    if not frame.get_column("tested").any():
        return [f"No segment has {s.min_queries} queries or more, so none is tested."]
    found = segment_reversals(frame.drop(_LABEL)).with_columns(_labels(s.segment).alias(_LABEL))
    if found.is_empty():
        return [
            f"No system's order against the baseline reverses in any segment with "
            f"{s.min_queries} queries or more."
        ]
    significant = found.filter(pl.col("significant"))
    others = found.filter(~pl.col("significant"))
    parts: list[Part] = [_reversals_head(found.height, significant.height)]
    parts += [_reversal(row, s.baseline) for row in significant.iter_rows(named=True)]
    if not others.is_empty():
        caption = (
            "Reversals not significant after the correction: the difference from the "
            "baseline over all queries and within the segment."
        )
        parts.append(Table("segments-reversals", _reversal_table(report, others), caption))
    return parts


def _reversals_head(count: int, significant: int) -> str:
    """What a reversal is, how many there are and how many are significant."""
    text = (
        "Reversals (the trap of Simpson's paradox): a system ordered against the baseline "
        "one way over all queries and the other way within a segment, on a measure; "
        f"{count} reversal{'s' * (count != 1)}"
    )
    if not significant:
        return f"{text}, none significant after the correction."
    if significant == count:
        return f"{text}, each significant after the correction."
    return (
        f"{text}: the {significant} significant after the correction first, then the "
        f"{count - significant} that are not."
    )


def _reversal_table(report: Report, rows: pl.DataFrame) -> pl.DataFrame:
    """Per reversal: the system (named as the tables show it), the measure, the segment,
    the difference from the baseline over all queries and in the segment, its queries."""
    shown = with_short_names(rows, report.order, "system")
    return shown.select(
        "system",
        "measure",
        **{" / ".join(report.settings.segment): pl.col(_LABEL)},
        **{"diff overall": pl.col("overall_diff"), "diff in segment": pl.col("diff")},
        queries="n_queries",
    )


def _reversal(row: dict[str, object], baseline: str) -> str:
    overall, diff = (float(row[c]) for c in ("overall_diff", "diff"))  # type: ignore[arg-type]
    better, worse = ("better", "worse") if overall > 0 else ("worse", "better")
    significant = "significant" if row["significant"] else "not significant"
    return (
        f"{row['system']} is {better} than {baseline} on {row['measure']} over all queries "
        f"({fmt_diff(overall)}) but {worse} in segment {row[_LABEL]} "
        f"({fmt_diff(diff)}, {row['n_queries']} queries; {significant} after the "
        f"correction)."
    )
