"""``pg.compare``, the public door of the comparison of systems: its options checked, then
one of three comparisons.

:func:`compare` takes the per-query table of ``pg.evaluate(table, measures, by="system")``
and says, per measure, how the systems differ and whether the difference is more than
chance. It checks the options once (:class:`~polars_graded.stats.options.Statistics`) and
dispatches:

- ``pairs="baseline"`` (default): every system against the baseline
  (:func:`~polars_graded.stats.baseline.compare_with`);
- ``pairs="all"``: every pair of systems (:func:`~polars_graded.stats.pairs.compare_pairs_with`);
- ``segment=``: every system against the baseline within each segment of the queries
  (:func:`~polars_graded.stats.segments.compare_segments_with`).

The pieces they share live beside it: the grid of systems x queries and the missing-query
policy (:mod:`polars_graded.stats.grid`), the bootstrap and the paired tests
(:mod:`polars_graded.stats.resampling`) and the corrections across tests
(:mod:`polars_graded.stats.corrections`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, get_args

import polars as pl

from polars_graded.defaults import PAIRS, SYSTEM
from polars_graded.errors import InvalidValueError
from polars_graded.frames import Table, as_polars
from polars_graded.stats.baseline import compare_with
from polars_graded.stats.grid import by_column
from polars_graded.stats.options import (
    DEFAULTS,
    BootstrapMethod,
    Correction,
    LargeSample,
    MissingPolicy,
    Statistics,
    Test,
)
from polars_graded.stats.pairs import compare_pairs_with
from polars_graded.stats.resampling import import_ttest
from polars_graded.stats.segments import compare_segments_with

Pairs = Literal["baseline", "all"]
"""Which pairs of systems :func:`compare` tests: each against the baseline, or all."""
PAIR_CHOICES: tuple[str, ...] = get_args(Pairs)


def compare(
    per_query: Table,
    measures: Sequence[str] | None = None,
    *,
    by: str | Sequence[str] = SYSTEM,
    query: str = "query",
    baseline: object | None = None,
    missing: MissingPolicy = DEFAULTS.missing,
    trials: int = DEFAULTS.trials,
    bootstrap: int = DEFAULTS.bootstrap,
    confidence: float = DEFAULTS.confidence,
    alpha: float = DEFAULTS.alpha,
    seed: int = DEFAULTS.seed,
    system: str | None = None,
    pairs: Pairs = PAIRS,
    correction: Correction = DEFAULTS.correction,
    bootstrap_method: BootstrapMethod = DEFAULTS.bootstrap_method,
    test: Test = DEFAULTS.test,
    segment: str | Sequence[str] | None = None,
    min_queries: int | None = None,
    weight: str | None = None,
    large_sample: LargeSample = DEFAULTS.large_sample,
) -> pl.DataFrame:
    """Compare every system with a baseline, per measure, with paired significance tests.

    Parameters
    ----------
    per_query
        One row per (system, query) and one numeric column per measure: the output of
        ``pg.evaluate(table, measures, by="system")``. A LazyFrame is collected; a pandas
        DataFrame or an Arrow table is converted
        (:func:`~polars_graded.frames.as_polars`).
    measures
        The value columns to compare (names, or measure objects whose ``str`` is the name).
        Default: every column but ``system`` and ``query``, in the frame's order.
    by, query
        Names of the key columns: the one that names the systems
        (:func:`~polars_graded.stats.grid.by_column`), and
        the query's.
    baseline
        The system (a value of ``by``) to compare with. Default: the first in sorted order
        (:func:`~polars_graded.stats.grid.order_systems`).
    missing
        Which queries are compared when systems do not all have the same ones:

        - ``"zero"`` (default): the union of every system's queries; a query a system lacks
          scores 0 for it, as ``trec_eval -c`` scores a query the run did not answer.
        - ``"common"``: only the queries every system has.

        Either way ``n_missing`` counts, per system, the queries of the union it lacks
        (see :func:`~polars_graded.stats.grid.compared_queries`).
    trials
        Random sign flips of the randomization test.
    bootstrap
        Bootstrap resamples (of queries, with replacement) for the intervals.
    confidence
        Coverage of the intervals, in (0, 1).
    alpha
        Level at which ``significant`` is set, on the corrected p-value of ``test``.
    seed
        Seeds the signs and the resamples; the same call gives the same numbers.
    system
        Deprecated alias of ``by`` (a :class:`DeprecationWarning`).
    pairs
        ``"baseline"`` (default): every system against the baseline, as described here.
        ``"all"``: every system against every other, the result of
        :func:`polars_graded.stats.pairs.compare_pairs` with these options (no
        ``baseline``).
    correction
        The multiple-testing correction (:func:`~polars_graded.stats.corrections.adjust`):
        ``"bonferroni"``, ``"holm"`` (Holm–Bonferroni, the default of every comparison),
        ``"holm-sidak"``, ``"bh"`` (Benjamini–Hochberg) or ``"none"``. Its family: against
        the baseline, the non-baseline systems of each measure (per test); with
        ``pairs="all"``, the pairs of each measure; with ``segment=``, the tested segments x
        the non-baseline systems of each measure. Measures are never pooled.
    bootstrap_method
        How the intervals are read from the bootstrap resamples: ``"percentile"`` (default)
        or ``"bca"``, bias-corrected and accelerated, as ``scipy.stats.bootstrap(...,
        method="BCa")`` (:func:`~polars_graded.stats.resampling.bootstrap_interval`); better
        coverage for skewed measures (RR, P@1).
    test
        The paired two-sided test that decides ``significant`` (and so the report's marks
        and letters): ``"randomization"`` (default, the sign-flip test below), ``"t"``
        (``scipy.stats.ttest_rel``) or ``"wilcoxon"`` (the signed-rank test,
        ``scipy.stats.wilcoxon``). Every test's p-value is computed whatever the choice
        (the columns do not change); the choice only says which one decides.
    segment, min_queries
        The column(s) that put each query in a segment, and the fewest queries a tested
        segment has: the result of :func:`polars_graded.stats.segments.compare_segments` with
        these options (default ``min_queries`` there).
    weight
        A column of traffic weights (impressions, sessions, revenue): one number per query,
        the same on every row of the query for every system (else an error naming the
        query), at least 0, not 0 for every query
        (:func:`~polars_graded.weights.check_weights`). Every mean, interval, test and effect
        size is then traffic-weighted (see Notes); ``p_wilcoxon`` is null (the signed-rank
        test has no weighted form) and ``test="wilcoxon"`` is an error. ``n_queries`` still
        counts queries. Default: every query weighs the same.
    large_sample
        ``"auto"`` (default): each resampling procedure (the bootstrap intervals, the
        randomization test, the randomized Tukey HSD of ``pairs="all"``) resamples while it
        costs at most :data:`~polars_graded.stats.options.RESAMPLING_BUDGET` draws (queries
        x draws), else takes its normal limit; ``"resample"``: always resample (the
        numbers of earlier releases); ``"normal"``: always the limit
        (:mod:`polars_graded.stats.limits`; :func:`~polars_graded.stats.limits.resampling_plan`
        says which was taken).

    Returns
    -------
    DataFrame
        A Polars DataFrame, whatever the input's kind.
        One row per (system, measure): by measure in the given order, then the baseline,
        then the other systems in sorted order. Columns:

        - the system column, named ``by`` (the input's dtype), ``measure`` (String);
        - ``n_queries`` (Int64): queries compared; ``n_missing`` (Int64): queries of the
          union of all systems' queries that this system lacks;
        - ``mean``, ``ci_low``, ``ci_high``: the system's mean over the compared queries and
          its bootstrap interval (``bootstrap_method``);
        - ``baseline_mean``; ``diff`` = ``mean - baseline_mean``; ``diff_ci_low``,
          ``diff_ci_high``: bootstrap interval of the paired mean difference (each
          resample draws the same queries for the system and the baseline);
        - ``d_z``: Cohen's d_z, the effect size ``mean(d) / sd(d)`` of the paired per-query
          differences ``d`` (``ddof=1``), null where the differences do not vary (below);
          ``change_pct``: the relative change in percent,
          ``100 * (mean - baseline_mean) / baseline_mean``, null when ``baseline_mean`` is 0;
        - ``t_stat``, ``p_ttest``: paired two-sided t-test (``scipy.stats.ttest_rel``);
        - ``p_randomization``: paired two-sided randomization test (below);
        - ``p_wilcoxon``: paired two-sided Wilcoxon signed-rank test (below);
        - ``p_ttest_holm``, ``p_randomization_holm``: corrected across the non-baseline
          systems, per measure and per test; named after ``correction``
          (:func:`~polars_graded.stats.corrections.adjusted_column`: ``p_ttest_bonferroni``,
          ``p_randomization_holm_sidak``, ``p_randomization_bh``, ``p_randomization_none``
          ...), so a frame says how it was corrected; ``p_wilcoxon_holm`` likewise;
        - ``significant`` (Boolean): the corrected p-value of ``test`` ``< alpha``
          (``p_randomization_holm < alpha`` by default).

        Every float column is Float64. Baseline rows have ``diff`` and its interval 0.0,
        null tests and ``significant`` false.

    Notes
    -----
    **Randomization test.** Under the null hypothesis the sign of each per-query difference
    ``d_q = x_q - baseline_q`` is arbitrary. Each trial flips the signs at random (one
    sign matrix shared by all systems and measures); with ``k`` the number of trials whose
    ``|mean of flipped d|`` is at least ``|mean d|`` (ties within ``1e-9 * sum |d|``
    included, so that rounding does not decide them),
    ``p = (1 + k) / (1 + trials)``: the observed signs count as one of the arrangements, so
    p is never 0 and the test is valid at any number of trials.

    **Intervals.** Percentile bootstrap: the ``(1 - confidence) / 2`` and
    ``(1 + confidence) / 2`` quantiles (numpy's linear interpolation) of the mean over
    ``bootstrap`` resamples of the compared queries. One resample matrix serves every
    system and measure, so the difference interval is paired. ``bootstrap_method="bca"``
    moves both quantile levels by the bias and the skew of the resampled means (BCa, its
    jackknife acceleration in closed form for a mean), as ``scipy.stats.bootstrap``
    computes it from the same resamples.

    **Normal limits** (``large_sample``). On many queries each resampling distribution is
    normal to well within the Monte Carlo error of its draws, and its mean and variance are
    known: the sign-flip sum ``Σ s_i d_i`` has variance ``Σ d_i²``, so
    ``p = 2 (1 - Φ(|Σ d| / √Σ d²))``; the bootstrap mean has standard deviation
    ``√Σ (x - x̄)² / n``, so the interval is ``mean ± z sd`` (BCa included: its corrections
    vanish in the limit). See :mod:`polars_graded.stats.limits` for the derivations and
    the Tukey HSD's.

    **Traffic weights** (``weight``). The queries stay the sampled units, drawn
    independently; the weights are fixed traffic, not frequency weights (a query asked a
    million times is still one observation), and the null hypothesis of every test is on the
    traffic-weighted mean ``Σ w v / Σ w``. The bootstrap resamples queries and takes the
    weighted mean of each resample; the randomization test flips the signs of ``w_i d_i``;
    the t-test divides the weighted mean difference by its linearization (HC1 sandwich)
    standard error, ``n - 1`` degrees of freedom (statsmodels' ``WLS(d, 1,
    weights=w).fit(cov_type="HC1", use_t=True)``); ``d_z`` is the weighted mean difference
    over the weighted standard deviation (``n / (n - 1)`` factor); ``change_pct`` compares
    weighted means. Equal weights give the unweighted numbers.

    **Holm.** Per measure and test, the ``m`` non-baseline p-values sorted ascending
    ``p_(1) <= ... <= p_(m)`` become ``min(1, max_{j <= i} (m - j + 1) p_(j))``; the other
    corrections are those of statsmodels' ``multipletests``, and a NaN p-value (a t-test
    on one query) stays out of the family.

    **Wilcoxon signed-rank test.** ``scipy.stats.wilcoxon(d)`` on the paired differences of
    the compared queries (so ``missing`` decides them, as for every test), two-sided, with
    scipy's defaults: a query with ``d = 0`` is dropped (``zero_method="wilcox"``), tied
    ``|d|`` share their average rank, and ``method="auto"``: the exact distribution for at
    most 50 queries without zeros or ties, an exact permutation over the ``2^n`` sign
    patterns for at most 13 queries with some, else the normal approximation (tie-corrected,
    no continuity correction); :func:`~polars_graded.stats.wilcoxon.wilcoxon_p`.

    **Effect sizes.** ``d_z = mean(d) / sd(d)`` with ``sd`` the sample standard deviation
    (``ddof=1``) of the per-query differences, so ``|d_z| * sqrt(n)`` is the paired t
    statistic. It is null with fewer than two queries or when ``sd`` is at most ``1e-9``
    times the largest ``|d|`` (all differences equal up to rounding: the ratio would be
    infinite), so on the baseline's rows too. ``change_pct`` is null when the baseline's
    mean is 0, and 0.0 on the baseline's rows otherwise
    (:mod:`polars_graded.stats.effects`).

    **Degenerate cases.** When every difference is 0 (a system identical to the baseline on
    the compared queries) scipy's t-test is 0/0; it is reported as ``t_stat`` 0.0 and
    ``p_ttest`` 1.0, and the randomization and Wilcoxon p-values are 1.0 (every flip ties;
    no non-zero difference to rank). Constant non-zero differences keep scipy's values
    (``t_stat`` ±inf, ``p_ttest`` 0.0). With fewer than two compared queries the t-test is
    undefined: ``t_stat`` and ``p_ttest`` (and its Holm column) are null.

    Raises
    ------
    MissingColumnError
        ``by``, ``query`` or a measure column is absent.
    ColumnTypeError
        A measure column is not numeric, or ``per_query`` is not a table (a list, a dict:
        :data:`~polars_graded.frames.ACCEPTED` says what is).
    DuplicateKeyError
        A (``by``, ``query``) pair occurs twice.
    InvalidValueError
        Null keys, null/NaN/infinite values, an unknown baseline, fewer than two systems,
        no common query (``missing="common"``), or bad ``missing``, ``trials``,
        ``bootstrap`` (each at most
        :data:`~polars_graded.stats.options.MAX_RESAMPLES`, and the bootstrap means at most
        :data:`~polars_graded.stats.resampling.MAX_BOOTSTRAP_MEANS`), ``confidence``,
        ``alpha``, ``seed`` (an integer >= 0) or ``test`` (the message lists the choices).
    ImportError
        scipy is not installed.

    Examples
    --------
    System b beats a by 0.1 on three of four queries; the exact randomization p over the
    2^4 sign patterns is 4/16 = 0.25, which 1,000 trials estimate:

    >>> import polars as pl
    >>> from polars_graded.stats.compare import compare
    >>> per_query = pl.DataFrame({
    ...     "system": ["a"] * 4 + ["b"] * 4,
    ...     "query": [1, 2, 3, 4] * 2,
    ...     "ap": [0.2, 0.4, 0.1, 0.5, 0.3, 0.6, 0.2, 0.5],
    ... })
    >>> out = compare(per_query, trials=1000, bootstrap=1000)
    >>> out.select("system", "measure", "mean", "diff", "p_randomization", "significant")
    shape: (2, 6)
    ┌────────┬─────────┬──────┬──────┬─────────────────┬─────────────┐
    │ system ┆ measure ┆ mean ┆ diff ┆ p_randomization ┆ significant │
    │ ---    ┆ ---     ┆ ---  ┆ ---  ┆ ---             ┆ ---         │
    │ str    ┆ str     ┆ f64  ┆ f64  ┆ f64             ┆ bool        │
    ╞════════╪═════════╪══════╪══════╪═════════════════╪═════════════╡
    │ a      ┆ ap      ┆ 0.3  ┆ 0.0  ┆ null            ┆ false       │
    │ b      ┆ ap      ┆ 0.4  ┆ 0.1  ┆ 0.246753        ┆ false       │
    └────────┴─────────┴──────┴──────┴─────────────────┴─────────────┘
    """
    frame = as_polars(per_query, "compare")
    by = by_column(by, system)
    options = (missing, trials, bootstrap, confidence, alpha, seed, correction)
    statistics = Statistics(
        *options, test=test, bootstrap_method=bootstrap_method, large_sample=large_sample
    )
    import_ttest()  # before the work: a missing scipy is found at once
    keys = {"by": by, "query": query, "baseline": baseline, "weight": weight}
    if segment is not None or min_queries is not None:
        return _by_segment(
            frame,
            measures,
            segment=segment,
            min_queries=min_queries,
            pairs=pairs,
            keys=keys,
            statistics=statistics,
        )
    if pairs != "baseline":
        return _all_pairs(frame, measures, pairs, keys=keys, statistics=statistics)
    return compare_with(
        frame, measures, statistics, by=by, query=query, baseline=baseline, weight=weight
    )


def _all_pairs(
    per_query: pl.DataFrame | pl.LazyFrame,
    measures: Sequence[str] | None,
    pairs: object,
    *,
    keys: dict[str, Any],
    statistics: Statistics,
) -> pl.DataFrame:
    """``compare(pairs="all")``: the choices checked, then
    :func:`~polars_graded.stats.pairs.compare_pairs_with`."""
    if pairs not in PAIR_CHOICES:
        choices = " or ".join(map(repr, PAIR_CHOICES))
        msg = f"pairs must be {choices}, got {pairs!r}"
        raise InvalidValueError(msg)
    baseline = keys["baseline"]
    if baseline is not None:
        msg = f"pairs='all' compares every pair of systems; drop baseline={baseline!r}"
        raise InvalidValueError(msg)
    return compare_pairs_with(
        per_query, measures, statistics, by=keys["by"], query=keys["query"], weight=keys["weight"]
    )


def _by_segment(
    per_query: pl.DataFrame | pl.LazyFrame,
    measures: Sequence[str] | None,
    *,
    segment: str | Sequence[str] | None,
    min_queries: int | None,
    pairs: object,
    keys: dict[str, Any],
    statistics: Statistics,
) -> pl.DataFrame:
    """``compare(segment=...)``: the choices checked, then
    :func:`~polars_graded.stats.segments.compare_segments_with`."""
    if segment is None:
        msg = f"min_queries={min_queries!r} needs segment=, the column(s) of the segments"
        raise InvalidValueError(msg)
    if pairs != "baseline":
        msg = "segment= compares each system with the baseline per segment; drop pairs='all'"
        raise InvalidValueError(msg)
    if min_queries is not None:  # else compare_segments' default
        keys = {**keys, "min_queries": min_queries}
    return compare_segments_with(per_query, measures, statistics, segment=segment, **keys)
