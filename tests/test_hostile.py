"""Hostile input through the Python API (issue 14): every call either raises a GradedError
or returns exactly one row per input ranking, with a number (not NaN, not infinite) in every
measure column.

A ranking is a distinct ``by + [query]`` of the table with at least one row. Inputs that
break a rule of the data model (docs/conventions.md §1: missing or non-numeric columns, null
keys, NaN, duplicate keys) must raise; so must a relevance threshold <= 0, an unknown
measure or parameter, a cutoff below 1, a truncated or corrupt file and a glob matching
nothing. A GradedWarning is allowed. The CLI has its own module, test_hostile_cli.py; the
agreement of every path (DataFrame, LazyFrame, partitions, CLI) is test_hostile_paths.py.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.hostile_tables import Table, tables
from support.measure_strings import BOUNDED, MEASURES, MeasureSpec, measure_garbage, measure_specs
from support.tables import FrameKind, assert_finite, assert_one_row_per_ranking
from support.trec_files import TrecFile, expected_joined_rankings, trec_files

import polars_graded as pg
from polars_graded.io.trec import QueriesMode
from polars_graded.options import TIE_POLICIES

SMALL = pl.DataFrame(
    {
        "query": [1, 1, 1, 2, 2],
        "item": ["a", "b", "c", "a", "b"],
        "score": [3.0, 2.0, None, 1.0, 1.0],
        "relevance": [0, 2, 1, 1, None],
    }
)
SLOW = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
    HealthCheck.function_scoped_fixture,  # frame_kind is a constant, safe to share
]


def outcome(call: Callable[[], Any], what: str) -> Any:
    """The call's result, or the GradedError it raised; any other exception fails the test."""
    try:
        return call()
    except pg.GradedError as error:
        return error
    except Exception as error:  # the contract: only GradedError
        first = (str(error).strip().splitlines() or [""])[0][:300]
        msg = f"{what} raised {type(error).__name__} instead of a GradedError: {first}"
        raise AssertionError(msg) from error


def measure_columns(out: pl.DataFrame, keys: list[str]) -> list[str]:
    return [c for c in out.columns if c not in keys]


def assert_per_query(out: pl.DataFrame, t: Table, what: str) -> None:
    """One row per ranking of ``t``, finite measures, bounded measures within [0, 1]."""
    assert_one_row_per_ranking(out, t.keys, t.rankings(), what)
    names = measure_columns(out, t.keys)
    assert_finite(out, names, what)
    for name in names:
        if name.startswith(BOUNDED) and not name.startswith(("rbp", "ndcg(gain=")):
            values = out.get_column(name)
            inside = values.is_between(0.0, 1.0 + 1e-12).all()
            assert inside, f"{what}: {name} outside [0, 1]: {values.to_list()}"


def assert_contract(result: Any, t: Table, what: str) -> pl.DataFrame | None:
    """A table that breaks a rule must raise; any other must evaluate or raise a GradedError."""
    if t.must_raise is not None:
        assert isinstance(result, pg.GradedError), (
            f"{what}: the table breaks a rule ({t.must_raise}) but gave\n{result}"
        )
        return None
    if isinstance(result, pg.GradedError):
        return None
    frame: pl.DataFrame = result
    assert_per_query(frame, t, what)
    return frame


# --------------------------------------------------------------------------- measure strings


@settings(max_examples=300, suppress_health_check=SLOW)
@example(spec=MeasureSpec("ap(rel=0)", "relevance threshold <= 0"))
@example(spec=MeasureSpec("mu_ap(k=0)@1", "cutoff k < 1"))
@example(spec=MeasureSpec("ap(k=3)@4", "cutoff given twice"))
@example(spec=MeasureSpec("ap(rel=1,rel=2)", "parameter given twice"))
@example(spec=MeasureSpec("err(max_rel=2000)@5"))
@given(spec=measure_specs())
def test_measure_strings(spec: MeasureSpec) -> None:
    """A measure string either evaluates (one finite value per query, a column named by its
    canonical string, which parses back to the same measure) or raises a GradedError."""
    measure = outcome(lambda: pg.parse_measure(spec.text), f"parse_measure({spec.text!r})")
    out = outcome(lambda: SMALL.graded.evaluate([spec.text]), f"evaluate([{spec.text!r}])")
    if spec.must_raise is not None:
        assert isinstance(measure, pg.GradedError), f"{spec.text!r} ({spec.must_raise}) parsed"
        assert isinstance(out, pg.GradedError), f"{spec.text!r} ({spec.must_raise}) evaluated"
        return
    if isinstance(measure, pg.GradedError):
        assert isinstance(out, pg.GradedError)
        return
    assert pg.parse_measure(str(measure)) == measure, f"{str(measure)!r} does not parse back"
    if isinstance(out, pg.GradedError):
        return
    assert out.columns == ["query", str(measure)]
    assert_one_row_per_ranking(out, ["query"], {(1,), (2,)}, spec.text)
    assert_finite(out, [str(measure)], spec.text)


@settings(max_examples=300, suppress_health_check=SLOW)
@given(text=measure_garbage)
def test_measure_garbage(text: str) -> None:
    """Any text (random characters, decoded random bytes) is a measure or a GradedError."""
    measure = outcome(lambda: pg.parse_measure(text), f"parse_measure({text!r})")
    if isinstance(measure, pg.Measure):
        out = outcome(lambda: SMALL.graded.evaluate(text), f"evaluate({text!r})")
        if not isinstance(out, pg.GradedError):
            assert_finite(out, [str(measure)], text)


@settings(max_examples=60, suppress_health_check=SLOW)
@given(
    texts=st.lists(st.sampled_from([*MEASURES, "map", "AP", "ap(rel=1)", "ap@1000"]), max_size=6)
)
def test_measure_lists(texts: list[str]) -> None:
    """A list of measures (repeats and aliases included) gives one column per distinct
    measure, or a GradedError (an empty list)."""
    out = outcome(lambda: SMALL.graded.evaluate(texts), f"evaluate({texts})")
    if not texts:
        assert isinstance(out, pg.GradedError)
        return
    assert not isinstance(out, pg.GradedError), out
    wanted = list(dict.fromkeys(str(pg.parse_measure(t)) for t in texts))
    assert out.columns == ["query", *wanted]


LONG_SHAPES = [" ", "(", ")", ",", "@", "0", "9", "=", "[", "{", "ap", "a(", "(=", "((", "@1"]
_LONG_WORKER = textwrap.dedent(
    """
    import json, sys
    import polars as pl
    import polars_graded as pg
    from polars_graded import cli
    texts, table = json.loads(sys.stdin.read())
    out = []
    for text in texts:
        try:
            pg.parse_measure(text)
            parsed = "measure"
        except pg.GradedError:
            parsed = "GradedError"
        except Exception as error:
            parsed = type(error).__name__
        code = cli.main(["evaluate", table, "--measure=" + text])
        out.append([parsed, code])
    print(json.dumps(out))
    """
)


@settings(max_examples=3, suppress_health_check=SLOW)
@example(  # the shapes of issue 14, item 1: spaces, then a character that fails the match
    texts=[
        "ap" + " " * 100_000 + "x",
        "ap" + " " * 4_000 + "x",
        "ap(" + " " * 100_000,
        "ap" + "(" * 100_000,
        "ndcg(gain={" + "1:2," * 25_000,
        "ap@" + "9" * 100_000 + " x",
        " " * 100_000 + "@",
        "mu_ap(levels=[" + "1," * 50_000 + "]" + " " * 1000 + "x",
    ]
)
@given(
    texts=st.lists(
        st.tuples(
            st.sampled_from(["", "ap", "ap(", "ndcg(gain={", "mu_ap(levels=[", "p@"]),
            st.lists(st.sampled_from(LONG_SHAPES), min_size=1, max_size=3).map("".join),
            st.sampled_from([1_000, 10_000, 100_000]),
            st.sampled_from(["", "x", ")", "@", "]"]),
        ).map(lambda p: p[0] + p[1] * (p[2] // len(p[1])) + p[3]),
        min_size=8,
        max_size=8,
    )
)
def test_long_measure_strings_finish(
    texts: list[str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Strings of 1k-100k characters of every shape are read (or refused) at once, in Python
    and on the command line. They run in a child process: a regular expression that
    backtracks cannot be interrupted, and the test must end (issue 14, item 1)."""
    table = tmp_path_factory.mktemp("long") / "t.parquet"
    SMALL.write_parquet(table)
    try:
        done = subprocess.run(
            [sys.executable, "-c", _LONG_WORKER],
            input=json.dumps([texts, str(table)]),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except subprocess.TimeoutExpired:
        shapes = sorted({(len(t), t[:12]) for t in texts})
        pytest.fail(f"reading 8 long measure strings did not end within 60 s: {shapes}")
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    for text, (parsed, code) in zip(texts, results, strict=True):
        assert parsed in ("measure", "GradedError"), f"{text[:20]!r}...: {parsed}"
        assert code in (0, 2), f"{text[:20]!r}...: exit {code}"


# --------------------------------------------------------------------------- the namespace


def _draw_options(data: st.DataObject, t: Table) -> dict[str, Any]:
    options = dict(t.columns)
    options["ties"] = data.draw(st.sampled_from(TIE_POLICIES), label="ties")
    return options


@settings(max_examples=250, suppress_health_check=SLOW)
@given(data=st.data())
def test_namespace_hostile_tables(frame_kind: FrameKind, data: st.DataObject) -> None:
    """evaluate, summary, per_threshold and a shortcut on tables of random dtypes with
    hostile values: a GradedError, or one finite row per ranking (summary: ``num_q`` counts
    them). With ``ranked=True`` a result equals the sorted evaluation's: never a wrong number."""
    t = data.draw(tables(), label="table")
    measures = data.draw(st.lists(st.sampled_from(MEASURES), min_size=1, max_size=4), label="m")
    options = _draw_options(data, t)
    frame = frame_kind(t.df)
    what = f"{frame_kind.name} evaluate({measures}, {options})"

    out = outcome(lambda: frame_kind.collect(frame.graded.evaluate(measures, **options)), what)
    out = assert_contract(out, t, what)

    ranked = outcome(
        lambda: frame_kind.collect(frame.graded.evaluate(measures, ranked=True, **options)),
        f"{what} ranked=True",
    )
    assert_contract(ranked, t, f"{what} ranked=True")
    if out is not None and not isinstance(ranked, pg.GradedError):
        assert ranked.equals(out), f"{what}: ranked=True gave other numbers than the sort"

    summary = outcome(
        lambda: frame_kind.collect(frame.graded.summary(measures, **options)), f"summary {what}"
    )
    if t.must_raise is not None:
        assert isinstance(summary, pg.GradedError), f"summary accepted a table ({t.must_raise})"
    elif not isinstance(summary, pg.GradedError):
        assert_summary(summary, t, "summary " + what)

    per_threshold = outcome(
        lambda: frame_kind.collect(frame.graded.per_threshold(**options)), f"per_threshold {what}"
    )
    if t.must_raise is not None:
        assert isinstance(per_threshold, pg.GradedError), f"per_threshold: {t.must_raise}"
    elif not isinstance(per_threshold, pg.GradedError):
        assert_finite(per_threshold, ["weight", "map", "mu_map"], "per_threshold " + what)
        by_groups = {k[:-1] for k in t.rankings()}
        assert {r[: len(t.by)] for r in per_threshold.select(t.by).rows()} <= by_groups


@settings(max_examples=150, suppress_health_check=SLOW)
@given(data=st.data())
def test_namespace_extreme_values(frame_kind: FrameKind, data: st.DataObject) -> None:
    """Valid tables with infinite and huge scores, labels of 1023, 1024, 2000, 1e308, inf,
    -inf and denormals: a GradedError or one finite row per ranking, for every measure
    (issue 14, item 7: no NaN ever leaves the library without an error)."""
    t = data.draw(tables(hostile=False, dtypes=False, extreme=True), label="table")
    options = _draw_options(data, t)
    what = f"{frame_kind.name} evaluate(MEASURES, {options})"
    out = outcome(
        lambda: frame_kind.collect(frame_kind(t.df).graded.evaluate(MEASURES, **options)), what
    )
    assert_contract(out, t, what)


def assert_summary(summary: pl.DataFrame, t: Table, what: str) -> None:
    """One row per ``by`` group with rankings, ``num_q`` = its number of rankings."""
    counts = Counter(k[:-1] for k in t.rankings())
    got = {row[:-1]: row[-1] for row in summary.select(*t.by, "num_q").rows()}
    if not t.by and not counts:  # an empty table: no row, or one row of zero queries
        assert got in ({}, {(): 0}), f"{what}: {summary}"
        return
    assert got == dict(counts), f"{what}: num_q {got}, rankings per group {dict(counts)}"
    assert_finite(summary, measure_columns(summary, [*t.by, "num_q"]), what)


SHORTCUTS: dict[str, dict[str, st.SearchStrategy[Any]]] = {}
_K = st.sampled_from([None, 1, 3, 10, 0, -1, 2.5, 10**30])
_REL = st.sampled_from([1, 2, 0.5, 1e-9, 0, -1, math.nan, math.inf, 1e308])
_PARAMETERS: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    "mu_ap": {"levels": st.sampled_from(["query", "table", [1, 2], [0.5, 0.5], [], [0], [-1]])},
    "ap": {"rel": _REL},
    "ndcg": {"gain": st.sampled_from(["exp", "linear", {1: 3, 2: 9}, {}, {1: math.nan}, "x"])},
    "ndcng": {},
    "dcg": {"base": st.sampled_from([2, 10, 1, 0, -2, math.inf])},
    "precision": {"rel": _REL},
    "recall": {"rel": _REL},
    "r_precision": {"rel": _REL},
    "rr": {"rel": _REL},
    "mean_ndcg": {"gain": st.sampled_from(["exp", "linear", {1: 3}])},
    "err": {"max_rel": st.sampled_from([4, 1, 10, 1023, 1024, 2000, 0, -1, math.inf])},
    "rbp": {"p": st.sampled_from([0.8, 0.5, 0, 1, 1.5, math.nan]), "rel": _REL},
    "rbp_residual": {"p": st.sampled_from([0.8, 0.99, 0, 1])},
    "bpref": {"rel": _REL},
    "judged": {},
    "success": {"rel": _REL},
    "mean_ndcng": {},
}
for _name, _params in _PARAMETERS.items():
    SHORTCUTS[_name] = (
        _params
        if _name in ("r_precision", "bpref", "mean_ndcg", "mean_ndcng")
        else {
            **_params,
            "k": _K,
        }
    )


@settings(max_examples=120, suppress_health_check=SLOW)
@given(data=st.data())
def test_shortcuts_hostile_parameters(frame_kind: FrameKind, data: st.DataObject) -> None:
    """Every shortcut (``df.graded.ap(rel=..., k=...)``, ...) with valid and invalid
    parameter values: a GradedError or one finite row per ranking; a relevance threshold
    <= 0 and a cutoff below 1 raise."""
    t = data.draw(tables(hostile=False, max_rankings=3), label="table")
    name = data.draw(st.sampled_from(sorted(SHORTCUTS)), label="shortcut")
    params = {
        p: data.draw(s, label=p) for p, s in SHORTCUTS[name].items() if data.draw(st.booleans())
    }
    what = f"{frame_kind.name} .graded.{name}(**{params})"
    call = getattr(frame_kind(t.df).graded, name)
    out = outcome(lambda: frame_kind.collect(call(**params, **t.columns)), what)
    rel, k = params.get("rel", 1), params.get("k")
    invalid_k = k is not None and not (isinstance(k, int) and k >= 1)
    if (isinstance(rel, int | float) and rel <= 0) or invalid_k:
        assert isinstance(out, pg.GradedError), f"{what} accepted rel={rel}, k={k}"
    elif not isinstance(out, pg.GradedError):
        assert_per_query(out, t, what)


# --------------------------------------------------------------------------- expressions

EXPRESSIONS: dict[str, Callable[..., pl.Expr]] = {
    "ap": lambda k, **cols: pg.ap(rel=2, k=k, **cols),
    "mu_ap": lambda k, **cols: pg.mu_ap(levels=[1, 2, 3], k=k, **cols),
    "ndcg": lambda k, **cols: pg.ndcg(k=k, **cols),
    "ndcg_linear": lambda k, **cols: pg.ndcg(k=k, gain="linear", **cols),
    "ndcng": lambda k, **cols: pg.ndcng(k=k, **cols),
    "dcg": lambda k, **cols: pg.dcg(k=k, **cols),
    "precision": lambda k, **cols: pg.precision(k=k, **cols),
    "recall": lambda k, **cols: pg.recall(k=k, **cols),
    "r_precision": lambda k, **cols: pg.r_precision(**cols),
    "rr": lambda k, **cols: pg.rr(k=k, **cols),
    "mean_ndcg": lambda k, **cols: pg.mean_ndcg(**cols),
    "mean_ndcng": lambda k, **cols: pg.mean_ndcng(**cols),
    "err": lambda k, **cols: pg.err(k=k, **cols),
    "rbp": lambda k, **cols: pg.rbp(k=k, **cols),
    "rbp_residual": lambda k, **cols: pg.rbp_residual(k=k, **cols),
    "bpref": lambda k, **cols: pg.bpref(**cols),
    "judged": lambda k, **cols: pg.judged(k=k, **cols),
    "success": lambda k, **cols: pg.success(k=k, **cols),
}


def _numeric(t: Table) -> bool:
    """Numeric score and relevance, every column present, distinct key columns."""
    schema = t.df.schema
    return (
        len(set(t.keys)) == len(t.keys)
        and all(
            name in schema and (schema[name].is_numeric() or schema[name] == pl.Boolean)
            for name in (t.score, t.relevance)
        )
        and all(name in schema for name in (*t.keys, t.item))
    )


@settings(max_examples=200, suppress_health_check=SLOW)
@given(data=st.data())
def test_expressions_hostile_tables(frame_kind: FrameKind, data: st.DataObject) -> None:
    """The expression functions in a user's ``group_by(by + [query]).agg(...)`` on tables
    with numeric score and relevance: a GradedError or one finite value per ranking.

    (They do not check the table's rules, so duplicates are not required to raise; but no
    NaN or infinity may leave the library, issue 14 item 7.)"""
    t = data.draw(tables().filter(_numeric), label="table")
    names = data.draw(
        st.lists(st.sampled_from(sorted(EXPRESSIONS)), min_size=1, max_size=4, unique=True)
    )
    k = data.draw(st.sampled_from([None, 1, 5]), label="k")
    cols = {"score": t.score, "relevance": t.relevance, "item": t.item}
    cols["ties"] = data.draw(st.sampled_from(TIE_POLICIES), label="ties")
    # The user's own names: a by column called "ap" must not clash with them.
    exprs = [EXPRESSIONS[n](k, **cols).alias(f"value {n}") for n in names]
    what = f"{frame_kind.name} group_by({t.keys}).agg({names}, k={k}, {cols})"

    def run() -> pl.DataFrame:
        return frame_kind.collect(frame_kind(t.df).group_by(t.keys).agg(exprs))

    out = outcome(run, what)
    if isinstance(out, pg.GradedError):
        return
    assert_one_row_per_ranking(out, t.keys, t.rankings(), what)
    assert_finite(out, [f"value {n}" for n in names], what)


@pytest.mark.parametrize("dtype", [pl.String, pl.Categorical, pl.Date, pl.Duration])
def test_expressions_non_numeric_columns(dtype: type[pl.DataType]) -> None:
    """A non-numeric score or relevance: the namespace refuses it with a ColumnTypeError; an
    expression function, which cannot see the schema when it is built (it is documented not
    to validate), either fails or evaluates the column as Polars casts it to a number, never
    anything else."""
    for column in ("score", "relevance"):
        values = pl.col(column).cast(pl.Int64)
        as_type = values.cast(pl.Datetime).dt.date() if dtype == pl.Date else values.cast(pl.String)
        df = SMALL.with_columns(as_type.cast(dtype).alias(column))
        with pytest.raises(pg.ColumnTypeError, match=repr(column)):
            df.graded.evaluate(["ap"])
        try:
            got = df.group_by("query").agg(pg.ap()).sort("query")
        except (pg.GradedError, pl.exceptions.PolarsError):
            continue
        numeric = df.with_columns(pl.col(column).cast(pl.Float64))
        expected = numeric.group_by("query").agg(pg.ap()).sort("query")
        assert got.equals(expected), f"pg.ap() on a {dtype} {column}"


# --------------------------------------------------------------------------- Parquet sources


@settings(max_examples=100, suppress_health_check=SLOW)
@given(data=st.data())
def test_evaluate_parquet_hostile_tables(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    """evaluate_parquet and summary_parquet on hostile tables written to Parquet: the
    contract, for 1, 3 or 8 partitions or a memory budget."""
    t = data.draw(tables(), label="table")
    path = tmp_path_factory.mktemp("pq") / "runs.parquet"
    t.df.write_parquet(path)
    measures = data.draw(st.lists(st.sampled_from(MEASURES), min_size=1, max_size=3), label="m")
    split: dict[str, Any] = data.draw(
        st.sampled_from(
            [{"partitions": 1}, {"partitions": 3}, {"partitions": 8}, {"memory_budget": "1GiB"}]
        )
    )
    what = f"evaluate_parquet({measures}, {split}, {t.columns})"
    out = outcome(lambda: pg.evaluate_parquet(path, measures, **split, **t.columns), what)
    assert_contract(out, t, what)
    summary = outcome(lambda: pg.summary_parquet(path, measures, **split, **t.columns), what)
    if t.must_raise is not None:
        assert isinstance(summary, pg.GradedError), f"summary_parquet: {t.must_raise}"
    elif not isinstance(summary, pg.GradedError):
        assert_summary(summary, t, "summary_" + what)


LAYOUTS = ["file", "flat", "nested", "hive"]
FORMS = ["path", "glob", "recursive_glob", "list"]


@settings(max_examples=80, suppress_health_check=SLOW)
@given(data=st.data())
def test_parquet_sources(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    """Every source ``pl.scan_parquet`` reads (a file, a folder, nested and hive-partitioned
    folders, a glob, a recursive glob, a list) evaluates to one row per ranking, with hive
    partition columns usable in ``by`` (issue 14, item 11; from a glob or a list of files
    Polars takes no partition columns, so a MissingColumnError is right there); a glob
    matching nothing, an empty folder, a corrupt or truncated file raise a GradedError naming
    the source (item 10)."""
    t = data.draw(tables(hostile=False, dtypes=False, max_by=0), label="table")
    layout, form = data.draw(st.sampled_from(LAYOUTS)), data.draw(st.sampled_from(FORMS))
    root = tmp_path_factory.mktemp("src")
    df = t.df.with_columns(system=pl.Series([f"s{i % 2}" for i in range(t.df.height)]))
    by = "system" if layout == "hive" or data.draw(st.booleans()) else None
    keys = [by, "query"] if by else ["query"]
    files = _write_layout(root, df, layout, data.draw(st.integers(1, 3), label="files"))
    source: Any = {
        "path": root / "runs.parquet" if layout == "file" else root,
        "glob": str(root / "*.parquet")
        if layout in ("file", "flat")
        else str(root / "*" / "*.parquet"),
        "recursive_glob": str(root / "**" / "*.parquet"),
        "list": files,
    }[form]
    if layout == "hive" and form == "glob":
        source = str(root / "*" / "*" / "*.parquet")
    damage = data.draw(
        st.sampled_from(["none"] * 4 + ["corrupt", "truncated", "nothing", "empty_dir"])
    )
    if damage in ("corrupt", "truncated"):
        victim = files[0]
        raw = victim.read_bytes()
        victim.write_bytes(
            raw[: len(raw) // 2] if damage == "truncated" else b"PAR1" + b"\x00" * 40
        )
    elif damage == "nothing":
        source = str(root / "*.nothing.parquet")
    elif damage == "empty_dir":
        source = root / "empty"
        source.mkdir()
    what = f"evaluate_parquet({layout}/{form}, damage={damage}, by={by})"
    out = outcome(lambda: pg.evaluate_parquet(source, ["ap", "ndcg@5"], partitions=3, by=by), what)
    if damage != "none":
        assert isinstance(out, pg.GradedError), f"{what} gave\n{out}"
        named = damage in ("nothing", "empty_dir") or files[0].name in str(out)
        assert named, f"{what}: the message does not name the file: {out}"
        return
    if layout == "hive" and form in ("glob", "list") and isinstance(out, pg.MissingColumnError):
        return  # pl.scan_parquet takes partition columns from a folder, not from files
    assert not isinstance(out, pg.GradedError), f"{what} raised {out}"
    expected = {tuple(map(str, k)) for k in df.select(keys).rows()}
    got = out.select(pl.col(keys).cast(pl.String))
    assert_one_row_per_ranking(got, keys, expected, what)
    assert_finite(out, ["ap", "ndcg@5"], what)


def _write_layout(root: Path, df: pl.DataFrame, layout: str, parts: int) -> list[Path]:
    """Write ``df`` in ``parts`` files (a ranking's rows may be in several) in a layout."""
    chunks = [df[i::parts] for i in range(parts)]
    if layout == "file":
        df.write_parquet(root / "runs.parquet")
        return [root / "runs.parquet"]
    files = []
    for i, chunk in enumerate(chunks):
        if layout == "flat":
            files.append(root / f"part-{i}.parquet")
            chunk.write_parquet(files[-1])
            continue
        for (system,), rows in chunk.group_by("system"):
            folder = root / (
                f"system={system}/day=2026-11-0{i + 1}" if layout == "hive" else f"d{i}"
            )
            folder.mkdir(parents=True, exist_ok=True)
            files.append(folder / f"{system}-{i}.parquet")
            (rows.drop("system") if layout == "hive" else rows).write_parquet(files[-1])
    return files


@pytest.mark.parametrize("change", ["type", "column", "name"])
def test_parquet_mixed_schemas(tmp_path: Path, change: str) -> None:
    """A folder of Parquet files whose schemas differ: a GradedError naming a file, or (when
    Polars reconciles them) one finite row per ranking; never a raw Polars error."""
    root = tmp_path
    SMALL.write_parquet(root / "a.parquet")
    other = SMALL.with_columns(query=pl.col("query") + 10)
    other = {
        "type": other.with_columns(pl.col("query").cast(pl.String)),
        "column": other.with_columns(extra=pl.lit(1)),
        "name": other.rename({"relevance": "label"}),
    }[change]
    other.write_parquet(root / "b.parquet")
    out = outcome(lambda: pg.evaluate_parquet(root, ["ap"], partitions=2), f"mixed {change}")
    if isinstance(out, pg.GradedError):
        assert "a.parquet" in str(out) or "b.parquet" in str(out), str(out)
    else:
        assert_one_row_per_ranking(out, ["query"], {(1,), (2,), (11,), (12,)}, change)


# --------------------------------------------------------------------------- TREC readers


def _same_rows(got: list[tuple[Any, ...]], expected: list[tuple[Any, ...]]) -> bool:
    def norm(row: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple("nan" if isinstance(v, float) and math.isnan(v) else v for v in row)

    return [norm(r) for r in got] == [norm(r) for r in expected]


def _read(reader: Callable[[Path], pl.DataFrame], f: TrecFile, path: Path) -> Any:
    result = outcome(lambda: reader(f.write(path)), f"{reader.__name__}({f})")
    if f.must_raise is not None:
        assert isinstance(result, pg.GradedError), f"{f.must_raise}, yet read\n{result}\n{f}"
        assert path.name in str(result), f"the message does not name the file: {result}"
    return result


@settings(max_examples=250, suppress_health_check=SLOW)
@given(f=trec_files(kind="run"))
def test_read_trec_run(tmp_path_factory: pytest.TempPathFactory, f: TrecFile) -> None:
    """A run file gives exactly its content lines (BOM, CRLF, gzip, tabs, blank and comment
    lines as trec_eval reads them), or a GradedError naming the file for a short line, a
    non-numeric score or a truncated gzip."""
    path = tmp_path_factory.mktemp("run") / "run.txt"
    run = _read(pg.read_trec_run, f, path)
    if isinstance(run, pg.GradedError):
        assert f.must_raise is not None, f"valid run refused: {run}\n{f}"
        return
    assert run.columns[:3] == ["query", "item", "score"]
    assert _same_rows(run.select("query", "item", "score").rows(), f.rows), f"{run}\n{f}"


@settings(max_examples=250, suppress_health_check=SLOW)
@given(f=trec_files(kind="qrels"))
def test_read_trec_qrels(tmp_path_factory: pytest.TempPathFactory, f: TrecFile) -> None:
    """A qrels file gives exactly its content lines, or a GradedError naming the file for a
    line without four fields, a label that is not an integer, or a truncated gzip (a label
    beyond 64-bit integers, 1e30, may be refused too)."""
    path = tmp_path_factory.mktemp("qrels") / "qrels.txt"
    qrels = _read(pg.read_trec_qrels, f, path)
    if isinstance(qrels, pg.GradedError):
        assert f.must_raise is not None or f.may_refuse, f"valid qrels refused: {qrels}\n{f}"
        return
    assert qrels.select("query", "item", "relevance").rows() == f.rows, f"{qrels}\n{f}"


@settings(max_examples=100, suppress_health_check=SLOW)
@given(data=st.binary(max_size=300), compress=st.booleans())
def test_readers_random_bytes(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, compress: bool
) -> None:
    """Any bytes, plain or gzipped, read as a run or qrels or raise a GradedError."""
    import gzip

    path = tmp_path_factory.mktemp("bytes") / "file.txt"
    path.write_bytes(gzip.compress(data) if compress else data)
    for reader in (pg.read_trec_run, pg.read_trec_qrels):
        outcome(partial(reader, path), f"{reader.__name__}({data!r})")


@pytest.mark.parametrize("reader", [pg.read_trec_run, pg.read_trec_qrels])
@pytest.mark.parametrize("where", ["missing", "directory"])
def test_readers_unreadable_path(
    tmp_path: Path, reader: Callable[[Path], pl.DataFrame], where: str
) -> None:
    """A path that is not a readable file raises a GradedError naming it."""
    path = tmp_path / "nothing.txt"
    if where == "directory":
        path.mkdir()
    out = outcome(lambda: reader(path), f"{reader.__name__}({where})")
    assert isinstance(out, pg.GradedError) and "nothing.txt" in str(out), out


@settings(max_examples=200, suppress_health_check=SLOW)
@given(data=st.data())
def test_join_and_evaluate(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    """Readable run and qrels files joined (``queries=`` any mode, ``by="tag"`` or not) and
    evaluated: one finite row per expected (tag, query) or a GradedError; duplicates in
    either file and NaN scores must raise."""
    queries = data.draw(
        st.lists(st.sampled_from(["1", "01", "q1", "é", "Q"]), min_size=1, unique=True)
    )
    run_file = data.draw(trec_files(kind="run", queries=queries), label="run")
    qrels_file = data.draw(trec_files(kind="qrels", queries=queries), label="qrels")
    mode: QueriesMode = data.draw(st.sampled_from(["qrels", "both", "all"]))
    by = data.draw(st.sampled_from([None, "tag"]))
    lazy = data.draw(st.booleans())
    root = tmp_path_factory.mktemp("join")
    run = outcome(lambda: pg.read_trec_run(run_file.write(root / "run.txt")), "read run")
    qrels = outcome(lambda: pg.read_trec_qrels(qrels_file.write(root / "qrels.txt")), "read qrels")
    if isinstance(run, pg.GradedError) or isinstance(qrels, pg.GradedError):
        return
    joined = outcome(
        lambda: pg.join_run_qrels(run.lazy() if lazy else run, qrels, by=by, queries=mode), "join"
    )
    assert not isinstance(joined, pg.GradedError), joined
    assert isinstance(joined, pl.LazyFrame if lazy else pl.DataFrame)
    what = f"evaluate(join_run_qrels(by={by}, queries={mode}))"
    measures = ["ap", "ndcg@10", "mu_ap"]
    out = outcome(lambda: joined.lazy().graded.evaluate(measures, by=by).collect(), what)
    systems = run.get_column("tag").to_list() if by else None
    expected = expected_joined_rankings(run.rows(), qrels.rows(), mode, systems)
    keys = ["tag", "query"] if by else ["query"]
    table = joined.lazy().collect()
    must_raise = table.get_column("score").is_nan().any() or any(
        n > 1 for n in Counter(table.select(*keys, "item").rows()).values()
    )
    if must_raise:
        assert isinstance(out, pg.GradedError), f"{what}: duplicates or NaN accepted\n{out}"
    elif not isinstance(out, pg.GradedError):
        assert_one_row_per_ranking(out, keys, expected, what)
        assert_finite(out, ["ap", "ndcg@10", "mu_ap"], what)
