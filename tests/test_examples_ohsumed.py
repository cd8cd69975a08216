"""examples/ohsumed.py: the paper's OHSUMED figures (Fig. 6-8) on the first 10 queries.

The example is loaded by path. Tests that read LETOR 3.0 OHSUMED take it through conftest's
``shared_data`` (they skip locally when the data folder beside the repository is absent, and
fail under ``CI=true``).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

import numpy as np
import polars as pl
import pytest
from matplotlib.image import imread

import polars_graded as pg

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ohsumed.py"
QUERIES = 10
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("examples_ohsumed", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ohsumed = _load_example()


# --------------------------------------------------------------------------- references


def naive_ap(rels: Sequence[float], threshold: float) -> float:
    """AP at ``threshold`` of labels in ranked order (every row retrieved)."""
    relevant = sum(r >= threshold for r in rels)
    if relevant == 0:
        return 0.0
    hits, total = 0, 0.0
    for position, rel in enumerate(rels, start=1):
        if rel >= threshold:
            hits += 1
            total += hits / position
    return total / relevant


def naive_mu_ap(rels: Sequence[float]) -> float:
    """µAP over the query's own positive levels, weighted by their distances."""
    levels = sorted({r for r in rels if r > 0})
    if not levels:
        return 0.0
    weighted, previous = 0.0, 0.0
    for level in levels:
        weighted += (level - previous) * naive_ap(rels, level)
        previous = level
    return weighted / levels[-1]


def ranked_labels(wide: pl.DataFrame, feature: str, labels: str) -> list[list[float]]:
    """Per query, the labels ordered by score descending (as float64, the library's default
    comparison, trec_eval 10.0's), then docid descending."""
    out = []
    for _, rows in wide.sort("qid").group_by("qid", maintain_order=True):
        order = sorted(
            zip(
                rows[feature].to_list(),
                rows["docid"].to_list(),
                rows[labels].to_list(),
                strict=True,
            ),
            key=lambda row: (row[0], row[1]),
            reverse=True,
        )
        out.append([float(row[2]) for row in order])
    return out


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def data(shared_data: Callable[[str], Path]) -> Path:
    """The ``letor3-ohsumed`` folder, holding the table the example reads."""
    return shared_data("letor3-ohsumed/Feature-min.all.parquet").parent


@pytest.fixture(scope="module")
def wide(data: Path) -> pl.DataFrame:
    table: pl.DataFrame = ohsumed.load(data, queries=QUERIES)
    return table


@pytest.fixture(scope="module")
def long(wide: pl.DataFrame) -> pl.DataFrame:
    table: pl.DataFrame = ohsumed.long_table(wide)
    return table


@pytest.fixture(scope="module")
def tables(long: pl.DataFrame) -> dict[str, pl.DataFrame]:
    return {
        figure.key: ohsumed.evaluate_strategies(
            long, relevance=figure.relevance, thresholds=figure.thresholds
        )
        for figure in ohsumed.figures(long)
    }


def cell(table: pl.DataFrame, strategy: int, column: str) -> float:
    value: float = table.filter(pl.col("strategy") == strategy)[column].item()
    return value


# --------------------------------------------------------------------------- the tables


def test_load_keeps_the_first_queries(wide: pl.DataFrame) -> None:
    assert wide["qid"].unique().sort().to_list() == list(range(1, QUERIES + 1))
    assert wide.select(pl.struct("qid", "docid").is_unique().all()).item()


def test_every_table_has_all_eight_strategies(tables: dict[str, pl.DataFrame]) -> None:
    assert sorted(tables) == ["fig6", "fig7", "fig8"]
    for table in tables.values():
        assert table["strategy"].to_list() == list(ohsumed.STRATEGIES)
        assert table["num_q"].to_list() == [QUERIES] * len(ohsumed.STRATEGIES)
        assert {"mu_ap", "mean_ndcg", "mean_ndcng"} <= set(table.columns)


def test_fig6_columns_are_map_at_1_and_2(tables: dict[str, pl.DataFrame]) -> None:
    assert ohsumed.map_columns(tables["fig6"]) == ["ap(rel=1)", "ap(rel=2)"]


@pytest.mark.parametrize(
    ("figure", "labels", "strategy"),
    [("fig6", "label", 11), ("fig6", "label", 19), ("fig7", "f1", 15), ("fig8", "f9", 1)],
)
def test_mu_map_equals_a_naive_recomputation(
    wide: pl.DataFrame,
    tables: dict[str, pl.DataFrame],
    figure: str,
    labels: str,
    strategy: int,
) -> None:
    per_query = [naive_mu_ap(rels) for rels in ranked_labels(wide, f"f{strategy}", labels)]
    assert cell(tables[figure], strategy, "mu_ap") == pytest.approx(
        sum(per_query) / len(per_query), abs=1e-12
    )


def test_map_at_2_equals_a_naive_recomputation(
    wide: pl.DataFrame, tables: dict[str, pl.DataFrame]
) -> None:
    per_query = [naive_ap(rels, 2) for rels in ranked_labels(wide, "f9", "label")]
    assert cell(tables["fig6"], 9, "ap(rel=2)") == pytest.approx(np.mean(per_query), abs=1e-12)


def test_cells_equal_the_expressions_on_the_wide_table(
    wide: pl.DataFrame, tables: dict[str, pl.DataFrame]
) -> None:
    per_query = wide.group_by("qid").agg(
        pg.ap(rel=2, relevance="label", score="f15", item="docid"),
        pg.mean_ndcng(relevance="label", score="f19", item="docid"),
        pg.mean_ndcg(relevance="f9", score="f11", item="docid"),
    )
    assert cell(tables["fig6"], 15, "ap(rel=2)") == pytest.approx(
        per_query["ap(rel=2)"].mean(), abs=1e-12
    )
    assert cell(tables["fig6"], 19, "mean_ndcng") == pytest.approx(
        per_query["mean_ndcng"].mean(), abs=1e-12
    )
    assert cell(tables["fig8"], 11, "mean_ndcg") == pytest.approx(
        per_query["mean_ndcg"].mean(), abs=1e-12
    )


@pytest.mark.parametrize(("strategy", "labels"), [(1, "virtual_tf"), (9, "virtual_tfidf")])
def test_a_strategy_is_perfect_against_its_own_values(
    long: pl.DataFrame, strategy: int, labels: str
) -> None:
    own = long.filter(pl.col("strategy") == strategy)
    names = ["mu_ap", "ndcg", "ndcng", "mean_ndcg", "mean_ndcng"]
    per_query = own.graded.evaluate(names, query="qid", item="docid", relevance=labels)
    with_positive = own.group_by("qid").agg(pl.col(labels).max() > 0).filter(labels)["qid"]
    assert with_positive.len() > 0
    scored = per_query.filter(pl.col("qid").is_in(with_positive.implode()))
    assert scored.select(pl.col(names).min()).row(0) == pytest.approx([1.0] * len(names))


def test_the_reference_strategies_score_one_in_their_figures(
    tables: dict[str, pl.DataFrame],
) -> None:
    for figure, strategy in [("fig7", 1), ("fig8", 9)]:
        for column in ohsumed.GRADED:
            assert cell(tables[figure], strategy, column) == pytest.approx(1.0)


def test_constant_features_tie_everywhere_and_score_alike(
    long: pl.DataFrame, tables: dict[str, pl.DataFrame]
) -> None:
    ties = ohsumed.tie_report(long)
    constant = ties.filter(pl.col("strategy").is_in([5, 21, 22]))
    assert constant["constant_queries"].to_list() == [QUERIES] * 3
    assert (constant["tied_rows"] == constant["rows"]).all()
    assert (ties["tied_rows"] <= ties["rows"]).all()
    assert (ties["tied_rows_f32"] >= ties["tied_rows"]).all()
    for table in tables.values():
        rows = table.filter(pl.col("strategy").is_in([5, 21, 22])).drop("strategy")
        spread = rows.select((pl.all().max() - pl.all().min()).abs().max()).row(0)
        assert max(spread) < 1e-12


def test_thresholds_follow_the_labels(long: pl.DataFrame) -> None:
    by_key = {figure.key: figure.thresholds for figure in ohsumed.figures(long)}
    assert by_key["fig6"] == (1.0, 2.0)
    tf_levels = long.filter(pl.col("virtual_tf") > 0)["virtual_tf"].unique().sort().to_list()
    assert list(by_key["fig7"]) == tf_levels
    assert len(by_key["fig8"]) == 6


def test_levels_report_counts_distinct_positive_labels(long: pl.DataFrame) -> None:
    report = ohsumed.level_report(long, "expert").row(0, named=True)
    assert report["levels_max"] <= 2
    assert report["levels_in_table"] == 2


# --------------------------------------------------------------------------- tie policies


@pytest.fixture(scope="module")
def averaged(long: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """Every figure's graded measures under ties="average"."""
    return {
        figure.key: ohsumed.evaluate_strategies(
            long, relevance=figure.relevance, thresholds=(), ties="average"
        )
        for figure in ohsumed.figures(long)
    }


@pytest.mark.parametrize("strategy", [5, 21, 22])
def test_average_moves_the_constant_strategies_and_equals_evaluate(
    long: pl.DataFrame,
    tables: dict[str, pl.DataFrame],
    averaged: dict[str, pl.DataFrame],
    strategy: int,
) -> None:
    rows = long.filter(pl.col("strategy") == strategy)
    assert rows.group_by("qid").agg(pl.col("score").n_unique() == 1)["score"].all()
    for column in ohsumed.GRADED:
        docid_order = cell(tables["fig6"], strategy, column)
        expected = cell(averaged["fig6"], strategy, column)
        assert abs(expected - docid_order) > 1e-3
        direct = rows.graded.evaluate(
            [column], query="qid", item="docid", relevance="expert", ties="average"
        )
        assert expected == pytest.approx(direct[column].mean(), abs=1e-12)
        trec_eval = rows.graded.evaluate([column], query="qid", item="docid", relevance="expert")
        assert docid_order == pytest.approx(trec_eval[column].mean(), abs=1e-12)


def test_ties_among_equal_labels_change_nothing(averaged: dict[str, pl.DataFrame]) -> None:
    """Strategy 1 ties 99.7% of its rows, but against its own values (Fig. 7) every tie
    holds equal labels, so every order of the tied rows is perfect."""
    for column in ohsumed.GRADED:
        assert cell(averaged["fig7"], 1, column) == pytest.approx(1.0)


def test_tie_comparison_sets_both_policies_side_by_side(
    long: pl.DataFrame, tables: dict[str, pl.DataFrame], averaged: dict[str, pl.DataFrame]
) -> None:
    ties = ohsumed.tie_report(long)
    comparison = ohsumed.tie_comparison(tables["fig6"], averaged["fig6"], ties)
    assert comparison["strategy"].to_list() == list(ohsumed.STRATEGIES)
    assert comparison["tied_share"].to_list() == ties["tied_share"].to_list()
    for column in ohsumed.GRADED:
        assert comparison[f"{column} trec_eval"].to_list() == tables["fig6"][column].to_list()
        assert comparison[f"{column} average"].to_list() == averaged["fig6"][column].to_list()
        difference = comparison[f"{column} trec_eval"] - comparison[f"{column} average"]
        assert comparison[f"{column} Δ"].to_list() == difference.to_list()
    lines = ohsumed.tie_sentences(comparison, ties, QUERIES)
    assert lines[0].startswith("Strategies 5, 21, 22 are constant in every query")
    assert f"{cell(averaged['fig6'], 5, 'mu_ap'):.4f}" in lines[0]


# --------------------------------------------------------------------------- helpers


def test_nice_step_picks_round_steps() -> None:
    assert ohsumed.nice_step(5.96) == 5
    assert ohsumed.nice_step(0.125) == pytest.approx(0.1)
    assert ohsumed.nice_step(2.4) == 2
    assert ohsumed.nice_step(30) == 25


def test_rank_agreement_counts_swapped_pairs() -> None:
    table = pl.DataFrame(
        {"strategy": [1, 2, 3, 4], "a": [0.1, 0.2, 0.3, 0.4], "b": [0.1, 0.2, 0.4, 0.3]}
    )
    table = table.with_columns(same=pl.col("a") * 2, reverse=-pl.col("a"))
    assert ohsumed.rank_agreement(table, "a", "same")["tau_b"] == pytest.approx(1.0)
    assert ohsumed.rank_agreement(table, "a", "reverse")["tau_b"] == pytest.approx(-1.0)
    one_swap = ohsumed.rank_agreement(table, "a", "b")
    assert one_swap["swapped"] == 1
    assert one_swap["pairs"] == 6
    assert one_swap["tau_b"] == pytest.approx(4 / 6)


# --------------------------------------------------------------------------- the command


def test_main_prints_the_tables_and_writes_valid_pngs(
    data: Path,
    long: pl.DataFrame,
    tables: dict[str, pl.DataFrame],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["--data", str(data), "--queries", str(QUERIES), "--out", str(tmp_path)]
    assert ohsumed.main(args) == 0
    out = capsys.readouterr().out
    assert "float64" in out
    assert "docid descending" in out
    assert "LETOR 2.0" in out
    assert f"{cell(tables['fig6'], 11, 'mu_ap'):.4f}" in out
    ties = out[out.index("=== Ties: the same table under ties='trec_eval' and ties='average'") :]
    averaged = ohsumed.evaluate_strategies(long, thresholds=(), ties="average")
    assert f"{cell(averaged, 5, 'mu_ap'):.4f}" in ties
    assert "Strategies 5, 21, 22 are constant in every query" in ties
    for name in ("fig6_expert_labels", "fig7_virtual_user_tf", "fig8_virtual_user_tfidf",
                 "ties_trec_eval_vs_average"):  # fmt: skip
        path = tmp_path / f"{name}.png"
        assert path.read_bytes()[:8] == PNG_MAGIC
        height, width, _ = imread(path).shape
        assert height > 200
        assert width > 400


def test_no_plots_writes_nothing(
    data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--data", str(data), "--queries", "3", "--no-plots", "--out", str(tmp_path)]
    assert ohsumed.main(args) == 0
    assert "fig8" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


def test_missing_matplotlib_gives_a_one_line_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert ohsumed.main(["--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "polars-graded[plots]" in err
    assert "--no-plots" in err


def test_missing_data_gives_a_one_line_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert ohsumed.main(["--data", str(tmp_path / "absent"), "--no-plots"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "absent" in err
