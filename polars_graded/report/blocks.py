"""The parts of a report section that both renderings draw the same way: a paragraph (a
``str``), a :class:`Table` and a :class:`Figure`, grouped in a :class:`Section`.

A section built from these parts is rendered by :func:`~polars_graded.report.to_html` and
:func:`~polars_graded.report.to_markdown` alike (Markdown lists a figure by its caption), so
the Markdown mirrors the page by construction.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl


@dataclass(frozen=True)
class Table:
    """A table: the first column labels the rows (a system name, say), the others are cells.

    Cells are shown by :func:`~polars_graded.report.text.cell_text` of their column's name:
    strings as they are, counts with separators, ``*_share`` as percentages, ``p_*`` as
    p-values, other numbers with four decimals.

    Examples
    --------
    >>> Table("means", pl.DataFrame({"system": ["a"], "ap": [0.5]})).frame.shape
    (1, 2)
    """

    id: str
    frame: pl.DataFrame
    caption: str = ""


@dataclass(frozen=True)
class Figure:
    """A PNG figure with its alternative text and caption.

    Examples
    --------
    >>> Figure(b"png", "heat map", "Kendall's tau").alt
    'heat map'
    """

    png: bytes
    alt: str
    caption: str = ""


Part = str | Table | Figure
"""One part of a section: a paragraph, a table or a figure."""


@dataclass(frozen=True)
class Section:
    """A titled section of a report; ``key`` is its anchor in the page.

    Examples
    --------
    >>> Section("pairs", "All pairs", ("No pair differs.",)).parts
    ('No pair differs.',)
    """

    key: str
    title: str
    parts: tuple[Part, ...]
