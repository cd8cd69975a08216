"""A regression gate: is a candidate system not worse than a baseline by more than a margin,
or equivalent to it within a margin?

:func:`gate` evaluates the named measures per query (:func:`polars_graded.api.evaluate`),
pairs the candidate's and the baseline's values on the compared queries (the missing-query
policy of :mod:`polars_graded.stats.grid`), and runs, per measure, a one-sided non-inferiority
test of ``H0: mean(candidate - baseline) <= -max_drop`` against ``H1: > -max_drop``
(``max_drop=``), the two one-sided tests of equivalence ``H1: |mean| < equivalence``
(``equivalence=``), or both; the tests themselves are in :mod:`polars_graded.stats.one_sided`.
Beside each verdict it reports the smallest drop the test detects with 80% power
(:mod:`polars_graded.stats.power`). ``polars-graded gate`` (:mod:`polars_graded.cli.gate`) is
its command line, for CI jobs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Unpack

import numpy as np
import polars as pl

from polars_graded.api import evaluate
from polars_graded.defaults import SYSTEM
from polars_graded.errors import InvalidValueError
from polars_graded.frames import Table, as_polars
from polars_graded.options import ColumnOptions
from polars_graded.stats.corrections import adjust
from polars_graded.stats.grid import by_column, check_two_systems, compared_queries, query_grid
from polars_graded.stats.limits import (
    ResamplingPlan,
    bootstrap_sd,
    normal_interval,
    resampling_plan,
    weighted_mean,
)
from polars_graded.stats.one_sided import (
    CHUNK_ELEMENTS,
    bootstrap_bounds,
    bootstrap_lower,
    import_t,
    one_sided_p,
    shifted_p,
    sign_flip_greater_p,
    tost_p,
)
from polars_graded.stats.options import (
    DEFAULTS,
    GATE_CORRECTION,
    GATE_TEST,
    BootstrapMethod,
    Correction,
    LargeSample,
    MissingPolicy,
    Statistics,
    Test,
)
from polars_graded.stats.power import POWER, detectable_difference
from polars_graded.weights import check_weights, query_weights

__all__ = [
    "CHUNK_ELEMENTS",
    "DETECTABLE_COLUMNS",
    "EQUIVALENCE_COLUMNS",
    "GATE_COLUMNS",
    "GateResult",
    "bootstrap_lower",
    "gate",
    "one_sided_p",
    "shifted_p",
    "sign_flip_greater_p",
]

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
"""The first columns of :attr:`GateResult.table`, in order; ``p_value``, ``p_adjusted`` and
``not_worse`` (the non-inferiority verdict) only with ``max_drop``."""

EQUIVALENCE_COLUMNS: Final = ("upper", "p_equivalence", "p_equivalence_adjusted", "equivalent")
"""The columns of the equivalence verdict, after :data:`GATE_COLUMNS`, with ``equivalence``."""

DETECTABLE_COLUMNS: Final = ("detectable", "detectable_equivalence")
"""The last columns: the smallest drop the one-sided test detects with :data:`POWER`, and
(with ``equivalence``) the smallest margin the TOST passes an equal candidate with."""


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
    """One row per measure, columns :data:`GATE_COLUMNS`, :data:`EQUIVALENCE_COLUMNS` and
    :data:`DETECTABLE_COLUMNS` (see :func:`gate`)."""
    passed: bool
    """True when every asked verdict (not worse, equivalent) holds on every measure."""
    plan: ResamplingPlan | None = None
    """Whether the bounds and the randomization test resampled or took their normal limits
    (``large_sample``)."""


def gate(
    table: Table,
    measures: Sequence[str],
    *,
    baseline: object,
    candidate: object,
    max_drop: float | None = None,
    equivalence: float | None = None,
    missing: MissingPolicy = DEFAULTS.missing,
    bootstrap: int = DEFAULTS.bootstrap,
    alpha: float = DEFAULTS.alpha,
    seed: int = DEFAULTS.seed,
    correction: Correction = GATE_CORRECTION,
    bootstrap_method: BootstrapMethod = DEFAULTS.bootstrap_method,
    test: Test = GATE_TEST,
    trials: int = DEFAULTS.trials,
    weight: str | None = None,
    large_sample: LargeSample = DEFAULTS.large_sample,
    **columns: Unpack[ColumnOptions],
) -> GateResult:
    """Test, per measure, that the candidate is not worse than the baseline by ``max_drop``,
    or within ``equivalence`` of it on either side (or both).

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
        The non-inferiority margin, >= 0: the largest drop of the mean the candidate may
        show.
    equivalence
        The equivalence margin, > 0: the candidate's mean must lie within ``(-equivalence,
        +equivalence)`` of the baseline's (for a distilled or quantized ranker that must
        neither lose nor change much). Give ``max_drop``, ``equivalence`` or both: with
        both, every measure gets both verdicts and the gate passes when all hold.
    missing
        A query one of the two systems lacks: scores 0 (``"zero"``) or is left out
        (``"common"``), as in :func:`polars_graded.stats.grid.compared_queries`.
    bootstrap
        Bootstrap resamples of the queries for the bounds.
    alpha
        Level of each one-sided test, in (0, 1); the bootstrap bounds are the ``alpha`` and
        ``1 - alpha`` quantiles (the ``1 - 2 alpha`` interval of the TOST).
    seed
        Seeds the resamples; the same call gives the same numbers.
    correction
        The correction of the p-values across the measures (the family: this call's
        measures; the non-inferiority and the equivalence p-values each on their own):
        ``"none"`` (default, :data:`~polars_graded.stats.options.GATE_CORRECTION`:
        the verdict needs every measure to pass, which holds the error at ``alpha``
        already), ``"bonferroni"``, ``"holm"``, ``"holm-sidak"`` or ``"bh"``
        (:func:`~polars_graded.stats.corrections.adjust`).
    bootstrap_method
        How the bounds are read from the resamples: ``"percentile"`` (default) or ``"bca"``
        (:func:`~polars_graded.stats.one_sided.bootstrap_lower`).
    test
        The one-sided test of the decision, on the differences shifted by the margin
        (Notes): ``"t"`` (default, :data:`~polars_graded.stats.options.GATE_TEST`),
        ``"wilcoxon"`` or ``"randomization"``.
    trials
        Random sign flips of ``test="randomization"`` (the command line draws
        ``--bootstrap`` of them).
    weight
        A column of per-query traffic weights (constant within a query, checked by
        :func:`polars_graded.weights.check_weights`): every mean, difference, test and bound
        is then of the weighted mean ``sum(w v) / sum(w)``: the weighted t-test
        (:func:`~polars_graded.stats.resampling.weighted_t`: linearization standard error
        with the HC1 factor, df ``n - 1``), sign flips of ``w d``, a bootstrap of queries
        that carry their weights; ``test="wilcoxon"`` has no weighted form. The queries stay
        the sampled units.
    large_sample
        ``"auto"`` (default): the bootstrap bounds and ``test="randomization"`` resample
        while queries x draws is at most
        :data:`~polars_graded.stats.options.RESAMPLING_BUDGET`, else take their normal
        limits (:func:`~polars_graded.stats.limits.normal_interval` with
        :func:`~polars_graded.stats.limits.bootstrap_sd`, and the one-sided
        :func:`~polars_graded.stats.limits.normal_randomization_p`), as the comparisons do
        (:func:`~polars_graded.stats.limits.resampling_plan`); ``"resample"`` or
        ``"normal"`` decide for both. The t-test and Wilcoxon are closed forms either way.
    **columns
        The table's options (``by=``, default ``"system"``, one column; ``query=`` ...).

    Returns
    -------
    GateResult
        ``.table``: one row per measure, in the given order: ``measure``, ``n_queries``
        (compared), with ``weight`` ``n_effective`` (Kish's ``(sum w)^2 / sum w^2``),
        ``baseline_mean``, ``candidate_mean``, ``diff`` (candidate minus
        baseline), ``lower`` (one-sided bootstrap lower bound of the mean difference at
        level ``1 - alpha``, ``bootstrap_method``); with ``max_drop``: ``p_value`` (the
        one-sided p-value of ``test``, below), ``p_adjusted`` (``p_value`` corrected across
        the measures; ``p_value`` itself with the default ``correction="none"``),
        ``not_worse`` (``p_adjusted < alpha``); with ``equivalence``: ``upper`` (the
        bootstrap upper bound: ``[lower, upper]`` is the ``1 - 2 alpha`` interval),
        ``p_equivalence`` (the TOST's p-value, the larger of its two one-sided p-values),
        ``p_equivalence_adjusted`` and ``equivalent`` (``p_equivalence_adjusted < alpha``);
        then ``detectable``, the smallest true drop (or gain) the one-sided t-test at
        ``alpha`` detects with 80% power (:data:`~polars_graded.stats.power.POWER`) on
        these queries: a ``max_drop`` below it passes an equal candidate less than 80% of
        the time; and ``detectable_equivalence`` (with ``equivalence``: the smallest margin
        whose TOST passes an equal candidate with at least 80% power, each side at 90%).
        Both are null when the differences do not vary
        (:func:`~polars_graded.stats.power.detectable_difference`).
        ``.passed``: every ``not_worse`` and ``equivalent`` true. ``.table`` is a Polars
        DataFrame, whatever the input's kind.

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
    one-sided alternative, so the margin means the same to each
    (:func:`~polars_graded.stats.one_sided.shifted_p`).
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

    Equivalence is the two one-sided tests (TOST, Schuirmann 1987) with the same ``test``:
    ``H0: mean(d) <= -equivalence`` (on ``d + equivalence``) and ``H0: mean(d) >=
    equivalence`` (on ``equivalence - d``); ``p_equivalence`` is the larger p-value, so
    equivalence is shown when both are below ``alpha``: a test at level ``alpha``, whose
    matching interval is the ``1 - 2 alpha`` one (``[lower, upper]``). With the t-test it is
    statsmodels' ``ttost_paired(candidate, baseline, -equivalence, equivalence)``.

    Raises
    ------
    InvalidValueError
        Neither ``max_drop`` nor ``equivalence``; an unknown or repeated system,
        ``max_drop`` < 0, ``equivalence`` <= 0 or either not finite, fewer than two
        compared queries, a bad weight, ``test="wilcoxon"`` with a weight, or a bad
        ``missing``, ``bootstrap`` or ``trials`` (at most
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
    >>> equal = gate(table, ["ap"], baseline="prod", candidate="new", equivalence=0.01)
    >>> equal.table.select("p_equivalence", "equivalent").row(0)
    (0.0, True)
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
        large_sample=large_sample,
    )
    _check_margins(max_drop, equivalence)
    if weight is not None and test == "wilcoxon":
        shifted_p(np.zeros(2), 0.0, statistics, np.ones(2))  # its error, before the work
    import_t()  # before the work: a missing scipy is found at once
    lazy = frame.lazy()
    check_two_systems(lazy, by, baseline, candidate)
    pair = lazy.filter(pl.col(by).is_in([baseline, candidate]))
    query = columns.get("query", "query")
    if weight is not None:
        check_weights(pair, weight, [query])
    per_query = evaluate(pair, measures, **columns).collect()
    names = [c for c in per_query.columns if c not in (by, query, weight)]
    grid = query_grid(per_query, [baseline, candidate], statistics.missing, by=by, query=query)
    values = grid.select(names).to_numpy().T.reshape(len(names), 2, -1)
    _check_queries(values.shape[2])
    weights = None
    if weight is not None:
        weights = _query_weights(
            pair, per_query, weight, by=by, query=query, missing=statistics.missing
        )
    plan = resampling_plan(values.shape[2], 2, statistics)
    rows = [
        _measure_row(
            name,
            v[0],
            v[1],
            max_drop=max_drop,
            equivalence=equivalence,
            statistics=statistics,
            weights=weights,
            plan=plan,
        )
        for name, v in zip(names, values, strict=True)
    ]
    out = pl.DataFrame(rows, schema=_schema(max_drop, equivalence), orient="row")
    if weights is not None:  # how many equally weighted queries the weighted mean is worth
        effective = float(weights.sum() ** 2 / np.square(weights).sum())
        out = out.insert_column(2, pl.Series("n_effective", [effective] * out.height))
    return _verdict(out, statistics, plan)


_VERDICTS: Final = (("p_value", "p_adjusted", "not_worse"), EQUIVALENCE_COLUMNS[1:])
"""Each verdict's p-value, its corrected p-value and its flag."""


def _verdict(out: pl.DataFrame, statistics: Statistics, plan: ResamplingPlan) -> GateResult:
    """The corrected p-values and flags of the asked verdicts, and whether all hold."""
    passed = True
    for p_value, adjusted, flag in _VERDICTS:
        if p_value not in out.columns:
            continue
        p = adjust(out.get_column(p_value).to_numpy(), statistics.correction)
        out = out.with_columns(pl.Series(adjusted, p)).with_columns(
            (pl.col(adjusted) < statistics.alpha).alias(flag)
        )
        passed = passed and bool(out.get_column(flag).all())
    return GateResult(out, passed=passed, plan=plan)


def _schema(max_drop: float | None, equivalence: float | None) -> dict[str, pl.DataType]:
    """The columns of the asked verdicts, in order, with their types."""
    names = list(GATE_COLUMNS[:6])
    if max_drop is not None:
        names += GATE_COLUMNS[6:]
    if equivalence is not None:
        names += EQUIVALENCE_COLUMNS
    names += DETECTABLE_COLUMNS if equivalence is not None else DETECTABLE_COLUMNS[:1]
    types = {"measure": pl.String(), "n_queries": pl.Int64()}
    flags = ("not_worse", "equivalent")
    return {n: types.get(n, pl.Boolean() if n in flags else pl.Float64()) for n in names}


def _measure_row(
    name: str,
    base: np.ndarray,
    cand: np.ndarray,
    *,
    max_drop: float | None,
    equivalence: float | None,
    statistics: Statistics,
    weights: np.ndarray | None,
    plan: ResamplingPlan,
) -> tuple[object, ...]:
    """One measure's row of the verdict (the corrected p-values and the flags are set
    across the measures, :func:`_verdict`; here the flags are placeholders)."""
    d, alpha = cand - base, statistics.alpha
    levels = (alpha,) if equivalence is None else (alpha, 1 - alpha)
    if plan.normal("bootstrap"):  # resampling would cost more than its precision buys
        single = d[None]
        sd = bootstrap_sd(single, weights)
        bounds = normal_interval(weighted_mean(single, weights), sd, levels)[:, 0]
    else:
        bounds = bootstrap_bounds(
            d, levels, statistics.bootstrap, statistics.seed, statistics.bootstrap_method,
            weights=weights,
        )  # fmt: skip
    means = [float(x.mean()) for x in (base, cand, d)]
    if weights is not None:
        means = [float(x @ weights / weights.sum()) for x in (base, cand, d)]
    row: list[object] = [name, d.size, *means, float(bounds[0])]
    if max_drop is not None:
        p = shifted_p(d, max_drop, statistics, weights, normal=plan.normal("randomization"))
        row += [p, p, False]
    detectable = detectable_difference(d, alpha, POWER, weights=weights, alternative="larger")
    if equivalence is None:
        return (*row, detectable)
    p = tost_p(d, equivalence, statistics, weights, normal=plan.normal("randomization"))
    both = detectable_difference(d, alpha, (1 + POWER) / 2, weights=weights, alternative="larger")
    return (*row, float(bounds[1]), p, p, False, detectable, both)


def _query_weights(
    pair: pl.LazyFrame,
    per_query: pl.DataFrame,
    weight: str,
    *,
    by: str,
    query: str,
    missing: MissingPolicy,
) -> np.ndarray:
    """The weight of each compared query, in the grid's (sorted) order."""
    queries = compared_queries(per_query, missing, by=by, query=query).to_frame()
    known = query_weights(pair, weight, [query]).collect()
    aligned = queries.join(known, on=query, how="left", maintain_order="left")
    return aligned.get_column(weight).cast(pl.Float64).to_numpy()


def _check_margins(max_drop: object, equivalence: object) -> None:
    if max_drop is None and equivalence is None:
        msg = (
            "give max_drop= (non-inferiority: the largest drop allowed, e.g. 0.01), "
            "equivalence= (within +-margin, e.g. 0.01) or both"
        )
        raise InvalidValueError(msg)
    if max_drop is not None:
        _check_margin(max_drop)
    if equivalence is not None and (
        isinstance(equivalence, bool)
        or not isinstance(equivalence, int | float | np.floating)
        or not 0 < equivalence < np.inf
    ):
        msg = f"equivalence must be a finite number > 0 (a margin, e.g. 0.01), got {equivalence!r}"
        raise InvalidValueError(msg)


def _check_margin(max_drop: object) -> None:
    if (
        isinstance(max_drop, bool)
        or not isinstance(max_drop, int | float | np.floating)
        or not 0 <= max_drop < np.inf
    ):
        msg = f"max_drop must be a finite number >= 0, got {max_drop!r}"
        raise InvalidValueError(msg)


def _check_queries(n: int) -> None:
    if n < 2:
        msg = f"the gate needs at least 2 compared queries for its t-test, found {n}"
        raise InvalidValueError(msg)
