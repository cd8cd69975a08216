"""What the input checks cost in an evaluation: ``python benchmarks/input_checks.py``.

On a generated log read into memory (``--size``, 1M rows by default), interleaved runs in
one process of:

- ``evaluate``: ``df.graded.evaluate(MEASURES)``, checks included;
- ``unchecked``: the same plan with the data checks taken out for the run (``prepare_checks``
  and ``check_aggregations`` of ``polars_graded.plan`` replaced by no-ops that add a constant
  row flag): ``evaluate`` minus this is what the checks cost inside the plan;
- the checks alone, with ``polars_graded.validate``'s public functions on the same frame:
  ``table_flags`` (:func:`prepare_checks` then the table-wide flags: ``any_bad_row``, or
  ``table_flags`` where the library has it: NaN, infinite, null item, and there the
  duplicate check), ``query_flags`` (:func:`prepare_checks` then one ``group_by`` with
  :func:`check_aggregations`: the per-query flags, the duplicate check where it is one),
  and ``group_by`` (the same ``group_by`` with ``pl.len()`` alone, which the plan shares
  with the rankings).

Prints the median of ``--repeat`` runs of each and the checks' share of ``evaluate``. The
target of issue 18: the checks at most 15% of the six-measure time. The machine may be
shared: the runs are interleaved so that noise hits every variant alike.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import polars as pl
from contenders import MEASURES
from generate import DATA_DIR, LogSpec, ensure, parse_size

import polars_graded  # noqa: F401  (registers the namespace)
from polars_graded import plan, validate
from polars_graded.defaults import ENGINE
from polars_graded.options import TableSpec

# What the plan calls to check the data, as no-ops; the names differ between versions of
# the library (table_flags replaced any_bad_row), so only those the plan has are replaced.
NO_CHECKS: dict[str, Callable[..., Any]] = {
    "prepare_checks": lambda lf, cols: lf.with_columns(pl.lit(value=False).alias(validate.BAD_ROW)),
    "check_aggregations": lambda cols, schema: [],
    "table_flags": lambda prepared, cols: prepared.select(pl.col(validate.BAD_ROW).any()),
}


@contextmanager
def checks_removed() -> Iterator[None]:
    """The evaluation plan without its data checks (schema checks stay: they are free)."""
    saved = {name: getattr(plan, name) for name in NO_CHECKS if hasattr(plan, name)}
    for name in saved:
        setattr(plan, name, NO_CHECKS[name])
    try:
        yield
    finally:
        for name, function in saved.items():
            setattr(plan, name, function)


def table_flags(prepared: pl.LazyFrame, cols: TableSpec) -> pl.LazyFrame:
    """The table-wide flags, whichever function of the library computes them."""
    if hasattr(validate, "table_flags"):
        return validate.table_flags(prepared, cols)  # type: ignore[no-any-return]
    return validate.any_bad_row(prepared)  # type: ignore[attr-defined,no-any-return]


def variants(df: pl.DataFrame) -> dict[str, Callable[[], object]]:
    """The timed variants, each a function of nothing."""
    cols, lf = TableSpec(), df.lazy()

    def unchecked() -> object:
        with checks_removed():
            return df.graded.evaluate(MEASURES)

    def query_flags() -> object:
        flags = validate.check_aggregations(cols, df.schema)
        prepared = validate.prepare_checks(lf, cols)
        return prepared.group_by(cols.keys).agg(*flags).collect(engine=ENGINE)

    return {
        "evaluate": lambda: df.graded.evaluate(MEASURES),
        "unchecked": unchecked,
        "table_flags": lambda: table_flags(validate.prepare_checks(lf, cols), cols).collect(
            engine=ENGINE
        ),
        "query_flags": query_flags,
        "group_by": lambda: lf.group_by(cols.keys).agg(pl.len()).collect(engine=ENGINE),
    }


def main() -> None:
    """Time the variants, interleaved, and print their medians and shares."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="1M", help="rows of the generated log (1M, 10M)")
    parser.add_argument("--labels", default="graded", choices=("graded", "continuous"))
    parser.add_argument("--repeat", type=int, default=5, help="runs of each (median)")
    args = parser.parse_args()
    path = ensure(LogSpec(parse_size(args.size), labels=args.labels), DATA_DIR)
    df = pl.read_parquet(path)
    timed = variants(df)
    with checks_removed():  # the two plans give the same values on valid input
        unchecked = df.graded.evaluate(MEASURES)
    assert unchecked.equals(df.graded.evaluate(MEASURES))
    seconds: dict[str, list[float]] = {name: [] for name in timed}
    for _ in range(args.repeat):
        for name, function in timed.items():
            start = time.perf_counter()
            function()
            seconds[name].append(time.perf_counter() - start)
    median = {name: statistics.median(s) for name, s in seconds.items()}
    full = median["evaluate"]
    print(f"{path.name}, {df.height:,} rows; median of {args.repeat} interleaved runs")
    print("| variant | median s | runs | / evaluate |")
    print("| --- | --: | --- | --: |")
    for name, s in seconds.items():
        runs = ", ".join(f"{x:.3f}" for x in s)
        print(f"| {name} | {median[name]:.3f} | {runs} | {median[name] / full:.0%} |")
    inside = full - median["unchecked"]
    print(f"\nchecks inside the plan (evaluate - unchecked): {inside:.3f} s, {inside / full:.0%}")


if __name__ == "__main__":
    main()
