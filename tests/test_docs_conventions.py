"""docs/conventions.md, the contract the docstrings cite: its example runs as written and
returns the library values the page quotes beside the paper's Tables 1 and 2."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

CONVENTIONS = Path(__file__).resolve().parents[1] / "docs" / "conventions.md"
PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
SECTION = re.compile(r"^## (\d+)\. ", re.MULTILINE)


@pytest.fixture(scope="module")
def page() -> str:
    return CONVENTIONS.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def paper_values(page: str) -> dict[str, float]:
    """The last expression of the page's example, evaluated: one row per measure."""
    (block,) = PYTHON_BLOCK.findall(page)
    *statements, last = block.strip().splitlines()
    namespace: dict[str, object] = {}
    exec("\n".join(statements), namespace)
    out = eval(last, namespace)
    assert isinstance(out, pl.DataFrame)
    return {name: float(out[name][0]) for name in out.columns if name != "query"}


def _quoted(pattern: str, page: str) -> float:
    found = re.search(pattern, page)
    assert found is not None, pattern
    return float(found.group(1))


def test_sections_are_numbered_as_the_docstrings_cite_them(page: str) -> None:
    assert [int(n) for n in SECTION.findall(page)] == list(range(1, 9))


def test_table_1_library_row(page: str, paper_values: dict[str, float]) -> None:
    row = re.search(r"^\| library \|(.*)\|$", page, re.MULTILINE)
    assert row is not None
    cells = [cell.strip() for cell in row.group(1).split("|")]
    # thresholds 5, 4, 3, 2, 1 (t = 0 is refused: "—")
    quoted = [float(cell) for cell in cells[1:5]]
    computed = [paper_values[f"ap(rel={t})"] for t in (4, 3, 2)] + [paper_values["ap"]]
    assert computed == pytest.approx(quoted, abs=5e-7)


def test_quoted_mu_ap_and_dcg_family(page: str, paper_values: dict[str, float]) -> None:
    assert paper_values["mu_ap"] == pytest.approx(
        _quoted(r"\(library: ([0-9.]+)\)", page), abs=5e-7
    )
    assert paper_values["ndcg@8"] == pytest.approx(
        _quoted(r"library gives NDCG@8\s+([0-9.]+)", page), abs=5e-7
    )
    assert paper_values["ndcng@8"] == pytest.approx(
        _quoted(r"NDCNG@8 ([0-9.]+) \(mean", page), abs=5e-7
    )
