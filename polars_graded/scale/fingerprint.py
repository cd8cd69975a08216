"""The hive partitions of a log folder, and the fingerprint that names a partition's entry in a
result store (:mod:`polars_graded.scale.store`).

A SOURCE such as ``logs/day=2026-11-01/part-0.parquet`` (or nested,
``logs/day=.../system=.../``) is a folder whose data files all sit in leaf folders named
``name=value``, with the same names in the same order everywhere. Files whose name starts
with ``_`` or ``.`` (``_SUCCESS``, ``.crc``) are skipped, as Polars skips them.

A partition's fingerprint is the SHA-256 of everything that can change its per-query values:

- its files: path relative to SOURCE, size and ``mtime_ns`` (a rewritten file gets a new
  modification time), and with ``hash_files=True`` also the SHA-256 of each file's bytes.
  Size and time are the default because hashing would read the whole log every night, the
  very cost a store avoids; the hash is for file systems or copies that keep times while
  changing bytes;
- the qrels: the SHA-256 of the file's bytes, and which queries are kept;
- the measures: each output name with its canonical name and every parameter;
- the table options (columns, ``by``, ``ranked``, ``ties``, ``compat``, ``judged_only``,
  ``depth``), the store format, the library's version and Polars' version.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Final
from urllib.parse import unquote

import polars as pl

from polars_graded.errors import StoreError
from polars_graded.measures import Measure
from polars_graded.options import TableSpec

STORE_FORMAT: Final = 1
"""The layout of a store's entries; a store of another format is refused."""
_EXAMPLE: Final = "day=2026-11-01/part-0.parquet"
_CHUNK: Final = 1 << 20


def library_version() -> str:
    """The installed polars-graded version (``"0.0.0"`` from a source tree), as
    ``polars_graded.__version__`` reads it.

    Examples
    --------
    >>> import polars_graded
    >>> library_version() == polars_graded.__version__
    True
    """
    try:
        return version("polars-graded")
    except PackageNotFoundError:  # pragma: no cover - a source tree without metadata
        return "0.0.0"


@dataclass(frozen=True)
class Partition:
    """One leaf folder of hive partitions: its path relative to SOURCE (``"day=1/system=a"``),
    its ``(column, value)`` pairs (``None`` for Hive's null partition) and its data files."""

    path: str
    values: tuple[tuple[str, str | None], ...]
    files: tuple[Path, ...]

    @property
    def columns(self) -> list[str]:
        """The partition columns, outermost first."""
        return [name for name, _ in self.values]


def hive_partitions(source: str | Path) -> list[Partition]:
    """The partitions of ``source``, sorted by their relative path.

    Raises
    ------
    StoreError
        ``source`` is missing or a file, holds no data file, a file sits outside a
        ``name=value`` folder, a folder is not named ``name=value``, two partitions have
        different columns, or a partition folder holds no file.

    Examples
    --------
    >>> import polars as pl
    >>> root = getfixture("tmp_path") / "logs"
    >>> for day in ("2026-11-02", "2026-11-01"):
    ...     (root / f"day={day}").mkdir(parents=True)
    ...     pl.DataFrame({"query": [1]}).write_parquet(root / f"day={day}" / "part-0.parquet")
    >>> [(p.path, p.values) for p in hive_partitions(root)]
    [('day=2026-11-01', (('day', '2026-11-01'),)), ('day=2026-11-02', (('day', '2026-11-02'),))]
    >>> hive_partitions(root / "day=2026-11-01" / "part-0.parquet")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.StoreError: SOURCE ...part-0.parquet is a file; it must be a folder ...
    """
    root = Path(source)
    if not root.is_dir():
        what = "a file" if root.exists() else "missing"
        msg = f"SOURCE {root} is {what}; it must be a folder of hive partitions such as {_EXAMPLE}"
        raise StoreError(msg)
    folders: dict[Path, list[Path]] = {}
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if not _skipped(name))
        here = Path(folder)
        files = sorted(here / name for name in names if not _skipped(name))
        if files:
            folders[here] = files
        elif not subfolders and here != root:
            msg = f"partition folder {here} holds no data file; remove it or add its data"
            raise StoreError(msg)
    if not folders:
        msg = f"SOURCE {root} holds no data file; expected hive partitions such as {_EXAMPLE}"
        raise StoreError(msg)
    partitions = [_partition(root, folder, files) for folder, files in folders.items()]
    partitions.sort(key=lambda partition: partition.path)
    first = partitions[0]
    for partition in partitions[1:]:
        if partition.columns != first.columns:
            msg = (
                f"the partitions of SOURCE {root} must have the same columns: {partition.path} "
                f"has {partition.columns}, {first.path} has {first.columns}"
            )
            raise StoreError(msg)
    return partitions


def _skipped(name: str) -> bool:
    """Hidden and bookkeeping files (``.crc``, ``_SUCCESS``), which Polars skips too."""
    return name.startswith((".", "_"))


def _partition(root: Path, folder: Path, files: list[Path]) -> Partition:
    parts = folder.relative_to(root).parts
    if not parts:
        msg = (
            f"SOURCE {root} must hold its data in hive folders such as {_EXAMPLE}; found the "
            f"file {files[0].name} directly in it"
        )
        raise StoreError(msg)
    values: list[tuple[str, str | None]] = []
    for part in parts:
        name, sep, value = part.partition("=")
        if not sep or not name:
            msg = (
                f"SOURCE {root} must hold its data in hive folders named column=value such as "
                f"{_EXAMPLE}; found the folder {part!r} (holding {files[0].relative_to(root)})"
            )
            raise StoreError(msg)
        values.append((name, _hive_value(value)))
    return Partition("/".join(parts), tuple(values), tuple(files))


def _hive_value(text: str) -> str | None:
    """A folder's value as Polars reads it: percent-decoded; Hive's null partition is null."""
    return None if text == "__HIVE_DEFAULT_PARTITION__" else unquote(text)


def file_hash(path: Path) -> str:
    """SHA-256 of a file's bytes, read in 1 MiB chunks.

    Examples
    --------
    >>> path = getfixture("tmp_path") / "qrels.txt"
    >>> _ = path.write_text("")
    >>> file_hash(path)[:12]
    'e3b0c44298fc'
    """
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def fingerprint(
    partition: Partition,
    source: Path,
    *,
    measures: Mapping[str, Measure],
    spec: TableSpec,
    qrels: tuple[str, str] | None,
    hash_files: bool,
) -> str:
    """The 64 hex digits that name ``partition``'s entry (see the module's docstring).

    ``qrels``: the SHA-256 of the qrels file and the ``queries`` mode, or ``None``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.measures import as_named_measures
    >>> root = getfixture("tmp_path")
    >>> (root / "day=1").mkdir()
    >>> pl.DataFrame({"query": [1]}).write_parquet(root / "day=1" / "part.parquet")
    >>> [day] = hive_partitions(root)
    >>> def of(measures, **options):
    ...     return fingerprint(day, root, measures=as_named_measures(measures),
    ...                        spec=TableSpec.of(options), qrels=None, hash_files=False)
    >>> len(of(["ap"])), of(["ap"]) == of(["map"]), of(["ap"]) == of(["ap"], ties="average")
    (64, True, False)
    """
    stamp = {
        "store_format": STORE_FORMAT,
        "library": library_version(),
        "polars": pl.__version__,
        "partition": partition.path,
        "files": [_file_stamp(path, source, hash_files=hash_files) for path in partition.files],
        "qrels": list(qrels) if qrels is not None else None,
        "measures": [[name, str(m), repr(m)] for name, m in measures.items()],
        "table": _jsonable(dict(spec.options())),
    }
    text = json.dumps(stamp, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _file_stamp(path: Path, source: Path, *, hash_files: bool) -> list[object]:
    status = path.stat()
    stamp: list[object] = [path.relative_to(source).as_posix(), status.st_size, status.st_mtime_ns]
    if hash_files:
        stamp.append(file_hash(path))
    return stamp


def _jsonable(value: object) -> object:
    """Tuples as lists, for a stable JSON text of the options."""
    if isinstance(value, Mapping):
        return {str(key): _jsonable(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_jsonable(item) for item in value]
    return value
