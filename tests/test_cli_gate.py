"""``polars-graded gate`` (polars_graded/cli/gate.py): exit codes 0/1/2, the printed lines,
the JSON verdict, the missing-query policy, TREC input and one-line errors; ``--equivalence``
against statsmodels' ``ttost_paired``, the line on the detectable drop against statsmodels'
``TTestPower``, and ``--weight``.

The statistics are tested from Python in test_stats_gate.py; here the p-values are checked
against scipy on hand-computed per-query AP (one relevant item per query at rank r: 1/r).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats
from statsmodels.stats.power import TTestPower
from statsmodels.stats.weightstats import ttost_paired
from support.cli import assert_one_line_error, run
from support.gate import BASE, ap, ranked_table

import polars_graded

WORSE = [3, 3, 2, 3, 3, 3, 2, 3]
SAME_OR_BETTER = [1, 1, 1, 2, 1, 1, 1, 1]


@pytest.fixture(name="runs")
def runs_fixture(tmp_path: Path) -> Path:
    path = tmp_path / "runs.parquet"
    ranked_table({"prod": BASE, "worse": WORSE, "new": SAME_OR_BETTER}).write_parquet(path)
    return path


def gate_args(runs: Path, candidate: str, *extra: str) -> list[str]:
    base = ["gate", str(runs), "--baseline", "prod", "--candidate", candidate]
    return [*base, "-m", "ap", "--bootstrap", "500", *extra]


def test_not_worse_exits_0(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(gate_args(runs, "new", "--max-drop", "0.01"), capsys)
    d = ap(SAME_OR_BETTER) - ap(BASE)
    p = stats.ttest_1samp(d + 0.01, 0.0, alternative="greater").pvalue
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(f"ap: pass: diff {d.mean():+.4f}, 95% interval [")
    assert f"p {p:.3g} (prod {ap(BASE).mean():.4f}, new " in lines[0]
    # 8 queries detect (one-sided t-test, 80% power) only drops far above the margin 0.01.
    effect = TTestPower().solve_power(nobs=8, alpha=0.05, power=0.8, alternative="larger")
    detectable = d.std(ddof=1) * effect
    assert lines[1] == (
        f"ap: with 8 queries this gate can only detect drops >= {detectable:.3g} at 80% power; "
        "the margin 0.01 is below it"
    )
    assert (
        lines[2]
        == "verdict: pass: new loses less than 0.01 against prod on every measure (alpha 0.05)"
    )


def test_worse_exits_1_naming_the_measure(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*gate_args(runs, "worse", "--max-drop", "0.01"), "-m", "p@1"], capsys)
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert [line.split(":")[:2] for line in lines[:2]] == [["ap", " FAIL"], ["p@1", " FAIL"]]
    assert (
        lines[-1]
        == "verdict: FAIL on ap, p@1: not shown that worse loses less than 0.01 against prod"
    )


def test_identical_candidate_needs_a_margin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # max_drop 0 asks for superiority: d = 0 gives no evidence (p = 1); any margin passes.
    path = tmp_path / "same.csv"
    ranked_table({"prod": BASE, "copy": BASE}).write_csv(path)
    assert run(gate_args(path, "copy", "--max-drop", "0"), capsys)[0] == 1
    assert run(gate_args(path, "copy", "--max-drop", "0.001"), capsys)[0] == 0


def test_json_verdict(runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "verdict.json"
    argv = [*gate_args(runs, "worse", "--max-drop", "0.02", "--alpha", "0.1"), "--json", str(path)]
    argv += ["--seed", "3", "--missing", "common"]
    assert run(argv, capsys)[0] == 1
    verdict = json.loads(path.read_text())
    d = ap(WORSE) - ap(BASE)
    rng = np.random.default_rng(3)
    means = [d[rng.integers(0, d.size, size=d.size)].mean() for _ in range(500)]
    assert verdict["passed"] is False
    assert verdict["version"] == polars_graded.__version__
    assert verdict["settings"] == {
        "baseline": "prod",
        "candidate": "worse",
        "max_drop": 0.02,
        "alpha": 0.1,
        "bootstrap": 500,
        "seed": 3,
        "missing": "common",
        "equivalence": None,
        "weight": None,
        "correction": "none",
        "bootstrap_method": "percentile",
        "test": "t",
        "by": "system",
        "ties": "trec_eval",
    }
    (row,) = verdict["measures"]
    assert row["measure"] == "ap"
    assert row["not_worse"] is False
    assert row["n_queries"] == len(BASE)
    assert row["diff"] == pytest.approx(d.mean())
    assert row["lower"] == pytest.approx(np.quantile(means, 0.1))
    expected = stats.ttest_1samp(d + 0.02, 0.0, alternative="greater").pvalue
    assert row["p_value"] == pytest.approx(expected)
    assert "t-test" in verdict["decision"]


def test_missing_policy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "gaps.parquet"
    ranked_table({"prod": BASE, "new": [1, 1, 1, None, 1, 1, None, 1]}).write_parquet(path)
    zero = run(gate_args(path, "new", "--max-drop", "0.01"), capsys)[1]
    common = run(gate_args(path, "new", "--max-drop", "0.01", "--missing", "common"), capsys)[1]
    assert "8 queries" in zero
    assert "6 queries" in common


def test_trec_input_and_trials_alias(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 d1 1\n" for q in range(4)))
    for name, first in (("prod", "d1"), ("new", "d2")):  # new puts d1 second on query 1
        lines = [f"{q} Q0 {'d1' if q != 1 else first} 1 9 {name}\n" for q in range(4)]
        lines += [
            f"{q} Q0 {'d2' if q != 1 or first == 'd1' else 'd1'} 2 8 {name}\n" for q in range(4)
        ]
        (tmp_path / f"{name}.txt").write_text("".join(lines))
    argv = ["gate", "--run", str(tmp_path / "prod.txt"), str(tmp_path / "new.txt")]
    argv += ["--qrels", str(qrels), "--baseline", "prod", "--candidate", "new", "-m", "ap"]
    code, out, _ = run([*argv, "--max-drop", "0.5", "--trials", "50"], capsys)
    d = np.array([0.0, -0.5, 0.0, 0.0])
    p = stats.ttest_1samp(d + 0.5, 0.0, alternative="greater").pvalue
    assert code == (0 if p < 0.05 else 1)
    assert f"diff {d.mean():+.4f}" in out
    assert f"p {p:.3g} " in out


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--candidate", "nope"], "candidate 'nope' is not a system of column 'system'"),
        (["--baseline", "nope"], "baseline 'nope' is not a system"),
        (["-m", "nope@3"], "nope"),
        (["--max-drop", "-1"], "max_drop must be a finite number >= 0"),
        (["--equivalence", "0"], "equivalence must be a finite number > 0"),
        (["--weight", "clicks"], "column 'clicks' not found"),
        (["--json", "/no/such/folder/v.json"], "--json: the folder '/no/such/folder'"),
    ],
)
def test_bad_input_exits_2(
    runs: Path, extra: list[str], fragment: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [*gate_args(runs, "new", "--max-drop", "0.01"), *extra]
    assert_one_line_error(*run(argv, capsys), fragment)


def test_no_shared_queries_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "apart.parquet"
    ranked_table({"prod": [1, 1, None, None], "new": [None, None, 1, 1]}).write_parquet(path)
    argv = gate_args(path, "new", "--max-drop", "0", "--missing", "common")
    assert_one_line_error(*run(argv, capsys), "no value of column 'query' is shared")


def test_measures_required(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["gate", str(runs), "--baseline", "prod", "--candidate", "new", "--max-drop", "0"]
    assert_one_line_error(*run(argv, capsys), "arguments are required: -m/--measure")


def test_test_option_chooses_the_decision(
    runs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    verdict = tmp_path / "verdict.json"
    argv = [*gate_args(runs, "new", "--max-drop", "0.01"), "--test", "wilcoxon"]
    code, out, err = run([*argv, "--json", str(verdict)], capsys)
    d = ap(SAME_OR_BETTER) - ap(BASE)
    p = stats.wilcoxon(d + 0.01, alternative="greater").pvalue
    assert (code, err) == (0, "")
    assert f"p {p:.3g} (prod " in out.splitlines()[0]
    saved = json.loads(verdict.read_text())
    assert saved["settings"]["test"] == "wilcoxon"
    assert saved["decision"].startswith("one-sided Wilcoxon signed-rank test on d + max_drop")
    code, out, err = run([*argv[:-1], "student"], capsys)
    assert code == 2 and "choose from 'randomization', 't', 'wilcoxon'" in err


# --- --equivalence and --weight (issue 29, item 7) -------------------------------------------

NEAR = [1, 2, 1, 3, 1, 2, 2, 1]


def test_equivalence_exit_codes_and_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "near.parquet"
    ranked_table({"prod": BASE, "near": NEAR, "worse": WORSE}).write_parquet(path)
    code, out, err = run(gate_args(path, "near", "--equivalence", "0.3"), capsys)
    p = ttost_paired(ap(NEAR), ap(BASE), -0.3, 0.3)[0]
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("ap: equivalence pass: diff -0.0625, 90% interval [")
    assert f"], p {p:.3g} (prod " in lines[0]
    assert lines[-1] == (
        "verdict: pass: near is within +/-0.3 of prod on every measure (alpha 0.05)"
    )
    code, out, err = run(gate_args(path, "worse", "--equivalence", "0.05"), capsys)
    assert (code, err) == (1, "")
    assert out.splitlines()[0].startswith("ap: equivalence FAIL: ")
    assert "show equivalence within margins >= " in out
    assert (
        out.splitlines()[-1]
        == "verdict: FAIL on ap: not shown that worse is within +/-0.05 of prod"
    )


def test_both_margins_name_each_failed_claim(
    runs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = gate_args(runs, "new", "--max-drop", "0.01", "--equivalence", "0.01")
    code, out, _ = run(argv, capsys)
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("ap: pass: ") and lines[1].startswith("ap: equivalence FAIL: ")
    assert lines[-1] == "verdict: FAIL on ap: not shown that new is within +/-0.01 of prod"


def test_a_margin_is_required(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["gate", str(runs), "--baseline", "prod", "--candidate", "new", "-m", "ap"]
    assert_one_line_error(*run(argv, capsys), "give --max-drop D (non-inferiority")


def test_weight_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = ranked_table({"prod": BASE, "near": NEAR})
    weights = {str(q): float(q + 1) for q in range(len(BASE))}
    table = table.with_columns(clicks=pl.col("query").replace_strict(weights))
    path, verdict = tmp_path / "w.parquet", tmp_path / "v.json"
    table.write_parquet(path)
    argv = [*gate_args(path, "near", "--equivalence", "0.3"), "--weight", "clicks"]
    code, out, err = run([*argv, "--json", str(verdict)], capsys)
    w = np.arange(1.0, 9.0)  # Kish's effective number: 36^2 / 204 = 6.35
    means = (
        f"prod {np.average(ap(BASE), weights=w):.4f}, near {np.average(ap(NEAR), weights=w):.4f}"
    )
    assert f"({means}, 8 queries, 6.35 effective)" in out.splitlines()[0]
    expected = polars_graded.gate(table, ["ap"], baseline="prod", candidate="near",
                                  equivalence=0.3, weight="clicks", bootstrap=500)  # fmt: skip
    saved = json.loads(verdict.read_text())
    assert (code, err) == (0 if expected.passed else 1, "")
    assert saved["settings"]["weight"] == "clicks"
    assert saved["measures"][0]["p_equivalence"] == expected.table.item(0, "p_equivalence")
    assert saved["measures"][0]["diff"] == pytest.approx(np.average(ap(NEAR) - ap(BASE), weights=w))
