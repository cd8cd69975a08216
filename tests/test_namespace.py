"""The ``graded`` namespace (polars_graded/namespace.py): it only forwards to the typed API,
and its shortcuts are made from the measure registry."""

from __future__ import annotations

import inspect
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_graded as pg
from polars_graded import namespace
from polars_graded.measures import registry

TABLE = pl.DataFrame(
    {
        "system": ["a", "a", "a", "b", "b", "b"],
        "query": [1, 1, 2, 1, 1, 2],
        "item": ["x", "y", "x", "x", "y", "x"],
        "score": [2.0, 1.0, 1.0, 1.0, 2.0, 1.0],
        "relevance": [0, 2, 1, 0, 2, 1],
    }
)
NAMES = list(registry.FUNCTIONS)


def test_the_shortcuts_are_the_registered_functions() -> None:
    methods = {
        name
        for name, value in vars(namespace.GradedNamespace).items()
        if callable(value) and not name.startswith("_")
    }
    assert methods == {*NAMES, "evaluate", "summary", "compare", "per_threshold"}


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_a_shortcut_is_evaluate_of_its_measure(name: str, lazy: bool) -> None:
    cls = registry.FUNCTIONS[name]
    measure = pg.parse_measure(cls.declaration.example)
    keywords = {
        p.name: getattr(measure, p.name)
        for p in registry.parameters(cls)
        if getattr(measure, p.name) != p.default
    }
    frame = TABLE.lazy() if lazy else TABLE
    # A measure without a closed form under averaged ties refuses it: compare under another.
    ties = "average" if cls.declaration.averages_ties else "trec_eval"
    got = getattr(frame.graded, name)(**keywords, by="system", ties=ties)
    want = pg.evaluate(frame, measure, by="system", ties=ties)
    assert isinstance(got, pl.LazyFrame) is lazy
    if lazy:
        got, want = got.collect(), want.collect()
    assert_frame_equal(got, want, check_exact=True)


@pytest.mark.parametrize("name", NAMES)
def test_a_shortcut_has_its_signature_and_doc(name: str) -> None:
    method = getattr(namespace.GradedNamespace, name)
    signature = inspect.signature(method)
    own = [p.name for p in registry.parameters(registry.FUNCTIONS[name])]
    assert list(signature.parameters) == ["self", *own, "columns"]
    assert ">>>" in method.__doc__
    assert method.__qualname__ == f"GradedNamespace.{name}"


def test_unknown_keywords_are_the_table_options_error() -> None:
    with pytest.raises(TypeError, match="unknown keyword argument"):
        TABLE.graded.ndcng(rel=2)


def test_mu_ap_levels_default_to_each_query() -> None:
    assert TABLE.graded.mu_ap(by="system").columns == ["system", "query", "mu_ap"]


def test_compare_is_evaluate_then_the_statistics() -> None:
    got = TABLE.graded.compare(["ap"], trials=50, bootstrap=50)
    values = pg.evaluate(TABLE, ["ap"], by="system")
    want = pg.compare(values, ["ap"], by="system", trials=50, bootstrap=50)
    assert_frame_equal(got, want)
    lazy = TABLE.lazy().graded.compare(["ap"], trials=50, bootstrap=50)
    assert_frame_equal(lazy, want)
    with pytest.raises(pg.InvalidValueError, match="exactly one system column"):
        TABLE.graded.compare(["ap"], by=["system", "query"])


def test_the_namespace_stays_thin() -> None:
    source = Path(namespace.__file__).read_text(encoding="utf-8")
    assert len(source.splitlines()) < 400
    assert "polars_graded.plan" not in source and "plan.per_query" not in source


def test_namespace_methods_and_expressions_equal_evaluate() -> None:
    df = pl.DataFrame(
        {"query": [1, 1, 1, 2, 2], "item": ["a", "b", "c", "a", "b"],
         "score": [1.0, 1.0, 0.5, 2.0, None], "relevance": [2, 0, None, 1, 3]}
    )  # fmt: skip
    calls = {
        "err@2": (df.graded.err(k=2), pg.err(k=2, ties="average")),
        "rbp(p=0.5)": (df.graded.rbp(p=0.5), pg.rbp(p=0.5, ties="average")),
        "rbp_residual": (df.graded.rbp_residual(), pg.rbp_residual(ties="average")),
        "bpref": (df.graded.bpref(), pg.bpref(ties="average")),
        "judged@1": (df.graded.judged(k=1), pg.judged(k=1, ties="average")),
        "success@1": (df.graded.success(k=1), pg.success(k=1, ties="average")),
    }
    expected = df.graded.evaluate(list(calls))
    averaged = df.graded.evaluate(list(calls), ties="average")
    for name, (method, expression) in calls.items():
        assert_frame_equal(method, expected.select("query", name))
        mine = df.group_by("query").agg(expression).sort("query")
        assert_frame_equal(mine, averaged.select("query", name), check_exact=False)
