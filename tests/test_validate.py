"""The rules of the table (polars_graded/validate.py, conventions §1): bad input raises the
library's own exceptions with useful messages.

Errors subclass ``pg.GradedError`` (and the matching builtin, see test_errors); messages name
the column and the rule and show up to five offending keys; on a LazyFrame the data checks
raise at collect time; an empty table gives an empty result with the right columns. Bad
measure strings are test_measures_names_grammar's, bad options test_options'.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest
from support import oracle

import polars_graded as pg

# distinctive names, so that a message naming them cannot do so by accident
COLS: dict[str, Any] = {"query": "qid", "item": "docno", "score": "sim", "relevance": "judgment"}
BAD_Q = 4242
BAD_ITEM = "doc_x9"


def table(**overrides: Any) -> pl.DataFrame:
    data = {
        "qid": [1, 1, 1, BAD_Q, BAD_Q],
        "docno": ["a", "b", "c", BAD_ITEM, "e"],
        "sim": [3.0, 2.0, 1.0, 2.0, 1.0],
        "judgment": [1, 0, 2, 1, None],
    }
    data.update(overrides)
    return pl.DataFrame(data)


METHODS: dict[str, Callable[..., Any]] = {
    "evaluate": lambda ns, **kw: ns.evaluate(["mu_ap", "ndcg@3"], **kw),
    "summary": lambda ns, **kw: ns.summary(["mu_ap", "ndcg@3"], **kw),
    "mu_ap": lambda ns, **kw: ns.mu_ap(**kw),
    "mu_ap_table": lambda ns, **kw: ns.mu_ap(levels="table", **kw),
    "ap": lambda ns, **kw: ns.ap(rel=2, **kw),
    "ndcg": lambda ns, **kw: ns.ndcg(k=3, **kw),
    "ndcng": lambda ns, **kw: ns.ndcng(**kw),
    "dcg": lambda ns, **kw: ns.dcg(k=3, base=10, **kw),
    "precision": lambda ns, **kw: ns.precision(k=3, **kw),
    "recall": lambda ns, **kw: ns.recall(k=3, **kw),
    "r_precision": lambda ns, **kw: ns.r_precision(**kw),
    "rr": lambda ns, **kw: ns.rr(**kw),
    "mean_ndcg": lambda ns, **kw: ns.mean_ndcg(**kw),
    "mean_ndcng": lambda ns, **kw: ns.mean_ndcng(**kw),
}


def raises_eager(
    df: pl.DataFrame, error: type[Exception], method: str = "evaluate", **kw: Any
) -> str:
    """The DataFrame call itself raises ``error``; returns the message."""
    with pytest.raises(error) as info:
        METHODS[method](df.graded, **{**COLS, **kw})
    assert isinstance(info.value, pg.GradedError)
    return str(info.value)


def raises_lazy_at_collect(
    df: pl.DataFrame, error: type[Exception], method: str = "evaluate", **kw: Any
) -> str:
    """The LazyFrame call returns a LazyFrame without raising; collect raises ``error``."""
    lazy = METHODS[method](df.lazy().graded, **{**COLS, **kw})
    assert isinstance(lazy, pl.LazyFrame)
    with pytest.raises(error) as info:
        lazy.collect()
    assert isinstance(info.value, pg.GradedError)
    return str(info.value)


def raises_lazy_at_call_or_collect(
    df: pl.DataFrame, error: type[Exception], method: str = "evaluate"
) -> str:
    with pytest.raises(error) as info:
        METHODS[method](df.lazy().graded, **COLS).collect()
    assert isinstance(info.value, pg.GradedError)
    return str(info.value)


def test_valid_table_works() -> None:
    # the fixture itself is valid, so every error below comes from the one change made
    for call in METHODS.values():
        result = call(table().graded, **COLS)
        assert result.height in (1, 2)


# --- schema: missing columns, non-numeric score/relevance ---------------------------------


@pytest.mark.parametrize("column", ["qid", "docno", "sim", "judgment"])
@pytest.mark.parametrize("method", METHODS)
def test_missing_column(column: str, method: str) -> None:
    df = table().drop(column)
    message = raises_eager(df, pg.MissingColumnError, method)
    assert column in message
    assert column in raises_lazy_at_call_or_collect(df, pg.MissingColumnError, method)


def test_missing_by_column() -> None:
    message = raises_eager(table(), pg.MissingColumnError, by="runtag")
    assert "runtag" in message
    message = raises_eager(table(), pg.MissingColumnError, "summary", by=["qid_group", "runtag"])
    assert "qid_group" in message or "runtag" in message


def test_default_names_missing() -> None:
    # with no column arguments the defaults are looked for, and the message names them
    with pytest.raises(pg.MissingColumnError) as info:
        table().graded.evaluate("ap")
    assert "query" in str(info.value)


@pytest.mark.parametrize("column", ["sim", "judgment"])
@pytest.mark.parametrize("method", ["evaluate", "summary", "mu_ap", "mu_ap_table", "ndcng"])
def test_string_score_or_relevance(column: str, method: str) -> None:
    df = table().with_columns(pl.col(column).cast(pl.String))
    message = raises_eager(df, pg.ColumnTypeError, method)
    assert column in message
    assert column in raises_lazy_at_call_or_collect(df, pg.ColumnTypeError, method)


def test_numeric_types_are_accepted() -> None:
    df = table()
    expected = df.graded.evaluate(["mu_ap", "ndcg@3", "ap"], **COLS)
    for score_type, rel_type in [
        (pl.Int64, pl.Float64),
        (pl.Float32, pl.Int32),
        (pl.Int32, pl.UInt8),
    ]:
        cast = df.with_columns(pl.col("sim").cast(score_type), pl.col("judgment").cast(rel_type))
        assert cast.graded.evaluate(["mu_ap", "ndcg@3", "ap"], **COLS).equals(expected)


# --- data: NaN, duplicates, null keys ---------------------------------------------------------


def nan_score() -> pl.DataFrame:
    return table(sim=[3.0, 2.0, 1.0, float("nan"), 1.0])


@pytest.mark.parametrize("method", ["evaluate", "summary", "mu_ap", "mu_ap_table", "ap", "rr"])
def test_nan_score(method: str) -> None:
    for message in (
        raises_eager(nan_score(), pg.InvalidValueError, method),
        raises_lazy_at_collect(nan_score(), pg.InvalidValueError, method),
    ):
        assert "sim" in message
        assert "NaN" in message
        assert str(BAD_Q) in message
        assert BAD_ITEM in message


def test_nan_relevance() -> None:
    df = table(judgment=[1.0, 0.0, 2.0, float("nan"), None])
    for message in (
        raises_eager(df, pg.InvalidValueError),
        raises_lazy_at_collect(df, pg.InvalidValueError),
    ):
        assert "judgment" in message
        assert str(BAD_Q) in message
        assert BAD_ITEM in message


def duplicated() -> pl.DataFrame:
    df = table()
    return pl.concat([df, df.filter(pl.col("docno") == BAD_ITEM).with_columns(sim=pl.lit(0.5))])


@pytest.mark.parametrize("method", ["evaluate", "summary", "mu_ap", "mu_ap_table", "ndcg"])
def test_duplicate_key(method: str) -> None:
    for message in (
        raises_eager(duplicated(), pg.DuplicateKeyError, method),
        raises_lazy_at_collect(duplicated(), pg.DuplicateKeyError, method),
    ):
        assert "docno" in message
        assert str(BAD_Q) in message
        assert BAD_ITEM in message


def test_a_hash_collision_is_not_a_duplicate(monkeypatch: pytest.MonkeyPatch) -> None:
    # The plan flags duplicates by key hash; make every hash collide: the error path must
    # clear the flags with the exact check and the values must not change.
    from polars_graded import plan, validate

    expected = table().graded.evaluate(["mu_ap", "ndcg@3"], **COLS)
    collide = pl.lit(7, pl.UInt64).alias(validate.KEY_HASH)
    prepare = validate.prepare_checks
    monkeypatch.setattr(
        plan, "prepare_checks", lambda lf, cols: prepare(lf, cols).with_columns(collide)
    )
    assert table().graded.evaluate(["mu_ap", "ndcg@3"], **COLS).equals(expected)
    message = raises_eager(duplicated(), pg.DuplicateKeyError)
    assert BAD_ITEM in message


def test_the_same_item_in_other_queries_is_no_duplicate() -> None:
    # The duplicate check hashes the whole key over the table: an item shared by queries,
    # or a query named as another's item, is no repeated key.
    df = pl.DataFrame(
        {
            "qid": ["a", "b", "b"],
            "docno": ["b", "a", "b"],
            "sim": [1.0, 2.0, 1.0],
            "judgment": [1, 0, 1],
        }
    )
    values = df.graded.evaluate(["ap", "rr"], **COLS)
    one_by_one = pl.concat(
        part.graded.evaluate(["ap", "rr"], **COLS) for part in df.partition_by("qid")
    )
    assert values.equals(one_by_one)


def test_the_duplicate_message_counts_every_query() -> None:
    rows = [(q, item) for q in range(1, 8) for item in ("x", "y", "y" if q > 1 else "z")]
    df = pl.DataFrame(rows, schema=["qid", "docno"], orient="row").with_columns(
        sim=pl.lit(1.0), judgment=pl.lit(1)
    )
    expected = (
        "the key ['qid', 'docno'] must be unique: each item at most once per query; "
        "6 queries affected, e.g. (qid=2, docno='y'), (qid=3, docno='y'), (qid=4, docno='y'), "
        "(qid=5, docno='y'), (qid=6, docno='y') and 1 more"
    )
    assert raises_eager(df, pg.DuplicateKeyError) == expected
    assert raises_lazy_at_collect(df, pg.DuplicateKeyError) == expected


def test_duplicate_key_with_by() -> None:
    df = duplicated().with_columns(runtag=pl.lit("sysZ"))
    # the same item in two systems is fine ...
    ok = pl.concat(
        [table().with_columns(runtag=pl.lit("A")), table().with_columns(runtag=pl.lit("B"))]
    )
    assert ok.graded.evaluate("mu_ap", by="runtag", **COLS).height == 4
    # ... twice in one system is not, and the message shows the system
    for message in (
        raises_eager(df, pg.DuplicateKeyError, by="runtag"),
        raises_lazy_at_collect(df, pg.DuplicateKeyError, by="runtag"),
    ):
        assert "sysZ" in message
        assert BAD_ITEM in message
        assert str(BAD_Q) in message


def test_at_most_five_offending_keys_shown() -> None:
    rows: dict[str, list[Any]] = {"qid": [], "docno": [], "sim": [], "judgment": []}
    for q in range(7):
        for it, score in (("ok", 1.0), (f"bad{q}", float("nan"))):
            rows["qid"].append(100 + q)
            rows["docno"].append(it)
            rows["sim"].append(score)
            rows["judgment"].append(1)
    message = raises_eager(pl.DataFrame(rows), pg.InvalidValueError)
    shown = [q for q in range(7) if f"bad{q}" in message]
    assert 1 <= len(shown) <= 5, message


def test_null_item() -> None:
    df = table(docno=["a", "b", "c", None, "e"])
    for message in (
        raises_eager(df, pg.InvalidValueError),
        raises_lazy_at_collect(df, pg.InvalidValueError),
    ):
        assert "docno" in message
        assert "null" in message
        assert str(BAD_Q) in message  # the offending key: the query holding a null item


def test_null_query() -> None:
    df = table(qid=[1, 1, 1, None, BAD_Q])
    for message in (
        raises_eager(df, pg.InvalidValueError),
        raises_lazy_at_collect(df, pg.InvalidValueError),
    ):
        assert "qid" in message
        assert "null" in message
        assert BAD_ITEM in message  # the offending key: the item whose query is null


def test_streaming_collect_raises_the_same_class() -> None:
    lazy = duplicated().lazy().graded.evaluate(["mu_ap", "ndcg@3"], **COLS)
    with pytest.raises(pg.DuplicateKeyError) as info:
        lazy.collect(engine="streaming")
    assert BAD_ITEM in str(info.value)


def test_first_error_class_not_polars() -> None:
    # nothing leaks out as a raw polars exception
    with pytest.raises(pg.GradedError):
        nan_score().lazy().graded.summary("ndcng", **COLS).collect()


# --- empty tables -----------------------------------------------------------------------------


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("method", METHODS)
def test_empty_table(method: str, lazy: bool) -> None:
    df = table().clear()
    frame = df.lazy() if lazy else df
    result = METHODS[method](frame.graded, **COLS)
    if lazy:
        assert isinstance(result, pl.LazyFrame)
        result = result.collect()
    expected_full = METHODS[method](table().graded, **COLS)
    assert result.columns == expected_full.columns
    assert result.schema == expected_full.schema
    if method == "summary":
        assert result.height in (0, 1)
        if result.height:
            assert result["num_q"][0] == 0
    else:
        assert result.height == 0


@pytest.mark.parametrize("lazy", [False, True])
def test_empty_table_with_by(lazy: bool) -> None:
    df = table().clear().with_columns(runtag=pl.lit(None, dtype=pl.String))
    frame = df.lazy() if lazy else df
    for method in ("evaluate", "summary", "mu_ap_table"):
        result = METHODS[method](frame.graded, by="runtag", **COLS)
        result = result.collect() if lazy else result
        assert result.height == 0
        assert result.columns[0] == "runtag"
    assert df.graded.summary(["ap"], by="runtag", **COLS).columns == ["runtag", "num_q", "ap"]


@pytest.mark.parametrize("role", ["by", "query", "item"])
def test_reserved_column_names_are_refused(role: str) -> None:
    # A key column named like an internal one was a raw Polars DuplicateError.
    df = pl.DataFrame(
        {"system": ["a"], "query": [1], "item": ["x"], "score": [1.0], "relevance": [1]}
    )
    old = {"by": "system", "query": "query", "item": "item"}[role]
    df = df.rename({old: "__pg_ranking"})
    names: dict[str, Any] = {"by": "system"} | {role: "__pg_ranking"}
    with pytest.raises(pg.InvalidValueError, match="reserved"):
        df.graded.evaluate(["ap"], **names)


# --- schema: distinct, scalar, not reserved ---------------------------------------------------


@pytest.mark.parametrize(
    "names",
    [
        {**COLS, "item": "qid"},
        {**COLS, "score": "judgment"},
        {**COLS, "by": "qid"},
        {**COLS, "by": ["runtag", "runtag"]},
    ],
)
def test_the_columns_must_be_distinct(names: dict[str, Any]) -> None:
    df = table().with_columns(runtag=pl.lit("A"))
    calls: tuple[Callable[[], object], ...] = (
        lambda: df.graded.evaluate(["ap"], **names),
        lambda: df.lazy().graded.evaluate(["ap"], **names).collect(),
    )
    for call in calls:
        with pytest.raises(pg.InvalidValueError, match="the columns must be distinct"):
            call()


@pytest.mark.parametrize("column", ["qid", "docno"])
def test_keys_must_be_scalars(column: str) -> None:
    df = table().with_columns(pl.col(column).cast(pl.String).str.split(""))
    message = raises_eager(df, pg.ColumnTypeError)
    assert column in message
    assert "scalar" in message


# --- data: infinite labels, infinite scores ------------------------------------------------------


@pytest.mark.parametrize("label", [float("inf"), float("-inf")])
def test_an_infinite_label_is_refused(label: float) -> None:
    df = table(judgment=[1.0, 0.0, 2.0, label, None])
    for message in (
        raises_eager(df, pg.InvalidValueError),
        raises_lazy_at_collect(df, pg.InvalidValueError),
    ):
        assert "judgment" in message
        assert "finite" in message
        assert str(BAD_Q) in message
        assert BAD_ITEM in message


@pytest.mark.parametrize("label", [math.inf, -math.inf])
def test_an_infinite_label_is_a_data_error(label: float) -> None:
    df = pl.DataFrame(
        {"query": [1, 1, 2, 2], "item": ["a", "b", "c", "d"], "score": [2.0, 1.0, 2.0, 1.0],
         "relevance": [1.0, 2.0, 0.0, label]}
    )  # fmt: skip
    for measures in (["ndcg"], ["dcg"], ["mu_ap", "ap", "ndcng", "err"]):
        with pytest.raises(pg.InvalidValueError) as info:
            df.graded.evaluate(measures)
        message = str(info.value)
        assert "'relevance'" in message
        assert "finite" in message
        assert "query=2" in message
        assert "item='d'" in message
        assert "1 query affected" in message
        with pytest.raises(pg.InvalidValueError, match="finite"):
            df.lazy().graded.summary(measures).collect()
    # the expression functions do not validate, but let no NaN out (-inf is a label <= 0
    # to them, with no gain)
    for expression in (pg.ndcg(), pg.dcg(), pg.ndcng(), pg.mean_ndcg()):
        if label < 0:
            assert df.group_by("query").agg(expression).to_series(1).is_finite().all()
            continue
        with pytest.raises(pg.InvalidValueError, match=r"is (nan|inf) for 1 group"):
            df.lazy().group_by("query").agg(expression).collect()


def test_infinite_scores_are_ranked_not_refused() -> None:
    """A score of +inf ranks first and -inf last among the retrieved rows (conventions §1 asks only
    for numbers that are not NaN)."""
    df = table(sim=[float("-inf"), 2.0, float("inf"), 2.0, float("-inf")])
    got = df.graded.evaluate(["rr", "ap(rel=2)", "p@1"], **COLS)
    expected = oracle.load(df, **COLS)
    for row in got.iter_rows(named=True):
        q = expected[(row["qid"],)]
        assert row["rr"] == pytest.approx(q.rr())
        assert row["ap(rel=2)"] == pytest.approx(q.ap(2))
        assert row["p@1"] == pytest.approx(q.precision(1))
    assert got.filter(pl.col("qid") == 1)["ap(rel=2)"][0] == 1.0  # the 2 at +inf comes first


def test_integer_columns_skip_the_nan_rules() -> None:
    """NaN exists only in float columns; integer scores and labels evaluate as floats do."""
    df = table()
    ints = df.with_columns(pl.col("sim").cast(pl.Int64), pl.col("judgment").cast(pl.Int8))
    assert ints.graded.evaluate(["ap", "ndcg"], **COLS).equals(
        df.graded.evaluate(["ap", "ndcg"], **COLS)
    )
