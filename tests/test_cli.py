"""The ``polars-graded`` command itself (polars_graded/cli/__init__.py): ``main`` and
``build_parser``, --version and --help, usage errors and failures as one line on stderr,
and the installed script.

Each subcommand has its own file: test_cli_evaluate, test_cli_report, test_cli_demo; the
input they share is test_cli_inputs', the option values test_cli_values', the text tables
test_cli_table's.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from support.cli import (
    assert_one_line_error,
    expected_rows,
    parquet_fixture,  # noqa: F401 (the fixture ``parquet``)
    parse_printed,
    run,
    table_fixture,  # noqa: F401 (the fixture ``table``)
    trec_files,
)
from support.environment import in_ci

import polars_graded as pg
from polars_graded import cli


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--version"], capsys)
    assert code == 0
    assert out.strip() == f"polars-graded {pg.__version__}"


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["evaluate", "--help"], capsys)
    assert code == 0
    assert "--measure" in out


@pytest.mark.parametrize(
    ("argv", "words", "help_of"),
    [
        ([], "required: COMMAND", "polars-graded"),
        (["frobnicate"], "invalid choice: 'frobnicate'", "polars-graded"),
        (["demo", "--runs", "0"], "--runs: must be at least 1", "polars-graded demo"),
        (["evaluate", "--ties", "random", "t.parquet"], "--ties", "polars-graded evaluate"),
        (["report", "--trials", "x"], "--trials", "polars-graded report"),
    ],
)
def test_usage_errors_are_one_line(
    argv: list[str], words: str, help_of: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Were argparse's usage block and a 'polars-graded evaluate: error:' prefix.
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("polars-graded: error: ")
    assert words in err
    assert err.rstrip().endswith(f"see {help_of} --help")


def test_known_input_failures_are_one_line_and_bugs_keep_their_traceback(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_file, qrels = trec_files(tmp_path)
    argv = ["evaluate", "--run", str(run_file), "--qrels", str(qrels)]

    def failing(error: Exception) -> Callable[..., str]:
        def read_text(path: object, *_: object) -> str:
            raise error

        return read_text

    # what Python's gzip and zlib raise on a damaged stream, if one ever gets past the reader
    eof = EOFError("Compressed file ended before the end-of-stream marker was reached")
    monkeypatch.setattr(pg.io.trec_text, "_text_batches", failing(eof))
    assert_one_line_error(*run(argv, capsys), "truncated or corrupt", "end-of-stream")
    monkeypatch.setattr(pg.io.trec_text, "_text_batches", failing(zlib.error("Error -3")))
    assert_one_line_error(*run(argv, capsys), "truncated or corrupt", "Error -3")
    monkeypatch.setattr(pg.io.trec_text, "_text_batches", failing(RuntimeError("a bug")))
    with pytest.raises(RuntimeError, match="a bug"):
        cli.main(argv)


# --------------------------------------------------------------------------- installed script


def test_installed_script(parquet: Path, table: pl.DataFrame) -> None:
    script = shutil.which("polars-graded") or str(Path(sys.executable).parent / "polars-graded")
    if not Path(script).exists():
        msg = "the polars-graded script is not installed"
        if in_ci():
            pytest.fail(f"{msg} (CI=true: `pip install -e .` installs it)")
        pytest.skip(msg)
    done = subprocess.run(
        [script, "evaluate", str(parquet), "-m", "mu_ap", "--by", "system"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    expected = expected_rows(table.graded.summary("mu_ap", by="system"))
    assert parse_printed(done.stdout) == [["system", "num_q", "mu_ap"], *expected]
    failed = subprocess.run(
        [script, "evaluate", str(parquet.with_name("missing.csv"))],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert failed.returncode == 2
    assert failed.stderr.startswith("polars-graded: error: ")
    assert "Traceback" not in failed.stderr
