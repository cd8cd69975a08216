"""polars_graded/stats/wilcoxon.py: every p-value against ``scipy.stats.wilcoxon`` called on
the row alone, with scipy's defaults, on rows with and without zeros and ties, short (exact
and permutation p-values) and long (the normal approximation)."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest
import scipy.stats

from polars_graded.stats.wilcoxon import sign_flip_p, wilcoxon_p


def scipy_p(row: np.ndarray, alternative: str = "two-sided") -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(scipy.stats.wilcoxon(row, alternative=alternative).pvalue)


def rows_of(seed: int, n_rows: int, n: int, *, levels: int | None) -> np.ndarray:
    """Random differences; ``levels``: values on a grid of that many steps, so that zeros
    and ties are common (as with P@10 or a binary measure), else continuous."""
    rng = np.random.default_rng(seed)
    if levels is None:
        return rng.normal(0.05, 0.2, size=(n_rows, n))
    return rng.integers(-levels, levels + 1, size=(n_rows, n)) / levels


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
@pytest.mark.parametrize(
    ("n", "levels"),
    [(3, None), (9, None), (8, 2), (14, 3), (40, None), (40, 4), (120, None), (120, 5)],
)
def test_each_row_is_scipys_on_that_row_alone(n: int, levels: int | None, alternative: str) -> None:
    # scipy's permutation p (ties or zeros, n <= 13) takes seconds a row: few such rows.
    rows = rows_of(n, 3 if levels and n <= 13 else 6, n, levels=levels)
    ours = wilcoxon_p(rows, alternative)  # type: ignore[arg-type]
    expected = [scipy_p(row, alternative) for row in rows]
    np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=0)


def test_thirteen_differences_with_ties_are_still_counted_exactly() -> None:
    row = rows_of(13, 1, 13, levels=3)  # the largest n of scipy's permutation p
    assert wilcoxon_p(row).tolist() == [scipy_p(row[0])]


def test_rows_differing_in_zeros_get_their_own_method() -> None:
    # scipy decides exact or permutation from the whole call: one tied row must not move
    # the p-value of the clean row beside it.
    clean = np.array([0.1, -0.25, 0.3, 0.45, 0.5, 0.62, 0.7, 0.8])
    tied = np.array([0.1, 0.1, 0.0, 0.45, 0.5, 0.5, -0.7, 0.8])
    ours = wilcoxon_p(np.stack([clean, tied]))
    assert ours.tolist() == [scipy_p(clean), scipy_p(tied)]


def test_the_permutation_p_counts_every_sign_pattern() -> None:
    d = np.array([0.2, -0.2, 0.0, 0.4, 0.4, 0.1])
    nonzero = d[d != 0]
    ranks = scipy.stats.rankdata(np.abs(nonzero))
    observed = ranks[nonzero > 0].sum()
    sums = [
        sum(r for r, s in zip(ranks, signs, strict=True) if s > 0)
        for signs in np.array(np.meshgrid(*[[1, -1]] * nonzero.size)).T.reshape(-1, nonzero.size)
    ]
    exact = min(
        1.0, 2 * min(np.mean(np.array(sums) >= observed), np.mean(np.array(sums) <= observed))
    )
    assert sign_flip_p(d) == pytest.approx(exact, abs=1e-15)
    assert sign_flip_p(d) == scipy_p(d)


def test_all_zero_differences_give_one() -> None:
    rows = np.zeros((2, 7))
    rows[1, 3] = 0.5
    assert wilcoxon_p(rows).tolist() == [1.0, scipy_p(rows[1])]
    assert wilcoxon_p(np.zeros((1, 80))).tolist() == [1.0]


def test_shape_is_kept() -> None:
    rows = rows_of(1, 6, 20, levels=None).reshape(2, 3, 20)
    assert wilcoxon_p(rows).shape == (2, 3)


def test_missing_scipy_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)
    with pytest.raises(ImportError, match=r"test='wilcoxon'.*polars-graded\[stats\]"):
        wilcoxon_p(np.ones((1, 3)))
