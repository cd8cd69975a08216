"""Deterministic synthetic ranking logs in the long format (query, item, score, relevance).

Rows are made with numpy in chunks of whole queries (one Parquet row group each), so the
memory needed does not grow with the size: the 100M file is written in about 1 GiB. Files
are cached under ``benchmarks/data/`` with every parameter in their name.

Usage: ``python benchmarks/generate.py 1M --labels continuous --order ranked [--files 10]``.
"""

from __future__ import annotations

import argparse
import itertools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import polars as pl
import pyarrow.parquet as pq

DATA_DIR = Path(__file__).resolve().parent / "data"
FORMAT_VERSION = 2  # bump when the generator's output changes, to invalidate the cache
CHUNK_ROWS = 1_000_000
GRADED_P = [0.80, 0.09, 0.06, 0.03, 0.02]  # labels 0..4, most rows 0
NO_RELEVANT_SHARE = 0.05  # share of queries with no relevant row at all
LENGTH_RANGE = (20, 181)  # items per query, uniform: about 100 on average


@dataclass(frozen=True)
class LogSpec:
    """Parameters of one synthetic log; every one is part of the cached file's name.

    Attributes
    ----------
    rows
        Number of rows.
    ids
        ``"str"``: query ``q0000017`` and item ``d123``; ``"int"``: both Int64.
    labels
        ``"graded"``: integer labels 0-4, most rows 0; ``"continuous"``: floats in [0, 4]
        with three decimals (about as many distinct values as rows in a query).
    order
        ``"shuffled"``: rows shuffled within each chunk of about 1M rows; ``"ranked"``:
        sorted by query, then score descending (then item descending, trec_eval's order).
    seed
        Seed of the generator.
    files
        1: one Parquet file; more: a directory of that many files holding the same rows,
        each chunk cut into ``files`` slices, so that with shuffled rows every query is
        spread over all the files (the hardest case for reading a query's rows).
    """

    rows: int
    ids: Literal["str", "int"] = "str"
    labels: Literal["graded", "continuous"] = "graded"
    order: Literal["shuffled", "ranked"] = "shuffled"
    seed: int = 0
    files: int = 1

    def path(self, data_dir: Path = DATA_DIR) -> Path:
        """Where the file (or, with several files, the directory) is cached in ``data_dir``."""
        name = f"{self.labels}-{self.ids}-{self.order}-{self.rows}-s{self.seed}-v{FORMAT_VERSION}"
        if self.files > 1:
            return data_dir / f"{name}-{self.files}files"
        return data_dir / f"{name}.parquet"


def parse_size(text: str) -> int:
    """``"1M"`` -> 1_000_000, ``"20k"`` -> 20_000, ``"1234"`` -> 1234."""
    text = text.strip().upper()
    factor = {"K": 10**3, "M": 10**6, "G": 10**9}.get(text[-1:], 1)
    number = text[:-1] if factor > 1 else text
    return int(float(number) * factor)


def format_size(rows: int) -> str:
    """1_000_000 -> ``"1M"``, 20_000 -> ``"20k"`` (inverse of :func:`parse_size`)."""
    for factor, suffix in ((10**6, "M"), (10**3, "k")):
        if rows >= factor and rows % factor == 0:
            return f"{rows // factor}{suffix}"
    return str(rows)


def _chunk(spec: LogSpec, index: int, first_query: int, n_rows: int) -> tuple[pl.DataFrame, int]:
    """Rows of one chunk, and its number of queries (numbered from ``first_query``)."""
    rng = np.random.default_rng([spec.seed, index])
    lengths = rng.integers(*LENGTH_RANGE, size=n_rows // 20 + 1)
    ends = np.cumsum(lengths)
    n_queries = int(np.searchsorted(ends, n_rows)) + 1
    lengths = lengths[:n_queries]
    lengths[-1] -= ends[n_queries - 1] - n_rows  # cut the last query to fit exactly

    query = np.repeat(np.arange(first_query, first_query + n_queries), lengths)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    position = np.arange(n_rows) - starts
    # Distinct items within a query: an arithmetic sequence with a per-query start and step.
    start = rng.integers(0, 10_000_000, size=n_queries)
    step = rng.integers(1, 1_000, size=n_queries)
    item = np.repeat(start, lengths) + position * np.repeat(step, lengths)

    no_relevant = np.repeat(rng.random(n_queries) < NO_RELEVANT_SHARE, lengths)
    if spec.labels == "graded":
        relevance = rng.choice(len(GRADED_P), size=n_rows, p=GRADED_P).astype(np.int32)
    else:
        relevance = np.round(rng.uniform(0.0, 4.0, size=n_rows), 3)
    relevance[no_relevant] = 0
    # Scores follow the labels loosely; two decimals, so that ties occur in most queries.
    score = np.round(0.6 * relevance + rng.normal(0.0, 1.0, size=n_rows), 2)

    frame = pl.DataFrame({"query": query, "item": item, "score": score, "relevance": relevance})
    if spec.ids == "str":
        frame = frame.with_columns(
            pl.format("q{}", pl.col("query").cast(pl.String).str.zfill(7)),
            pl.format("d{}", pl.col("item")),
        )
    if spec.order == "ranked":
        # After the ids became text: ties go to the larger id as text ("d9" before "d10").
        frame = frame.sort(["query", "score", "item"], descending=[False, True, True])
    else:
        frame = frame[rng.permutation(n_rows)]
    return frame, n_queries


def generate(spec: LogSpec, path: Path) -> Path:
    """Write the log described by ``spec`` to ``path`` and return the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    if spec.files > 1:
        tmp.mkdir()
    names = [f"part-{i:03d}.parquet" for i in range(spec.files)]
    writers: list[pq.ParquetWriter] = []
    first_query, done = 0, 0
    try:
        for index in range((spec.rows + CHUNK_ROWS - 1) // CHUNK_ROWS):
            n_rows = min(CHUNK_ROWS, spec.rows - done)
            frame, n_queries = _chunk(spec, index, first_query, n_rows)
            cuts = np.linspace(0, n_rows, spec.files + 1).astype(int)
            for i, (start, end) in enumerate(itertools.pairwise(cuts)):
                table = frame[start:end].to_arrow()
                if len(writers) <= i:
                    target = tmp / names[i] if spec.files > 1 else tmp
                    writers.append(pq.ParquetWriter(target, table.schema))
                writers[i].write_table(table)
            first_query += n_queries
            done += n_rows
    finally:
        for writer in writers:
            writer.close()
    tmp.replace(path)
    return path


def ensure(spec: LogSpec, data_dir: Path = DATA_DIR) -> Path:
    """The cached file for ``spec`` in ``data_dir``, generated first if it is missing."""
    path = spec.path(data_dir)
    return path if path.exists() else generate(spec, path)


def main() -> None:
    """Command line: generate (or find) one cached log and print its path."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("size", help="number of rows, e.g. 1M, 10M, 100M, 20k")
    parser.add_argument("--ids", choices=["str", "int"], default="str")
    parser.add_argument("--labels", choices=["graded", "continuous"], default="graded")
    parser.add_argument("--order", choices=["shuffled", "ranked"], default="shuffled")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--files", type=int, default=1, help="a directory of this many files")
    args = parser.parse_args()
    spec = LogSpec(parse_size(args.size), args.ids, args.labels, args.order, args.seed, args.files)
    print(ensure(spec))


if __name__ == "__main__":
    main()
