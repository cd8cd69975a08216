"""Write the site's Performance table from the newest results in ``benchmarks/results/``.

``python benchmarks/run.py`` calls this at its end; run it alone
(``python benchmarks/readme_table.py``) to re-render the table from results already on disk.
The table sits between two marker comments in ``docs/performance.md`` and is never edited by
hand; ``tests/test_benchmarks_table.py`` checks that the page holds what this module writes.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "performance.md"
"""The page holding the table between :data:`START` and :data:`END`."""
START, END = "<!-- benchmarks:start -->", "<!-- benchmarks:end -->"
SHOWN = {  # contender -> how the table names it
    "pg_eager": "polars_graded, 6 measures, `read_parquet` + eager `evaluate`",
    "pg_in_memory": "polars_graded, 6 measures, in-memory engine",
    "pg_lazy": "polars_graded, 6 measures, `scan_parquet` + `collect()` (default engine)",
    "pg_partitioned": 'polars_graded, 6 measures, `evaluate_parquet(memory_budget="4GiB")`',
    "pg_peer_measures": "polars_graded, the 4 shared measures",
    "pytrec_eval": "pytrec_eval (4 measures, dict building included)",
    "ir_measures": "ir_measures (4 measures)",
    "ranx": "ranx (4 measures)",
}


def newest_results(results_dir: Path) -> list[dict[str, Any]]:
    """The newest result of every size, smallest size first."""
    newest: dict[int, dict[str, Any]] = {}
    for path in sorted(results_dir.glob("*.json")):
        result = json.loads(path.read_text())
        known = newest.get(result["rows_total"])
        if known is None or result["stamp"] >= known["stamp"]:
            newest[result["rows_total"]] = result
    return [newest[rows] for rows in sorted(newest)]


def _row(result: dict[str, Any], contender: str) -> dict[str, Any] | None:
    return next(
        (r for r in result["rows"] if r["variant"] == "main" and r["contender"] == contender),
        None,
    )


def _ratio(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}x"


def table(results: list[dict[str, Any]]) -> str:
    """Markdown: per size, seconds, peak memory and ratios to both floors of each contender."""
    lines = [
        "| rows | contender | seconds | peak MiB | / top-k floor | / ranking floor |",
        "|---|---|---|---|---|---|",
    ]
    for result in results:
        first = result["rows"][0]
        floors = {first.get("floor"): "**the top-k floor**"}
        floors[first.get("ranking_floor")] = "**the ranking floor**"  # older results: none
        shown = [*SHOWN.items(), *((c, label) for c, label in floors.items() if c)]
        for contender, label in shown:
            row = _row(result, contender)
            if row is None or row["status"] != "ok":
                continue
            lines.append(
                f"| {result['size']} | {label} | {row['seconds']:.2f} | "
                f"{row['peak_rss_mib']:.0f} | {_ratio(row['ratio_floor'])} | "
                f"{_ratio(row.get('ratio_ranking_floor'))} |"
            )
    last = results[-1]
    m, v = last["machine"], last["versions"]
    stamp = ", ".join(
        f"{r['size']} on {r['date']} at {r['versions'].get('polars-graded-commit')}"
        for r in results
    )
    return (
        f"Measured by `python benchmarks/run.py` ({stamp}; median of {last['repeat']} runs) on "
        f"{m['cpu_count']} CPUs ({m['cpu_model']}), {m['memory_gib']} GiB; Python "
        f"{v['python']}, Polars {v['polars']}, polars_graded {v['polars-graded']}, "
        f"pytrec-eval-terrier {v.get('pytrec-eval-terrier')}, "
        f"ir-measures {v.get('ir-measures')}, ranx {v.get('ranx')}. The 6 measures are "
        "`mu_ap, ndcg@10, ndcng@10, ap, p@10, rr`; the 4 shared ones `ap, "
        "ndcg(gain=linear)@10, p@10, rr`. Every contender reads the same Parquet file in its "
        "own process; the top-k floor is the cheapest ranking-aware pass (per query, the sum of "
        "the top 10 labels by score, the faster of its in-memory and streaming runs), the least "
        "an @k measure needs; the ranking floor sorts every ranking whole (per query, the labels "
        "in ranked order, the faster of read + eager and streaming), the least a full-depth "
        "measure such as AP needs. Every file, phase and peer ratio: {ref}`benchmark-results`."
        "\n\n" + "\n".join(lines)
    )


def update_page(page: Path = PAGE, results_dir: Path | None = None) -> None:
    """Replace the text between the page's benchmark markers with the current table."""
    results = newest_results(results_dir or ROOT / "benchmarks" / "results")
    text = page.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(START) + ".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        msg = f"{page} has no {START} ... {END} block"
        raise SystemExit(msg)
    block = f"{START}\n{table(results)}\n{END}"
    page.write_text(pattern.sub(lambda _: block, text), encoding="utf-8")
    print(f"wrote the Performance table of {page}", file=sys.stderr)


if __name__ == "__main__":
    update_page()
