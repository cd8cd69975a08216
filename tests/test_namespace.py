"""The ``graded`` namespace (polars_graded/namespace.py): it only forwards to the typed API,
and its shortcuts are made from the measure registry."""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, Unpack

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_graded as pg
from polars_graded import expressions, namespace, report
from polars_graded.measures import registry
from polars_graded.options import ColumnOptions, RankingOptions, TiePolicy
from polars_graded.report import NotebookReport

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
    assert methods == {*NAMES, "evaluate", "summary", "compare", "per_threshold", "report"}


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
    frame: Any = TABLE.lazy() if lazy else TABLE  # either kind: pg.evaluate binds one at a time
    # A measure without a closed form under averaged ties refuses it: compare under another.
    ties: TiePolicy = "average" if cls.declaration.averages_ties else "trec_eval"
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


def described(function: Callable[..., Any]) -> list[tuple[str, Any, Any, Any]]:
    """Each parameter's name, kind, default and annotation (evaluated)."""
    parameters = inspect.signature(function, eval_str=True).parameters.values()
    return [(p.name, p.kind, p.default, p.annotation) for p in parameters]


@pytest.mark.parametrize("name", ["evaluate", "summary", "per_threshold"])
def test_a_method_has_the_signature_of_its_function(name: str) -> None:
    method = described(getattr(namespace.GradedNamespace, name))
    function = described(getattr(pg, name))
    assert method[0][0] == "self" and function[0][0] == "frame"
    assert method[1:] == function[1:]


def test_report_has_the_signature_of_build_report() -> None:
    method = described(namespace.GradedNamespace.report)
    function = described(pg.build_report)
    assert method[0][0] == "self" and function[0][0] == "table"
    assert method[1:] == function[1:]


@pytest.mark.parametrize("lazy", [False, True])
def test_report_is_build_report_on_the_frame(
    lazy: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options: dict[str, Any] = {"measures": ["ap"], "trials": 20, "bootstrap": 20}
    frame: Any = TABLE.lazy() if lazy else TABLE
    got = frame.graded.report(**options)
    want = pg.build_report(TABLE, **options)
    assert isinstance(got, NotebookReport)
    assert_frame_equal(got.per_query, want.per_query, check_exact=True)
    assert_frame_equal(got.comparison, want.comparison, check_exact=True)
    assert got.settings == want.settings
    # With a folder, the report is written (the writing is tests/test_report_notebook.py's).
    monkeypatch.setattr(report, "write_report", lambda rep, out: ("written", out))
    assert frame.graded.report(tmp_path, **options) == ("written", tmp_path)


def test_report_system_is_the_deprecated_by() -> None:
    table = TABLE.rename({"system": "run"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = table.graded.report(system="run", measures=["ap"], trials=20, bootstrap=20)
    assert [w.category for w in caught] == [DeprecationWarning]
    assert caught[0].filename == __file__  # it names the caller's line
    assert got.system == "run" and got.order == ("a", "b")


def test_compare_takes_every_keyword_of_pg_compare() -> None:
    method = described(namespace.GradedNamespace.compare)
    function = described(pg.compare)
    assert [p[0] for p in method[:2]] == ["self", "measures"]
    assert [p[0] for p in function[:2]] == ["per_query", "measures"]
    # measures: to evaluate here, the value columns to compare there; the rest is the same.
    keywords = [p for p in method if p[1] is inspect.Parameter.KEYWORD_ONLY]
    assert keywords == function[2:]
    # ... then the table options that pg.compare does not take, as in evaluate.
    columns = method[-1]
    assert columns[:2] == ("columns", inspect.Parameter.VAR_KEYWORD)
    assert len(method) == 2 + len(keywords) + 1
    assert columns[3] == Unpack[RankingOptions]
    shared = set(ColumnOptions.__annotations__) - set(RankingOptions.__annotations__)
    assert shared == {"by", "query"} <= {p[0] for p in keywords}


@pytest.mark.parametrize("name", NAMES)
def test_a_shortcut_has_the_parameters_of_its_expression(name: str) -> None:
    cls = registry.FUNCTIONS[name]
    method = inspect.signature(getattr(namespace.GradedNamespace, name)).parameters
    function = inspect.signature(getattr(pg, name)).parameters
    assert list(method)[1:] == list(function)
    # Only a parameter the expression takes in another form (mu_ap's levels) may differ.
    other = {
        p.name
        for p, q in zip(
            registry.parameters(cls), registry.parameters(cls, expression=True), strict=True
        )
        if p != q
    }
    for key in list(function)[:-1]:
        if key not in other:
            assert str(method[key]) == str(function[key])
    assert str(method["columns"]) == "**columns: 'Unpack[ColumnOptions]'"
    assert str(function["columns"]) == "**columns: 'Unpack[ExprOptions]'"
    assert set(expressions.ExprOptions.__annotations__) <= set(ColumnOptions.__annotations__)


def test_compare_forwards_the_keywords_it_used_to_refuse() -> None:
    third = TABLE.filter(system="a").with_columns(system=pl.lit("c"), score=-pl.col("score"))
    table = TABLE.vstack(third)
    got = table.graded.compare(["ap"], pairs="all", correction="bh", trials=50, bootstrap=50)
    values = pg.evaluate(table, ["ap"], by="system")
    want = pg.compare(values, ["ap"], pairs="all", correction="bh", trials=50, bootstrap=50)
    assert_frame_equal(got, want)
    measures = ["ap", "p@1"]
    got = table.graded.compare(measures, judged_only=True, depth=1, trials=50, seed=3)
    values = pg.evaluate(table, measures, by="system", judged_only=True, depth=1)
    assert_frame_equal(got, pg.compare(values, measures, trials=50, seed=3))


def test_compare_system_is_the_deprecated_by() -> None:
    table = TABLE.rename({"system": "run"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = table.graded.compare(["ap"], system="run", trials=50, bootstrap=50)
    assert [w.category for w in caught] == [DeprecationWarning]
    assert caught[0].filename == __file__  # it names the caller's line
    want = table.graded.compare(["ap"], by="run", trials=50, bootstrap=50)
    assert_frame_equal(got, want)


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
