"""Every path keeps every ranking (issue 14): the same valid table evaluated as a
DataFrame, a LazyFrame, a Parquet file in 1, 3 and 8 partitions (``evaluate_parquet``,
``summary_parquet``) and by ``polars-graded evaluate -o`` has each ``by + [query]`` of the
input exactly once in its output, and ``num_q`` of every summary counts them.

The tables keep every rule of the data model but have random dtypes; a dtype the library
does not take must be refused by every path with a ColumnTypeError (never another error),
and the plain dtypes (integer and string keys, float and integer numbers) must evaluate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.hostile_tables import Table, tables
from support.measure_strings import MEASURES
from support.tables import assert_finite, assert_one_row_per_ranking

import polars_graded as pg
from polars_graded import cli
from polars_graded.options import TIE_POLICIES

SLOW = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.function_scoped_fixture,  # capsys is read and reset for every example
]
PLAIN = (pl.Int64, pl.String, pl.Float64)


def _plain(t: Table) -> bool:
    return all(dtype in PLAIN for dtype in t.df.schema.dtypes())


def _run(call: Callable[[], Any], what: str) -> Any:
    """The call's result, or the ColumnTypeError it raised; any other exception fails."""
    try:
        return call()
    except pg.ColumnTypeError as error:
        return error
    except Exception as error:
        first = (str(error).strip().splitlines() or [""])[0][:300]
        pytest.fail(f"{what} raised {type(error).__name__} on a valid table: {first}")


@settings(max_examples=100, suppress_health_check=SLOW)
@given(data=st.data())
def test_every_path_keeps_every_ranking(
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
    data: st.DataObject,
) -> None:
    t = data.draw(tables(hostile=False), label="table")
    measures = data.draw(st.lists(st.sampled_from(MEASURES), min_size=1, max_size=3), label="m")
    options: dict[str, Any] = {
        **t.columns,
        "ties": data.draw(st.sampled_from(TIE_POLICIES), label="ties"),
    }
    root = tmp_path_factory.mktemp("paths")
    source = root / "runs.parquet"
    t.df.write_parquet(source)
    expected = t.rankings()
    names = [str(pg.parse_measure(m)) for m in dict.fromkeys(measures)]

    outputs: dict[str, Callable[[], Any]] = {
        "DataFrame": lambda: t.df.graded.evaluate(measures, **options),
        "LazyFrame": lambda: t.df.lazy().graded.evaluate(measures, **options).collect(),
        **{
            f"evaluate_parquet(partitions={n})": (
                partial(pg.evaluate_parquet, source, measures, partitions=n, **options)
            )
            for n in (1, 3, 8)
        },
    }
    summaries = {
        "DataFrame summary": lambda: t.df.graded.summary(measures, **options),
        "LazyFrame summary": lambda: t.df.lazy().graded.summary(measures, **options).collect(),
        "summary_parquet(partitions=3)": (
            lambda: pg.summary_parquet(source, measures, partitions=3, **options)
        ),
    }
    results = {what: _run(call, what) for what, call in {**outputs, **summaries}.items()}
    refused = {what for what, r in results.items() if isinstance(r, pg.ColumnTypeError)}
    if refused:
        assert refused == set(results), f"only {sorted(refused)} refused the dtypes"
        assert not _plain(t), f"plain dtypes refused: {results['DataFrame']}"
        return

    counts = Counter(k[:-1] for k in expected)
    in_memory = results["DataFrame"]
    for what in outputs:
        out = results[what]
        assert_one_row_per_ranking(out, t.keys, expected, what)
        assert out.columns == [*t.keys, *names], f"{what}: columns {out.columns}"
        assert_finite(out, names, what)
        if what.startswith("evaluate_parquet"):  # docs/guide/logs.md: equal, bit for bit
            assert out.equals(in_memory), f"{what} differs from the DataFrame's values"
    for what in summaries:
        got = {row[:-1]: row[-1] for row in results[what].select(*t.by, "num_q").rows()}
        assert got == dict(counts), f"{what}: num_q {got}, rankings {dict(counts)}"

    out_file = root / "per_query.parquet"
    argv = ["evaluate", str(source), "-o", str(out_file), *(f"--measure={m}" for m in measures)]
    argv += [f"--{k}={v}" for k, v in t.columns.items() if k != "by"]
    argv += [f"--by={b}" for b in t.by] + [f"--ties={options['ties']}"]
    argv += data.draw(st.sampled_from([[], ["--partitions=1"], ["--partitions=3"]]), label="cli")
    capsys.readouterr()
    code = cli.main(argv)
    _, err = capsys.readouterr()
    assert code == 0, f"polars-graded {argv}: exit {code}: {err}"
    printed = pl.read_parquet(out_file)
    assert_one_row_per_ranking(printed, t.keys, expected, f"polars-graded {argv}")
    assert printed.equals(in_memory), f"polars-graded {argv}: other values than the DataFrame's"
