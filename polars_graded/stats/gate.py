"""A regression gate: is a candidate system not worse than a baseline by more than a margin?

:func:`gate` evaluates the named measures per query (:func:`polars_graded.api.evaluate`),
pairs the candidate's and the baseline's values on the compared queries (the missing-query
policy of :mod:`polars_graded.stats.grid`), and runs, per measure, a one-sided non-inferiority
test of ``H0: mean(candidate - baseline) <= -max_drop`` against ``H1: > -max_drop``.
``polars-graded gate`` (:mod:`polars_graded.cli.gate`) is its command line, for CI jobs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Unpack

import numpy as np
import polars as pl

from polars_graded.api import evaluate
from polars_graded.defaults import SYSTEM
from polars_graded.errors import InvalidValueError, MissingColumnError
from polars_graded.frames import Table, as_polars
from polars_graded.options import ColumnOptions
from polars_graded.stats.corrections import adjust
from polars_graded.stats.grid import by_column, query_grid
from polars_graded.stats.options import (
    DEFAULTS,
    GATE_CORRECTION,
    GATE_TEST,
    BootstrapMethod,
    Correction,
    MissingPolicy,
    Statistics,
    Test,
)
from polars_graded.stats.resampling import (
    TIE_TOLERANCE,
    bootstrap_interval,
    jackknife_acceleration,
)
from polars_graded.stats.wilcoxon import wilcoxon_p

GATE_COLUMNS: Final = (
    "measure",
    "n_queries",
    "baseline_mean",
    "candidate_mean",
    "diff",
    "lower",
    "p_value",
    "p_adjusted",
    "not_worse",
)
"""The columns of :attr:`GateResult.table`, in order."""

CHUNK_ELEMENTS: Final = 1 << 22
"""Drawn query indices per chunk of bootstrap resamples (32 MiB as int64)."""


@dataclass(frozen=True)
class GateResult:
    """The verdict of :func:`gate`: one row per measure, and whether every one passed.

    Examples
    --------
    >>> result = GateResult(pl.DataFrame({"not_worse": [True, False]}), passed=False)
    >>> result.passed, result.table.height
    (False, 2)
    """

    table: pl.DataFrame
    """One row per measure, columns :data:`GATE_COLUMNS` (see :func:`gate`)."""
    passed: bool
    """True when the candidate is not worse on every measure."""


def gate(
    table: Table,
    measures: Sequence[str],
    *,
    baseline: object,
    candidate: object,
    max_drop: float,
    missing: MissingPolicy = DEFAULTS.missing,
    bootstrap: int = DEFAULTS.bootstrap,
    alpha: float = DEFAULTS.alpha,
    seed: int = DEFAULTS.seed,
    correction: Correction = GATE_CORRECTION,
    bootstrap_method: BootstrapMethod = DEFAULTS.bootstrap_method,
    test: Test = GATE_TEST,
    trials: int = DEFAULTS.trials,
    **columns: Unpack[ColumnOptions],
) -> GateResult:
    """Test, per measure, that the candidate is not worse than the baseline by ``max_drop``.

    Parameters
    ----------
    table
        The long table (one row per system, query and item) with a system column: a Polars
        DataFrame or LazyFrame, or a pandas DataFrame or an Arrow table, converted as
        :func:`polars_graded.evaluate` converts it.
    measures
        Measure names or objects, evaluated per query by :func:`polars_graded.evaluate`.
    baseline, candidate
        The two systems (values of the ``by`` column), distinct.
    max_drop
        The margin, >= 0: the largest drop of the mean the candidate may show.
    missing
        A query one of the two systems lacks: scores 0 (``"zero"``) or is left out
        (``"common"``), as in :func:`polars_graded.stats.grid.compared_queries`.
    bootstrap
        Bootstrap resamples of the queries for the lower bound.
    alpha
        Level of the test, in (0, 1); the bootstrap bound is the ``alpha`` quantile.
    seed
        Seeds the resamples; the same call gives the same numbers.
    correction
        The correction of the p-values across the measures (the family: this call's
        measures): ``"none"`` (default, :data:`~polars_graded.stats.options.GATE_CORRECTION`:
        the verdict needs every measure to pass, which holds the error at ``alpha``
        already), ``"bonferroni"``, ``"holm"``, ``"holm-sidak"`` or ``"bh"``
        (:func:`~polars_graded.stats.corrections.adjust`).
    bootstrap_method
        How ``lower`` is read from the resamples: ``"percentile"`` (default) or ``"bca"``
        (:func:`bootstrap_lower`).
    test
        The one-sided test of the decision, on the differences shifted by the margin
        (Notes): ``"t"`` (default, :data:`~polars_graded.stats.options.GATE_TEST`),
        ``"wilcoxon"`` or ``"randomization"``.
    trials
        Random sign flips of ``test="randomization"`` (the command line draws
        ``--bootstrap`` of them).
    **columns
        The table's options (``by=``, default ``"system"``, one column; ``query=`` ...).

    Returns
    -------
    GateResult
        ``.table``: one row per measure, in the given order: ``measure``, ``n_queries``
        (compared), ``baseline_mean``, ``candidate_mean``, ``diff`` (candidate minus
        baseline), ``lower`` (one-sided bootstrap lower bound of the mean difference at
        level ``1 - alpha``, ``bootstrap_method``), ``p_value`` (the one-sided p-value of
        ``test``, below),
        ``p_adjusted`` (``p_value`` corrected across the measures; ``p_value`` itself with
        the default ``correction="none"``), ``not_worse`` (``p_adjusted < alpha``).
        ``.passed``: every ``not_worse`` true. ``.table`` is a Polars DataFrame, whatever
        the input's kind.

    Notes
    -----
    With ``d`` the paired differences, the decision is the one-sided t-test
    ``scipy.stats.ttest_1samp(d + max_drop, 0, alternative="greater")``: it is the standard
    paired non-inferiority test, exact under normality and deterministic (no seed in the
    verdict). Its t statistic is computed from the spread of ``d`` itself (the shift does
    not change it), so that a huge margin cannot overflow into a NaN. The bootstrap bound is
    reported beside it, to show the margin's room; the two mostly agree
    (``lower > -max_drop`` when ``p < alpha``) but may differ near the margin.
    When every ``d + max_drop`` is 0 the t statistic is 0/0: ``p_value`` is 1.0, no
    evidence against H0. So an identical candidate fails with ``max_drop=0`` (that is a test
    of superiority) and passes with any ``max_drop > 0`` (constant positive ``d + max_drop``,
    ``p`` 0).

    The other tests take the same shifted differences ``e = d + max_drop`` and the same
    one-sided alternative, so the margin means the same to each (:func:`shifted_p`).
    ``test="wilcoxon"``: ``scipy.stats.wilcoxon(e, alternative="greater")`` with scipy's
    defaults (a zero ``e`` is dropped, ties share their average rank; see
    :func:`~polars_graded.stats.wilcoxon.wilcoxon_p`): it asks whether ``e`` is centred
    above 0, its pseudo-median rather than its mean, and assumes ``d`` symmetric about
    its centre. ``test="randomization"``: the one-sided sign-flip test of ``mean(e) > 0``,
    ``p = (1 + k) / (1 + trials)`` with ``k`` the trials whose flipped sum reaches the
    observed one (ties within ``TIE_TOLERANCE * sum |e|`` included); it assumes the same
    symmetry and draws its signs from the seed's first spawned stream. Both give 1.0 when
    every ``e`` is 0. An identical candidate then passes with ``max_drop > 0`` once there
    are enough queries: Wilcoxon's smallest p is ``2^-n`` (5 queries), the randomization
    test's about ``1 / (1 + trials) + 2^-n``.

    Raises
    ------
    InvalidValueError
        An unknown or repeated system, ``max_drop`` < 0 or not finite, fewer than two
        compared queries, or a bad ``missing``, ``bootstrap`` or ``trials`` (at most
        :data:`~polars_graded.stats.options.MAX_RESAMPLES`), ``alpha``, ``seed`` (an integer
        >= 0), ``correction``, ``bootstrap_method`` or ``test``.
    ColumnTypeError
        ``table`` is not a table (a list, a dict: :data:`~polars_graded.frames.ACCEPTED`
        says what is; pytrec_eval's dicts go through :func:`polars_graded.from_dicts`).
    MissingColumnError
        The ``by`` column (or another column the measures need) is absent.

    Examples
    --------
    >>> table = pl.DataFrame({
    ...     "system": ["prod"] * 3 + ["new"] * 3, "query": [1, 2, 3] * 2, "item": ["x"] * 6,
    ...     "score": [1.0] * 6, "relevance": [1, 0, 1, 1, 0, 1],
    ... })
    >>> result = gate(table, ["ap"], baseline="prod", candidate="new", max_drop=0.01)
    >>> result.passed
    True
    >>> result.table.select("measure", "diff", "p_value", "not_worse").row(0)
    ('ap', 0.0, 0.0, True)
    """
    frame = as_polars(table, "gate")
    by = by_column(columns.get("by", SYSTEM), depth=2)
    columns["by"] = by  # the default too: evaluate keys rows by it
    # The gate's options, checked as the comparisons' are (the others keep their defaults).
    statistics = Statistics(
        missing=missing,
        bootstrap=bootstrap,
        alpha=alpha,
        seed=seed,
        correction=correction,
        bootstrap_method=bootstrap_method,
        test=test,
        trials=trials,
    )
    _check_margin(max_drop)
    _import_t()  # before the work: a missing scipy is found at once
    lazy = frame.lazy()
    _check_systems(lazy, by, baseline, candidate)
    pair = lazy.filter(pl.col(by).is_in([baseline, candidate]))
    per_query = evaluate(pair, measures, **columns).collect()
    query = columns.get("query", "query")
    names = [c for c in per_query.columns if c not in (by, query)]
    grid = query_grid(per_query, [baseline, candidate], statistics.missing, by=by, query=query)
    values = grid.select(names).to_numpy().T.reshape(len(names), 2, -1)
    _check_queries(values.shape[2])
    rows = [
        _measure_row(name, v[0], v[1], max_drop=max_drop, statistics=statistics)
        for name, v in zip(names, values, strict=True)
    ]
    out = pl.DataFrame(rows, schema=_SCHEMA, orient="row")
    adjusted = adjust(out.get_column("p_value").to_numpy(), statistics.correction)
    out = out.with_columns(p_adjusted=pl.Series(adjusted)).with_columns(
        not_worse=pl.col("p_adjusted") < statistics.alpha
    )
    return GateResult(out, passed=bool(out.get_column("not_worse").all()))


_SCHEMA: Final = dict(
    zip(
        GATE_COLUMNS,
        [pl.String, pl.Int64, *[pl.Float64] * 6, pl.Boolean],
        strict=True,
    )
)


def _measure_row(
    name: str,
    base: np.ndarray,
    cand: np.ndarray,
    *,
    max_drop: float,
    statistics: Statistics,
) -> tuple[object, ...]:
    """One measure's row of the verdict (``p_adjusted`` and ``not_worse`` are set across the
    measures)."""
    d, alpha = cand - base, statistics.alpha
    p = shifted_p(d, max_drop, statistics)
    resamples, seed, method = statistics.bootstrap, statistics.seed, statistics.bootstrap_method
    lower = bootstrap_lower(d, alpha, resamples, seed, method)
    return (name, d.size, base.mean(), cand.mean(), d.mean(), lower, p, p, p < alpha)


def shifted_p(differences: np.ndarray, max_drop: float, statistics: Statistics) -> float:
    """The one-sided p-value of ``statistics.test`` on ``d + max_drop`` (H1: above 0):
    :func:`one_sided_p`, the Wilcoxon signed-rank test or :func:`sign_flip_greater_p`.

    Examples
    --------
    >>> d = np.array([-0.1, 0.0, 0.1, 0.05, 0.2])
    >>> tests = ["t", "wilcoxon", "randomization"]
    >>> [round(shifted_p(d, 0.05, Statistics(test=t, trials=999)), 3) for t in tests]
    [0.058, 0.094, 0.09]
    """
    if statistics.test == "t":
        return one_sided_p(differences, max_drop)
    with np.errstate(over="ignore"):  # a huge margin: +inf values still rank and sign
        shifted = differences + max_drop
    if statistics.test == "wilcoxon":
        return float(wilcoxon_p(shifted, alternative="greater"))
    rng = np.random.default_rng(np.random.SeedSequence(statistics.seed).spawn(1)[0])
    return sign_flip_greater_p(shifted, statistics.trials, rng)


def sign_flip_greater_p(values: np.ndarray, trials: int, rng: np.random.Generator) -> float:
    """One-sided sign-flip p-value of ``mean(values) > 0``: ``(1 + k) / (1 + trials)``, with
    ``k`` the trials whose sum of randomly signed values reaches the observed sum (within
    ``TIE_TOLERANCE * sum |values|``); 1.0 when every value is 0.

    The values are divided by the largest ``|value|`` first (the order of the sums stays),
    so a huge margin cannot overflow.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> sign_flip_greater_p(np.zeros(4), 99, rng), sign_flip_greater_p(np.ones(12), 99, rng)
    (1.0, 0.01)
    """
    scale = np.abs(values).max()
    if not scale > 0:
        return 1.0
    e = values / scale if np.isfinite(scale) else np.sign(values)
    n = e.size
    threshold = e.sum() - TIE_TOLERANCE * np.abs(e).sum()
    at_least = 0
    chunk = max(1, CHUNK_ELEMENTS // n)
    for start in range(0, trials, chunk):
        size = min(chunk, trials - start)
        signs = 1.0 - 2.0 * rng.integers(0, 2, size=(size, n))
        at_least += int(np.count_nonzero(signs @ e >= threshold))
    return (1 + at_least) / (1 + trials)


def one_sided_p(differences: np.ndarray, max_drop: float) -> float:
    """p-value of ``H0: mean(d) <= -max_drop`` by the one-sided t-test; 1.0 when all
    ``d + max_drop`` are 0 (0/0, no evidence against H0).

    The value of ``ttest_1samp(d + max_drop, 0, alternative="greater")``, with the t
    statistic ``(mean(d) + max_drop) / (sd(d) / sqrt(n))``: shifting every value leaves
    the standard deviation as it is, and summing ``d + 1e308`` would overflow. Constant
    differences give t = +-inf, so p 0.0 (above the margin) or 1.0.

    Examples
    --------
    >>> one_sided_p(np.array([0.1, 0.2, 0.3]), 0.0) < 0.05
    True
    >>> one_sided_p(np.zeros(3), 0.0), one_sided_p(np.array([0.1, 0.2]), 1e308)
    (1.0, 0.0)
    """
    t_distribution = _import_t()
    with np.errstate(over="ignore"):  # a huge margin: t is +inf, so p is 0
        if not (differences + max_drop).any():
            return 1.0
        centre = differences.mean() + max_drop
        if np.ptp(differences) == 0:
            return 0.0 if centre > 0 else 1.0
        t = centre / (differences.std(ddof=1) / np.sqrt(differences.size))
    return float(t_distribution.sf(t, differences.size - 1))


def bootstrap_lower(
    differences: np.ndarray,
    alpha: float,
    resamples: int,
    seed: int,
    method: BootstrapMethod = DEFAULTS.bootstrap_method,
) -> float:
    """The ``alpha`` quantile (numpy's linear interpolation) of the mean of ``differences``
    over ``resamples`` resamples of them with replacement: a percentile lower bound; with
    ``method="bca"`` the BCa level in its place
    (:func:`~polars_graded.stats.resampling.bootstrap_interval`), as
    ``scipy.stats.bootstrap(..., confidence_level=1 - alpha, alternative="greater",
    method="BCa")``.

    Resample ``b`` draws ``rng.integers(0, n, size=n)`` from ``np.random.default_rng(seed)``
    in order, so a plain loop with the same seed gives the same bound.

    Examples
    --------
    >>> bootstrap_lower(np.array([0.5, 0.5]), 0.05, 100, seed=0)
    0.5
    """
    n = differences.size
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    chunk = max(1, CHUNK_ELEMENTS // n)
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        drawn = rng.integers(0, n, size=(size, n))
        means[start : start + size] = differences[drawn].mean(axis=1)
    if method == "percentile":
        return float(np.quantile(means, alpha))
    rows = differences[None]
    bound = bootstrap_interval(
        means[None],
        (alpha,),
        method,
        estimate=rows.mean(axis=1),
        acceleration=lambda: jackknife_acceleration(rows),
    )
    return float(bound[0, 0])


def _check_margin(max_drop: object) -> None:
    if (
        isinstance(max_drop, bool)
        or not isinstance(max_drop, int | float | np.floating)
        or not 0 <= max_drop < np.inf
    ):
        msg = f"max_drop must be a finite number >= 0, got {max_drop!r}"
        raise InvalidValueError(msg)


def _check_systems(lazy: pl.LazyFrame, by: str, baseline: object, candidate: object) -> None:
    """Both systems are values of ``by``, and differ."""
    if baseline == candidate:
        msg = f"the baseline and the candidate must differ, both are {baseline!r}"
        raise InvalidValueError(msg)
    names = lazy.collect_schema().names()
    if by not in names:
        msg = f"the system column {by!r} not found; the table has {names} (by=, --by)"
        raise MissingColumnError(msg)
    systems = lazy.select(pl.col(by).unique().sort()).collect().get_column(by).to_list()
    for role, name in (("baseline", baseline), ("candidate", candidate)):
        if name not in systems:
            shown = systems[:20] + (["..."] if len(systems) > 20 else [])
            msg = f"{role} {name!r} is not a system of column {by!r}; the systems are {shown}"
            raise InvalidValueError(msg)


def _check_queries(n: int) -> None:
    if n < 2:
        msg = f"the gate needs at least 2 compared queries for its t-test, found {n}"
        raise InvalidValueError(msg)


def _import_t() -> Any:
    """scipy's t distribution, or an ImportError saying how to install scipy."""
    try:
        from scipy.stats import t
    except ImportError as error:
        msg = (
            'gate() needs scipy for the t-test; install it with pip install "polars-graded[stats]"'
        )
        raise ImportError(msg) from error
    return t
