"""Every ``trec_eval -m all_trec`` measure against pytrec_eval, per query, on real TREC runs.

The runs and judgments of ``../shared/data`` (read through conftest's ``shared_data``: skips
locally without them, fails under ``CI=true``): TREC 2003 Robust (graded qrels 0/1/2; a
run almost entirely tied, one with integer scores, one with fewer than 1000 rows for some
topics, a short one, an ordinary one, and one whose scores tie as float32 but not as
float64 in every topic) and TREC DL 2019 and 2020 passage (graded qrels 0-3; two runs
each). pytrec_eval (trec_eval 9.0.x) evaluates its ``all_trec`` family at relevance levels 1
and 2 on the queries that are in both the run and the qrels, so our table is joined with
``queries="both"``; trec_eval names map to ours through the registry's templates
(``support.trec_eval.our_measure``).

Under ``compat="trec_eval_9"`` every value must agree with pytrec_eval to 1e-9, everywhere
(float32 scores, 9.x's recall points). The default follows trec_eval 10.0, which changed two
things (conventions §2): scores are compared as doubles, and interpolated precision's recall point
``x`` is the ``lround(x R)``-th relevant row instead of the ``(long)(x R + 0.9)``-th. So the
default must differ from pytrec_eval exactly where those imply: given a run whose scores
order the rows as doubles do (each score replaced by its rank, exact in float32), it agrees
with pytrec_eval except on the iprec_at_recall points (and 11pt_avg) where the two roundings
pick another relevant row; on the run as it is, it differs elsewhere only on queries whose
scores tie as float32 but not as float64.

Not compared here: ``runid``, ``relstring`` and ``num_q`` (not per-query numbers), and
the measures trec_eval 10.0 added to ``all_trec`` (``rbp``, ``rbp_resid``, ``unj_5/10/20``),
which pytrec_eval lacks; ``tests/test_cli_trec_eval.py`` checks them against 10.0's own
expected outputs. ``gm_map`` and ``gm_bpref`` are per query ``log(max(x, 1e-5))`` of
``map`` and ``bpref``.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import polars as pl
import pytest
import pytrec_eval
from support.trec_eval import GEOMETRIC, TOL, our_measure

import polars_graded as pg

ROUNDED = re.compile(r"iprec_at_recall_(\d\.\d+)")
"""The measures 10.0's rounding of the recall points changes (and ``11pt_avg``, their mean)."""
ELEVEN_POINTS = tuple(f"{x / 10:.2f}" for x in range(11))
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
    # every topic holds scores that tie as float32 only (1015.84446716309 and the like)
    "robust-oce03noXbmD": (ROBUST, "runs/input.oce03noXbmD.gz", "robust03_qrels.txt.gz"),
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


@pytest.fixture(scope="module")
def folders(shared_data: Callable[[str], Path]) -> dict[str, Path]:
    return {folder: shared_data(folder) for folder in (ROBUST, DL)}


@dataclass(frozen=True)
class Values:
    """One (query, trec_eval measure) of a run at one relevance level."""

    nine: float
    """Ours with ``compat="trec_eval_9"``."""
    ten: float
    """Ours by default (trec_eval 10.0)."""
    theirs: float
    """pytrec_eval's on the run."""
    theirs_doubles: float
    """pytrec_eval's on the run with each score replaced by its rank among the query's
    scores compared as float64 (so that 9.x's float32 sees the doubles' order)."""


@dataclass(frozen=True)
class Compared:
    values: dict[int, dict[tuple[str, str], Values]]
    """{relevance level: {(query, trec_eval name): values}}"""
    num_rel: dict[int, dict[str, int]]
    """{relevance level: {query: R}}, pytrec_eval's num_rel."""
    float32_tied: frozenset[str]
    """The queries with two scores equal as float32 but not as float64."""


@cache
def compared(root: Path, run_file: str, qrels_file: str) -> Compared:
    """pytrec_eval once per level on the run and on its float64 ranks, ours in one call per
    release."""
    run = pg.read_trec_run(root / run_file)
    qrels = pg.read_trec_qrels(root / qrels_file)
    table = pg.join_run_qrels(run, qrels, queries="both")
    trec_qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for query, item, rel in qrels.select("query", "item", "relevance").iter_rows():
        trec_qrels[query][item] = rel
    ranks = pl.col("score").rank("dense", descending=True).over("query")
    runs: dict[str, dict[str, dict[str, float]]] = {
        "raw": defaultdict(dict),
        "ranks": defaultdict(dict),
    }
    for query, item, score, rank in run.select(
        "query", "item", "score", ranks.alias("r")
    ).iter_rows():
        runs["raw"][query][item] = score
        runs["ranks"][query][item] = -float(rank)
    evaluators = {
        rel: pytrec_eval.RelevanceEvaluator(trec_qrels, ALL_TREC, relevance_level=rel)
        for rel in RELS
    }
    theirs = {
        (rel, kind): evaluator.evaluate(trec_run)
        for rel, evaluator in evaluators.items()
        for kind, trec_run in runs.items()
    }
    names = {
        rel: {
            trec: our_name(trec, rel)
            for trec in next(iter(theirs[rel, "raw"].values()))
            if trec not in NOT_PER_QUERY
        }
        for rel in RELS
    }
    wanted = sorted({name for per_rel in names.values() for name in per_rel.values()})
    ours = {
        compat: {
            row["query"]: row
            for row in pg.evaluate(table, wanted, compat=compat).iter_rows(named=True)
        }
        for compat in ("trec_eval_9", "trec_eval_10")
    }
    out: dict[int, dict[tuple[str, str], Values]] = {}
    for rel in RELS:
        raw, doubles = theirs[rel, "raw"], theirs[rel, "ranks"]
        assert set(ours["trec_eval_9"]) == set(raw) == set(doubles), "other queries evaluated"
        out[rel] = {
            (query, trec): Values(
                ours_value(ours["trec_eval_9"][query][name], trec),
                ours_value(ours["trec_eval_10"][query][name], trec),
                values[trec],
                doubles[query][trec],
            )
            for query, values in raw.items()
            for trec, name in names[rel].items()
        }
    tied = run.group_by("query").agg(
        pl.col("score").n_unique() > pl.col("score").cast(pl.Float32).n_unique()
    )
    return Compared(
        out,
        {rel: {q: int(v["num_rel"]) for q, v in theirs[rel, "raw"].items()} for rel in RELS},
        frozenset(tied.filter(pl.col("score"))["query"]),
    )


def our_name(trec: str, rel: int) -> str:
    """Our column for a trec_eval name (for gm_*: the measure whose log it is)."""
    if trec in GEOMETRIC:
        return str(pg.parse_measure(GEOMETRIC[trec].format(r="" if rel == 1 else f"(rel={rel})")))
    return our_measure(trec, rel)


def ours_value(value: float, trec: str) -> float:
    """Our value as trec_eval prints it per query (gm_*: the log, floored)."""
    return math.log(max(value, MIN_GEO_MEAN)) if trec in GEOMETRIC else float(value)


def compared_of(folders: dict[str, Path], case: str) -> Compared:
    folder, run_file, qrels_file = CASES[case]
    return compared(folders[folder], run_file, qrels_file)


@pytest.mark.parametrize("rel", RELS)
@pytest.mark.parametrize("case", list(CASES))
def test_every_measure_agrees_with_pytrec_eval_under_trec_eval_9(
    folders: dict[str, Path], case: str, rel: int
) -> None:
    """``compat="trec_eval_9"``: every value of every query, iprec_at_recall and 11pt_avg
    included, float32-only ties included."""
    values = compared_of(folders, case).values[rel]
    families = {trec if trec in SUPPORTED else trec.rpartition("_")[0] for _, trec in values}
    assert families == SUPPORTED - NOT_PER_QUERY, "not every pytrec_eval measure is compared"
    bad = [
        (query, trec, v.nine, v.theirs)
        for (query, trec), v in values.items()
        if abs(v.nine - v.theirs) > TOL
    ]
    assert not bad, f"{len(bad)} disagreements, e.g. {bad[:5]}"


def lround(x: float) -> int:
    """trec_eval 10.0's recall point: C's lround (half away from zero; x >= 0 here)."""
    return math.floor(x + 0.5)


def truncated(x: float) -> int:
    """trec_eval 9.0.x's recall point: ``(long)(x + 0.9)``."""
    return int(x + 0.9)


def rounding_differs(trec: str, num_rel: int) -> bool:
    """Whether 10.0 and 9.x stand a recall point of ``trec`` for other relevant rows."""
    points = ELEVEN_POINTS if trec == "11pt_avg" else ()
    if match := ROUNDED.fullmatch(trec):
        points = (match[1],)
    return any(lround(float(x) * num_rel) != truncated(float(x) * num_rel) for x in points)


def test_the_default_differs_from_trec_eval_9_only_by_10s_rounding(
    folders: dict[str, Path],
) -> None:
    """Given the doubles' order (the run's scores replaced by their float64 ranks), the
    default differs from pytrec_eval only on the recall points whose rounding differs, and
    is never below it there (10.0's relevant row is never a later one). Each rounded measure
    differs on some query: the rule matters."""
    differs: set[str] = set()
    unexplained, below = [], []
    for case in CASES:
        found = compared_of(folders, case)
        for rel, values in found.values.items():
            for (query, trec), v in values.items():
                if abs(v.ten - v.theirs_doubles) <= TOL:
                    continue
                differs.add(trec)
                if not rounding_differs(trec, found.num_rel[rel][query]):
                    unexplained.append((case, rel, query, trec, v.ten, v.theirs_doubles))
                elif v.ten < v.theirs_doubles - TOL:
                    below.append((case, rel, query, trec, v.ten, v.theirs_doubles))
    assert not unexplained, f"{len(unexplained)} unexplained, e.g. {unexplained[:5]}"
    assert not below, f"ours below trec_eval 9.0.x: {below[:5]}"
    # 0.00, 0.50 and 1.00 are absent: both versions pick the same relevant row there
    rounded = {f"iprec_at_recall_{x}" for x in ELEVEN_POINTS if x not in ("0.00", "0.50", "1.00")}
    assert differs == {*rounded, "11pt_avg"}


def test_the_default_differs_from_trec_eval_9_only_on_float32_ties(
    folders: dict[str, Path],
) -> None:
    """On the runs as they are, besides the rounded recall points, the default differs from
    pytrec_eval only on queries with scores that tie as float32 and not as float64 (10.0
    compares doubles); there it does differ (the run robust-oce03noXbmD has such queries),
    and there only: ``compat="trec_eval_9"`` agrees."""
    tied_differ = 0
    unexplained = []
    for case in CASES:
        found = compared_of(folders, case)
        for rel, values in found.values.items():
            for (query, trec), v in values.items():
                if abs(v.ten - v.theirs) <= TOL or rounding_differs(
                    trec, found.num_rel[rel][query]
                ):
                    continue
                if query in found.float32_tied:
                    tied_differ += 1
                else:
                    unexplained.append((case, rel, query, trec, v.ten, v.theirs))
    assert not unexplained, f"{len(unexplained)} unexplained, e.g. {unexplained[:5]}"
    assert tied_differ > 0
