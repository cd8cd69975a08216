"""µAP (or any measures) under ``ties="average"`` beside the default policy.

``python benchmarks/ties_average.py`` (about a minute on 2 cores): for each shape (queries x
rows per query) one fresh process per policy evaluates ``mu_ap`` on the same generated table
(a label per row: floats with six decimals, half of the rows 0; scores ``0.6 * label +
N(0, 1)`` rounded to two decimals, so that ties are many and large), and the table prints
the wall time of the evaluation (generation and imports excluded), the peak RSS of the
process (``VmHWM``, interpreter and table included) and the ratios average / default.

The targets of issue 14 (item 2): at 400k rows, ``ties="average"`` within 1 GiB of peak
RSS and 5x the default policy's time. Issue 18: the six default measures at most 2x the
default policy's time on graded and on continuous labels, memory within 1.5x
(``--measure default --labels graded``, then ``continuous``). Nothing here is asserted by
the tests.

Options: ``--shapes 1x400k,100x4k`` (queries x rows per query), ``--measure mu_ap`` (or a
comma-separated list, or ``default``: the six default measures), ``--labels continuous``
(or ``graded``: 0-4 as the harness's log), ``--seed``. ``--child POLICY QUERIES DEPTH`` is
the measured process (one JSON line).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np
import polars as pl
from contenders import MEASURES, peak_rss_kib
from generate import GRADED_P, format_size, parse_size

POLICIES = ("trec_eval", "average")
SHAPES = "1x400k,100x4k"
LABELS = ("continuous", "graded")


def table(queries: int, depth: int, seed: int, labels: str = "continuous") -> pl.DataFrame:
    """``queries`` rankings of ``depth`` rows, heavily tied scores.

    Continuous labels (six decimals, half of them 0) or graded ones (0-4, as the harness's).
    """
    rng = np.random.default_rng(seed)
    rows = queries * depth
    if labels == "graded":
        label = rng.choice(len(GRADED_P), size=rows, p=GRADED_P).astype(np.float64)
    else:
        label = np.round(rng.random(rows) * 4, 6)
        label[rng.random(rows) < 0.5] = 0.0
    return pl.DataFrame(
        {
            "query": np.repeat(np.arange(queries), depth),
            "item": np.tile(np.arange(depth), queries),
            "score": np.round(0.6 * label + rng.normal(size=rows), 2),
            "relevance": label,
        }
    )


def measures(text: str) -> list[str]:
    """``--measure``: comma-separated names, or ``default`` (the six default measures)."""
    return list(MEASURES) if text == "default" else text.split(",")


def child(policy: str, queries: int, depth: int, args: argparse.Namespace) -> None:
    """Evaluate once and print seconds, peak RSS and the first measure's mean as JSON."""
    import polars_graded  # noqa: F401  (registers the namespace; its import is not timed)

    df = table(queries, depth, args.seed, args.labels)
    names = measures(args.measure)
    start = time.perf_counter()
    values = df.graded.evaluate(names, ties=policy)
    seconds = time.perf_counter() - start
    result = {
        "seconds": seconds,
        "peak_rss_mib": peak_rss_kib() / 1024,
        "mean": values[names[0]].mean(),
        "tied_share": _tied_share(df),
    }
    print(json.dumps(result))


def _tied_share(df: pl.DataFrame) -> float:
    size = pl.len().over("query", pl.col("score").cast(pl.Float32))
    return df.select((size > 1).mean()).item()


def run(policy: str, queries: int, depth: int, args: argparse.Namespace) -> dict:
    argv = [sys.executable, __file__, "--child", policy, str(queries), str(depth)]
    argv += ["--measure", args.measure, "--seed", str(args.seed), "--labels", args.labels]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["killed"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=SHAPES, help=f"QUERIESxDEPTH,... (default {SHAPES})")
    parser.add_argument("--measure", default="mu_ap", help="names (a,b) or default (six)")
    parser.add_argument("--labels", default="continuous", choices=LABELS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--child", nargs=3, metavar=("POLICY", "QUERIES", "DEPTH"))
    args = parser.parse_args()
    if args.child:
        policy, queries, depth = args.child
        child(policy, int(queries), int(depth), args)
        return
    names = measures(args.measure)
    print(f"{', '.join(names)}, {args.labels} labels: ties=average beside the default (trec_eval)")
    print(f"| queries x rows | rows | tied | policy | seconds | peak RSS MiB | mean {names[0]} |")
    print("| --- | --: | --: | --- | --: | --: | --: |")
    ratios = []
    for shape in args.shapes.split(","):
        queries, depth = (parse_size(part) for part in shape.split("x"))
        results = {p: run(p, queries, depth, args) for p in POLICIES}
        for policy, r in results.items():
            size = f"{queries:,} x {format_size(depth)}"
            if "error" in r:
                print(f"| {size} | {queries * depth:,} | | {policy} | failed: {r['error']} | | |")
                continue
            print(
                f"| {size} | {queries * depth:,} | {r['tied_share']:.0%} | {policy} | "
                f"{r['seconds']:.2f} | {r['peak_rss_mib']:.0f} | {r['mean']:.6f} |"
            )
        base, mean = results["trec_eval"], results["average"]
        if "error" not in base and "error" not in mean:
            ratios.append(
                f"{shape}: time x{mean['seconds'] / base['seconds']:.2f}, "
                f"peak RSS x{mean['peak_rss_mib'] / base['peak_rss_mib']:.2f} "
                f"({mean['peak_rss_mib']:.0f} MiB)"
            )
    print("\naverage / default: " + "; ".join(ratios))


if __name__ == "__main__":
    main()
