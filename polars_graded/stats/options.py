"""The options of the statistics, their defaults and their checks, in one place.

Every comparison of systems (:func:`~polars_graded.stats.compare.compare`,
:func:`~polars_graded.stats.pairs.compare_pairs`,
:func:`~polars_graded.stats.segments.compare_segments`, :func:`~polars_graded.stats.gate.gate`, the
report and the command line) takes the same options: which queries count when systems lack
some (``missing``), the randomization trials, the bootstrap resamples, the coverage of the
intervals and how they are computed, the significance level, the seed, the multiple-testing
correction, the test, and whether large samples are resampled or take the normal limit
(``large_sample``, with :data:`RESAMPLING_BUDGET`). :class:`Statistics` holds them, checked;
:data:`DEFAULTS` is where each default is written.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Final, Literal, TypedDict, cast, get_args

import numpy as np

from polars_graded.errors import InvalidValueError

MissingPolicy = Literal["zero", "common"]
"""Which queries a comparison counts when systems lack some (see
:func:`~polars_graded.stats.grid.compared_queries`)."""
MISSING_POLICIES: tuple[str, ...] = get_args(MissingPolicy)

Correction = Literal["bonferroni", "holm", "holm-sidak", "bh", "none"]
"""Multiple-testing corrections of p-values (:func:`~polars_graded.stats.corrections.adjust`):
Bonferroni, Holm–Bonferroni, Holm–Šidák, Benjamini–Hochberg (the false discovery rate), none;
statsmodels' ``multipletests`` methods ``"bonferroni"``, ``"holm"``, ``"holm-sidak"`` and
``"fdr_bh"``."""
CORRECTIONS: tuple[str, ...] = get_args(Correction)
CORRECTION_NAMES: Final[dict[str, str]] = {
    "bonferroni": "Bonferroni-corrected",
    "holm": "Holm-corrected",
    "holm-sidak": "Holm-Šidák-corrected",
    "bh": "Benjamini-Hochberg-corrected",
    "none": "not corrected",
}
"""How sentences (the report's, the LaTeX notes) name each correction of the p-values."""

GATE_CORRECTION: Final[Correction] = "none"
"""The default correction of :func:`~polars_graded.stats.gate.gate` across its measures (every
other comparison defaults to :data:`DEFAULTS`' Holm): the gate passes only when every measure
passes, an intersection-union test whose chance of passing a candidate that is worse on some
measure is at most alpha without any correction (Berger, Technometrics 1982); a correction
makes each measure's test stricter still."""

BootstrapMethod = Literal["percentile", "bca"]
"""How a bootstrap interval is read from the resampled means
(:func:`~polars_graded.stats.resampling.bootstrap_interval`): their plain quantiles
(``"percentile"``) or the bias-corrected and accelerated quantiles (``"bca"``, Efron 1987, as
``scipy.stats.bootstrap(method="BCa")``), better for skewed measures such as RR and P@1."""
BOOTSTRAP_METHODS: tuple[str, ...] = get_args(BootstrapMethod)

Test = Literal["randomization", "t", "wilcoxon"]
"""The paired two-sided test that decides significance (``significant``, the letters, the
report's marks): the sign-flip randomization test, the t-test (``scipy.stats.ttest_rel``) or
the Wilcoxon signed-rank test (``scipy.stats.wilcoxon``)."""
TESTS: tuple[str, ...] = get_args(Test)
TEST_NAMES: Final[dict[str, str]] = {
    "randomization": "two-sided paired randomization test",
    "t": "two-sided paired t-test",
    "wilcoxon": "two-sided Wilcoxon signed-rank test",
}
"""How sentences (the report's, the LaTeX notes) name each test."""

GATE_TEST: Final[Test] = "t"
"""The default test of :func:`~polars_graded.stats.gate.gate` (every comparison defaults to
:data:`DEFAULTS`' randomization test): the one-sided t-test on the differences shifted by the
margin, the gate's decision before ``test=`` existed, deterministic (no seed in the verdict)."""


LargeSample = Literal["auto", "resample", "normal"]
"""How the resampling procedures (bootstrap intervals, randomization test, randomized Tukey
HSD) are computed: ``"resample"`` draws the Monte Carlo resamples; ``"normal"`` takes the
normal (central-limit) limit of each resampling distribution, exact as the number of queries
grows and O(queries) to compute (:mod:`polars_graded.stats.limits`); ``"auto"`` resamples while
a procedure costs at most :data:`RESAMPLING_BUDGET` draws, else takes the limit
(:func:`~polars_graded.stats.limits.resampling_plan` decides, per procedure)."""
LARGE_SAMPLES: tuple[str, ...] = get_args(LargeSample)

RESAMPLING_BUDGET: Final = 500_000_000
"""The most draws ``large_sample="auto"`` resamples with: queries x trials (the
randomization test), queries x resamples (the bootstrap), queries x systems x trials (the
randomized Tukey HSD). Above it the normal limit is used. 5e8 keeps every procedure of a
10,000-query, 3-system comparison with the default 10,000 draws resampled (at most 3e8 draws,
a few seconds each) and moves 200,000 queries (2e9 draws and more, a minute each) to the
limit, whose Monte Carlo error at that size would exceed its own approximation error."""


class StatisticsKeywords(TypedDict):
    """The options of :class:`Statistics` as keyword arguments (:meth:`Statistics.keywords`)."""

    missing: MissingPolicy
    trials: int
    bootstrap: int
    confidence: float
    alpha: float
    seed: int
    correction: Correction
    test: Test
    bootstrap_method: BootstrapMethod
    large_sample: LargeSample


MAX_RESAMPLES = 10_000_000
"""The most ``trials`` and ``bootstrap`` a comparison takes: 1,000 times the default, p-values
to 1e-7. The trials are drawn in chunks, but the randomized Tukey test keeps every trial's
range and the bootstrap every resample's mean (8 bytes each), and the time grows with both."""


@dataclass(frozen=True)
class Statistics:
    """The options of a comparison's tests and intervals, checked when built.

    Attributes
    ----------
    missing
        Which queries count when systems lack some: ``"zero"`` (a query a system lacks
        scores 0) or ``"common"`` (only the queries every system has).
    trials
        Random trials of the randomization tests (sign flips, permutations).
    bootstrap
        Bootstrap resamples of the queries for the intervals.
    confidence
        Coverage of the intervals, in (0, 1).
    alpha
        Significance level, in (0, 1).
    seed
        Seeds the random draws; the same options give the same numbers.
    correction
        The multiple-testing correction (see :data:`CORRECTIONS`).
    test
        The paired test that decides significance (see :data:`TESTS`).
    bootstrap_method
        How the bootstrap intervals are read from the resamples (see
        :data:`BOOTSTRAP_METHODS`).
    large_sample
        Resample, or take the normal limit of each resampling distribution (see
        :data:`LARGE_SAMPLES`; ``"auto"`` chooses per procedure by
        :data:`RESAMPLING_BUDGET`).

    Raises
    ------
    InvalidValueError
        A bad option; checked in the order of the fields, as :func:`check_options`, then
        :func:`check_seed`, :func:`check_correction`, :func:`check_test`,
        :func:`check_bootstrap_method` and :func:`check_large_sample`.

    Examples
    --------
    >>> Statistics(trials=500).trials, DEFAULTS.trials
    (500, 10000)
    >>> Statistics(confidence=1.5)
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: confidence must be a number strictly between 0 \
and 1, got 1.5
    """

    missing: MissingPolicy = "zero"
    trials: int = 10_000
    bootstrap: int = 10_000
    confidence: float = 0.95
    alpha: float = 0.05
    seed: int = 0
    correction: Correction = "holm"
    test: Test = "randomization"
    bootstrap_method: BootstrapMethod = "percentile"
    large_sample: LargeSample = "auto"

    def __post_init__(self) -> None:
        check_options(self.missing, self.trials, self.bootstrap, self.confidence, self.alpha)
        check_seed(self.seed)
        check_correction(self.correction)
        check_test(self.test)
        check_bootstrap_method(self.bootstrap_method)
        check_large_sample(self.large_sample)

    def keywords(self) -> StatisticsKeywords:
        """The options as keyword arguments of the public functions.

        Examples
        --------
        >>> Statistics(seed=3).keywords()["seed"]
        3
        """
        keywords = {field.name: getattr(self, field.name) for field in fields(self)}
        return cast(StatisticsKeywords, keywords)


def check_options(
    missing: object, trials: object, bootstrap: object, confidence: object, alpha: object
) -> None:
    """The options of :func:`~polars_graded.stats.compare.compare`, checked: ``missing`` one of
    :data:`MISSING_POLICIES`, ``trials`` and ``bootstrap`` integers from 1 to
    :data:`MAX_RESAMPLES`, ``confidence`` and ``alpha`` in (0, 1).

    Examples
    --------
    >>> check_options("every", 10, 10, 0.95, 0.05)
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: missing must be 'zero' or 'common', got 'every'
    """
    check_missing(missing)
    check_count("trials", trials, MAX_RESAMPLES)
    check_count("bootstrap", bootstrap, MAX_RESAMPLES)
    check_fraction("confidence", confidence)
    check_fraction("alpha", alpha)


def check_missing(missing: object) -> None:
    """``missing`` is one of :data:`MISSING_POLICIES`.

    Examples
    --------
    >>> check_missing("common")
    """
    if missing not in MISSING_POLICIES:
        choices = " or ".join(map(repr, MISSING_POLICIES))
        msg = f"missing must be {choices}, got {missing!r}"
        raise InvalidValueError(msg)


def check_count(name: str, value: object, most: int | None = None) -> None:
    """A count (of trials, resamples, queries): an integer >= 1, and at most ``most``.

    Examples
    --------
    >>> check_count("trials", 0)
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: trials must be an integer >= 1, got 0
    """
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        msg = f"{name} must be an integer >= 1, got {value!r}"
        raise InvalidValueError(msg)
    if most is not None and value > most:
        msg = (
            f"{name} must be at most {most:,} (p-values to 1e-7), got {value:,}: every "
            "resample's mean (and every Tukey trial's range) is kept in memory"
        )
        raise InvalidValueError(msg)


def check_seed(seed: object) -> None:
    """A seed of the random draws: an integer >= 0, as ``np.random.default_rng`` takes.

    Examples
    --------
    >>> check_seed(2**64)  # numpy takes any size
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: seed must be an integer >= 0 (numpy's rule), got -1
    """
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        msg = f"seed must be an integer >= 0 (numpy's rule), got {seed!r}"
        raise InvalidValueError(msg)


def check_fraction(name: str, value: object) -> None:
    """A confidence level or significance level: a number strictly between 0 and 1.

    Examples
    --------
    >>> check_fraction("alpha", 1)
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: alpha must be a number strictly between 0 and 1, got 1
    """
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float | np.floating)
        or not 0 < value < 1
    ):
        msg = f"{name} must be a number strictly between 0 and 1, got {value!r}"
        raise InvalidValueError(msg)


def check_correction(correction: object) -> None:
    """``correction`` is one of :data:`CORRECTIONS`.

    Examples
    --------
    >>> check_correction("x")
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: correction must be 'bonferroni', 'holm', \
'holm-sidak', 'bh' or 'none', got 'x'
    """
    if correction not in CORRECTIONS:
        choices = ", ".join(map(repr, CORRECTIONS[:-1])) + f" or {CORRECTIONS[-1]!r}"
        msg = f"correction must be {choices}, got {correction!r}{_hint(correction)}"
        raise InvalidValueError(msg)


def check_test(test: object) -> None:
    """``test`` is one of :data:`TESTS`.

    Examples
    --------
    >>> check_test("ttest")
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: test must be 'randomization', 't' or 'wilcoxon', \
got 'ttest'
    """
    if test not in TESTS:
        choices = ", ".join(map(repr, TESTS[:-1])) + f" or {TESTS[-1]!r}"
        msg = f"test must be {choices}, got {test!r}"
        raise InvalidValueError(msg)


def check_bootstrap_method(method: object) -> None:
    """``bootstrap_method`` is one of :data:`BOOTSTRAP_METHODS`.

    Examples
    --------
    >>> check_bootstrap_method("BCa")
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: bootstrap_method must be 'percentile' or 'bca', \
got 'BCa'; did you mean 'bca'?
    """
    if method not in BOOTSTRAP_METHODS:
        choices = " or ".join(map(repr, BOOTSTRAP_METHODS))
        msg = f"bootstrap_method must be {choices}, got {method!r}{_hint(method)}"
        raise InvalidValueError(msg)


def check_large_sample(large_sample: object) -> None:
    """``large_sample`` is one of :data:`LARGE_SAMPLES`.

    Examples
    --------
    >>> check_large_sample("clt")
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: large_sample must be 'auto', 'resample' or \
'normal', got 'clt'
    """
    if large_sample not in LARGE_SAMPLES:
        choices = ", ".join(map(repr, LARGE_SAMPLES[:-1])) + f" or {LARGE_SAMPLES[-1]!r}"
        msg = f"large_sample must be {choices}, got {large_sample!r}"
        raise InvalidValueError(msg)


_OTHER_NAMES: Final = {
    "fdr_bh": "bh",
    "benjamini-hochberg": "bh",
    "hs": "holm-sidak",
    "holm_sidak": "holm-sidak",
    "b": "bonferroni",
    "h": "holm",
}
"""statsmodels' ``multipletests`` names (and spellings) of our corrections, for the hint."""


def _hint(value: object) -> str:
    """``"; did you mean 'bh'?"`` for another tool's name of a choice (statsmodels'
    ``fdr_bh``, scipy's ``BCa``), else ``""``."""
    text = str(value).lower()
    meant = _OTHER_NAMES.get(text, text if text in CORRECTIONS + BOOTSTRAP_METHODS else None)
    return "" if meant is None else f"; did you mean {meant!r}?"


DEFAULTS: Final = Statistics()
"""The default of each option: every public signature and the command line read it."""
