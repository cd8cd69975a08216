"""Compare every pair of systems: paired randomization tests corrected across pairs, and
the randomized Tukey HSD.

:func:`compare_pairs` (also ``compare(..., pairs="all")``) takes the per-query table of
``pg.evaluate(table, measures, by="system")`` and tests, per measure, every system against
every other. It reads the grid of :func:`~polars_graded.stats.grid.value_matrix`, and
draws the bootstrap, the sign-flip test and the randomized Tukey HSD of
:mod:`polars_graded.stats.resampling` (one sign matrix and one resample matrix shared by
every pair and measure), corrected across pairs by
:func:`~polars_graded.stats.corrections.adjust`; :func:`significance_matrix` shows one
measure's result as a system-by-system matrix, and :func:`compact_letters` as letters
(systems that share one do not differ significantly).
"""

from __future__ import annotations

import string
import warnings
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np
import polars as pl

from polars_graded.defaults import SYSTEM
from polars_graded.errors import InvalidValueError
from polars_graded.frames import Table, as_polars
from polars_graded.stats.corrections import adjust
from polars_graded.stats.effects import change_pct, cohens_dz
from polars_graded.stats.grid import (
    P_VALUES,
    by_column,
    check_weighted_test,
    compared_weights,
    value_matrix,
)
from polars_graded.stats.limits import (
    ResamplingPlan,
    bootstrap_sd,
    normal_interval,
    normal_randomization_p,
    normal_tukey_p,
    resampling_plan,
    weighted_mean,
)
from polars_graded.stats.options import (
    DEFAULTS,
    BootstrapMethod,
    Correction,
    LargeSample,
    MissingPolicy,
    Statistics,
    Test,
)
from polars_graded.stats.resampling import (
    TIE_TOLERANCE,
    bootstrap_interval,
    bootstrap_means,
    import_ttest,
    jackknife_acceleration,
    randomization_p,
    tukey_hsd_p,
    weighted_t,
)
from polars_graded.stats.wilcoxon import wilcoxon_p


def compare_pairs(
    per_query: Table,
    measures: Sequence[str] | None = None,
    *,
    by: str | Sequence[str] = SYSTEM,
    query: str = "query",
    missing: MissingPolicy = DEFAULTS.missing,
    trials: int = DEFAULTS.trials,
    bootstrap: int = DEFAULTS.bootstrap,
    confidence: float = DEFAULTS.confidence,
    alpha: float = DEFAULTS.alpha,
    seed: int = DEFAULTS.seed,
    correction: Correction = DEFAULTS.correction,
    bootstrap_method: BootstrapMethod = DEFAULTS.bootstrap_method,
    test: Test = DEFAULTS.test,
    weight: str | None = None,
    large_sample: LargeSample = DEFAULTS.large_sample,
) -> pl.DataFrame:
    """Compare every pair of systems, per measure, with paired tests corrected across pairs.

    Parameters
    ----------
    per_query, measures, by, query, missing, trials, bootstrap, confidence, seed
        As in :func:`polars_graded.stats.compare.compare` (``per_query`` a Polars, pandas or
        Arrow table); ``trials`` serves both tests.
    weight, large_sample
        As in :func:`polars_graded.stats.compare.compare`: a traffic weight per query (every
        mean, interval and test weighted, ``p_wilcoxon`` null; the randomized Tukey HSD
        permutes the weighted values), and whether each resampling procedure (the
        bootstrap, the sign flips, the Tukey permutations) resamples or takes its normal
        limit (:func:`~polars_graded.stats.limits.resampling_plan`). ``wins``, ``ties``
        and ``losses`` count queries, unweighted.
    correction
        How ``p_randomization`` is corrected across the pairs of each measure (the family:
        every pair of one measure): ``"bonferroni"``, ``"holm"`` (Holm–Bonferroni,
        default), ``"holm-sidak"``, ``"bh"`` (Benjamini–Hochberg) or ``"none"``
        (:func:`~polars_graded.stats.corrections.adjust`).
    bootstrap_method
        ``"percentile"`` (default) or ``"bca"``: how ``diff_ci_low`` and ``diff_ci_high``
        are read from the resamples, as in :func:`~polars_graded.stats.compare.compare`.
    alpha
        Level at which ``significant`` is set, on the adjusted p-value of ``test``.
    test
        The paired two-sided test that decides ``significant``: ``"randomization"``
        (default), ``"t"`` or ``"wilcoxon"``, as in
        :func:`~polars_graded.stats.compare.compare`; each is computed and corrected
        whatever the choice. (``p_tukey`` never decides ``significant``; pass
        ``p_value="p_tukey"`` to :func:`compact_letters` for its letters.)

    Returns
    -------
    DataFrame
        A Polars DataFrame, whatever the input's kind.
        One row per (measure, pair ``a < b`` of systems in sorted order), by measure in the
        given order, then ``a``, then ``b``. Columns:

        - ``{by}_a``, ``{by}_b`` (the input's dtype), ``measure`` (String), ``n_queries``;
        - ``mean_a``, ``mean_b``; ``diff`` = ``mean_b - mean_a`` (positive: ``b`` better);
          ``diff_ci_low``, ``diff_ci_high``: bootstrap interval (``bootstrap_method``) of the
          paired mean difference;
        - ``d_z``: Cohen's d_z of the per-query differences ``b - a``, and ``change_pct``:
          ``100 * diff / mean_a``, as :func:`~polars_graded.stats.compare.compare` computes
          them with ``a`` as the baseline (null where undefined);
        - ``wins``, ``ties``, ``losses`` (Int64): queries where ``b`` scores above, within
          ``TIE_TOLERANCE`` (absolute) of, and below ``a``;
        - ``p_randomization``: the paired two-sided sign-flip test of
          :func:`~polars_graded.stats.compare.compare`; ``p_randomization_adjusted``: corrected
          across the pairs of the measure by ``correction``;
        - ``p_ttest``, ``p_ttest_adjusted``: the paired two-sided t-test
          (``scipy.stats.ttest_rel(b, a)``; 1.0 when every difference is 0, null with one
          query), corrected likewise;
        - ``p_wilcoxon``, ``p_wilcoxon_adjusted``: the Wilcoxon signed-rank test of
          :func:`~polars_graded.stats.compare.compare`, corrected likewise;
        - ``p_tukey``: randomized Tukey HSD p-value
          (:func:`~polars_graded.stats.resampling.tukey_hsd_p`), which controls
          the error over all pairs by itself;
        - ``significant`` (Boolean): the adjusted p-value of ``test`` ``< alpha``
          (``p_randomization_adjusted < alpha`` by default).

    Raises
    ------
    InvalidValueError
        A bad ``correction`` or ``test``, or as :func:`~polars_graded.stats.compare.compare`.
    MissingColumnError, ColumnTypeError, DuplicateKeyError
        As :func:`~polars_graded.stats.compare.compare`.
    ImportError
        scipy is not installed.

    Examples
    --------
    >>> import polars as pl
    >>> per_query = pl.DataFrame({
    ...     "system": ["a"] * 4 + ["b"] * 4 + ["c"] * 4,
    ...     "query": [1, 2, 3, 4] * 3,
    ...     "ap": [0.2, 0.4, 0.1, 0.5, 0.3, 0.6, 0.2, 0.5, 0.9, 0.8, 0.7, 0.9],
    ... })
    >>> out = compare_pairs(per_query, trials=1000, bootstrap=1000)
    >>> cols = ["system_a", "system_b", pl.col("diff").round(3), "wins", "ties", "losses"]
    >>> out.select(cols).rows()
    [('a', 'b', 0.1, 3, 1, 0), ('a', 'c', 0.525, 4, 0, 0), ('b', 'c', 0.425, 4, 0, 0)]
    """
    frame = as_polars(per_query, "compare_pairs")
    by = by_column(by)
    options = (missing, trials, bootstrap, confidence, alpha, seed, correction)
    statistics = Statistics(
        *options, test=test, bootstrap_method=bootstrap_method, large_sample=large_sample
    )
    import_ttest()  # before the work: a missing scipy is found at once
    return compare_pairs_with(frame, measures, statistics, by=by, query=query, weight=weight)


def compare_pairs_with(
    per_query: pl.DataFrame | pl.LazyFrame,
    measures: Sequence[str] | None,
    statistics: Statistics,
    *,
    by: str = SYSTEM,
    query: str = "query",
    weight: str | None = None,
) -> pl.DataFrame:
    """:func:`compare_pairs` with its options checked already, as ``statistics``; ``by``
    names one column.

    Examples
    --------
    >>> per_query = pl.DataFrame(
    ...     {"system": ["a", "a", "b", "b"], "query": [1, 2, 1, 2], "ap": [0.5, 1.0, 1.0, 1.0]}
    ... )
    >>> out = compare_pairs_with(per_query, None, Statistics(trials=99, bootstrap=99))
    >>> out.select("system_a", "system_b", "diff", "wins").rows()
    [('a', 'b', 0.25, 1)]
    """
    check_weighted_test(weight, statistics.test)
    frame = per_query.collect() if isinstance(per_query, pl.LazyFrame) else per_query
    names, systems, values, _ = value_matrix(
        frame, measures, weight=weight, by=by, query=query, missing=statistics.missing
    )
    weights = compared_weights(frame, weight, by=by, query=query, missing=statistics.missing)
    first, second = np.triu_indices(systems.len(), k=1)
    rng_boot, rng_flip, rng_perm = (
        np.random.default_rng(s) for s in np.random.SeedSequence(statistics.seed).spawn(3)
    )
    plan = resampling_plan(values.shape[2], values.shape[1], statistics)
    differences = values[:, second] - values[:, first]
    mean = weighted_mean(values, weights)
    columns = {
        **_means(values, (first, second), statistics, rng=rng_boot, weights=weights, plan=plan),
        "d_z": cohens_dz(differences, weights),
        "change_pct": change_pct(mean[:, second], mean[:, first]),
        **_counts(differences),
        **_tests(
            values,
            (first, second),
            statistics,
            rngs=(rng_flip, rng_perm),
            weights=weights,
            plan=plan,
        ),
    }
    n_measures, n_pairs = len(names), first.size
    out = pl.DataFrame(
        {
            f"{by}_a": systems.gather(np.tile(first, n_measures)),
            f"{by}_b": systems.gather(np.tile(second, n_measures)),
            "measure": np.repeat(np.array(names, dtype=object), n_pairs).tolist(),
            "n_queries": np.full(n_measures * n_pairs, values.shape[2], dtype=np.int64),
            **{name: column.ravel() for name, column in columns.items()},
        },
        schema_overrides={"measure": pl.String},
    )
    # NaN marks what is undefined (a d_z without spread, a t-test on one query): null.
    out = out.with_columns(pl.col(pl.Float64).fill_nan(None))
    decides = pl.col(f"{P_VALUES[statistics.test]}_adjusted")
    return out.with_columns(significant=(decides < statistics.alpha).fill_null(False))


def _means(
    values: np.ndarray,
    pairs: tuple[np.ndarray, np.ndarray],
    statistics: Statistics,
    *,
    rng: np.random.Generator,
    weights: np.ndarray | None,
    plan: ResamplingPlan,
) -> dict[str, np.ndarray]:
    """Means of each pair's systems, their difference and its paired bootstrap interval
    (or its normal limit, when ``plan`` says so), as (measure, pair)."""
    first, second = pairs
    n_measures, n_systems, n_queries = values.shape
    mean = weighted_mean(values, weights)
    resamples, confidence = statistics.bootstrap, statistics.confidence
    quantiles = [(1 - confidence) / 2, (1 + confidence) / 2]
    if plan.normal("bootstrap"):
        sd = bootstrap_sd(values[:, second] - values[:, first], weights)
        diff_ci = normal_interval(mean[:, second] - mean[:, first], sd, quantiles)
    else:
        flat = values.reshape(n_measures * n_systems, n_queries)
        boot = bootstrap_means(flat, resamples, rng, weights)
        boot = boot.reshape(n_measures, n_systems, resamples)
        method = statistics.bootstrap_method
        # One measure at a time: (pair, resample) differences stay small.
        diff_ci = np.stack(
            [
                bootstrap_interval(
                    b[second] - b[first],
                    quantiles,
                    method,
                    estimate=m[second] - m[first],
                    acceleration=partial(jackknife_acceleration, v, pairs, weights),
                )
                for v, b, m in zip(values, boot, mean, strict=True)
            ],
            axis=1,
        )
    return {
        "mean_a": mean[:, first],
        "mean_b": mean[:, second],
        "diff": mean[:, second] - mean[:, first],
        "diff_ci_low": diff_ci[0],
        "diff_ci_high": diff_ci[1],
    }


def _counts(differences: np.ndarray) -> dict[str, np.ndarray]:
    """Queries where ``b`` wins, ties (within ``TIE_TOLERANCE``) and loses, per pair."""
    ties = (np.abs(differences) <= TIE_TOLERANCE).sum(axis=2)
    wins = (differences > TIE_TOLERANCE).sum(axis=2)
    return {"wins": wins, "ties": ties, "losses": differences.shape[2] - wins - ties}


def _tests(
    values: np.ndarray,
    pairs: tuple[np.ndarray, np.ndarray],
    statistics: Statistics,
    *,
    rngs: tuple[np.random.Generator, np.random.Generator],
    weights: np.ndarray | None,
    plan: ResamplingPlan,
) -> dict[str, np.ndarray]:
    """Sign-flip, t-test and Wilcoxon p, each corrected across pairs, and Tukey HSD p, as
    (measure, pair); the sign flips and the Tukey permutations by their normal limits when
    ``plan`` says so, the Wilcoxon test NaN with weights (no weighted form)."""
    first, second = pairs
    trials = statistics.trials
    n_measures, _, n_queries = values.shape
    differences = values[:, second] - values[:, first]
    rows = differences.reshape(-1, n_queries)
    if plan.normal("randomization"):
        p_flip = normal_randomization_p(rows, weights)
    else:
        p_flip = randomization_p(rows, trials, rngs[0], weights)
    if weights is None:
        p_t = _ttest_p(import_ttest(), values, pairs)
        p_wilcoxon = wilcoxon_p(differences)
    else:
        p_t = weighted_t(differences, weights)[1]
        p_wilcoxon = np.full(p_t.shape, np.nan)
    p_values = {
        P_VALUES["randomization"]: p_flip.reshape(n_measures, first.size),
        P_VALUES["t"]: p_t,
        P_VALUES["wilcoxon"]: p_wilcoxon,
    }
    if plan.normal("tukey"):
        p_tukey = np.stack([normal_tukey_p(v, weights)[first, second] for v in values])
    else:
        # Up to 4 systems one permutation draw serves every measure.
        p_tukey = tukey_hsd_p(values, trials, rngs[1], weights)[:, first, second]
    tests = {}
    for name, p in p_values.items():
        tests[name] = p
        tests[f"{name}_adjusted"] = adjust(p, statistics.correction)
    return {**tests, "p_tukey": p_tukey}


def _ttest_p(
    ttest_rel: Any, values: np.ndarray, pairs: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """``scipy.stats.ttest_rel(b, a)``'s two-sided p per (measure, pair): 1.0 where every
    difference is 0 (scipy's 0/0), NaN with fewer than two queries."""
    first, second = pairs
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # 0/0 and df = 0: handled here
        p = np.asarray(ttest_rel(values[:, second], values[:, first], axis=2).pvalue, float)
    identical = (values[:, second] == values[:, first]).all(axis=2) & (values.shape[2] >= 2)
    out: np.ndarray = np.where(identical, 1.0, p)
    return out


def significance_matrix(
    pairs: pl.DataFrame,
    measure: str,
    *,
    by: str = SYSTEM,
    p_value: str = "p_randomization_adjusted",
    alpha: float = DEFAULTS.alpha,
) -> pl.DataFrame:
    """The result of :func:`compare_pairs` for one measure as a system-by-system matrix.

    One row per system (column ``by``, sorted) and one String column per system (named by
    its value as a string): ``">"`` where the row's system is significantly better than
    the column's (``p_value`` below ``alpha``), ``"<"`` where it is significantly worse,
    ``"="`` where the difference is not significant, null on the diagonal.

    Examples
    --------
    >>> per_query = pl.DataFrame({
    ...     "system": ["a"] * 6 + ["b"] * 6 + ["c"] * 6,
    ...     "query": list(range(6)) * 3,
    ...     "ap": [0.1, 0.2, 0.1, 0.2, 0.1, 0.2] * 2 + [0.9, 0.8, 0.9, 0.8, 0.9, 0.8],
    ... })
    >>> pairs = compare_pairs(per_query, trials=1000, bootstrap=10, correction="none")
    >>> significance_matrix(pairs, "ap").rows()
    [('a', None, '=', '<'), ('b', '=', None, '<'), ('c', '>', '>', None)]
    """
    rows = _measure_rows(pairs, measure)
    a, b = pl.col(f"{by}_a"), pl.col(f"{by}_b")
    significant = pl.col(p_value) < alpha
    better = pl.when(~significant).then(pl.lit("=")).when(pl.col("diff") > 0)
    cells = pl.concat(
        [
            rows.select(
                a.alias(by),
                b.alias("__pg_other"),
                __pg_mark=better.then(pl.lit("<")).otherwise(pl.lit(">")),
            ),
            rows.select(
                b.alias(by),
                a.alias("__pg_other"),
                __pg_mark=better.then(pl.lit(">")).otherwise(pl.lit("<")),
            ),
        ]
    )
    systems = cells.get_column(by).unique().sort()
    grid = cells.with_columns(pl.col("__pg_other").cast(pl.String)).pivot(
        "__pg_other", index=by, values="__pg_mark"
    )
    names = systems.cast(pl.String).to_list()
    return systems.to_frame().join(grid, on=by, how="left").select(by, *names)


def compact_letters(
    pairs: pl.DataFrame,
    measure: str,
    order: Sequence[object] | None = None,
    *,
    by: str = SYSTEM,
    p_value: str = "p_randomization_adjusted",
    alpha: float = DEFAULTS.alpha,
) -> pl.DataFrame:
    """The compact letter display of one measure of :func:`compare_pairs`: two systems
    share a letter exactly when their difference is not significant.

    The letters come from the insert-and-absorb algorithm of Piepho (2004, "An algorithm
    for a letter-based representation of all-pairwise comparisons", J. Comput. Graph.
    Stat. 13(2)): one letter holds every system; for each significant pair, each letter
    holding both systems is split in two (one without each system), then every letter
    whose systems another letter also holds is absorbed; last, the sweep takes every
    letter a system does not need away from it (:func:`insert_absorb`). The systems are taken best
    first (``order``, default by mean, highest first, then by name); letters are named
    ``a``, ``b``, ... by their best system, so the best mean has ``a``.

    Parameters
    ----------
    pairs
        The output of :func:`compare_pairs`.
    measure
        The measure to show.
    order
        The systems, best first (default: by mean, highest first, then by value).
    by, p_value, alpha
        As in :func:`significance_matrix`: a pair differs when ``p_value < alpha``.

    Returns
    -------
    DataFrame
        One row per system in ``order``: ``by`` (the systems' dtype), ``mean`` and
        ``letters`` (String; the letters run ``a``-``z``, ``A``-``Z``, then ``a2`` and on,
        separated by spaces once there are more than 52).

    Raises
    ------
    InvalidValueError
        ``measure`` is not in ``pairs``, or ``order`` is not a permutation of its systems.

    Examples
    --------
    >>> per_query = pl.DataFrame({
    ...     "system": ["a"] * 6 + ["b"] * 6 + ["c"] * 6,
    ...     "query": list(range(6)) * 3,
    ...     "ap": [0.1, 0.2, 0.1, 0.2, 0.1, 0.2] * 2 + [0.9, 0.8, 0.9, 0.8, 0.9, 0.8],
    ... })
    >>> pairs = compare_pairs(per_query, trials=1000, bootstrap=10, correction="none")
    >>> compact_letters(pairs, "ap").select("system", "letters").rows()
    [('c', 'a'), ('a', 'b'), ('b', 'b')]
    """
    rows = _measure_rows(pairs, measure)
    means = pl.concat(
        [
            rows.select(pl.col(f"{by}_{side}").alias(by), pl.col(f"mean_{side}").alias("mean"))
            for side in ("a", "b")
        ]
    ).unique(by, keep="first", maintain_order=True)
    systems = _ordered(means, by, order)
    index = {value: i for i, value in enumerate(systems)}
    differ = rows.filter(pl.col(p_value) < alpha).select(f"{by}_a", f"{by}_b").rows()
    significant = sorted((min(index[a], index[b]), max(index[a], index[b])) for a, b in differ)
    columns = insert_absorb(len(systems), significant)
    names = _letter_names(len(columns))
    joiner = " " if any(len(n) > 1 for n in names) else ""
    letters = [
        joiner.join(n for n, column in zip(names, columns, strict=True) if i in column)
        for i in range(len(systems))
    ]
    frame = pl.DataFrame({by: systems, "letters": letters}, schema_overrides={by: means[by].dtype})
    return frame.join(means, on=by, how="left", maintain_order="left").select(by, "mean", "letters")


def insert_absorb(n: int, significant: Sequence[tuple[int, int]]) -> list[frozenset[int]]:
    """Piepho's insert-and-absorb, then his sweep: the letters (sets of systems ``0..n-1``)
    such that two systems share one exactly when their pair is not in ``significant``.

    The sweep takes a system out of a letter when every other system of that letter
    shares another letter with it, so that no system carries a letter it does not need.
    Returns the letters sorted by their systems (the letter holding system 0 first).

    Examples
    --------
    >>> [sorted(c) for c in insert_absorb(3, [(0, 2)])]
    [[0, 1], [1, 2]]
    """
    columns: list[frozenset[int]] = [frozenset(range(n))] if n else []
    for i, j in significant:
        split: list[frozenset[int]] = []
        for column in columns:
            if i in column and j in column:
                split += [column - {i}, column - {j}]
            else:
                split.append(column)
        columns = _absorb(split)
    return sorted(_absorb(_sweep(columns)), key=sorted)


def _absorb(columns: list[frozenset[int]]) -> list[frozenset[int]]:
    """Drop every letter another one holds (and repeats, keeping the first)."""
    unique = list(dict.fromkeys(columns))
    return [c for c in unique if c and not any(c < other for other in unique)]


def _sweep(columns: list[frozenset[int]]) -> list[frozenset[int]]:
    """Take each system out of each letter it does not need, letter by letter."""
    out = list(columns)
    for k in range(len(out)):
        for system in sorted(out[k]):
            others = [c for m, c in enumerate(out) if m != k and system in c]
            needed = out[k] - {system} - frozenset().union(*others)
            if others and not needed:
                out[k] = out[k] - {system}
    return out


def _measure_rows(pairs: pl.DataFrame, measure: str) -> pl.DataFrame:
    """The rows of ``measure``; refused when there are none."""
    rows = pairs.filter(pl.col("measure") == measure)
    if rows.is_empty():
        msg = f"measure {measure!r} is not in the comparison; it has {pairs['measure'].unique()}"
        raise InvalidValueError(msg)
    return rows


def _ordered(means: pl.DataFrame, by: str, order: Sequence[object] | None) -> list[object]:
    """The systems best first: ``order``, checked, or by mean (highest first), then value."""
    ranked = means.sort(["mean", by], descending=[True, False])[by].to_list()
    if order is None:
        return ranked
    wanted = list(order)
    if sorted(map(str, wanted)) != sorted(map(str, ranked)) or len(set(wanted)) != len(wanted):
        msg = f"order must list each system of the comparison once: {ranked}, got {wanted}"
        raise InvalidValueError(msg)
    by_text = {str(v): v for v in ranked}
    return [by_text[str(v)] for v in wanted]


def _letter_names(count: int) -> list[str]:
    """``a``-``z``, ``A``-``Z``, then ``a2``-``Z2`` and on."""
    alphabet = string.ascii_lowercase + string.ascii_uppercase
    size = len(alphabet)
    return [alphabet[i % size] + (str(i // size + 1) if i >= size else "") for i in range(count)]
