"""One contender, timed in its own process: ``python benchmarks/contenders.py NAME PATH``.

Prints one JSON line: the wall time of each phase (read, build, evaluate; imports and
interpreter start-up excluded), the number of queries, and the process's peak RSS before
its first phase (interpreter and imports) and at the end. With ``--dump FILE`` the
per-query values are written to Parquet after the timed part, for the agreement check.
``benchmarks/run.py`` runs these.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import polars as pl

MEASURES = ["mu_ap", "ndcg@10", "ndcng@10", "ap", "p@10", "rr"]
# The four measures every peer has, with the polars_graded names the peers' values get.
PEER_MEASURES = ["ap", "ndcg(gain=linear)@10", "p@10", "rr"]


class Phases:
    """Wall time of named phases: ``with phases("read"): ...`` (a repeated name adds up).

    Attributes
    ----------
    seconds
        Seconds per phase.
    rss_before_kib
        Peak RSS of the process when the first phase starts: the interpreter and imports.
    extra_rss_kib
        Peak RSS of child processes the contender started (Spark's JVM and its workers),
        added to the process's own.
    """

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.rss_before_kib: int | None = None
        self.extra_rss_kib = 0  # peak RSS of child processes (Spark's JVM and workers)

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        """Time the block under ``name``."""
        if self.rss_before_kib is None:
            self.rss_before_kib = peak_rss_kib()
        start = time.perf_counter()
        yield
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start


def peak_rss_kib() -> int:
    """Peak RSS of this process (KiB): ``VmHWM`` in ``/proc/self/status``.

    Not ``getrusage(...).ru_maxrss``: on Linux that also counts the parent's memory copied
    at fork time, before this program was exec'ed.
    """
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def descendants_peak_rss_kib() -> int:
    """The sum of the peak RSS of this process's descendants (still running), in KiB.

    An upper bound of their joint peak: each one's own high-water mark, added.
    """
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    total, todo = 0, list(children.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        total += next((int(line.split()[1]) for line in status.splitlines()
                       if line.startswith("VmHWM:")), 0)  # fmt: skip
    return total


Contender = Callable[[str, Phases], pl.DataFrame]
CONTENDERS: dict[str, Contender] = {}


def contender(name: str) -> Callable[[Contender], Contender]:
    """Register a contender: a function of (path, phases) returning per-query values."""

    def register(function: Contender) -> Contender:
        CONTENDERS[name] = function
        return function

    return register


# --- polars_graded -------------------------------------------------------------------------


@contender("pg_eager")
def pg_eager(path: str, phases: Phases) -> pl.DataFrame:
    """``pl.read_parquet`` then ``df.graded.evaluate(MEASURES)``."""
    import polars_graded  # noqa: F401

    with phases("read"):
        df = pl.read_parquet(path)
    with phases("evaluate"):
        return df.graded.evaluate(MEASURES)


def _pg_lazy(
    path: str, phases: Phases, measures: list[str], engine: str, ranked: bool = False
) -> pl.DataFrame:
    import polars_graded  # noqa: F401

    with phases("evaluate"):
        plan = pl.scan_parquet(path).graded.evaluate(measures, ranked=ranked)
        return plan.collect(engine=engine)  # type: ignore[arg-type]


@contender("pg_ranked")
def pg_ranked(path: str, phases: Phases) -> pl.DataFrame:
    """``evaluate(MEASURES, ranked=True)``, in-memory engine: rows already in ranked order."""
    return _pg_lazy(path, phases, MEASURES, "in-memory", ranked=True)


PARTITION_BUDGET = "4GiB"  # the out-of-core target: 100M rows within 4 GiB of peak RSS


@contender("pg_partitioned")
def pg_partitioned(path: str, phases: Phases) -> pl.DataFrame:
    """``pg.evaluate_parquet(path, MEASURES, memory_budget=PARTITION_BUDGET)``: out of core."""
    import polars_graded as pg

    with phases("evaluate"):
        return pg.evaluate_parquet(path, MEASURES, memory_budget=PARTITION_BUDGET)


SPARK_ROWS_PER_PARTITION = 1_250_000  # ~0.5 GB of Python memory per partition's evaluation
SPARK_CONFIG = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.driver.memory": "4g",  # local mode: the driver's JVM is also the executor
    "spark.sql.shuffle.partitions": "8",
}


@contender("pg_spark")
def pg_spark(path: str, phases: Phases) -> pl.DataFrame:
    """``polars_graded.spark.evaluate`` in Spark local mode (``local[2]``), collected as Arrow.

    ``build`` is the session's start (a JVM); ``evaluate`` reads the Parquet with Spark,
    shuffles, runs the Polars core once per partition and brings the per-query rows back.
    """
    import os
    import sys

    import pyarrow.parquet as pq
    from pyspark.sql import SparkSession

    from polars_graded import spark as pgs

    os.environ["PYSPARK_PYTHON"] = sys.executable
    partitions = max(2, -(-pq.ParquetFile(path).metadata.num_rows // SPARK_ROWS_PER_PARTITION))
    with phases("build"):
        builder = SparkSession.builder.master("local[2]")
        for key, value in SPARK_CONFIG.items():
            builder = builder.config(key, value)
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
    with phases("evaluate"):
        runs = spark.read.parquet(str(Path(path).resolve()))
        values = pgs.evaluate(runs, MEASURES, partitions=partitions).toArrow()
    phases.extra_rss_kib = descendants_peak_rss_kib()  # the JVM and its Python workers
    gateway = spark.sparkContext._gateway
    spark.stop()
    # The JVM exits when its stdin closes; waiting for it here puts its CPU time (and its
    # workers') into this process's children, where run.py counts it as the contender's.
    gateway.shutdown()
    gateway.proc.stdin.close()
    gateway.proc.wait(timeout=120)
    result = pl.from_arrow(values)
    assert isinstance(result, pl.DataFrame)
    return result.sort("query")


# Polars 2's default engine ("auto") is the streaming engine unless POLARS_ENGINE_AFFINITY
# says otherwise: pg_lazy is what a user gets from .collect(), the others force an engine
# (a LazyFrame's evaluation runs on the in-memory engine whichever collects it, so the three
# differ only in reading the file: pg_streaming is kept to show that).
for _name, _measures, _engine, _doc in (
    ("pg_lazy", MEASURES, "auto", "``scan_parquet(path).graded.evaluate(MEASURES).collect()``"),
    ("pg_in_memory", MEASURES, "in-memory", "The same, ``collect(engine='in-memory')``."),
    ("pg_streaming", MEASURES, "streaming", "The same, ``collect(engine='streaming')``."),
    ("pg_peer_measures", PEER_MEASURES, "auto", "Lazy, the four measures the peers compute."),
    ("pg_mu_ap", ["mu_ap"], "auto", "Lazy, µAP alone (for the continuous-labels row)."),
):

    def _run(
        path: str, phases: Phases, measures: list[str] = _measures, engine: str = _engine
    ) -> pl.DataFrame:
        return _pg_lazy(path, phases, measures, engine)

    _run.__doc__ = _doc
    contender(_name)(_run)


# --- the floors: one sort per query, no measure -----------------------------------------------
# The top-k floor (floor_sort_*, floor_topk_*): the least work an @k measure needs. The ranking
# floor (floor_rank_*): every query's labels in ranked order, whole, the least work a
# full-depth measure such as AP needs.

RANKING = pl.col("relevance").sort_by(["score", "item"], descending=True)


def _floor(path: str, phases: Phases, kind: str, engine: str) -> pl.DataFrame:
    lf = pl.scan_parquet(path)
    if kind == "sort":
        plan = lf.sort(["query", "score", "item"], descending=[False, True, True])
        plan = plan.group_by("query").agg(pl.col("relevance").first())
    elif kind == "topk":
        plan = lf.group_by("query").agg(RANKING.head(10).sum())
    else:
        plan = lf.group_by("query").agg(RANKING)
    with phases("evaluate"):
        return plan.collect(engine=engine)  # type: ignore[arg-type]


for _kind in ("sort", "topk"):
    for _engine, _suffix in (("in-memory", "mem"), ("streaming", "stream")):
        contender(f"floor_{_kind}_{_suffix}")(
            lambda path, phases, kind=_kind, engine=_engine: _floor(path, phases, kind, engine)
        )


@contender("floor_rank_stream")
def floor_rank_stream(path: str, phases: Phases) -> pl.DataFrame:
    """The ranking floor, streaming: ``scan_parquet(path).group_by("query").agg(RANKING)``."""
    return _floor(path, phases, "rank", "streaming")


@contender("floor_rank_eager")
def floor_rank_eager(path: str, phases: Phases) -> pl.DataFrame:
    """The ranking floor in memory: ``pl.read_parquet``, then ``group_by("query").agg(RANKING)``.

    Phases as ``pg_eager``'s (read, evaluate), so that either can be compared with the other.
    """
    with phases("read"):
        df = pl.read_parquet(path)
    with phases("evaluate"):
        return df.group_by("query").agg(RANKING)


# --- peers: read with Polars, build their Python inputs, evaluate ----------------------------


def _read_dicts(
    path: str, phases: Phases
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Qrels ``{query: {item: label}}`` and run ``{query: {item: score}}``, ids as strings."""
    with phases("read"):
        df = pl.read_parquet(path)
    with phases("build"):
        grouped = df.group_by("query").agg("item", "relevance", "score")
        grouped = grouped.with_columns(pl.col("query").cast(pl.String))
        grouped = grouped.with_columns(pl.col("item").cast(pl.List(pl.String)))
        rows = list(zip(*(grouped[c].to_list() for c in grouped.columns), strict=True))
        qrels = {q: dict(zip(i, r, strict=True)) for q, i, r, _ in rows}
        run = {q: dict(zip(i, s, strict=True)) for q, i, _, s in rows}
    return qrels, run


def _frame(values: dict[str, dict[str, float]]) -> pl.DataFrame:
    """``{measure: {query: value}}`` as a per-query frame, sorted by query."""
    columns = {name: pl.Series(name, list(v.values())) for name, v in values.items()}
    first = next(iter(values.values()))
    return pl.DataFrame({"query": list(first), **columns}).sort("query")


@contender("pytrec_eval")
def pytrec_eval_(path: str, phases: Phases) -> pl.DataFrame:
    """pytrec_eval (pytrec-eval-terrier): ``RelevanceEvaluator(qrels, ...).evaluate(run)``."""
    import pytrec_eval

    qrels, run = _read_dicts(path, phases)
    names = {"map": "ap", "ndcg_cut_10": "ndcg(gain=linear)@10", "P_10": "p@10", "recip_rank": "rr"}
    with phases("evaluate"):
        evaluator = pytrec_eval.RelevanceEvaluator(
            qrels, {"map", "ndcg_cut.10", "P.10", "recip_rank"}
        )
        result = evaluator.evaluate(run)
    return _frame(
        {ours: {q: v[theirs] for q, v in result.items()} for theirs, ours in names.items()}
    )


@contender("ranx")
def ranx_(path: str, phases: Phases) -> pl.DataFrame:
    """ranx: ``Qrels``/``Run`` from dicts (their numba structures), ``evaluate``."""
    from ranx import Qrels, Run, evaluate

    qrels_dict, run_dict = _read_dicts(path, phases)
    names = {"map": "ap", "ndcg@10": "ndcg(gain=linear)@10", "precision@10": "p@10", "mrr": "rr"}
    with phases("build"):
        qrels, run = Qrels.from_dict(qrels_dict), Run.from_dict(run_dict)
    with phases("evaluate"):
        evaluate(qrels, run, list(names), return_mean=False)
    return _frame({ours: dict(run.scores[theirs]) for theirs, ours in names.items()})


@contender("ir_measures")
def ir_measures_(path: str, phases: Phases) -> pl.DataFrame:
    """ir_measures ``iter_calc`` on dicts (its default pipeline picks pytrec_eval)."""
    import ir_measures
    from ir_measures import AP, RR, P, nDCG

    qrels, run = _read_dicts(path, phases)
    names = {AP: "ap", nDCG @ 10: "ndcg(gain=linear)@10", P @ 10: "p@10", RR: "rr"}
    values: dict[str, dict[str, float]] = {name: {} for name in names.values()}
    with phases("evaluate"):
        for metric in ir_measures.iter_calc(list(names), qrels, run):
            values[names[metric.measure]][metric.query_id] = metric.value
    return _frame(values)


def main() -> None:
    """Run one contender and print its timings as one JSON line."""
    parser = argparse.ArgumentParser(description="Time one contender on one Parquet log.")
    parser.add_argument("name", choices=sorted(CONTENDERS))
    parser.add_argument("path")
    parser.add_argument("--dump", help="write the per-query values to this Parquet file")
    args = parser.parse_args()
    phases = Phases()
    result = CONTENDERS[args.name](args.path, phases)
    peak = peak_rss_kib() + phases.extra_rss_kib
    if args.dump:
        result.write_parquet(args.dump)
    report = {
        "name": args.name,
        "seconds": sum(phases.seconds.values()),
        "phases": phases.seconds,
        "n_queries": result.height,
        "rss_before_kib": phases.rss_before_kib,
        "peak_rss_kib": peak,
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
