"""The report at log scale: wall time and peak memory of ``build_report`` on logs of 10k, 100k,
200k and (``--big``) 1M queries x 3 systems, now and, with ``--before DIR``, with older code.

``python benchmarks/report_scale.py`` writes (or finds) deterministic logs
``benchmarks/data/report-log-<queries>-s0-v1.parquet`` (systems bm25, dense and hybrid, 10
rows per query: columns system, query, item, score, relevance, weight, day; labels 0-4 mostly
0, scores a noisy function of the label), runs ``polars_graded.build_report(table, folder)``
on each in a subprocess of its own (the Python API with the options ``polars-graded report``
uses by default), and records the wall time and the subprocess's peak resident memory
(``os.wait4``'s ``ru_maxrss``) in ``benchmarks/results/report_scale.md``.

The code before a change runs from a worktree of its commit, capped by ``--timeout`` (shown
as "> T s" when it does not finish)::

    git worktree add --detach /tmp/before c588b02   # the commit before issue 29
    python benchmarks/report_scale.py --before /tmp/before --timeout 300
    python benchmarks/report_scale.py --big --before /tmp/before   # and 1M queries
    git worktree remove /tmp/before

The machine's load is written beside the table: the numbers mean little on a busy machine.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
DATA_DIR = HERE / "data"
RESULTS = HERE / "results" / "report_scale.md"
FORMAT_VERSION = 1  # bump when the log changes, to invalidate the cache
SYSTEMS = ("bm25", "dense", "hybrid")
ROWS_PER_QUERY = 10
LABEL_P = [0.6, 0.2, 0.1, 0.06, 0.04]  # labels 0..4
SIZES = (10_000, 100_000, 200_000)
BIG = 1_000_000

# The run in the subprocess: the Python API, every option at its default (as the CLI's).
SCRIPT = """
import json, sys, polars as pl, polars_graded as pg
pg.build_report(pl.read_parquet(sys.argv[1]), sys.argv[2], **json.loads(sys.argv[3]))
print(pg.__file__)
"""


def parse_size(text: str) -> int:
    """``"100k"`` -> 100_000, ``"1M"`` -> 1_000_000, ``"300"`` -> 300."""
    text = text.strip().upper()
    factor = {"K": 10**3, "M": 10**6}.get(text[-1:], 1)
    return int(float(text[:-1] if factor > 1 else text) * factor)


def log_path(queries: int, seed: int = 0, data_dir: Path = DATA_DIR) -> Path:
    """The cached log of ``queries`` queries."""
    return data_dir / f"report-log-{queries}-s{seed}-v{FORMAT_VERSION}.parquet"


def make_log(queries: int, seed: int = 0, data_dir: Path = DATA_DIR) -> Path:
    """Write (or find) the log of ``queries`` queries x :data:`SYSTEMS` x
    :data:`ROWS_PER_QUERY` rows; the same bytes for the same arguments."""
    path = log_path(queries, seed, data_dir)
    if path.exists():
        return path
    rng = np.random.default_rng(seed)
    query = np.repeat(np.arange(queries), ROWS_PER_QUERY)
    item = np.tile(np.arange(ROWS_PER_QUERY), queries)
    label = rng.choice(len(LABEL_P), size=query.size, p=LABEL_P)
    frames = [
        pl.DataFrame(
            {
                "system": name,
                "query": query,
                "item": item,
                "score": label * (0.3 + 0.1 * i) + rng.normal(size=query.size),
                "relevance": label,
            }
        )
        for i, name in enumerate(SYSTEMS)
    ]
    per_query = pl.DataFrame(
        {
            "query": np.arange(queries),
            "weight": rng.pareto(1.2, size=queries) + 1,
            "day": np.arange(queries) % 10,
        }
    )
    data_dir.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    pl.concat(frames).join(per_query, on="query").write_parquet(partial)
    partial.replace(path)  # whole or absent: an interrupted run leaves no cached half
    return path


@dataclass(frozen=True)
class Run:
    """One report run: wall seconds, peak resident MiB, and whether it finished in time."""

    seconds: float
    peak_mib: float
    finished: bool


def run_report(
    log: Path, code: Path | None, timeout: float, options: dict[str, object] | None = None
) -> Run:
    """``build_report`` on ``log`` in a subprocess, with the package of ``code`` (a source
    tree: its ``polars_graded`` comes first on the path) or the installed one; killed after
    ``timeout`` seconds."""
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(code), env.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        )
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-c", SCRIPT, str(log), folder + "/r", json.dumps(options or {})]
        start = time.perf_counter()
        # cwd: ``python -c`` puts the working directory first on sys.path, ahead of
        # PYTHONPATH, so run from the temporary folder or "before" would import this tree.
        child = subprocess.Popen(command, env=env, cwd=folder, stdout=subprocess.PIPE)
        timer = threading.Timer(timeout, lambda: os.kill(child.pid, signal.SIGKILL))
        timer.start()
        try:
            _, status, usage = os.wait4(child.pid, 0)
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        imported = child.stdout.read().decode().strip() if child.stdout else ""
    finished = child.returncode == 0
    if finished and code is not None and not Path(imported).is_relative_to(code.resolve()):
        msg = f"the run meant for {code} imported {imported}"
        raise RuntimeError(msg)
    if child.returncode not in (0, -signal.SIGKILL):
        msg = f"the report on {log} failed (exit {child.returncode})"
        raise RuntimeError(msg)
    # ru_maxrss is in KiB on Linux.
    return Run(seconds, usage.ru_maxrss / 1024, finished)


def cell(run: Run | None, timeout: float) -> tuple[str, str]:
    """A run's time and memory as the table shows them."""
    if run is None:
        return "–", "–"
    if not run.finished:
        return f"> {timeout:g} s", f"> {run.peak_mib:,.0f} MiB"
    return f"{run.seconds:.1f} s", f"{run.peak_mib:,.0f} MiB"


def commit(tree: Path | None) -> str:
    """The short commit of a git source tree, or ``"?"``."""
    if tree is None:
        return "?"
    done = subprocess.run(
        ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "?"


def table(rows: list[tuple[int, Run, Run | None]], timeout: float, before: Path | None) -> str:
    """The Markdown table of the runs, with the machine, its load and the commits."""
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    lines = [
        "# The report at log scale",
        "",
        f"{dt.date.today()}; {platform.machine()}, {os.cpu_count()} cores; load average when "
        f"done {load}. `build_report(table, folder)` with the default options (6 measures, "
        f"{len(SYSTEMS)} systems, {ROWS_PER_QUERY} rows per query); peak: the subprocess's "
        f"maximum resident set size. Now: commit {commit(HERE.parent)} and its working "
        f"tree; before: commit {commit(before)}. Made by `python benchmarks/report_scale.py`.",
        "",
        "| queries | rows | now | now, peak | before | before, peak |",
        "| --: | --: | --: | --: | --: | --: |",
    ]
    for queries, now, old in rows:
        rows_total = queries * len(SYSTEMS) * ROWS_PER_QUERY
        cells = [f"{queries:,}", f"{rows_total:,}", *cell(now, timeout), *cell(old, timeout)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="queries per log")
    parser.add_argument("--big", action="store_true", help="also 1M queries")
    parser.add_argument("--before", type=Path, help="a source tree of the code before")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per run, at most")
    parser.add_argument("--trials", type=int, help="randomization trials (default: the CLI's)")
    parser.add_argument("--bootstrap", type=int, help="bootstrap resamples (default: the CLI's)")
    parser.add_argument("--measures", help="comma-separated (default: the report's six)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    args = parser.parse_args(argv)
    sizes = [parse_size(s) for s in args.sizes.split(",")] + [BIG] * args.big
    options: dict[str, object] = {
        k: v for k in ("trials", "bootstrap") if (v := getattr(args, k)) is not None
    }
    if args.measures:
        options["measures"] = args.measures.split(",")
    rows = []
    for queries in sizes:
        log = make_log(queries, data_dir=args.data_dir)
        now = run_report(log, None, args.timeout, options)
        before = (
            None if args.before is None else run_report(log, args.before, args.timeout, options)
        )
        rows.append((queries, now, before))
        print(f"{queries:,} queries: now {cell(now, args.timeout)}, before "
              f"{cell(before, args.timeout)}", flush=True)  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(table(rows, args.timeout, args.before), encoding="utf-8")
    print(args.out)


if __name__ == "__main__":
    main()
