"""Option values read and checked before any work (polars_graded/cli/values.py): measures
separated by commas, and output folders that cannot be written."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.cli import (
    assert_one_line_error,
    parquet_fixture,  # noqa: F401 (the fixture ``parquet``)
    refuse_work,
    run,
    table_fixture,  # noqa: F401 (the fixture ``table``, which ``parquet`` takes)
)

from polars_graded import plan
from polars_graded.cli import values

# --------------------------------------------------------------------------- measures


def test_commas_inside_parameters_stay_in_the_measure() -> None:
    assert values.split_measures(["mu_ap(levels=[1,2,3]),ndcg(gain={1:3,2:9})@5", "rr"]) == [
        "mu_ap(levels=[1,2,3])",
        "ndcg(gain={1:3,2:9})@5",
        "rr",
    ]


def test_measures_may_be_comma_separated(parquet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repeated = run(
        ["evaluate", str(parquet), "-m", "mu_ap", "-m", "ndcg@3", "--by", "system"], capsys
    )
    joined = run(["evaluate", str(parquet), "-m", "mu_ap, ndcg@3", "--by", "system"], capsys)
    assert repeated == joined
    assert repeated[0] == 0


# --------------------------------------------------------------------------- output folders


def test_unwritable_output_is_found_before_the_evaluation(
    parquet: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    calls = refuse_work(monkeypatch, plan, "per_query")
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    # root may write anywhere, so the lock is simulated where the check asks
    monkeypatch.setattr(
        os, "access", lambda path, mode: Path(path) != locked and real_access(path, mode)
    )
    output = locked / "out.parquet"
    result = run(["evaluate", str(parquet), "--by", "system", "-o", str(output)], capsys)
    assert_one_line_error(*result, "permission denied", "locked")
    out = locked / "report"
    result = run(["report", str(parquet), "--out", str(out), "--trials", "10"], capsys)
    assert_one_line_error(*result, "permission denied", "locked")
    assert calls == []
