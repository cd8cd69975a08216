"""µAP (or any measures) on continuous labels beside 0-4 labels, on long rankings.

``python benchmarks/label_scales.py`` (about a minute on 2 cores): for each shape (queries
x rows per query) one fresh process per label scale evaluates ``mu_ap`` under the default
tie policy on the table of :mod:`ties_average` (continuous: floats with six decimals, half
of the rows 0, so about a level per relevant row; graded: 0-4 as the harness's log), and
the table prints the wall time of the evaluation (generation and imports excluded), the
peak RSS of the process and the ratio continuous / graded.

The target of issue 18: one query of 1M rows with continuous labels within 3x its
graded-label time, and a table of 100 such queries within the same ratio (the default
shapes). Nothing here is asserted by the tests.

Options: ``--shapes 1x1M,100x100k`` (queries x rows per query), ``--measure mu_ap`` (or a
comma-separated list, or ``default``: the six default measures), ``--seed``.
"""

from __future__ import annotations

import argparse

from generate import format_size, parse_size
from ties_average import measures, run

SHAPES = "1x1M,100x100k"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=SHAPES, help=f"QUERIESxDEPTH,... (default {SHAPES})")
    parser.add_argument("--measure", default="mu_ap", help="names (a,b) or default (six)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    names = measures(args.measure)
    print(f"{', '.join(names)}, ties=trec_eval: continuous labels beside 0-4 labels")
    print(f"| queries x rows | rows | labels | seconds | peak RSS MiB | mean {names[0]} |")
    print("| --- | --: | --- | --: | --: | --: |")
    ratios = []
    for shape in args.shapes.split(","):
        queries, depth = (parse_size(part) for part in shape.split("x"))
        results = {}
        for labels in ("graded", "continuous"):
            args.labels = labels
            results[labels] = run("trec_eval", queries, depth, args)
        for labels, r in results.items():
            size = f"{queries:,} x {format_size(depth)}"
            if "error" in r:
                print(f"| {size} | {queries * depth:,} | {labels} | failed: {r['error']} | | |")
                continue
            print(
                f"| {size} | {queries * depth:,} | {labels} | {r['seconds']:.2f} | "
                f"{r['peak_rss_mib']:.0f} | {r['mean']:.6f} |"
            )
        graded, continuous = results["graded"], results["continuous"]
        if "error" not in graded and "error" not in continuous:
            ratios.append(f"{shape}: time x{continuous['seconds'] / graded['seconds']:.2f}")
    print("\ncontinuous / graded: " + "; ".join(ratios))


if __name__ == "__main__":
    main()
