"""The memory budget of an evaluation larger than memory: sizes, the default, the estimate.

A budget is given as bytes or a size such as ``"4GiB"`` (:func:`parse_memory`), or defaults to
half of the memory this process may use (:func:`default_memory_budget`). The evaluation of a
Parquet source in one go is estimated at :data:`BYTES_PER_ROW` bytes per row, the rows
counted in the files' footers (:func:`estimate_peak_memory`); the estimate over the budget
gives the number of partitions (:func:`polars_graded.scale.partitions.choose_partitions`), and
Spark's executors need about as much per row (:mod:`polars_graded.spark`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from polars_graded.errors import InvalidValueError
from polars_graded.io.parquet_tables import ParquetSource, parquet_rows

# Peak RSS of the in-memory evaluation per input row, measured with /usr/bin/time -v on
# 10M-row logs of benchmarks/generate.py (2026-11-22, 2 CPUs, 23.5 GiB, Polars 2.1, plan of
# commit e2c8c62, engine "in-memory", measures mu_ap, ndcg@10, ndcng@10, ap, p@10, rr; the
# interpreter with Polars takes ~100 MiB): string ids 1.5-1.6 GiB (~160 bytes per row), Int64
# ids 1.0 GiB (~100), continuous labels with string ids 2.5 GiB (~260). 400 leaves room for
# the largest (an earlier plan took 390 bytes per row there) and for reading the Parquet.
BYTES_PER_ROW = 400
"""Estimated peak memory of evaluating one input row in one go (see the comment above)."""

_UNITS = {
    "": 1,
    "b": 1,
    "k": 10**3,
    "m": 10**6,
    "g": 10**9,
    "t": 10**12,
    "ki": 2**10,
    "mi": 2**20,
    "gi": 2**30,
    "ti": 2**40,
}
_SIZE = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*([kmgt]i?)?b?", re.IGNORECASE)


def estimate_peak_memory(source: ParquetSource) -> int:
    """Estimated peak memory (bytes) of evaluating ``source`` in one go: ``rows *
    BYTES_PER_ROW``, the rows counted in the Parquet footers (nothing else is read).

    Examples
    --------
    >>> import polars as pl
    >>> path = getfixture("tmp_path") / "runs.parquet"
    >>> pl.DataFrame({"query": range(1000)}).write_parquet(path)
    >>> estimate_peak_memory(path)
    400000
    """
    return parquet_rows(source) * BYTES_PER_ROW


def parse_memory(value: str | int) -> int:
    """Bytes from a size such as ``"512MiB"``, ``"4GiB"``, ``"2GB"``, ``"1.5 GiB"`` or an int.

    ``KiB``/``MiB``/``GiB``/``TiB`` are powers of 1024; ``kB``/``MB``/``GB``/``TB`` (and
    ``k``/``M``/``G``/``T``) powers of 1000; a bare number counts bytes.

    Examples
    --------
    >>> parse_memory("512MiB"), parse_memory("4GiB"), parse_memory("2GB"), parse_memory(1000)
    (536870912, 4294967296, 2000000000, 1000)
    """
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        match = _SIZE.fullmatch(value.strip()) if isinstance(value, str) else None
        if match is None:
            msg = (
                "memory budget must be a size such as '512MiB', '4GiB', '2GB' or a number "
                f"of bytes, got {value!r}"
            )
            raise InvalidValueError(msg)
        number = int(float(match[1]) * _UNITS[(match[2] or "").lower()])
    if number < 1:
        msg = f"memory budget must be at least 1 byte, got {value!r}"
        raise InvalidValueError(msg)
    return number


def default_memory_budget() -> int:
    """Half of the memory this process may use: the machine's, or its cgroup's limit.

    Examples
    --------
    >>> default_memory_budget() > 0
    True
    """
    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return min(total, _cgroup_limit() or total) // 2


def _cgroup_limit() -> int | None:
    """The memory limit of the process's cgroup (v2), if it has one."""
    try:
        text = Path("/sys/fs/cgroup/memory.max").read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def format_memory(size: int) -> str:
    """A size in bytes as ``"1.5 GiB"``.

    Examples
    --------
    >>> format_memory(3 * 2**29)
    '1.5 GiB'
    """
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024:
            return f"{value:.3g} {unit}"
        value /= 1024
    return f"{value:.3g} TiB"
