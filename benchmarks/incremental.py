"""Nightly increments: the time of ``evaluate_store`` on a log of day partitions.

``python benchmarks/incremental.py`` (about half a minute on 2 cores) writes a deterministic
log of 10 day partitions (``day=2026-11-01/part-0.parquet`` ...; 20k queries a day, 10 rows
each, labels 0-4 with 70% zeros, scores on a coarse grid so that ties occur), then times:

1. the full evaluation without a store (``evaluate_parquet`` with ``by=["day"]``), for
   reference;
2. a first run into an empty store (every partition evaluated);
3. one more day added, run again (1 partition evaluated, 10 reused);
4. a run with nothing new (11 reused).

It checks that every run's output equals the full evaluation (frame equality) and writes
the times and the ratio (second run / first run; the target of issue 29 is at most ~1/3)
to ``benchmarks/results/incremental.md``. Nothing here is asserted by the tests.

Options: ``--queries N`` (per day, default 20000), ``--rows N`` (per query, default 10),
``--days N`` (default 10), ``--measures`` (comma-separated, default the CLI's six).
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

import polars_graded as pg
from polars_graded.defaults import DEFAULT_MEASURES

RESULTS = Path(__file__).parent / "results" / "incremental.md"
FIRST_DAY = dt.date(2026, 11, 1)


def write_day(root: Path, index: int, queries: int, rows: int) -> None:
    """Day ``index`` of the log: a seed per day, so a day's bytes never change."""
    rng = np.random.default_rng(index)
    n = queries * rows
    relevance = rng.integers(1, 5, n) * (rng.random(n) > 0.7)
    table = pl.DataFrame(
        {
            "query": np.repeat(np.arange(queries, dtype=np.int64), rows),
            "item": np.tile(np.arange(rows, dtype=np.int64), queries),
            "score": np.round(rng.random(n) * 20) + relevance * 0.3,
            "relevance": relevance,
        }
    )
    folder = root / f"day={FIRST_DAY + dt.timedelta(days=index)}"
    folder.mkdir(parents=True)
    table.write_parquet(folder / "part-0.parquet")


def timed(call: object) -> tuple[float, pl.DataFrame]:
    start = time.perf_counter()
    values = call()  # type: ignore[operator]
    return time.perf_counter() - start, values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--rows", type=int, default=10)
    parser.add_argument("--days", type=int, default=10)
    parser.add_argument("--measures", default=",".join(DEFAULT_MEASURES))
    args = parser.parse_args()
    measures = args.measures.split(",")
    work = Path(tempfile.mkdtemp(prefix="pg-incremental-"))
    try:
        logs, store = work / "logs", work / "store"
        for index in range(args.days):
            write_day(logs, index, args.queries, args.rows)

        def stored() -> pl.DataFrame:
            return pg.evaluate_store(logs, measures, store)

        def full() -> pl.DataFrame:
            return pg.evaluate_parquet(logs, measures, by=["day"], partitions=1)

        full_time, _ = timed(full)
        first, values = timed(stored)
        assert values.equals(full()), "first run differs from the full evaluation"
        write_day(logs, args.days, args.queries, args.rows)
        full_more, reference = timed(full)
        second, values = timed(stored)
        assert values.equals(reference), "second run differs from the full evaluation"
        third, values = timed(stored)
        assert values.equals(reference), "third run differs from the full evaluation"
    finally:
        shutil.rmtree(work)
    rows = args.queries * args.rows
    lines = [
        "# Nightly increments (`benchmarks/incremental.py`)",
        "",
        f"{args.days} day partitions of {args.queries:,} queries x {args.rows} rows "
        f"({rows:,} rows a day), measures {', '.join(measures)}; "
        f"{platform.processor() or platform.machine()}, Polars {pl.__version__}, "
        f"polars-graded {pg.__version__}, {dt.date.today()}. Every run's output equals the "
        "full evaluation (frame equality).",
        "",
        "| run | partitions evaluated | seconds |",
        "|---|---|---|",
        f"| full evaluation, no store ({args.days} days) | {args.days} | {full_time:.2f} |",
        f"| full evaluation, no store ({args.days + 1} days) | {args.days + 1} | {full_more:.2f} |",
        f"| first run, empty store | {args.days} | {first:.2f} |",
        f"| one day added | 1 (of {args.days + 1}) | {second:.2f} |",
        f"| nothing new | 0 (of {args.days + 1}) | {third:.2f} |",
        "",
        f"Ratio one day added / first run: **{second / first:.3f}** (target: at most ~1/3).",
        "",
    ]
    RESULTS.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
