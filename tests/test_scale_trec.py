"""TREC runs larger than memory (polars_graded/scale/trec.py): converted to Parquet in batches,
joined and evaluated in partitions, they give the values of the files read whole, and
trec_eval 10.0's own."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from support.cli import assert_one_line_error, run
from support.trec_eval import PRINTED, TREC_EVAL_TEST, trec_eval_10

import polars_graded as pg
from polars_graded.io.trec import QueriesMode
from polars_graded.scale import trec as scale_trec

MEASURES = ["ap", "ndcg@10", "mu_ap", "rr", "p@5"]
# Two systems' runs over four queries: query 3's rows are far apart, ties, an unjudged row,
# query 5 judged but never retrieved, query 9 retrieved but never judged; tabs in one file.
RUN_A = (
    "1 Q0 a 1 3.0 bm25\n1 Q0 b 2 2.0 bm25\n3 Q0 c 1 2.0 bm25\n1 Q0 c 3 2.0 bm25\n"
    "2 Q0 a 1 1.5 bm25\n3 Q0 a 2 1.0 bm25\n9 Q0 z 1 1.0 bm25\n3 Q0 x 3 0.5 bm25\n"
)
RUN_B = "1\tQ0\tc\t1\t5\tsplade\n2\tQ0\tb\t1\t4\tsplade\n3\tQ0\ta\t1\t4\tsplade\n"
QRELS = "1 0 a 2\n1 0 c 1\n2 0 a 0\n2 0 b 3\n3 0 a 1\n3 0 c 2\n5 0 q 1\n"


def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    paths = tmp_path / "bm25.txt", tmp_path / "splade.txt.gz", tmp_path / "qrels.txt"
    paths[0].write_text(RUN_A)
    paths[1].write_bytes(gzip.compress(RUN_B.encode()))
    paths[2].write_text(QRELS)
    return paths


def read_whole(run: Path, qrels: Path, queries: QueriesMode) -> pl.DataFrame:
    return pg.join_run_qrels(pg.read_trec_run(run), pg.read_trec_qrels(qrels), queries=queries)


@pytest.mark.parametrize("queries", ["qrels", "both", "all"])
@pytest.mark.parametrize("split", [{"partitions": 1}, {"partitions": 3}, {"memory_budget": 2000}])
def test_one_run_equals_the_files_read_whole(
    tmp_path: Path, queries: QueriesMode, split: dict[str, int]
) -> None:
    run_file, _, qrels = files(tmp_path)
    got = pg.evaluate_trec(run_file, qrels, MEASURES, queries=queries, **split)  # type: ignore[arg-type]
    expected = read_whole(run_file, qrels, queries).graded.evaluate(MEASURES).sort("query")
    assert_frame_equal(got, expected, check_exact=True)
    by_tag = pg.evaluate_trec(run_file, qrels, ["ap"], queries=queries, by="tag", partitions=2)
    assert by_tag.columns == ["tag", "query", "ap"]
    assert by_tag.select("query", "ap").equals(got.select("query", "ap"))


def test_several_runs_are_systems_named_as_the_report_names_them(tmp_path: Path) -> None:
    run_a, run_b, qrels = files(tmp_path)
    expected = pg.report.trec_table([run_a, run_b], qrels).graded.evaluate(
        MEASURES, by="system", ties="average"
    )
    got = pg.evaluate_trec([run_a, run_b], qrels, MEASURES, partitions=2, ties="average")
    assert_frame_equal(got, expected.sort("system", "query"), check_exact=True)
    assert set(got["system"]) == {"bm25", "splade"}  # the run tags
    named = pg.evaluate_trec({"A": run_a, "B": run_b}, qrels, MEASURES, partitions=2)
    assert set(named["system"]) == {"A", "B"}
    with pytest.raises(pg.InvalidValueError, match="same name"):
        pg.evaluate_trec([run_a, run_a], qrels, ["ap"])
    with pytest.raises(pg.InvalidValueError, match=r"by=\['tag'\] is not available"):
        pg.evaluate_trec([run_a, run_b], qrels, ["ap"], by="tag")


def test_values_equal_trec_eval_10(shared_data: Callable[[str], Path]) -> None:
    """trec_eval's test run (tab-separated, blank-padded scores) in 3 partitions: its values
    per query are those trec_eval 10.0 printed (plain trec_eval: judged and retrieved
    queries)."""
    expected = trec_eval_10(
        shared_data,
        "out.test.aq",
        "qrels.test",
        "results.test",
        wanted=lambda name: name in {"map", "P_10", "ndcg", "recip_rank"},
    )
    folder = shared_data(TREC_EVAL_TEST)
    measures = sorted({name for _, name in expected})  # trec_eval's names in ours
    got = pg.evaluate_trec(
        folder / "results.test", folder / "qrels.test", measures, queries="both", partitions=3
    )
    ours = {(row["query"], m): row[m] for row in got.iter_rows(named=True) for m in got.columns[1:]}
    assert len(expected) == 4 * got.height == 4 * 3
    assert {k: ours[k] for k in expected} == pytest.approx(expected, abs=PRINTED)


def test_a_bad_line_is_the_error_of_reading_the_file(tmp_path: Path) -> None:
    run_file, _, qrels = files(tmp_path)
    run_file.write_text(RUN_A + "4 Q0 y 1 high bm25\n")
    with pytest.raises(pg.InvalidValueError) as whole:
        pg.read_trec_run(run_file)
    with pytest.raises(pg.InvalidValueError) as streamed:
        pg.evaluate_trec(run_file, qrels, ["ap"], partitions=2)
    assert str(streamed.value) == str(whole.value)
    assert "bm25.txt, line 9: the score (5th field) is not a number" in str(whole.value)


def test_options_are_checked_before_the_files_are_read(tmp_path: Path) -> None:
    run_file, _, qrels = files(tmp_path)
    with pytest.raises(pg.UnknownMeasureError):
        pg.evaluate_trec(tmp_path / "missing.txt", qrels, ["no_such_measure"])
    with pytest.raises(pg.InvalidValueError, match="score= names a column of a table"):
        pg.evaluate_trec(run_file, qrels, ["ap"], score="bm25")
    with pytest.raises(pg.SpillError, match="nowhere"):
        pg.evaluate_trec(run_file, qrels, ["ap"], spill_dir=tmp_path / "nowhere")
    with pytest.raises(pg.InputFileError, match="missing"):
        pg.evaluate_trec(tmp_path / "missing.txt", qrels, ["ap"])


def test_fits_in_memory_counts_gzip_as_its_text(tmp_path: Path) -> None:
    text = "1 Q0 d7 1 2.5 bm25\n" * 1000  # 19,000 bytes
    plain, packed = tmp_path / "run.txt", tmp_path / "run.gz"
    plain.write_text(text)
    packed.write_bytes(gzip.compress(text.encode()))
    per_byte = scale_trec.BYTES_PER_TEXT_BYTE
    assert scale_trec.fits_in_memory([plain], 19_000 * per_byte)
    assert not scale_trec.fits_in_memory([plain], 19_000 * per_byte - 1)
    counted = packed.stat().st_size * scale_trec.GZIP_EXPANSION * per_byte
    assert scale_trec.fits_in_memory([packed], counted)
    assert not scale_trec.fits_in_memory([packed], counted - 1)
    assert scale_trec.fits_in_memory([tmp_path / "missing.txt"], 1)


# --------------------------------------------------------------------------- command line


@pytest.mark.parametrize("extra", [["--partitions", "2"], ["--memory-budget", "1kB"]])
def test_the_command_streams_trec_files_to_the_same_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str]
) -> None:
    run_a, run_b, qrels = files(tmp_path)
    for runs in ([run_a], [run_a, run_b]):
        argv = ["evaluate", "--qrels", str(qrels), "-m", ",".join(MEASURES), "-q"]
        argv += [arg for path in runs for arg in ("--run", str(path))]
        whole = tmp_path / "whole.parquet"
        streamed = tmp_path / "streamed.parquet"
        code, out_whole, _ = run([*argv, "-o", str(whole)], capsys)
        assert code == 0
        code, out_streamed, _ = run([*argv, *extra, "-o", str(streamed)], capsys)
        assert code == 0
        assert out_streamed == out_whole
        assert_frame_equal(pl.read_parquet(streamed), pl.read_parquet(whole), check_exact=True)


def test_the_command_names_a_bad_line_of_a_streamed_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_file, _, qrels = files(tmp_path)
    run_file.write_text(RUN_A + "4 Q0 y 1\n")
    argv = ["evaluate", "--run", str(run_file), "--qrels", str(qrels), "--partitions", "2"]
    assert_one_line_error(*run(argv, capsys), "bm25.txt, line 9: expected 6 fields")
    table = tmp_path / "t.csv"
    table.write_text("query,item,score,relevance\n1,a,1.0,1\n")
    code, out, err = run(["evaluate", str(table), "--partitions", "2"], capsys)
    assert_one_line_error(code, out, err, "--partitions needs a Parquet TABLE", "TREC files")
