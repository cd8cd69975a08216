"""A table, TREC files and checks shared by the command line's tests (``tests/test_cli*.py``).

The fixtures ``table`` and ``parquet`` are defined here once; a test module takes them with
``from support.cli import parquet_fixture, table_fixture  # noqa: F401`` (pytest finds a
fixture by its ``name=``, so the imported function name does not shadow the argument).
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from polars_graded import cli

MEASURES = ["mu_ap", "ndcg@3", "ap(rel=2)"]


def two_systems_table() -> pl.DataFrame:
    """Two systems, three queries; one judged row unretrieved, one retrieved row unjudged."""
    rows = []
    for system, shift in (("a", 0.0), ("b", 0.5)):
        for query in (1, 2, 3):
            for item, (score, relevance) in enumerate(
                [(5.0, 2), (4.0, 0), (3.0 + shift * query, 3), (2.0, 1), (None, 1), (1.0, None)]
            ):
                rows.append((system, query, f"d{item}", score, relevance))
    return pl.DataFrame(
        rows,
        schema={
            "system": pl.String,
            "query": pl.Int64,
            "item": pl.String,
            "score": pl.Float64,
            "relevance": pl.Int64,
        },
        orient="row",
    )


@pytest.fixture(name="table")
def table_fixture() -> pl.DataFrame:
    """:func:`two_systems_table`."""
    return two_systems_table()


@pytest.fixture(name="parquet")
def parquet_fixture(table: pl.DataFrame, tmp_path: Path) -> Path:
    """The module's ``table`` fixture as ``runs.parquet`` in ``tmp_path``."""
    path = tmp_path / "runs.parquet"
    table.write_parquet(path)
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def parse_printed(out: str) -> list[list[str]]:
    """The printed summary table as rows of cells (header first, rule dropped)."""
    lines = [line.split() for line in out.strip().splitlines()]
    assert set("".join(lines[1])) == {"-"}
    return [lines[0], *lines[2:]]


def expected_rows(summary: pl.DataFrame) -> list[list[str]]:
    return [
        [f"{v:.4f}" if isinstance(v, float) else str(v) for v in row] for row in summary.iter_rows()
    ]


def trec_files(tmp_path: Path) -> tuple[Path, Path]:
    run_file = tmp_path / "run.txt"
    run_file.write_text(
        "1 Q0 d1 1 3.0 sysA\n"
        "1 Q0 d2 2 2.0 sysA\n"
        "1 Q0 d3 3 1.0 sysA\n"
        "2 Q0 d4 1 2.0 sysA\n"
        "2 Q0 d5 2 1.0 sysA\n"
        "9 Q0 d9 1 1.0 sysA\n"
    )
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 0\n1 0 d2 2\n1 0 d3 1\n1 0 d7 1\n2 0 d5 1\n3 0 d8 1\n")
    return run_file, qrels


def assert_one_line_error(code: int, out: str, err: str, *fragments: str) -> None:
    assert code == 2
    assert out == ""
    assert err.startswith("polars-graded: error: ")
    assert err.count("\n") == 1
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err


def refuse_work(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    """Make ``module.name`` fail loudly and count its calls: the output checks must come
    before the work."""
    calls: list[int] = []

    def work(*args: object, **kwargs: object) -> None:
        calls.append(1)
        msg = f"{name} started before the output was checked"
        raise RuntimeError(msg)

    monkeypatch.setattr(module, name, work)
    return calls
