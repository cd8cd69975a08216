"""Traffic-weighted comparisons (``weight=`` of pg.compare, compare_pairs, compare_segments):
the weighted t-test is statsmodels' WLS with HC1, the weighted bootstrap is scipy's on the
same draws, the randomization test flips weighted differences, equal weights change nothing,
and bad weights are refused."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import pytest
import statsmodels.api as sm
from polars.testing import assert_frame_equal
from scipy import stats
from statsmodels.stats.weightstats import DescrStatsW

import polars_graded as pg
from polars_graded.stats.resampling import (
    bootstrap_interval,
    bootstrap_means,
    jackknife_acceleration,
    weighted_t,
)


def weighted_mean(x: np.ndarray, w: np.ndarray, axis: int = -1) -> np.ndarray:
    out: np.ndarray = (x * w).sum(axis=axis) / w.sum(axis=axis)
    return out


@pytest.mark.parametrize("seed", range(3))
def test_weighted_t_is_statsmodels_wls_hc1(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 25 + 10 * seed
    d, w = rng.normal(0.05, 0.2, n), rng.pareto(2.0, n) + 0.1
    fit = sm.WLS(d, np.ones(n), weights=w).fit(cov_type="HC1", use_t=True)
    t, p = weighted_t(d[None], w)
    assert t[0] == pytest.approx(fit.tvalues[0], rel=1e-10)
    assert p[0] == pytest.approx(fit.pvalues[0], rel=1e-9)
    assert fit.df_resid == n - 1


def test_weighted_t_one_sided_and_degenerate() -> None:
    d, w = np.array([0.1, 0.3, -0.1, 0.2]), np.array([1.0, 2.0, 1.0, 3.0])
    t, p = weighted_t(d[None], w)
    t_greater, p_greater = weighted_t(d[None], w, alternative="greater")
    assert t_greater[0] == t[0] and p_greater[0] == pytest.approx(p[0] / 2)
    assert weighted_t(np.zeros((1, 4)), w)[1].tolist() == [1.0]
    assert np.isnan(weighted_t(np.ones((1, 1)), np.ones(1))[1]).all()


def test_weighted_bca_is_scipys_on_the_same_draws() -> None:
    """The weighted jackknife acceleration and BCa bounds are scipy's for the weighted mean
    of (value, weight) pairs, resampled with the same draws."""
    rng = np.random.default_rng(6)
    x, w = rng.exponential(size=50), rng.pareto(2.0, 50) + 0.1
    means = bootstrap_means(x[None], 999, np.random.default_rng(2), w)
    ours = bootstrap_interval(
        means, (0.025, 0.975), "bca", estimate=weighted_mean(x, w)[None],
        acceleration=lambda: jackknife_acceleration(x[None], weights=w),
    )  # fmt: skip
    expected = stats.bootstrap(
        (x, w), weighted_mean, paired=True, n_resamples=999, method="BCa",
        rng=np.random.default_rng(2),
    )  # fmt: skip
    np.testing.assert_allclose(ours[:, 0], expected.confidence_interval, rtol=1e-9)


def table(n: int = 40, seed: int = 0, *, segments: bool = False) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    values = rng.random((3, n)) + np.array([[0.0], [0.04], [0.08]])
    columns: dict[str, Any] = {
        "system": np.repeat(["a", "b", "c"], n),
        "query": np.tile(np.arange(n), 3),
        "ap": values.ravel(),
        "rr": rng.random(3 * n),
        "w": np.tile(rng.pareto(2.0, n) + 0.1, 3),
    }
    if segments:
        columns["lang"] = np.tile(np.where(np.arange(n) % 3 == 0, "de", "en"), 3)
    return pl.DataFrame(columns)


def test_weighted_compare_against_references() -> None:
    """Means are numpy's weighted averages, the t-test statsmodels', d_z over statsmodels'
    weighted standard deviation (times sqrt(n / (n - 1))), the randomization test the
    sign flips of w d; p_wilcoxon is null."""
    frame = table()
    out = pg.compare(frame, ["ap"], weight="w", trials=999, bootstrap=99)
    values = frame.get_column("ap").to_numpy().reshape(3, 40)
    w = frame.get_column("w").to_numpy()[:40]
    np.testing.assert_allclose(out["mean"].to_numpy(), np.average(values, axis=1, weights=w))
    d = values[2] - values[0]
    fit = sm.WLS(d, np.ones(40), weights=w).fit(cov_type="HC1", use_t=True)
    assert out["p_ttest"][2] == pytest.approx(fit.pvalues[0], rel=1e-9)
    spread = DescrStatsW(d, weights=w, ddof=0).std * np.sqrt(40 / 39)
    assert out["d_z"][2] == pytest.approx(np.average(d, weights=w) / spread, rel=1e-10)
    assert out["p_wilcoxon"].null_count() == 3
    base = pg.compare(frame.with_columns(ap=pl.col("ap") * 0), ["ap"], weight="w")
    assert base["p_randomization"].drop_nulls().to_list() == [1.0, 1.0]


@pytest.mark.parametrize("mode", ["baseline", "all", "segment"])
def test_equal_weights_are_unweighted(mode: str) -> None:
    """Every query weighing 2.5 gives the unweighted numbers (p_wilcoxon aside)."""
    frame = table(segments=True).with_columns(w=pl.lit(2.5))
    keywords: dict[str, Any] = {"trials": 199, "bootstrap": 199, "test": "t"}
    if mode == "all":
        keywords["pairs"] = "all"
    if mode == "segment":
        keywords |= {"segment": "lang", "min_queries": 5}
    weighted = pg.compare(frame, ["ap", "rr"], weight="w", **keywords)
    plain = pg.compare(frame.drop("w"), ["ap", "rr"], **keywords)
    wilcoxon = [c for c in plain.columns if c.startswith("p_wilcoxon")]
    assert all(weighted[c].null_count() == weighted.height for c in wilcoxon)
    assert_frame_equal(weighted.drop(wilcoxon), plain.drop(wilcoxon), rel_tol=1e-9, abs_tol=1e-12)


def test_weights_move_the_mean_to_the_traffic() -> None:
    """One heavy query decides the weighted comparison, as it decides the traffic."""
    frame = pl.DataFrame(
        {
            "system": ["a"] * 3 + ["b"] * 3,
            "query": [1, 2, 3] * 2,
            "ap": [0.9, 0.1, 0.1, 0.1, 0.6, 0.6],
            "w": [100.0, 1.0, 1.0] * 2,
        }
    )
    out = pg.compare(frame, ["ap"], weight="w", trials=99, bootstrap=99)
    assert out["diff"][1] == pytest.approx((100 * -0.8 + 0.5 + 0.5) / 102)
    assert pg.compare(frame, ["ap"], trials=99, bootstrap=99)["diff"][1] > 0


def test_bad_weights_are_refused() -> None:
    frame = table(5)
    varying = frame.with_columns(
        w=pl.when((pl.col("system") == "b") & (pl.col("query") == 3)).then(9.0).otherwise("w")
    )
    with pytest.raises(
        pg.InvalidWeightError, match=r"same on every row of a query; \{'query': 3\}"
    ):
        pg.compare(varying, ["ap"], weight="w")
    with pytest.raises(pg.InvalidValueError, match="test='wilcoxon' has no weighted form"):
        pg.compare(frame, ["ap"], weight="w", test="wilcoxon")
    with pytest.raises(pg.InvalidWeightError, match="must be >= 0"):
        pg.compare(frame.with_columns(w=-pl.col("w")), ["ap"], weight="w")
    with pytest.raises(pg.MissingColumnError, match="'traffic' not found"):
        pg.compare(frame, ["ap"], weight="traffic")
    with pytest.raises(pg.InvalidValueError, match="is the weight column"):
        pg.compare(frame, ["ap", "w"], weight="w")
    # The weight is no measure by default.
    assert set(pg.compare(frame, weight="w", trials=9, bootstrap=9)["measure"]) == {"ap", "rr"}
