"""Hostile input on the analysis surfaces (issue 26, items 9-11): ``gate``, ``report``'s
seeds, resamples, systems and segment tables, and the Python entry points given a table
that is not a Polars frame.

The contract: bad input is one line ``polars-graded: error: ...`` and exit 2 (a library
error from Python), found before the work where it can be; nothing is silently wrong (a
segment table that matches no query), nothing leaks a raw Python or Polars error, and the
gate's ``--json`` is strict JSON.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import matplotlib  # noqa: F401 (``report`` needs its extras, test dependencies: no skip)
import numpy as np
import polars as pl
import pytest
from support.cli import assert_one_line_error, refuse_work, run
from support.gate import BASE, ranked_table

import polars_graded as pg
from polars_graded.cli import gate as cli_gate
from polars_graded.cli import report as cli_report

FAST = ["--trials", "9", "--bootstrap", "9"]
HUGE = "100000000000"
SAME_OR_BETTER = [1, 1, 1, 2, 1, 1, 1, 1]


@pytest.fixture(name="runs")
def runs_fixture(tmp_path: Path) -> Path:
    path = tmp_path / "runs.parquet"
    ranked_table({"prod": BASE, "new": SAME_OR_BETTER}).write_parquet(path)
    return path


def gate_argv(
    table: Path, *extra: str, baseline: str = "prod", candidate: str = "new"
) -> list[str]:
    base = ["gate", str(table), "--baseline", baseline, "--candidate", candidate, "-m", "ap"]
    return [*base, "--bootstrap", "50", *extra]


def report_argv(table: Path, out: Path, *extra: str) -> list[str]:
    return ["report", str(table), "--out", str(out), "-m", "ap", *FAST, *extra]


# --------------------------------------------------------------------------- item 9


@pytest.mark.parametrize("command", ["gate", "report"])
def test_a_negative_seed_is_a_usage_error(
    command: str, runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = ["--seed", "-1"]
    if command == "gate":
        argv = gate_argv(runs, "--max-drop", "0.01", *extra)
    else:
        argv = report_argv(runs, tmp_path / "out", *extra)
    assert_one_line_error(*run(argv, capsys), "--seed", "integer >= 0", "-1")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "argv_of",
    [
        lambda runs, out: gate_argv(runs, "--max-drop", "0.01", "--bootstrap", HUGE),
        lambda runs, out: gate_argv(runs, "--max-drop", "0.01", "--trials", HUGE),
        lambda runs, out: report_argv(runs, out, "--bootstrap", HUGE),
        # --bootstrap too: before the fix, a report with only --trials ran for days.
        lambda runs, out: report_argv(runs, out, "--trials", HUGE, "--bootstrap", HUGE),
    ],
    ids=["gate-bootstrap", "gate-trials", "report-bootstrap", "report-trials"],
)
def test_resamples_beyond_memory_are_a_usage_error(
    argv_of: Callable[[Path, Path], list[str]],
    runs: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = argv_of(runs, tmp_path / "out")
    assert_one_line_error(*run(argv, capsys), "at most 10,000,000", "100,000,000,000")


def test_python_resampling_options_are_checked(runs: Path) -> None:
    table = pl.read_parquet(runs)
    options: dict[str, Any] = {"baseline": "prod", "candidate": "new", "max_drop": 0.01}
    with pytest.raises(pg.InvalidValueError, match=r"bootstrap must be at most 10,000,000"):
        pg.gate(table, ["ap"], **options, bootstrap=10**11)
    with pytest.raises(pg.InvalidValueError, match=r"seed must be an integer >= 0"):
        pg.gate(table, ["ap"], **options, seed=-1)
    per_query = pg.evaluate(table, ["ap"], by="system")
    for function in (pg.compare, pg.compare_pairs):
        with pytest.raises(pg.InvalidValueError, match=r"seed must be an integer >= 0"):
            function(per_query, seed=-1)
        with pytest.raises(pg.InvalidValueError, match=r"bootstrap must be at most"):
            function(per_query, bootstrap=10**11)
        # bootstrap= too: before the fix, trials=10**11 alone ran for days.
        with pytest.raises(pg.InvalidValueError, match=r"trials must be at most"):
            function(per_query, trials=10**11, bootstrap=10**11)


def test_bootstrap_memory_is_bounded_by_systems_times_measures() -> None:
    # 100 systems x 100 measures x 10,000,000 resamples would be 745 GiB of means.
    systems = [f"s{i}" for i in range(100)]
    per_query = pl.DataFrame(
        {
            "system": np.repeat(systems, 2),
            "query": [1, 2] * len(systems),
            **{f"m{j}": np.linspace(0, 1, 2 * len(systems)) for j in range(100)},
        }
    )
    with pytest.raises(pg.InvalidValueError, match=r"745\.1 GiB.*give bootstrap <= 6,710"):
        pg.compare(per_query, trials=9, bootstrap=10_000_000)


NOT_FRAMES: dict[str, Callable[[pl.DataFrame], object]] = {
    "pandas Series": lambda table: table.to_pandas()["query"],
    "pyarrow ChunkedArray": lambda table: table.to_arrow()["query"],
    "list": lambda table: table.rows(),
    "dict of dicts": lambda table: {"q1": {"a": 1.0}},
    "dict": lambda table: table.to_dict(as_series=False),
    "None": lambda table: None,
}
ENTRY_POINTS: dict[str, Callable[[Any], object]] = {
    "evaluate": partial(pg.evaluate, measures=["ap"]),
    "summary": partial(pg.summary, measures=["ap"]),
    "per_threshold": pg.per_threshold,
    "gate": partial(pg.gate, measures=["ap"], baseline="prod", candidate="new", max_drop=0.1),
    "compare": pg.compare,
    "compare_pairs": pg.compare_pairs,
    "compare_segments": partial(pg.compare_segments, segment="lang"),
    "judgment_bounds": pg.judgment_bounds,
    "order_flips": pg.order_flips,
    "rank_correlations": pg.rank_correlations,
    "discriminative_power": pg.discriminative_power,
    "to_latex": pg.to_latex,
    "means_latex": pg.means_latex,
    "build_report": pg.build_report,  # no folder: a refused table never writes files
}


@pytest.mark.parametrize("kind", NOT_FRAMES)
@pytest.mark.parametrize("function", ENTRY_POINTS)
def test_what_is_not_a_table_is_a_library_error(function: str, kind: str, runs: Path) -> None:
    given = NOT_FRAMES[kind](pl.read_parquet(runs))
    accepted = "takes a table: a Polars DataFrame or LazyFrame, a pandas DataFrame, a pyarrow"
    with pytest.raises(pg.ColumnTypeError, match=accepted) as info:
        ENTRY_POINTS[function](given)
    assert isinstance(info.value, TypeError)
    message = str(info.value)
    assert message.startswith(f"{function}() ")
    assert ("got None: " if kind == "None" else f"got a {kind}: ") in message
    assert ("pg.from_dicts" in message) != kind.startswith(("pandas", "pyarrow"))


# --------------------------------------------------------------------------- item 10


@pytest.fixture(name="text_runs")
def text_runs_fixture(tmp_path: Path) -> Path:
    """Two systems, queries '0' to '7' as text (as TREC runs and CSV tables have them)."""
    path = tmp_path / "runs.csv"
    ranked_table({"prod": BASE, "new": SAME_OR_BETTER}).write_csv(path)
    return path


NO_MATCH = {
    "trailing-space": ("".join(f"{q} ,en\n" for q in range(8)), "the table's '0 '"),
    "header-only": ("", "the table has no rows"),
}


@pytest.mark.parametrize("case", NO_MATCH)
def test_a_segment_table_that_matches_no_query_is_refused_before_the_work(
    case: str,
    text_runs: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows, fragment = NO_MATCH[case]
    segments = tmp_path / "topics.csv"
    segments.write_text("query,lang\n" + rows)
    calls = refuse_work(monkeypatch, cli_report, "build_report")
    argv = report_argv(text_runs, tmp_path / "out", "--segment-table", str(segments))
    fragments = [f"--segment-table {segments}", "matches none of the input's 8 queries", fragment]
    assert_one_line_error(*run(argv, capsys), *fragments)
    assert calls == []


def test_a_segment_table_missing_queries_warns_with_their_number(
    text_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    segments = tmp_path / "topics.csv"
    segments.write_text("query,lang\n" + "".join(f"{q},en\n" for q in range(5)))
    argv = report_argv(text_runs, tmp_path / "out", "--segment-table", str(segments))
    code, _, err = run(argv, capsys)
    assert code == 0
    assert err.splitlines() == [
        "polars-graded: warning: the segment table has no row for 3 of the input's 8 queries "
        "(e.g. query '5'): their segment is null, shown as (null)"
    ]


def test_segment_ids_that_cannot_be_cast_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs.parquet"
    table = ranked_table({"prod": BASE, "new": SAME_OR_BETTER})
    table.with_columns(pl.col("query").cast(pl.Int64)).write_parquet(runs)
    segments = tmp_path / "topics.csv"
    segments.write_text("query,lang\n0,en\n1 ,de\n")
    argv = report_argv(runs, tmp_path / "out", "--segment-table", str(segments))
    fragments = ["cannot be read as Int64", "column 'query'", "e.g. '1 '"]
    assert_one_line_error(*run(argv, capsys), *fragments)


def test_a_list_typed_segment_column_is_named(
    text_runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    segments = tmp_path / "topics.parquet"
    queries = [str(q) for q in range(8)]
    pl.DataFrame({"query": queries, "tags": [["en", "news"]] * 8}).write_parquet(segments)
    argv = report_argv(text_runs, tmp_path / "out", "--segment-table", str(segments))
    fragments = ["segment column 'tags' holds List(String) values", "['en', 'news']"]
    assert_one_line_error(*run(argv, capsys), *fragments)
    per_query = pl.DataFrame(
        {"system": ["a", "a", "b", "b"], "query": [1, 2, 1, 2], "ap": [0.1, 0.2, 0.3, 0.4]}
    )
    with pytest.raises(pg.ColumnTypeError, match="segment column 'tags' holds List"):
        pg.compare_segments(per_query.with_columns(tags=pl.lit([1])), segment="tags")


# --------------------------------------------------------------------------- item 11


@pytest.mark.parametrize(
    ("systems", "baseline", "candidate"),
    [
        (pl.Series([1, 2], dtype=pl.Int64), "1", "2"),
        (pl.Series([1.0, 2.5]), "1", "2.5"),
        (pl.Series([dt.date(2024, 1, 1), dt.date(2024, 2, 1)]), "2024-01-01", "2024-02-01"),
        (pl.Series([True, False]), "true", "false"),
    ],
    ids=["int", "float", "date", "bool"],
)
def test_gate_parses_systems_to_the_column_type(
    systems: pl.Series,
    baseline: str,
    candidate: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = ranked_table({"prod": BASE, "new": SAME_OR_BETTER})
    mapping = dict(zip(["prod", "new"], systems.to_list(), strict=True))
    typed = table.with_columns(pl.col("system").replace_strict(mapping, return_dtype=systems.dtype))
    path = tmp_path / "typed.parquet"
    typed.write_parquet(path)
    argv = gate_argv(path, "--max-drop", "0.01", baseline=baseline, candidate=candidate)
    code, out, err = run(argv, capsys)
    assert (code, err) == (0, "")
    assert out.splitlines()[-1].startswith(f"verdict: pass: {candidate} loses less than 0.01")


def test_gate_says_when_a_system_cannot_be_of_the_column_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = ranked_table({"1": BASE, "2": SAME_OR_BETTER})
    path = tmp_path / "int.parquet"
    table.with_columns(pl.col("system").cast(pl.Int64)).write_parquet(path)
    argv = gate_argv(path, "--max-drop", "0.01", baseline="one", candidate="2")
    fragments = ["--baseline 'one' cannot be a system of column 'system'", "Int64", "[1, 2]"]
    assert_one_line_error(*run(argv, capsys), *fragments)
    argv = gate_argv(path, "--max-drop", "0.01", baseline="1", candidate="3")
    assert_one_line_error(*run(argv, capsys), "--candidate '3' is not a system", "[1, 2]")


def test_report_baseline_is_parsed_and_checked_before_the_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = ranked_table({"1": BASE, "2.5": SAME_OR_BETTER})
    path = tmp_path / "float.parquet"
    table.with_columns(pl.col("system").cast(pl.Float64)).write_parquet(path)
    seen: list[object] = []

    def build_report(*args: object, baseline: object, **kwargs: object) -> list[Path]:
        seen.append(baseline)
        return []

    monkeypatch.setattr(cli_report, "build_report", build_report)
    assert run(report_argv(path, tmp_path / "out", "--baseline", "1"), capsys)[0] == 0
    assert seen == ["1.0"]  # the report names systems as text, as Polars writes them
    argv = report_argv(path, tmp_path / "out", "--baseline", "3")
    assert_one_line_error(*run(argv, capsys), "--baseline '3' is not a system", "[1.0, 2.5]")
    assert seen == ["1.0"]


@pytest.mark.parametrize("target", [".", "folder"])
def test_gate_json_into_a_folder_is_refused_before_the_work(
    target: str,
    runs: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "folder").mkdir()
    monkeypatch.chdir(tmp_path)
    calls = refuse_work(monkeypatch, cli_gate, "gate")
    argv = gate_argv(runs, "--max-drop", "0.01", "--json", target)
    assert_one_line_error(*run(argv, capsys), f"--json: '{target}' is a folder")
    assert calls == []


def _no_constant(name: str) -> float:
    msg = f"not strict JSON: {name}"
    raise ValueError(msg)


def test_gate_json_is_strict_with_a_huge_margin(
    runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "verdict.json"
    code, out, _ = run(gate_argv(runs, "--max-drop", "1e308", "--json", str(path)), capsys)
    verdict = json.loads(path.read_text(), parse_constant=_no_constant)
    assert code == 0
    assert "nan" not in out
    assert verdict["measures"][0]["p_value"] == 0.0
    assert verdict["passed"] is True


def test_strict_json_writes_null_for_undefined_numbers() -> None:
    value = {"p": float("nan"), "rows": [float("-inf"), 1.0], "n": 3}
    text = json.dumps(cli_gate.strict_json(value), allow_nan=False)
    assert json.loads(text, parse_constant=_no_constant) == {"p": None, "rows": [None, 1.0], "n": 3}


def test_gate_usage_shows_measures_required(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["gate", "--help"], capsys)
    usage = " ".join(out.split("\n\n")[0].split())
    assert code == 0
    assert " -m MEASURE " in usage
    assert "[-m MEASURE]" not in usage


def test_gate_names_a_missing_system_column(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [*gate_argv(runs, "--max-drop", "0.01"), "--by", "run"]
    assert_one_line_error(*run(argv, capsys), "the system column 'run' not found", "'system'")
