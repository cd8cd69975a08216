"""Values typed on the command line, read and checked before any work: a count, a seed, a
count of resamples, the measures of ``-m``, a system named in a column's own type, a file or
a folder to write in.

A value argparse reads (``type=``) raises :class:`argparse.ArgumentTypeError`, a usage error;
one checked later, against the input or the disk, is a
:class:`~polars_graded.cli.parser.CommandError`. Either is one line and exit code 2.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

import polars as pl

from polars_graded.cli.parser import CommandError
from polars_graded.measures.names.grammar import split_top_level
from polars_graded.stats.options import MAX_RESAMPLES


def positive(text: str) -> int:
    """An option's value that must be a whole number of at least 1.

    Examples
    --------
    >>> positive("3")
    3
    >>> positive("-1e3")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a whole number of at least 1, got '-1e3'
    """
    try:
        value = int(text)
    except ValueError:
        msg = f"must be a whole number of at least 1, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None
    if value < 1:
        msg = f"must be at least 1, got {value}"
        raise argparse.ArgumentTypeError(msg)
    return value


def seed_number(text: str) -> int:
    """``--seed``: an integer >= 0, as numpy takes a seed.

    Examples
    --------
    >>> seed_number("7")
    7
    >>> seed_number("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be an integer >= 0 (numpy's rule for a seed), got -1
    """
    value = int(text)
    if value < 0:
        msg = f"must be an integer >= 0 (numpy's rule for a seed), got {value}"
        raise argparse.ArgumentTypeError(msg)
    return value


def resample_count(text: str) -> int:
    """``--trials``, ``--bootstrap``: a whole number from 1 to
    :data:`~polars_graded.stats.options.MAX_RESAMPLES`.

    Examples
    --------
    >>> resample_count("100000000000")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be at most 10,000,000 (p-values to 1e-7; every ...
    """
    value = positive(text)
    if value > MAX_RESAMPLES:
        msg = (
            f"must be at most {MAX_RESAMPLES:,} (p-values to 1e-7; every resample is kept "
            f"in memory), got {value:,}"
        )
        raise argparse.ArgumentTypeError(msg)
    return value


def split_measures(values: Sequence[str]) -> list[str]:
    """Measure names from repeated and comma-separated ``-m`` values.

    Commas inside brackets, braces or parentheses belong to the measure.

    Examples
    --------
    >>> split_measures(["mu_ap,ndcg@10", "ndcg(gain={1:3,2:9})@5"])
    ['mu_ap', 'ndcg@10', 'ndcg(gain={1:3,2:9})@5']
    >>> split_measures([""])
    Traceback (most recent call last):
    ...
    polars_graded.cli.parser.CommandError: no measure given to -m
    """
    names = [name for value in values for name in split_top_level(value)]
    if not names:
        msg = "no measure given to -m"
        raise CommandError(msg)
    return names


def check_folder(folder: Path, what: str) -> None:
    """Raise unless ``folder`` is an existing directory we may create files in.

    Examples
    --------
    >>> check_folder(getfixture("tmp_path"), "-o")  # a folder we may write in: no error
    >>> check_folder(Path("no/such"), "-o")
    Traceback (most recent call last):
    ...
    polars_graded.cli.parser.CommandError: -o: the folder 'no/such' does not exist
    """
    if not folder.is_dir():
        reason = "is not a folder" if folder.exists() else "does not exist"
        msg = f"{what}: the folder {str(folder)!r} {reason}"
        raise CommandError(msg)
    if not os.access(folder, os.W_OK | os.X_OK):
        msg = f"{what}: permission denied in the folder {str(folder)!r}"
        raise CommandError(msg)


def check_output_file(text: str, option: str) -> None:
    """Raise unless ``text`` names a file we may write: not a folder, in a folder that
    exists and takes new files, not a file we may not overwrite. Checked before the work.

    Examples
    --------
    >>> check_output_file(".", "--json")
    Traceback (most recent call last):
    ...
    polars_graded.cli.parser.CommandError: --json: '.' is a folder; give a file, e.g. ./verdict.json
    """
    path = Path(text)
    if path.is_dir():
        example = os.path.join(text, "verdict.json")
        msg = f"{option}: {text!r} is a folder; give a file, e.g. {example}"
        raise CommandError(msg)
    check_folder(path.parent, option)
    if path.exists() and not os.access(path, os.W_OK):
        msg = f"{option}: permission denied: cannot write {text!r}"
        raise CommandError(msg)


def named_system(text: str, frame: pl.LazyFrame | pl.DataFrame, by: str, option: str) -> object:
    """The system ``text`` names on the command line, as a value of the ``by`` column: text
    parsed to its type (``1`` for an integer column, ``2024-05-01`` for a date ...).

    A text that cannot be read as that type, or is not one of the column's systems, is an
    error listing them. An absent column is left to the library, which names it.

    Examples
    --------
    >>> frame = pl.DataFrame({"system": [1, 2]})
    >>> named_system("2", frame, "system", "--baseline")
    2
    >>> named_system("x", frame, "system", "--baseline")
    Traceback (most recent call last):
    ...
    polars_graded.cli.parser.CommandError: --baseline 'x' cannot be a system of column \
'system', which holds Int64 values; the systems are [1, 2]
    """
    lazy = frame.lazy()
    if by not in lazy.collect_schema():
        return text
    systems = lazy.select(pl.col(by).unique().sort()).collect().get_column(by)
    value = _parsed(text, systems)
    known = systems.to_list()
    if value is None or value not in known:
        shown = known[:20] + (["..."] if len(known) > 20 else [])
        problem = (
            f"cannot be a system of column {by!r}, which holds {systems.dtype} values"
            if value is None
            else f"is not a system of column {by!r}"
        )
        msg = f"{option} {text!r} {problem}; the systems are {shown}"
        raise CommandError(msg)
    return value


def _parsed(text: str, systems: pl.Series) -> object:
    """``text`` as a value of the type of ``systems``; None when it is not one."""
    dtype, one = systems.dtype, pl.Series([text])
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
        return text
    if dtype == pl.Boolean:
        return {"true": True, "false": False}.get(text.lower())
    if dtype.is_numeric():
        return one.cast(dtype, strict=False).item()
    if dtype == pl.Date:
        return one.str.to_date(strict=False).item()
    if isinstance(dtype, pl.Datetime):
        unit, zone = dtype.time_unit, dtype.time_zone
        return one.str.to_datetime(time_unit=unit, time_zone=zone, strict=False).item()
    # Any other type: the system written as ``text``.
    written = systems.filter(systems.cast(pl.String, strict=False) == text)
    return written.item(0) if written.len() else None
