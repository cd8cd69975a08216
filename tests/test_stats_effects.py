"""polars_graded/stats/effects.py: Cohen's d_z against scipy's one-sample t statistic
(``t = d_z * sqrt(n)``) and numpy, the relative change against numpy, and the rules that
turn an undefined effect into NaN rather than an infinity."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

from polars_graded.stats.effects import change_pct, cohens_dz


def test_dz_times_root_n_is_scipys_t_statistic() -> None:
    rng = np.random.default_rng(4)
    d = rng.normal(0.03, 0.2, size=(3, 5, 40))
    t = scipy.stats.ttest_1samp(d, 0.0, axis=-1).statistic
    np.testing.assert_allclose(cohens_dz(d) * np.sqrt(40), t, rtol=1e-12)
    np.testing.assert_allclose(cohens_dz(d), d.mean(-1) / d.std(-1, ddof=1), rtol=1e-13)


@pytest.mark.parametrize(
    "d",
    [
        np.zeros(5),  # identical systems
        np.full(5, 0.2),  # a constant gain: sd 0
        np.array([0.1, 0.2, 0.3]) - np.array([0.0, 0.1, 0.2]),  # 0.1 each, up to rounding
        np.array([0.4]),  # one query: no sd
    ],
)
def test_dz_without_spread_is_nan_not_infinite(d: np.ndarray) -> None:
    assert np.isnan(cohens_dz(d[None])).all()


def test_change_is_percent_of_the_baseline_mean() -> None:
    rng = np.random.default_rng(2)
    mean, base = rng.random(6), rng.random(6)
    np.testing.assert_allclose(change_pct(mean, base), (mean / base - 1) * 100, rtol=1e-12)
    out = change_pct(np.array([0.3, 0.0]), np.array([0.0, 0.0]))
    assert np.isnan(out).all()
