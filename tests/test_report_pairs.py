"""The report's section "All pairs" (polars_graded/report/pairs.py): ``report.pairs`` is
compare_pairs' output whatever ``all_pairs`` says, the section appears only with it, and its
tables hold the pairs' numbers (letters by their definition, pairs better-first, counted by
hand from the per-query values)."""

from __future__ import annotations

import itertools
from typing import Any

import polars as pl
import pytest
from support.report import MEASURES, TRIALS, synthetic_table

from polars_graded.report import Report, compute_report, to_html, to_markdown
from polars_graded.report.blocks import Table
from polars_graded.report.pairs import letters_table, pairs_section
from polars_graded.stats.pairs import compare_pairs

OPTIONS: dict[str, Any] = {"trials": TRIALS, "bootstrap": TRIALS, "seed": 3}


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    """The synthetic table with a fourth system, d, a little worse than b, under a system
    column named ``run`` with integer ids (the report casts them to text)."""
    base = synthetic_table()
    d = base.filter(pl.col("system") == "b").with_columns(
        pl.lit("d").alias("system"),
        pl.when(pl.col("item") == "d0").then(-5.0).otherwise("score").alias("score"),
    )
    names = {"a": 1, "b": 2, "c": 3, "d": 4}
    both = pl.concat([base, d])
    return both.with_columns(pl.col("system").replace_strict(names).alias("run")).drop("system")


@pytest.fixture(scope="module")
def built(table: pl.DataFrame) -> Report:
    return compute_report(table, MEASURES, by="run", all_pairs=True, correction="bh", **OPTIONS)


def test_pairs_are_compare_pairs_of_the_per_query_values(
    table: pl.DataFrame, built: Report
) -> None:
    expected = compare_pairs(
        built.per_query.with_columns(pl.col("run").cast(pl.String)),
        MEASURES,
        by="run",
        correction="bh",
        **OPTIONS,
    ).rename({"run_a": "system_a", "run_b": "system_b"})
    assert built.pairs is not None
    assert built.pairs.equals(expected)
    plain = compute_report(table, MEASURES, by="run", **OPTIONS)  # without all_pairs
    assert plain.pairs is not None
    assert plain.pairs.height == 6 * len(MEASURES)
    assert pairs_section(plain) is None
    assert "All pairs" not in to_markdown(plain)
    assert 'id="pairs"' not in to_html(plain)


def test_the_section_states_the_test_and_shows_both_tables(built: Report) -> None:
    section = pairs_section(built)
    assert section is not None
    assert (section.key, section.title) == ("pairs", "All pairs")
    sentence, letters, pairs = section.parts
    assert isinstance(sentence, str)
    for words in ("4 systems, 6 pairs", "Benjamini-Hochberg", "α = 0.05", "Tukey HSD"):
        assert words in sentence
    assert isinstance(letters, Table)
    assert isinstance(pairs, Table)
    assert letters.frame.columns == ["system", *MEASURES]
    assert letters.frame["system"].to_list() == list(built.order)
    assert pairs.frame.height == 6
    assert "## All pairs" in to_markdown(built)
    assert '<section id="pairs"><h2>All pairs</h2>' in to_html(built)


def test_letters_are_shared_exactly_by_pairs_that_do_not_differ(built: Report) -> None:
    assert built.pairs is not None
    frame = letters_table(built, built.pairs)
    for m in MEASURES:
        cells = dict(zip(frame["system"], frame[m], strict=True))
        rows = built.pairs.filter(pl.col("measure") == m)
        means = {r["system_a"]: r["mean_a"] for r in rows.iter_rows(named=True)}
        means |= {r["system_b"]: r["mean_b"] for r in rows.iter_rows(named=True)}
        for row in rows.iter_rows(named=True):
            a, b = row["system_a"], row["system_b"]
            shared = set(cells[a].split(" ")[1]) & set(cells[b].split(" ")[1])
            assert bool(shared) == (row["p_randomization_adjusted"] >= 0.05), (m, a, b)
        for name, cell in cells.items():
            assert cell.split(" ")[0] == f"{means[name]:.4f}"
        best = max(means, key=lambda s: (means[s], s))
        assert "a" in cells[best].split(" ")[1]


def test_pairs_table_names_the_better_system_first_with_its_own_counts(built: Report) -> None:
    section = pairs_section(built)
    assert section is not None
    part = section.parts[2]
    assert isinstance(part, Table)
    frame = part.frame
    first = MEASURES[0]
    values = {(str(r["run"]), r["query"]): r[first] for r in built.per_query.iter_rows(named=True)}
    queries = sorted({q for _, q in values})
    seen = set()
    for row in frame.iter_rows(named=True):
        x, y = row["pair"].split(" > ")
        seen.add(frozenset((x, y)))
        diffs = [values[x, q] - values[y, q] for q in queries]
        assert sum(diffs) / len(diffs) == pytest.approx(row["diff"], abs=1e-12)
        assert row["diff"] >= 0
        assert row["diff_ci_low"] <= row["diff"] <= row["diff_ci_high"]
        counts = (sum(d > 1e-9 for d in diffs), sum(abs(d) <= 1e-9 for d in diffs))
        assert (row["wins"], row["ties"]) == counts
        assert row["losses"] == len(queries) - sum(counts)
        assert row["significant"] == ("yes" if row["p_randomization_adjusted"] < 0.05 else "no")
    assert seen == {frozenset(p) for p in itertools.combinations(["1", "2", "3", "4"], 2)}
    firsts = [row.split(" > ")[0] for row in frame["pair"]]
    assert firsts[0] == "2"  # b ranks by relevance: the best mean, its pairs first


def test_too_few_trials_for_holm_are_said(table: pl.DataFrame) -> None:
    # The smallest randomization p is 1/(trials + 1), so Holm's is at least pairs/(trials + 1).
    n = table["run"].n_unique()
    pairs = n * (n - 1) // 2
    few = compute_report(table, ["ap"], by="run", all_pairs=True, trials=50, bootstrap=50)
    section = pairs_section(few)
    assert section is not None
    assert f"no Holm-adjusted p-value can fall below {pairs / 51:.3g}" in str(section.parts[0])
    assert few.pairs is not None
    assert not few.pairs["significant"].any()
    trials = int(pairs / 0.05) + 10
    enough = compute_report(table, ["ap"], by="run", all_pairs=True, trials=trials, bootstrap=50)
    section = pairs_section(enough)
    assert section is not None
    assert "can fall below" not in str(section.parts[0])
