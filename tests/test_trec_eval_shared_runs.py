"""Every ``trec_eval -m all_trec`` measure against pytrec_eval, per query, on real TREC runs.

The runs and judgments of ``../shared/data`` (read through conftest's ``shared_data``: skips
locally without them, fails under ``CI=true``): TREC 2003 Robust (graded qrels 0/1/2; a
run almost entirely tied, one with integer scores, one with fewer than 1000 rows for some
topics, a short one and an ordinary one) and TREC DL 2019 and 2020 passage (graded qrels
0-3; two runs each). pytrec_eval (trec_eval 9.0.x) evaluates its ``all_trec`` family at
relevance levels 1 and 2 on the queries that are in both the run and the qrels, so our
table is joined with ``queries="both"``; trec_eval names map to ours through the
registry's templates (``trec_eval_references.our_measure``). Every value must agree to 1e-9,
except the ones :data:`EXCLUDED` names, where trec_eval 10.0 (which we follow) changed the
computation: for those the test checks that the exclusion is needed (the values differ
somewhere) and that the difference goes the way the change implies.

Not compared here: ``runid``, ``relstring`` and ``num_q`` (not per-query numbers), and
the measures trec_eval 10.0 added to ``all_trec`` (``rbp``, ``rbp_resid``, ``unj_5/10/20``),
which pytrec_eval lacks; ``tests/test_cli_trec_eval.py`` checks them against 10.0's own
expected outputs. ``gm_map`` and ``gm_bpref`` are per query ``log(max(x, 1e-5))`` of
``map`` and ``bpref``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
import pytrec_eval
from test_trec_eval_files import GEOMETRIC
from trec_eval_references import TOL, our_measure

import polars_graded as pg

_ROUNDED = (
    "trec_eval 10.0 interpolates at the lround(x*R)-th relevant row, 9.0.x (pytrec_eval) at "
    "the (long)(x*R + 0.9)-th: never later, so ours is never below pytrec_eval's"
)
# 0.00, 0.50 and 1.00 are absent: both versions pick the same relevant row there
EXCLUDED: dict[str, str] = {
    **{
        f"iprec_at_recall_{x}": _ROUNDED
        for x in ("0.10", "0.20", "0.30", "0.40", "0.60", "0.70", "0.80", "0.90")
    },
    "11pt_avg": f"the mean of iprec_at_recall_0.00..1.00; {_ROUNDED}",
}
NOT_PER_QUERY = frozenset({"runid", "relstring", "num_q"})
SUPPORTED = frozenset(pytrec_eval.supported_measures)
MIN_GEO_MEAN = 1e-5  # trec_eval's floor before the log of gm_map and gm_bpref
RELS = (1, 2)
ALL_TREC = {"all_trec"}

ROBUST = "trec2003-robust"
DL = "trec-dl-2019-2020-passage"
# (data folder, run, qrels), paths inside the folder (see each folder's SOURCE.md)
CASES = {
    "robust-rutcor03100": (ROBUST, "runs/input.rutcor03100.gz", "robust03_qrels.txt.gz"),
    "robust-MU03rob01": (ROBUST, "runs/input.MU03rob01.gz", "robust03_qrels.txt.gz"),
    "robust-uic0301": (ROBUST, "runs/input.uic0301.gz", "robust03_qrels.txt.gz"),
    "robust-NLPR03vb10": (ROBUST, "runs/input.NLPR03vb10.gz", "robust03_qrels.txt.gz"),
    "robust-SABIR03BASE": (ROBUST, "runs/input.SABIR03BASE.gz", "robust03_qrels.txt.gz"),
    **{
        f"dl{year}-{system}": (
            DL,
            f"runs/{system}/trec_results_dl{year}.txt.gz",
            f"qrels.dl{year}-passage.txt",
        )
        for year in ("19", "20")
        for system in ("BM25", "SPLADE_P_P_ENSEMBLE_DISTIL")
    },
}

# {(query, trec_eval name): (ours, pytrec_eval's)}
Pairs = dict[tuple[str, str], tuple[float, float]]


@pytest.fixture(scope="module")
def folders(shared_data: Callable[[str], Path]) -> dict[str, Path]:
    return {folder: shared_data(folder) for folder in (ROBUST, DL)}


@cache
def compared(root: Path, run_file: str, qrels_file: str) -> dict[int, Pairs]:
    """{relevance level: pairs} of one run: pytrec_eval once per level, ours in one call."""
    run = pg.read_trec_run(root / run_file)
    qrels = pg.read_trec_qrels(root / qrels_file)
    table = pg.join_run_qrels(run, qrels, queries="both")
    trec_qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for query, item, rel in qrels.select("query", "item", "relevance").iter_rows():
        trec_qrels[query][item] = rel
    trec_run: dict[str, dict[str, float]] = defaultdict(dict)
    for query, item, score in run.select("query", "item", "score").iter_rows():
        trec_run[query][item] = score
    evaluators = {
        rel: pytrec_eval.RelevanceEvaluator(trec_qrels, ALL_TREC, relevance_level=rel)
        for rel in RELS
    }
    theirs = {rel: evaluator.evaluate(trec_run) for rel, evaluator in evaluators.items()}
    names = {
        rel: {
            trec: our_name(trec, rel)
            for trec in next(iter(theirs[rel].values()))
            if trec not in NOT_PER_QUERY
        }
        for rel in RELS
    }
    wanted = sorted({name for per_rel in names.values() for name in per_rel.values()})
    ours = {row["query"]: row for row in pg.evaluate(table, wanted).iter_rows(named=True)}
    out: dict[int, Pairs] = {}
    for rel in RELS:
        assert set(ours) == set(theirs[rel]), "ours and pytrec_eval evaluate other queries"
        out[rel] = {
            (query, trec): (ours_value(ours[query][name], trec), values[trec])
            for query, values in theirs[rel].items()
            for trec, name in names[rel].items()
        }
    return out


def our_name(trec: str, rel: int) -> str:
    """Our column for a trec_eval name (for gm_*: the measure whose log it is)."""
    if trec in GEOMETRIC:
        return str(pg.parse_measure(GEOMETRIC[trec].format(r="" if rel == 1 else f"(rel={rel})")))
    return our_measure(trec, rel)


def ours_value(value: float, trec: str) -> float:
    """Our value as trec_eval prints it per query (gm_*: the log, floored)."""
    return math.log(max(value, MIN_GEO_MEAN)) if trec in GEOMETRIC else float(value)


def pairs_of(folders: dict[str, Path], case: str) -> dict[int, Pairs]:
    folder, run_file, qrels_file = CASES[case]
    return compared(folders[folder], run_file, qrels_file)


@pytest.mark.parametrize("rel", RELS)
@pytest.mark.parametrize("case", list(CASES))
def test_every_measure_agrees_with_pytrec_eval(
    folders: dict[str, Path], case: str, rel: int
) -> None:
    pairs = pairs_of(folders, case)[rel]
    families = {trec if trec in SUPPORTED else trec.rpartition("_")[0] for _, trec in pairs}
    assert families == SUPPORTED - NOT_PER_QUERY, "not every pytrec_eval measure is compared"
    bad = [
        (query, trec, ours, theirs)
        for (query, trec), (ours, theirs) in pairs.items()
        if trec not in EXCLUDED and abs(ours - theirs) > TOL
    ]
    assert not bad, f"{len(bad)} disagreements, e.g. {bad[:5]}"


def test_excluded_measures_differ_from_trec_eval_9(folders: dict[str, Path]) -> None:
    """Each exclusion is needed (differs on some query) and goes the way 10.0's rounding does."""
    differs: set[str] = set()
    below: list[tuple[str, int, str, str, float, float]] = []
    for case in CASES:
        for rel, pairs in pairs_of(folders, case).items():
            for (query, trec), (ours, theirs) in pairs.items():
                if trec not in EXCLUDED:
                    continue
                if abs(ours - theirs) > TOL:
                    differs.add(trec)
                if ours < theirs - TOL:
                    below.append((case, rel, query, trec, ours, theirs))
    assert differs == set(EXCLUDED), f"agree everywhere: {sorted(set(EXCLUDED) - differs)}"
    assert not below, f"ours below trec_eval 9.0.x: {below[:5]}"
