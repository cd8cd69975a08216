"""Hostile input through the command line (issue 14), in process with ``cli.main``.

The contract: exit 0 with one row per input ranking in the ``-o`` output (and, for
``report``, in ``per_query.parquet``), or exit 2 with exactly one line on stderr starting
``polars-graded: error:``. Never an exception out of ``main`` (a traceback and exit 1 for
the user), never a half-written report folder.
"""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib  # noqa: F401 (``report`` needs its extras, test dependencies: no skip)
import polars as pl
import pytest
import scipy  # noqa: F401
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.hostile_tables import Table, table_violation, tables
from support.measure_strings import MEASURES
from support.tables import assert_finite, assert_one_row_per_ranking
from support.trec_files import TrecFile, expected_joined_rankings, trec_files

from polars_graded import cli
from polars_graded.options import TIE_POLICIES

SLOW = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
    HealthCheck.function_scoped_fixture,  # capsys is read and reset for every example
]
PREFIX = "polars-graded: error:"


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run ``polars-graded argv``; a non-zero exit must be 2 with one line on stderr."""
    capsys.readouterr()
    try:
        code = cli.main(argv)
    except BaseException as error:  # what the user would see as a traceback
        first = (str(error).strip().splitlines() or [""])[0][:300]
        pytest.fail(f"polars-graded {argv} raised {type(error).__name__}: {first}")
    out, err = capsys.readouterr()
    if code != 0:
        lines = err.splitlines()
        assert code == 2, f"polars-graded {argv}: exit {code}, stderr {err[-500:]!r}"
        assert len(lines) == 1 and lines[0].startswith(PREFIX), (
            f"polars-graded {argv}: exit 2 but stderr is not one '{PREFIX}' line: {err[-800:]!r}"
        )
    return code, out, err


def column_args(t: Table) -> list[str]:
    args = [
        f"--{k}={v}" for k, v in t.columns.items() if k in ("query", "item", "score", "relevance")
    ]
    return args + [f"--by={b}" for b in t.by]


def measure_args(measures: list[str]) -> list[str]:
    return [f"--measure={m}" for m in measures]


# --------------------------------------------------------------------------- evaluate TABLE


@settings(max_examples=150, suppress_health_check=SLOW)
@given(data=st.data())
def test_cli_evaluate_tables(
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    data: st.DataObject,
) -> None:
    """``polars-graded evaluate TABLE`` on hostile tables as Parquet, CSV or TSV, with every
    option: exit 2 and one line for a table that breaks a rule; otherwise exit 0 and one row
    per ranking in ``-o`` (keys compared as the text of the file for CSV/TSV: queries ``01``
    and ``1`` stay two, issue 14 item 4), or exit 2 and one line."""
    t = data.draw(tables(), label="table")
    fmt = data.draw(st.sampled_from(["parquet", "parquet", "csv", "tsv"]), label="format")
    root = tmp_path_factory.mktemp("cli")
    table = root / f"runs.{fmt}"
    text_keys = fmt != "parquet"
    if text_keys:
        df = t.df.with_columns(
            pl.col(c).cast(pl.String) for c in t.df.columns if t.df.schema[c] == pl.Null
        )
        try:
            df.write_csv(table, separator="," if fmt == "csv" else "\t")
        except pl.exceptions.PolarsError:
            return  # a dtype CSV cannot hold: not the CLI's input
    else:
        t.df.write_parquet(table)
    out_file = root / data.draw(st.sampled_from(["per_query.parquet", "per_query.csv"]), label="-o")
    measures = data.draw(st.lists(st.sampled_from(MEASURES), min_size=1, max_size=3), label="-m")
    argv = ["evaluate", str(table), *column_args(t), *measure_args(measures), "-o", str(out_file)]
    argv += [f"--ties={data.draw(st.sampled_from(TIE_POLICIES), label='ties')}"]
    argv += data.draw(
        st.sampled_from([[], [], ["--ranked"], ["--mean=geometric"], ["--quiet"]]), label="flags"
    )
    if fmt == "parquet":
        argv += data.draw(
            st.sampled_from([[], ["--partitions=1"], ["--partitions=3"], ["--memory-budget=1KiB"]]),
            label="split",
        )
    code, _, _ = run_cli(argv, capsys)
    if text_keys:  # what the file says: keys are its text, numbers its numbers
        source = pl.read_csv(table, separator="," if fmt == "csv" else "\t", infer_schema=False)
        t = Table(source, t.columns, t.by, t.query, t.item, t.score, t.relevance)
        t.df = t.df.with_columns(
            _parse_numbers(t.df, c) for c in (t.score, t.relevance) if c in t.df.columns
        )
        t.must_raise = table_violation(t)
    if t.must_raise is not None:
        assert code == 2, f"{argv}: the table breaks a rule ({t.must_raise}), yet exit 0"
        return
    if code != 0:
        return
    what = f"polars-graded {argv}"
    if out_file.suffix == ".csv":  # the keys' text: count them
        result = pl.read_csv(out_file, infer_schema=False)
        assert result.height == len(t.rankings()) == result.select(t.keys).n_unique(), what
        return
    result = pl.read_parquet(out_file)
    if text_keys:
        result = result.with_columns(pl.col(t.keys).cast(pl.String))
    assert_one_row_per_ranking(result, t.keys, t.rankings(), what)
    assert_finite(result, [c for c in result.columns if c not in t.keys], what)


def _parse_numbers(df: pl.DataFrame, column: str) -> pl.Series:
    """A CSV column as the numbers it holds (true/false as 1/0), or its text if any value
    is not a number."""
    text = df.get_column(column)
    lower = text.str.to_lowercase()
    mapped = pl.select(
        pl.when(lower == "true")
        .then(pl.lit("1"))
        .when(lower == "false")
        .then(pl.lit("0"))
        .otherwise(text)
    ).to_series()
    numbers = mapped.cast(pl.Float64, strict=False)
    return text if (numbers.is_null() & text.is_not_null()).any() else numbers.alias(column)


TRAPS = ["1", "01", "001", "+1", "1.0", "1e0", "7", "007", "true", "True", "NA", "nan", "-0", "0"]
"""Key text that type inference turns into equal numbers, booleans or nulls."""


@settings(max_examples=40, suppress_health_check=SLOW)
@given(
    keys=st.tuples(
        st.lists(st.sampled_from(TRAPS), min_size=1, max_size=5, unique=True),
        st.lists(st.sampled_from(TRAPS), min_size=1, max_size=5, unique=True),
        st.lists(st.sampled_from(TRAPS), max_size=2, unique=True),
    ),
    fmt=st.sampled_from(["csv", "tsv"]),
)
def test_cli_csv_keys_are_text(
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    keys: tuple[list[str], list[str], list[str]],
    fmt: str,
) -> None:
    """CSV/TSV key columns keep their text: queries ``01`` and ``1`` are two queries, items
    ``007`` and ``7`` two items (issue 14, item 4); every (system, query) appears once."""
    queries, items, systems = keys
    rows = [
        (s, q, it, float(n), n % 3)
        for s in systems or ["-"]
        for q in queries
        for n, it in enumerate(items)
    ]
    df = pl.DataFrame(rows, schema=["system", "query", "item", "score", "relevance"], orient="row")
    table = tmp_path_factory.mktemp("csv") / f"runs.{fmt}"
    df.write_csv(table, separator="," if fmt == "csv" else "\t")
    out_file = table.with_name("out.parquet")
    key_columns = ["system", "query"] if systems else ["query"]
    argv = ["evaluate", str(table), "-o", str(out_file), *(["--by=system"] if systems else [])]
    code, _, err = run_cli(argv, capsys)
    assert code == 0, f"{argv}: {err}"
    result = pl.read_parquet(out_file).with_columns(pl.col(key_columns).cast(pl.String))
    expected = set(df.select(key_columns).rows())
    assert_one_row_per_ranking(result, key_columns, expected, f"{argv}")


# --------------------------------------------------------------------------- evaluate --run


@settings(max_examples=150, suppress_health_check=SLOW)
@given(data=st.data())
def test_cli_evaluate_trec(
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    data: st.DataObject,
) -> None:
    """``polars-graded evaluate --run RUN [--run RUN2] --qrels QRELS`` on hostile TREC files:
    exit 2 and one line for a file that breaks a rule (short line, bad score, truncated
    gzip, NaN score, duplicate), else one row per judged (tag, query) in ``-o``. Two runs
    are two systems, never only the last one (issue 14, item 6)."""
    queries = data.draw(st.lists(st.sampled_from(["1", "01", "q1", "é"]), min_size=1, unique=True))
    runs = data.draw(
        st.lists(trec_files(kind="run", queries=queries), min_size=1, max_size=2), label="runs"
    )
    qrels = data.draw(trec_files(kind="qrels", queries=queries), label="qrels")
    mode = data.draw(st.sampled_from(["qrels", "both", "all"]), label="queries")
    root = tmp_path_factory.mktemp("trec")
    paths = [f.write(root / f"run{i}.txt") for i, f in enumerate(runs)]
    out_file = root / "out.parquet"
    argv = ["evaluate", *(a for p in paths for a in ("--run", str(p))), "--qrels"]
    argv += [str(qrels.write(root / "qrels.txt")), f"--queries={mode}", "-o", str(out_file)]
    argv += measure_args(data.draw(st.lists(st.sampled_from(MEASURES), min_size=1, max_size=2)))
    code, _, _ = run_cli(argv, capsys)
    broken = [f.must_raise for f in (*runs, qrels) if f.must_raise]
    if broken:
        assert code == 2, f"{argv}: {broken[0]}, yet exit 0"
        return
    expected = [_joined(f, qrels, mode) for f in runs]
    bad = [why for _, why in expected if why]
    if bad:
        assert code == 2, f"{argv}: {bad[0]}, yet exit 0"
        return
    assert code == 0 or qrels.may_refuse, f"{argv}: valid files refused"
    if code != 0:
        return
    result = pl.read_parquet(out_file)
    if len(runs) == 1:
        assert_one_row_per_ranking(result, ["query"], expected[0][0], f"polars-graded {argv}")
    elif all(f.rows for f in runs):  # (a run without rows may count as no system at all)
        total = sum(len(rankings) for rankings, _ in expected)
        assert result.height == total, (
            f"polars-graded {argv}: {result.height} rows for {len(runs)} runs of "
            f"{[len(r) for r, _ in expected]} rankings each"
        )
    floats = [c for c, dtype in result.schema.items() if dtype.is_float()]
    assert_finite(result, floats, f"polars-graded {argv}")


def _joined(run: TrecFile, qrels: TrecFile, mode: str) -> tuple[set[tuple[str, ...]], str | None]:
    """The rankings of joining ``run`` and ``qrels``, and why evaluating them must fail."""
    rankings = expected_joined_rankings(run.rows, qrels.rows, mode)
    kept = {q for (q,) in rankings}
    for name, rows in (("run", run.rows), ("qrels", qrels.rows)):
        keys = [(q, it) for q, it, *_ in rows if q in kept]
        if len(set(keys)) < len(keys):
            return rankings, f"a duplicate (query, item) in the {name}"
    if any(q in kept and s is not None and math.isnan(s) for q, _, s in run.rows):
        return rankings, "a NaN score"
    return rankings, None


# --------------------------------------------------------------------------- report


@settings(max_examples=20, suppress_health_check=SLOW)
@given(data=st.data())
def test_cli_report(
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    data: st.DataObject,
) -> None:
    """``polars-graded report`` on a hostile long table or TREC runs: exit 0 with one row per
    (system, query) in ``per_query.parquet``, or exit 2, one line, and no output folder left
    behind (issue 14, item 9)."""
    root = tmp_path_factory.mktemp("report")
    out_dir = root / "report"
    common = ["--trials=20", "--bootstrap=20", f"--out={out_dir}"]
    common += measure_args(data.draw(st.lists(st.sampled_from(MEASURES), min_size=1, max_size=3)))
    common += [f"--ties={data.draw(st.sampled_from(TIE_POLICIES), label='ties')}"]
    if data.draw(st.booleans(), label="trec"):
        runs = data.draw(st.lists(trec_files(kind="run"), min_size=1, max_size=2), label="runs")
        qrels = data.draw(trec_files(kind="qrels"), label="qrels")
        named = [f"sys{i}={f.write(root / f'run{i}.txt')}" for i, f in enumerate(runs)]
        argv = ["report", "--run", *named, "--qrels", str(qrels.write(root / "qrels.txt")), *common]
        code, _, _ = run_cli(argv, capsys)
        broken = [f.must_raise for f in (*runs, qrels) if f.must_raise]
        joined = [_joined(f, qrels, "qrels") for f in runs]
        broken += [why for _, why in joined if why]
        expected = {
            (f"sys{i}", q)
            for i, (rankings, _) in enumerate(joined)
            if runs[i].rows  # a run without rows brings no system
            for (q,) in rankings
        }
        must_raise = broken[0] if broken else None
    else:
        drawn = data.draw(tables(max_by=0), label="table")
        df = drawn.df.with_columns(
            pl.Series("system", [f"s{i % 2}" for i in range(drawn.df.height)], dtype=pl.String)
        )
        t = Table(df, {}, ["system"], drawn.query, drawn.item, drawn.score, drawn.relevance)
        t.must_raise = table_violation(t)
        table = root / "runs.parquet"
        df.write_parquet(table)
        columns = [f"--{k}={v}" for k, v in drawn.columns.items() if k != "by"]
        argv = ["report", str(table), *columns, *common]
        code, _, _ = run_cli(argv, capsys)
        must_raise, expected = t.must_raise, t.rankings()
    if code != 0:
        assert not out_dir.exists(), f"{argv}: failed but left {sorted(out_dir.iterdir())}"
        return
    assert must_raise is None, f"{argv}: {must_raise}, yet exit 0"
    per_query = pl.read_parquet(out_dir / "per_query.parquet")
    query = per_query.columns[1]
    got = per_query.select(pl.col("system").cast(pl.String), pl.col(query))
    assert_one_row_per_ranking(
        got.rename({query: "query"}), ["system", "query"], {(s, q) for s, q in expected}, f"{argv}"
    )
    assert (out_dir / "report.html").is_file() and (out_dir / "report.md").is_file()


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    "option",
    [
        "--partitions=0",
        "--partitions=many",
        "--memory-budget=1xb",
        "--memory-budget=-5GiB",
        "--ties=random",
        "--mean=median",
        "--queries=some",
    ],
)
def test_cli_bad_option_values_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    """A bad value of an option is bad input too: exit 2 and one line (docs/getting-started.md:
    "Bad input ... prints one line, polars-graded: error: ..."), not argparse's usage block."""
    table = tmp_path / "t.parquet"
    pl.DataFrame({"query": [1], "item": ["a"], "score": [1.0], "relevance": [1]}).write_parquet(
        table
    )
    code, _, _ = run_cli(["evaluate", str(table), option], capsys)
    assert code == 2
