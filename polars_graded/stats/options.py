"""The options of the statistics, their defaults and their checks, in one place.

Every comparison of systems (:func:`~polars_graded.stats.compare.compare`,
:func:`~polars_graded.stats.pairs.compare_pairs`,
:func:`~polars_graded.stats.segments.compare_segments`, :func:`~polars_graded.stats.gate.gate`, the
report and the command line) takes the same options: which queries count when systems lack
some (``missing``), the randomization trials, the bootstrap resamples, the coverage of the
intervals, the significance level, the seed and the multiple-testing correction.
:class:`Statistics` holds them, checked; :data:`DEFAULTS` is where each default is written.
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

Correction = Literal["holm", "bh", "none"]
"""Multiple-testing corrections: Holm, Benjamini–Hochberg, none."""
CORRECTIONS: tuple[str, ...] = get_args(Correction)


class StatisticsKeywords(TypedDict):
    """The options of :class:`Statistics` as keyword arguments (:meth:`Statistics.keywords`)."""

    missing: MissingPolicy
    trials: int
    bootstrap: int
    confidence: float
    alpha: float
    seed: int
    correction: Correction


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

    Raises
    ------
    InvalidValueError
        A bad option; checked in the order of the fields, as :func:`check_options`, then
        :func:`check_seed` and :func:`check_correction`.

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

    def __post_init__(self) -> None:
        check_options(self.missing, self.trials, self.bootstrap, self.confidence, self.alpha)
        check_seed(self.seed)
        check_correction(self.correction)

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
    polars_graded.errors.InvalidValueError: correction must be 'holm', 'bh' or 'none', got 'x'
    """
    if correction not in CORRECTIONS:
        choices = ", ".join(map(repr, CORRECTIONS[:-1])) + f" or {CORRECTIONS[-1]!r}"
        msg = f"correction must be {choices}, got {correction!r}"
        raise InvalidValueError(msg)


DEFAULTS: Final = Statistics()
"""The default of each option: every public signature and the command line read it."""
