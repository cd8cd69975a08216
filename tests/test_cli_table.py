"""The command line's text tables (polars_graded/cli/table.py)."""

from __future__ import annotations

import polars as pl

from polars_graded.cli.table import format_table


def test_format_table_shows_every_row_and_column() -> None:
    wide = pl.DataFrame({f"measure_{i}": [i / 3] * 40 for i in range(12)}).with_row_index("q")
    text = format_table(wide)
    lines = text.splitlines()
    assert len(lines) == 42
    assert lines[0].split() == wide.columns
    assert lines[-1].split()[:3] == ["39", "0.0000", "0.3333"]
    assert "…" not in text
    assert format_table(pl.DataFrame({"x": [None, 1.5]})).splitlines()[2:] == [
        "     -",
        "1.5000",
    ]
