"""trec_eval's own test files: every measure both compute agrees at the printed precision.

The inputs and expected outputs are the ``test/`` folder of NIST's trec_eval (see SOURCE.md
in the data folder): the top-level ``out.*`` files are trec_eval 10.0, ``v9.0.8-expected/``
holds 9.0.8's. The measures we compare do not differ between the two versions except that
10.0 also prints the per-query zeros of a topic the run missed (``-c``), so both sets are
checked: 10.0's with our default, 9.0.8's with ``compat="trec_eval_9"`` (the release each
reproduces, conventions §2). trec_eval prints 4 decimals: a value agrees when it is within half a
unit of the last printed digit. The files are read through conftest's ``shared_data``
(skips locally without them, fails under ``CI=true``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import polars as pl
import pytest
from support.trec_eval import GEOMETRIC, TEMPLATES, read_trec_eval_output

import polars_graded as pg
from polars_graded.io.trec import QueriesMode
from polars_graded.options import Compat

V9 = "v9.0.8-expected"
COMPAT: dict[str, Compat] = {"": "trec_eval_10", V9: "trec_eval_9"}
"""The ``compat=`` of each folder's trec_eval release."""
PRINTED = 0.5e-4 + 1e-12

CUSTOM_NDCG = re.compile(r"ndcg_((?:-?\d+=[\d.]+,?)+)")
CUTOFF = re.compile(r"(map_cut|P|recall|ndcg_cut|success)_(\d+)")


@dataclass(frozen=True)
class Case:
    """One expected-output file and the trec_eval command line that made it."""

    out: str
    qrels: str
    run: str
    rel: int = 1  # -l
    queries: QueriesMode = "qrels"  # -c: "qrels"; without -c: "both"
    max_docs: int | None = None  # -M
    min_compared: int = 1
    in_v9: bool = True  # 9.0.8 had no out.comment.test
    geometric: bool = True  # prints gm_map (out.test.meas_params does not)

    def __str__(self) -> str:
        return self.out


CASES = [
    # out.test was made from both qrels files; the one with comments checks the reader
    Case("out.test", "qrels.test.with-comments", "results.test", min_compared=12),
    Case("out.test.aq", "qrels.test", "results.test", min_compared=4 * 42),
    Case("out.test.aqc", "qrels.test", "results.trunc", min_compared=3 * 42),
    Case("out.test.aqcM", "qrels.test", "results.trunc", max_docs=100, min_compared=78),
    Case("out.test.aql", "qrels.rel_level", "results.test", rel=2, min_compared=4 * 42),
    Case("out.test.meas_params", "qrels.test", "results.test", min_compared=4 * 9, geometric=False),
    Case(
        "out.comment.test",
        "qrels.comment.test",
        "results.comment.test.gz",
        queries="both",
        min_compared=12,
        in_v9=False,
    ),
]


def our_measure(trec: str, case: Case) -> str | None:
    """The polars_graded measure a trec_eval output line reports, or None."""
    r = "" if case.rel == 1 else f"(rel={case.rel})"
    if custom := CUSTOM_NDCG.fullmatch(trec):
        text = f"ndcg(gain={{{custom[1].replace('=', ':')}}})"
    elif cut := CUTOFF.fullmatch(trec):
        base, k = cut[1], int(cut[2])
        if case.max_docs is not None and k > case.max_docs:
            return None  # -M changes P_k, recall_k, ... beyond the cut
        text = TEMPLATES[base].format(r=r, k=k)
    elif case.max_docs is not None:
        # under -M, AP and RR see the top max_docs only; other measures change otherwise
        cut_only = {"map": "ap{r}@{k}", "recip_rank": "rr{r}@{k}"}
        if trec not in cut_only:
            return None
        text = cut_only[trec].format(r=r, k=case.max_docs)
    elif trec in TEMPLATES and "{k}" not in TEMPLATES[trec]:
        # Parameterised ones (iprec_at_recall, Rprec_mult, utility...): test_cli_trec_eval.
        text = TEMPLATES[trec].format(r=r)
    else:
        return None
    return str(pg.parse_measure(text))


@cache
def long_table(data: Path, case: Case) -> pl.DataFrame:
    run = pg.read_trec_run(data / case.run)
    qrels = pg.read_trec_qrels(data / case.qrels)
    return pg.join_run_qrels(run, qrels, queries=case.queries)


@pytest.fixture(scope="module")
def data(shared_data: Callable[[str], Path]) -> Path:
    """trec_eval's ``test/`` folder."""
    return shared_data("trec_eval-test")


VERSIONS = [
    pytest.param(case, folder, id=f"{case}-{folder or '10.0'}")
    for case in CASES
    for folder in ["", V9][: 1 + case.in_v9]
]


@pytest.mark.parametrize(("case", "folder"), VERSIONS)
def test_values_agree_with_trec_eval(data: Path, case: Case, folder: str) -> None:
    expected = read_trec_eval_output(data / folder / case.out)
    wanted = {(m, q): v for (m, q), v in expected.items() if our_measure(m, case)}
    names = sorted({name for m, _ in wanted if (name := our_measure(m, case))})
    table = long_table(data, case)
    compat = COMPAT[folder]
    evaluated = table.graded.evaluate(names, compat=compat)
    per_query = {row["query"]: row for row in evaluated.iter_rows(named=True)}
    per_query["all"] = table.graded.summary(names, compat=compat).row(0, named=True)
    # trec_eval sums counts (num_ret, ...) over queries where it averages the others.
    counts = [name for name in names if pg.parse_measure(name).declaration.counts]
    if counts:
        sums = evaluated.select(counts).sum()
        per_query["all"].update(sums.row(0, named=True))
    if ("num_q", "all") in expected:
        assert per_query["all"]["num_q"] == int(expected["num_q", "all"])
    compared, wrong = 0, []
    for (trec, query), printed in wanted.items():
        name = our_measure(trec, case)
        assert name, trec
        ours = per_query[query][name]
        compared += 1
        if abs(ours - float(printed)) > PRINTED:
            wrong.append(f"{trec} {query}: trec_eval {printed}, ours {ours:.6f}")
    assert compared >= case.min_compared
    assert not wrong, f"{len(wrong)} of {compared} differ: {wrong[:10]}"


# -M cuts AP but not bpref, so its geometric means are not ours
WITH_GEOMETRIC = [
    param
    for param in VERSIONS
    if isinstance(param.values[0], Case)
    and param.values[0].geometric
    and param.values[0].max_docs is None
]


@pytest.mark.parametrize(("case", "folder"), WITH_GEOMETRIC)
def test_geometric_means_agree_with_trec_eval(data: Path, case: Case, folder: str) -> None:
    """gm_map and gm_bpref: ``summary(mean="geometric")`` of ap and bpref."""
    expected = read_trec_eval_output(data / folder / case.out)
    wanted = {m: v for (m, q), v in expected.items() if q == "all" and m in GEOMETRIC}
    assert wanted, f"no gm_map or gm_bpref in {case.out}"
    r = "" if case.rel == 1 else f"(rel={case.rel})"
    names = [GEOMETRIC[m].format(r=r) for m in wanted]
    table = long_table(data, case)
    ours = table.graded.summary(names, mean="geometric", compat=COMPAT[folder]).row(0, named=True)
    for (trec, printed), name in zip(wanted.items(), names, strict=True):
        assert abs(ours[f"gm_{name}"] - float(printed)) <= PRINTED, trec


def test_ndcg_on_graded_qrels_uses_the_labels_as_gains(data: Path) -> None:
    """out.test.aql: with -l2 binary measures move, ndcg does not (it uses the gains)."""
    aq = read_trec_eval_output(data / "out.test.aq")
    aql = read_trec_eval_output(data / "out.test.aql")
    assert aq["map", "all"] != aql["map", "all"]
    assert aq["ndcg", "all"] != aql["ndcg", "all"]  # graded gains, not 0/1
    table = long_table(data, CASES[4])
    linear = table.graded.summary(["ndcg(gain=linear)", "ndcg"]).row(0, named=True)
    assert abs(linear["ndcg(gain=linear)"] - float(aql["ndcg", "all"])) <= PRINTED
    assert abs(linear["ndcg"] - float(aql["ndcg", "all"])) > PRINTED  # exp gain differs


def test_comment_qrels_keep_hash_doc_ids(data: Path) -> None:
    qrels = pg.read_trec_qrels(data / "qrels.comment.test")
    assert qrels.height == 5890
    assert qrels["query"].n_unique() == 31
    assert qrels["item"].str.contains("#", literal=True).all()
    commented = pg.read_trec_qrels(data / "qrels.test.with-comments")
    plain = pg.read_trec_qrels(data / "qrels.test")
    assert commented.height == plain.height == 3681
    assert "CR#93E-1860" in commented["item"]


def test_trunc_run_ignores_junk_after_the_tag(data: Path) -> None:
    run = pg.read_trec_run(data / "results.trunc")
    assert run.height == 584
    assert run["tag"].unique().to_list() == ["STANDARD"]
    assert set(run["query"]) == {"301", "303"}
    gz = pg.read_trec_run(data / "results.comment.test.gz")
    assert gz.height == 30100
    assert gz["query"].n_unique() == 301
