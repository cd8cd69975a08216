"""The report's section "All pairs": every system against every other
(:func:`~polars_graded.stats.pairs.compare_pairs`), as compact letters per measure and the
pairs of the first measure with their wins, ties, losses, difference, interval and tests."""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from polars_graded.options import TableSpec
from polars_graded.report.blocks import Section, Table
from polars_graded.report.content import Report
from polars_graded.report.names import with_short_names
from polars_graded.report.text import fmt, resampling, significance_test
from polars_graded.stats.grid import P_VALUES
from polars_graded.stats.options import CORRECTION_NAMES, Statistics, Test
from polars_graded.stats.pairs import compact_letters, compare_pairs_with

PAIR_COLUMNS = (
    "wins",
    "ties",
    "losses",
    "diff",
    "diff_ci_low",
    "diff_ci_high",
    "d_z",
    "change_pct",
)
"""The columns of :func:`~polars_graded.stats.pairs.compare_pairs` the pairs table shows
before the tests (:func:`pair_tests`)."""


def pair_tests(test: Test) -> tuple[str, str, str]:
    """The p-value columns the pairs table shows: the test that decides (``test``), raw and
    adjusted, then the Tukey HSD's.

    Examples
    --------
    >>> pair_tests("wilcoxon")
    ('p_wilcoxon', 'p_wilcoxon_adjusted', 'p_tukey')
    """
    return (P_VALUES[test], f"{P_VALUES[test]}_adjusted", "p_tukey")


def deciding_p(stats: Statistics) -> str:
    """The column of :func:`~polars_graded.stats.pairs.compare_pairs` whose values below α
    make a pair significant: the adjusted p-value of the chosen test.

    Examples
    --------
    >>> deciding_p(Statistics(test="t"))
    'p_ttest_adjusted'
    """
    return pair_tests(stats.test)[1]


def add_pairs(lf: pl.LazyFrame, spec: TableSpec, report: Report) -> Report:
    """``report`` with ``pairs``: every pair of systems per measure (always computed: the
    stability section reads it for discriminative power), key columns ``system_a`` and
    ``system_b`` (String).

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> rep.pairs.select("system_a", "system_b", "measure", "diff").rows()
    [('a', 'b', 'ap', 0.5)]
    """
    s, system = report.settings, report.system
    pairs = compare_pairs_with(
        report.per_query.with_columns(pl.col(system).cast(pl.String)),
        list(s.measures),
        s.statistics,
        by=system,
        query=report.query,
        weight=s.weight,
    )
    keys = {f"{system}_a": "system_a", f"{system}_b": "system_b"}
    return replace(report, pairs=pairs.rename(keys))


def pairs_section(report: Report) -> Section | None:
    """The section "All pairs" (with ``Settings.all_pairs``): a sentence on the tests, the
    compact letters of every measure, and the pairs of the first measure.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100, all_pairs=True)
    >>> section = pairs_section(rep)
    >>> section.title, [part.id for part in section.parts[1:]]
    ('All pairs', ['pairs-letters', 'pairs-table'])
    >>> section.parts[2].frame.select("pair", "wins", "ties", "losses", "diff").rows()
    [('b > a', 2, 0, 0, 0.5)]
    """
    pairs = report.pairs
    if not report.settings.all_pairs or pairs is None:
        return None
    first = report.settings.measures[0]
    return Section(
        "pairs",
        "All pairs",
        (
            _sentence(report),
            Table(
                "pairs-letters",
                with_short_names(letters_table(report, pairs), report.order, "system"),
                _letters_caption(report),
            ),
            Table("pairs-table", _pairs_table(report, pairs, first), _pairs_caption(report, first)),
        ),
    )


def letters_table(report: Report, pairs: pl.DataFrame) -> pl.DataFrame:
    """Per system (report order), per measure: its mean and compact letters
    (:func:`~polars_graded.stats.pairs.compact_letters` at the report's α), as text.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> letters_table(rep, rep.pairs).rows()
    [('a', '0.5000 a'), ('b', '1.0000 a')]
    """
    out = pl.DataFrame({"system": list(report.order)})
    for m in report.settings.measures:
        stats = report.settings.statistics
        letters = compact_letters(pairs, m, p_value=deciding_p(stats), alpha=stats.alpha)
        mean = pl.col("mean").map_elements(fmt, pl.String)
        cells = letters.select("system", pl.format("{} {}", mean, "letters").alias(m))
        out = out.join(cells, on="system", how="left", maintain_order="left")
    return out


def _sentence(report: Report) -> str:
    """What the section tests, with which correction and level, and what stands beside it."""
    s = report.settings
    stats = s.statistics
    n = len(report.order)
    count = n * (n - 1) // 2
    pairs = f"{count} pair{'s' * (count != 1)}"
    return (
        f"Every system against every other ({n} systems, {pairs} per measure): "
        f"{significance_test(stats, resampling(report))}, p-values "
        f"{CORRECTION_NAMES[stats.correction]} over the {pairs} of each measure, "
        f"α = {stats.alpha:g}. Beside it, the randomized Tukey HSD (Carterette 2012: one "
        "distribution of the largest difference of means, from permuting each query's "
        "values across the systems) controls the error over all pairs by itself. "
        f"polars_graded.compare_pairs gives every pair of every measure.{_floor(report)}"
    )


def _floor(report: Report) -> str:
    """A warning when Holm leaves no pair a chance: the randomization test's smallest p is
    1 / (trials + 1), so no Holm-adjusted p falls below pairs / (trials + 1)."""
    stats = report.settings.statistics
    n = len(report.order)
    floor = n * (n - 1) // 2 / (stats.trials + 1)
    if stats.test != "randomization" or stats.correction != "holm" or floor < stats.alpha:
        return ""
    if resampling(report).normal("randomization"):  # the limit has no floor of 1 / trials
        return ""
    return (
        f" With {stats.trials:,} trials no Holm-adjusted p-value can fall below "
        f"{floor:.3g}, which is not below α = {stats.alpha:g}: no pair can be significant; "
        "use more trials (--trials)."
    )


def _pairs_table(report: Report, pairs: pl.DataFrame, measure: str) -> pl.DataFrame:
    """The pairs of ``measure``, each named better mean first (``x > y``, names as the
    tables show them), grouped by ``x`` best first: wins, ties and losses of ``x``,
    ``diff = x - y`` and its interval, the tests, and whether the corrected test finds the
    pair significant."""
    rows = pairs.filter(pl.col("measure") == measure)
    swap = pl.col("diff") < 0
    flipped = {
        "first": pl.when(swap).then("system_a").otherwise("system_b"),
        "second": pl.when(swap).then("system_b").otherwise("system_a"),
        "wins": pl.when(swap).then("losses").otherwise("wins"),
        "losses": pl.when(swap).then("wins").otherwise("losses"),
        "diff": pl.col("diff").abs(),
        "diff_ci_low": pl.when(swap).then(-pl.col("diff_ci_high")).otherwise("diff_ci_low"),
        "diff_ci_high": pl.when(swap).then(-pl.col("diff_ci_low")).otherwise("diff_ci_high"),
        "d_z": pl.col("d_z").abs(),
        # x's change relative to y's mean, as compare's change_pct with y as the baseline.
        "change_pct": pl.when(swap)
        .then(100 * -pl.col("diff") / pl.col("mean_b").replace(0.0, None))
        .otherwise("change_pct"),
    }
    ranked = compact_letters(pairs, measure)["system"].to_list()  # best mean first
    rank = {name: i for i, name in enumerate(ranked)}
    out = rows.with_columns(**flipped).sort(
        pl.col("first").replace_strict(rank), pl.col("second").replace_strict(rank)
    )
    return with_short_names(out, report.order, "first", "second").select(
        pl.format("{} > {}", "first", "second").alias("pair"),
        *PAIR_COLUMNS,
        *pair_tests(report.settings.statistics.test),
        significant=pl.when("significant").then(pl.lit("yes")).otherwise(pl.lit("no")),
    )


def _letters_caption(report: Report) -> str:
    s = report.settings
    stats = s.statistics
    test = significance_test(stats, resampling(report))
    return (
        "Mean and compact letters per measure (Piepho 2004): two systems that share a letter "
        f"are not significantly different at α = {stats.alpha:g} "
        f"({test}, {CORRECTION_NAMES[stats.correction]}); a marks the "
        "best mean. "
        "polars_graded.compact_letters(pairs, measure, p_value='p_tukey') gives the letters "
        "of the Tukey HSD."
    )


def _pairs_caption(report: Report, measure: str) -> str:
    s = report.settings
    stats = s.statistics
    raw, adjusted, _ = pair_tests(stats.test)
    return (
        f"{measure}: every pair, the better mean first (x > y); wins / ties / losses: the "
        f"queries where x scores above, equal to and below y; diff = x − y with its "
        f"{stats.confidence:.0%} bootstrap interval ({stats.bootstrap:,} resamples); d_z: "
        "the mean of the per-query differences x − y over their standard deviation; "
        "change_pct: diff relative to y's mean, in percent; "
        f"{raw} and {adjusted} ({CORRECTION_NAMES[stats.correction]}); "
        f"p_tukey: the randomized Tukey HSD; significant: {adjusted} < α."
    )
