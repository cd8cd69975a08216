"""Every system against the baseline: means, bootstrap intervals, paired tests, Holm.

:func:`compare_with` is ``pg.compare`` with its default ``pairs="baseline"`` (see
:func:`~polars_graded.stats.compare.compare` for the rules): on the grid of
:func:`~polars_graded.stats.grid.value_matrix` it computes each system's mean and its
bootstrap percentile interval, the paired mean difference from the baseline and its
interval, a paired t-test and a paired randomization (sign-flip) test
(:mod:`polars_graded.stats.resampling`), Holm–Bonferroni adjusted across the systems
(:func:`~polars_graded.stats.corrections.holm`), as the columns of
:data:`~polars_graded.stats.grid.OUTPUT_COLUMNS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from polars_graded.defaults import SYSTEM
from polars_graded.stats.corrections import holm
from polars_graded.stats.grid import value_matrix
from polars_graded.stats.options import Statistics
from polars_graded.stats.resampling import (
    bootstrap_means,
    import_ttest,
    paired_ttest,
    randomization_p,
)

_TESTS = ("t_stat", "p_ttest", "p_randomization", "p_ttest_holm", "p_randomization_holm")
"""The test columns: NaN in numpy on the baseline, null in the frame."""


def compare_with(
    per_query: pl.DataFrame | pl.LazyFrame,
    measures: Sequence[str] | None,
    statistics: Statistics,
    *,
    by: str = SYSTEM,
    query: str = "query",
    baseline: object | None = None,
) -> pl.DataFrame:
    """:func:`~polars_graded.stats.compare.compare` (every system against the baseline,
    the columns of :data:`~polars_graded.stats.grid.OUTPUT_COLUMNS`) with its options checked
    already, as ``statistics`` (its ``correction`` is not read: the baseline comparison
    uses Holm); ``by`` names one column.

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
    names, systems, values, n_missing = value_matrix(
        per_query, measures, by=by, query=query, missing=statistics.missing, baseline=baseline
    )
    columns = _statistics(values, ttest_rel, statistics)
    out = _result(columns, systems.alias(by), names, n_missing, n_queries=values.shape[2])
    significant = pl.col("p_randomization_holm") < statistics.alpha
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
    return out.with_columns(pl.col(*_TESTS).fill_nan(None))


def _statistics(
    values: np.ndarray, ttest_rel: Any, statistics: Statistics
) -> dict[str, np.ndarray]:
    """The result's value columns as (measure, system) arrays, in
    :data:`~polars_graded.stats.grid.OUTPUT_COLUMNS` order; the tests NaN on the baseline."""
    seeds = np.random.SeedSequence(statistics.seed).spawn(2)
    rng_boot, rng_flip = (np.random.default_rng(s) for s in seeds)
    mean = values.mean(axis=2)
    ci, diff_ci = _intervals(values, statistics.bootstrap, statistics.confidence, rng_boot)
    return {
        "mean": mean,
        "ci_low": ci[0],
        "ci_high": ci[1],
        "baseline_mean": np.broadcast_to(mean[:, :1], mean.shape),
        "diff": mean - mean[:, :1],
        "diff_ci_low": diff_ci[0],
        "diff_ci_high": diff_ci[1],
        **_tests(values, ttest_rel, statistics.trials, rng_flip),
    }


def _intervals(
    values: np.ndarray, bootstrap: int, confidence: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap intervals of each mean and of each paired difference from the
    baseline (0 for the baseline itself), as (low/high, measure, system)."""
    n_measures, n_systems, n_queries = values.shape
    boot = bootstrap_means(values.reshape(n_measures * n_systems, n_queries), bootstrap, rng)
    boot = boot.reshape(n_measures, n_systems, bootstrap)
    quantiles = [(1 - confidence) / 2, (1 + confidence) / 2]
    ci = np.quantile(boot, quantiles, axis=2)
    diff_ci = np.quantile(boot - boot[:, :1], quantiles, axis=2)
    diff_ci[:, :, 0] = 0.0
    return ci, diff_ci


def _tests(
    values: np.ndarray, ttest_rel: Any, trials: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """The paired tests of each system against the baseline, Holm-adjusted, as (measure,
    system) with a NaN column for the baseline (null once in the frame)."""
    n_measures, n_systems, n_queries = values.shape
    differences = values[:, 1:] - values[:, :1]
    p_flip = randomization_p(differences.reshape(-1, n_queries), trials, rng).reshape(
        n_measures, n_systems - 1
    )
    t_stat, p_t = paired_ttest(ttest_rel, values, differences)
    tests = {
        "t_stat": t_stat,
        "p_ttest": p_t,
        "p_randomization": p_flip,
        "p_ttest_holm": holm(p_t),
        "p_randomization_holm": holm(p_flip),
    }
    pad = np.full((n_measures, 1), np.nan)
    return {name: np.concatenate([pad, test], axis=1) for name, test in tests.items()}
