"""LaTeX tables (polars_graded/latex.py): to_latex's structure and escaping, read back row by
row, and means_latex's bold and marks against compare()'s numbers, recomputed here."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polars_graded.errors import InvalidValueError, MissingColumnError
from polars_graded.stats.compare import compare
from polars_graded.stats.latex import MARKS, Marks, escape, means_latex, to_latex
from polars_graded.stats.pairs import compare_pairs

UNESCAPE = {
    r"\textbackslash{}": "\\",
    r"\textasciitilde{}": "~",
    r"\textasciicircum{}": "^",
    r"\textless{}": "<",
    r"\textgreater{}": ">",
    r"\textbar{}": "|",
    **{f"\\{c}": c for c in "&%$#_{}"},
}


def unescape(text: str) -> str:
    """LaTeX back to text, one escape at a time from the left."""
    pattern = "|".join(re.escape(k) for k in sorted(UNESCAPE, key=len, reverse=True))
    return re.sub(pattern, lambda m: UNESCAPE[m.group(0)], text)


def split_row(line: str) -> list[str]:
    """A tabular row's cells: split on ``&`` not escaped, after dropping the final ``\\\\``."""
    assert line.endswith(r" \\")
    return re.split(r"(?<!\\) & ", line.removesuffix(r" \\"))


def body(tex: str) -> tuple[str, list[str], list[list[str]]]:
    """The column spec, the header cells and the body rows of the one tabular in ``tex``."""
    lines = tex.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(r"\begin{tabular}"))
    spec = re.fullmatch(r"\\begin\{tabular\}\{([lr]*)\}", lines[start])
    assert spec is not None
    assert lines[start + 1] == r"\toprule"
    assert lines[start + 3] == r"\midrule"
    end = lines.index(r"\end{tabular}")
    assert lines[end - 1] == r"\bottomrule"
    rows = [split_row(line) for line in lines[start + 4 : end - 1]]
    return spec.group(1), split_row(lines[start + 2]), rows


def number(cell: str) -> float:
    return float(cell.replace("$-$", "-"))


# --------------------------------------------------------------------------- to_latex


@settings(max_examples=100, deadline=None)
@given(texts=st.lists(st.text(max_size=12), min_size=1, max_size=5))
def test_to_latex_escapes_every_special_character(texts: list[str]) -> None:
    frame = pl.DataFrame({"a&b_c": texts, "v": list(range(len(texts)))})
    spec, header, rows = body(to_latex(frame))
    assert spec == "lr"
    assert [unescape(h) for h in header] == ["a&b_c", "v"]
    assert [unescape(r[0]) for r in rows] == [" ".join(t.splitlines()) for t in texts]
    for row in rows:  # nothing special is left bare
        bare = re.sub(
            r"\\(textbackslash|textasciitilde|textasciicircum|textless|textgreater|textbar)\{\}"
            r"|\\[&%$#_{}]",
            "",
            row[0],
        )
        assert not set(bare) & set("&%$#_{}~^\\<>|"), row[0]


def test_to_latex_numbers_nulls_and_structure() -> None:
    frame = pl.DataFrame(
        {
            "system": ["bm25", "dense", None],
            "mean": [0.31234567, -0.0512, None],
            "n": [50, -3, 7],
            "ok": [True, False, None],
        }
    )
    tex = to_latex(frame, decimals=3)
    spec, header, rows = body(tex)
    assert spec == "lrrl"
    assert header == ["system", "mean", "n", "ok"]
    assert rows == [
        ["bm25", "0.312", "50", "true"],
        ["dense", "$-$0.051", "$-$3", "false"],
        ["--", "--", "7", "--"],
    ]
    assert [number(r[1]) for r in rows[:2]] == [0.312, -0.051]
    assert not tex.startswith(r"\begin{table}")


def test_to_latex_table_environment_and_note() -> None:
    tex = to_latex(pl.DataFrame({"x": [1.0]}), caption="Means.", label="tab:x", note="A note.")
    lines = tex.splitlines()
    assert lines[:4] == [r"\begin{table}", r"\centering", r"\caption{Means.}", r"\label{tab:x}"]
    assert lines[-1] == r"\end{table}"
    assert r"\smallskip{\footnotesize A note.\par}" in lines
    assert body(tex)[2] == [["1.0000"]]
    with pytest.raises(InvalidValueError, match="decimals must be 0 or more"):
        to_latex(pl.DataFrame({"x": [1.0]}), decimals=-1)


def test_to_latex_formats_compare_pairs_frames() -> None:
    rng = np.random.default_rng(3)
    per_query = pl.DataFrame(
        {"system": ["a"] * 20 + ["b"] * 20, "query": list(range(20)) * 2, "ap": rng.random(40)}
    )
    pairs = compare_pairs(per_query, trials=200, bootstrap=200)
    spec, header, rows = body(to_latex(pairs))
    assert len(spec) == pairs.width
    assert header == [escape(c) for c in pairs.columns]
    assert number(rows[0][pairs.columns.index("diff")]) == pytest.approx(pairs["diff"][0], abs=5e-5)


def test_escape() -> None:
    assert escape(r"50% of a_b & {c} ~ ^ \ $ #") == (
        r"50\% of a\_b \& \{c\} \textasciitilde{} \textasciicircum{} \textbackslash{} \$ \#"
    )


# --------------------------------------------------------------------------- means_latex


@pytest.fixture(scope="module")
def comparison() -> pl.DataFrame:
    """Four systems over 30 queries: one clearly better than the baseline, one clearly
    worse, one tied with the best on the second measure."""
    rng = np.random.default_rng(11)
    base = rng.random(30) * 0.5
    values = {"base_1": base, "up": base + 0.3, "down": base * 0.2, "same": base + 0.01}
    frames = [
        pl.DataFrame({"system": name, "query": range(30), "ap": v, "p@10": np.round(v, 1)})
        for name, v in values.items()
    ]
    per_query = pl.concat(frames).with_columns(
        pl.when(pl.col("system") == "same").then(pl.lit(0.9)).otherwise("p@10").alias("p@10")
    )
    return compare(per_query, baseline="base_1", trials=500, bootstrap=50)


@pytest.mark.parametrize("marks", ["triangles", "daggers"])
def test_means_latex_bold_and_marks(comparison: pl.DataFrame, marks: Marks) -> None:
    tex = means_latex(comparison, marks=marks, alpha=0.05)
    spec, header, rows = body(tex)
    measures = ["ap", "p@10"]
    assert (spec, header) == ("lrr", ["system", *measures])
    assert [r[0] for r in rows] == ["base\\_1", "down", "same", "up"]  # the baseline first
    better, worse = MARKS[marks]
    for m, column in zip(measures, zip(*(r[1:] for r in rows), strict=True), strict=True):
        expected = comparison.filter(pl.col("measure") == m)
        top = expected["mean"].max()
        assert isinstance(top, float)
        best = round(top, 4)
        for cell, row in zip(column, expected.iter_rows(named=True), strict=True):
            mean = re.search(r"[-$0-9.]+\d", cell)
            assert mean is not None
            assert number(mean.group(0)) == pytest.approx(row["mean"], abs=5e-5)
            assert cell.startswith(r"\textbf{") == (round(row["mean"], 4) == best)
            p = row["p_randomization_holm"]
            mark = "" if p is None or p >= 0.05 else better if row["diff"] > 0 else worse
            assert cell.endswith(mark or "}") or cell[-1].isdigit(), cell
            assert (better in cell, worse in cell) == (mark == better, mark == worse)
    assert any(better in r[1] for r in rows) and any(worse in r[1] for r in rows)
    note = tex.splitlines()[-1]
    assert "baseline base\\_1" in note
    assert "Holm-corrected over the 3 systems" in note
    assert r"$\alpha = 0.05$" in note


def test_means_latex_alpha_order_and_measures(comparison: pl.DataFrame) -> None:
    tiny = means_latex(
        comparison, alpha=1e-9, measures=["p@10"], order=["up", "same", "down", "base_1"]
    )
    _, header, rows = body(tiny)
    assert header == ["system", "p@10"]
    assert [r[0] for r in rows] == ["up", "same", "down", "base\\_1"]
    assert not any("$^" in r[1] for r in rows)  # nothing is significant at 1e-9
    assert r"\textbf{0.9000}" in rows[1][1]  # "same" has the best p@10
    wrapped = means_latex(comparison, caption="Means.", label="tab:means")
    assert wrapped.startswith("\\begin{table}\n\\centering\n\\caption{Means.}\n\\label{tab:means}")


def test_means_latex_refuses_other_frames(comparison: pl.DataFrame) -> None:
    with pytest.raises(MissingColumnError, match="takes the output of compare"):
        means_latex(comparison.drop("p_randomization_holm"))
    with pytest.raises(InvalidValueError, match="one baseline"):
        means_latex(comparison.with_columns(pl.lit(0.5).alias("p_randomization")))
    with pytest.raises(InvalidValueError, match="not in the comparison"):
        means_latex(comparison, measures=["ndcg"])
    with pytest.raises(InvalidValueError, match="order must list each system"):
        means_latex(comparison, order=["up"])
    with pytest.raises(InvalidValueError, match="marks must be 'triangles' or 'daggers'"):
        means_latex(comparison, marks="stars")  # type: ignore[arg-type]
    with pytest.raises(InvalidValueError, match="alpha"):
        means_latex(comparison, alpha=2.0)
