"""The normal limits of the resampling distributions, and the plan that chooses them.

On a log of 200,000 queries 10,000 sign flips cost 2e9 draws, yet the flip distribution is
then normal to far better than the Monte Carlo error of those flips. Each resampling
procedure of :mod:`polars_graded.stats.resampling` has a normal (central-limit) limit whose
mean and variance are known in closed form, exact as the number of queries grows, O(queries)
to compute and with no random draw:

- the sign-flip randomization test (:func:`normal_randomization_p`);
- the bootstrap of a (weighted) mean (:func:`bootstrap_sd`, :func:`normal_interval`);
- the randomized Tukey HSD (:func:`normal_tukey_p`).

:func:`resampling_plan` is the one place that decides, per procedure, whether a comparison
resamples or takes the limit (``Statistics.large_sample`` and
:data:`~polars_graded.stats.options.RESAMPLING_BUDGET`); the comparisons and the report call it,
and :meth:`ResamplingPlan.describe` says what was done in words.

Weights ``w`` (one per query, traffic: :mod:`polars_graded.weights`) enter every formula as
the resampling procedures use them: the statistic is the weighted mean ``Σ w x / Σ w``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np

from polars_graded.stats.options import RESAMPLING_BUDGET, Statistics

Procedure = Literal["bootstrap", "randomization", "tukey"]
"""The resampling procedures of a comparison."""
Method = Literal["resample", "normal"]
"""How a procedure is computed: Monte Carlo draws, or the normal limit."""

_NAMES: Final[dict[str, tuple[str, str, str]]] = {
    # procedure: (its name, its draws, its normal limit)
    "bootstrap": ("bootstrap intervals", "resamples", "normal limit of the bootstrap"),
    "randomization": (
        "randomization test",
        "trials",
        "normal limit of the sign-flip distribution",
    ),
    "tukey": (
        "randomized Tukey HSD",
        "trials",
        "normal limit of the permutation distribution (studentized range)",
    ),
}


@dataclass(frozen=True)
class Choice:
    """How one procedure of a comparison is computed.

    Attributes
    ----------
    procedure
        ``"bootstrap"``, ``"randomization"`` or ``"tukey"``.
    method
        ``"resample"`` (Monte Carlo, ``draws`` of them) or ``"normal"`` (the limit).
    draws
        The resamples or trials the options ask for (``bootstrap`` or ``trials``).
    cost
        Random draws resampling would take: queries x draws (x systems for Tukey).
    n_queries
        The compared queries.
    forced
        The method was asked for (``large_sample`` ``"resample"`` or ``"normal"``), not
        chosen by the budget.
    """

    procedure: Procedure
    method: Method
    draws: int
    cost: int
    n_queries: int
    forced: bool

    def describe(self) -> str:
        """One sentence for humans: which method and why.

        Examples
        --------
        >>> plan = resampling_plan(200_000, 3, Statistics())
        >>> plan.randomization.describe()
        'randomization test: normal limit of the sign-flip distribution (200,000 queries; \
10,000 trials would cost 2.0e+09 draws)'
        >>> resampling_plan(50, 3, Statistics()).bootstrap.describe()
        'bootstrap intervals: 10,000 resamples (50 queries)'
        """
        name, draws, limit = _NAMES[self.procedure]
        if self.method == "resample":
            return f"{name}: {self.draws:,} {draws} ({self.n_queries:,} queries)"
        why = (
            "asked for with large_sample='normal'"
            if self.forced
            else f"{self.draws:,} {draws} would cost {self.cost:.1e} draws"
        )
        return f"{name}: {limit} ({self.n_queries:,} queries; {why})"


@dataclass(frozen=True)
class ResamplingPlan:
    """How each resampling procedure of a comparison is computed
    (:func:`resampling_plan`).

    Examples
    --------
    >>> plan = resampling_plan(10_000, 3, Statistics())
    >>> plan.bootstrap.method, plan.randomization.method, plan.tukey.method
    ('resample', 'resample', 'resample')
    """

    bootstrap: Choice
    randomization: Choice
    tukey: Choice

    def normal(self, procedure: Procedure) -> bool:
        """Whether ``procedure`` takes the normal limit.

        Examples
        --------
        >>> resampling_plan(10, 2, Statistics(large_sample="normal")).normal("tukey")
        True
        """
        choice: Choice = getattr(self, procedure)
        return choice.method == "normal"

    def describe(self) -> str:
        """The three choices, one sentence each, joined by ``"; "``.

        Examples
        --------
        >>> print(resampling_plan(20, 2, Statistics(trials=99, bootstrap=99)).describe())
        bootstrap intervals: 99 resamples (20 queries); randomization test: 99 trials (20 \
queries); randomized Tukey HSD: 99 trials (20 queries)
        """
        return "; ".join(c.describe() for c in (self.bootstrap, self.randomization, self.tukey))


def resampling_plan(n_queries: int, n_systems: int, statistics: Statistics) -> ResamplingPlan:
    """Per procedure, resample or take the normal limit: the one decision every comparison
    (and the report, which says it in words) reads.

    ``statistics.large_sample`` ``"resample"`` or ``"normal"`` decides for all three;
    ``"auto"`` resamples a procedure while its cost, ``n_queries`` x draws (``bootstrap``
    resamples, or ``trials``; x ``n_systems`` for the Tukey HSD, whose draws are
    permutations of every query's systems), is at most
    :data:`~polars_graded.stats.options.RESAMPLING_BUDGET`, else takes the limit.

    Examples
    --------
    >>> plan = resampling_plan(200_000, 3, Statistics())
    >>> plan.bootstrap.method, plan.bootstrap.cost
    ('normal', 2000000000)
    >>> resampling_plan(200_000, 3, Statistics(large_sample="resample")).tukey.method
    'resample'
    """
    mode = statistics.large_sample
    costs: dict[Procedure, tuple[int, int]] = {
        "bootstrap": (statistics.bootstrap, n_queries * statistics.bootstrap),
        "randomization": (statistics.trials, n_queries * statistics.trials),
        "tukey": (statistics.trials, n_queries * n_systems * statistics.trials),
    }
    choices = {}
    for procedure, (draws, cost) in costs.items():
        method: Method
        if mode == "auto":
            method = "resample" if cost <= RESAMPLING_BUDGET else "normal"
        else:
            method = "normal" if mode == "normal" else "resample"
        forced = mode != "auto"
        choices[procedure] = Choice(procedure, method, draws, cost, n_queries, forced)
    return ResamplingPlan(**choices)


def _ndtr(x: np.ndarray) -> np.ndarray:
    """The standard normal distribution function (scipy's ``ndtr``)."""
    from scipy.special import ndtr

    out: np.ndarray = ndtr(x)
    return out


def normal_randomization_p(
    differences: np.ndarray,
    weights: np.ndarray | None = None,
    alternative: Literal["two-sided", "greater"] = "two-sided",
) -> np.ndarray:
    """The normal limit of the sign-flip randomization test of each row's (weighted) mean.

    Flipping the sign of each ``e_i = w_i d_i`` (``d_i`` unweighted) at random gives
    ``S = Σ s_i e_i`` with mean 0 and variance ``V = Σ e_i²``; by the central limit theorem
    (Lindeberg: no single ``e_i²`` dominates ``V``) ``S / √V`` tends to a standard normal,
    so the two-sided p-value of the observed ``Σ e_i`` is ``2 (1 - Φ(|Σ e| / √V))``, and
    ``1 - Φ(Σ e / √V)`` for ``alternative="greater"`` (H1: the mean is above 0). A row
    whose ``e`` are all 0 has p 1.0 (every flip ties). The statistic is the weighted sum
    ``Σ w d``, the same order as the weighted mean difference.

    Parameters
    ----------
    differences
        Paired differences, ``(*rows, queries)``.
    weights
        One weight per query (``queries``), or None.
    alternative
        ``"two-sided"`` or ``"greater"`` (the gate's one-sided test; stable signature).

    Examples
    --------
    >>> d = np.array([[0.1, 0.2, -0.05, 0.3], [0.0, 0.0, 0.0, 0.0]])
    >>> normal_randomization_p(d).round(4).tolist()  # z = 0.55 / √0.1425
    [0.1451, 1.0]
    """
    e = np.asarray(differences, dtype=np.float64)
    if weights is not None:
        e = e * np.asarray(weights, dtype=np.float64)
    total = e.sum(axis=-1)
    variance = np.einsum("...i,...i->...", e, e)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = total / np.sqrt(variance)
    p = 2 * _ndtr(-np.abs(z)) if alternative == "two-sided" else _ndtr(-z)
    out: np.ndarray = np.where(variance > 0, p, 1.0)
    return out


def weighted_mean(values: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Each row's mean over its last axis, ``Σ w x / Σ w`` with weights.

    Examples
    --------
    >>> weighted_mean(np.array([[1.0, 3.0]]), np.array([3.0, 1.0])).tolist()
    [1.5]
    """
    x = np.asarray(values, dtype=np.float64)
    if weights is None:
        out: np.ndarray = x.mean(axis=-1)
        return out
    w = np.asarray(weights, dtype=np.float64)
    weighted: np.ndarray = (x @ w) / w.sum()
    return weighted


def bootstrap_sd(values: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """The standard deviation of the bootstrap distribution of each row's (weighted) mean.

    Resampling ``n`` queries with replacement draws counts ``c ~ Multinomial(n, 1/n)``
    (covariance ``I - J/n``); the resampled mean ``Σ c x / n`` has the exact variance
    ``Σ (x_i - x̄)² / n²`` (the plug-in variance over ``n``). The weighted mean
    ``Σ c w x / Σ c w``, linearised around ``c = 1``, varies as
    ``Σ (c_i - 1) w_i (x_i - m_w) / Σ w``: variance ``Σ w_i² (x_i - m_w)² / (Σ w)²`` (the
    ``J`` term vanishes as ``Σ w (x - m_w) = 0``). Equal weights give the unweighted value.

    Examples
    --------
    >>> x = np.array([[0.0, 1.0, 2.0, 3.0]])
    >>> round(float(bootstrap_sd(x)[0] ** 2), 12), float(x.var() / 4)
    (0.3125, 0.3125)
    """
    x = np.asarray(values, dtype=np.float64)
    centred = x - weighted_mean(x, weights)[..., None]
    if weights is None:
        n = x.shape[-1]
        sd: np.ndarray = np.sqrt(np.einsum("...i,...i->...", centred, centred)) / n
        return sd
    w = np.asarray(weights, dtype=np.float64)
    scaled = centred * w
    weighted: np.ndarray = np.sqrt(np.einsum("...i,...i->...", scaled, scaled)) / w.sum()
    return weighted


def normal_interval(estimate: np.ndarray, sd: np.ndarray, levels: Sequence[float]) -> np.ndarray:
    """The bounds ``estimate + Φ⁻¹(L) sd`` of a normal interval at each quantile level
    ``L``, as ``(len(levels), *rows)``: the bootstrap percentile interval in the normal
    limit, with ``sd`` from :func:`bootstrap_sd`. BCa takes the same interval in the limit
    (its bias and acceleration vanish as the queries grow), so ``bootstrap_method`` does
    not change it.

    Examples
    --------
    >>> normal_interval(np.array([0.5]), np.array([0.1]), (0.025, 0.975)).round(4).tolist()
    [[0.304], [0.696]]
    """
    from scipy.special import ndtri

    z = ndtri(np.asarray(levels, dtype=np.float64))
    est = np.asarray(estimate, dtype=np.float64)
    out: np.ndarray = est[None] + z.reshape(-1, *([1] * est.ndim)) * np.asarray(sd)[None]
    return out


def tukey_scale(values: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The variance scale ``c`` of the systems' (weighted) means under the randomized Tukey
    HSD's within-query permutations (see :func:`normal_tukey_p`).

    Examples
    --------
    >>> tukey_scale(np.array([[0.0, 1.0], [1.0, 1.0]]))  # one query varies: 0.5 / (1 * 4)
    0.125
    """
    x = np.asarray(values, dtype=np.float64)
    k, n = x.shape
    spread = ((x - x.mean(axis=0)) ** 2).sum(axis=0)  # Σ_j (x_ij - x̄_i)², per query
    if weights is None:
        return float(spread.sum() / ((k - 1) * n**2))
    w = np.asarray(weights, dtype=np.float64)
    return float((w**2 @ spread) / ((k - 1) * w.sum() ** 2))


def normal_tukey_p(values: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """The normal limit of the randomized Tukey HSD: the (system, system) matrix of
    p-values, 1 on the diagonal.

    ``values`` is (system, query), ``k`` systems and ``n`` queries. Permuting query ``i``'s
    ``k`` values at random gives a vector with mean ``x̄_i 1`` and covariance
    ``v_i k/(k-1) (I - J/k)``, ``v_i = Σ_j (x_ij - x̄_i)² / k``: each entry has variance
    ``v_i``, any two covariance ``-v_i/(k-1)``. The queries are permuted independently, so
    the vector of the systems' weighted means ``Σ_i w_i x_iπ / Σ w`` has covariance
    ``c (I - J/k)`` with

    ``c = Σ_i w_i² Σ_j (x_ij - x̄_i)² / ((k - 1) (Σ w)²)``

    (``w = 1``: ``(Σ w)² = n²``), and tends to a normal vector (central limit theorem).
    ``N(0, c (I - J/k))`` is ``Z - Z̄ 1`` with ``Z ~ N(0, c I)``, and a range ignores the
    shift, so the range of the means is ``√c`` times the range of ``k`` independent standard
    normals, the studentized range with infinite degrees of freedom. The p-value of a pair is
    ``P(range >= |m_a - m_b|) = studentized_range.sf(|m_a - m_b| / √c, k, ∞)`` (scipy); 1.0
    everywhere when ``c = 0`` (no query's values differ across systems).

    Examples
    --------
    >>> values = np.array([[0.1, 0.2, 0.3, 0.2], [0.3, 0.5, 0.4, 0.6], [0.1, 0.2, 0.3, 0.2]])
    >>> normal_tukey_p(values).round(3).tolist()
    [[1.0, 0.065, 1.0], [0.065, 1.0, 0.065], [1.0, 0.065, 1.0]]
    """
    from scipy.stats import studentized_range

    k = values.shape[0]
    c = tukey_scale(values, weights)
    means = weighted_mean(values, weights)
    observed = np.abs(means[None, :] - means[:, None])
    if not c > 0:
        return np.ones((k, k))
    p = np.asarray(studentized_range.sf(observed / np.sqrt(c), k, np.inf), dtype=np.float64)
    out: np.ndarray = np.where(np.eye(k, dtype=bool), 1.0, np.clip(p, 0.0, 1.0))
    return out
