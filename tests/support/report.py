"""Tables and an HTML reader shared by the report's tests (``test_report*.py`` and
``test_cli_report.py``).

The synthetic tables are small enough to check by hand: systems a, b and c over the same
judgments, with (:func:`tied_synthetic_table`) or without ties, labels that ``:g`` prints
alike (:func:`close_labels_table`) and a label per row (:func:`continuous_table`), also as
TREC files (:func:`write_trec_runs`).
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import polars_graded as pg
from polars_graded.options import TiePolicy
from polars_graded.report import Report, compute_report, write_report
from polars_graded.stats.compare import compare

MEASURES = ["mu_ap", "ndcg@3", "p@2"]
TRIALS = 400
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# --------------------------------------------------------------------------- tables


def synthetic_table(queries: int = 14) -> pl.DataFrame:
    """Systems a, b, c over the same judgments: b ranks by relevance (better than a on
    every query with a relevant item), c is a copy of a. Query 0 has no relevant item;
    every query has an unjudged retrieved row and a judged row nobody retrieved."""
    rng = np.random.default_rng(7)
    rows: list[tuple[str, int, str, float | None, int | None]] = []
    for q in range(queries):
        labels = [0, 0, 0] if q == 0 else [int(v) for v in rng.integers(0, 3, 5)] + [2]
        noise = rng.permutation(len(labels)).tolist()
        for system in ("a", "b", "c"):
            for i, label in enumerate(labels):
                score = label + i / 10 if system == "b" else float(noise[i])
                rows.append((system, q, f"d{i}", score, label))
            rows.append((system, q, "unjudged", -1.0, None))
            rows.append((system, q, "missed", None, 1 if q else 0))
    schema = ["system", "query", "item", "score", "relevance"]
    return pl.DataFrame(rows, schema=schema, orient="row")


def tied_synthetic_table() -> pl.DataFrame:
    """The synthetic table with ties: a's unjudged row scores 2 + 1e-9 in every query with
    relevant items (equal to its row scored 2 as float32 only: a tie under
    ``compat="trec_eval_9"``; by default, which compares float64 as trec_eval 10.0, it ranks
    just above that row), c's scores are halved and floored (pairs tie, under both), b keeps
    distinct scores."""
    table = synthetic_table()
    a_unjudged = (pl.col("system") == "a") & (pl.col("item") == "unjudged") & (pl.col("query") > 0)
    score = (
        pl.when(a_unjudged)
        .then(2.0 + 1e-9)
        .when(pl.col("system") == "c")
        .then((pl.col("score") / 2).floor())
        .otherwise(pl.col("score"))
    )
    return table.with_columns(score=score)


def close_labels_table() -> pl.DataFrame:
    """Issue 14, item 9: labels 1.0, 1.000001 and 1.000002, which ``:g`` prints alike."""
    rows = [
        (system, q, f"d{i}", float(i if system == "a" else -i), label)
        for system in ("a", "b")
        for q in (1, 2)
        for i, label in enumerate([1.0, 1.000001, 1.000002, 0.0])
    ]
    return pl.DataFrame(
        rows, schema=["system", "query", "item", "score", "relevance"], orient="row"
    )


def continuous_table(depth: int = 300) -> pl.DataFrame:
    """Two systems, two queries, a distinct label per judged row (about 2 * depth thresholds)."""
    rng = np.random.default_rng(5)
    frames = []
    for q in range(2):
        labels = np.where(rng.random(depth) < 0.4, 0.0, np.round(rng.random(depth) * 4, 6))
        for s in ("a", "b"):
            score = np.round(labels * (s == "b") + rng.normal(size=depth), 1)
            frames.append(
                pl.DataFrame(
                    {"system": s, "query": q, "item": np.arange(depth), "score": score,
                     "relevance": labels}
                )
            )  # fmt: skip
    return pl.concat(frames)


def write_trec_runs(table: pl.DataFrame, folder: Path, layout: str) -> tuple[list[Path], Path]:
    """The table as TREC run files (``tags``: input.<tag> with distinct tags; ``folders``:
    <system>/run.txt all tagged ``rank``) and a qrels file."""
    runs = []
    for system in ("a", "b", "c"):
        rows = table.filter(pl.col("system") == system)
        if layout == "tags":
            path, tag = folder / f"input.{system}", f"sys_{system}"
        else:
            (folder / system).mkdir()
            path, tag = folder / system / "run.txt", "rank"
        pg.write_trec_run(rows.with_columns(pl.col("query").cast(pl.String)), path, tag=tag)
        runs.append(path)
    judged = table.filter(pl.col("system") == "a", pl.col("relevance").is_not_null())
    qrels = folder / "qrels.txt"
    lines = [f"{q} 0 {i} {r}" for q, i, r in judged.select("query", "item", "relevance").rows()]
    qrels.write_text("\n".join(lines) + "\n")
    return runs, qrels


def failing_markdown(report_: Report) -> str:
    """A ``to_markdown`` that fails: monkeypatched in, nothing may be written."""
    msg = "rendering failed"
    raise pg.InvalidValueError(msg)


# --------------------------------------------------------------------------- expectations


def expected_comparison(table: pl.DataFrame, baseline: str | None = None) -> pl.DataFrame:
    """compare() called directly with the report's parameters."""
    per_query = table.lazy().graded.evaluate(MEASURES, by="system").collect(engine="in-memory")
    return compare(per_query, MEASURES, baseline=baseline, trials=TRIALS, bootstrap=TRIALS, seed=3)


def direct_means(
    table: pl.DataFrame, ties: TiePolicy, measures: list[str] = MEASURES
) -> dict[tuple[str, str], float]:
    """``evaluate(..., by="system", ties=ties)``'s mean per (system, measure)."""
    per_query = table.graded.evaluate(measures, by="system", ties=ties)
    means = per_query.group_by("system").agg(pl.col(measures).mean())
    return {(r["system"], m): r[m] for r in means.to_dicts() for m in measures}


def sign_of(row: dict[str, Any]) -> str:
    """The marker a comparison row gets."""
    if not row["significant"]:
        return ""
    return "▲" if row["diff"] > 0 else "▼"


# --------------------------------------------------------------------------- HTML


Cells = tuple[dict[str, str], list[tuple[dict[str, str], str]]]
"""A table row of :class:`Page`: the ``tr``'s attributes, and each cell's and its text."""


class Page(HTMLParser):
    """Tables by id (rows of (tr attributes, [(cell attributes, text)])), images, links."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tables: dict[str, list[Cells]] = {}
        self.images: list[dict[str, str]] = []
        self.urls: list[str] = []
        self.tags: set[str] = set()
        self._table: str | None = None
        self._cell: tuple[dict[str, str], list[str]] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.tags.add(tag)
        self.urls += [a[k] for k in ("src", "href") if k in a]
        if tag == "img":
            self.images.append(a)
        elif tag == "table":
            self._table = a.get("id", "")
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self.tables[self._table].append((a, []))
        elif tag in ("td", "th") and self._table is not None:
            self._cell = (a, [])

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._table is not None:
            attrs, text = self._cell
            self.tables[self._table][-1][1].append((attrs, "".join(text).strip()))
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell[1].append(data)


def page_of(folder: Path) -> Page:
    return Page((folder / "report.html").read_text(encoding="utf-8"))


def body_rows(page: Page, table_id: str) -> list[Cells]:
    """The rows of a table that belong to a system, or of a section's table (``data-row``),
    header and group rows dropped."""
    return [
        (a, cells) for a, cells in page.tables[table_id] if {"data-system", "data-row"} & set(a)
    ]


# Module-scoped fixtures of the synthetic report (``table``, ``built``, ``folder``), shared by
# the report's test files: a file that imports the three ``*_fixture`` functions gets them.
@pytest.fixture(scope="module", name="table")
def table_fixture() -> pl.DataFrame:
    return synthetic_table()


@pytest.fixture(scope="module", name="built")
def built_fixture(table: pl.DataFrame) -> Report:
    """The report of the synthetic table."""
    return compute_report(
        table, MEASURES, trials=TRIALS, bootstrap=TRIALS, seed=3, differences="all"
    )


@pytest.fixture(scope="module", name="folder")
def folder_fixture(built: Report, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic report, written."""
    out = tmp_path_factory.mktemp("written")
    write_report(built, out)
    return out
