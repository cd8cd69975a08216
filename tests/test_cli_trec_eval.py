"""``polars-graded trec-eval`` (polars_graded/cli/trec_eval/): trec_eval 10.0's own test
commands print trec_eval's expected files line by line, and -J agrees with pytrec_eval.

The commands are those of the data folder's COMMANDS.md but the ``-R`` (preference files)
and ``-Z`` (z-scores) ones. A measure the command cannot compute yet is skipped with one
line on stderr; the lines left out of a comparison are exactly those of :data:`NOT_YET`,
so that this file shows what is missing.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
import pytrec_eval
from support.cli import run

import polars_graded as pg
from polars_graded.cli.trec_eval.measures import TABLE
from polars_graded.cli.trec_eval.output import summarize
from polars_graded.measures.registry import trec_eval_templates

COMMANDS = {
    "out.test": "qrels.test results.test",
    "out.test.a": "-m all_trec qrels.test results.test",
    "out.test.aq": "-m all_trec -q qrels.test results.test",
    "out.test.aqc": "-m all_trec -q -c qrels.test results.trunc",
    "out.test.aqcM": "-m all_trec -q -c -M100 qrels.test results.trunc",
    "out.test.aql": "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test",
    "out.test.meas_params": (
        "-q -miprec_at_recall..10,.20,.25,.75,.50 -m P.5,7,3 -m recall.20,2000 "
        "-m Rprec_mult.5.0,0.2,0.35 -mutility.2,-1,0,0 -m 11pt_avg..25,.5,.75 "
        "-mndcg.1=3,2=9,4=4.5 -mndcg_cut.10,20,23.4 -msuccess.2,5,20 qrels.test results.test"
    ),
    # made from results.comment.test, stored gzip-compressed here
    "out.comment.test": "qrels.comment.test results.comment.test.gz",
}
"""Expected output -> trec_eval's arguments (COMMANDS.md), the files in the data folder."""

NOT_YET: dict[str, tuple[str, ...]] = {}
"""Per expected file, the trec_eval measures whose lines the command does not print yet."""


def root(printed: str) -> str:
    """The trec_eval measure of a printed name (``P_10`` -> ``P``, ``num_rel_ret`` itself)."""
    names = [name for name in TABLE if printed == name or printed.startswith(f"{name}_")]
    return max(names, key=len)


def trec_eval(args: str, data: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    words = args.split()
    files = [str(data / word) for word in words[-2:]]
    code, out, err = run(["trec-eval", *words[:-2], *files], capsys)
    assert code == 0, err
    return out, err


@pytest.fixture(scope="module")
def data(shared_data: Callable[[str], Path]) -> Path:
    """trec_eval's ``test/`` folder."""
    return shared_data("trec_eval-test")


@pytest.mark.parametrize("expected", list(COMMANDS))
def test_trec_eval_test_commands_print_the_expected_lines(
    expected: str, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, err = trec_eval(COMMANDS[expected], data, capsys)
    missing = NOT_YET.get(expected, ())
    wanted = [
        line
        for line in (data / expected).read_text().splitlines()
        if root(line.split("\t")[0].strip()) not in missing
    ]
    assert out.splitlines() == wanted
    skipped = [line.split(": ")[1].split()[0] for line in err.splitlines()]
    assert skipped == list(missing), err


def test_a_parquet_run_prints_the_same_lines(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.parquet"
    pg.read_trec_run(data / "results.test").write_parquet(path)
    code, out, _ = run(["trec-eval", "-q", str(data / "qrels.test"), str(path)], capsys)
    expected, _ = trec_eval("-q qrels.test results.test", data, capsys)
    assert code == 0
    assert out == expected


JUDGED = {"map": "ap", "P_5": "p@5", "ndcg_cut_10": "ndcg(gain=linear)@10", "bpref": "bpref"}
JUDGED |= {"recip_rank": "rr", "num_ret": "num_ret", "Rprec": "r_precision"}


def test_judged_only_agrees_with_pytrec_eval(data: Path) -> None:
    """-J (``judged_only=True``): the same per-query values as trec_eval 9's flag."""
    run_, qrels = pg.read_trec_run(data / "results.test"), pg.read_trec_qrels(data / "qrels.test")
    table = pg.join_run_qrels(run_, qrels, queries="both")
    assert table["relevance"].null_count() > 0  # the run has unjudged rows
    ours = pg.evaluate(table, list(JUDGED.values()), judged_only=True).rows_by_key("query")
    judgments = {
        q: dict(zip(g["item"], g["relevance"], strict=True)) for (q,), g in qrels.group_by("query")
    }
    runs = {q: dict(zip(g["item"], g["score"], strict=True)) for (q,), g in run_.group_by("query")}
    evaluator = pytrec_eval.RelevanceEvaluator(judgments, set(JUDGED), judged_docs_only_flag=True)
    theirs = evaluator.evaluate(runs)
    columns = list(JUDGED.values())
    for query, values in theirs.items():
        mine = dict(zip(columns, ours[query][0], strict=True))
        for trec, name in JUDGED.items():
            assert mine[name] == pytest.approx(values[trec], abs=1e-9), (query, trec)


def test_judged_only_changes_the_output(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain, _ = trec_eval("-m map -m num_ret qrels.test results.test", data, capsys)
    judged, _ = trec_eval("-J -m map -m num_ret qrels.test results.test", data, capsys)
    assert plain != judged
    assert judged.splitlines()[0] == "num_ret               \tall\t" + str(
        pg.read_trec_run(data / "results.test")
        .join(pg.read_trec_qrels(data / "qrels.test"), on=["query", "item"])
        .height
    )


def test_relstring_under_j_and_m(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = trec_eval("-q -J -M5 -m relstring qrels.rel_level results.test", data, capsys)
    # trec_eval cuts at 5 first, then drops the unjudged rows: never longer than 5
    assert out.splitlines()[0] == "relstring             \t301\t'00000'"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-m", "nosuch"], "unknown trec_eval measure 'nosuch' in -m nosuch"),
        (["-m", "P.0,5"], "cutoffs must be positive and distinct (-m P.0,5)"),
        (["-m", "map.5"], "trec_eval measure 'map' takes no parameters"),
        (["-M", "0"], "-M must be at least 1, got 0"),
        (["-l", "0"], "-l must be at least 1, got 0"),
    ],
)
def test_usage_errors_are_one_line(
    args: list[str], message: str, data: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = [str(data / "qrels.test"), str(data / "results.test")]
    code, out, err = run(["trec-eval", *args, *files], capsys)
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert message in err


def test_a_measure_without_a_template_is_one_stderr_line(
    data: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    templates = {k: v for k, v in trec_eval_templates().items() if k != "P"}
    monkeypatch.setattr("polars_graded.cli.trec_eval.lines.trec_eval_templates", lambda: templates)
    out, err = trec_eval("-m P.5 -m map qrels.test results.test", data, capsys)
    assert err == "polars-graded trec-eval: P.5 is not available yet; skipped\n"
    assert [line.split()[0] for line in out.splitlines()] == ["map"]


def test_the_summary_sums_counts_and_averages_values() -> None:
    assert summarize(pl.Series([3, 4]), "sum") == 7
    assert summarize(pl.Series([0.0, 1.0]), "geometric") == pytest.approx((1e-5) ** 0.5)
