"""Every system against the baseline: means, bootstrap intervals, paired tests, corrected.

:func:`compare_with` is ``pg.compare`` with its default ``pairs="baseline"`` (see
:func:`~polars_graded.stats.compare.compare` for the rules): on the grid of
:func:`~polars_graded.stats.grid.value_matrix` it computes each system's mean and its
bootstrap interval (percentile or BCa), the paired mean difference from the baseline and its
interval, a paired t-test and a paired randomization (sign-flip) test
(:mod:`polars_graded.stats.resampling`), corrected across the non-baseline systems of each
measure (:func:`~polars_graded.stats.corrections.adjust`, Holm–Bonferroni by default), as the
columns of :data:`~polars_graded.stats.grid.OUTPUT_COLUMNS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from polars_graded.defaults import SYSTEM
from polars_graded.stats.corrections import adjust, adjusted_column
from polars_graded.stats.effects import change_pct, cohens_dz
from polars_graded.stats.grid import (
    P_VALUES,
    check_weighted_test,
    compared_weights,
    value_matrix,
)
from polars_graded.stats.limits import (
    ResamplingPlan,
    bootstrap_sd,
    normal_interval,
    normal_randomization_p,
    resampling_plan,
    weighted_mean,
)
from polars_graded.stats.options import BootstrapMethod, Correction, Statistics
from polars_graded.stats.resampling import (
    bootstrap_interval,
    bootstrap_means,
    import_ttest,
    jackknife_acceleration,
    paired_ttest,
    randomization_p,
)
from polars_graded.stats.wilcoxon import wilcoxon_p

_TESTS = "^(t_stat|p_.*|d_z|change_pct)$"
"""The test columns (``t_stat`` and every p-value, adjusted or not, whose names follow the
correction) and the effect sizes: NaN in numpy on the baseline or where undefined, null in
the frame."""


def compare_with(
    per_query: pl.DataFrame | pl.LazyFrame,
    measures: Sequence[str] | None,
    statistics: Statistics,
    *,
    by: str = SYSTEM,
    query: str = "query",
    baseline: object | None = None,
    weight: str | None = None,
) -> pl.DataFrame:
    """:func:`~polars_graded.stats.compare.compare` (every system against the baseline,
    the columns of :data:`~polars_graded.stats.grid.OUTPUT_COLUMNS`) with its options checked
    already, as ``statistics``; ``by`` names one column, ``weight`` the traffic weight (see
    :func:`~polars_graded.stats.compare.compare`).

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {"system": ["a", "a", "b", "b"], "query": [1, 2, 1, 2], "ap": [0.5, 1.0, 1.0, 1.0]}
    ... )
    >>> out = compare_with(per_query, None, Statistics(trials=99, bootstrap=99))
    >>> out.select("system", "diff").rows()
    [('a', 0.0), ('b', 0.25)]
    """
    ttest_rel = import_ttest()
    check_weighted_test(weight, statistics.test)
    frame = per_query.collect() if isinstance(per_query, pl.LazyFrame) else per_query
    names, systems, values, n_missing = value_matrix(
        frame,
        measures,
        baseline=baseline,
        weight=weight,
        by=by,
        query=query,
        missing=statistics.missing,
    )
    weights = compared_weights(frame, weight, by=by, query=query, missing=statistics.missing)
    columns = _statistics(values, ttest_rel, statistics, weights)
    out = _result(columns, systems.alias(by), names, n_missing, n_queries=values.shape[2])
    decides = adjusted_column(P_VALUES[statistics.test], statistics.correction)
    significant = pl.col(decides) < statistics.alpha
    return out.with_columns(significant=significant.fill_null(False))


def _result(
    columns: dict[str, np.ndarray],
    systems: pl.Series,
    names: list[str],
    n_missing: np.ndarray,
    *,
    n_queries: int,
) -> pl.DataFrame:
    """One row per (measure, system) in that order; the tests null on the baseline."""
    n_measures, n_systems = len(names), systems.len()
    out = pl.DataFrame(
        {
            systems.name: systems.gather(np.tile(np.arange(n_systems), n_measures)),
            "measure": np.repeat(np.array(names, dtype=object), n_systems).tolist(),
            "n_queries": np.full(n_measures * n_systems, n_queries, dtype=np.int64),
            "n_missing": np.tile(n_missing, n_measures).astype(np.int64),
            **{
                name: np.ascontiguousarray(v, dtype=np.float64).ravel()
                for name, v in columns.items()
            },
        },
        schema_overrides={"measure": pl.String},
    )
    return out.with_columns(pl.col(_TESTS).fill_nan(None))


def _statistics(
    values: np.ndarray,
    ttest_rel: Any,
    statistics: Statistics,
    weights: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """The result's value columns as (measure, system) arrays, in
    :data:`~polars_graded.stats.grid.OUTPUT_COLUMNS` order; the tests NaN on the baseline.
    ``weights`` (one per query) make every mean, interval and test weighted."""
    seeds = np.random.SeedSequence(statistics.seed).spawn(2)
    rng_boot, rng_flip = (np.random.default_rng(s) for s in seeds)
    plan = resampling_plan(values.shape[2], values.shape[1], statistics)
    mean = weighted_mean(values, weights)
    differences = values[:, 1:] - values[:, :1]
    ci, diff_ci = _intervals(values, statistics, rng_boot, weights, normal=plan.normal("bootstrap"))
    return {
        "mean": mean,
        "ci_low": ci[0],
        "ci_high": ci[1],
        "baseline_mean": np.broadcast_to(mean[:, :1], mean.shape),
        "diff": mean - mean[:, :1],
        "diff_ci_low": diff_ci[0],
        "diff_ci_high": diff_ci[1],
        "d_z": _pad(cohens_dz(differences, weights)),
        "change_pct": change_pct(mean, mean[:, :1]),
        **_tests(
            values, differences, ttest_rel, statistics, rng=rng_flip, weights=weights, plan=plan
        ),
    }


def _intervals(
    values: np.ndarray,
    statistics: Statistics,
    rng: np.random.Generator,
    weights: np.ndarray | None = None,
    *,
    normal: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap intervals (``statistics.bootstrap_method``) of each mean and of each paired
    difference from the baseline (0 for the baseline itself), as (low/high, measure,
    system); ``normal``: the bootstrap's normal limit
    (:func:`~polars_graded.stats.limits.normal_interval`, whatever the method)."""
    n_measures, n_systems, n_queries = values.shape
    bootstrap, confidence = statistics.bootstrap, statistics.confidence
    method: BootstrapMethod = statistics.bootstrap_method
    quantiles = [(1 - confidence) / 2, (1 + confidence) / 2]
    mean = weighted_mean(values, weights)
    if normal:
        ci = normal_interval(mean, bootstrap_sd(values, weights), quantiles)
        differences = values - values[:, :1]
        diff_ci = normal_interval(mean - mean[:, :1], bootstrap_sd(differences, weights), quantiles)
        diff_ci[:, :, 0] = 0.0
        return ci, diff_ci
    flat = values.reshape(n_measures * n_systems, n_queries)
    boot = bootstrap_means(flat, bootstrap, rng, weights).reshape(n_measures, n_systems, bootstrap)
    ci = bootstrap_interval(
        boot,
        quantiles,
        method,
        estimate=mean,
        acceleration=lambda: jackknife_acceleration(values, weights=weights),
    )
    to_baseline = (np.zeros(n_systems, dtype=np.intp), np.arange(n_systems))
    diff_ci = bootstrap_interval(
        boot - boot[:, :1],
        quantiles,
        method,
        estimate=mean - mean[:, :1],
        acceleration=lambda: jackknife_acceleration(values, to_baseline, weights),
    )
    diff_ci[:, :, 0] = 0.0
    return ci, diff_ci


def _tests(
    values: np.ndarray,
    differences: np.ndarray,
    ttest_rel: Any,
    statistics: Statistics,
    *,
    rng: np.random.Generator,
    weights: np.ndarray | None,
    plan: ResamplingPlan,
) -> dict[str, np.ndarray]:
    """The paired tests of each system against the baseline (every test of
    :data:`~polars_graded.stats.grid.P_VALUES`), each p-value then corrected across the
    non-baseline systems of each measure (a column named by
    :func:`~polars_graded.stats.corrections.adjusted_column`), as (measure, system) with a
    NaN column for the baseline (null once in the frame). The randomization test takes its
    normal limit when ``plan`` says so; with weights the Wilcoxon test is NaN (no weighted
    form)."""
    n_measures, n_systems, n_queries = values.shape
    correction: Correction = statistics.correction
    rows = differences.reshape(-1, n_queries)
    if plan.normal("randomization"):
        p_flip = normal_randomization_p(rows, weights)
    else:
        p_flip = randomization_p(rows, statistics.trials, rng, weights)
    t_stat, p_t = paired_ttest(ttest_rel, values, differences, weights)
    p_wilcoxon = wilcoxon_p(differences) if weights is None else np.full(p_t.shape, np.nan)
    p_values = {
        P_VALUES["t"]: p_t,
        P_VALUES["randomization"]: p_flip.reshape(n_measures, n_systems - 1),
        P_VALUES["wilcoxon"]: p_wilcoxon,
    }
    tests = {
        "t_stat": t_stat,
        **p_values,
        **{
            adjusted_column(name, correction): adjust(p, correction) for name, p in p_values.items()
        },
    }
    return {name: _pad(test) for name, test in tests.items()}


def _pad(test: np.ndarray) -> np.ndarray:
    """A (measure, non-baseline system) array with a NaN column for the baseline first."""
    return np.concatenate([np.full((test.shape[0], 1), np.nan), test], axis=1)
