"""The ``polars-graded`` command line: evaluate, demo, --version, and its errors."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import polars_graded as pg
from polars_graded import cli

MEASURES = ["mu_ap", "ndcg@3", "ap(rel=2)"]


@pytest.fixture
def table() -> pl.DataFrame:
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


@pytest.fixture
def parquet(table: pl.DataFrame, tmp_path: Path) -> Path:
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


# --------------------------------------------------------------------------- evaluate


def test_evaluate_parquet_prints_the_summary(
    parquet: Path, table: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        [
            "evaluate",
            str(parquet),
            "-m",
            "mu_ap",
            "-m",
            "ndcg@3",
            "-m",
            "ap(rel=2)",
            "--by",
            "system",
        ],
        capsys,
    )
    assert (code, err) == (0, "")
    printed = parse_printed(out)
    assert printed[0] == ["system", "num_q", *MEASURES]
    assert printed[1:] == expected_rows(table.graded.summary(MEASURES, by="system"))


def test_geometric_mean_summary(
    parquet: Path, table: pl.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["evaluate", str(parquet), "-m", "ap", "-m", "bpref", "--by", "system"]
    code, out, _ = run([*argv, "--mean", "geometric"], capsys)
    assert code == 0
    printed = parse_printed(out)
    assert printed[0] == ["system", "num_q", "gm_ap", "gm_bpref"]
    summary = table.graded.summary(["ap", "bpref"], by="system", mean="geometric")
    assert printed[1:] == expected_rows(summary)
    assert run([*argv, "--mean", "harmonic"], capsys)[0] == 2


def test_glob_patterns_read_several_files(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for system in ("a", "b"):
        table.filter(pl.col("system") == system).write_parquet(tmp_path / f"{system}.parquet")
    code, out, _ = run(
        ["evaluate", str(tmp_path / "*.parquet"), "-m", "mu_ap", "--by", "system"], capsys
    )
    assert code == 0
    assert parse_printed(out)[1:] == expected_rows(table.graded.summary("mu_ap", by="system"))
    result = run(["evaluate", str(tmp_path / "*.csv")], capsys)
    assert_one_line_error(*result, "no file matches")


def test_measures_may_be_comma_separated(parquet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repeated = run(
        ["evaluate", str(parquet), "-m", "mu_ap", "-m", "ndcg@3", "--by", "system"], capsys
    )
    joined = run(["evaluate", str(parquet), "-m", "mu_ap, ndcg@3", "--by", "system"], capsys)
    assert repeated == joined
    assert repeated[0] == 0


def test_commas_inside_parameters_stay_in_the_measure() -> None:
    assert cli.split_measures(["mu_ap(levels=[1,2,3]),ndcg(gain={1:3,2:9})@5", "rr"]) == [
        "mu_ap(levels=[1,2,3])",
        "ndcg(gain={1:3,2:9})@5",
        "rr",
    ]


def test_default_measures_and_no_by_give_one_row(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "one.parquet"
    table.filter(pl.col("system") == "a").drop("system").write_parquet(path)
    code, out, _ = run(["evaluate", str(path)], capsys)
    assert code == 0
    printed = parse_printed(out)
    assert printed[0] == ["num_q", *cli.DEFAULT_MEASURES]
    assert len(printed) == 2
    assert printed[1][0] == "3"


def test_csv_gives_the_same_summary_as_parquet(
    parquet: Path, table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv = tmp_path / "runs.csv"
    table.write_csv(csv)
    args = ["-m", "mu_ap,ndcg@3", "--by", "system"]
    assert run(["evaluate", str(csv), *args], capsys) == run(
        ["evaluate", str(parquet), *args], capsys
    )


def test_column_names_and_several_by_columns(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    renamed = table.rename({"query": "qid", "item": "doc", "score": "s", "relevance": "label"})
    renamed = renamed.with_columns(split=pl.lit("test"))
    path = tmp_path / "renamed.parquet"
    renamed.write_parquet(path)
    code, out, _ = run(
        [
            "evaluate", str(path), "-m", "mu_ap",
            "--query", "qid", "--item", "doc", "--score", "s", "--relevance", "label",
            "--by", "split", "--by", "system",
        ],
        capsys,
    )  # fmt: skip
    assert code == 0
    printed = parse_printed(out)
    assert printed[0] == ["split", "system", "num_q", "mu_ap"]
    expected = table.graded.summary("mu_ap", by="system")
    assert [row[1:] for row in printed[1:]] == expected_rows(expected)


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_output_writes_the_per_query_table(
    suffix: str,
    parquet: Path,
    table: pl.DataFrame,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    output = tmp_path / f"per_query{suffix}"
    code, _, _ = run(
        ["evaluate", str(parquet), "-m", ",".join(MEASURES), "--by", "system", "-o", str(output)],
        capsys,
    )
    assert code == 0
    written = pl.read_parquet(output) if suffix == ".parquet" else pl.read_csv(output)
    expected = table.graded.evaluate(MEASURES, by="system")
    assert written.columns == expected.columns
    assert written.height == expected.height == 6
    for name in MEASURES:
        assert written[name].to_list() == pytest.approx(expected[name].to_list())


def test_printed_summary_is_the_library_summary(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one_system = table.filter(pl.col("system") == "a")
    for frame, by in ((table, ["system"]), (one_system, [])):
        path = tmp_path / f"table{len(by)}.parquet"
        frame.write_parquet(path)
        by_args = [arg for column in by for arg in ("--by", column)]
        code, out, _ = run(["evaluate", str(path), "-m", ",".join(MEASURES), *by_args], capsys)
        assert code == 0
        printed = parse_printed(out)
        library = frame.graded.summary(MEASURES, by=by or None)
        assert printed[0] == [*by, "num_q", *MEASURES]
        assert printed[1:] == expected_rows(library)


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


@pytest.mark.parametrize("queries", ["qrels", "both", "all"])
def test_evaluate_trec_run_and_qrels(
    queries: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_file, qrels = trec_files(tmp_path)
    code, out, err = run(
        ["evaluate", "--run", str(run_file), "--qrels", str(qrels), "-m", "ap,ndcg@3",
         "--queries", queries],
        capsys,
    )  # fmt: skip
    assert (code, err) == (0, "")
    joined = pg.join_run_qrels(
        pg.read_trec_run(run_file), pg.read_trec_qrels(qrels), queries=queries
    )
    expected = joined.graded.summary(["ap", "ndcg@3"])
    assert parse_printed(out) == [["num_q", "ap", "ndcg@3"], *expected_rows(expected)]
    assert expected[cli.COUNT].item() == {"qrels": 3, "both": 2, "all": 4}[queries]


def test_evaluate_trec_by_tag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_file, qrels = trec_files(tmp_path)
    code, out, _ = run(
        ["evaluate", "--run", str(run_file), "--qrels", str(qrels), "-m", "ap", "--by", "tag"],
        capsys,
    )
    assert code == 0
    assert parse_printed(out)[0] == ["tag", "num_q", "ap"]
    assert parse_printed(out)[1][0] == "sysA"


# --------------------------------------------------------------------------- errors


def assert_one_line_error(code: int, out: str, err: str, *fragments: str) -> None:
    assert code == 2
    assert out == ""
    assert err.startswith("polars-graded: error: ")
    assert err.count("\n") == 1
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err


def test_missing_table_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.parquet"
    assert_one_line_error(*run(["evaluate", str(missing)], capsys), "no such file", "nope.parquet")


def test_missing_trec_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_file, _ = trec_files(tmp_path)
    result = run(["evaluate", "--run", str(run_file), "--qrels", str(tmp_path / "q.txt")], capsys)
    assert_one_line_error(*result, "no such file", "q.txt")


def test_unknown_measure(parquet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = run(["evaluate", str(parquet), "-m", "mu_ap,bogus@10"], capsys)
    assert_one_line_error(*result, "bogus", "mu_ap")


def test_bad_measure_parameter(parquet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert_one_line_error(*run(["evaluate", str(parquet), "-m", "ap(x=1)"], capsys), "ap")


def test_duplicate_keys_without_by(parquet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # two systems share (query, item) keys: without --by system they collide
    assert_one_line_error(*run(["evaluate", str(parquet), "-m", "ap"], capsys), "unique")


def test_missing_column(parquet: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = run(["evaluate", str(parquet), "--score", "points", "--by", "system"], capsys)
    assert_one_line_error(*result, "points")


def test_non_numeric_column(
    table: pl.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "text.csv"
    table.with_columns(pl.col("score").cast(pl.String) + "x").write_csv(path)
    result = run(["evaluate", str(path), "--by", "system"], capsys)
    assert_one_line_error(*result, "score")


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["evaluate", "table.xlsx"], "expected a table"),
        (["evaluate"], "TABLE"),
        (["evaluate", "t.parquet", "--run", "r.txt", "--qrels", "q.txt"], "not both"),
        (["evaluate", "--run", "r.txt"], "--qrels"),
    ],
)
def test_bad_inputs(argv: list[str], fragment: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert_one_line_error(*run(argv, capsys), fragment)


def test_bad_output_extension_fails_before_work(
    parquet: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = tmp_path / "out.json"
    result = run(["evaluate", str(parquet), "--by", "system", "-o", str(output)], capsys)
    assert_one_line_error(*result, "out.json")
    assert not output.exists()


def test_column_options_with_trec_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_file, qrels = trec_files(tmp_path)
    result = run(
        ["evaluate", "--run", str(run_file), "--qrels", str(qrels), "--score", "s"], capsys
    )
    assert_one_line_error(*result, "TABLE")


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 2
    assert cli.main(["frobnicate"]) == 2
    assert cli.main(["demo", "--runs", "0"]) == 2
    assert "usage" in capsys.readouterr().err


# --------------------------------------------------------------------------- version, demo


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--version"], capsys)
    assert code == 0
    assert out.strip() == f"polars-graded {pg.__version__}"


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["evaluate", "--help"], capsys)
    assert code == 0
    assert "--measure" in out


def test_demo_prints_the_three_tables(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["demo", "--runs", "3", "--seed", "1"], capsys)
    assert (code, err) == (0, "")
    for label in cli.DEMO_MEASURES.values():
        assert f"\n{label}\n" in out
    header = ["k", "L=2", "L=10", "L=20", "L=50"]
    assert sum(line.split() == header for line in out.splitlines()) == 3
    for k in (0, 1, 5, 10, 25, 50, 99):
        assert any(line.split()[:1] == [str(k)] for line in out.splitlines())
    assert "1.0000  1.0000  1.0000  1.0000" in out
    assert "At k = 99" in out


def test_demo_is_deterministic_and_accepts_the_random_distribution(
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = run(["demo", "--runs", "2", "--seed", "4", "--distribution", "random"], capsys)
    again = run(["demo", "--runs", "2", "--seed", "4", "--distribution", "random"], capsys)
    assert first == again
    assert first[0] == 0


def test_demo_table_means_over_runs() -> None:
    table = cli.demo_table(runs=4, seed=3)
    assert table.columns == ["levels", "swaps", *cli.DEMO_MEASURES]
    assert table.height == 4 * 7
    at_zero = table.filter(pl.col("swaps") == 0)
    for name in cli.DEMO_MEASURES:
        assert at_zero[name].to_list() == pytest.approx([1.0] * 4)
    # NDCNG equals NDCG with exponential gain on 0/1 labels (L = 2)
    two = table.filter(pl.col("levels") == 2)
    assert two["mean_ndcng"].to_list() == pytest.approx(two["mean_ndcg"].to_list())


def test_demo_explanation_only_claims_what_the_numbers_show() -> None:
    flat = pl.DataFrame(
        {
            "levels": [2, 50, 2, 50],
            "swaps": [0, 0, 99, 99],
            "mu_ap": [1.0, 1.0, 0.5, 0.6],
            "mean_ndcg": [1.0, 1.0, 0.5, 0.55],
            "mean_ndcng": [1.0, 1.0, 0.6, 0.5],
        }
    )
    text = cli.demo_explanation(flat)
    assert "not clearly apart" in text
    assert "much less" not in text
    apart = flat.with_columns(
        mean_ndcg=pl.Series([1.0, 1.0, 0.7, 0.3]), mu_ap=pl.Series([1.0, 1.0, 0.5, 0.52])
    ).with_columns(mean_ndcng=pl.Series([1.0, 1.0, 0.6, 0.62]))
    text = cli.demo_explanation(apart)
    assert "much less" in text
    assert "lower the more levels" in text
    assert "every measure is 1" in text


def test_format_table_shows_every_row_and_column() -> None:
    wide = pl.DataFrame({f"measure_{i}": [i / 3] * 40 for i in range(12)}).with_row_index("q")
    text = cli.format_table(wide)
    lines = text.splitlines()
    assert len(lines) == 42
    assert lines[0].split() == wide.columns
    assert lines[-1].split()[:3] == ["39", "0.0000", "0.3333"]
    assert "…" not in text
    assert cli.format_table(pl.DataFrame({"x": [None, 1.5]})).splitlines()[2:] == [
        "     -",
        "1.5000",
    ]


# --------------------------------------------------------------------------- installed script


def test_installed_script(parquet: Path, table: pl.DataFrame) -> None:
    script = shutil.which("polars-graded") or str(Path(sys.executable).parent / "polars-graded")
    if not Path(script).exists():
        pytest.skip("the polars-graded script is not installed")
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
