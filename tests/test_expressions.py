"""The expression functions (polars_graded/expressions.py), made from the measure registry:
real signatures and docs, the same checks and names as the measures."""

from __future__ import annotations

import doctest
import inspect
from typing import Any

import polars as pl
import pytest

import polars_graded as pg
from polars_graded import expressions
from polars_graded.measures import registry
from polars_graded.options import TiePolicy

TABLE = pl.DataFrame(
    {
        "query": [1, 1, 1, 2, 2],
        "item": ["a", "b", "c", "a", "b"],
        "score": [3.0, 2.0, 1.0, 2.0, 2.0],
        "relevance": [0, 2, 1, 1, 0],
    }
)
NAMES = list(registry.FUNCTIONS)


@pytest.mark.parametrize("name", NAMES)
def test_signature_shows_the_declared_parameters(name: str) -> None:
    cls = registry.FUNCTIONS[name]
    signature = inspect.signature(getattr(pg, name))
    declared = [p.name for p in registry.parameters(cls, expression=True)]
    assert list(signature.parameters) == [*declared, "columns"]
    for p in registry.parameters(cls, expression=True):
        parameter = signature.parameters[p.name]
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY
        assert parameter.default == (inspect.Parameter.empty if p.required else p.default)
    assert signature.parameters["columns"].kind is inspect.Parameter.VAR_KEYWORD


@pytest.mark.parametrize("name", NAMES)
def test_docstring_is_numpydoc_with_an_example(name: str) -> None:
    doc = getattr(pg, name).__doc__
    for section in ("Parameters\n----------", "Returns\n-------", "Examples\n--------", ">>>"):
        assert section in doc
    # Made in expressions.py, so that pytest --doctest-modules runs the example there.
    found = {test.name for test in doctest.DocTestFinder().find(expressions)}
    assert f"polars_graded.expressions.{name}" in found


@pytest.mark.parametrize("ties", ["trec_eval", "average"])
@pytest.mark.parametrize("name", NAMES)
def test_a_function_is_its_measure_expression(name: str, ties: TiePolicy) -> None:
    cls = registry.FUNCTIONS[name]
    measure = pg.parse_measure(cls.declaration.example)
    keywords = {
        p.name: getattr(measure, p.name)
        for p in registry.parameters(cls, expression=True)
        if p.required or getattr(measure, p.name) != p.default
    }
    if ties == "average" and not cls.declaration.averages_ties:
        with pytest.raises(pg.MeasureParameterError, match="ties='average' is not supported"):
            TABLE.group_by("query").agg(getattr(pg, name)(**keywords, ties=ties))
        return
    got = TABLE.group_by("query").agg(getattr(pg, name)(**keywords, ties=ties)).sort("query")
    want = TABLE.group_by("query").agg(pg.measure_expr(measure, ties=ties)).sort("query")
    assert got.equals(want)
    assert got.columns == ["query", str(measure)]


def test_mu_ap_needs_explicit_levels() -> None:
    with pytest.raises(TypeError, match="mu_ap\\(\\) missing 1 required keyword-only argument"):
        pg.mu_ap()  # type: ignore[call-arg]


def test_checks_are_the_measures() -> None:
    with pytest.raises(pg.MeasureParameterError, match="relevance threshold 'rel' must be > 0"):
        pg.ap(rel=0)
    with pytest.raises(pg.MeasureParameterError, match="persistence p must be between 0 and 1"):
        pg.rbp(p=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'k'"):
        # R-precision takes no cutoff: k is not a parameter
        pg.r_precision(k=3)  # type: ignore[call-arg]


def test_column_names_are_passed_through() -> None:
    renamed = TABLE.rename({"relevance": "label", "score": "s"})
    got = renamed.group_by("query").agg(pg.ndcg(k=2, relevance="label", score="s"))
    want = TABLE.group_by("query").agg(pg.ndcg(k=2))
    assert got.sort("query").equals(want.sort("query"))


def test_compat_ranks_each_group_as_its_release() -> None:
    """Query 1: the relevant a (1000 + 1e-9) and b (1000) tie as float32 only, where item
    descending puts b first. Query 2: no tie, and R = 4 with two relevant rows unretrieved,
    where recall 0.3 stands for the 1st relevant row under 10.0 (round(1.2)) and the 2nd
    under 9.x ((long)(1.2 + 0.9)): iprec 1 and 1/2."""
    df = pl.DataFrame(
        {
            "query": [1, 1, 2, 2, 2, 2, 2, 2],
            "item": ["a", "b", "c", "d", "e", "f", "g", "h"],
            "score": [1000.0 + 1e-9, 1000.0, 4.0, 3.0, 2.0, 1.0, None, None],
            "relevance": [1, 0, 1, 0, 0, 1, 1, 1],
        }
    )

    def values(*exprs: pl.Expr) -> list[tuple[Any, ...]]:
        return df.group_by("query").agg(*exprs).sort("query").rows()

    iprec = pg.parse_measure("iprec(recall=0.3)")
    assert values(pg.rr(), pg.measure_expr(iprec)) == [(1, 1.0, 1.0), (2, 1.0, 1.0)]
    nine = values(pg.rr(compat="trec_eval_9"), pg.measure_expr(iprec, compat="trec_eval_9"))
    assert nine == [(1, 0.5, 0.5), (2, 1.0, 0.5)]


def test_a_measures_own_compat_wins_over_the_expressions() -> None:
    """``ir_measures:RR`` carries trec_eval_9: its expression ranks by float32 whatever
    ``compat=`` says, and is named by its canonical string."""
    df = pl.DataFrame(
        {"query": 1, "item": ["a", "b"], "score": [1000.0 + 1e-9, 1000.0], "relevance": [1, 0]}
    )
    ir_rr = pg.parse_measure("ir_measures:RR")
    for compat in ("trec_eval_10", "trec_eval_9"):
        expr = pg.measure_expr(ir_rr, compat=compat)
        assert expr.meta.output_name() == "rr(compat=trec_eval_9)"
        assert df.group_by("query").agg(expr).row(0) == (1, 0.5)
    ten = pg.measure_expr(pg.RR(compat="trec_eval_10"), compat="trec_eval_9")
    assert df.group_by("query").agg(ten).row(0) == (1, 1.0)
