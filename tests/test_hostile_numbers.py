"""Numbers that were silently wrong (issue 26, items 2 and 3): the score precision of the
ranking, and ``judged_only`` (trec_eval's ``-J``) on negative labels.

trec_eval 10.0 compares scores as doubles; 9.x and pytrec_eval as 32-bit floats. The default
follows 10.0, ``compat="trec_eval_9"`` reproduces pytrec_eval exactly (float32 scores and its
recall points), and the ``ir_measures:`` names use it. trec_eval (9.x and 10.0) judges labels
>= 0 only, so under ``-J`` a negative label leaves the ranking as an unjudged row does.
The references here are pytrec_eval and trec_eval 10.0's own output in ``../shared/data``.
"""

from __future__ import annotations

import gzip
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import pytrec_eval
from support.tables import make_random_table
from support.trec_eval import trec_dicts

import polars_graded as pg
from polars_graded import cli

TOL = 1e-9
SYSTEMS = ("s0", "s1")
# trec_eval name -> ours, at relevance level 1
TREC = {
    "map": "ap",
    "recip_rank": "rr",
    "P_5": "p@5",
    "P_10": "p@10",
    "ndcg_cut_10": "ndcg(gain=linear)@10",
    "ndcg": "ndcg(gain=linear)",
    "bpref": "bpref",
    "Rprec": "r_precision",
    "num_ret": "num_ret",
    "num_rel_ret": "num_rel_ret",
    "recall_10": "recall@10",
    "success_5": "success@5",
    "map_cut_10": "ap@10",
}
IPREC = {
    f"iprec_at_recall_{x / 10:.2f}": pg.measure_name(f"iprec(recall={x / 10:g})") for x in range(11)
}
TREC_MEASURES = {"map", "recip_rank", "P.5,10", "ndcg_cut.10", "ndcg", "bpref", "Rprec"}
TREC_MEASURES |= {"num_ret", "num_rel_ret", "recall.10", "success.5", "map_cut.10"}

# Two rows whose scores are equal as float32, not as float64: 10.0 ranks the higher score
# first, 9.x sees a tie and ranks the larger item ("b") first.
NEAR_TIE = pl.DataFrame(
    {"query": ["q"] * 2, "item": ["a", "b"], "score": [1000 + 1e-9, 1000.0], "relevance": [1, 0]}
)


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    """Two systems, 240 queries: float32-only ties, negative labels, unjudged rows."""
    return make_random_table(
        26,
        systems=len(SYSTEMS),
        queries=240,
        max_items=40,
        int_labels=True,
        label_kinds=("few",),
        trec_eval_safe=True,
    ).sort("system", "query", "item")


def pytrec(
    table: pl.DataFrame, measures: set[str], *, judged_only: bool = False
) -> dict[tuple[str, str, str], float]:
    """{(system, query, our name): pytrec_eval's value} for the queries it evaluates."""
    out = {}
    evaluator_class = pytrec_eval.RelevanceEvaluator.__mro__[1]  # splits no parameters
    names = TREC | IPREC
    for system in SYSTEMS:
        qrels, run = trec_dicts(table, system)
        evaluator = evaluator_class(
            query_relevance=qrels,
            measures=measures,
            relevance_level=1,
            judged_docs_only_flag=judged_only,
        )
        for query, values in evaluator.evaluate(run).items():
            for trec, value in values.items():
                out[system, query, names[trec]] = value
    return out


def ours(
    table: pl.DataFrame, names: list[str], **options: Any
) -> dict[tuple[str, str, str], float]:
    """{(system, query, name): our value}."""
    per_query = table.graded.evaluate(names, by="system", **options)
    return {
        (row["system"], row["query"], name): row[name]
        for row in per_query.iter_rows(named=True)
        for name in names
    }


def differences(
    expected: dict[tuple[str, str, str], float], got: dict[tuple[str, str, str], float]
) -> list[tuple[tuple[str, str, str], float, float]]:
    return [(key, got[key], v) for key, v in expected.items() if abs(got[key] - v) > TOL]


def test_the_table_has_float32_only_ties_and_negative_labels(table: pl.DataFrame) -> None:
    per_query = table.group_by("system", "query").agg(
        f64=pl.col("score").drop_nulls().n_unique(),
        f32=pl.col("score").drop_nulls().cast(pl.Float32).n_unique(),
    )
    assert per_query.filter(pl.col("f64") > pl.col("f32")).height >= 50
    assert (table["relevance"] < 0).sum() >= 100
    assert table["relevance"].null_count() >= 100


def test_the_default_compares_scores_as_doubles() -> None:
    assert pg.evaluate(NEAR_TIE, ["rr"])["rr"].to_list() == [1.0]
    assert pg.evaluate(NEAR_TIE, ["rr"], compat="trec_eval_9")["rr"].to_list() == [0.5]
    assert NEAR_TIE.group_by("query").agg(pg.rr(compat="trec_eval_9"))["rr"].to_list() == [0.5]
    assert NEAR_TIE.group_by("query").agg(pg.rr())["rr"].to_list() == [1.0]


def test_ranked_input_is_checked_at_the_same_precision() -> None:
    # b before a is trec_eval 9's order (a float32 tie, item descending), not 10.0's
    nine_order = NEAR_TIE.reverse()
    assert pg.evaluate(nine_order, ["rr"], ranked=True, compat="trec_eval_9")["rr"][0] == 0.5
    with pytest.raises(pg.GradedError, match="order"):
        pg.evaluate(nine_order, ["rr"], ranked=True)


def test_compat_trec_eval_9_equals_pytrec_eval_exactly(table: pl.DataFrame) -> None:
    expected = pytrec(table, TREC_MEASURES | {"iprec_at_recall"})
    got = ours(table, [*TREC.values(), *IPREC.values()], compat="trec_eval_9")
    assert not differences(expected, got)


def test_the_default_differs_from_pytrec_eval_only_by_10_0s_changes(table: pl.DataFrame) -> None:
    expected = pytrec(table, TREC_MEASURES)
    default = ours(table, list(TREC.values()))
    changed = differences(expected, default)
    assert changed  # the float32-only ties move values
    tied = {
        (s, q)
        for (s, q), group in table.group_by("system", "query")
        if group["score"].drop_nulls().n_unique()
        > group["score"].drop_nulls().cast(pl.Float32).n_unique()
    }
    assert {(s, q) for (s, q, _), _, _ in changed} <= tied


def test_ir_measures_names_follow_trec_eval_9(table: pl.DataFrame) -> None:
    names = {"ir_measures:RR": "rr", "ir_measures:AP": "ap", "ir_measures:P@5": "p@5"}
    names |= {"ir_measures:IPrec@0.2": "iprec(recall=0.2)"}
    per_query = table.graded.evaluate([*names, "rr"], by="system")
    pinned = ours(table, list(names.values()), compat="trec_eval_9")
    for row in per_query.iter_rows(named=True):
        for ir_name, name in names.items():
            column = ir_name.removeprefix("ir_measures:")
            assert row[column] == pinned[row["system"], row["query"], name]
    # the native name beside them keeps 10.0's ranking
    assert per_query["rr"].to_list() != per_query["RR"].to_list()
    assert per_query.columns == ["system", "query", "RR", "AP", "P@5", "IPrec@0.2", "rr"]


def test_judged_only_drops_negative_labels_as_trec_eval(table: pl.DataFrame) -> None:
    expected = pytrec(table, TREC_MEASURES, judged_only=True)
    got = ours(table, list(TREC.values()), judged_only=True, compat="trec_eval_9")
    assert not differences(expected, got)


def test_judged_only_on_one_negative_label() -> None:
    df = pl.DataFrame(
        {
            "query": ["q"] * 3,
            "item": ["a", "b", "c"],
            "score": [3.0, 2.0, 1.0],
            "relevance": [-2, 0, 1],
        }
    )
    values = pg.evaluate(df, ["rr", "num_ret", "p@2"], judged_only=True).row(0, named=True)
    assert values == {"query": "q", "rr": 0.5, "num_ret": 2, "p@2": 0.5}


def test_robust_run_prints_trec_eval_10s_map_under_J(
    shared_data: Callable[[str], Path],
) -> None:
    """SOURCE.md's example: map of oce03noXbmD query 623 under -J is 0.5571 in 10.0."""
    root = shared_data("trec2003-robust")
    run = pg.read_trec_run(root / "runs" / "input.oce03noXbmD.gz")
    qrels = pg.read_trec_qrels(root / "robust03_qrels.txt.gz")
    table = pg.join_run_qrels(run, qrels, queries="both").filter(pl.col("query") == "623")
    printed: defaultdict[str, dict[str, str]] = defaultdict(dict)
    with gzip.open(root / "trec_eval-10.0" / "oce03noXbmD.J.all_trec.txt.gz", "rt") as lines:
        for line in lines:
            name, query, value = (field.strip() for field in line.split("\t"))
            printed[name][query] = value
    assert printed["map"]["623"] == "0.5571"
    ap = pg.evaluate(table, ["ap"], judged_only=True)["ap"][0]
    ap9 = pg.evaluate(table, ["ap"], judged_only=True, compat="trec_eval_9")["ap"][0]
    assert f"{ap:.4f}" == "0.5571"
    assert f"{ap9:.4f}" == "0.5570"  # trec_eval 9.x's, and ebcf277's default


def test_trec_eval_command_prints_either_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run.txt"
    run.write_text("q Q0 a 1 1000.000000001 t\nq Q0 b 2 1000.0 t\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q 0 a 1\nq 0 b 0\n")
    printed = {}
    for compat in ("trec_eval_10", "trec_eval_9"):
        argv = ["trec-eval", "--compat", compat, "-m", "recip_rank", str(qrels), str(run)]
        assert cli.main(argv) == 0
        printed[compat] = capsys.readouterr().out.split()[-1]
    qrels_dict, run_dict = {"q": {"a": 1, "b": 0}}, {"q": {"a": 1000.000000001, "b": 1000.0}}
    nine = pytrec_eval.RelevanceEvaluator(qrels_dict, {"recip_rank"}).evaluate(run_dict)
    assert printed == {"trec_eval_10": "1.0000", "trec_eval_9": f"{nine['q']['recip_rank']:.4f}"}
    assert printed["trec_eval_9"] == "0.5000"
