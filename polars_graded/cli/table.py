"""Text tables for a terminal: what ``polars-graded`` prints, and the examples print too."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import polars as pl

DECIMALS: Final = 4
"""Decimals of every float the command prints."""


def format_table(frame: pl.DataFrame, decimals: int = DECIMALS) -> str:
    """Every row and column of ``frame`` as aligned text, floats with fixed decimals.

    Numbers are right-aligned, other values left-aligned; nulls show as ``-``.

    Examples
    --------
    >>> print(format_table(pl.DataFrame({"system": ["a", "bb"], "ap": [0.5, 1 / 3]})))
    system      ap
    ------  ------
    a       0.5000
    bb      0.3333
    """
    header = list(frame.columns)
    cells = [[_cell(v, decimals) for v in frame.get_column(c).to_list()] for c in header]
    numeric = [frame.schema[c].is_numeric() for c in header]
    widths = [
        max([len(name), *map(len, column)]) for name, column in zip(header, cells, strict=True)
    ]

    def line(values: Sequence[str]) -> str:
        parts = (
            value.rjust(width) if right else value.ljust(width)
            for value, width, right in zip(values, widths, numeric, strict=True)
        )
        return "  ".join(parts).rstrip()

    rows = [line(header), line(["-" * width for width in widths])]
    rows += [line(row) for row in zip(*cells, strict=True)]
    return "\n".join(rows)


def _cell(value: object, decimals: int) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{decimals}f}"
    return str(value)
