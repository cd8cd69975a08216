"""Benchmark polars_graded against a floor and its peers: ``python benchmarks/run.py``.

Every run of every contender is a fresh process (``benchmarks/contenders.py NAME PATH``) on
the same cached Parquet log (``benchmarks/generate.py``). The child times its own phases
(imports excluded) and reports its peak RSS (``VmHWM``); the parent polls the child's
memory to stop it before it exhausts the machine. Results go to
``benchmarks/results/<date>-<size>.json`` and ``benchmarks/results/latest.md`` (the newest
result of every size).
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib.metadata
import importlib.util
import json
import os
import platform
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import polars as pl
from generate import DATA_DIR, LogSpec, ensure, format_size, parse_size
from readme_table import newest_results, update_page

HERE = Path(__file__).resolve().parent
RESULTS_DIR = HERE / "results"
CONTENDERS_PY = HERE / "contenders.py"

PG = [
    "pg_eager",
    "pg_lazy",
    "pg_in_memory",
    "pg_streaming",
    "pg_peer_measures",
    "pg_mu_ap",
    "pg_partitioned",
    "pg_spark",
]
PEERS = {"pytrec_eval": "pytrec_eval", "ranx": "ranx", "ir_measures": "ir_measures"}
REQUIRES = {"pg_spark": "pyspark"}  # contenders of ours that need an optional extra
# The top-k floor of a file is the fastest of FLOORS (the least an @k measure needs), its
# ranking floor the fastest of RANKING_FLOORS (every ranking sorted whole: the least AP needs).
FLOORS = ["floor_sort_mem", "floor_sort_stream", "floor_topk_mem", "floor_topk_stream"]
RANKING_FLOORS = ["floor_rank_eager", "floor_rank_stream"]
ALL_FLOORS = (*FLOORS, *RANKING_FLOORS)
REFERENCE = "pg_peer_measures"  # polars_graded on the measures the peers share
SHARED = ["ap", "ndcg(gain=linear)@10", "p@10", "rr"]
# Peak RSS per input row in bytes (measured at 10M, plus ~10%), to skip what would not fit.
BYTES_PER_ROW = {
    "pg_eager": 200,
    "pg_lazy": 190,
    "pg_in_memory": 190,  # 170 at 10M, 156 at 100M
    "pg_streaming": 190,
    "pg_peer_measures": 195,
    "pg_mu_ap": 180,
    "pg_ranked": 200,
    "pg_partitioned": 5,  # bounded by its memory budget, whatever the size
    "pg_spark": 450,  # 1.4 GiB at 1M with the JVM (heap capped at 4g) and its workers
    "pytrec_eval": 300,
    "ir_measures": 300,
    "ranx": 535,
}
DEFAULT_BYTES_PER_ROW = 200  # the floors need ~130
VARIANT_BYTES_PER_ROW = {("continuous", "pg_mu_ap"): 280}  # ~100 levels per query
BUSY_CORES = 0.25  # flag a row if other processes used more CPU than this during a run
SMALL_FILE_ROWS = 20_000  # for the warm-up run of each contender


@dataclass(frozen=True)
class Variant:
    """One input file and the contenders run on it."""

    name: str
    what: str
    spec: dict[str, str] = field(default_factory=dict)
    contenders: tuple[str, ...] = ()


VARIANTS = (
    Variant("main", "graded 0-4, string ids, shuffled", {}, (*PG, *PEERS, *ALL_FLOORS)),
    Variant(
        "continuous",
        "labels in [0, 4], ~100 distinct per query",
        {"labels": "continuous"},
        ("pg_mu_ap", *ALL_FLOORS),
    ),
    Variant(
        "ranked",
        "sorted by query, score desc, item desc",
        {"order": "ranked"},
        ("pg_eager", "pg_lazy", "pg_in_memory", "pg_ranked", *ALL_FLOORS),
    ),
    Variant(
        "int_ids",
        "Int64 query and item ids",
        {"ids": "int"},
        ("pg_lazy", "pg_in_memory", *ALL_FLOORS),
    ),
    Variant(
        "dir",
        "main's rows in a directory of 10 files, every query spread over all of them",
        {"files": 10},
        ("pg_partitioned", *ALL_FLOORS),
    ),
)


# --- the machine --------------------------------------------------------------------------


def _meminfo(key: str) -> int:
    """A ``/proc/meminfo`` field in bytes."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


def machine() -> dict[str, Any]:
    """CPU count and model, memory, load average."""
    models = [
        line.split(":", 1)[1].strip()
        for line in Path("/proc/cpuinfo").read_text().splitlines()
        if line.startswith("model name")
    ]
    return {
        "cpu_count": os.cpu_count(),
        "cpu_model": models[0] if models else platform.processor(),
        "memory_gib": round(_meminfo("MemTotal") / 2**30, 1),
        "load_average_1m": os.getloadavg()[0],
        "polars_engine_affinity": os.environ.get("POLARS_ENGINE_AFFINITY"),
        "platform": platform.platform(),
    }


def versions() -> dict[str, str | None]:
    """Versions of Python, Polars, polars_graded (with its git commit) and the peers."""
    out: dict[str, str | None] = {"python": platform.python_version()}
    for dist in (
        "polars",
        "polars-graded",
        "numpy",
        "pyarrow",
        "pytrec-eval-terrier",
        "ranx",
        "ir-measures",
        "numba",
    ):
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = None
    git = ["git", "-C", str(HERE.parent)]
    try:
        commit, dirty = (
            subprocess.run([*git, *cmd], capture_output=True, text=True, check=True).stdout.strip()
            for cmd in (
                ["rev-parse", "--short", "HEAD"],
                ["status", "--porcelain", "polars_graded"],
            )
        )
        out["polars-graded-commit"] = commit + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        out["polars-graded-commit"] = None
    return out


# --- running one contender ------------------------------------------------------------------


def _status_kib(pid: int) -> dict[str, int]:
    """``VmRSS`` (current) and ``VmHWM`` (peak) RSS of a process in KiB, from ``/proc``."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return {}
    return {
        key: int(rest.split()[0])
        for key, _, rest in (line.partition(":") for line in lines)
        if key in ("VmRSS", "VmHWM")
    }


def _busy_cpu_seconds() -> float:
    """CPU seconds spent by the whole machine since boot (all cores), from ``/proc/stat``."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    busy = sum(fields[:8]) - fields[3] - fields[4]  # all but idle and iowait
    return busy / os.sysconf("SC_CLK_TCK")


def _own_cpu_seconds() -> float:
    """CPU seconds of this (parent) process."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_child(
    name: str, path: Path, dump: Path | None, timeout: float, mem_limit: int
) -> dict[str, Any]:
    """Run one contender once in a fresh process and return its report.

    The child reports its peak RSS (``VmHWM``, its own address space since exec). The
    ``ru_maxrss`` that ``os.wait4`` or ``RUSAGE_CHILDREN`` give is not used: Linux counts in
    it the parent's RSS copied at fork time. The parent polls the child every 20 ms and kills
    it past ``timeout`` seconds or ``mem_limit`` bytes of RSS, to protect the machine.
    ``other_cores`` is the CPU that other processes used meanwhile (in cores): a busy
    machine makes the time meaningless.
    """
    cmd = [sys.executable, str(CONTENDERS_PY), name, str(path)]
    if dump is not None:
        cmd += ["--dump", str(dump)]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start, busy, own = time.perf_counter(), _busy_cpu_seconds(), _own_cpu_seconds()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True)
        killed, polled_peak = None, 0
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            memory = _status_kib(proc.pid)
            polled_peak = max(polled_peak, memory.get("VmHWM", 0))
            if killed is None and time.perf_counter() - start > timeout:
                killed = f"killed after {timeout:.0f} s"
            if killed is None and memory.get("VmRSS", 0) * 1024 > mem_limit:
                killed = f"killed at {mem_limit / 2**30:.1f} GiB RSS"
            if killed:
                os.kill(proc.pid, signal.SIGKILL)
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        elapsed = time.perf_counter() - start
        ours = usage.ru_utime + usage.ru_stime + _own_cpu_seconds() - own
        other_cores = max(0.0, _busy_cpu_seconds() - busy - ours) / elapsed
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode != 0:
        tail = stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        note = killed or tail[0][:200]
        return {"status": "failed", "note": f"{note} (peak RSS >= {polled_peak / 1024:.0f} MiB)"}
    report = json.loads(stdout.strip().splitlines()[-1])
    return {**report, "status": "ok", "process_seconds": elapsed, "other_cores": other_cores}


def skip_reason(name: str, variant: str, rows: int, available: int, force: bool) -> str | None:
    """Why ``name`` is not run on ``rows`` rows: not installed, or would not fit in memory."""
    module = PEERS.get(name) or REQUIRES.get(name)
    if module and importlib.util.find_spec(module) is None:
        return f"{module} not installed"
    per_row = VARIANT_BYTES_PER_ROW.get((variant, name)) or BYTES_PER_ROW.get(name)
    estimate = (per_row or DEFAULT_BYTES_PER_ROW) * rows + 300 * 2**20
    if not force and estimate > 0.9 * available:
        return f"est. {estimate / 2**30:.0f} GiB > 90% of {available / 2**30:.0f} GiB available"
    return None


def _run_once(name: str, path: Path, dump: Path | None, args: Any) -> dict[str, Any]:
    """One run of a contender, printed as it ends."""
    run = run_child(name, path, dump, args.timeout, _meminfo("MemAvailable") - 2**30)
    if run["status"] != "ok":
        print(f"    {name}: {run['note']}", file=sys.stderr)
        return run
    rss, other = run["peak_rss_kib"] / 1024, run["other_cores"]
    line = f"{name}: {run['seconds']:.3f} s, {rss:.0f} MiB, others used {other:.2f} cores"
    print("    " + line, file=sys.stderr)
    return run


def measure(name: str, path: Path, repeat: int, dump: Path | None, args: Any) -> dict[str, Any]:
    """Run a contender ``repeat`` times: median wall time and phases, max peak RSS.

    A run during which other processes used more than ``BUSY_CORES`` is set aside and run
    again (up to ``args.busy_retries`` times in all, after a pause); if too few quiet runs
    remain, the least busy of those set aside fill in and the row says so.
    """
    quiet: list[dict[str, Any]] = []
    busy: list[dict[str, Any]] = []
    last_was_busy = False
    while len(quiet) < repeat and len(busy) <= args.busy_retries:
        if last_was_busy:
            time.sleep(2.0)
        first = not quiet and not busy
        run = _run_once(name, path, dump if first else None, args)
        if run["status"] != "ok":
            return {"contender": name, **run}
        last_was_busy = run["other_cores"] > BUSY_CORES
        (busy if last_was_busy else quiet).append(run)
    runs = quiet + sorted(busy, key=lambda r: r["other_cores"])[: repeat - len(quiet)]
    return summary(name, runs, len(busy))


def measure_interleaved(
    names: list[str], path: Path, repeat: int, dumps: dict[str, Path], args: Any
) -> dict[str, dict[str, Any]]:
    """``--interleave``: ``repeat`` rounds, each contender once per round, none set aside.

    On a shared machine the others' load then falls on every contender alike, so that the
    ratios between them hold better than their times; the note says how busy it was.
    """
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    failed: dict[str, dict[str, Any]] = {}
    for round_ in range(repeat):
        for name in (n for n in names if n not in failed):
            run = _run_once(name, path, dumps.get(name) if round_ == 0 else None, args)
            if run["status"] != "ok":
                failed[name] = {"contender": name, **run}
            else:
                runs[name].append(run)
    return {name: failed.get(name) or summary(name, runs[name], 0) for name in names}


def summary(name: str, runs: list[dict[str, Any]], set_aside: int) -> dict[str, Any]:
    """A contender's row: median wall time and phases of ``runs``, their max peak RSS."""
    phases = {p: statistics.median(r["phases"][p] for r in runs) for p in runs[0]["phases"]}
    return {
        "contender": name,
        "status": "ok",
        "seconds": statistics.median(r["seconds"] for r in runs),
        "seconds_all": [r["seconds"] for r in runs],
        "phases": phases,
        "peak_rss_mib": max(r["peak_rss_kib"] for r in runs) / 1024,
        "rss_before_mib": max(r["rss_before_kib"] for r in runs) / 1024,
        "process_seconds": statistics.median(r["process_seconds"] for r in runs),
        "other_cores_max": max(r["other_cores"] for r in runs),
        "busy_runs_set_aside": set_aside,
        "n_queries": runs[0]["n_queries"],
    }


# --- agreement of per-query values ------------------------------------------------------------


def _max_abs(a: pl.DataFrame, b: pl.DataFrame, columns: list[str]) -> dict[str, Any]:
    """Max absolute difference per column over the queries both frames have."""
    a = a.with_columns(pl.col("query").cast(pl.String))
    b = b.with_columns(pl.col("query").cast(pl.String))
    joined = a.join(b, on="query", suffix="__b")
    diffs = joined.select((pl.col(c) - pl.col(f"{c}__b")).abs().alias(c) for c in columns)
    return {
        "max_abs_diff": {c: diffs[c].max() for c in columns},
        "queries_compared": joined.height,
        "queries_differing": diffs.select(pl.any_horizontal(pl.all() > 1e-9).sum()).item(),
        "queries_missing": a.height + b.height - 2 * joined.height,
    }


def agreement(dumps: dict[str, Path], data: Path) -> dict[str, Any]:
    """Per-query agreement: each peer vs ``pg_peer_measures``, each engine vs ``pg_lazy``
    (or ``pg_in_memory`` when ``pg_lazy`` did not run).

    For the peers, also the difference over queries without tied scores (at float32):
    ranx breaks score ties differently from trec_eval and polars_graded.
    """
    frames = {name: pl.read_parquet(p) for name, p in dumps.items() if p.exists()}
    out: dict[str, Any] = {}
    tie_free = (
        pl.scan_parquet(data)
        .group_by("query")
        .agg((pl.col("score").cast(pl.Float32).n_unique() == pl.len()).alias("tie_free"))
        .filter("tie_free")
        .select(pl.col("query").cast(pl.String))
        .collect()
    )
    if REFERENCE in frames:
        for peer in PEERS:
            if peer in frames:
                check = _max_abs(frames[REFERENCE], frames[peer], SHARED)
                tie_free_only = frames[peer].with_columns(pl.col("query").cast(pl.String))
                tie_free_only = tie_free_only.join(tie_free, on="query")
                check["tie_free"] = _max_abs(frames[REFERENCE], tie_free_only, SHARED)
                out[f"{peer} vs {REFERENCE}"] = check
    # At 100M rows only pg_in_memory may fit beside pg_partitioned: then it is the reference.
    base = next((n for n in ("pg_lazy", "pg_in_memory") if n in frames), None)
    if base is not None:
        columns = [c for c in frames[base].columns if c != "query"]
        for engine in ("pg_eager", "pg_in_memory", "pg_streaming", "pg_partitioned", "pg_spark"):
            if engine in frames and engine != base:
                out[f"{engine} vs {base}"] = _max_abs(frames[base], frames[engine], columns)
    return out


# --- ratios, JSON and Markdown ----------------------------------------------------------------


def _fastest(rows: list[dict[str, Any]], names: list[str]) -> dict[str, Any] | None:
    """The fastest of the rows run by one of ``names`` (``None`` without any)."""
    return min(
        (r for r in rows if r["contender"] in names), key=lambda r: r["seconds"], default=None
    )


def add_ratios(rows: list[dict[str, Any]]) -> None:
    """Add each file's two floors and every row's ratios to them and to each peer.

    ``floor``/``ratio_floor``: the top-k floor (the fastest of :data:`FLOORS`);
    ``ranking_floor``/``ratio_ranking_floor``: the fastest of :data:`RANKING_FLOORS`.
    """
    ok = [r for r in rows if r["status"] == "ok"]
    main = [r for r in ok if r["variant"] == "main"]
    peers = {r["contender"]: r["seconds"] for r in main if r["contender"] in PEERS}
    for variant in {r["variant"] for r in rows}:
        on_file = [r for r in ok if r["variant"] == variant]
        floors = {"": _fastest(on_file, FLOORS), "ranking_": _fastest(on_file, RANKING_FLOORS)}
        for row in on_file:
            for prefix, floor in floors.items():
                row[f"{prefix}floor"] = floor["contender"] if floor else None
                row[f"ratio_{prefix}floor"] = row["seconds"] / floor["seconds"] if floor else None
            if row["contender"].startswith("pg_"):
                row["ratio_peers"] = {p: row["seconds"] / s for p, s in peers.items()}
        _add_notes(on_file)
    graded = next((r for r in main if r["contender"] == "pg_mu_ap"), None)
    for row in ok:
        if graded and row["variant"] == "continuous" and row["contender"] == "pg_mu_ap":
            row["note"] = f"{row['seconds'] / graded['seconds']:.1f}x pg_mu_ap on 0-4 labels"


def _add_notes(on_file: list[dict[str, Any]]) -> None:
    """On one file: the lazy path against reading plus the eager path (``pg_eager``)."""
    eager = next((r for r in on_file if r["contender"] == "pg_eager"), None)
    lazy = next((r for r in on_file if r["contender"] == "pg_lazy"), None)
    if eager and lazy:
        lazy["note"] = f"{lazy['seconds'] / eager['seconds']:.2f}x pg_eager (read + evaluate)"


def _fmt(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _fmt_ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}x"


def markdown_section(result: dict[str, Any]) -> str:
    """One size's table, its floor and the agreement check, as Markdown."""
    rows = result["rows"]
    n_queries = next((r["n_queries"] for r in rows if r["status"] == "ok"), None)
    peer_names = list(PEERS)
    head = (
        f"## {result['size']} rows ({n_queries or '?':,} queries)\n\n"
        f"{result['date']}; median of {result['repeat']} runs; load average before: "
        f"{result['machine']['load_average_1m']:.2f}; polars_graded "
        f"{result['versions'].get('polars-graded-commit')}.\n\n"
        "| file | contender | median s | read | build | evaluate | peak RSS MiB "
        f"| / top-k floor | / ranking floor | {' | '.join('/ ' + p for p in peer_names)} "
        f"| note |\n|{'---|' * (10 + len(peer_names))}\n"
    )
    lines = []
    for r in rows:
        if r["status"] != "ok":
            lines.append(
                f"| {r['variant']} | {r['contender']} | {r['status']} |"
                f"{' |' * (6 + len(peer_names))} {r.get('note', '')} |"
            )
            continue
        phases = [_fmt(r["phases"].get(p)) for p in ("read", "build", "evaluate")]
        ratios = r.get("ratio_peers") or {}
        note = r.get("note", "")
        if r.get("other_cores_max", 0) > BUSY_CORES:
            note = f"other processes used {r['other_cores_max']:.1f} cores; {note}".rstrip("; ")
        if r.get("floor") == r["contender"]:
            note = ("**top-k floor**; " + note).rstrip("; ")
        if r.get("ranking_floor") == r["contender"]:
            note = ("**ranking floor**; " + note).rstrip("; ")
        lines.append(
            f"| {r['variant']} | {r['contender']} | {_fmt(r['seconds'])} | {' | '.join(phases)} "
            f"| {r['peak_rss_mib']:.0f} | {_fmt_ratio(r.get('ratio_floor'))} "
            f"| {_fmt_ratio(r.get('ratio_ranking_floor'))} | "
            + " | ".join(_fmt_ratio(ratios.get(p)) for p in peer_names)
            + f" | {note} |"
        )
    checks = []
    for name, check in result["agreement"].items():
        diffs = ", ".join(f"{m} {d:.1e}" for m, d in check["max_abs_diff"].items())
        line = (
            f"- {name}: max abs diff {diffs}; {check['queries_differing']} of "
            f"{check['queries_compared']} queries differ by more than 1e-9"
        )
        if "tie_free" in check:
            tie = check["tie_free"]
            worst = max(tie["max_abs_diff"].values())
            line += f" ({tie['queries_compared']} queries without tied scores: max {worst:.1e})"
        checks.append(line)
    files = "; ".join(f"{v['name']}: {v['what']}" for v in result["variants"])
    agree = "Per-query agreement:\n\n" + "\n".join(checks) + "\n" if checks else ""
    return head + "\n".join(lines) + f"\n\nFiles: {files}.\n\n" + agree


def render_latest(results_dir: Path) -> str:
    """``latest.md``: the machine and versions, then the newest result of every size."""
    newest = newest_results(results_dir)
    last = max(newest, key=lambda r: r["stamp"])
    m = last["machine"]
    v = ", ".join(f"{k} {val}" for k, val in last["versions"].items() if val)
    return (
        "# polars_graded benchmarks\n\n"
        f"Machine: {m['cpu_count']} CPUs ({m['cpu_model']}), {m['memory_gib']} GiB, "
        f"{m['platform']}.\nVersions: {v}.\n\n"
        "Times are wall seconds inside the contender's process (imports excluded); peak RSS "
        "is the child's own high-water mark (`VmHWM`, interpreter and imports included). "
        "`/ top-k floor` (the least an @k measure needs), `/ ranking floor` (every ranking "
        "sorted whole: the least AP needs) and `/ peer` are this row's time divided by "
        "theirs (below 1 = faster). "
        "See benchmarks/README.md.\n\n" + "\n".join(markdown_section(result) for result in newest)
    )


# --- main -------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1M", help="comma-separated row counts (1M,10M)")
    parser.add_argument("--big", action="store_true", help="add the 100M size")
    parser.add_argument("--repeat", type=int, default=3, help="runs per contender (median)")
    parser.add_argument("--only", help="comma-separated contender names or globs (pg_*)")
    parser.add_argument(
        "--variants",
        default="continuous,ranked,int_ids",
        help="files besides main: continuous,ranked,int_ids,dir (default all) or none",
    )
    parser.add_argument("--continuous", action="store_true", help="same as --variants continuous")
    parser.add_argument("--force", action="store_true", help="run even if it may not fit")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per run")
    parser.add_argument(
        "--busy-retries",
        type=int,
        default=6,
        help="runs to redo when other processes used the CPU meanwhile (default 6)",
    )
    parser.add_argument(
        "--interleave",
        action="store_true",
        help="run the contenders of a file in rounds, none set aside (for a shared machine)",
    )
    parser.add_argument("--no-warmup", action="store_true", help="skip the small warm-up runs")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="results directory")
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR, help="generated files")
    args = parser.parse_args(argv)
    if args.continuous:
        args.variants = "continuous"
    return args


def selected(contenders: tuple[str, ...], only: str | None) -> list[str]:
    """The contenders matching ``--only`` (all without it)."""
    if not only:
        return list(contenders)
    patterns = only.split(",")
    return [c for c in contenders if any(fnmatch.fnmatch(c, p) for p in patterns)]


def run_size(rows: int, args: argparse.Namespace) -> dict[str, Any]:
    """Every selected contender on every selected file of one size."""
    wanted = {"main", *args.variants.split(",")}
    variants = [v for v in VARIANTS if v.name in wanted and selected(v.contenders, args.only)]
    info = {"machine": machine(), "versions": versions()}
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        dumps = {n: Path(tmp) / f"{n}.parquet" for n in (*PG, *PEERS)}
        main_path = None
        for variant in variants:
            start = time.perf_counter()
            path = ensure(LogSpec(rows, **variant.spec), args.data_dir)  # type: ignore[arg-type]
            took = time.perf_counter() - start
            print(
                f"{format_size(rows)} {variant.name}: {path.name} ({took:.1f} s)", file=sys.stderr
            )
            main_path = path if variant.name == "main" else main_path
            available = _meminfo("MemAvailable")
            names = selected(variant.contenders, args.only)
            skipped = {n: skip_reason(n, variant.name, rows, available, args.force) for n in names}
            for name, reason in skipped.items():
                if reason:
                    print(f"    {name}: skipped, {reason}", file=sys.stderr)
            to_run = [n for n in names if not skipped[n]]
            on_file = {n: d for n, d in dumps.items() if variant.name == "main"}
            if args.interleave:
                measured = measure_interleaved(to_run, path, args.repeat, on_file, args)
            else:
                measured = {n: measure(n, path, args.repeat, on_file.get(n), args) for n in to_run}
            for name in names:
                row = measured.get(name) or {"contender": name, "status": "skipped"}
                row = {**row, "note": skipped[name]} if skipped[name] else row
                results.append({"variant": variant.name, "file": path.name, **row})
        check = agreement(dumps, main_path) if main_path else {}
    add_ratios(results)
    start_commit, end_commit = (
        info["versions"]["polars-graded-commit"],
        versions()["polars-graded-commit"],
    )
    if end_commit != start_commit:  # someone changed the library during the run
        info["versions"]["polars-graded-commit"] = f"{start_commit} (at the end: {end_commit})"
    now = datetime.now()
    return {
        "date": now.strftime("%Y-%m-%d %H:%M"),
        "stamp": now.isoformat(),
        "size": format_size(rows),
        "rows_total": rows,
        "repeat": args.repeat,
        **info,
        "variants": [{"name": v.name, "what": v.what, **v.spec} for v in variants],
        "rows": results,
        "agreement": check,
    }


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark for each size; write the JSON files and ``latest.md``."""
    args = parse_args(argv)
    sizes = [parse_size(s) for s in args.sizes.split(",")]
    if args.big and 100_000_000 not in sizes:
        sizes.append(100_000_000)
    if not args.no_warmup:  # numba compiles ranx once; imports and caches get warm
        small = ensure(LogSpec(SMALL_FILE_ROWS), args.data_dir)
        names = {n for v in VARIANTS for n in selected(v.contenders, args.only)}
        for name in sorted(names):
            if not skip_reason(name, "main", SMALL_FILE_ROWS, _meminfo("MemAvailable"), False):
                run_child(name, small, None, args.timeout, _meminfo("MemAvailable"))
    args.out.mkdir(parents=True, exist_ok=True)
    for rows in sizes:
        result = run_size(rows, args)
        path = args.out / f"{result['stamp'][:10]}-{result['size']}.json"
        path.write_text(json.dumps(result, indent=1))
        print(f"wrote {path}", file=sys.stderr)
    latest = args.out / "latest.md"
    latest.write_text(render_latest(args.out))
    print(f"wrote {latest}", file=sys.stderr)
    if args.out.resolve() == RESULTS_DIR:  # only the committed results go into the site
        update_page()  # docs/performance.md


if __name__ == "__main__":
    main()
