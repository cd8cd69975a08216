"""ERR (polars_graded/measures/err.py): Chapelle et al.'s cascade by hand, against TREC's own
gdeval.pl (shipped by ir_measures, run with perl), top grades beyond float64, and its
parameter errors.

Also checked against the oracle (tests/support/oracle.py) on random tables (test_bruteforce) and
under every tie policy (test_ties).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import ir_measures
import numpy as np
import polars as pl
import pytest
from support.environment import in_ci

import polars_graded as pg


def test_err_by_hand() -> None:
    """Labels 4, 0, 2 in ranked order, max_rel 4: R(4) = 15/16, R(0) = 0, R(2) = 3/16, so
    ERR = 15/16 + (1/16)(3/16)/3 = 241/256 and ERR@2 = 15/16 (all exact in binary)."""
    df = pl.DataFrame(
        {"query": [1, 1, 1], "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0],
         "relevance": [4, 0, 2]}
    )  # fmt: skip
    got = df.graded.evaluate(["err", "err@2", "err(max_rel=2)"]).row(0, named=True)
    assert got["err"] == 241 / 256
    assert got["err@2"] == 15 / 16
    # max_rel 2: labels above it count as 2, R(2) = 3/4: 3/4 + (1/4)(3/4)/3 = 13/16
    assert got["err(max_rel=2)"] == pytest.approx(13 / 16, abs=1e-15)


@pytest.mark.parametrize(("text", "words"), [("err(max_rel=0)", "max_rel")])
def test_bad_parameters(text: str, words: str) -> None:
    with pytest.raises(pg.MeasureParameterError, match=words):
        pg.parse_measure(text)


# --------------------------------------------------------------------------- TREC's gdeval.pl


def _gdeval() -> Path:
    """gdeval.pl as ir_measures (a test dependency) ships it; it needs perl, which the
    machines have (skips locally without it, fails under CI=true)."""
    if shutil.which("perl") is None:
        if in_ci():
            pytest.fail("perl is missing under CI=true: gdeval.pl needs it")
        pytest.skip("perl is missing: gdeval.pl needs it")
    script = Path(ir_measures.__file__).parent / "bin" / "gdeval.pl"
    assert script.is_file(), script
    return script


def test_err_equals_trec_gdeval(tmp_path: Path) -> None:
    """TREC Web track's gdeval.pl (labels 0..4, numeric topics, 5 printed decimals)."""
    gdeval = _gdeval()
    rng = np.random.default_rng(3)
    rows = []
    for query in range(1, 41):
        n = int(rng.integers(3, 40))
        for item in rng.choice(500, n, replace=False):
            score = round(float(rng.normal()), 1) if rng.random() < 0.9 else None
            label = int(rng.choice([0, 0, 0, 1, 2, 3, 4])) if rng.random() < 0.7 else None
            rows.append((query, f"d{item}", score, label))
    schema = {"query": pl.Int64, "item": pl.String, "score": pl.Float64, "relevance": pl.Int64}
    df = pl.DataFrame(rows, schema=schema, orient="row")
    qrels = df.filter(pl.col("relevance").is_not_null())
    run = df.filter(pl.col("score").is_not_null())
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, _, r in qrels.iter_rows()))
    (tmp_path / "run").write_text(
        "".join(f"{q} Q0 {d} 1 {s} r\n" for q, d, s, _ in run.iter_rows())
    )
    argv = ["perl", str(gdeval), str(tmp_path / "qrels"), str(tmp_path / "run"), "10"]
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    theirs = {
        int(line.split(",")[1]): float(line.split(",")[3])
        for line in out.splitlines()[1:]
        if line.split(",")[1] != "amean"
    }
    ours = dict(df.graded.evaluate(["err@10"]).iter_rows())
    # gdeval only reports topics with a relevant judgment
    assert len(theirs) >= 30
    for query, value in theirs.items():
        assert ours[query] == pytest.approx(value, abs=0.5e-5 + 1e-12), query


# --------------------------------------------------------------------------- huge top grades


def exact_err(ranked: Sequence[float], top: int, k: int | None = None) -> float:
    """ERR with R = (2^min(g, top) - 1) / 2^top as exact fractions."""
    total, reach = Fraction(0), Fraction(1)
    for p, label in enumerate(ranked[:k] if k else ranked, start=1):
        grade = min(int(label), top) if label > 0 else 0
        stop = Fraction(2**grade - 1, 2**top)
        total += reach * stop / p
        reach *= 1 - stop
    return float(total)


@pytest.mark.parametrize("top", [1024, 2000, 5000])
def test_err_with_a_top_grade_beyond_float64(top: int) -> None:
    # 2.0 ** top_grade raised OverflowError at top grades >= 1024.
    labels = [1, top, top - 1, 0, top - 3]
    df = pl.DataFrame(
        {"query": [1] * 5, "item": list("abcde"), "score": [5.0, 4, 3, 2, 1], "relevance": labels}
    )  # fmt: skip
    got = df.graded.err(max_rel=top)[f"err(max_rel={top})"][0]
    assert got == pytest.approx(exact_err(labels, top), rel=1e-12)
    averaged = df.graded.err(max_rel=top, ties="average")[f"err(max_rel={top})"][0]
    assert averaged == pytest.approx(exact_err(labels, top), rel=1e-12)


def test_err_keeps_its_bits_below_the_exact_top_grade() -> None:
    # Top grades up to 1000 keep the formula as written: (2^g - 1) / 2^m in float64.
    labels = [3.5, 0, 1000, 2, 999.25]
    df = pl.DataFrame(
        {"query": [1] * 5, "item": list("abcde"), "score": [5.0, 4, 3, 2, 1], "relevance": labels}
    )  # fmt: skip
    total, reach = 0.0, 1.0
    for p, label in enumerate(labels, start=1):
        stop = (2.0 ** min(label, 1000) - 1.0) / 2.0**1000 if label > 0 else 0.0
        total += reach * stop / p
        reach *= 1.0 - stop
    assert df.graded.err(max_rel=1000)["err(max_rel=1000)"][0] == pytest.approx(total, rel=1e-14)
