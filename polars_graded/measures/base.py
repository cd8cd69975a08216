"""The measure base class, its declaration, and the parameter checks every measure shares.

A measure such as ``AP(rel=2) @ 10`` is a frozen, hashable object. ``str()`` gives its
canonical name (``"ap(rel=2)@10"``), which is also the name of its result column and what
:func:`polars_graded.parse_measure` reads back (the rule:
:mod:`polars_graded.measures.names.grammar`, "Canonical names"). Calling a measure returns a
copy with other parameters; ``@ k`` returns a copy with a cutoff.

A measure class declares everything about itself once (:mod:`polars_graded.measures` says how):
its :class:`Declaration` (names, aliases, cutoff, the names other tools use) and its
parameters, dataclass fields made with :func:`param` (default, accepted type, check, one-line
doc). Every relevance threshold (``rel=``, µAP's ``levels``) must be > 0: a label <= 0 is
never relevant (:func:`check_threshold`, the one check of them all).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol

import polars as pl

from polars_graded.errors import MeasureParameterError
from polars_graded.options import COMPATS, Compat, TableSpec
from polars_graded.ranking import Ranked

Cutoff = Literal["top_k", "all_rows", "none"]
"""What a cutoff ``@k`` means to a measure: ``"top_k"``, it takes one and then reads only
the first k rows of the ranked and ideal lists; ``"all_rows"``, it takes one but still reads
every row (AP and recall divide by R, the relevant rows anywhere); ``"none"``, it takes none."""


@dataclass(frozen=True, kw_only=True)
class Declaration:
    """What a measure class says about itself, once; everything else is generated from it.

    Examples
    --------
    >>> from polars_graded.measures.ap import AveragePrecision
    >>> AveragePrecision.declaration.function, AveragePrecision.declaration.trec_eval["map"]
    ('ap', 'ap{r}')
    """

    name: str
    """Canonical name in the grammar and in column names (``"ap"``)."""
    summary: str
    """One line: what the measure is (the measures page, CLI help, the first line of each doc)."""
    function: str
    """Name of the expression function ``pg.<function>(...)`` and of the namespace shortcut
    ``df.graded.<function>(...)``."""
    instance: str
    """Name of the ready-made instance with default parameters (``pg.AP``)."""
    order: int
    """Place in every listing (valid names, CLI help, the measures page); a new measure takes
    the next."""
    example: str
    """A measure string whose value on the docs' three-row table is :attr:`example_value`."""
    example_value: float
    """That value, rounded to 6 decimals: the generated doctests check it."""
    aliases: tuple[str, ...] = ()
    """Other names the grammar reads (``"map"`` for ``"ap"``), lower case."""
    cutoff: Cutoff = "top_k"
    trec_eval: Mapping[str, str] = field(default_factory=dict)
    """trec_eval measure name -> the same measure here, ``{r}`` standing for ``""`` or
    ``"(rel=t)"`` (trec_eval's ``-l t``) and ``{k}`` for a cutoff; empty: not in trec_eval."""
    ir_measures: Mapping[str, str] = field(default_factory=dict)
    """ir_measures pattern -> the same measure here: ``{k}`` the value after ``@`` (required),
    a trailing ``[@{k}]`` an optional cutoff, ``{param}`` an ir_measures parameter (rules in
    :mod:`polars_graded.measures.names.ir_names`); empty: none there."""
    counts: bool = False
    """The values are counts (``num_ret``, ...): Int64 columns, not Float64."""
    averages_ties: bool = True
    """``ties="average"`` has a closed form; ``False``: the measure refuses that policy
    (:func:`polars_graded.measures.kernels.unaveraged.refuse_averaged_ties`)."""

    @property
    def takes_cutoff(self) -> bool:
        """Whether ``@k`` is accepted."""
        return self.cutoff != "none"


class Check(Protocol):
    """A parameter check: the value normalised, or a :class:`MeasureParameterError`.

    Examples
    --------
    >>> check: Check = check_threshold
    >>> check("rel", 2, measure="ap")
    2.0
    >>> check("rel", 0, measure="ap")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.MeasureParameterError: ap: relevance threshold 'rel' must be > 0 ...
    """

    def __call__(self, name: str, value: Any, /, *, measure: str) -> Any: ...


@dataclass(frozen=True)
class ParamInfo:
    """What :func:`param` stores in a dataclass field's metadata.

    Examples
    --------
    >>> import dataclasses
    >>> from polars_graded.measures.rbp import RankBiasedPrecision
    >>> info = param_info(dataclasses.fields(RankBiasedPrecision)[-1])  # p
    >>> info.check.__name__, info.examples, info.accepts
    ('check_persistence', ('0.9',), None)
    """

    doc: str
    check: Check | None = None
    accepts: str | None = None
    """The type users pass, as written in signatures; ``None``: the field's own type."""
    show: Callable[[Any], str] | None = None
    """Canonical text of a value; ``None``: :func:`format_number` for numbers, else ``str``."""
    examples: tuple[str, ...] = ()
    """Values other than the default, as written in a measure string (for the measures page)."""
    in_expression: str | None = None
    """The type the expression function requires (no default there), when the default
    needs the whole table, as µAP's per-query levels do; ``None``: as everywhere."""
    listed: bool = True
    """``False``: not a keyword of the measure's functions nor in its listings (the
    base's ``compat``, which the ``compat=`` table option sets for every measure)."""


def param(
    default: Any,
    doc: str,
    *,
    check: Check | None = None,
    accepts: str | None = None,
    show: Callable[[Any], str] | None = None,
    examples: tuple[str, ...] = (),
    in_expression: str | None = None,
    listed: bool = True,
) -> Any:
    """A measure parameter: a dataclass field with its default, check and one-line doc.

    Examples
    --------
    >>> import dataclasses
    >>> from polars_graded.measures.base import ThresholdMeasure
    >>> rel = {f.name: f for f in dataclasses.fields(ThresholdMeasure)}["rel"]
    >>> rel.default, rel.metadata["param"].check is check_threshold
    (1, True)
    """
    info = ParamInfo(doc, check, accepts, show, examples, in_expression, listed)
    return field(default=default, metadata={"param": info})


def param_info(f: dataclasses.Field[Any]) -> ParamInfo:
    """The :class:`ParamInfo` of a measure's field.

    Examples
    --------
    >>> import dataclasses
    >>> from polars_graded.measures.rbp import RankBiasedPrecision
    >>> param_info(dataclasses.fields(RankBiasedPrecision)[-1]).doc
    'Persistence, the chance of going on to the next row (0 < p < 1).'
    """
    info = f.metadata.get("param")
    if not isinstance(info, ParamInfo):
        msg = f"measure field {f.name!r} is not declared with param()"
        raise TypeError(msg)
    return info


def format_number(x: float) -> str:
    """Shortest text for a number: ``2`` rather than ``2.0``, ``4.5`` as is, ``1e+300``.

    Examples
    --------
    >>> format_number(2.0), format_number(0.50)
    ('2', '0.5')
    """
    if float(x).is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(float(x))


def check_number(name: str, value: object, *, measure: str) -> float:
    """A finite real number, or a :class:`MeasureParameterError` naming the parameter.

    Examples
    --------
    >>> check_number("base", 10, measure="dcg")
    10.0
    """
    number = math.nan
    if not isinstance(value, bool) and isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an int beyond float64
            number = math.inf
    if not math.isfinite(number):
        msg = f"{measure}: parameter {name!r} must be a finite number, got {shown(value)}"
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
            f"relevant), got {shown(value)}"
        )
        raise MeasureParameterError(msg)
    return threshold


MAX_CUTOFF = 2**63 - 1
"""The largest cutoff ``k`` (Polars' Int64); any larger one would read every row anyway."""


def check_cutoff(name: str, k: object, *, measure: str) -> int | None:
    """``None`` or an int from 1 to :data:`MAX_CUTOFF`, else a :class:`MeasureParameterError`.

    Examples
    --------
    >>> check_cutoff("k", 10, measure="ap")
    10
    """
    del name  # the message says "cutoff k" whatever the field is called
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_CUTOFF:
        msg = f"{measure}: cutoff k must be a positive integer (at most 2**63 - 1), got {shown(k)}"
        raise MeasureParameterError(msg)
    return k


def check_measure_compat(name: str, value: object, *, measure: str) -> Compat | None:
    """A measure's own ``compat``: ``None`` (the evaluation's) or a release name.

    Examples
    --------
    >>> check_measure_compat("compat", "trec_eval_9", measure="ap")
    'trec_eval_9'
    """
    if value is None:
        return None
    if value not in COMPATS:
        msg = f"{measure}: parameter {name!r} must be {' or '.join(COMPATS)}, got {shown(value)}"
        raise MeasureParameterError(msg)
    return value  # type: ignore[return-value]


def shown(value: object, most: int = 40) -> str:
    """``repr(value)``, shortened: a parameter may come from a very long string.

    Examples
    --------
    >>> shown("x" * 50)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."
    """
    try:
        text = repr(value)
    except ValueError:  # an int of more digits than Python converts to text
        return "an int too large to print"
    return text if len(text) <= most else text[: most - 3] + "..."


@dataclasses.dataclass(frozen=True, kw_only=True)
class Measure:
    """Base class of every measure.

    Subclasses declare a :class:`Declaration`, their parameters as fields made with
    :func:`param`, and implement :meth:`expr`, an aggregation over one query written
    against :class:`Ranked`; the registry (:func:`~polars_graded.measures.registry.register`)
    does the rest.

    Examples
    --------
    >>> import polars_graded as pg
    >>> str(pg.AP(rel=2) @ 10), pg.AP(rel=2) @ 10 == pg.parse_measure("map(rel=2)@10")
    ('ap(rel=2)@10', True)
    """

    declaration: ClassVar[Declaration]
    name: ClassVar[str]
    """Canonical short name, as in the grammar (``"ap"``), from the declaration."""

    k: int | None = param(
        None,
        "Cutoff: only the first ``k`` retrieved rows count; ``None`` for all.",
        check=check_cutoff,
    )
    compat: Compat | None = param(  # noqa: RUF009 (a frozen default, as k's)
        None,
        "The trec_eval release whose numbers this measure reproduces (``compat=`` of "
        ":class:`~polars_graded.options.ColumnOptions`); ``None``: the evaluation's. The "
        "``ir_measures:`` names set ``trec_eval_9``, as pytrec_eval computes.",
        check=check_measure_compat,
        listed=False,
    )

    def __post_init__(self) -> None:
        if self.k is not None and not self.declaration.takes_cutoff:
            msg = f"{self.name} takes no cutoff (@k), got @{self.k}"
            raise MeasureParameterError(msg)
        # Field order: the cutoff first, then each class's parameters, base classes first.
        for f in dataclasses.fields(self):
            check = param_info(f).check
            if check is not None:
                value = check(f.name, getattr(self, f.name), measure=self.name)
                object.__setattr__(self, f.name, value)

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
                show = param_info(f).show
                out[f.name] = show(value) if show is not None else format_value(value)
        return out

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

    def release(self, evaluation: Compat) -> Compat:
        """The trec_eval release this measure follows: its own ``compat`` (an
        ``ir_measures:`` name's), else the evaluation's.

        Examples
        --------
        >>> import polars_graded as pg
        >>> pg.AP.release("trec_eval_10"), pg.AP(compat="trec_eval_9").release("trec_eval_10")
        ('trec_eval_10', 'trec_eval_9')
        """
        return self.compat or evaluation

    def expr(self, r: Ranked) -> pl.Expr:
        """The measure's value for one query, inside ``group_by(...).agg(...)``."""
        raise NotImplementedError

    def depth(self) -> int | None:
        """How many leading positions of the ranked and ideal lists the value depends on.

        ``None`` means all of them; a measure whose cutoff is ``"top_k"`` reads only the top
        ``k``, and the plan then evaluates it on the first ``k`` rows of each query.
        """
        return self.k if self.declaration.cutoff == "top_k" else None

    @property
    def dtype(self) -> pl.DataType:
        """The dtype of the measure's column: Int64 for counts, else Float64.

        Examples
        --------
        >>> import polars_graded as pg
        >>> pg.AP.dtype
        Float64
        """
        return pl.Int64() if self.declaration.counts else pl.Float64()

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

    def frame(self, ranked: pl.LazyFrame, cols: TableSpec) -> pl.LazyFrame:
        """Per-query values from the exploded ranked table, for measures that need it."""
        raise NotImplementedError


def format_value(value: object) -> str:
    """Canonical text of a plain parameter value: numbers shortest, anything else ``str``.

    Examples
    --------
    >>> format_value(2.0), format_value("table")
    ('2', 'table')
    """
    return format_number(value) if isinstance(value, int | float) else str(value)


DEFAULT_REL = 1
"""The default relevance threshold ``rel`` (trec_eval's relevance level): a row is relevant
when its label is >= 1; also where ``gain="binary"`` starts giving gain 1."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class ThresholdMeasure(Measure):
    """A measure with a relevance threshold ``rel``: a row is relevant when its label is
    >= ``rel`` (default 1, trec_eval's relevance level); ``rel`` must be > 0.

    Examples
    --------
    >>> import polars_graded as pg
    >>> pg.P(rel=2).lowest_threshold()
    2.0
    """

    rel: float = param(
        DEFAULT_REL,
        "Relevance threshold, > 0: rows with a label >= ``rel`` are relevant.",
        check=check_threshold,
        examples=("2",),
    )

    def lowest_threshold(self) -> float | None:
        return self.rel


def safe_ratio(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    """``num / den`` as Float64, and 0.0 where ``den`` is 0 (no relevant row -> 0:
    docs/conventions.md §4).

    Examples
    --------
    >>> pl.select(safe_ratio(pl.lit(1), pl.lit(0))).item()
    0.0
    """
    return pl.when(den > 0).then(num.cast(pl.Float64) / den).otherwise(pl.lit(0.0))
