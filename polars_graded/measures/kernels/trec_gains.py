"""Gains as trec_eval's graded measures read them (``G``, ``ndcg_rel``, ``Rndcg``).

trec_eval gives each label its value as gain (``"linear"``, the default here) unless a
mapping ``label -> gain`` says otherwise; unjudged rows and negative labels gain 0. Its
ideal ranking walks the gains best first and stops at the first gain <= 0. This module
holds the shared ``gain`` parameter and the two gain columns those measures read.
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded.measures.base import Measure, param
from polars_graded.measures.kernels.gains import (
    GainSpec,
    check_gain,
    discount,
    format_gain,
    gain_function,
    ideal_gains,
    is_monotone,
)
from polars_graded.ranking import Ranked


@dataclasses.dataclass(frozen=True, kw_only=True)
class TrecGainMeasure(Measure):
    """A measure with trec_eval's ``gain`` parameter (default ``"linear"``: gain = label).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.G(gain={1: 3, 2: 9}))
    'g(gain={1:3,2:9})'
    """

    gain: GainSpec = param(  # noqa: RUF009 (param() makes the field)
        "linear",
        '``"linear"`` (gain = label, trec_eval\'s default), ``"exp"`` (``2^rel - 1``), '
        '``"binary"`` (1 for a label >= 1) or a mapping label -> gain, trec_eval\'s '
        "``1=3,2=9`` (unlisted positive labels keep gain = label).",
        check=check_gain,
        accepts="str | Mapping[float, float]",
        show=format_gain,
        examples=("{1:3,2:9}",),
    )


def retrieved_gains(r: Ranked, gain: GainSpec) -> pl.Expr:
    """The gain of each row of the ranked list: 0 for unretrieved and unjudged rows.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, None, 1.0], "relevance": [0, 2, None]})
    >>> df.select(retrieved_gains(rank_in_group(), "linear")).to_series().to_list()
    [0.0, 0.0, 0.0]
    """
    gains = gain_function(gain)(r.rel).fill_null(0.0)
    return pl.when(r.in_list(None)).then(gains).otherwise(pl.lit(0.0))


def ideal_gain_list(r: Ranked, gain: GainSpec) -> pl.Expr:
    """The gains of the ideal ranking, best first, as trec_eval's walk: ``<= 0`` read as 0.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> df.select(ideal_gain_list(rank_in_group(), ((2.0, -1.0),))).to_series().to_list()
    [1.0, 0.0, 0.0]
    """
    return ideal_gains(r, gain_function(gain), is_monotone(gain)).fill_null(0.0)


def cumulative_dcg(r: Ranked, gains: pl.Expr) -> pl.Expr:
    """For each position p, ``sum_{q <= p} gains_q / log2(q + 1)``: DCG@p of ``gains``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1], "item": ["a", "b"],
    ...                    "score": [2.0, 1.0], "relevance": [1, 1]})
    >>> r = rank_in_group()
    >>> df.select(cumulative_dcg(r, r.rel)).to_series().round(6).to_list()
    [1.0, 1.63093]
    """
    return (gains / discount(r)).cum_sum()
