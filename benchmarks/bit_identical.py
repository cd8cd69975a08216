"""Proof that a change of the code changed no number: the code before and after, bit for bit.

What it proves
    For every measure string of the README and of the site's pages under ``docs/`` (the
    measure tables with ``@k`` read as ``@10``, and the strings of their examples,
    :func:`measure_pages`), every registered measure with its defaults and with a
    cutoff ``@10``, and a few parameterised ones (:data:`EXTRA_MEASURES`), under every tie
    policy (:data:`TIE_POLICIES`), the code BEFORE and the code AFTER give equal results of

    * ``df.graded.evaluate(measures, ties=...)`` (one row per query),
    * ``df.graded.summary(measures, ties=...)``, and ``summary(..., mean="geometric")``
      under the default policy (its per-query values are compared under every policy),
    * ``df.graded.per_threshold(ties=...)``,

    compared with ``polars.testing.assert_frame_equal(check_exact=True)``: the same column
    names in the same order, the same dtypes, the same rows in the same order, the same
    bits. A refused measure counts as equal when both sides refuse it with the same exception
    type and message; warnings are compared the same way. Also compared: what
    ``pg.parse_measure`` makes of every candidate string (canonical name or error), and, for
    the TREC data, the long table of ``pg.read_trec_run`` / ``pg.read_trec_qrels`` /
    ``pg.join_run_qrels`` (sorted by its keys, as a full join promises no row order).

    On every dataset with a system column, under the default tie policy, with the measures
    :data:`ANALYSIS_MEASURES`, 500 trials and resamples and seed 7 (:data:`STATISTICS`),
    the analysis (:data:`ANALYSES`, one line each; frames compared as above):

    * ``pg.evaluate(..., by=system)`` (``per_query``), the input of ``pg.compare`` against
      the default baseline (``compare``) and with ``pairs="all", correction="bh"``
      (``compare_all_bh``), of ``pg.compare_pairs`` and, of its result,
      ``pg.compact_letters`` (every measure) and ``pg.discriminative_power``;
    * ``pg.compare_segments``, the queries sorted and put alternately in segments ``"a"``
      and ``"b"`` (:func:`with_segments`, ``min_queries=5``), and ``pg.segment_reversals``;
    * ``pg.judgment_bounds``, ``pg.order_flips`` of it, and ``pg.rank_correlations``
      between its scenarios of every measure (``"ap: judged_only"``, :func:`scenarios`);
    * ``pg.gate`` of the second system (sorted) against the first: its table and verdict;
    * ``pg.build_report(..., latex=True, all_pairs=True, segment=...)``: the text of
      ``report.md`` and ``report.tex``, and ``per_query.parquet``. Normalised in the two
      texts, and nothing else: the creation time (``2025-01-31 12:05 UTC`` ->
      ``<created>``) and the package version (``polars_graded 0.1.0`` ->
      ``polars_graded <version>``), see :func:`normalised`. ``report.html`` is not
      compared: it shows the same time and versions and embeds the charts as images.

    A step equals when both sides fail it with the same exception type and message; a
    step that needs the result of a failed one fails too.

The data
    * ``gen-graded`` and ``gen-continuous``: ``benchmarks/generate.py`` logs (1M rows with
      integer labels 0-4, 200k rows with continuous labels in [0, 4]; string ids, shuffled).
    * ``long``: rankings deeper than the µAP sweep's Fenwick limit (``DEEP``, 4096 rows)
      beside shallow ones, continuous labels with ties (:func:`long_rankings`): the sweep's
      merge path, which the generated logs (100 rows a query) never reach.
    * ``systems``: four synthetic systems on 60 queries (12 with ``--quick``), 80 items a
      query, labels 0-3, a seventh of the items unjudged, one system missing every seventh
      query (:func:`system_rankings`): the analysis without the shared data.
    * ``robust03``: TREC 2003 Robust, runs ``aplrob03a`` and ``rutcor03100`` (99.97% of its
      rows tie), the graded qrels, ``by="system"``.
    * ``dl19`` and ``dl20``: TREC Deep Learning passage, all six runs of the year, 0-3 labels.
    * ``ohsumed`` and ``ohsumed-tfidf``: LETOR 3.0 OHSUMED (``Feature-min``), the paper's
      eight single-feature strategies as scores (``by="strategy"``), against the experts'
      labels 0/1/2 and against TF-IDF of the title (feature 9, real-valued labels).

    The shared data is read from ``../shared/data`` beside the repository (``--shared``);
    a dataset whose files are missing is an error, never a silent skip.

How it runs
    Each side runs in its own subprocesses (one per dataset) with ``PYTHONPATH`` set to that
    side's package root only, so ``import polars_graded`` is the old or the new code; each
    worker prints and checks ``polars_graded.__file__``. Workers use only public API that
    exists on both sides and write Parquet and JSON files under ``--out``; the parent
    compares them and prints one line per (dataset, tie policy, kind), the analysis with
    tie policy ``-`` (the report as ``analysis/report.md``, ``report.tex`` and
    ``report.per_query.parquet``; texts compared line by line), then a summary. Exit
    status 1 when anything differs or a side fails. Measures are evaluated all at once;
    when that raises, family by family, and a failing family measure by measure, so one
    refused measure hides no other. The two sides run at once (``--jobs 1``: one after the
    other); about 3 minutes on 2 idle CPUs (most of it ERR under ``ties="average"`` on the 1M
    rows; the analysis adds a few seconds a dataset, most of it the report), peak memory
    about 0.5 GiB per worker. ``--quick`` runs every dataset on small tables (the TREC and
    OHSUMED data keep 12 queries).

Run it from the repository root::

    python benchmarks/bit_identical.py                      # /tmp/pg-before-tree vs this repo
    python benchmarks/bit_identical.py --after /tmp/pg-before-tree   # before vs before
    python benchmarks/bit_identical.py --before ../old-checkout --out /tmp/bits
    python benchmarks/bit_identical.py --quick --datasets gen-graded # a smoke test, seconds

``--before`` and ``--after`` name directories holding the ``polars_graded`` package (a
checkout, e.g. ``git worktree add /tmp/pg-before-tree 6e28f06``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from itertools import zip_longest
from pathlib import Path
from typing import Any, Literal, TypeAlias, cast

import numpy as np
import polars as pl
from polars.testing import assert_frame_equal

Output: TypeAlias = pl.DataFrame | dict[str, pl.DataFrame | str]
"""What a worker's call gives: a frame, or frames and texts by file suffix (:func:`write`)."""
Step: TypeAlias = Callable[[dict[str, Output]], Output]
"""One kind of analysis, given the results of the kinds before it."""

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_BEFORE = Path("/tmp/pg-before-tree")
DEFAULT_SHARED = REPO.parent / "shared" / "data"
DEFAULT_CACHE = HERE / "data"

TIE_POLICIES: tuple[str, ...] = ("trec_eval", "input", "optimistic", "pessimistic", "average")
KINDS: tuple[str, ...] = ("evaluate", "summary", "summary_geometric", "per_threshold")
GEOMETRIC_TIES = "trec_eval"
"""The tie policy of the geometric summary (the others compare its per-query values)."""
EXTRA_MEASURES: tuple[str, ...] = (
    "ap(rel=2)@10",
    "ap(rel=2)",
    "ndcg(gain=linear)@10",
    "ndcg(gain=linear)",
    "ndcg(gain={1:3,2:9})@10",
    "mu_ap(levels=table)",
    "mu_ap(levels=[1,2,3])",
    "mu_ap(levels=[0.5,2.5])",
    "dcg(base=10)@10",
    "p(rel=2)@10",
    "success(rel=2)@10",
    "bpref(rel=2)",
    "rr@10",
    "err(max_rel=4)@10",
    "rbp(p=0.9)",
    "rbp(p=0.9,rel=2)@10",
    "rbp_residual(p=0.9)@10",
    "judged@5",
)
"""Parameters away from their defaults, and cutoffs, beside the README's measures."""
ALIASES: tuple[str, ...] = ("map", "MAP@10", "mu_map", "precision@10", "rprec", "recip_rank", "mrr")
"""Other spellings whose canonical names are compared (not evaluated again)."""
MEASURE_LIKE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\([^()]*\))?(@(\d+|k))?$")
SECTION = re.compile(r"^## (?:Measures|Every measure)\s*$", re.MULTILINE)
"""The heading of a measure table: the README's, and docs/measures.md's."""
CODE_BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)
QUOTED = re.compile(r"\"([^\"\n]*)\"|'([^'\n]*)'")
INLINE = re.compile(r"`([^`\n]+)`")
OPTION_M = re.compile(r"-m\s+(\"[^\"]*\"|'[^']*'|\S+)")

GENERATED: dict[str, tuple[int, int, Literal["graded", "continuous"]]] = {
    # dataset -> (rows, quick rows, labels)
    "gen-graded": (1_000_000, 20_000, "graded"),
    "gen-continuous": (200_000, 10_000, "continuous"),
}
LONG_RANKINGS: tuple[tuple[int, ...], tuple[int, ...]] = (
    (200_000, 70_000, 5_000, 4_097, 4_096, 1_000, 100, 1),
    (10_000, 4_097, 4_096, 50, 1),
)
"""Rows of each query of the ``long`` dataset: in full, and with ``--quick``."""
ROBUST_RUNS = ("aplrob03a", "rutcor03100")
OHSUMED_STRATEGIES = (1, 5, 9, 11, 15, 19, 21, 22)
QUICK_QUERIES = 12
"""With ``--quick``, the TREC and OHSUMED tables keep this many queries."""
SYSTEMS_QUERIES = (60, QUICK_QUERIES)
"""Queries of the ``systems`` dataset: in full, and with ``--quick``."""

ANALYSES: tuple[str, ...] = (
    "per_query",
    "compare",
    "compare_all_bh",
    "compare_pairs",
    "compact_letters",
    "discriminative_power",
    "compare_segments",
    "segment_reversals",
    "judgment_bounds",
    "order_flips",
    "rank_correlations",
    "gate",
    "report",
)
"""The kinds of result of the analysis of a dataset with a system column, in run order."""
ANALYSIS_MEASURES: tuple[str, ...] = ("mu_ap", "ap", "ndcg@10", "p@10")
STATISTICS: dict[str, int] = {"trials": 500, "bootstrap": 500, "seed": 7}
"""Randomization trials, bootstrap resamples and seed of every test of the analysis."""
MIN_QUERIES = 5
"""The fewest queries of a tested segment (the ``--quick`` tables have 6 a segment)."""
MAX_DROP = 0.01
"""The gate's margin."""
CREATED = re.compile(r"\b\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\b")
"""The report's creation time (``Created 2025-01-31 12:00 UTC with ...``)."""
TEXT_SUFFIXES = (".md", ".tex", ".txt")


# --------------------------------------------------------------------------- measure strings


def readme_measure_strings(text: str) -> list[str]:
    """Measure-like strings of a README: its measure table, code and inline code.

    ``@k`` is read as ``@10`` and ``-m NAME=MEASURE`` as ``MEASURE``. Words that are no
    measure (``system``, ``query``) come along; :func:`catalogue` finds which parse.

    Examples
    --------
    >>> readme_measure_strings('`ap@k`, `p@k` and\\n```bash\\ncli -m "rbp80=rbp(p=0.8)@5"\\n```')
    ['ap@10', 'p@10', 'rbp(p=0.8)@5']
    """
    found: list[str] = []
    for span in INLINE.finditer(CODE_BLOCK.sub("", text)):
        found.extend(part.strip() for part in span.group(1).split(","))
    for language, body in CODE_BLOCK.findall(text):
        if language == "bash":
            found.extend(_option_value(m) for m in OPTION_M.findall(body))
        found.extend(a or b for a, b in QUOTED.findall(body))
    if section := SECTION.search(text):
        table = text[section.end() :].split("\n## ", 1)[0]
        for line in table.splitlines():
            if line.startswith(("| `", "| [`")):  # a name, or a name linked
                found.extend(INLINE.findall(line.split("|")[1]))
    cleaned = (re.sub(r"@k$", "@10", s.replace(" ", "")) for s in found)
    return list(dict.fromkeys(s for s in cleaned if MEASURE_LIKE.match(s)))


def _option_value(value: str) -> str:
    """``-m`` argument without quotes and without a leading ``NAME=``."""
    value = value.strip("\"'")
    name, sep, rest = value.partition("=")
    return rest if sep and "(" not in name and name.isidentifier() else value


def measure_pages(root: Path) -> list[Path]:
    """The pages of the repository at ``root`` whose measure strings are compared: its
    README and the site's Markdown pages (not the generated API pages nor the build).

    Examples
    --------
    >>> root = Path(__file__).resolve().parents[1]
    >>> pages = measure_pages(root)
    >>> pages[0] == root / "README.md", root / "docs" / "measures.md" in pages
    (True, True)
    """
    docs = root / "docs"
    skipped = {"_build", "generated"}
    found = docs.rglob("*.md") if docs.is_dir() else ()
    kept = (p for p in found if not skipped & set(p.relative_to(docs).parts))
    return [root / "README.md", *sorted(kept)]


def candidate_strings(readmes: Sequence[Path], registered: Sequence[str]) -> list[str]:
    """Every string to parse: the READMEs', each registered name bare and at @10, the extras."""
    found: list[str] = []
    for path in readmes:
        if path.is_file():
            found.extend(readme_measure_strings(path.read_text(encoding="utf-8")))
    for name in registered:
        found.extend((name, f"{name}@10"))
    found.extend(EXTRA_MEASURES)
    return list(dict.fromkeys(found))


def family(measure: str) -> str:
    """The measure's family, its base name: ``"ap(rel=2)@10"`` -> ``"ap"``."""
    return re.split(r"[(@]", measure, maxsplit=1)[0].lower()


def measures_to_evaluate(parsed: Sequence[dict[str, str]]) -> list[list[str]]:
    """Strings that parse on some side, one per canonical name, grouped by family.

    ``parsed`` holds each side's ``{string: canonical name or "!error"}``; the first side
    that accepts a string names it. Aliases are left out: their names are compared only.
    """
    seen: set[str] = set()
    groups: dict[str, list[str]] = {}
    for string in parsed[0]:
        names = [p[string] for p in parsed if not p.get(string, "!").startswith("!")]
        if string in ALIASES or not names or names[0] in seen:
            continue
        seen.add(names[0])
        groups.setdefault(family(names[0]), []).append(string)
    return list(groups.values())


# --------------------------------------------------------------------------- datasets


def dataset_specs(args: argparse.Namespace, inputs: Path) -> list[dict[str, Any]]:
    """What each worker reads: a Parquet table, or TREC runs and qrels (selected by name)."""
    shared = Path(args.shared)
    robust = shared / "trec2003-robust"
    dl = shared / "trec-dl-2019-2020-passage"
    specs: list[dict[str, Any]] = [
        *({"name": name, "source": "generator"} for name in GENERATED),
        {"name": "long", "source": "long"},
        {"name": "systems", "source": "systems"},
        {
            "name": "robust03",
            "source": "trec",
            "runs": {r: str(robust / "runs" / f"input.{r}.gz") for r in ROBUST_RUNS},
            "qrels": str(robust / "robust03_qrels.txt.gz"),
        },
        *(
            {
                "name": f"dl{year}",
                "source": "trec",
                "runs": {d.name: str(d / f"trec_results_dl{year}.txt.gz") for d in _dirs(dl)},
                "qrels": str(dl / f"qrels.dl{year}-passage.txt"),
            }
            for year in (19, 20)
        ),
        {"name": "ohsumed", "source": "ohsumed", "relevance": "label"},
        {"name": "ohsumed-tfidf", "source": "ohsumed", "relevance": "tfidf"},
    ]
    chosen = [s for s in specs if _selected(s["name"], args.datasets)]
    for spec in chosen:
        spec.update(prepare(spec, args, inputs))
    return chosen


def _dirs(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("runs/*") if p.is_dir()) if folder.is_dir() else []


def _selected(name: str, wanted: str | None) -> bool:
    return wanted is None or any(name.startswith(w.strip()) for w in wanted.split(","))


def prepare(spec: dict[str, Any], args: argparse.Namespace, inputs: Path) -> dict[str, Any]:
    """Write the dataset's input table (or check its TREC files); the columns and ``by``."""
    if spec["source"] == "generator":
        from generate import LogSpec, ensure  # benchmarks/generate.py, beside this script

        rows, quick_rows, labels = GENERATED[spec["name"]]
        path = ensure(LogSpec(quick_rows if args.quick else rows, labels=labels), Path(args.cache))
        return {"path": str(path), "columns": {}, "by": None}
    if spec["source"] == "long":
        path = inputs / f"long{'-quick' * args.quick}.parquet"
        long_rankings(LONG_RANKINGS[args.quick]).write_parquet(path)
        return {"path": str(path), "columns": {}, "by": None}
    if spec["source"] == "systems":
        path = inputs / f"systems{'-quick' * args.quick}.parquet"
        system_rankings(SYSTEMS_QUERIES[args.quick]).write_parquet(path)
        return {"path": str(path), "columns": {}, "by": "system"}
    if spec["source"] == "trec":
        missing = [p for p in [spec["qrels"], *spec["runs"].values()] if not Path(p).is_file()]
        if missing or not spec["runs"]:
            msg = f"{spec['name']}: missing data {missing or spec['runs']} (see --shared)"
            raise FileNotFoundError(msg)
        return {"columns": {}, "by": "system", "queries": QUICK_QUERIES if args.quick else None}
    path = inputs / f"ohsumed{'-quick' * args.quick}.parquet"
    if not path.exists():
        ohsumed_table(Path(args.shared), args.quick).write_parquet(path)
    columns = {"query": "qid", "item": "docid", "relevance": spec["relevance"]}
    return {"path": str(path), "columns": columns, "by": "strategy"}


def long_rankings(sizes: Sequence[int], seed: int = 5) -> pl.DataFrame:
    """One query per size: continuous labels in [0, 4] with three decimals (a fifth of the
    rows 0), scores ``0.6 * label + N(0, 1)`` to two decimals (ties), a few rows unjudged."""
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    labels = np.round(rng.uniform(0, 4, n), 3) * (rng.uniform(size=n) > 0.2)
    return pl.DataFrame(
        {
            "query": np.repeat(np.arange(len(sizes)), sizes),
            "item": [f"d{i}" for i in range(n)],
            "score": np.round(0.6 * labels + rng.normal(size=n), 2),
            "relevance": labels,
        }
    ).with_columns(
        relevance=pl.when(pl.Series(rng.uniform(size=n) < 0.02)).then(None).otherwise("relevance")
    )


def system_rankings(queries: int, seed: int = 11) -> pl.DataFrame:
    """Four systems ranking the same 80 items a query: integer labels 0-3, a seventh of the
    items unjudged (null), scores ``quality * label + N(0, 1)`` to one decimal (ties);
    system ``s3`` lacks every seventh query (``missing="zero"`` has work to do)."""
    rng = np.random.default_rng(seed)
    items, quality = 80, (0.2, 0.5, 0.6, 1.0)
    n = queries * items
    labels = rng.choice(4, size=n, p=[0.6, 0.2, 0.12, 0.08])
    judged = rng.uniform(size=n) > 1 / 7
    frames = [
        pl.DataFrame(
            {
                "system": f"s{s}",
                "query": np.repeat(np.arange(1, queries + 1), items),
                "item": [f"d{i % items}" for i in range(n)],
                "score": np.round(q * labels + rng.normal(size=n), 1),
                "relevance": pl.Series(labels).set(pl.Series(~judged), None),
            }
        )
        for s, q in enumerate(quality)
    ]
    return pl.concat(frames).filter((pl.col("system") != "s3") | (pl.col("query") % 7 != 0))


def ohsumed_table(shared: Path, quick: bool) -> pl.DataFrame:
    """LETOR 3.0 OHSUMED in long form: one row per (strategy, qid, docid), score = feature."""
    source = shared / "letor3-ohsumed" / "Feature-min.all.parquet"
    if not source.is_file():
        msg = f"ohsumed: missing data {source} (see --shared)"
        raise FileNotFoundError(msg)
    wide = pl.read_parquet(source).filter(pl.col("qid") <= (QUICK_QUERIES if quick else 10**9))
    features = [f"f{s}" for s in OHSUMED_STRATEGIES]
    return (
        wide.select("qid", "docid", "label", *features, tfidf="f9")
        .unpivot(features, index=["qid", "docid", "label", "tfidf"], variable_name="strategy")
        .rename({"value": "score"})
    )


# --------------------------------------------------------------------------- worker


def kinds(ties: str) -> list[str]:
    """The kinds of result made under ``ties``: the geometric mean under one policy only."""
    return [kind for kind in KINDS if kind != "summary_geometric" or ties == GEOMETRIC_TIES]


def worker(plan_path: Path) -> int:
    """One side, one dataset: evaluate everything the plan asks and write the results."""
    plan = json.loads(plan_path.read_text())
    import polars_graded as pg

    where = Path(pg.__file__).resolve()
    print(f"polars_graded from {where}", flush=True)
    if not where.is_relative_to(Path(plan["root"]).resolve()):
        print(f"expected polars_graded under {plan['root']}", file=sys.stderr)
        return 2
    out = Path(plan["out"])
    if plan["dataset"] is None:
        (out / "catalogue.json").write_text(json.dumps(catalogue(pg, plan["candidates"])))
        return 0
    frame = load(pg, plan["dataset"], out)
    for ties in plan["ties"]:
        evaluate_one_policy(frame, plan, ties, out / ties)
    if plan["dataset"]["by"]:
        analyse(pg, frame, plan["dataset"], out / "analysis")
    return 0


def catalogue(pg: Any, candidates: Sequence[str]) -> dict[str, Any]:
    """The registered names (from the unknown-measure message) and each candidate parsed."""
    try:
        pg.parse_measure("__no_such_measure__")
        registered: list[str] = []
    except Exception as error:  # the message lists the valid names
        registered = str(error).split("valid names:", 1)[-1].replace(" ", "").split(",")
    names = [*candidates, *(c for r in registered for c in (r, f"{r}@10"))]
    return {
        "file": pg.__file__,
        "registered": registered,
        "parsed": {s: _canonical(pg, s) for s in dict.fromkeys([*names, *ALIASES])},
    }


def _canonical(pg: Any, string: str) -> str:
    try:
        return str(pg.parse_measure(string))
    except Exception as error:
        return "!" + describe(error)


def describe(error: BaseException) -> str:
    """The exception as ``Type: message``, what two sides must agree on."""
    return f"{type(error).__name__}: {error}"


def load(pg: Any, dataset: dict[str, Any], out: Path) -> pl.DataFrame:
    """The dataset's long table; TREC tables are built by the side's own readers."""
    if dataset["source"] != "trec":
        return pl.read_parquet(dataset["path"])
    runs = [
        pg.read_trec_run(path).select("query", "item", "score").with_columns(system=pl.lit(name))
        for name, path in dataset["runs"].items()
    ]
    qrels = pg.read_trec_qrels(dataset["qrels"])
    table = cast(pl.DataFrame, pg.join_run_qrels(pl.concat(runs), qrels, by="system"))
    # A full join promises no row order: fix one, so that ties="input" means the same.
    table = table.sort("system", "query", "item")
    if dataset.get("queries"):
        first = table.select(pl.col("query").unique().sort().head(dataset["queries"]))
        table = table.join(first, on="query", how="semi", maintain_order="left")
    table.write_parquet(out / "table.parquet")
    return table


def evaluate_one_policy(frame: pl.DataFrame, plan: dict[str, Any], ties: str, out: Path) -> None:
    """Every kind of result under one tie policy, written under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    options: dict[str, Any] = {**plan["dataset"]["columns"], "ties": ties}
    if plan["dataset"]["by"]:
        options["by"] = plan["dataset"]["by"]
    graded: Any = cast(Any, frame).graded  # whichever side's namespace
    calls: dict[str, Callable[[list[str]], pl.DataFrame]] = {
        "evaluate": lambda ms: graded.evaluate(ms, **options),
        "summary": lambda ms: graded.summary(ms, **options),
        "summary_geometric": lambda ms: graded.summary(ms, mean="geometric", **options),
    }
    for kind, call in calls.items():
        if kind in kinds(ties):
            in_groups(call, plan["groups"], out, kind)
    record: dict[str, Any] = {"errors": {}, "warnings": []}
    guarded(lambda: graded.per_threshold(**options), out / "per_threshold.parquet", record, "*")
    (out / "per_threshold.json").write_text(json.dumps(record, indent=1))


def in_groups(
    call: Callable[[list[str]], pl.DataFrame], groups: list[list[str]], out: Path, kind: str
) -> None:
    """All measures in one call; on an error family by family, then measure by measure."""
    record: dict[str, Any] = {"errors": {}, "warnings": []}
    everything = [m for group in groups for m in group]
    if not guarded(partial(call, everything), out / f"{kind}.parquet", record, None):
        for g, group in enumerate(groups):
            stem = f"{kind}.{g:02d}-{family(group[0])}"
            if guarded(partial(call, group), out / f"{stem}.parquet", record, None):
                continue
            for m, measure in enumerate(group):
                target = out / f"{stem}.{m:02d}.parquet"
                guarded(partial(call, [measure]), target, record, measure)
    (out / f"{kind}.json").write_text(json.dumps(record, indent=1))


def guarded(
    call: Callable[[], Output], target: Path, record: dict[str, Any], key: str | None
) -> bool:
    """Write ``call()`` to ``target``; record its warnings, and its error under ``key``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            write(call(), target)
            ok = True
        except Exception as error:
            if key is not None:
                record["errors"][key] = describe(error)
            ok = False
    record["warnings"].extend(f"{w.category.__name__}: {w.message}" for w in caught)
    return ok


def write(result: Output, target: Path) -> None:
    """A frame to ``target`` (Parquet); each part of a mapping to ``target``'s stem plus its
    key (``".md"`` -> ``report.md``): a frame as Parquet, a text as it is."""
    if isinstance(result, pl.DataFrame):
        result.write_parquet(target)
        return
    for suffix, part in result.items():
        path = target.with_name(target.stem + suffix)
        if isinstance(part, pl.DataFrame):
            part.write_parquet(path)
        else:
            path.write_text(part, encoding="utf-8")


# --------------------------------------------------------------------------- analysis


def analyse(pg: Any, frame: pl.DataFrame, dataset: dict[str, Any], out: Path) -> None:
    """Every kind of :data:`ANALYSES`, under the default tie policy, written under ``out``.

    A step that needs an earlier one that failed fails too, alike on both sides."""
    out.mkdir(parents=True, exist_ok=True)
    done: dict[str, Output] = {}
    for kind, step in analysis_steps(pg, frame, dataset, out).items():
        record: dict[str, Any] = {"errors": {}, "warnings": []}
        guarded(partial(_kept, step, done, kind), out / f"{kind}.parquet", record, "*")
        (out / f"{kind}.json").write_text(json.dumps(record, indent=1))


def _kept(step: Step, done: dict[str, Output], kind: str) -> Output:
    done[kind] = step(done)
    return done[kind]


def need(done: dict[str, Output], kind: str) -> pl.DataFrame:
    """The frame an earlier step made."""
    result = done.get(kind)
    if not isinstance(result, pl.DataFrame):
        msg = f"no {kind} result to work on"
        raise LookupError(msg)
    return result


def analysis_steps(
    pg: Any, frame: pl.DataFrame, dataset: dict[str, Any], out: Path
) -> dict[str, Step]:
    """What each kind of :data:`ANALYSES` calls, given the results made before it."""
    by, columns = dataset["by"], dataset["columns"]
    query, ms = columns.get("query", "query"), list(ANALYSIS_MEASURES)
    tests: dict[str, Any] = {"by": by, "query": query, **STATISTICS}
    segments: dict[str, Any] = {"segment": "segment", "min_queries": MIN_QUERIES}
    segmented = partial(with_segments, query=query)

    def per_query(done: dict[str, Output]) -> pl.DataFrame:
        return need(done, "per_query")

    steps: dict[str, Step] = {
        "per_query": lambda d: pg.evaluate(frame, ms, by=by, **columns),
        "compare": lambda d: pg.compare(per_query(d), ms, **tests),
        "compare_all_bh": lambda d: pg.compare(
            per_query(d), ms, pairs="all", correction="bh", **tests
        ),
        "compare_pairs": lambda d: pg.compare_pairs(per_query(d), ms, **tests),
        "compact_letters": lambda d: letters(pg, need(d, "compare_pairs"), ms, by),
        "discriminative_power": lambda d: pg.discriminative_power(need(d, "compare_pairs")),
        "compare_segments": lambda d: pg.compare_segments(
            segmented(per_query(d)), ms, **segments, **tests
        ),
        "segment_reversals": lambda d: pg.segment_reversals(need(d, "compare_segments"), by=by),
        "judgment_bounds": lambda d: pg.judgment_bounds(frame, ms, by=by, **columns),
        "order_flips": lambda d: pg.order_flips(need(d, "judgment_bounds"), by=by),
        "rank_correlations": lambda d: pg.rank_correlations(
            scenarios(need(d, "judgment_bounds"), by), system=by
        ),
        "gate": lambda d: gate(pg, frame, by, columns),
        "report": lambda d: report(pg, segmented(frame), out / "report-files", by, columns),
    }
    return steps


def with_segments(frame: pl.DataFrame, query: str) -> pl.DataFrame:
    """``frame`` with a column ``segment``: its queries sorted, alternately ``"a"``, ``"b"``."""
    queries = frame.select(pl.col(query).unique().sort())
    half = pl.when(pl.int_range(pl.len()) % 2 == 0).then(pl.lit("a")).otherwise(pl.lit("b"))
    return frame.join(queries.with_columns(segment=half), on=query, maintain_order="left")


def scenarios(bounds: pl.DataFrame, by: str) -> pl.DataFrame:
    """``pg.judgment_bounds`` in long form: a ``variant`` per measure and scenario of the
    unjudged rows (``"ap: judged_only"``), the system and its mean ``value``."""
    means = ["value", "unjudged_relevant", "judged_only"]
    long = bounds.unpivot(means, index=[by, "measure"], variable_name="scenario", value_name="v")
    variant = pl.format("{}: {}", "measure", "scenario").alias("variant")
    return long.select(variant, by, value="v")


def letters(pg: Any, pairs: pl.DataFrame, measures: Sequence[str], by: str) -> pl.DataFrame:
    """``pg.compact_letters`` of every measure, one under the other."""
    frames = [
        cast(pl.DataFrame, pg.compact_letters(pairs, m, by=by)).with_columns(measure=pl.lit(m))
        for m in measures
    ]
    return pl.concat(frames)


def gate(pg: Any, frame: pl.DataFrame, by: str, columns: dict[str, str]) -> Output:
    """``pg.gate`` of the second system (sorted) against the first: its table and verdict."""
    baseline, candidate = frame.get_column(by).unique().sort().head(2)
    result = pg.gate(
        frame, list(ANALYSIS_MEASURES), baseline=baseline, candidate=candidate,
        max_drop=MAX_DROP, by=by, bootstrap=STATISTICS["bootstrap"], seed=STATISTICS["seed"],
        **columns,
    )  # fmt: skip
    return {".parquet": result.table, ".passed.txt": f"passed: {result.passed}\n"}


def report(pg: Any, frame: pl.DataFrame, folder: Path, by: str, columns: dict[str, str]) -> Output:
    """``pg.build_report`` with every section: its Markdown and LaTeX text (the creation
    time and the package version normalised, :func:`normalised`) and its per-query table.
    Not its HTML page, which also shows the time and versions, and embeds charts."""
    files = pg.build_report(
        frame, folder, list(ANALYSIS_MEASURES), latex=True, by=by, all_pairs=True,
        segment="segment", min_queries=MIN_QUERIES, **STATISTICS, **columns,
    )  # fmt: skip
    version = str(pg.__version__)
    return {
        ".md": normalised(Path(files.markdown).read_text(encoding="utf-8"), version),
        ".tex": normalised(Path(files.latex).read_text(encoding="utf-8"), version),
        ".per_query.parquet": pl.read_parquet(files.per_query),
    }


def normalised(text: str, version: str) -> str:
    """``text`` with its creation time and the package's version replaced, nothing else.

    Examples
    --------
    >>> normalised("Created 2025-01-31 12:05 UTC with polars_graded 0.1.0, Polars 1.2", "0.1.0")
    'Created <created> with polars_graded <version>, Polars 1.2'
    """
    return CREATED.sub("<created>", text).replace(
        f"polars_graded {version}", "polars_graded <version>"
    )


# --------------------------------------------------------------------------- parent


def run_side(root: Path, plan: dict[str, Any], out: Path) -> tuple[str, str | None]:
    """Run one worker: its first line of output, and ``None`` or the tail of its errors."""
    if plan["dataset"] is not None:  # no stale results of an earlier run
        shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    plan = {**plan, "root": str(root), "out": str(out)}
    plan_path = out / "plan.json"
    plan_path.write_text(json.dumps(plan, indent=1))
    env = {**os.environ, "PYTHONPATH": str(root)}
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", str(plan_path)]
    done = subprocess.run(command, check=False, env=env, cwd=out, capture_output=True, text=True)
    first = (done.stdout.splitlines() or [""])[0]
    if done.returncode != 0:
        return first, (done.stderr.strip() or done.stdout.strip() or "?").splitlines()[-1]
    return first, None


def compare_files(before: Path, after: Path, kind: str) -> tuple[bool, str]:
    """Compare every Parquet and JSON file of one kind of result in two folders."""
    pattern = f"{kind}.*"
    names = {p.name for p in before.glob(pattern)} | {p.name for p in after.glob(pattern)}
    if not names:
        return False, "no result on either side"
    files = 0
    for name in sorted(names):
        one, two = before / name, after / name
        if not (one.exists() and two.exists()):
            return False, f"{name} only {'before' if one.exists() else 'after'}"
        problem = _differs(one, two)
        if problem:
            return False, f"{name}: {problem}"
        files += not name.endswith(".json")
    return True, f"{files} file{'s' * (files != 1)}{_refusals(before / f'{kind}.json')}"


def _differs(one: Path, two: Path) -> str | None:
    if one.suffix in TEXT_SUFFIXES:
        return _text_difference(one.read_text("utf-8"), two.read_text("utf-8"))
    if one.suffix == ".json":
        a, b = json.loads(one.read_text()), json.loads(two.read_text())
        return None if a == b else f"errors or warnings differ: {_json_diff(a, b)}"
    left, right = pl.read_parquet(one), pl.read_parquet(two)
    try:
        assert_frame_equal(left, right, check_exact=True)
    except AssertionError as error:
        return _first_value_difference(left, right) or " ".join(str(error).split())[:300]
    return None


def _text_difference(a: str, b: str) -> str | None:
    """Where two texts differ first: the line's number and both lines."""
    if a == b:
        return None
    lines = zip_longest(a.splitlines(keepends=True), b.splitlines(keepends=True), fillvalue="")
    number, (one, two) = next((i, p) for i, p in enumerate(lines, 1) if p[0] != p[1])
    column = next((i for i, (x, y) in enumerate(zip(one, two, strict=False)) if x != y), None)
    start = max(0, (min(len(one), len(two)) if column is None else column) - 40)
    where = f"line {number}, column {start + 41}" if start else f"line {number}"
    return f"{where}: before {one[start : start + 120]!r}, after {two[start : start + 120]!r}"


def _first_value_difference(left: pl.DataFrame, right: pl.DataFrame) -> str | None:
    """Where two frames of one schema and height differ first, with every digit shown."""
    if left.schema != right.schema or left.height != right.height:
        return None
    for name in left.columns:
        differs = left[name].ne_missing(right[name])
        if differs.any():
            row = int(differs.arg_max() or 0)
            return (
                f"column {name!r}: {differs.sum()} of {left.height} rows differ, first row "
                f"{row}: before {left[name][row]!r}, after {right[name][row]!r}"
            )
    return None


def _json_diff(a: Any, b: Any) -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return f"[{key}] {_json_diff(a.get(key), b.get(key))}"
    return f"before {str(a)[:150]!r}, after {str(b)[:150]!r}"


def _refusals(record: Path) -> str:
    errors = len(json.loads(record.read_text())["errors"]) if record.exists() else 0
    return f", {errors} refused alike" if errors else ""


def results(args: argparse.Namespace, out: Path) -> Iterator[tuple[str, bool, str]]:
    """Run both sides on every dataset and yield (label, equal, detail) per comparison."""
    readmes = [*measure_pages(Path(args.before)), *measure_pages(Path(args.after))]
    sides = {"before": Path(args.before), "after": Path(args.after)}
    catalogues = {}
    for side, root in sides.items():
        plan = {"dataset": None, "candidates": candidate_strings(readmes, [])}
        first, failed = run_side(root, plan, out / side)
        print(f"  {side}: {first}", flush=True)
        if failed:
            yield f"catalogue ({side})", False, f"worker failed: {failed}"
            return
        catalogues[side] = json.loads((out / side / "catalogue.json").read_text())
    yield "catalogue", *_catalogue_verdict(catalogues["before"], catalogues["after"])
    groups = measures_to_evaluate([c["parsed"] for c in catalogues.values()])
    print(f"  {sum(map(len, groups))} measures in {len(groups)} families", flush=True)
    inputs = out / "inputs"
    inputs.mkdir(parents=True, exist_ok=True)
    for dataset in dataset_specs(args, inputs):
        yield from compare_dataset(dataset, groups, sides, out, args.jobs)


def _catalogue_verdict(before: dict[str, Any], after: dict[str, Any]) -> tuple[bool, str]:
    if before["registered"] != after["registered"]:
        return False, f"registered names {before['registered']} vs {after['registered']}"
    if before["parsed"] != after["parsed"]:
        return False, f"parsed strings differ: {_json_diff(before['parsed'], after['parsed'])}"
    accepted = sum(not v.startswith("!") for v in before["parsed"].values())
    return True, f"{len(before['parsed'])} strings parsed alike ({accepted} are measures)"


def compare_dataset(
    dataset: dict[str, Any], groups: list[list[str]], sides: dict[str, Path], out: Path, jobs: int
) -> Iterator[tuple[str, bool, str]]:
    """Both sides on one dataset, then one comparison per (tie policy, kind)."""
    name = dataset["name"]
    plan = {"dataset": dataset, "groups": groups, "ties": list(TIE_POLICIES)}
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        running = {s: pool.submit(run_side, r, plan, out / s / name) for s, r in sides.items()}
        failures = {s: future.result()[1] for s, future in running.items()}
    if any(failures.values()):
        yield name, False, f"worker failed: {failures}"
        return
    print(f"  {name}: both sides in {time.perf_counter() - started:.0f} s", flush=True)
    before, after = out / "before" / name, out / "after" / name
    if dataset["source"] == "trec":
        yield f"{name:15} {'-':12} table", *compare_files(before, after, "table")
    for ties in TIE_POLICIES:
        for kind in kinds(ties):
            label = f"{name:15} {ties:12} {kind}"
            yield label, *compare_files(before / ties, after / ties, kind)
    for kind in ANALYSES if dataset["by"] else ():
        label = f"{name:15} {'-':12} {kind}"
        yield label, *compare_files(before / "analysis", after / "analysis", kind)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line; see the module docstring."""
    args = build_parser().parse_args(argv)
    if args.worker:
        return worker(Path(args.worker))
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bit-identical-"))
    print(f"before: {args.before}\nafter:  {args.after}\nout:    {out}", flush=True)
    started, equal, different = time.perf_counter(), 0, []
    try:
        for label, same, detail in results(args, out):
            print(f"{'OK' if same else 'DIFFERENT':9} {label}  ({detail})", flush=True)
            equal += same
            different += [] if same else [label]
    except Exception:
        traceback.print_exc()
        different.append("the run itself (see the traceback)")
    seconds = time.perf_counter() - started
    print(f"\n{equal} equal, {len(different)} different, {seconds:.0f} s; results in {out}")
    for label in different:
        print(f"  DIFFERENT: {label}")
    return 1 if different else 0


def build_parser() -> argparse.ArgumentParser:
    """The options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=str(DEFAULT_BEFORE), help="old package root")
    parser.add_argument("--after", default=str(REPO), help="new package root (this repo)")
    parser.add_argument("--out", help="results folder (default: a new temporary folder)")
    parser.add_argument("--quick", action="store_true", help="small tables, a smoke test")
    parser.add_argument("--datasets", help="comma-separated name prefixes (default: all)")
    parser.add_argument("--shared", default=str(DEFAULT_SHARED), help="the shared data folder")
    parser.add_argument("--cache", default=str(DEFAULT_CACHE), help="generated logs' folder")
    parser.add_argument(
        "--jobs", type=int, default=2, help="sides run at once (default 2; 1 halves the memory)"
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    return parser


if __name__ == "__main__":
    sys.exit(main())
