"""Bad input raises the library's own exceptions with useful messages; the measure grammar.

CONTRACT.md: errors subclass ``pg.GradedError`` (and the matching builtin); messages name the
column and the rule and show up to five offending keys; on a LazyFrame the data checks raise
at collect time; an empty table gives an empty result with the right columns.
"""

from __future__ import annotations

import dataclasses
import os
import sys

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_graded as pg

# distinctive names, so that a message naming them cannot do so by accident
COLS = {"query": "qid", "item": "docno", "score": "sim", "relevance": "judgment"}
BAD_Q = 4242
BAD_ITEM = "doc_x9"


def table(**overrides) -> pl.DataFrame:
    data = {
        "qid": [1, 1, 1, BAD_Q, BAD_Q],
        "docno": ["a", "b", "c", BAD_ITEM, "e"],
        "sim": [3.0, 2.0, 1.0, 2.0, 1.0],
        "judgment": [1, 0, 2, 1, None],
    }
    data.update(overrides)
    return pl.DataFrame(data)


METHODS = {
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


def raises_eager(df: pl.DataFrame, error: type[Exception], method="evaluate", **kw) -> str:
    """The DataFrame call itself raises ``error``; returns the message."""
    with pytest.raises(error) as info:
        METHODS[method](df.graded, **{**COLS, **kw})
    assert isinstance(info.value, pg.GradedError)
    return str(info.value)


def raises_lazy_at_collect(df: pl.DataFrame, error: type[Exception], method="evaluate", **kw):
    """The LazyFrame call returns a LazyFrame without raising; collect raises ``error``."""
    lazy = METHODS[method](df.lazy().graded, **{**COLS, **kw})
    assert isinstance(lazy, pl.LazyFrame)
    with pytest.raises(error) as info:
        lazy.collect()
    assert isinstance(info.value, pg.GradedError)
    return str(info.value)


def raises_lazy_at_call_or_collect(df: pl.DataFrame, error: type[Exception], method="evaluate"):
    with pytest.raises(error) as info:
        METHODS[method](df.lazy().graded, **COLS).collect()
    assert isinstance(info.value, pg.GradedError)
    return str(info.value)


def test_valid_table_works():
    # the fixture itself is valid, so every error below comes from the one change made
    for call in METHODS.values():
        result = call(table().graded, **COLS)
        assert result.height in (1, 2)


def test_error_hierarchy():
    assert issubclass(pg.MissingColumnError, KeyError)
    assert issubclass(pg.ColumnTypeError, TypeError)
    assert issubclass(pg.InvalidValueError, ValueError)
    assert issubclass(pg.DuplicateKeyError, pg.InvalidValueError)
    assert issubclass(pg.UnknownMeasureError, ValueError)
    assert issubclass(pg.MeasureParameterError, ValueError)
    for cls in (
        pg.MissingColumnError,
        pg.ColumnTypeError,
        pg.InvalidValueError,
        pg.DuplicateKeyError,
        pg.UnknownMeasureError,
        pg.MeasureParameterError,
    ):
        assert issubclass(cls, pg.GradedError)


# --- schema: missing columns, non-numeric score/relevance ---------------------------------


@pytest.mark.parametrize("column", ["qid", "docno", "sim", "judgment"])
@pytest.mark.parametrize("method", METHODS)
def test_missing_column(column, method):
    df = table().drop(column)
    message = raises_eager(df, pg.MissingColumnError, method)
    assert column in message
    assert column in raises_lazy_at_call_or_collect(df, pg.MissingColumnError, method)


def test_missing_by_column():
    message = raises_eager(table(), pg.MissingColumnError, by="runtag")
    assert "runtag" in message
    message = raises_eager(table(), pg.MissingColumnError, "summary", by=["qid_group", "runtag"])
    assert "qid_group" in message or "runtag" in message


def test_default_names_missing():
    # with no column arguments the defaults are looked for, and the message names them
    with pytest.raises(pg.MissingColumnError) as info:
        table().graded.evaluate("ap")
    assert "query" in str(info.value)


@pytest.mark.parametrize("column", ["sim", "judgment"])
@pytest.mark.parametrize("method", ["evaluate", "summary", "mu_ap", "mu_ap_table", "ndcng"])
def test_string_score_or_relevance(column, method):
    df = table().with_columns(pl.col(column).cast(pl.String))
    message = raises_eager(df, pg.ColumnTypeError, method)
    assert column in message
    assert column in raises_lazy_at_call_or_collect(df, pg.ColumnTypeError, method)


def test_numeric_types_are_accepted():
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
def test_nan_score(method):
    for message in (
        raises_eager(nan_score(), pg.InvalidValueError, method),
        raises_lazy_at_collect(nan_score(), pg.InvalidValueError, method),
    ):
        assert "sim" in message
        assert "NaN" in message
        assert str(BAD_Q) in message
        assert BAD_ITEM in message


def test_nan_relevance():
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
def test_duplicate_key(method):
    for message in (
        raises_eager(duplicated(), pg.DuplicateKeyError, method),
        raises_lazy_at_collect(duplicated(), pg.DuplicateKeyError, method),
    ):
        assert "docno" in message
        assert str(BAD_Q) in message
        assert BAD_ITEM in message


def test_a_hash_collision_is_not_a_duplicate(monkeypatch: pytest.MonkeyPatch) -> None:
    # The plan flags duplicates by item hash; make every hash collide: the error path must
    # clear the flags with the exact check and the values must not change.
    from polars_graded import plan, validate

    expected = table().graded.evaluate(["mu_ap", "ndcg@3"], **COLS)
    collide = pl.lit(7, pl.UInt64).alias(validate.ITEM_HASH)
    prepare = validate.prepare_checks
    monkeypatch.setattr(
        plan, "prepare_checks", lambda lf, cols: prepare(lf, cols).with_columns(collide)
    )
    assert table().graded.evaluate(["mu_ap", "ndcg@3"], **COLS).equals(expected)
    message = raises_eager(duplicated(), pg.DuplicateKeyError)
    assert BAD_ITEM in message


def test_duplicate_key_with_by():
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


def test_at_most_five_offending_keys_shown():
    rows = {"qid": [], "docno": [], "sim": [], "judgment": []}
    for q in range(7):
        for it, score in (("ok", 1.0), (f"bad{q}", float("nan"))):
            rows["qid"].append(100 + q)
            rows["docno"].append(it)
            rows["sim"].append(score)
            rows["judgment"].append(1)
    message = raises_eager(pl.DataFrame(rows), pg.InvalidValueError)
    shown = [q for q in range(7) if f"bad{q}" in message]
    assert 1 <= len(shown) <= 5, message


def test_null_item():
    df = table(docno=["a", "b", "c", None, "e"])
    for message in (
        raises_eager(df, pg.InvalidValueError),
        raises_lazy_at_collect(df, pg.InvalidValueError),
    ):
        assert "docno" in message
        assert "null" in message
        assert str(BAD_Q) in message  # the offending key: the query holding a null item


def test_null_query():
    df = table(qid=[1, 1, 1, None, BAD_Q])
    for message in (
        raises_eager(df, pg.InvalidValueError),
        raises_lazy_at_collect(df, pg.InvalidValueError),
    ):
        assert "qid" in message
        assert "null" in message
        assert BAD_ITEM in message  # the offending key: the item whose query is null


def test_streaming_collect_raises_the_same_class():
    lazy = duplicated().lazy().graded.evaluate(["mu_ap", "ndcg@3"], **COLS)
    with pytest.raises(pg.DuplicateKeyError) as info:
        lazy.collect(engine="streaming")
    assert BAD_ITEM in str(info.value)


def test_first_error_class_not_polars():
    # nothing leaks out as a raw polars exception
    with pytest.raises(pg.GradedError):
        nan_score().lazy().graded.summary("ndcng", **COLS).collect()


# --- empty tables -----------------------------------------------------------------------------


@pytest.mark.parametrize("lazy", [False, True])
@pytest.mark.parametrize("method", METHODS)
def test_empty_table(method, lazy):
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
def test_empty_table_with_by(lazy):
    df = table().clear().with_columns(runtag=pl.lit(None, dtype=pl.String))
    frame = df.lazy() if lazy else df
    for method in ("evaluate", "summary", "mu_ap_table"):
        result = METHODS[method](frame.graded, by="runtag", **COLS)
        result = result.collect() if lazy else result
        assert result.height == 0
        assert result.columns[0] == "runtag"
    assert df.graded.summary(["ap"], by="runtag", **COLS).columns == ["runtag", "num_q", "ap"]


# --- measure names --------------------------------------------------------------------------

VALID_NAMES = [
    "mu_ap",
    "ap",
    "ndcg",
    "ndcng",
    "dcg",
    "p",
    "recall",
    "r_precision",
    "rr",
    "mean_ndcg",
    "mean_ndcng",
]


@pytest.mark.parametrize("name", ["nope", "ndcgg@10", "map_cut_10", "µap", "ap@", "@10", ""])
def test_unknown_measure_lists_valid_names(name):
    with pytest.raises(pg.UnknownMeasureError) as info:
        pg.parse_measure(name)
    message = str(info.value)
    for valid in VALID_NAMES:
        assert valid in message


def test_unknown_measure_in_namespace():
    with pytest.raises(pg.UnknownMeasureError) as info:
        table().graded.evaluate(["mu_ap", "nope"], **COLS)
    assert "nope" in str(info.value)
    assert "ndcng" in str(info.value)
    with pytest.raises(pg.UnknownMeasureError):
        table().lazy().graded.summary("nope", **COLS).collect()


@pytest.mark.parametrize(
    "text",
    [
        "ap(foo=1)",
        "ndcg@0",
        "ndcg(gain=cubic)",
        "mu_ap(levels=[0,1])",
        "mu_ap(levels=cats)",
        "mu_ap(levels=[])",
        "ap(rel=nan)",
        "ap(rel=inf)",
        "ndcg(gain={1:})",
        "dcg(base=x)",
    ],
)
def test_bad_parameters(text):
    with pytest.raises((pg.MeasureParameterError, pg.UnknownMeasureError)) as info:
        pg.parse_measure(text)
    assert isinstance(info.value, ValueError)


def test_bad_parameters_on_objects():
    with pytest.raises(pg.MeasureParameterError):
        pg.AP(foo=1)
    with pytest.raises(pg.MeasureParameterError):
        pg.NDCG @ 0
    with pytest.raises(pg.MeasureParameterError):
        pg.NDCG(gain="cubic")
    with pytest.raises(pg.MeasureParameterError):
        table().graded.ndcg(k=-1, **COLS)


CANONICAL = [
    "mu_ap",
    "mu_ap(levels=table)",
    "mu_ap(levels=[1,2,3])",
    "mu_ap@10",
    "mu_ap(levels=[0.3,1])",
    "mu_ap(levels=table)@5",
    "ap",
    "ap(rel=2)",
    "ap(rel=2)@10",
    "ap@100",
    "ap(rel=0.5)",
    "ndcg",
    "ndcg@10",
    "ndcg(gain=linear)@10",
    "ndcg(gain={1:3,2:9,4:4.5})",
    "ndcng",
    "ndcng@10",
    "dcg@8",
    "dcg(base=10)@8",
    "p@5",
    "p(rel=2)@10",
    "p",
    "recall@100",
    "recall",
    "r_precision",
    "r_precision(rel=2)",
    "rr",
    "rr(rel=2)",
    "rr@10",
    "mean_ndcg",
    "mean_ndcng",
    "mean_ndcg(gain=linear)",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_round_trip(text):
    measure = pg.parse_measure(text)
    assert str(measure) == text
    assert pg.parse_measure(str(measure)) == measure
    assert hash(pg.parse_measure(text)) == hash(measure)
    # and the result column carries that name
    assert table().graded.evaluate(text, **COLS).columns == ["qid", text]


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("AP(rel=2.0)@10", "ap(rel=2)@10"),
        ("NDCG@10", "ndcg@10"),
        ("ap(rel=1)", "ap"),
        ("Mu_AP", "mu_ap"),
        (" ndcng @ 5 ", "ndcng@5"),
        ("ndcg(gain=exp)", "ndcg"),
        ("dcg(base=2)@3", "dcg@3"),
        ("mu_ap(levels=[3,1,2])", "mu_ap(levels=[1,2,3])"),
    ],
)
def test_non_canonical_spellings(text, canonical):
    assert str(pg.parse_measure(text)) == canonical


def test_objects_match_names():
    assert str(pg.AP(rel=2) @ 10) == "ap(rel=2)@10"
    assert pg.parse_measure("ap(rel=2)@10") == pg.AP(rel=2) @ 10
    assert str(pg.MuAP(levels="table")) == "mu_ap(levels=table)"
    assert str(pg.MuAP(levels=[1, 2, 3])) == "mu_ap(levels=[1,2,3])"
    assert str(pg.NDCG(gain="linear") @ 10) == "ndcg(gain=linear)@10"
    assert str(pg.NDCG(gain={1: 3, 2: 9, 4: 4.5})) == "ndcg(gain={1:3,2:9,4:4.5})"
    assert str(pg.DCG(base=10) @ 8) == "dcg(base=10)@8"
    assert str(pg.R @ 100) == "recall@100"
    assert str(pg.P(rel=2) @ 10) == "p(rel=2)@10"
    assert str(pg.RPrec) == "r_precision"
    assert str(pg.MeanNDCNG) == "mean_ndcng"
    # frozen and hashable
    measure = pg.AP(rel=2) @ 10
    with pytest.raises(dataclasses.FrozenInstanceError):
        measure.k = 5  # type: ignore[misc]
    assert len({measure, pg.parse_measure("ap(rel=2)@10"), pg.AP @ 10}) == 2
    # @ and calling return copies
    assert str(pg.AP) == "ap"


levels_st = st.lists(st.integers(1, 40).map(lambda x: x / 4), min_size=1, max_size=5, unique=True)
measures_st = st.one_of(
    st.builds(
        lambda lv, k: pg.MuAP(levels=lv, k=k),
        st.one_of(st.sampled_from(["query", "table"]), levels_st),
        st.one_of(st.none(), st.integers(1, 1000)),
    ),
    st.builds(
        lambda r, k: pg.AP(rel=r, k=k),
        st.integers(0, 40).map(lambda x: x / 4),
        st.one_of(st.none(), st.integers(1, 1000)),
    ),
    st.builds(
        lambda g, k: pg.NDCG(gain=g, k=k),
        st.one_of(
            st.sampled_from(["exp", "linear"]),
            st.dictionaries(
                st.integers(0, 8), st.integers(0, 40).map(lambda x: x / 2), min_size=1, max_size=4
            ),
        ),
        st.one_of(st.none(), st.integers(1, 1000)),
    ),
    st.builds(lambda k: pg.NDCNG(k=k), st.one_of(st.none(), st.integers(1, 1000))),
    st.builds(
        lambda b, k: pg.DCG(base=b, k=k),
        st.sampled_from([2, 10, 2.5, 3]),
        st.one_of(st.none(), st.integers(1, 1000)),
    ),
    st.builds(
        lambda r, k: pg.P(rel=r, k=k), st.integers(1, 5), st.one_of(st.none(), st.integers(1, 1000))
    ),
    st.builds(
        lambda r, k: pg.R(rel=r, k=k), st.integers(1, 5), st.one_of(st.none(), st.integers(1, 1000))
    ),
    st.builds(
        lambda r, k: pg.RR(rel=r, k=k),
        st.integers(1, 5),
        st.one_of(st.none(), st.integers(1, 1000)),
    ),
    st.builds(lambda r: pg.RPrec(rel=r), st.integers(1, 5)),
    st.just(pg.MeanNDCG),
    st.just(pg.MeanNDCNG),
    st.just(pg.MeanNDCG(gain="linear")),
)


@settings(max_examples=200, deadline=None)
@given(measure=measures_st)
def test_round_trip_objects(measure):
    text = str(measure)
    assert pg.parse_measure(text) == measure
    assert str(pg.parse_measure(text)) == text
    assert str(pg.parse_measure(text.upper())) == text or "(" in text


# --- the grammar never evaluates code ---------------------------------------------------------

_AUDIT = {"on": False, "events": []}


def _audit(event: str, args) -> None:
    if _AUDIT["on"] and event in (
        "exec",
        "compile",
        "os.system",
        "subprocess.Popen",
        "os.exec",
        "os.posix_spawn",
        "open",
    ):
        _AUDIT["events"].append(event)


def _watch_audit_events() -> None:
    """Register the (permanent, so only once) audit hook on first use."""
    if not _AUDIT.get("registered"):
        sys.addaudithook(_audit)
        _AUDIT["registered"] = True


HOSTILE = [
    "__import__('os')",
    "__import__('os').system('touch {sentinel}')",
    "ap(rel=__import__('os').system('touch {sentinel}'))",
    "ap(rel=1+1)",
    "ndcg(gain={{1:__import__('os').getpid()}})",
    "mu_ap(levels=[__import__('os').system('touch {sentinel}')])",
    "mu_ap(levels=[1,2]+[3])",
    "eval('1')",
    "ap; import os",
    "ap(rel=(lambda: 2)())",
    "ndcg(gain=open('{sentinel}','w'))",
    "ap@10; __import__('os')",
]


@pytest.mark.parametrize("template", HOSTILE)
def test_grammar_never_evaluates_code(template, tmp_path, monkeypatch):
    sentinel = tmp_path / "pwned"
    text = template.format(sentinel=sentinel)

    def forbidden(*args, **kwargs):
        raise AssertionError("the grammar ran code")

    monkeypatch.setattr(os, "system", forbidden)
    _watch_audit_events()
    _AUDIT["events"].clear()
    _AUDIT["on"] = True
    try:
        with pytest.raises(pg.GradedError) as info:
            pg.parse_measure(text)
    finally:
        _AUDIT["on"] = False
    assert isinstance(info.value, ValueError)
    assert not sentinel.exists()
    assert _AUDIT["events"] == []
    with pytest.raises(pg.GradedError):
        table().graded.evaluate(text, **COLS)
    assert not sentinel.exists()
