"""The bootstrap intervals (polars_graded.stats.resampling): the percentile interval as it
was, BCa equal to ``scipy.stats.bootstrap(method="BCa")`` on the same resamples, in every
comparison that reads one."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import polars as pl
import pytest
from scipy import stats

import polars_graded as pg
from polars_graded.stats import resampling
from polars_graded.stats.gate import bootstrap_lower
from polars_graded.stats.grid import value_matrix
from polars_graded.stats.resampling import (
    bootstrap_interval,
    bootstrap_means,
    jackknife_acceleration,
)

RTOL = 1e-9
"""Ours and scipy's read the same resamples; the means differ in the last bits only (a
matrix product against scipy's ``mean``), so do the bounds."""


def skewed(seed: int, n: int) -> np.ndarray:
    """Right-skewed per-query values: RR-like (1/rank, often 0) or P@1-like (0/1)."""
    rng = np.random.default_rng(seed)
    if seed % 2:
        return (rng.random(n) < 0.15).astype(np.float64)
    ranks = rng.geometric(0.3, n)
    return np.where(rng.random(n) < 0.3, 0.0, 1.0 / ranks)


def interval(
    values: np.ndarray, means: np.ndarray, levels: tuple[float, ...], method: str
) -> np.ndarray:
    rows = np.atleast_2d(values)
    return bootstrap_interval(
        means,
        levels,
        method,  # type: ignore[arg-type]
        estimate=rows.mean(axis=1),
        acceleration=lambda: jackknife_acceleration(rows),
    )


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_bca_equals_scipy(seed: int, confidence: float) -> None:
    """One sample: the same draws (``rng.integers(0, n, (B, n))`` from the same seed) and
    the same BCa bounds as scipy."""
    x, resamples = skewed(seed, 40 + 7 * seed), 1999
    means = bootstrap_means(x[None], resamples, np.random.default_rng(seed))
    levels = ((1 - confidence) / 2, (1 + confidence) / 2)
    ours = interval(x, means, levels, "bca")[:, 0]
    expected = stats.bootstrap(
        (x,), np.mean, n_resamples=resamples, confidence_level=confidence, method="BCa",
        rng=np.random.default_rng(seed),
    )  # fmt: skip
    np.testing.assert_allclose(means[0], expected.bootstrap_distribution, rtol=1e-12)
    np.testing.assert_allclose(ours, expected.confidence_interval, rtol=RTOL)


@pytest.mark.parametrize("seed", range(4))
def test_paired_bca_equals_scipy(seed: int) -> None:
    """A paired difference: scipy resamples the pairs (``paired=True``), we the rows of
    both systems with one matrix; the same draws, the same bounds."""
    base = skewed(seed, 50)
    system = np.clip(base + np.random.default_rng(seed + 9).normal(0.05, 0.2, 50), 0, 1)
    means = bootstrap_means(np.stack([base, system]), 999, np.random.default_rng(seed))
    difference = means[1] - means[0]
    ours = bootstrap_interval(
        difference[None],
        (0.025, 0.975),
        "bca",
        estimate=np.array([system.mean() - base.mean()]),
        acceleration=lambda: jackknife_acceleration(np.stack([base, system]), PAIR),
    )[:, 0]
    expected = stats.bootstrap(
        (system, base), lambda a, b, axis: a.mean(axis) - b.mean(axis), paired=True,
        n_resamples=999, method="BCa", rng=np.random.default_rng(seed),
    )  # fmt: skip
    np.testing.assert_allclose(ours, expected.confidence_interval, rtol=RTOL)


PAIR = (np.array([0]), np.array([1]))


def test_percentile_is_numpys_quantile_bit_for_bit() -> None:
    """The default reads numpy's quantiles as before ``bootstrap_method=`` existed."""
    values = np.random.default_rng(0).random((3, 4, 30))
    means = bootstrap_means(values.reshape(12, 30), 500, np.random.default_rng(1))
    means = means.reshape(3, 4, 500)
    levels = (0.025, 0.975)
    got = bootstrap_interval(means, levels, "percentile", estimate=values.mean(2), acceleration=_no)
    assert np.array_equal(got, np.quantile(means, levels, axis=2))


def _no() -> np.ndarray:
    raise AssertionError("the percentile interval needs no acceleration")


def test_compare_intervals_percentile_unchanged_and_bca_as_scipy() -> None:
    """pg.compare's intervals: the percentile ones are the quantiles of the resampled
    means exactly as before; the BCa ones are scipy's from the same draws (the bootstrap
    stream is the first child of the seed)."""
    rng = np.random.default_rng(4)
    n, resamples, seed = 45, 400, 7
    values = {"a": skewed(1, n), "b": skewed(3, n), "c": skewed(2, n)}
    frame = pl.DataFrame(
        {
            "system": [s for s in values for _ in range(n)],
            "query": list(range(n)) * 3,
            "rr": np.concatenate(list(values.values())),
            "ap": rng.random(3 * n),
        }
    )
    keywords: dict[str, Any] = {"trials": 9, "bootstrap": resamples, "seed": seed}
    percentile = pg.compare(frame, ["rr"], **keywords)
    bca = pg.compare(frame, ["rr"], bootstrap_method="bca", **keywords)

    def draws() -> np.random.Generator:
        return np.random.default_rng(np.random.SeedSequence(seed).spawn(2)[0])

    # The lines of baseline._intervals before bootstrap_method, on the same grid.
    grid = value_matrix(frame, ["rr"], by="system", query="query", missing="zero")[2]
    boot = bootstrap_means(grid.reshape(3, n), resamples, draws()).reshape(1, 3, resamples)
    quantiles = [(1 - 0.95) / 2, (1 + 0.95) / 2]
    before = np.quantile(boot, quantiles, axis=2)
    before_diff = np.quantile(boot - boot[:, :1], quantiles, axis=2)
    assert np.array_equal(percentile.select("ci_low", "ci_high").to_numpy().T, before[:, 0])
    got = percentile.select("diff_ci_low", "diff_ci_high").to_numpy().T
    assert np.array_equal(got[:, 1:], before_diff[:, 0, 1:])
    for i, x in enumerate(values.values()):
        expected = stats.bootstrap((x,), np.mean, n_resamples=resamples, method="BCa", rng=draws())
        row = bca.row(i, named=True)
        np.testing.assert_allclose(
            [row["ci_low"], row["ci_high"]], expected.confidence_interval, rtol=RTOL
        )
        if i:
            paired = stats.bootstrap(
                (x, values["a"]), lambda a, b, axis: a.mean(axis) - b.mean(axis),
                paired=True, n_resamples=resamples, method="BCa", rng=draws(),
            )  # fmt: skip
            got_diff = [row["diff_ci_low"], row["diff_ci_high"]]
            np.testing.assert_allclose(got_diff, paired.confidence_interval, rtol=RTOL)
    assert bca.select("mean", "diff", "p_randomization").equals(
        percentile.select("mean", "diff", "p_randomization")
    )


def test_pairs_and_segments_read_bca() -> None:
    """All pairs: each pair's difference interval is scipy's paired BCa (the bootstrap
    stream is the first of three children of the seed); segments pass it on."""
    n, resamples, seed = 40, 300, 2
    values = {"a": skewed(1, n), "b": skewed(3, n), "c": skewed(5, n)}
    frame = pl.DataFrame(
        {
            "system": [s for s in values for _ in range(n)],
            "query": list(range(n)) * 3,
            "lang": ["en", "de"] * (n // 2) * 3,
            "p1": np.concatenate(list(values.values())),
        }
    )
    keywords: dict[str, Any] = {
        "trials": 9,
        "bootstrap": resamples,
        "seed": seed,
        "bootstrap_method": "bca",
    }
    pairs = pg.compare_pairs(frame.drop("lang"), **keywords)
    for row in pairs.iter_rows(named=True):
        first, second = values[row["system_a"]], values[row["system_b"]]
        expected = stats.bootstrap(
            (second, first), lambda a, b, axis: a.mean(axis) - b.mean(axis), paired=True,
            n_resamples=resamples, method="BCa",
            rng=np.random.default_rng(np.random.SeedSequence(seed).spawn(3)[0]),
        )  # fmt: skip
        got = [row["diff_ci_low"], row["diff_ci_high"]]
        np.testing.assert_allclose(got, expected.confidence_interval, rtol=RTOL)
    segments = pg.compare(frame, segment="lang", min_queries=2, **keywords)
    english = frame.filter(pl.col("lang") == "en").drop("lang")
    alone = pg.compare(english, **keywords)
    shown = segments.filter(pl.col("lang") == "en").select("ci_low", "ci_high", "diff_ci_low")
    assert shown.equals(alone.select("ci_low", "ci_high", "diff_ci_low"))


@pytest.mark.parametrize("seed", range(3))
def test_gate_bca_lower_bound_equals_scipy(seed: int) -> None:
    d = skewed(seed, 60) - skewed(seed + 10, 60)
    expected = stats.bootstrap(
        (d,), np.mean, n_resamples=999, confidence_level=0.95, alternative="greater",
        method="BCa", rng=np.random.default_rng(seed),
    )  # fmt: skip
    got = bootstrap_lower(d, 0.05, 999, seed, "bca")
    assert got == pytest.approx(expected.confidence_interval.low, rel=RTOL)
    # The percentile bound is still the alpha quantile of the same means.
    percentile = np.quantile(expected.bootstrap_distribution, 0.05)
    assert bootstrap_lower(d, 0.05, 999, seed) == pytest.approx(percentile, rel=1e-12)


def test_gate_passes_the_method() -> None:
    rng = np.random.default_rng(0)
    table = pl.DataFrame(
        {
            "system": ["a"] * 80 + ["b"] * 80,
            "query": [q for q in range(40) for _ in range(2)] * 2,
            "item": ["x", "y"] * 80,
            "score": rng.random(160),
            "relevance": (rng.random(160) < 0.3).astype(int),
        }
    )
    keywords: dict[str, Any] = {
        "baseline": "a",
        "candidate": "b",
        "max_drop": 0.1,
        "bootstrap": 300,
    }
    plain = pg.gate(table, ["rr"], **keywords).table
    bca = pg.gate(table, ["rr"], bootstrap_method="bca", **keywords).table
    assert plain["p_value"].equals(bca["p_value"])
    grid = pg.evaluate(table, ["rr"], by="system").sort("system", "query")
    d = grid.filter(pl.col("system") == "b")["rr"].to_numpy()
    d = d - grid.filter(pl.col("system") == "a")["rr"].to_numpy()
    assert bca["lower"][0] == bootstrap_lower(d, 0.05, 300, 0, "bca")
    assert plain["lower"][0] == bootstrap_lower(d, 0.05, 300, 0)


def test_acceleration_is_the_jackknife() -> None:
    """The closed form equals the jackknife's definition (Efron and Tibshirani 1993, eq.
    14.15) computed from the n leave-one-out means; pairs are chunked alike."""
    values = np.random.default_rng(3).exponential(size=(4, 25))
    loo = (values.sum(axis=1, keepdims=True) - values) / (values.shape[1] - 1)
    u = loo.mean(axis=1, keepdims=True) - loo
    expected = (u**3).sum(axis=1) / (6 * ((u**2).sum(axis=1)) ** 1.5)
    np.testing.assert_allclose(jackknife_acceleration(values), expected, rtol=1e-10)
    first, second = np.array([0, 0, 1, 2]), np.array([1, 3, 2, 3])
    differences = values[second] - values[first]
    np.testing.assert_allclose(
        jackknife_acceleration(values, (first, second)),
        jackknife_acceleration(differences),
        rtol=1e-12,
    )


def test_acceleration_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    values = np.random.default_rng(6).random((2, 5, 30))
    pairs = (np.array([0, 0, 1, 3]), np.array([1, 2, 4, 4]))
    whole = jackknife_acceleration(values, pairs)
    monkeypatch.setattr(resampling, "CHUNK_ELEMENTS", 40)  # one row a chunk
    assert np.array_equal(jackknife_acceleration(values, pairs), whole)
    assert whole.shape == (2, 4)


@pytest.mark.parametrize(
    ("values", "means"),
    [
        # Every value equal: no spread, the acceleration is 0/0.
        (np.full(10, 0.5), np.full(50, 0.5)),
        # Every resample above the estimate: z0 is -inf.
        (np.array([0.0, 1.0, 1.0, 1.0]), np.linspace(0.8, 1.0, 50)),
    ],
)
def test_undefined_bca_keeps_the_percentile_levels(values: np.ndarray, means: np.ndarray) -> None:
    """Where scipy's BCa is NaN, the interval is the percentile one: never NaN."""
    bca = interval(values, means[None], (0.025, 0.975), "bca")
    assert np.array_equal(bca, interval(values, means[None], (0.025, 0.975), "percentile"))


def test_compare_bca_on_identical_systems_has_no_nan() -> None:
    frame = pl.DataFrame({"system": ["a"] * 5 + ["b"] * 5, "query": list(range(5)) * 2,
                          "v": [0.0, 1, 0, 1, 1] * 2})  # fmt: skip
    out = pg.compare(frame, trials=9, bootstrap=50, bootstrap_method="bca")
    intervals = out.select(pl.col("^.*ci_.*$"))
    assert not intervals.select(pl.all().is_nan().any()).row(0).count(True)
    assert out["diff_ci_low"].to_list() == [0.0, 0.0]


def test_bca_without_scipy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy.special", None)
    with pytest.raises(ImportError, match=r'bootstrap_method="bca" needs scipy.*\[stats\]'):
        interval(np.arange(4.0), np.ones((1, 9)), (0.05, 0.95), "bca")


def test_unknown_method() -> None:
    with pytest.raises(pg.InvalidValueError, match="'percentile' or 'bca', got 'basic'"):
        interval(np.arange(4.0), np.ones((1, 9)), (0.05, 0.95), "basic")
    frame = pl.DataFrame({"system": ["a", "b"], "query": [1, 1], "v": [0.0, 1.0]})
    with pytest.raises(pg.InvalidValueError, match="did you mean 'bca'"):
        pg.compare(frame, bootstrap_method="BCa")  # type: ignore[arg-type]
