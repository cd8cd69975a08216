"""Gains and discounted cumulative gain, shared by the DCG family (``ndcg.py``, ``ndcng.py``).

``DCG@k = sum_{p <= k} gain(rel(p)) / log_b(p + 1)``; the ideal DCG is the DCG of every
judged row of the query, best first. A gain spec is ``"exp"`` (``2^rel - 1``), ``"linear"``
(``rel``), ``"binary"`` (1 for a label >= 1, the default relevance threshold, else 0: the
recommender convention) or a mapping label -> gain, stored as sorted pairs. Every measure
with a ``gain`` parameter (NDCG, DCG, mean NDCG, Q-measure and trec_eval's G, ndcg_rel and
Rndcg) checks it with :func:`check_gain` and reads it with :func:`gain_function`, so each
takes every spec.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Final

import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.measures.base import (
    DEFAULT_REL,
    Measure,
    check_number,
    format_number,
    param,
    safe_ratio,
    shown,
)
from polars_graded.ranking import Ranked

GainSpec = str | tuple[tuple[float, float], ...]
"""A name of :data:`GAINS`, or a label -> gain mapping stored as sorted pairs."""
Gain = Callable[[pl.Expr], pl.Expr]


def check_gain(name: str, gain: object, *, measure: str) -> GainSpec:
    """Normalise a gain spec: ``"exp"``, ``"linear"`` or a mapping label -> gain.

    Examples
    --------
    >>> check_gain("gain", {2: 9, 1: 3}, measure="ndcg")
    ((1.0, 3.0), (2.0, 9.0))
    """
    if isinstance(gain, str):
        if gain in GAINS:
            return gain
        raise _bad_gain(gain, measure)
    if isinstance(gain, Mapping):
        pairs = (
            (check_number("label", lab, measure=measure), check_number("gain", g, measure=measure))
            for lab, g in gain.items()
        )
        return tuple(sorted(pairs))
    if isinstance(gain, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in gain):
        return check_gain(name, dict(gain), measure=measure)
    raise _bad_gain(gain, measure)


def _bad_gain(gain: object, measure: str) -> MeasureParameterError:
    named = ", ".join(repr(g) for g in GAINS)
    msg = (
        f"{measure}: gain must be one of {named} or a mapping label -> gain "
        f"(e.g. {measure}(gain={{1:1,2:3}})), got {shown(gain)}"
    )
    return MeasureParameterError(msg)


def format_gain(gain: GainSpec) -> str:
    """Canonical text of a gain spec (``linear``, ``{1:3,2:9}``).

    Examples
    --------
    >>> format_gain(((1.0, 3.0), (2.0, 9.0)))
    '{1:3,2:9}'
    """
    if isinstance(gain, str):
        return gain
    return "{" + ",".join(f"{format_number(a)}:{format_number(b)}" for a, b in gain) + "}"


@dataclasses.dataclass(frozen=True, kw_only=True)
class GainMeasure(Measure):
    """A measure with a ``gain`` parameter (default ``"exp"``, the paper's).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.NDCG(gain={2: 9, 1: 3}) @ 5)
    'ndcg(gain={1:3,2:9})@5'
    """

    gain: GainSpec = param(  # noqa: RUF009 (param() makes the field)
        "exp",
        '``"exp"`` (``2^rel - 1``, the paper\'s), ``"linear"`` (``rel``, trec_eval\'s), '
        '``"binary"`` (1 for a label >= 1, the recommender convention) or a mapping label -> '
        "gain (unlisted positive labels keep gain = label).",
        check=check_gain,
        accepts="str | Mapping[float, float]",
        show=format_gain,
        examples=("linear", "binary", "{1:3,2:9}"),
    )


def exp_gain(rel: pl.Expr) -> pl.Expr:
    """``2^rel - 1`` for ``rel > 0``, else 0 (Burges; the paper's Eq. 3).

    Examples
    --------
    >>> pl.select(exp_gain(pl.lit(2))).item()
    3.0
    """
    return pl.when(rel > 0).then(pl.lit(2.0).pow(rel) - 1.0).otherwise(pl.lit(0.0))


EXP_HEADROOM = 1000
"""Top labels up to this keep ``2^rel - 1`` as written in NDCG; see :func:`relative_exp_gain`."""


def relative_exp_gain(r: Ranked) -> Gain:
    """``(2^rel - 1) * 2^-s``: exponential gain scaled for a ratio of DCGs (NDCG, mean NDCG).

    ``s = max(0, ceil(m_q - EXP_HEADROOM))``, ``m_q`` the query's top label: a whole power of
    two, so DCG and ideal DCG scale exactly and their ratio keeps its bits. ``s`` is 0 for
    every query whose top label is at most :data:`EXP_HEADROOM` (the same gains as
    :func:`exp_gain`); above, ``2^rel`` would overflow float64 (at 1024) and give NaN.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.group_by("query").agg(relative_exp_gain(r)(r.rel).sum()).item(0, 1)
    4.0
    """
    shift = (r.top - EXP_HEADROOM).clip(lower_bound=0).ceil().fill_null(0.0)
    two = pl.lit(2.0, dtype=pl.Float64)

    def gain(rel: pl.Expr) -> pl.Expr:
        scaled = two.pow(rel - shift) - two.pow(-shift)
        return pl.when(rel > 0).then(scaled).otherwise(pl.lit(0.0))

    return gain


def linear_gain(rel: pl.Expr) -> pl.Expr:
    """``rel`` for ``rel > 0``, else 0 (trec_eval's ``ndcg``).

    Examples
    --------
    >>> pl.select(linear_gain(pl.lit(-1))).item()
    0.0
    """
    return pl.when(rel > 0).then(rel.cast(pl.Float64)).otherwise(pl.lit(0.0))


def binary_gain(rel: pl.Expr) -> pl.Expr:
    """1 for a relevant label (``rel >= 1``, the default threshold), else 0: every relevant
    row gains alike, as recommender libraries' NDCG (RecBole, Spark MLlib without
    relevance values).

    Examples
    --------
    >>> pl.select(binary_gain(pl.lit(3)), binary_gain(pl.lit(0.5)).alias("b")).row(0)
    (1.0, 0.0)
    """
    return pl.when(rel >= DEFAULT_REL).then(pl.lit(1.0)).otherwise(pl.lit(0.0))


NAMED_GAINS: Final[dict[str, Gain]] = {
    "exp": exp_gain,
    "linear": linear_gain,
    "binary": binary_gain,
}
"""The named gain specs and their functions; any other gain is a mapping label -> gain."""
GAINS: Final[tuple[str, ...]] = tuple(NAMED_GAINS)
"""The names a ``gain=`` takes besides a mapping."""


def mapped_gain(mapping: tuple[tuple[float, float], ...]) -> Gain:
    """Gains from a label -> gain table; unlisted labels keep a linear gain (as trec_eval).

    Examples
    --------
    >>> import polars as pl
    >>> pl.select(mapped_gain(((1.0, 3.0),))(pl.lit(1.0))).item()
    3.0
    """
    labels = [label for label, _ in mapping]
    gains = [g for _, g in mapping]

    def gain(rel: pl.Expr) -> pl.Expr:
        listed = rel.replace_strict(labels, gains, default=None, return_dtype=pl.Float64)
        return pl.coalesce(listed, linear_gain(rel))

    return gain


def gain_function(gain: GainSpec) -> Gain:
    """The gain function of a gain spec (one of :data:`GAINS` or label -> gain pairs).

    Examples
    --------
    >>> gain_function("linear") is linear_gain, gain_function("binary") is binary_gain
    (True, True)
    """
    if isinstance(gain, str):
        return NAMED_GAINS[gain]
    return mapped_gain(gain)


def ratio_gain_function(gain: GainSpec, r: Ranked) -> Gain:
    """:func:`gain_function` for a ratio of DCGs: exponential gain relative to the top label.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.group_by("query").agg(ratio_gain_function("linear", r)(r.rel).sum()).item(0, 1)
    3.0
    """
    return relative_exp_gain(r) if gain == "exp" else gain_function(gain)


def is_monotone(gain: GainSpec) -> bool:
    """Whether sorting labels descending also sorts gains descending (not so for a mapping).

    Examples
    --------
    >>> is_monotone("exp"), is_monotone(((1.0, 3.0),))
    (True, False)
    """
    return isinstance(gain, str)


def discount(r: Ranked, base: float = 2) -> pl.Expr:
    """``log_base(p + 1)`` for each position ``p``: the divisor of the gain at ``p``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> df.select(discount(rank_in_group())).to_series().round(6).to_list()  # log2(2..4)
    [1.0, 1.584963, 2.0]
    """
    return (r.position + 1).cast(pl.Float64).log(base)


def dcg(r: Ranked, gain: Gain, k: int | None = None, base: float = 2) -> pl.Expr:
    """DCG@k of the ranked list (retrieved rows only).

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(dcg(r, linear_gain, k=2)).item(0, 1), 6)
    1.26186
    """
    return pl.when(r.in_list(k)).then(r.tie_mean(gain(r.rel)) / discount(r, base)).sum()


def ideal_gains(r: Ranked, gain: Gain, monotone: bool) -> pl.Expr:
    """Gains of the ideal ranking, best first; only positive gains count (as trec_eval).

    Examples
    --------
    The ideal labels are 2, 1, 0; a mapping 1 -> 5 (2 keeps gain 2) is re-sorted.

    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> df.select(ideal_gains(r, exp_gain, monotone=True)).to_series().to_list()
    [3.0, 1.0, 0.0]
    >>> df.select(ideal_gains(r, mapped_gain(((1.0, 5.0),)), monotone=False)).to_series().to_list()
    [5.0, 2.0, 0.0]
    """
    gains = gain(r.ideal)
    if not monotone:
        gains = gains.sort(descending=True)
    return gains.clip(lower_bound=0.0)


def ideal_dcg(r: Ranked, gain: Gain, k: int | None, monotone: bool, base: float = 2) -> pl.Expr:
    """DCG@k of the ideal ranking: every judged row of the query, best first.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(ideal_dcg(r, exp_gain, 2, True)).item(0, 1), 6)
    3.63093
    """
    discounted = ideal_gains(r, gain, monotone) / discount(r, base)
    return discounted.sum() if k is None else pl.when(r.position <= k).then(discounted).sum()


def ndcg(r: Ranked, gain: Gain, k: int | None = None, *, monotone: bool = True) -> pl.Expr:
    """NDCG@k: DCG@k over the ideal DCG@k, 0 when the ideal is 0.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(ndcg(r, exp_gain, k=2)).item(0, 1), 6)
    0.521296
    """
    return safe_ratio(dcg(r, gain, k), ideal_dcg(r, gain, k, monotone))


def mean_ndcg_over_cutoffs(r: Ranked, gain: Gain, *, monotone: bool = True) -> pl.Expr:
    """Mean of NDCG@1..NDCG@N, N = retrieved rows (Table 2's "mean" column); 0 if N = 0.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> r = rank_in_group()
    >>> round(df.group_by("query").agg(mean_ndcg_over_cutoffs(r, exp_gain)).item(0, 1), 6)
    0.393433
    """
    running = (r.tie_mean(gain(r.rel)) / discount(r)).cum_sum()
    running_ideal = (ideal_gains(r, gain, monotone) / discount(r)).cum_sum()
    at_each_cutoff = pl.when(r.in_list(None)).then(safe_ratio(running, running_ideal))
    return safe_ratio(at_each_cutoff.sum(), r.n_retrieved.first())
