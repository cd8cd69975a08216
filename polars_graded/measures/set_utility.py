"""Set utility (trec_eval's ``utility``): a weighted sum over the contingency table.

With ``n`` relevant rows retrieved, ``N`` rows retrieved, ``R`` relevant rows (label >=
``rel``, retrieved or not) and ``D`` rows in the collection (``n_docs``, trec_eval's ``-N``,
default 0 as there),

    ``utility = a n + b (N - n) + c (R - n) + d (D + n - N - R)``

with ``coefficients = [a, b, c, d]`` (default ``[1, -1, 0, 0]``, trec_eval's). It reads the
retrieved rows as a set, so the tie policy does not matter.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.measures.base import (
    Declaration,
    ThresholdMeasure,
    check_number,
    format_number,
    param,
    shown,
)
from polars_graded.measures.counts import retrieved_relevant
from polars_graded.measures.registry import register
from polars_graded.ranking import Ranked

DEFAULT_COEFFICIENTS = (1.0, -1.0, 0.0, 0.0)
"""trec_eval's default ``a, b, c, d``."""


def check_coefficients(name: str, value: object, *, measure: str) -> tuple[float, ...]:
    """Four finite numbers ``a, b, c, d`` (a tuple), else a :class:`MeasureParameterError`.

    Examples
    --------
    >>> check_coefficients("coefficients", [2, -1, 0, 0], measure="utility")
    (2.0, -1.0, 0.0, 0.0)
    """
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != 4:
        msg = f"{measure}: {name!r} must be a list of four numbers a, b, c, d, not {shown(value)}"
        raise MeasureParameterError(msg)
    return tuple(check_number(name, v, measure=measure) for v in value)


def check_collection_size(name: str, value: object, *, measure: str) -> int:
    """A whole number >= 0, else a :class:`MeasureParameterError`.

    Examples
    --------
    >>> check_collection_size("n_docs", 1000, measure="utility")
    1000
    """
    number = check_number(name, value, measure=measure)
    if number < 0 or not number.is_integer() or number >= 2**53:
        msg = f"{measure}: {name!r} must be a whole number >= 0, got {shown(value)}"
        raise MeasureParameterError(msg)
    return int(number)


def format_coefficients(coefficients: tuple[float, ...]) -> str:
    """Canonical text of the coefficients.

    Examples
    --------
    >>> format_coefficients((2.0, -1.0, 0.0, 0.0))
    '[2,-1,0,0]'
    """
    return "[" + ",".join(format_number(c) for c in coefficients) + "]"


def utility(
    r: Ranked,
    rel: float = 1,
    coefficients: Sequence[float] = DEFAULT_COEFFICIENTS,
    n_docs: int = 0,
) -> pl.Expr:
    """trec_eval's ``utility``: ``a n + b (N - n) + c (R - n) + d (D + n - N - R)``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.ranking import rank_in_group
    >>> df = pl.DataFrame({"query": [1, 1, 1], "item": ["a", "b", "c"],
    ...                    "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1]})
    >>> df.group_by("query").agg(utility(rank_in_group())).item(0, 1)
    1.0
    """
    a, b, c, d = coefficients
    found = retrieved_relevant(r, rel)
    retrieved = r.n_retrieved.first().cast(pl.Int64)
    relevant = r.n_relevant(rel).cast(pl.Int64)
    rest = n_docs + found - retrieved - relevant
    counts = [found, retrieved - found, relevant - found, rest]
    terms = [
        weight * count.cast(pl.Float64) for weight, count in zip((a, b, c, d), counts, strict=True)
    ]
    return terms[0] + terms[1] + terms[2] + terms[3]


@register(
    Declaration(
        name="utility",
        summary="set utility: a n + b (N - n) + c (R - n) + d (D + n - N - R)",
        function="utility",
        instance="Utility",
        order=125,
        example="utility",
        example_value=1.0,
        cutoff="none",
        trec_eval={"utility": "utility(coefficients=[{k}])"},
    )
)
@dataclasses.dataclass(frozen=True, kw_only=True)
class SetUtility(ThresholdMeasure):
    """Set utility over the contingency table of the rows retrieved (module docstring).

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.Utility(coefficients=[2, -1, 0, 0]))
    'utility(coefficients=[2,-1,0,0])'
    """

    coefficients: tuple[float, ...] = param(
        DEFAULT_COEFFICIENTS,
        "Weights a, b, c, d of relevant retrieved, non-relevant retrieved, relevant missed "
        "and the rest of the collection.",
        check=check_coefficients,
        accepts="Sequence[float]",
        show=format_coefficients,
        examples=("[2,-1,0,0]",),
    )
    n_docs: int = param(
        0,
        "Rows in the collection, D (trec_eval's -N), for the coefficient d.",
        check=check_collection_size,
        examples=("100000",),
    )

    def expr(self, r: Ranked) -> pl.Expr:
        return utility(r, self.rel, self.coefficients, self.n_docs)
