"""Measures as expressions, for a ``group_by(...).agg(...)`` of your own.

Each function returns a ``pl.Expr`` that ranks the rows of its group (score descending,
compared as 64-bit floats as trec_eval 10.0 does, or as 32-bit floats with
``compat="trec_eval_9"``; ties by item descending) and computes one measure, aliased to the
measure's canonical name. Group by ``query`` (plus any system columns) yourself. Unlike the
``graded`` namespace, these do not validate the input (see :mod:`polars_graded.validate`);
but no NaN or infinite value leaves them: one (from an infinite or NaN label, or from DCG's
exponential gain on labels >= 1024, as 2^1024 overflows float64) raises an
:class:`~polars_graded.InvalidValueError` when the expression runs, without naming the row.
NDCG and mean NDCG scale their exponential gains to the query's top label, as the namespace
does, so they stay finite on labels of any size; ERR does the same with its ``max_rel``.
Parameters are checked as everywhere: a relevance threshold ``rel`` must be > 0.

There is one function per registered measure, made at import from the measure registry
(:mod:`polars_graded.measures.registry`): its keyword parameters, defaults, checks and
docstring are the measure's declaration, so ``help(pg.ap)`` and ``inspect.signature`` show
them; type checkers read them from ``measures/generated/functions.pyi``. Any other measure
object goes through :func:`measure_expr`.

Examples
--------
>>> import polars as pl
>>> import polars_graded as pg
>>> df = pl.DataFrame({
...     "query": [1, 1, 1], "item": ["a", "b", "c"],
...     "score": [3.0, 2.0, 1.0], "relevance": [0, 2, 1],
... })
>>> df.group_by("query").agg(pg.ap(), pg.ndcg(k=2))
shape: (1, 3)
┌───────┬──────────┬──────────┐
│ query ┆ ap       ┆ ndcg@2   │
│ ---   ┆ ---      ┆ ---      │
│ i64   ┆ f64      ┆ f64      │
╞═══════╪══════════╪══════════╡
│ 1     ┆ 0.583333 ┆ 0.521296 │
└───────┴──────────┴──────────┘
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypedDict

import polars as pl

from polars_graded.errors import InvalidValueError
from polars_graded.measures import registry
from polars_graded.measures.base import Measure
from polars_graded.measures.generated import generate
from polars_graded.options import DEFAULT_COMPAT, Compat, TiePolicy, check_compat
from polars_graded.ranking import rank_in_group


class ExprOptions(TypedDict, total=False):
    """Keyword arguments of every expression function.

    relevance, score, item
        Column names (defaults: ``"relevance"``, ``"score"``, ``"item"``).
    ties
        The tie policy: ``"trec_eval"`` (default), ``"input"``, ``"optimistic"``,
        ``"pessimistic"`` or ``"average"`` (see
        :class:`polars_graded.options.ColumnOptions`).
    compat
        The trec_eval release to reproduce: ``"trec_eval_10"`` (default) or
        ``"trec_eval_9"`` (pytrec_eval's numbers; see
        :func:`polars_graded.options.check_compat`).

    Examples
    --------
    Two tied rows: item descending (the default) puts the relevant ``a`` second,
    ``"optimistic"`` puts it first.

    >>> import polars_graded as pg
    >>> df = pl.DataFrame({"q": [1, 1], "doc": ["a", "b"], "s": [1.0, 1.0], "rel": [1, 0]})
    >>> options: ExprOptions = {"relevance": "rel", "score": "s", "item": "doc"}
    >>> df.group_by("q").agg(pg.rr(**options), pg.rr(**options, ties="optimistic").alias("best"))
    shape: (1, 3)
    ┌─────┬─────┬──────┐
    │ q   ┆ rr  ┆ best │
    │ --- ┆ --- ┆ ---  │
    │ i64 ┆ f64 ┆ f64  │
    ╞═════╪═════╪══════╡
    │ 1   ┆ 0.5 ┆ 1.0  │
    └─────┴─────┴──────┘
    """

    relevance: str
    score: str
    item: str
    ties: TiePolicy
    compat: Compat


def measure_expr(
    measure: Measure,
    *,
    relevance: str = "relevance",
    score: str = "score",
    item: str = "item",
    ties: TiePolicy = "trec_eval",
    compat: Compat = DEFAULT_COMPAT,
) -> pl.Expr:
    """The expression of any measure object, named by its canonical string.

    The measure's own ``compat`` (an ``ir_measures:`` name's) wins over ``compat=``.

    A NaN or infinite value raises an :class:`~polars_graded.InvalidValueError` when the
    expression runs (an infinite label; DCG's ``2^label`` beyond float64): it never leaves
    as a number.

    Examples
    --------
    >>> import polars_graded as pg
    >>> expr = pg.measure_expr(pg.AP(rel=2) @ 10, ties="average")
    >>> expr.meta.output_name()
    'ap(rel=2)@10'
    """
    release = measure.release(check_compat(compat))
    ranked = rank_in_group(relevance, score, item, ties, release)
    value = measure.expr(ranked).cast(pl.Float64)
    # Elementwise: Polars calls it once per batch of per-group values, not once per group.
    checked = value.map_batches(
        partial(_finite_or_raise, measure), return_dtype=pl.Float64, is_elementwise=True
    )
    if measure.declaration.counts:
        checked = checked.cast(measure.dtype)
    return checked.alias(str(measure))


def _finite_or_raise(measure: Measure, values: pl.Series) -> pl.Series:
    """``values`` unchanged, or an error if one is NaN or infinite."""
    broken = values.filter(~values.is_finite())
    if broken.len():
        count = "1 group" if broken.len() == 1 else f"{broken.len()} groups"
        msg = (
            f"measure {str(measure)!r} is {broken[0]} for {count}; likely cause: an infinite "
            f"or NaN label (the expression functions do not check their input; "
            f"df.graded.evaluate names the offending rows), or {measure.nonfinite_cause()}"
        )
        raise InvalidValueError(msg)
    return values


COLUMNS = "Unpack[ExprOptions]"
COLUMNS_DOC = (
    "``relevance=``, ``score=``, ``item=`` (column names), ``ties=`` (the tie policy) and "
    "``compat=`` (the trec_eval release); "
    "see :class:`ExprOptions`."
)


def expression_function(cls: type[Measure]) -> Callable[..., pl.Expr]:
    """The expression function of a registered measure class, e.g. ``pg.ap``.

    Examples
    --------
    >>> from polars_graded.measures.ap import AveragePrecision
    >>> import inspect
    >>> params = inspect.signature(expression_function(AveragePrecision)).parameters
    >>> [(p.name, p.default) for p in params.values()][:3], str(params["columns"])
    ([('rel', 1), ('norm', 'R'), ('k', None)], "**columns: 'Unpack[ExprOptions]'")

    """
    declared = cls.declaration

    def function(**options: Any) -> pl.Expr:
        measure, columns = registry.bind(cls, options, expression=True)
        return measure_expr(measure, **columns)

    columns = inspect.Parameter("columns", inspect.Parameter.VAR_KEYWORD, annotation=COLUMNS)
    own = registry.signature(cls, expression=True)
    function.__signature__ = inspect.Signature([*own, columns], return_annotation="pl.Expr")  # type: ignore[attr-defined]
    function.__name__ = function.__qualname__ = declared.function
    _, column = generate.example_call(cls, expression=True)
    function.__doc__ = "\n\n".join(
        [
            generate.sentence(declared.summary),
            generate.formula(cls),
            f"The expression of :class:`{cls.__module__}.{cls.__qualname__}`, named by its "
            "canonical string; group by ``query`` (and any system columns) yourself.",
            generate.parameters_section(cls, COLUMNS_DOC, expression=True),
            f"Returns\n-------\nExpr\n    One Float64 value per group, named like {column!r}.",
            "Examples\n--------\n"
            + generate.example(cls, 'df.group_by("query").agg(pg.{})', expression=True),
        ]
    )
    return function


if TYPE_CHECKING:  # the generated names, typed
    from polars_graded.measures.generated.functions import *  # noqa: F403
else:
    globals().update({name: expression_function(cls) for name, cls in registry.FUNCTIONS.items()})
__all__ = ["ExprOptions", "expression_function", "measure_expr"]
__all__.extend(registry.FUNCTIONS)
