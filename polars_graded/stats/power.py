"""Power of the paired t-test: how many queries detect a difference, and what the current
queries can detect.

:func:`topic_set_size` is Sakai's topic-set-size design with a paired t-test (T. Sakai,
*Topic set size design*, Information Retrieval Journal 19, 2016): from the spread of the
observed paired differences (candidate minus baseline) it gives the number of queries a
two-sided paired t-test needs to detect a difference ``delta`` with the asked power.
:func:`minimum_detectable_difference` turns it around: the difference the current queries
detect with that power. Both solve the exact power of the t-test (the noncentral t
distribution, scipy's ``nct``), as statsmodels' ``TTestPower`` does; :func:`t_power`,
:func:`required_queries` and :func:`detectable_effect` are those solutions for one effect
size. The gate (:mod:`polars_graded.stats.gate`) and the report's tests section read
:func:`detectable_difference` and :func:`sizing_table`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final, Literal

import numpy as np
import polars as pl

from polars_graded.defaults import SYSTEM
from polars_graded.errors import InvalidValueError
from polars_graded.frames import Table, as_polars
from polars_graded.stats.grid import by_column, compared_queries, value_matrix
from polars_graded.stats.options import DEFAULTS, MissingPolicy, check_fraction
from polars_graded.weights import check_weights, query_weights

POWER: Final = 0.8
"""The power every sizing asks for unless told otherwise (``power=``): 80%, Cohen's
convention and Sakai's."""

SIZING_DELTA: Final = 0.01
"""The difference of means the report asks about ("detecting 0.01 would need N queries")."""

MAX_QUERIES: Final = 1 << 62
"""The largest ``n_required`` computed; a smaller effect size gets a null and a note."""

Alternative = Literal["two-sided", "larger"]
"""The t-test whose power is solved: two-sided (the sizing's), or one-sided (the gate's)."""

SIZE_COLUMNS: Final = ("n_queries", "n_effective", "sd", "delta", "n_required", "note")
"""The columns of :func:`topic_set_size` after ``measure``, the system column and
``baseline``."""

DETECTABLE_COLUMNS: Final = ("n_queries", "n_effective", "sd", "detectable", "note")
"""The columns of :func:`minimum_detectable_difference` after ``measure``, the system column
and ``baseline``."""


def _scipy() -> tuple[Any, Any, Any]:
    """scipy's t and noncentral t distributions and ``brentq``, or an ImportError saying how
    to install scipy."""
    try:
        from scipy.optimize import brentq
        from scipy.stats import nct, t
    except ImportError as error:
        msg = 'power analysis needs scipy; install it with pip install "polars-graded[stats]"'
        raise ImportError(msg) from error
    return t, nct, brentq


def noncentral_power(
    noncentrality: float, df: float, alpha: float, alternative: Alternative = "two-sided"
) -> float:
    """The power of a t-test with ``df`` degrees of freedom whose statistic has the given
    noncentrality: ``P(T > t_(1-a)) (+ P(T < -t_(1-a)))`` for ``T ~ nct(df, noncentrality)``,
    ``a = alpha / 2`` two-sided, ``alpha`` one-sided.

    Examples
    --------
    >>> round(noncentral_power(0.0, 9, 0.05), 6)  # no effect: rejects at the level
    0.05
    >>> noncentral_power(1e15, 1, 0.05)  # beyond scipy's range
    1.0
    """
    t, nct, _ = _scipy()
    critical = t.isf(alpha if alternative == "larger" else alpha / 2, df)
    shift = noncentrality if alternative == "larger" else abs(noncentrality)
    # scipy's noncentral t is NaN for a noncentrality near 1e15; the power is then 1 (or 0).
    upper = float(nct.sf(critical, df, shift))
    if not math.isfinite(upper):
        upper = 1.0 if shift > critical else 0.0
    if alternative == "larger":
        return upper
    # Two-sided power is symmetric in the sign of the effect; the lower tail P(T < -c) is
    # P(T' > c) for T' ~ nct(df, -shift), which scipy computes without the NaN of its cdf.
    lower = float(nct.sf(critical, df, -shift))
    return upper + (lower if math.isfinite(lower) else 0.0)


def t_power(
    effect_size: float, n: float, alpha: float, alternative: Alternative = "two-sided"
) -> float:
    """The exact power of a one-sample (paired) t-test on ``n`` values whose mean is
    ``effect_size`` standard deviations from 0: df ``n - 1``, noncentrality
    ``effect_size * sqrt(n)``, as statsmodels' ``TTestPower().power``.

    Examples
    --------
    >>> round(t_power(0.5, 34, 0.05), 4)
    0.8078
    """
    return noncentral_power(effect_size * math.sqrt(n), n - 1, alpha, alternative)


def required_queries(
    effect_size: float, alpha: float, power: float, alternative: Alternative = "two-sided"
) -> int | None:
    """The smallest number of queries ``n >= 2`` whose t-test (:func:`t_power`) reaches
    ``power`` for ``effect_size``: statsmodels' ``TTestPower().solve_power(effect_size,
    alpha=alpha, power=power)`` rounded up. None beyond :data:`MAX_QUERIES`.

    The power grows with ``n``, so a root finder (``brentq``) on the continuous ``n`` gives
    the neighbourhood and an integer step makes it exact.

    Examples
    --------
    >>> required_queries(0.5, 0.05, 0.8), required_queries(100.0, 0.05, 0.8)
    (34, 2)
    """
    _, _, brentq = _scipy()

    def gap(n: float) -> float:
        return t_power(effect_size, n, alpha, alternative) - power

    if gap(2) >= 0:
        return 2
    high = 4.0
    while gap(high) < 0:
        if high > MAX_QUERIES:
            return None
        high *= 2
    n = math.ceil(float(brentq(gap, max(2.0, high / 2), high, xtol=1e-9, rtol=1e-12)))
    while n > 2 and gap(n - 1) >= 0:
        n -= 1
    while gap(n) < 0:
        n += 1
    return n


def detectable_effect(
    n: float, alpha: float, power: float, alternative: Alternative = "two-sided"
) -> float:
    """The effect size (mean over standard deviation) a t-test on ``n`` values detects with
    ``power``: statsmodels' ``TTestPower().solve_power(nobs=n, effect_size=None, alpha=alpha,
    power=power)``; ``n`` may be fractional (an effective number of queries), > 1.

    Examples
    --------
    >>> round(detectable_effect(50, 0.05, 0.8), 4)
    0.4042
    """
    _, _, brentq = _scipy()

    def gap(effect: float) -> float:
        return t_power(effect, n, alpha, alternative) - power

    high = 1.0
    while gap(high) < 0:
        high *= 2
    return float(brentq(gap, 0.0, high, xtol=1e-14, rtol=1e-12))


def spread(
    differences: np.ndarray, weights: np.ndarray | None = None
) -> tuple[float, float, float]:
    """``(n, n_effective, sd)`` of paired differences, as the t-test sees them.

    Unweighted: ``n_effective = n`` and ``sd`` the sample standard deviation (ddof 1).
    With ``weights``: Kish's effective number ``(sum w)^2 / sum w^2``, and ``sd`` such that
    ``sd / sqrt(n_effective)`` is the standard error of the weighted mean by linearization
    with the HC1 factor ``n / (n - 1)``: ``se^2 = n/(n-1) * sum w_i^2 (d_i - dbar_w)^2 /
    (sum w)^2`` (statsmodels' ``WLS(d, 1, weights=w).fit(cov_type="HC1").bse``). Equal
    weights give the unweighted numbers. NaN ``sd`` below 2 queries.

    Examples
    --------
    >>> spread(np.array([0.0, 0.1, 0.2]))
    (3.0, 3.0, 0.1)
    >>> n, n_eff, sd = spread(np.array([0.0, 0.1, 0.2]), np.array([1.0, 1.0, 2.0]))
    >>> round(n_eff, 4)
    2.6667
    """
    n = float(differences.size)
    if n < 2:
        return n, n, math.nan
    if weights is None:
        return n, n, float(differences.std(ddof=1))
    w = weights / weights.sum()  # scale-free; sum 1
    n_effective = 1.0 / float(np.square(w).sum())
    centred = differences - float(w @ differences)
    se = math.sqrt(n / (n - 1) * float(np.square(w * centred).sum()))
    return n, n_effective, se * math.sqrt(n_effective)


def detectable_difference(
    differences: np.ndarray,
    alpha: float,
    power: float = POWER,
    *,
    weights: np.ndarray | None = None,
    alternative: Alternative = "two-sided",
) -> float | None:
    """The smallest mean difference a t-test on these paired differences detects with
    ``power``: ``sd * detectable_effect(n_effective)`` (:func:`spread`); None below 2
    (effective) queries or when the differences do not vary (no estimate of the spread).

    Examples
    --------
    >>> round(detectable_difference(np.array([0.0, 0.1, 0.2, 0.1]), 0.05), 4)
    0.1737
    >>> detectable_difference(np.zeros(5), 0.05) is None
    True
    """
    _, n_effective, sd = spread(differences, weights)
    if not n_effective >= 2 or not sd > 0:
        return None
    return sd * detectable_effect(n_effective, alpha, power, alternative)


def _note(n_effective: float, sd: float) -> str | None:
    """Why a sizing has no number, or None."""
    if not n_effective >= 2:
        return f"fewer than 2 (effective) queries: {n_effective:g}"
    if not sd > 0:
        return "the paired differences do not vary (sd 0): no estimate of their spread"
    return None


def topic_set_size(
    per_query: Table,
    measures: Sequence[object] | str | None = None,
    *,
    delta: float,
    by: str = SYSTEM,
    baseline: object | None = None,
    candidate: object | None = None,
    alpha: float = DEFAULTS.alpha,
    power: float = POWER,
    query: str = "query",
    missing: MissingPolicy = DEFAULTS.missing,
    weight: str | None = None,
) -> pl.DataFrame:
    """How many queries a paired t-test needs to detect a difference of ``delta``, per
    measure and system against the baseline (Sakai's topic-set-size design).

    Parameters
    ----------
    per_query
        One row per (system, query) and one numeric column per measure: the output of
        ``pg.evaluate(table, measures, by="system")`` (as :func:`polars_graded.compare`
        takes it).
    measures
        The value columns. Default: every column but the keys and ``weight``.
    delta
        The difference of means to detect, > 0, in the measure's unit (0.01 = one point of
        nDCG).
    by, query
        The system and query columns.
    baseline
        The system the others are paired with. Default: the first in sorted order.
    candidate
        One system to size against the baseline. Default: every other system.
    alpha
        Level of the two-sided t-test, in (0, 1).
    power
        The chance of detecting ``delta`` the design asks for, in (``alpha``, 1).
    missing
        A query a system lacks: scores 0 (``"zero"``) or is left out (``"common"``), as in
        :func:`polars_graded.compare`.
    weight
        A column of per-query weights (constant within a query: impressions, sessions).
        The spread is then that of the weighted mean difference and the counts are
        effective queries (:func:`spread`; Kish's ``(sum w)^2 / sum w^2``).

    Returns
    -------
    pl.DataFrame
        One row per measure and compared system: ``measure``, the system column,
        ``baseline``, ``n_queries`` (compared), ``n_effective`` (``n_queries`` unweighted),
        ``sd`` of the paired differences, ``delta``, ``n_required`` (the smallest ``n``
        whose two-sided t-test at ``alpha`` has at least ``power`` for the effect size
        ``delta / sd``: statsmodels' ``TTestPower().solve_power`` rounded up; effective
        queries with ``weight``: at the current mix of weights, about ``n_required *
        n_queries / n_effective`` queries) and ``note``. ``n_required`` is null, and
        ``note`` says why, below 2 compared (effective) queries, when the differences do
        not vary at all (sd 0: the data give no spread to design with) or beyond
        :data:`MAX_QUERIES`.

    Raises
    ------
    InvalidValueError
        ``delta`` not a finite number > 0; ``alpha`` or ``power`` outside (0, 1), or
        ``power <= alpha``; an unknown baseline or candidate; a bad weight (see
        :func:`polars_graded.weights.check_weights`); the per-query table's rules (as
        :func:`polars_graded.compare`).

    Examples
    --------
    >>> per_query = pl.DataFrame({
    ...     "system": ["a"] * 4 + ["b"] * 4, "query": [1, 2, 3, 4] * 2,
    ...     "ap": [0.5, 0.4, 0.6, 0.3, 0.6, 0.4, 0.8, 0.4],
    ... })
    >>> sizes = topic_set_size(per_query, delta=0.05)
    >>> sizes.select("system", pl.col("sd").round(4), "n_required").row(0)
    ('b', 0.0816, 23)
    """
    _check_delta(delta)
    return _public(SIZE_COLUMNS, sizing_table(
        per_query, measures, "topic_set_size", delta=delta, by=by, baseline=baseline,
        candidate=candidate, alpha=alpha, power=power, query=query, missing=missing,
        weight=weight,
    ))  # fmt: skip


def minimum_detectable_difference(
    per_query: Table,
    measures: Sequence[object] | str | None = None,
    *,
    by: str = SYSTEM,
    baseline: object | None = None,
    candidate: object | None = None,
    alpha: float = DEFAULTS.alpha,
    power: float = POWER,
    query: str = "query",
    missing: MissingPolicy = DEFAULTS.missing,
    weight: str | None = None,
) -> pl.DataFrame:
    """The smallest difference of means a paired t-test on the current queries detects
    with ``power``, per measure and system against the baseline.

    The parameters are :func:`topic_set_size`'s, without ``delta``.

    Returns
    -------
    pl.DataFrame
        ``measure``, the system column, ``baseline``, ``n_queries``, ``n_effective``,
        ``sd``, ``detectable`` (``sd`` times statsmodels' ``TTestPower().solve_power(
        nobs=n_effective, effect_size=None, alpha=alpha, power=power)``: the two-sided
        t-test at ``alpha`` on ``n_effective`` queries; null, with ``note``, as in
        :func:`topic_set_size`) and ``note``.

    Examples
    --------
    >>> per_query = pl.DataFrame({
    ...     "system": ["a"] * 4 + ["b"] * 4, "query": [1, 2, 3, 4] * 2,
    ...     "ap": [0.5, 0.4, 0.6, 0.3, 0.6, 0.4, 0.8, 0.4],
    ... })
    >>> round(minimum_detectable_difference(per_query).item(0, "detectable"), 4)
    0.1737
    """
    return _public(DETECTABLE_COLUMNS, sizing_table(
        per_query, measures, "minimum_detectable_difference", delta=None, by=by,
        baseline=baseline, candidate=candidate, alpha=alpha, power=power, query=query,
        missing=missing, weight=weight,
    ))  # fmt: skip


def sizing_table(
    per_query: Table,
    measures: Sequence[object] | str | None,
    function: str,
    *,
    delta: float | None,
    by: str,
    baseline: object | None,
    candidate: object | None,
    alpha: float,
    power: float,
    query: str,
    missing: MissingPolicy,
    weight: str | None,
) -> pl.DataFrame:
    """Both :func:`topic_set_size`'s columns (with ``delta``) and
    :func:`minimum_detectable_difference`'s, from one pass over the values; ``function``
    names the caller in the errors.

    Examples
    --------
    >>> per_query = pl.DataFrame({"system": ["a", "a", "b", "b"], "query": [1, 2] * 2,
    ...                           "ap": [0.1, 0.2, 0.1, 0.2]})
    >>> sizing_table(per_query, None, "f", delta=None, by="system", baseline=None,
    ...     candidate=None, alpha=0.05, power=0.8, query="query", missing="zero",
    ...     weight=None).item(0, "note")
    'the paired differences do not vary (sd 0): no estimate of their spread'
    """
    _check_levels(alpha, power)
    frame = as_polars(per_query, function)
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    by = by_column(by)
    if measures is None and weight is not None:
        measures = [c for c in frame.columns if c not in (by, query, weight)]
    names, systems, values, _ = value_matrix(
        frame, measures, by=by, query=query, missing=missing, baseline=baseline
    )
    weights = None if weight is None else _query_weights(frame, weight, by, query, missing)
    others = list(range(1, systems.len()))
    if candidate is not None:
        others = [_candidate_index(systems, candidate, by)]
    rows: list[tuple[object, ...]] = []
    for m, name in enumerate(names):
        for s in others:
            d = values[m, s] - values[m, 0]
            n, n_effective, sd = spread(d, weights)
            note = _note(n_effective, sd)
            detectable = needed = None
            if note is None:
                detectable = sd * detectable_effect(n_effective, alpha, power)
                if delta is not None:
                    needed = required_queries(delta / sd, alpha, power)
                    if needed is None:
                        note = f"more than {MAX_QUERIES:,} queries"
            row = (name, systems[s], systems[0], int(n), n_effective, sd, needed, detectable)
            rows.append((*row, note))
    return _frame(rows, by, systems.dtype, delta)


def _frame(
    rows: list[tuple[object, ...]], by: str, dtype: pl.DataType, delta: float | None
) -> pl.DataFrame:
    """The rows as columns: the keys, ``n_queries``, ``n_effective``, ``sd``, ``delta`` and
    ``n_required`` (with ``delta``), ``detectable`` and ``note``."""
    keys: dict[str, pl.DataType | type[pl.DataType]] = {
        "measure": pl.String,
        by: dtype,
        "baseline": dtype,
    }
    stats = {"n_queries": pl.Int64, "n_effective": pl.Float64, "sd": pl.Float64}
    sizes = {"n_required": pl.Int64, "detectable": pl.Float64, "note": pl.String}
    out = pl.DataFrame(rows, schema={**keys, **stats, **sizes}, orient="row")
    if delta is None:
        return out.drop("n_required")
    out = out.with_columns(delta=float(delta))
    return out.select(*keys, *stats, "delta", "n_required", "detectable", "note")


def _public(columns: Sequence[str], sizes: pl.DataFrame) -> pl.DataFrame:
    """The keys (the first three columns) and ``columns`` of a :func:`sizing_table`."""
    return sizes.select(*sizes.columns[:3], *columns)


def _query_weights(
    frame: pl.DataFrame, weight: str, by: str, query: str, missing: MissingPolicy
) -> np.ndarray:
    """The weight of each compared query, in :func:`value_matrix`'s (sorted) order."""
    check_weights(frame, weight, [query])
    queries = compared_queries(frame, missing, by=by, query=query).to_frame()
    aligned = queries.join(
        query_weights(frame, weight, [query]).collect(), on=query, how="left",
        maintain_order="left",
    )  # fmt: skip
    return aligned.get_column(weight).cast(pl.Float64).to_numpy()


def _candidate_index(systems: pl.Series, candidate: object, by: str) -> int:
    values = systems.to_list()
    if candidate not in values[1:]:
        role = "the baseline" if candidate == values[0] else f"not a system of column {by!r}"
        msg = f"candidate {candidate!r} is {role}; the other systems are {values[1:21]}"
        raise InvalidValueError(msg)
    return int(values.index(candidate))


def _check_delta(delta: object) -> None:
    if (
        isinstance(delta, bool)
        or not isinstance(delta, int | float | np.floating)
        or not 0 < delta < math.inf
    ):
        msg = f"delta must be a finite number > 0 (a difference of means, e.g. 0.01), got {delta!r}"
        raise InvalidValueError(msg)


def _check_levels(alpha: object, power: object) -> None:
    check_fraction("alpha", alpha)
    check_fraction("power", power)
    if power <= alpha:  # type: ignore[operator]  # both checked numbers
        msg = (
            "power must exceed alpha (a test that detects an effect less often than it "
            f"errs without one), got power={power!r} and alpha={alpha!r}"
        )
        raise InvalidValueError(msg)
