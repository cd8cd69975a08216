"""Discounted cumulative gain and its normalisations: DCG, NDCG, NDCNG, means over cutoffs.

``DCG@k = sum_{p <= k} gain(rel(p)) / log_b(p + 1)``; NDCG divides by the DCG of the ideal
ranking (every judged row of the query, best first); NDCNG is NDCG with exponential gain on
labels divided by the query's top label (SPEC.md §4).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ClassVar

import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.measures.base import (
    GainSpec,
    Measure,
    check_gain,
    check_number,
    format_gain,
    safe_ratio,
)
from polars_graded.ranking import Ranked

Gain = Callable[[pl.Expr], pl.Expr]


def exp_gain(rel: pl.Expr) -> pl.Expr:
    """``2^rel - 1`` for ``rel > 0``, else 0 (Burges; the paper's Eq. 3)."""
    return pl.when(rel > 0).then(pl.lit(2.0).pow(rel) - 1.0).otherwise(pl.lit(0.0))


EXP_HEADROOM = 1000
"""Top labels up to this keep ``2^rel - 1`` as written in NDCG; see :func:`relative_exp_gain`."""


def relative_exp_gain(r: Ranked) -> Gain:
    """``(2^rel - 1) * 2^-s``: exponential gain scaled for a ratio of DCGs (NDCG, mean NDCG).

    ``s = max(0, ceil(m_q - EXP_HEADROOM))``, ``m_q`` the query's top label: a whole power of
    two, so DCG and ideal DCG scale exactly and their ratio keeps its bits. ``s`` is 0 for
    every query whose top label is at most :data:`EXP_HEADROOM` (the same gains as
    :func:`exp_gain`); above, ``2^rel`` would overflow float64 (at 1024) and give NaN.
    """
    shift = (r.top - EXP_HEADROOM).clip(lower_bound=0).ceil().fill_null(0.0)
    two = pl.lit(2.0, dtype=pl.Float64)

    def gain(rel: pl.Expr) -> pl.Expr:
        scaled = two.pow(rel - shift) - two.pow(-shift)
        return pl.when(rel > 0).then(scaled).otherwise(pl.lit(0.0))

    return gain


def linear_gain(rel: pl.Expr) -> pl.Expr:
    """``rel`` for ``rel > 0``, else 0 (trec_eval's ``ndcg``)."""
    return pl.when(rel > 0).then(rel.cast(pl.Float64)).otherwise(pl.lit(0.0))


def mapped_gain(mapping: tuple[tuple[float, float], ...]) -> Gain:
    """Gains from a label -> gain table; unlisted labels keep a linear gain (as trec_eval)."""
    labels = [label for label, _ in mapping]
    gains = [g for _, g in mapping]

    def gain(rel: pl.Expr) -> pl.Expr:
        listed = rel.replace_strict(labels, gains, default=None, return_dtype=pl.Float64)
        return pl.coalesce(listed, linear_gain(rel))

    return gain


def gain_function(gain: GainSpec) -> Gain:
    """The gain function of a gain spec (``"exp"``, ``"linear"`` or label -> gain pairs)."""
    if gain == "exp":
        return exp_gain
    if gain == "linear":
        return linear_gain
    return mapped_gain(gain)  # type: ignore[arg-type]


def ratio_gain_function(gain: GainSpec, r: Ranked) -> Gain:
    """:func:`gain_function` for a ratio of DCGs: exponential gain relative to the top label."""
    return relative_exp_gain(r) if gain == "exp" else gain_function(gain)


def discount(r: Ranked, base: float = 2) -> pl.Expr:
    """``log_base(p + 1)`` for each position ``p``: the divisor of the gain at ``p``."""
    return (r.position + 1).cast(pl.Float64).log(base)


def dcg(r: Ranked, gain: Gain, k: int | None = None, base: float = 2) -> pl.Expr:
    """DCG@k of the ranked list (retrieved rows only)."""
    return pl.when(r.in_list(k)).then(r.tie_mean(gain(r.rel)) / discount(r, base)).sum()


def ideal_gains(r: Ranked, gain: Gain, monotone: bool) -> pl.Expr:
    """Gains of the ideal ranking, best first; only positive gains count (as trec_eval)."""
    gains = gain(r.ideal)
    if not monotone:
        gains = gains.sort(descending=True)
    return gains.clip(lower_bound=0.0)


def ideal_dcg(r: Ranked, gain: Gain, k: int | None, monotone: bool, base: float = 2) -> pl.Expr:
    """DCG@k of the ideal ranking: every judged row of the query, best first."""
    discounted = ideal_gains(r, gain, monotone) / discount(r, base)
    return discounted.sum() if k is None else pl.when(r.position <= k).then(discounted).sum()


def ndcg(r: Ranked, gain: Gain, k: int | None = None, *, monotone: bool = True) -> pl.Expr:
    """NDCG@k: DCG@k over the ideal DCG@k, 0 when the ideal is 0."""
    return safe_ratio(dcg(r, gain, k), ideal_dcg(r, gain, k, monotone))


def mean_ndcg_over_cutoffs(r: Ranked, gain: Gain, *, monotone: bool = True) -> pl.Expr:
    """Mean of NDCG@1..NDCG@N, N = retrieved rows (Table 2's "mean" column); 0 if N = 0."""
    running = (r.tie_mean(gain(r.rel)) / discount(r)).cum_sum()
    running_ideal = (ideal_gains(r, gain, monotone) / discount(r)).cum_sum()
    at_each_cutoff = pl.when(r.in_list(None)).then(safe_ratio(running, running_ideal))
    return safe_ratio(at_each_cutoff.sum(), r.n_retrieved.first())


def normalised_gain(r: Ranked) -> Gain:
    """NDCNG's gain: exponential gain of ``rel / m_q``, ``m_q`` the query's top label."""
    return lambda rel: exp_gain(rel / r.top)


def with_positive_top(r: Ranked, value: pl.Expr) -> pl.Expr:
    """``value`` where the query has a positive label, else 0 (``m_q <= 0``)."""
    return pl.when(r.top.first() > 0).then(value).otherwise(pl.lit(0.0))


def _is_monotone(gain: GainSpec) -> bool:
    """Whether sorting labels descending also sorts gains descending."""
    return isinstance(gain, str)


@dataclasses.dataclass(frozen=True, kw_only=True)
class _GainMeasure(Measure):
    """A measure with a ``gain`` parameter."""

    gain: GainSpec = "exp"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "gain", check_gain(self.gain, measure=self.name))

    def format_param(self, name: str, value: Any) -> str:
        if name == "gain":
            return format_gain(value)
        return super().format_param(name, value)


@dataclasses.dataclass(frozen=True, kw_only=True)
class DiscountedCumulativeGain(_GainMeasure):
    """Discounted cumulative gain with log ``base`` (default 2); gain exp by default."""

    name: ClassVar[str] = "dcg"
    base: float = 2

    def __post_init__(self) -> None:
        super().__post_init__()
        base = check_number("base", self.base, measure=self.name)
        if base <= 1:
            msg = f"dcg: the log base must be > 1, got {self.base!r}"
            raise MeasureParameterError(msg)
        object.__setattr__(self, "base", base)

    def expr(self, r: Ranked) -> pl.Expr:
        return dcg(r, gain_function(self.gain), self.k, self.base)

    def nonfinite_cause(self) -> str:
        if self.gain == "exp":
            return (
                "exponential gain 2^label overflows float64 for labels >= 1024 (DCG is not a "
                "ratio, so it cannot be rescaled); use ndcg, gain=linear or a gain mapping"
            )
        return super().nonfinite_cause()

    def depth(self) -> int | None:
        return self.k


@dataclasses.dataclass(frozen=True, kw_only=True)
class NormalizedDCG(_GainMeasure):
    """Normalised DCG; gain ``"exp"`` (default, the paper's), ``"linear"`` (trec_eval) or a map.

    trec_eval: ``ndcg`` / ``ndcg_cut.k`` are ``NDCG(gain="linear")`` without / with ``@k``.
    """

    name: ClassVar[str] = "ndcg"

    def expr(self, r: Ranked) -> pl.Expr:
        return ndcg(r, ratio_gain_function(self.gain, r), self.k, monotone=_is_monotone(self.gain))

    def depth(self) -> int | None:
        # A custom gain may reorder the ideal list: it needs every row to sort.
        return self.k if _is_monotone(self.gain) else None


@dataclasses.dataclass(frozen=True, kw_only=True)
class NormalizedDCNG(Measure):
    """Normalised discounted cumulative *normalised* gain: NDCG (exp gain) on ``rel / m_q``."""

    name: ClassVar[str] = "ndcng"

    def expr(self, r: Ranked) -> pl.Expr:
        return with_positive_top(r, ndcg(r, normalised_gain(r), self.k))

    def depth(self) -> int | None:
        return self.k


@dataclasses.dataclass(frozen=True, kw_only=True)
class MeanNormalizedDCG(_GainMeasure):
    """Mean of NDCG@1..NDCG@N for one ranking (the paper's "mean NDCG")."""

    name: ClassVar[str] = "mean_ndcg"
    takes_cutoff: ClassVar[bool] = False

    def expr(self, r: Ranked) -> pl.Expr:
        gain = ratio_gain_function(self.gain, r)
        return mean_ndcg_over_cutoffs(r, gain, monotone=_is_monotone(self.gain))


@dataclasses.dataclass(frozen=True, kw_only=True)
class MeanNormalizedDCNG(Measure):
    """Mean of NDCNG@1..NDCNG@N for one ranking (the paper's "mean NDCNG")."""

    name: ClassVar[str] = "mean_ndcng"
    takes_cutoff: ClassVar[bool] = False

    def expr(self, r: Ranked) -> pl.Expr:
        return with_positive_top(r, mean_ndcg_over_cutoffs(r, normalised_gain(r)))
