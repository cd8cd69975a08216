"""Tied scores in a report: how many retrieved rows tie (:func:`count_ties`, with the one
sorter's tie groups), how far the tie-breaking rule moves each mean from its expected value
over random orders of the tied rows (:func:`tie_effects`), and what the "Tied scores"
section says about it (:func:`tie_lines`)."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from typing import Unpack

import polars as pl

from polars_graded import api
from polars_graded.defaults import ENGINE
from polars_graded.measures import as_measures
from polars_graded.options import SCORE_PRECISION, ColumnOptions, TableSpec, TiePolicy, Ties
from polars_graded.ranking import tie_size
from polars_graded.report.content import Report
from polars_graded.report.inputs import report_spec
from polars_graded.report.text import fmt_diff
from polars_graded.stats.grid import system_means
from polars_graded.stats.options import DEFAULTS, MissingPolicy

TIE_RULES: dict[str, str] = {
    "trec_eval": "ties by item id descending, as trec_eval",
    "input": "ties in the table's row order",
    "optimistic": "the higher label first within a tie",
    "pessimistic": "the lower label first within a tie",
}
"""Each tie-breaking rule in a few words, for the section's first line."""

_TIE_SIZE = "__pg_tie_size"


def tie_rule(ties: Ties | TiePolicy) -> TiePolicy:
    """The tie-breaking rule a report sets beside ``"average"``: its own policy, or
    ``"trec_eval"`` when the report itself averages over ties.

    Examples
    --------
    >>> tie_rule("optimistic"), tie_rule(Ties("average"))
    ('optimistic', 'trec_eval')
    """
    ties = Ties.of(ties)
    return "trec_eval" if ties.averaged else ties.policy


def count_ties(
    table: pl.DataFrame | pl.LazyFrame,
    *,
    system: str | None = None,
    **columns: Unpack[ColumnOptions],
) -> pl.DataFrame:
    """Per system: its ``retrieved`` rows and the ``tied`` ones among them.

    A retrieved row (score not null) is tied when its score, as ``spec.compat`` compares it
    (doubles by default, 32-bit floats for trec_eval 9.x), equals another retrieved row's in
    the same query
    (:func:`polars_graded.ranking.tie_size`). ``tied_share`` = ``tied / retrieved``; a
    system without retrieved rows has no row. ``by`` names the system column (default
    ``"system"``; ``system=`` is its deprecated alias), ``query`` and ``score`` the others.

    Examples
    --------
    >>> df = pl.DataFrame({
    ...     "system": ["a"] * 4 + ["b"] * 2, "query": [1, 1, 1, 2, 1, 1],
    ...     "score": [1.0, 1.0, 0.5, 1.0, 2.0, None],
    ... })
    >>> count_ties(df).rows()
    [('a', 4, 2, 0.5), ('b', 1, 0, 0.0)]
    """
    return _count(table, report_spec(columns, system))


def _count(table: pl.DataFrame | pl.LazyFrame, spec: TableSpec) -> pl.DataFrame:
    retrieved = table.lazy().filter(pl.col(spec.score).is_not_null())
    counts = (
        retrieved.with_columns(tie_size(spec).alias(_TIE_SIZE))
        .group_by(spec.by[0])
        .agg(
            retrieved=pl.len().cast(pl.Int64),
            tied=(pl.col(_TIE_SIZE) > 1).sum().cast(pl.Int64),
        )
    )
    return (
        counts.select(
            pl.col(spec.by[0]).cast(pl.String).alias("system"),
            "retrieved",
            "tied",
            tied_share=pl.col("tied") / pl.col("retrieved"),
        )
        .sort("system")
        .collect()
    )


def tie_effects(
    table: pl.DataFrame | pl.LazyFrame,
    per_query: pl.DataFrame,
    spec: TableSpec,
    measures: Sequence[str],
    order: Sequence[str],
    *,
    missing: MissingPolicy = DEFAULTS.missing,
) -> pl.DataFrame:
    """Per system and measure, the mean under the report's tie rule and under ``"average"``.

    The rule is :func:`tie_rule` of ``spec.ties``: the report's own policy, or
    ``"trec_eval"`` when the report uses ``"average"``. ``per_query`` holds the values under
    ``spec.ties``; the other policy is evaluated on the systems that have tied rows only
    (without ties every policy gives the same bits). Means follow ``missing`` as the
    summary's do (:func:`~polars_graded.stats.grid.system_means`).

    Returns
    -------
    pl.DataFrame
        One row per system (in ``order``) and measure (in ``measures``): ``system``,
        ``retrieved``, ``tied``, ``tied_share`` (see :func:`count_ties`), ``measure``, then
        the mean under the rule in a column named after it (e.g. ``trec_eval``), the mean
        under ``average``, and ``diff`` = rule − average: how far the tie-breaking rule alone
        moves the mean from its expected value over random orders of the tied rows.
        A measure without an expected value over tied orders (``Declaration.averages_ties``
        false, e.g. ``g``) has no ``average`` mean: null, and so is its ``diff``.

    Examples
    --------
    >>> from polars_graded.report.inputs import example_table
    >>> table = example_table().with_columns(score=pl.lit(1.0))  # every row ties
    >>> spec = report_spec({})
    >>> per_query = api.evaluate_spec(table, ["rr"], spec)
    >>> tie_effects(table, per_query, spec, ["rr"], ["a", "b"]).select(
    ...     "system", "tied_share", "trec_eval", "average", "diff"
    ... ).rows()
    [('a', 1.0, 1.0, 0.75, 0.25), ('b', 1.0, 1.0, 0.75, 0.25)]
    """
    lf = table.lazy()
    counts = _count(lf, spec)
    rule = tie_rule(spec.ties)
    other = Ties(rule if spec.ties.averaged else "average")
    keyed = _keyed(per_query, spec)
    tied = counts.filter(pl.col("tied") > 0)["system"].to_list()
    # A measure that cannot average ties only appears under the report's own policy.
    redo = [m for m in measures if other == spec.ties or not other.averaged or averages(m)]
    redone = _redone(lf, keyed, tied, dataclasses.replace(spec, ties=other), redo)
    means: dict[str, pl.DataFrame] = {
        policy.policy: _means(frame, names, spec, order, missing)
        for policy, frame, names in ((spec.ties, keyed, measures), (other, redone, redo))
    }
    return _effects(counts, means, rule, measures, order)


def averages(measure: str) -> bool:
    """Whether ``measure`` has an expected value over the orders of tied rows
    (``ties="average"``).

    Examples
    --------
    >>> averages("ap@10"), averages("g")
    (True, False)
    """
    return type(as_measures(measure)[0]).declaration.averages_ties


def _keyed(per_query: pl.DataFrame, spec: TableSpec) -> pl.DataFrame:
    """``per_query`` with its system column as text, as the report keys systems."""
    return per_query.with_columns(pl.col(spec.by[0]).cast(pl.String))


def _redone(
    lf: pl.LazyFrame,
    keyed: pl.DataFrame,
    tied: Sequence[str],
    spec: TableSpec,
    measures: Sequence[str],
) -> pl.DataFrame:
    """``keyed`` with the systems in ``tied`` evaluated again under ``spec.ties``."""
    if not tied:
        return keyed.select(*spec.by, spec.query, *measures)
    system = spec.by[0]
    subset = lf.filter(pl.col(system).cast(pl.String).is_in(tied))
    values = api.evaluate_spec(subset, list(measures), spec).collect(engine=ENGINE)
    kept = keyed.filter(~pl.col(system).is_in(tied)).select(values.columns)
    return pl.concat([kept, _keyed(values, spec)])


def _means(
    per_query: pl.DataFrame,
    measures: Sequence[str],
    spec: TableSpec,
    order: Sequence[str],
    missing: MissingPolicy,
) -> pl.DataFrame:
    """``system``, ``measure``, ``mean``: the means over the queries the comparison counts."""
    values = per_query.select(
        pl.col(spec.by[0]).alias("system"), pl.col(spec.query).alias("query"), *measures
    )
    means = system_means(values, order, missing)
    return means.unpivot(index="system", variable_name="measure", value_name="mean")


def _effects(
    counts: pl.DataFrame,
    means: dict[str, pl.DataFrame],
    rule: str,
    measures: Sequence[str],
    order: Sequence[str],
) -> pl.DataFrame:
    """The counts and the two means side by side, systems in ``order``, then measures."""
    keys = (
        pl.DataFrame({"system": list(order)})
        .with_row_index("__s")
        .join(pl.DataFrame({"measure": measures}).with_row_index("__m"), how="cross")
    )
    out = (
        keys.join(counts, on="system", how="left")
        .join(means[rule].rename({"mean": rule}), on=["system", "measure"], how="left")
        .join(means["average"].rename({"mean": "average"}), on=["system", "measure"], how="left")
        .sort("__s", "__m")
    )
    return out.select(
        "system",
        pl.col("retrieved", "tied").fill_null(0),
        "tied_share",
        "measure",
        rule,
        "average",
        diff=pl.col(rule) - pl.col("average"),
    )


# --------------------------------------------------------------------------- words


def tie_lines(report: Report) -> list[str]:
    """What the "Tied scores" section says: one line when nothing ties, else what the
    table's numbers mean and where the ties are.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> tie_lines(rep)[0][:40]
    'No ties: no two retrieved rows of a quer'
    """
    t, s = report.ties, report.settings
    if int(t["tied"].sum()) == 0:
        return [
            "No ties: no two retrieved rows of a query have the same score (compared "
            f"{SCORE_PRECISION[s.compat]}), so every tie policy gives these numbers."
        ]
    rule = tie_rule(s.ties)
    used = {rule: "", "average": ""} | {s.ties.policy: "; this report's policy"}
    lines = [
        f"Tied share: the retrieved rows whose score (compared {SCORE_PRECISION[s.compat]}) "
        "equals another retrieved row's in the same query. Per measure, the mean under ties={rule} "
        f"({TIE_RULES[rule]}{used[rule]}), under ties=average (the "
        "expected value over uniformly random orders of each group of tied rows, McSherry "
        f"& Najork 2008{used['average']}) and Δ = {rule} − average: how much the "
        "tie-breaking rule alone moves the mean."
    ]
    changes = order_changes(t, s.measures, rule)
    lines.append(f"Most ties: {_most_tied(t)}. {_largest_move(t)} {changes}")
    unaveraged = [m for m in s.measures if not averages(m)]
    if unaveraged:
        lines.append(
            f"{', '.join(unaveraged)}: no expected value over the orders of tied rows "
            f"(ties=average refuses it), so only its mean under {rule} is shown."
        )
    return lines


def _most_tied(ties: pl.DataFrame) -> str:
    """The (at most) three systems with the largest tied share, with their shares."""
    systems = ties.unique("system", maintain_order=True).filter(pl.col("tied") > 0)
    systems = systems.sort("tied_share", "system", descending=[True, False]).head(3)
    return ", ".join(f"{n} ({v:.1%})" for n, v in systems.select("system", "tied_share").rows())


def _largest_move(ties: pl.DataFrame) -> str:
    """The system and measure whose mean the tie-breaking rule moves the most."""
    widest = ties.sort(
        pl.col("diff").abs(), "system", descending=[True, False], nulls_last=True
    ).row(0, named=True)
    if not widest["diff"]:
        return "No mean changes: the rule and the average agree on every measure."
    return (
        f"Largest move: {widest['system']} on {widest['measure']}, Δ = {fmt_diff(widest['diff'])}."
    )


def order_changes(ties: pl.DataFrame, measures: Sequence[str], rule: str) -> str:
    """A sentence on the pairs of systems whose means are in opposite orders under the
    rule and under average (differences within 1e-12 count as equal).

    Examples
    --------
    >>> ties = pl.DataFrame({
    ...     "system": ["a", "b"], "measure": ["ap", "ap"],
    ...     "trec_eval": [0.5, 0.4], "average": [0.3, 0.4],
    ... })
    >>> order_changes(ties, ["ap"], "trec_eval")
    'Ranked by mean, systems swap places between trec_eval and average on ap (a and b).'
    """
    changes = []
    for m in measures:
        swapped = _swapped(ties.filter(pl.col("measure") == m).drop_nulls("average"), rule)
        if swapped:
            more = f" and {len(swapped) - 3} more pairs" if len(swapped) > 3 else ""
            changes.append(f"{m} ({', '.join(swapped[:3])}{more})")
    if not changes:
        return f"Ranked by mean, the systems keep their order under {rule} and average."
    return (
        f"Ranked by mean, systems swap places between {rule} and average on {'; '.join(changes)}."
    )


def _swapped(ties: pl.DataFrame, rule: str) -> list[str]:
    """``"a and b"`` for each pair of systems in opposite orders under the rule and average."""
    rows = ties.select("system", rule, "average").rows()
    return [
        f"{a} and {b}"
        for (a, a_rule, a_avg), (b, b_rule, b_avg) in itertools.combinations(rows, 2)
        if min(abs(a_rule - b_rule), abs(a_avg - b_avg)) > 1e-12
        and (a_rule > b_rule) != (a_avg > b_avg)
    ]


def tie_chunks(count: int, most: int = 3) -> list[tuple[int, int]]:
    """``count`` measures as (first, last) slices of at most ``most``, as even as can be:
    three columns per measure, so that a table fits the page's width.

    Examples
    --------
    >>> tie_chunks(6), tie_chunks(4), tie_chunks(2)
    ([(0, 3), (3, 6)], [(0, 2), (2, 4)], [(0, 2)])
    """
    parts = -(-count // most)
    bounds = [round(i * count / parts) for i in range(parts + 1)]
    return list(itertools.pairwise(bounds))


def tie_rows(report: Report) -> list[tuple[str, list[dict[str, object]]]]:
    """Per system in report order, its rows of ``report.ties`` in measure order.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap", "rr"], trials=100, bootstrap=100)
    >>> [(name, [row["measure"] for row in rows]) for name, rows in tie_rows(rep)]
    [('a', ['ap', 'rr']), ('b', ['ap', 'rr'])]
    """
    rows: dict[str, list[dict[str, object]]] = {}
    for row in report.ties.iter_rows(named=True):
        rows.setdefault(row["system"], []).append(row)
    return [(name, rows[name]) for name in report.order]
