"""Q-measure (Sakai, 2004): average precision blended with cumulative gain.

At each position ``p`` of a relevant row (a label > 0), the blended ratio

    ``BR(p) = (C(p) + beta cg(p)) / (p + beta cg*(p))``

mixes precision ``C(p)/p`` (``C`` the relevant rows up to ``p``) with the cumulative gain
``cg(p)`` of the ranking against ``cg*(p)``, that of the ideal ranking (every judged row of
the query by gain, best first); then

    ``Q@k = (1/R) sum_{p <= k, rel(p) > 0} BR(p)``,

``R`` the judged rows with a label > 0, retrieved or not (0 when there is none). ``beta``
(default 1, >= 0) is the weight of the gains; ``beta = 0`` gives AP with every positive
label relevant. Gains are those of a label > 0 (default the label itself); rows with a
label <= 0, and unjudged rows, gain nothing. A cutoff keeps ``R``, as AP's does; NTCIREVAL's
``Q@l`` divides by ``min(l, R)`` instead.

Under ``ties="average"`` the expectation at offset ``j`` of a tie group of ``n`` rows holding
``c`` relevant rows of total gain ``S``, after ``C`` relevant rows of gain ``cg_before``:
``E[hit C(p)] = (c/n) (C + s)`` and ``E[hit cg(p)] = (c/n) cg_before + (S/n) s``, with
``s = 1 + (j - 1)(c - 1)/(n - 1)`` (see :mod:`polars_graded.measures.kernels.tie_average`).
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.measures.base import Declaration, Measure, check_number, param, safe_ratio
from polars_graded.measures.kernels.gains import (
    Gain,
    GainSpec,
    check_gain,
    format_gain,
    gain_function,
    ideal_gains,
    is_monotone,
)
from polars_graded.measures.kernels.tie_average import expected_earlier_hits, group_hits, group_sums
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked


def check_beta(name: str, value: object, *, measure: str) -> float:
    """Q-measure's ``beta``: a finite number >= 0.

    Examples
    --------
    >>> check_beta("beta", 1, measure="q_measure")
    1.0
    """
    beta = check_number(name, value, measure=measure)
    if beta < 0:
        msg = f"{measure}: beta must be >= 0, got {value!r}"
        raise MeasureParameterError(msg)
    return beta


def relevant_gain(gain: GainSpec) -> Gain:
    """The gain of a relevant row (label > 0), never negative; 0 for every other row.

    Examples
    --------
    >>> pl.select(relevant_gain(((0.0, 5.0),))(pl.lit(0.0))).item()  # label 0: no gain
    0.0
    """
    base = gain_function(gain)

    def positive(rel: pl.Expr) -> pl.Expr:
        return pl.when(rel > 0).then(base(rel).clip(lower_bound=0.0)).otherwise(pl.lit(0.0))

    return positive


def _running_sums(r: Ranked, relevant: pl.Expr, gains: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Per position p: ``hit(p) C(p)`` and ``hit(p) cg(p)``, as expectations over the orders
    of tied rows under ``ties="average"`` (module docstring); untied rows keep the plain sums."""
    hit = relevant.cast(pl.Float64)
    hits_through = hit * relevant.cum_sum()
    gain_through = gains.cum_sum()
    plain = hits_through, hit * gain_through
    if not r.averages_ties:
        return plain
    before, within = group_hits(r, relevant)
    size = r.tie_size()
    spread = 1.0 + expected_earlier_hits(r, within)
    share = within / size
    gain_before, _ = group_sums(r, gains)
    gain = r.tie_mean(gains) * spread + share * gain_before
    untied = size == 1
    return (
        pl.when(untied).then(plain[0]).otherwise(share * (before + spread)),
        pl.when(untied).then(plain[1]).otherwise(gain),
    )


def q_measure(
    r: Ranked, beta: float = 1, gain: GainSpec = "linear", k: int | None = None
) -> pl.Expr:
    """Q@k of one query: ``(1/R) sum_{p <= k, rel(p) > 0} BR(p)`` (module docstring).

    Examples
    --------
    Labels 0, 2, 1 by score; ideal gains 2, 1, 0: ``BR(2) = 3/5``, ``BR(3) = 5/6``.

    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(q_measure(r)).item(0, 1), 6)
    0.716667
    """
    relevant = (r.rel > 0).fill_null(False)
    positive_gain = relevant_gain(gain)
    hits, gains = _running_sums(r, relevant, positive_gain(r.rel))
    ideal = ideal_gains(r, positive_gain, monotone=is_monotone(gain)).cum_sum()
    blended = (hits + beta * gains) / (r.position + beta * ideal)
    total = pl.when(r.in_list(k)).then(blended).sum()
    return safe_ratio(total, (r.ideal > 0).fill_null(False).sum())


@register(
    Declaration(
        name="q_measure",
        summary="Q-measure (Sakai 2004): AP blended with cumulative gain, weight beta",
        function="q_measure",
        instance="Q",
        order=171,
        example="q_measure",
        example_value=0.716667,
        cutoff="all_rows",
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class QMeasure(Measure):
    """Q@k: ``(1/R) sum_{p <= k, rel(p) > 0} (C(p) + beta cg(p)) / (p + beta cg*(p))``
    (module docstring).

    ``beta = 0`` gives AP (every positive label relevant); an ideal ranking scores 1.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.Q(beta=0.5, gain={2: 3}) @ 10)
    'q_measure(beta=0.5,gain={2:3})@10'
    """

    beta: float = param(
        1,
        "Weight of the cumulative gain against precision, >= 0 (0 gives AP).",
        check=check_beta,
        examples=("0.5",),
    )
    gain: GainSpec = param(  # noqa: RUF009 (param() makes the field)
        "linear",
        '``"linear"`` (gain = label), ``"exp"`` (``2^label - 1``), ``"binary"`` (1 for a '
        "label >= 1) or a mapping label -> gain (unlisted labels keep gain = label); labels "
        "<= 0 gain nothing.",
        check=check_gain,
        accepts="str | Mapping[float, float]",
        show=format_gain,
        examples=("exp", "{1:1,2:3}"),
    )

    def expr(self, r: Ranked) -> pl.Expr:
        return q_measure(r, self.beta, self.gain, self.k)

    def nonfinite_cause(self) -> str:
        return (
            "beta times a cumulative gain beyond float64 (1.8e308): exponential gain "
            "overflows for labels >= 1024; rescale the labels, or lower beta"
        )
