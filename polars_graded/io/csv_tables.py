"""CSV and TSV tables checked as the long table's rules say: every row holds the header's
number of fields (Polars pads a short row with nulls without a word), and the score and
relevance columns hold numbers, never NaN; an error names the file, the line and the value.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from polars_graded.errors import ColumnTypeError, InvalidValueError

_CHUNK = 1 << 24  # bytes of a CSV/TSV file counted at once


def csv_records(path: Path, separator: str) -> pl.LazyFrame:
    """The records of a CSV/TSV file: ``record`` (0 is the header), the ``lineno`` and
    ``line`` it starts on and its number of ``fields``, as ``pl.scan_csv`` splits them.

    Polars pads a short row with nulls without a word; counting the separators outside
    double quotes tells a missing field from an empty one. A quoted field may span lines.

    Examples
    --------
    >>> path = getfixture("tmp_path") / "t.csv"
    >>> _ = path.write_text('q,item,s\\n1,"a,\\nb",2\\n1,c\\n')
    >>> csv_records(path, ",").collect().rows()
    [(0, 1, 'q,item,s', 3), (1, 2, '1,"a,', 3), (2, 4, '1,c', 2)]
    """
    quotes = pl.col("line").str.count_matches('"', literal=True)
    inside = (quotes.cum_sum() - quotes) % 2 == 1  # the line starts inside a quoted field
    text = pl.when(inside).then(pl.lit('"') + pl.col("line")).otherwise(pl.col("line"))
    separators = text.str.replace_all(r'"[^"]*("|$)', "").str.count_matches(separator, literal=True)
    return (
        pl.scan_lines(path)
        .with_row_index("lineno", offset=1)
        .with_columns(separators=separators, record=(~inside).cum_sum().cast(pl.Int64) - 1)
        .group_by("record", maintain_order=True)
        .agg(
            pl.col("lineno").first(),
            pl.col("line").first(),
            fields=pl.col("separators").sum().cast(pl.Int64) + 1,
        )
    )


def check_csv_fields(path: Path, separator: str) -> None:
    """Raise unless every row of a CSV/TSV file has the header's number of fields.

    A row missing its last field would otherwise be read as a null there (an unjudged row,
    say), and a blank line as a row of nulls.

    Examples
    --------
    >>> path = getfixture("tmp_path") / "t.csv"
    >>> _ = path.write_text("query,item,score,relevance\\n1,a,1.0,1\\n1,b,0.5\\n")
    >>> check_csv_fields(path, ",")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: ...t.csv, line 3: 3 field(s) where the header has 4 ...
    """
    if _fields_add_up(path, separator):
        return
    records = csv_records(path, separator).collect()
    if records.height < 2:
        return
    header = records.row(0, named=True)
    bad = records.filter(pl.col("fields") != header["fields"])
    if not bad.height:
        return
    row = bad.row(0, named=True)
    where = f"{path}, line {row['lineno']}"
    header_text = f"the header has {header['fields']} fields ({header['line'][:200]!r})"
    if not row["line"].strip():
        msg = f"{where}: a blank line, where {header_text}; remove it ({bad.height} bad row(s))"
        raise InvalidValueError(msg)
    msg = (
        f"{where}: {row['fields']} field(s) where {header_text}; leave a field empty for a "
        f"null, do not leave it out ({bad.height} bad row(s)); line {row['lineno']} is "
        f"{row['line'][:200]!r}"
    )
    raise InvalidValueError(msg)


def _fields_add_up(path: Path, separator: str) -> bool:
    """True when a file without quotes has as many separators as its header's times its
    lines: every line is whole then, as Polars refuses a line with too many fields.

    Counting bytes takes a fraction of the time of :func:`csv_records`, which only files
    with quotes or a line that is not whole need.
    """
    sep = separator.encode()
    separators = newlines = 0
    with path.open("rb") as file:
        header = file.readline()
        last = header[-1:]
        file.seek(0)
        while chunk := file.read(_CHUNK):
            if b'"' in chunk:  # a quoted field may hold separators and line ends
                return False
            separators += chunk.count(sep)
            newlines += chunk.count(b"\n")
            last = chunk[-1:]
    lines = newlines + (last not in (b"\n", b""))
    return separators == header.count(sep) * lines


def check_csv_numbers(
    frame: pl.LazyFrame, numbers: Sequence[str], path: Path, separator: str
) -> None:
    """Raise if a ``numbers`` column of a CSV/TSV file holds text that is not a number,
    or NaN (the score and the relevance: empty means null).

    Polars reads such a column as text (``nan`` too), which would be refused as a column
    of the wrong type, without saying where; this names the line and the value.

    Examples
    --------
    >>> path = getfixture("tmp_path") / "t.csv"
    >>> _ = path.write_text("query,item,score,relevance\\n1,a,nan,1\\n")
    >>> check_csv_numbers(pl.scan_csv(path), ["score"], path, ",")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: ...t.csv, line 2: column 'score' must not be NaN ...
    """
    schema = frame.collect_schema()
    for name in (name for name in numbers if schema.get(name) == pl.String):
        number = pl.col(name).cast(pl.Float64, strict=False)
        bad = pl.col(name).is_not_null() & (number.is_null() | number.is_nan())
        found = frame.select(pl.col(name), row=pl.int_range(pl.len()), nan=number.is_nan())
        for value, row, nan in found.filter(bad).head(1).collect().iter_rows():
            lineno = _csv_lineno(path, separator, row)
            if nan:
                msg = (
                    f"{path}, line {lineno}: column {name!r} must not be NaN (leave the field "
                    f"empty for a null), found {value!r}"
                )
                raise InvalidValueError(msg)
            msg = f"{path}, line {lineno}: column {name!r} must hold numbers, found {value!r}"
            raise ColumnTypeError(msg)


def _csv_lineno(path: Path, separator: str, row: int) -> int:
    """The line data row ``row`` (0-based, after the header) starts on."""
    records = csv_records(path, separator).filter(pl.col("record") == row + 1)
    return int(records.select("lineno").collect().item())
