"""TREC text as trec_eval reads it, in batches of whole lines, so that memory stays bounded.

:func:`read_lines` reads a TREC file (plain or gzip-compressed, detected by the magic bytes)
in batches of about ``batch_bytes`` bytes of whole lines. A UTF-8 byte-order mark at the start
of the file is dropped. Each batch becomes a frame of its content lines, numbered as in the
file (``lineno``, from 1), with their text (``line``) and ``fields``: runs of characters that
are not whitespace in C's ``isspace`` sense; blank lines and lines whose first field starts
with ``#`` (comments) are left out, ``\\r`` is whitespace (so ``\\r\\n`` ends a line as ``\\n``
does). The caller's :class:`LineRule` s are checked on every batch, and the frames are yielded
until a line breaks one.

Errors are those of reading the whole file at once, whatever the batches: a file that cannot
be read or a truncated or corrupt gzip stream is an :class:`InputFileError` (found first, so
the rest of the file is still read); then a byte that is not UTF-8 (the first of the file);
then the first rule some line breaks, named with the first such line and the number of bad
lines in the whole file (an :class:`InvalidValueError` naming the file, the line number and
the line). Once a line breaks a rule, no more frames are yielded, but the rest of the file is
read, for those counts.
"""

from __future__ import annotations

import gzip
import os
import zlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Final, Literal, NamedTuple, get_args

import polars as pl

from polars_graded.errors import InputFileError, InvalidValueError

PathLike = str | os.PathLike[str]
Encoding = Literal["utf-8", "latin-1"]
ENCODINGS: tuple[Encoding, ...] = get_args(Encoding)

BATCH_BYTES: Final = 16 * 2**20
"""Bytes of text parsed at a time. Converting a 68 MB run to Parquet (``trec_to_parquet``,
2026-11-28, 2 busy CPUs) took 0.46 GiB at the peak above the interpreter's 0.1 GiB in 2.5 s
with 16 MiB batches; 4 MiB took 0.17 GiB but 4.7 s, 64 MiB 0.88 GiB and 2.1 s."""

_GZIP_MAGIC = b"\x1f\x8b"
_UTF8_BOM = b"\xef\xbb\xbf"
_FIELD = r"[^ \t\n\x0B\x0C\r]+"  # a run of non-whitespace, whitespace as C's isspace()
_OTHER_SPACES = (b"\t", b"\x0b", b"\x0c", b"\r")  # C's isspace() but space and newline


class LineRule(NamedTuple):
    """A rule every content line must follow: ``bad`` is true on a line that breaks it (an
    expression over ``fields``, see :func:`field`), ``rule`` says what it requires."""

    bad: pl.Expr
    rule: str


def field(i: int) -> pl.Expr:
    """The ``i``-th field (from 0) of each line, null where the line has fewer.

    Examples
    --------
    >>> frame = pl.DataFrame({"fields": [["1", "Q0"], ["2"]]})
    >>> frame.select(field(1)).to_series().to_list()
    ['Q0', None]
    """
    return pl.col("fields").list.get(i, null_on_oob=True)


def check_encoding(encoding: object) -> None:
    """Raise :class:`InvalidValueError` unless ``encoding`` is one of :data:`ENCODINGS`."""
    if encoding not in ENCODINGS:
        msg = f"encoding must be one of {list(ENCODINGS)}, got {encoding!r}"
        raise InvalidValueError(msg)


def read_lines(
    path: PathLike,
    rules: Sequence[LineRule],
    select: Callable[[pl.DataFrame], pl.DataFrame],
    *,
    encoding: Encoding = "utf-8",
    batch_bytes: int = BATCH_BYTES,
) -> Iterator[pl.DataFrame]:
    """``select`` of each batch of content lines of ``path``, in file order, every line
    checked against ``rules`` (see the module's docstring for the errors and their order).

    Examples
    --------
    >>> path = getfixture("tmp_path") / "run.txt"
    >>> _ = path.write_text("# a comment\\n1 Q0 d7 1 2.5 bm25\\n\\n1 Q0 d3\\n")
    >>> rules = [LineRule(pl.col("fields").list.len() < 6, "expected 6 fields")]
    >>> batches = read_lines(path, rules, lambda lines: lines.select("lineno", field(2)))
    >>> list(batches)
    Traceback (most recent call last):
    ...
    polars_graded.errors.InvalidValueError: ...run.txt, line 4: expected 6 fields (1 ...'1 Q0 d3'
    """
    check_encoding(encoding)
    if isinstance(batch_bytes, bool) or not isinstance(batch_bytes, int) or batch_bytes < 1:
        msg = f"batch_bytes must be a positive integer, got {batch_bytes!r}"
        raise InvalidValueError(msg)
    broken = [_Broken() for _ in rules]
    for first, data, text in _text_batches(path, encoding, batch_bytes):
        lines = _lines(text, first, spaced=_single_spaced(data))
        for rule, seen in zip(rules, broken, strict=True):
            seen.add(lines.filter(rule.bad))
        if not any(seen.count for seen in broken):
            yield select(lines)
    for rule, seen in zip(rules, broken, strict=True):
        if seen.count:
            lineno, line = seen.first
            msg = (
                f"{os.fspath(path)}, line {lineno}: {rule.rule} "
                f"({seen.count} bad line(s)); line {lineno} is {line.strip()!r}"
            )
            raise InvalidValueError(msg)


class _Broken:
    """The lines that broke one rule so far: the first (number, text), and how many."""

    def __init__(self) -> None:
        self.first: tuple[int, str] = (0, "")
        self.count = 0

    def add(self, offending: pl.DataFrame) -> None:
        if offending.height and not self.count:
            self.first = offending.select("lineno", "line").row(0)
        self.count += offending.height


def _lines(text: str, first: int, *, spaced: bool) -> pl.DataFrame:
    """Content lines of ``text`` (whole lines, the first one numbered ``first``).

    ``spaced``: every non-blank line is fields separated by single spaces (see
    :func:`_single_spaced`), so that splitting at spaces gives the fields, five times faster
    than matching them.
    """
    column = pl.Series("line", [text], dtype=pl.String)
    lines = column.str.split("\n").explode().to_frame().with_row_index("lineno", offset=first)
    if spaced:
        lines = lines.filter(pl.col("line") != "").with_columns(
            fields=pl.col("line").str.split(" ")
        )
    else:
        lines = lines.with_columns(fields=pl.col("line").str.extract_all(_FIELD))
    first_field = pl.col("fields").list.first()
    return lines.filter(pl.col("fields").list.len() > 0, ~first_field.str.starts_with("#"))


def _single_spaced(data: bytes) -> bool:
    """Whether every line of ``data`` is blank or fields separated by single spaces: no
    whitespace but spaces and line ends, no two spaces in a row, none at a line's ends."""
    if any(byte in data for byte in _OTHER_SPACES):
        return False
    return not (
        b"  " in data
        or b"\n " in data
        or b" \n" in data
        or data.startswith(b" ")
        or data.endswith(b" ")
    )


def _text_batches(
    path: PathLike, encoding: Encoding, batch_bytes: int
) -> Iterator[tuple[int, bytes, str]]:
    """``(number of the first line, bytes, text)`` of each batch of whole lines."""
    first = 1
    stream = _ByteStream(path, batch_bytes)
    with stream:
        for data in stream:
            if encoding == "latin-1":  # every byte one character: ids still match byte for byte
                text = data.decode("latin-1")
            else:
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError as error:
                    problem = _not_utf8(path, data, error, first)
                    stream.drain()  # a damaged gzip stream further on is reported first
                    raise problem from None
            yield first, data, text
            first += data.count(b"\n")


class _ByteStream:
    """The file's bytes in batches of whole lines (the last may lack its ``\\n``), gunzipped
    when the file starts with the gzip magic bytes, without a UTF-8 byte-order mark."""

    def __init__(self, path: PathLike, batch_bytes: int) -> None:
        self.path = path
        self.batch_bytes = batch_bytes
        try:
            self.raw: IO[bytes] = Path(path).open("rb")  # noqa: SIM115 (closed by __exit__)
            self.stream: IO[bytes] | gzip.GzipFile = self.raw
            if self.raw.read(2) == _GZIP_MAGIC:
                self.stream = gzip.GzipFile(fileobj=self.raw, mode="rb")
            self.raw.seek(0)
        except OSError as error:
            self.close()
            raise InputFileError(self._cannot_read(error)) from error

    def __enter__(self) -> _ByteStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        raw = getattr(self, "raw", None)
        if raw is not None:
            raw.close()

    def _cannot_read(self, error: OSError) -> str:
        return f"cannot read {os.fspath(self.path)}: {error.strerror or error}"

    def read(self) -> bytes:
        """Up to ``batch_bytes`` more bytes, ``b""`` at the end."""
        try:
            return self.stream.read(self.batch_bytes)
        except (EOFError, gzip.BadGzipFile, zlib.error) as error:  # truncated, header, data
            msg = (
                f"{os.fspath(self.path)}: not a readable gzip file (it starts with the gzip "
                f"magic bytes but is truncated or corrupt: {error})"
            )
            raise InputFileError(msg) from error
        except OSError as error:
            raise InputFileError(self._cannot_read(error)) from error

    def __iter__(self) -> Iterator[bytes]:
        rest, start = b"", True
        while True:
            chunk = self.read()
            data = rest + chunk if rest else chunk
            if start:  # the BOM goes before decoding so that latin-1 cannot keep it as 'ï»¿'
                if chunk and len(data) < len(_UTF8_BOM) and _UTF8_BOM.startswith(data):
                    rest = data
                    continue
                data, start = data.removeprefix(_UTF8_BOM), False
            if not chunk:
                if data:
                    yield data
                return
            cut = data.rfind(b"\n") + 1
            rest = data[cut:]
            if cut:
                yield data[:cut]

    def drain(self) -> None:
        """Read to the end, so that a damaged gzip stream raises its error."""
        while self.read():
            pass


def _not_utf8(
    path: PathLike, data: bytes, error: UnicodeDecodeError, first: int
) -> InvalidValueError:
    """The error for the first byte that is not UTF-8 in ``data`` (whole lines, the first
    numbered ``first``): its line, column, byte(s) and a fix."""
    start = data.rfind(b"\n", 0, error.start) + 1
    end = data.find(b"\n", error.start)
    line = data[start : end if end >= 0 else len(data)]
    lineno = first + data.count(b"\n", 0, error.start)
    shown = line.decode("utf-8", "replace").strip()[:200]
    bad = " ".join(f"0x{byte:02X}" for byte in data[error.start : error.end])
    name = os.fspath(path)
    msg = (
        f"{name}, line {lineno}: byte {bad} (column {error.start - start + 1}) is not "
        "UTF-8; ids are matched byte for byte, so every line must be UTF-8: convert the "
        f"file (for latin-1 text: iconv -f latin1 -t utf-8 {name}), or in Python read "
        f"every file with encoding='latin-1'; line {lineno} is {shown!r}"
    )
    return InvalidValueError(msg)
