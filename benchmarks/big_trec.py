"""A deterministic TREC run and its qrels, as large as asked: TREC input larger than memory.

``python benchmarks/big_trec.py 20M`` writes ``benchmarks/data/big-trec-20000000-s0-v1.run``
(20M lines, 684 MB: 200,000 queries of 100 rows, ``q0000017 Q0 d1234567 1 3.141 big``) and
``big-trec-20000000-s0-v1.qrels`` (15 judgments per query, 3M lines: 12 of the returned items and
3 the run missed, labels 0-4 mostly 0), and prints both paths. Scores have three decimals,
so some rows tie. The files are cached (``benchmarks/data/`` is git-ignored) under names that
hold every parameter; ``--gzip`` writes the run gzip-compressed (``.run.gz``).

Measure a command on them with ``/usr/bin/time -v``, e.g.::

    /usr/bin/time -v polars-graded evaluate --run RUN --qrels QRELS -m map,ndcg@10,mu_ap \\
        --memory-budget 2GiB

(peak memory: "Maximum resident set size"; the results of issue 28 are in
docs/guide/logs.md, "TREC runs larger than memory").
"""

from __future__ import annotations

import argparse
import gzip
import os
import shutil
from pathlib import Path
from typing import BinaryIO

import numpy as np
import polars as pl

DATA_DIR = Path(__file__).resolve().parent / "data"
FORMAT_VERSION = 1  # bump when the output changes, to invalidate the cache
ROWS_PER_QUERY = 100
JUDGED_RETURNED = 12  # judged items per query among the returned ones
JUDGED_MISSED = 3  # judged items per query the run did not return
LABEL_P = [0.6, 0.2, 0.1, 0.06, 0.04]  # labels 0..4 of the judged items
CHUNK_QUERIES = 10_000  # queries written per step (1M run lines)


def parse_size(text: str) -> int:
    """``"20M"`` -> 20_000_000, ``"200k"`` -> 200_000, ``"1234"`` -> 1234."""
    text = text.strip().upper()
    factor = {"K": 10**3, "M": 10**6, "G": 10**9}.get(text[-1:], 1)
    return int(float(text[:-1] if factor > 1 else text) * factor)


def paths(lines: int, seed: int, *, gz: bool, data_dir: Path = DATA_DIR) -> tuple[Path, Path]:
    """The cached run and qrels files of a run of ``lines`` lines."""
    stem = f"big-trec-{lines}-s{seed}-v{FORMAT_VERSION}"
    return data_dir / f"{stem}.run{'.gz' if gz else ''}", data_dir / f"{stem}.qrels"


def _chunk(seed: int, index: int, first: int, n_queries: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Run lines and qrels lines of queries ``first .. first + n_queries - 1``."""
    rng = np.random.default_rng([seed, index])
    query = np.repeat(np.arange(first, first + n_queries), ROWS_PER_QUERY)
    # Distinct items within a query: an arithmetic sequence with a per-query start and step.
    start = np.repeat(rng.integers(0, 9_000_000, size=n_queries), ROWS_PER_QUERY)
    step = np.repeat(rng.integers(1, 9_000, size=n_queries), ROWS_PER_QUERY)
    position = np.tile(np.arange(ROWS_PER_QUERY), n_queries)
    item = start + (position + JUDGED_MISSED) * step
    # Scores descending within a query (as a run is written), three decimals: some tie.
    score = np.sort(np.round(rng.normal(10.0, 2.0, size=(n_queries, ROWS_PER_QUERY)), 3))
    score = score[:, ::-1].reshape(-1)
    run = pl.DataFrame({"query": query, "item": item, "rank": position + 1, "score": score}).select(
        pl.concat_str(
            pl.format("q{}", pl.col("query").cast(pl.String).str.zfill(7)),
            pl.lit("Q0"),
            pl.format("d{}", pl.col("item")),
            pl.col("rank").cast(pl.String),
            pl.col("score").cast(pl.String),
            pl.lit("big"),
            separator=" ",
        )
    )
    # Judged: JUDGED_RETURNED returned rows chosen at random, and the JUDGED_MISSED items
    # before the first one of the sequence (never returned).
    picked = np.argsort(rng.random((n_queries, ROWS_PER_QUERY)), axis=1)[:, :JUDGED_RETURNED]
    returned = (picked + np.arange(n_queries)[:, None] * ROWS_PER_QUERY).reshape(-1)
    q_start, q_step = start[::ROWS_PER_QUERY], step[::ROWS_PER_QUERY]
    missed = q_start[:, None] + np.arange(JUDGED_MISSED)[None, :] * q_step[:, None]
    judged_query = np.concatenate(
        [query[returned], np.repeat(np.arange(first, first + n_queries), JUDGED_MISSED)]
    )
    judged_item = np.concatenate([item[returned], missed.reshape(-1)])
    label = rng.choice(len(LABEL_P), size=judged_item.size, p=LABEL_P)
    qrels = pl.DataFrame({"query": judged_query, "item": judged_item, "label": label}).select(
        pl.concat_str(
            pl.format("q{}", pl.col("query").cast(pl.String).str.zfill(7)),
            pl.lit("0"),
            pl.format("d{}", pl.col("item")),
            pl.col("label").cast(pl.String),
            separator=" ",
        )
    )
    return run, qrels


def _append(frame: pl.DataFrame, out: BinaryIO) -> None:
    frame.write_csv(out, include_header=False, quote_style="never")


def generate(lines: int, seed: int, *, gz: bool, data_dir: Path = DATA_DIR) -> tuple[Path, Path]:
    """Write the run of ``lines`` lines (a multiple of 100) and its qrels; return the paths."""
    run_path, qrels_path = paths(lines, seed, gz=gz, data_dir=data_dir)
    if run_path.exists() and qrels_path.exists():
        return run_path, qrels_path
    data_dir.mkdir(parents=True, exist_ok=True)
    plain_run = paths(lines, seed, gz=False, data_dir=data_dir)[0]
    tmp_run = run_path.with_name(f"{plain_run.name}.{os.getpid()}.tmp")
    tmp_qrels = qrels_path.with_name(f"{qrels_path.name}.{os.getpid()}.tmp")
    n_queries = lines // ROWS_PER_QUERY
    with tmp_run.open("wb") as run_out, tmp_qrels.open("wb") as qrels_out:
        for index, first in enumerate(range(0, n_queries, CHUNK_QUERIES)):
            run, qrels = _chunk(seed, index, first, min(CHUNK_QUERIES, n_queries - first))
            _append(run, run_out)
            _append(qrels, qrels_out)
    if gz:
        packed = run_path.with_name(f"{run_path.name}.{os.getpid()}.tmp")
        with tmp_run.open("rb") as src, gzip.open(packed, "wb", compresslevel=6) as dst:
            shutil.copyfileobj(src, dst, 2**22)
        tmp_run.unlink()
        tmp_run = packed
    tmp_run.replace(run_path)
    tmp_qrels.replace(qrels_path)
    return run_path, qrels_path


def main() -> None:
    """Command line: generate (or find) the run and its qrels and print their paths."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lines", help="run lines, a multiple of 100, e.g. 20M, 200k")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gzip", action="store_true", help="write the run gzip-compressed")
    args = parser.parse_args()
    run, qrels = generate(parse_size(args.lines), args.seed, gz=args.gzip)
    print(run)
    print(qrels)


if __name__ == "__main__":
    main()
