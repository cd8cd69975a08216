"""The defaults every entry point shares (polars_graded/defaults.py): they are what the
README and the site promise, and ``polars-graded evaluate`` without ``-m`` computes exactly those
measures, with the oracle's values (tests/support/oracle.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from support.markdown_examples import README, doc_pages
from support.oracle import RefQuery, load
from support.tables import make_random_table

from polars_graded import cli
from polars_graded.defaults import DEFAULT_MEASURES, ENGINE, REPORT_MEASURES

ORACLE: dict[str, Callable[[RefQuery], float]] = {
    "mu_ap": lambda q: q.mu_ap(),
    "ndcg@10": lambda q: q.ndcg(10),
    "ndcng@10": lambda q: q.ndcng(10),
    "ap": lambda q: q.ap(),
    "p@10": lambda q: q.precision(10),
    "rr": lambda q: q.rr(),
}
"""The default measures, as the oracle computes them."""


def test_the_docs_state_the_defaults() -> None:
    pages = [README, *doc_pages()]
    text = " ".join(" ".join(p.read_text(encoding="utf-8").split()) for p in pages)
    assert f"Without `-m`, it computes `{', '.join(DEFAULT_MEASURES)}`" in text
    assert f"`-m` (default `{', '.join(REPORT_MEASURES)}`)" in text
    assert f'`engine="{ENGINE}"`' in text


def test_evaluate_without_measures_computes_the_defaults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = make_random_table(5, queries=12, int_labels=True)
    source, out = tmp_path / "runs.parquet", tmp_path / "per_query.parquet"
    table.write_parquet(source)
    assert cli.main(["evaluate", str(source), "-o", str(out)]) == 0
    capsys.readouterr()
    written = pl.read_parquet(out)
    assert written.columns == ["query", *ORACLE]
    expected = load(table)
    assert written.height == len(expected)
    for row in written.iter_rows(named=True):
        q = expected[(row["query"],)]
        for name, reference in ORACLE.items():
            assert row[name] == pytest.approx(reference(q), abs=1e-9), (name, row["query"])
