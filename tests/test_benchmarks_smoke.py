"""The benchmark harness runs end to end on a tiny log (no timing assertions)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def test_generate_run_and_report(tmp_path: Path) -> None:
    """Generator, one polars_graded contender and the floors; JSON and Markdown written."""
    command = [
        sys.executable, str(BENCHMARKS / "run.py"), "--sizes", "3k", "--repeat", "1",
        "--only", "pg_lazy,floor_*", "--variants", "ranked", "--no-warmup", "--busy-retries", "0",
        "--out", str(tmp_path / "results"), "--data-dir", str(tmp_path / "data"),
    ]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True, timeout=300)

    data = pl.read_parquet(next((tmp_path / "data").glob("graded-str-shuffled-3000-*.parquet")))
    assert data.columns == ["query", "item", "score", "relevance"]
    assert data.height == 3000
    assert data["relevance"].is_between(0, 4).all()
    (result_file,) = (tmp_path / "results").glob("*-3k.json")
    result = json.loads(result_file.read_text())
    assert {"date", "size", "rows_total", "repeat", "machine", "versions", "rows"} <= set(result)
    assert {"cpu_count", "cpu_model", "memory_gib"} <= set(result["machine"])
    rows = {(r["variant"], r["contender"]): r for r in result["rows"]}
    assert set(rows) == {
        (variant, name)
        for variant in ("main", "ranked")
        for name in ("pg_lazy", "floor_sort_mem", "floor_sort_stream", "floor_topk_mem",
                     "floor_topk_stream", "floor_rank_eager", "floor_rank_stream")
    }  # fmt: skip
    lazy = rows["main", "pg_lazy"]
    assert lazy["status"] == "ok"
    assert {"seconds", "seconds_all", "phases", "peak_rss_mib", "ratio_floor", "floor"} <= set(lazy)
    assert {"ranking_floor", "ratio_ranking_floor"} <= set(lazy)
    assert lazy["floor"].startswith(("floor_sort_", "floor_topk_"))
    assert lazy["ranking_floor"].startswith("floor_rank_")
    ranking = rows["main", "floor_rank_eager"]
    assert set(ranking["phases"]) == {"read", "evaluate"}  # like pg_eager's
    assert ranking["n_queries"] == lazy["n_queries"]
    assert lazy["peak_rss_mib"] > 0
    assert lazy["n_queries"] == data["query"].n_unique()
    latest = (tmp_path / "results" / "latest.md").read_text()
    assert "| main | pg_lazy |" in latest
    assert "/ ranking floor" in latest
    assert "**ranking floor**" in latest


def test_generator_is_deterministic(tmp_path: Path) -> None:
    """The same parameters give the same rows; the ranked variant is in ranked order."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from generate import LogSpec, generate
    finally:
        sys.path.remove(str(BENCHMARKS))
    spec = LogSpec(2500, labels="continuous", order="ranked", ids="int")
    first = pl.read_parquet(generate(spec, tmp_path / "a.parquet"))
    second = pl.read_parquet(generate(spec, tmp_path / "b.parquet"))
    assert first.equals(second)
    assert first["query"].dtype == pl.Int64
    ranked = first.sort(["query", "score", "item"], descending=[False, True, True])
    assert first.equals(ranked)
    per_query = first.group_by("query").agg(pl.col("relevance").n_unique() / pl.len())
    median = per_query["relevance"].median()
    assert isinstance(median, float) and median > 0.9  # about as many labels as rows


def test_directory_variant_holds_the_same_rows_with_queries_across_files(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from generate import LogSpec, ensure
    finally:
        sys.path.remove(str(BENCHMARKS))
    one = pl.read_parquet(ensure(LogSpec(2500), tmp_path))
    folder = ensure(LogSpec(2500, files=4), tmp_path)
    parts = sorted(folder.glob("part-*.parquet"))
    assert len(parts) == 4
    spread = pl.concat(pl.read_parquet(p).with_columns(file=pl.lit(p.name)) for p in parts)
    keys = ["query", "item"]
    assert spread.drop("file").sort(keys).equals(one.sort(keys))
    files_per_query = spread.group_by("query").agg(pl.col("file").n_unique())["file"]
    assert files_per_query.min() == 4  # shuffled rows: every query is in every file


def test_label_scales_prints_both_scales_and_their_ratio() -> None:
    command = [
        sys.executable, str(BENCHMARKS / "label_scales.py"), "--shapes", "2x300,1x500",
    ]  # fmt: skip
    done = subprocess.run(command, check=True, capture_output=True, text=True, timeout=300)
    rows = [line.split("|") for line in done.stdout.splitlines() if line.startswith("| 2 x ")]
    assert [row[3].strip() for row in rows] == ["graded", "continuous"]
    assert all(0.0 <= float(row[6]) <= 1.0 for row in rows)  # a mean µAP, not an error
    ratios = done.stdout.splitlines()[-1]
    assert ratios.startswith("continuous / graded: 2x300: time x")
    assert "; 1x500: time x" in ratios


def test_report_scale_runs_and_writes_its_table(tmp_path: Path) -> None:
    """benchmarks/report_scale.py on a tiny log: the log is deterministic, the table written."""
    out = tmp_path / "report_scale.md"
    command = [
        sys.executable, str(BENCHMARKS / "report_scale.py"), "--sizes", "200", "--trials", "20",
        "--bootstrap", "20", "--measures", "ap", "--out", str(out),
        "--data-dir", str(tmp_path / "data"),
    ]  # fmt: skip
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    (log,) = (tmp_path / "data").glob("report-log-200-*.parquet")
    data = pl.read_parquet(log)
    assert data.height == 200 * 3 * 10
    assert data["system"].unique().sort().to_list() == ["bm25", "dense", "hybrid"]
    assert data.group_by("query").agg(pl.col("weight").n_unique())["weight"].max() == 1
    rows = [line for line in out.read_text().splitlines() if line.startswith("| 200 |")]
    assert len(rows) == 1 and rows[0].split(" | ")[1] == "6,000"
