"""Measures as small parameterised value objects, in the style of ir_measures.

A measure such as ``AP(rel=2) @ 10`` is a frozen, hashable object. ``str()`` gives its
canonical name (``"ap(rel=2)@10"``), which is also the name of its result column and what
:func:`polars_graded.parse_measure` reads back (the rule: :mod:`polars_graded.measures.grammar`,
"Canonical names"). Calling a measure returns a copy with other parameters; ``@ k`` returns a
copy with a cutoff. Every relevance threshold (``rel=``, µAP's ``levels``) must be > 0: a
label <= 0 is never relevant (:func:`check_threshold`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.ranking import Columns, Ranked

GainSpec = str | tuple[tuple[float, float], ...]
"""``"exp"``, ``"linear"``, or a label -> gain mapping stored as sorted pairs."""


def format_number(x: float) -> str:
    """Shortest text for a number: ``2`` rather than ``2.0``, ``4.5`` as is, ``1e+300``."""
    if float(x).is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(float(x))


def check_number(name: str, value: object, *, measure: str) -> float:
    """A finite real number, or a :class:`MeasureParameterError` naming the parameter."""
    number = math.nan
    if not isinstance(value, bool) and isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an int beyond float64
            number = math.inf
    if not math.isfinite(number):
        msg = f"{measure}: parameter {name!r} must be a finite number, got {_shown(value)}"
        raise MeasureParameterError(msg)
    return number


def check_threshold(name: str, value: object, *, measure: str) -> float:
    """A relevance threshold: a finite number > 0, since labels <= 0 are never relevant.

    The one check of every ``rel=`` (and of µAP's ``levels``), else a
    :class:`MeasureParameterError` naming the parameter.

    Examples
    --------
    >>> check_threshold("rel", 2, measure="ap")
    2.0
    """
    threshold = check_number(name, value, measure=measure)
    if threshold <= 0:
        msg = (
            f"{measure}: relevance threshold {name!r} must be > 0 (a label <= 0 is never "
            f"relevant), got {_shown(value)}"
        )
        raise MeasureParameterError(msg)
    return threshold


MAX_CUTOFF = 2**63 - 1
"""The largest cutoff ``k`` (Polars' Int64); any larger one would read every row anyway."""


def check_cutoff(k: object, *, measure: str) -> int | None:
    """``None`` or an int from 1 to :data:`MAX_CUTOFF`, else a :class:`MeasureParameterError`."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_CUTOFF:
        msg = f"{measure}: cutoff k must be a positive integer (at most 2**63 - 1), got {_shown(k)}"
        raise MeasureParameterError(msg)
    return k


def _shown(value: object, most: int = 40) -> str:
    """``repr(value)``, shortened: a parameter may come from a very long string."""
    try:
        text = repr(value)
    except ValueError:  # an int of more digits than Python converts to text
        return "an int too large to print"
    return text if len(text) <= most else text[: most - 3] + "..."


def check_gain(gain: object, *, measure: str) -> GainSpec:
    """Normalise a gain spec: ``"exp"``, ``"linear"`` or a mapping label -> gain."""
    if isinstance(gain, str):
        if gain in ("exp", "linear"):
            return gain
        msg = f"{measure}: gain must be 'exp', 'linear' or a mapping label -> gain, got {gain!r}"
        raise MeasureParameterError(msg)
    if isinstance(gain, Mapping):
        pairs = (
            (check_number("label", lab, measure=measure), check_number("gain", g, measure=measure))
            for lab, g in gain.items()
        )
        return tuple(sorted(pairs))
    if isinstance(gain, tuple) and all(isinstance(p, tuple) and len(p) == 2 for p in gain):
        return check_gain(dict(gain), measure=measure)
    msg = f"{measure}: gain must be 'exp', 'linear' or a mapping label -> gain, got {gain!r}"
    raise MeasureParameterError(msg)


def format_gain(gain: GainSpec) -> str:
    """Canonical text of a gain spec (``linear``, ``{1:3,2:9}``)."""
    if isinstance(gain, str):
        return gain
    return "{" + ",".join(f"{format_number(a)}:{format_number(b)}" for a, b in gain) + "}"


@dataclasses.dataclass(frozen=True, kw_only=True)
class Measure:
    """Base class of every measure.

    Subclasses declare their parameters as dataclass fields (with defaults) and implement
    :meth:`expr`, an aggregation over one query written against :class:`Ranked`.
    """

    name: ClassVar[str]
    """Canonical short name, as in the grammar (``"ap"``)."""
    takes_cutoff: ClassVar[bool] = True

    k: int | None = None

    def __post_init__(self) -> None:
        if self.k is not None and not self.takes_cutoff:
            msg = f"{self.name} takes no cutoff (@k), got @{self.k}"
            raise MeasureParameterError(msg)
        object.__setattr__(self, "k", check_cutoff(self.k, measure=self.name))

    def __call__(self, **params: Any) -> Measure:
        """A copy with other parameters, e.g. ``AP(rel=2)``."""
        allowed = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(params) - allowed)
        if unknown:
            msg = (
                f"{self.name} has no parameter {unknown[0]!r}; "
                f"it takes: {', '.join(sorted(allowed))}"
            )
            raise MeasureParameterError(msg)
        return dataclasses.replace(self, **params)

    def __matmul__(self, k: int) -> Measure:
        """A copy with cutoff ``k``, e.g. ``NDCG @ 10``."""
        return dataclasses.replace(self, k=k)

    def params(self) -> dict[str, str]:
        """Non-default parameters (other than the cutoff) as canonical text."""
        out = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name != "k" and value != f.default:
                out[f.name] = self.format_param(f.name, value)
        return out

    def format_param(self, name: str, value: Any) -> str:
        """Canonical text of one parameter value."""
        return format_number(value) if isinstance(value, int | float) else str(value)

    def __str__(self) -> str:
        params = self.params()
        text = self.name
        if params:
            text += "(" + ",".join(f"{n}={v}" for n, v in sorted(params.items())) + ")"
        if self.k is not None:
            text += f"@{self.k}"
        return text

    def __repr__(self) -> str:
        return f"Measure({self})"

    def expr(self, r: Ranked) -> pl.Expr:
        """The measure's value for one query, inside ``group_by(...).agg(...)``."""
        raise NotImplementedError

    def depth(self) -> int | None:
        """How many leading positions of the ranked and ideal lists the value depends on.

        ``None`` (the default) means all of them; a measure that reads only the top ``k``
        returns ``k``, and the plan then evaluates it on the first ``k`` rows of each query.
        """
        return None

    def needs_frame(self) -> bool:
        """True when the measure cannot be one aggregation and needs :meth:`frame`."""
        return False

    def lowest_threshold(self) -> float | None:
        """The lowest relevance threshold the measure reads (``None``: it has none).

        A table whose labels all lie below it scores 0 everywhere: the plan warns.
        """
        return None

    def nonfinite_cause(self) -> str:
        """The likely cause of a NaN or infinite value, for the plan's error message."""
        return (
            "labels too large for float64 arithmetic (a sum of gains beyond 1.8e308); "
            "rescale the labels"
        )

    def frame(self, ranked: pl.LazyFrame, cols: Columns) -> pl.LazyFrame:
        """Per-query values from the exploded ranked table, for measures that need it."""
        raise NotImplementedError


@dataclasses.dataclass(frozen=True, kw_only=True)
class ThresholdMeasure(Measure):
    """A measure with a relevance threshold ``rel``: a row is relevant when its label is
    >= ``rel`` (default 1, trec_eval's relevance level); ``rel`` must be > 0."""

    rel: float = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "rel", check_threshold("rel", self.rel, measure=self.name))

    def lowest_threshold(self) -> float | None:
        return self.rel


def safe_ratio(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    """``num / den`` as Float64, and 0.0 where ``den`` is 0 (SPEC: no relevant row -> 0)."""
    return pl.when(den > 0).then(num.cast(pl.Float64) / den).otherwise(pl.lit(0.0))


def as_levels(levels: object, *, measure: str) -> str | tuple[float, ...]:
    """Normalise µAP's ``levels``: ``"query"``, ``"table"`` or a sorted tuple of positives."""
    if isinstance(levels, str):
        if levels in ("query", "table"):
            return levels
    elif isinstance(levels, Sequence) and len(levels) > 0:
        return tuple(sorted({check_threshold("levels", v, measure=measure) for v in levels}))
    msg = (
        f"{measure}: levels must be 'query', 'table' or a non-empty list of numbers, not {levels!r}"
    )
    raise MeasureParameterError(msg)
