"""The normal limits of the resampling distributions and the plan that picks them
(polars_graded.stats.limits): each limit against exact enumeration, scipy or the Monte Carlo
it replaces; ``large_sample="resample"`` as the resampling functions give it."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import polars as pl
import pytest
from scipy import stats

import polars_graded as pg
from polars_graded.stats.grid import value_matrix
from polars_graded.stats.limits import (
    bootstrap_sd,
    normal_interval,
    normal_randomization_p,
    normal_tukey_p,
    resampling_plan,
    tukey_scale,
)
from polars_graded.stats.options import RESAMPLING_BUDGET, Statistics
from polars_graded.stats.resampling import (
    bootstrap_interval,
    bootstrap_means,
    randomization_p,
    tukey_hsd_p,
)


def exact_sign_flip_p(e: np.ndarray) -> float:
    """The two-sided sign-flip p over all ``2^n`` sign patterns of ``e``."""
    bits = (np.arange(2**e.size)[:, None] >> np.arange(e.size)) & 1
    signs = 1.0 - 2.0 * bits
    sums = np.abs(signs @ e)
    return float(np.mean(sums >= abs(e.sum()) - 1e-12))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weighted", [False, True])
def test_randomization_limit_against_enumeration(seed: int, weighted: bool) -> None:
    """n = 18 smooth (uniform) differences: the limit within 0.02 of the exact p over the
    262,144 sign patterns (p from 0.007 to 0.93 across the seeds)."""
    rng = np.random.default_rng(seed)
    d = rng.uniform(-1.0, 1.0, 18) + 0.1 * seed / 3
    w = rng.uniform(0.5, 2.0, 18) if weighted else None
    exact = exact_sign_flip_p(d if w is None else d * w)
    assert abs(normal_randomization_p(d[None], w)[0] - exact) < 0.02


def test_randomization_limit_against_monte_carlo() -> None:
    """n = 3000 queries, skewed weights: the Monte Carlo p (2,000 flips) within 4 of its
    standard errors of the limit."""
    rng = np.random.default_rng(5)
    n, trials = 3000, 2000
    d = rng.normal(0.0, 0.3, (3, n)) + np.array([[0.0], [0.006], [0.012]])
    w = rng.pareto(2.5, n) + 0.1
    for weights in (None, w):
        limit = normal_randomization_p(d, weights)
        mc = randomization_p(d, trials, np.random.default_rng(1), weights)
        error = np.sqrt(limit * (1 - limit) / trials) + 1 / trials
        assert (np.abs(mc - limit) < 4 * error).all(), (mc, limit)


def test_randomization_limit_degenerate() -> None:
    assert normal_randomization_p(np.zeros((1, 5))).tolist() == [1.0]
    one_sided = normal_randomization_p(np.array([[1.0, 1.0, 1.0, 1.0]]), alternative="greater")
    assert one_sided[0] == pytest.approx(stats.norm.sf(2.0))


@pytest.mark.parametrize("weighted", [False, True])
def test_tukey_variance_is_the_exact_permutation_variance(weighted: bool) -> None:
    """k = 3 systems, n = 4 queries: over all 6^4 within-query permutations the covariance
    of the systems' (weighted) means is c (I - J/k)."""
    rng = np.random.default_rng(3)
    values = rng.random((3, 4))
    w = rng.uniform(0.5, 3.0, 4) if weighted else np.ones(4)
    orders = list(itertools.permutations(range(3)))
    means = np.array(
        [
            sum(w[i] * values[list(order), i] for i, order in enumerate(pattern)) / w.sum()
            for pattern in itertools.product(orders, repeat=4)
        ]
    )
    covariance = np.cov(means.T, bias=True)
    c = tukey_scale(values, w if weighted else None)
    np.testing.assert_allclose(covariance, c * (np.eye(3) - 1 / 3), rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("weighted", [False, True])
def test_tukey_limit_against_monte_carlo(weighted: bool) -> None:
    """n = 2000 queries, 3 systems: the randomized Tukey HSD (2,000 trials) within 4 of its
    standard errors of the studentized-range limit."""
    rng = np.random.default_rng(11)
    n, trials = 2000, 2000
    values = rng.random((3, n)) + np.array([[0.0], [0.012], [0.03]])
    w = rng.pareto(3.0, n) + 0.2 if weighted else None
    limit = normal_tukey_p(values, w)
    mc = tukey_hsd_p(values, trials, np.random.default_rng(2), w)
    error = np.sqrt(limit * (1 - limit) / trials) + 1 / trials
    assert (np.abs(mc - limit) < 4 * error + 1e-12).all(), (mc, limit)
    assert 0.001 < limit[0, 1] < 0.9  # the test says something


def test_tukey_limit_no_variation() -> None:
    assert normal_tukey_p(np.ones((3, 5))).tolist() == np.ones((3, 3)).tolist()


def weighted_mean(x: np.ndarray, w: np.ndarray, axis: int = -1) -> np.ndarray:
    out: np.ndarray = (x * w).sum(axis=axis) / w.sum(axis=axis)
    return out


@pytest.mark.parametrize("weighted", [False, True])
def test_bootstrap_sd_is_scipys_bootstrap_spread(weighted: bool) -> None:
    """n = 1500 skewed values: the standard deviation of scipy's bootstrap distribution
    (of the mean, or of the weighted mean resampling (x, w) pairs) within 4%."""
    rng = np.random.default_rng(8)
    x = rng.exponential(size=1500)
    w = rng.pareto(2.5, 1500) + 0.1
    if weighted:
        result = stats.bootstrap(
            (x, w), weighted_mean, paired=True, n_resamples=4000, rng=np.random.default_rng(0)
        )
    else:
        result = stats.bootstrap((x,), np.mean, n_resamples=4000, rng=np.random.default_rng(0))
    ours = bootstrap_sd(x[None], w if weighted else None)[0]
    assert ours == pytest.approx(result.bootstrap_distribution.std(), rel=0.04)


def test_normal_interval_against_scipys_percentile_interval() -> None:
    """n = 4000: the normal interval within a tenth of a standard error of scipy's
    percentile bootstrap interval."""
    x = np.random.default_rng(9).beta(0.5, 2.0, 4000)
    sd = bootstrap_sd(x[None])
    ours = normal_interval(x.mean(keepdims=True), sd, (0.025, 0.975))[:, 0]
    result = stats.bootstrap(
        (x,), np.mean, n_resamples=4999, method="percentile", rng=np.random.default_rng(1)
    )
    np.testing.assert_allclose(ours, result.confidence_interval, atol=0.1 * sd[0])


def test_weighted_bootstrap_is_scipys_on_the_same_draws() -> None:
    """The weighted resample means are scipy's paired bootstrap of the weighted mean from the
    same draws, and so are the percentile bounds."""
    rng = np.random.default_rng(4)
    x, w = rng.random(60), rng.pareto(2.0, 60) + 0.1
    means = bootstrap_means(x[None], 999, np.random.default_rng(7), w)
    result = stats.bootstrap(
        (x, w), weighted_mean, paired=True, n_resamples=999, method="percentile",
        rng=np.random.default_rng(7),
    )  # fmt: skip
    np.testing.assert_allclose(means[0], result.bootstrap_distribution, rtol=1e-12)
    bounds = bootstrap_interval(
        means, (0.025, 0.975), "percentile", estimate=weighted_mean(x, w)[None],
        acceleration=lambda: np.full(1, np.nan),
    )  # fmt: skip
    np.testing.assert_allclose(bounds[:, 0], result.confidence_interval, rtol=1e-9)


def test_plan_follows_the_budget() -> None:
    """Resample up to the budget (inclusive), the limit above it; the modes force it."""
    trials = 10_000
    at_budget = RESAMPLING_BUDGET // trials
    plan = resampling_plan(at_budget, 2, Statistics())
    assert (plan.bootstrap.method, plan.randomization.method) == ("resample", "resample")
    assert plan.tukey.method == "normal"  # x 2 systems
    above = resampling_plan(at_budget + 1, 2, Statistics())
    assert above.normal("bootstrap") and above.normal("randomization")
    assert resampling_plan(10_000, 3, Statistics()).describe().count("10,000 trials") == 2
    assert not resampling_plan(10**7, 9, Statistics(large_sample="resample")).normal("tukey")
    forced = resampling_plan(5, 2, Statistics(large_sample="normal"))
    assert "asked for" in forced.randomization.describe()


def frame(n: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    values = rng.random((3, n)) + np.array([[0.0], [0.05], [0.1]])
    return pl.DataFrame(
        {
            "system": np.repeat(["a", "b", "c"], n),
            "query": np.tile(np.arange(n), 3),
            "ap": values.ravel(),
            "w": np.tile(rng.pareto(2.0, n) + 0.1, 3),
        }
    )


def test_resample_is_the_resampling_functions() -> None:
    """large_sample="resample" (and "auto" below the budget): the numbers the resampling
    functions give with the comparison's streams (the seed's children)."""
    per_query, seed = frame(30), 3
    keywords: dict[str, Any] = {"trials": 199, "bootstrap": 199, "seed": seed}
    out = pg.compare(per_query, ["ap"], large_sample="resample", **keywords)
    auto = pg.compare(per_query, ["ap"], **keywords)
    assert out.equals(auto)
    values = value_matrix(per_query, ["ap"], by="system", query="query", missing="zero")[2][0]
    boot_rng, flip_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    boot = bootstrap_means(values, 199, boot_rng)
    assert np.array_equal(out["ci_low"].to_numpy(), np.quantile(boot, (1 - 0.95) / 2, axis=1))
    p = randomization_p(values[1:] - values[:1], 199, flip_rng)
    assert np.array_equal(out["p_randomization"].to_numpy()[1:], p)


def test_normal_is_the_limits() -> None:
    per_query = frame(40)
    out = pg.compare(per_query, ["ap"], large_sample="normal")
    values = per_query.get_column("ap").to_numpy().reshape(3, 40)
    d = values[1:] - values[:1]
    np.testing.assert_allclose(out["p_randomization"].to_numpy()[1:], normal_randomization_p(d))
    low = values.mean(axis=1) - stats.norm.ppf(0.975) * bootstrap_sd(values)
    np.testing.assert_allclose(out["ci_low"].to_numpy(), low)
    pairs = pg.compare(per_query, ["ap"], pairs="all", large_sample="normal")
    np.testing.assert_allclose(
        pairs["p_tukey"].to_numpy(), normal_tukey_p(values)[[0, 0, 1], [1, 2, 2]]
    )
