"""TREC run and qrels files as real ones come: written from a table or text, and drawn
by hypothesis with what reading them must give.

- :func:`write_trec_file`: with a BOM, CRLF line ends, gzip, or a truncated gzip (the
  fixture ``write_trec``).
- :func:`trec_text`: a long table as run and qrels text.
- :func:`trec_files`: a strategy of :class:`TrecFile`, valid and hostile lines.
- :func:`expected_joined_rankings`: the rankings a run/qrels join must give.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from hypothesis import strategies as st

from support.hostile_tables import rarely


def write_trec_file(
    path: str | os.PathLike[str],
    content: str | bytes,
    *,
    bom: bool = False,
    crlf: bool = False,
    compress: bool = False,
    truncate: int | None = None,
) -> Path:
    """Write a TREC run or qrels file as real files come: with a UTF-8 byte-order mark,
    CRLF line ends, gzip-compressed, or compressed and cut after ``truncate`` bytes."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    if bom:
        data = b"\xef\xbb\xbf" + data
    if compress or truncate is not None:
        data = gzip.compress(data, mtime=0)
    if truncate is not None:
        data = data[: max(2, min(truncate, len(data) - 1))]  # keep the magic bytes
    out = Path(path)
    out.write_bytes(data)
    return out


def trec_text(table: pl.DataFrame, *, system: str | None = None) -> tuple[str, str]:
    """A long table as TREC run and qrels text (rank and tag fields from the table's order)."""
    run_lines, qrels_lines = [], []
    rows = table.rows(named=True)
    for rank, row in enumerate(rows, start=1):
        if row["score"] is not None:
            tag = row[system] if system else "run"
            run_lines.append(f"{row['query']} Q0 {row['item']} {rank} {row['score']!r} {tag}")
    judged = {(r["query"], r["item"]): r["relevance"] for r in rows if r["relevance"] is not None}
    for (query, item), label in judged.items():
        qrels_lines.append(f"{query} 0 {item} {int(label)}")
    return "\n".join(run_lines) + "\n", "\n".join(qrels_lines) + "\n"


_SEPARATORS = (" ", " ", "\t", "  ", " \t ", "\v", "\f")
"""Field separators: C's isspace() characters, as trec_eval splits lines."""
token = st.text(
    alphabet=st.characters(
        codec="utf-8",
        exclude_categories=("Cs", "Zs", "Zl", "Zp", "Cc"),
        exclude_characters="#\ufeff\x85",
    ),
    min_size=1,
    max_size=5,
).filter(lambda t: not any(c.isspace() for c in t))
"""A field: no whitespace in C's or Unicode's sense, no ``#`` (which starts a comment)."""
NUMBERS = st.one_of(
    st.integers(-1000, 1000).map(str),
    st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr),
    st.sampled_from(["+4", ".5", "5.", "1e3", "-2.5E-3", "1e308", "0", "-0", "inf", "-inf"]),
)
NOT_NUMBERS = st.sampled_from(
    ["abc", "1.2.3", "--1", "1e", "e5", "+", "-", ".", "0x10", "1,5", "٣"]
)


TrecRow = tuple[str, str, float | None]
"""(query, item, score) of a run, (query, item, relevance) of qrels; None where the line
breaks a rule."""


@dataclass
class TrecFile:
    """A drawn TREC file: its text, how it is stored, and what reading it must give."""

    text: str
    rows: list[TrecRow]
    """The expected rows: (query, item, score) of a run, (query, item, relevance) of qrels."""
    must_raise: str | None
    nan_scores: bool = False
    """A run with a NaN score: readable, but evaluating it must raise."""
    may_refuse: bool = False
    """Holds a label beyond 64-bit integers (1e30): read exactly, or a GradedError."""
    bom: bool = False
    crlf: bool = False
    compress: bool = False
    truncate: int | None = None

    def write(self, path: Path) -> Path:
        return write_trec_file(
            path,
            self.text,
            bom=self.bom,
            crlf=self.crlf,
            compress=self.compress,
            truncate=self.truncate,
        )


@st.composite
def _content_line(draw: st.DrawFn, fields: list[str]) -> str:
    sep = draw(st.sampled_from(_SEPARATORS))
    lead = draw(st.sampled_from(["", "", " ", "\t"]))
    tail = draw(st.sampled_from(["", "", " ", "\r", "\t"]))
    return lead + sep.join(fields) + tail


_LINE_KINDS = ("row",) * 6 + ("blank", "comment")
_HOSTILE_KINDS = ("fields", "value", "nan", "huge")
_COMMENT = st.text(max_size=10).filter(lambda t: "\n" not in t)
_RUN_VALUES = {
    "row": NUMBERS,
    "value": NOT_NUMBERS,
    "nan": st.sampled_from(["nan", "NaN"]),
    "huge": st.sampled_from(["1e400", "-1e400", "1e308"]),  # a float overflows to infinity
}
_QRELS_VALUES = {
    "row": st.integers(-2, 4).map(str) | st.sampled_from(["2.0", "+3", "1e2", "1024", "-0"]),
    "value": st.sampled_from(["2.5", "abc", "inf", "1e400", "-", "0.5"]),
    "nan": st.just("nan"),
    "huge": st.sampled_from(["1e30", "99999999999999999999", "9223372036854775808"]),
}


@st.composite
def trec_files(
    draw: st.DrawFn, *, kind: str, queries: Sequence[str] | None = None, hostile: bool = True
) -> TrecFile:
    """A TREC run (``kind="run"``) or qrels file: valid lines with C-whitespace separators,
    blank and comment lines, and (``hostile``) wrong field counts, non-numeric or NaN scores,
    non-integer labels, a BOM, CRLF, gzip and truncated gzip."""
    query_ids = list(queries or draw(st.lists(token, min_size=1, max_size=4, unique=True)))
    f = TrecFile("", [], None)
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 12))):
        what = draw(st.sampled_from(_LINE_KINDS + (_HOSTILE_KINDS if hostile else ())))
        if what == "blank":
            lines.append(draw(st.sampled_from(["", " ", "\t", "\r", " \f "])))
            continue
        if what == "comment":
            lines.append(draw(st.sampled_from(["", " ", "\t"])) + "#" + draw(_COMMENT))
            continue
        q, it = draw(st.sampled_from(query_ids)), draw(token)
        if kind == "run":
            value = draw(_RUN_VALUES.get(what, NUMBERS))
            rank = draw(st.integers(0, 99).map(str) | token)
            fields = [q, "Q0", it, rank, value, draw(token), *draw(st.lists(token, max_size=2))]
            row = (q, it, float(value) if what in ("row", "nan", "huge") else None)
        else:
            value = draw(_QRELS_VALUES.get(what, _QRELS_VALUES["row"]))
            fields = [q, draw(token), it, value]
            row = (q, it, int(float(value)) if what in ("row", "huge") else None)
        if what == "fields":  # a run needs at least 6 fields, qrels exactly 4
            keep = draw(st.integers(1, 5) if kind == "run" else st.sampled_from([1, 2, 3, 5, 6]))
            extra = [draw(token) for _ in range(keep - len(fields))]
            fields = [*fields, *extra][:keep]
        lines.append(draw(_content_line(fields)))
        if what in ("row", "huge") or (what == "nan" and kind == "run"):
            f.rows.append(row)
            f.nan_scores = f.nan_scores or what == "nan"
            f.may_refuse = f.may_refuse or (what == "huge" and kind == "qrels")
        elif f.must_raise is None:
            f.must_raise = f"line {len(lines)} ({what})"
    f.text = "\n".join(lines) + (draw(st.sampled_from(["\n", "\n", "", "\n\n"])) if lines else "")
    if hostile:
        f.bom, f.crlf, f.compress = draw(rarely(4)), draw(rarely(4)), draw(rarely(4))
        if f.compress and draw(rarely(3)):
            f.truncate = draw(st.integers(2, 200))
            f.must_raise = f.must_raise or "truncated gzip"
    return f


def expected_joined_rankings(
    run: Sequence[TrecRow],
    qrels: Sequence[TrecRow],
    queries: str,
    systems: Sequence[str] | None = None,
) -> set[tuple[str, ...]]:
    """The rankings (query,) or (system, query) of a run/qrels join, from the rows alone:
    ``qrels`` mode keeps the judged queries (for every system), ``both`` a system's judged
    queries it retrieved, ``all`` every judged or retrieved query."""
    judged = {q for q, *_ in qrels}
    if systems is None:
        retrieved = {q for q, *_ in run}
        wanted = {"qrels": judged, "both": judged & retrieved, "all": judged | retrieved}[queries]
        return {(q,) for q in wanted}
    out: set[tuple[str, ...]] = set()
    for system in set(systems):
        mine = {q for (q, *_), s in zip(run, systems, strict=True) if s == system}
        wanted = {"qrels": judged, "both": judged & mine, "all": judged | mine}[queries]
        out |= {(system, q) for q in wanted}
    return out
