"""The ``polars-graded`` command: evaluate tables or TREC files, and run the paper's demo.

``polars-graded evaluate TABLE`` reads a long ``(query, item, score, relevance)`` table
(Parquet or CSV, lazily); ``polars-graded evaluate --run RUN --qrels QRELS`` joins TREC
files first. Both print the summary (``num_q`` and means per ``--by`` group) and can write
the per-query values with ``-o``. ``polars-graded demo`` runs the artificial experiment of
the paper's §2.1 (:mod:`polars_graded.artificial`). ``polars-graded report`` writes an HTML
report, a Markdown summary and the per-query values of several systems
(:mod:`polars_graded.report`).
"""

from __future__ import annotations

import argparse
import glob
import itertools
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import polars as pl

import polars_graded
from polars_graded import artificial, partitioned, plan, report
from polars_graded.errors import GradedError
from polars_graded.measures.grammar import split_top_level
from polars_graded.ranking import TIE_POLICIES

PROG = "polars-graded"
DEFAULT_MEASURES: tuple[str, ...] = ("mu_ap", "ndcg@10", "ndcng@10", "ap", "p@10", "rr")
DECIMALS = 4
COUNT = "num_q"
DEMO_MEASURES: dict[str, str] = {
    "mu_ap": "µMAP",
    "mean_ndcg": "mean NDCG (gain 2^rel - 1)",
    "mean_ndcng": "mean NDCNG",
}
_PARQUET_SUFFIXES = (".parquet", ".pq")
_CSV_SEPARATORS = {".csv": ",", ".tsv": "\t"}
_OUTPUT_SUFFIXES = (".parquet", ".pq", ".csv")


class CommandError(Exception):
    """A problem with the command's input that is reported in one line, exit code 2."""


# --------------------------------------------------------------------------- entry point


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 ok, 2 bad input or usage).

    Parameters
    ----------
    argv
        Arguments without the program name; ``None`` reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit code.

    Examples
    --------
    >>> main(["--version"])  # doctest: +SKIP
    polars-graded 0.1.0
    0
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, --version and usage errors
        return _exit_code(exit_)
    try:
        return int(args.handler(args))
    except (GradedError, CommandError, OSError, pl.exceptions.PolarsError) as error:
        print(f"{PROG}: error: {_one_line(error)}", file=sys.stderr)
        return 2


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``polars-graded`` with its subcommands."""
    parser = argparse.ArgumentParser(
        prog=PROG, description="Evaluate rankings against graded relevance (µMAP, NDCNG, ...)."
    )
    parser.add_argument(
        "--version", action="version", version=f"{PROG} {polars_graded.__version__}"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_evaluate(commands)
    _add_demo(commands)
    _add_report(commands)
    return parser


def _exit_code(exit_: SystemExit) -> int:
    code = exit_.code
    if code is None:
        return 0
    return code if isinstance(code, int) else 2


def _one_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        text = f"{error.strerror}: {error.filename}"
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


# --------------------------------------------------------------------------- evaluate


def _add_evaluate(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser(
        "evaluate",
        help="evaluate a long table or a TREC run against qrels",
        description=(
            "Evaluate a long table (one row per query and item: query, item, score, "
            "relevance) read from Parquet or CSV, or a TREC run against TREC qrels. "
            "Prints the number of queries and the mean of each measure per --by group."
        ),
    )
    sub.add_argument(
        "table",
        nargs="?",
        metavar="TABLE",
        help="a .parquet or .csv table, a glob of them or a directory of Parquet files",
    )
    sub.add_argument("--run", metavar="RUN", help="a TREC run file (plain or gzipped)")
    sub.add_argument("--qrels", metavar="QRELS", help="a TREC qrels file (plain or gzipped)")
    sub.add_argument(
        "--queries",
        choices=("qrels", "both", "all"),
        default="qrels",
        help="with --run: which queries count (default: qrels, like trec_eval -c)",
    )
    sub.add_argument(
        "-m",
        "--measure",
        action="append",
        metavar="MEASURE",
        help=(
            "a measure such as mu_ap, ndcg@10, 'ap(rel=2)@10'; repeat or separate with "
            f"commas (default: {','.join(DEFAULT_MEASURES)})"
        ),
    )
    for column in ("query", "item", "score", "relevance"):
        sub.add_argument(f"--{column}", metavar="COLUMN", help=f"the {column} column of TABLE")
    sub.add_argument(
        "--by",
        action="append",
        metavar="COLUMN",
        help="an extra key column such as system (repeatable; with --run e.g. tag)",
    )
    sub.add_argument(
        "-o", "--output", metavar="FILE", help="write the per-query values (.parquet or .csv)"
    )
    sub.add_argument(
        "--memory-budget",
        metavar="SIZE",
        type=_memory_size,
        help=(
            "memory the evaluation may take, e.g. 4GiB or 512MiB; a Parquet TABLE whose "
            "evaluation would need more is evaluated in partitions of whole queries "
            "(default: half of this machine's memory)"
        ),
    )
    sub.add_argument(
        "--partitions",
        metavar="N",
        type=_positive,
        help="evaluate a Parquet TABLE in N partitions of whole queries (overrides the budget)",
    )
    sub.add_argument(
        "--ranked",
        action="store_true",
        help=(
            "the rows are already in ranked order (each query's rows together, score "
            "descending, ties by item descending): skip the sort; rows out of order are an error"
        ),
    )
    add_ties_option(sub)
    sub.add_argument(
        "--mean",
        choices=plan.MEANS,
        default="arithmetic",
        help=(
            "how the printed summary averages over queries: arithmetic (default) or "
            "trec_eval's geometric mean (gm_map for ap; values below 1e-5 count as 1e-5)"
        ),
    )
    sub.add_argument(
        "-q", "--quiet", action="store_true", help="no progress bar on partitioned evaluations"
    )
    sub.set_defaults(handler=run_evaluate)


def add_ties_option(sub: argparse.ArgumentParser) -> None:
    """``--ties``: how rows with equal scores are ordered, or averaged over."""
    sub.add_argument(
        "--ties",
        choices=TIE_POLICIES,
        default="trec_eval",
        help=(
            "rows with equal scores: by item descending (trec_eval, the default), in the "
            "table's order (input), the higher / lower label first (optimistic / "
            "pessimistic), or the expected value over every order of the tied rows (average)"
        ),
    )


def run_evaluate(args: argparse.Namespace) -> int:
    """``polars-graded evaluate``: print the summary, write per-query values with ``-o``."""
    measures = split_measures(args.measure or list(DEFAULT_MEASURES))
    output = _output_path(args.output)  # a bad extension fails before any work
    by = list(args.by or [])
    frame, columns = _input_frame(args, by)
    count = _partition_count(args)
    if count is None:
        # The partitions' engine: splitting the table never changes a bit of the output.
        per_query = frame.graded.evaluate(
            measures, **columns, by=by or None, ranked=args.ranked, ties=args.ties
        ).collect(engine=partitioned.ENGINE)
    else:
        per_query = partitioned.evaluate_parquet(
            _parquet_source(Path(args.table)),
            measures,
            partitions=count,
            progress=not args.quiet and count > 1 and sys.stderr.isatty(),
            **columns,
            by=by or None,
            ranked=args.ranked,
            ties=args.ties,
        )
    if output is not None:
        write_table(per_query, output)
    names = [c for c in per_query.columns if c not in {*by, columns.get("query", "query")}]
    print(format_table(plan.summary(per_query.lazy(), names, by, args.mean).collect()))
    return 0


def _partition_count(args: argparse.Namespace) -> int | None:
    """Partitions for a Parquet TABLE: ``--partitions``, or more than one when its estimated
    evaluation exceeds ``--memory-budget``; ``None`` to evaluate in memory."""
    parquet = args.table is not None and _is_parquet(Path(args.table))
    if args.partitions is not None:
        if not parquet:
            msg = "--partitions needs a Parquet TABLE (.parquet, a glob or a directory)"
            raise CommandError(msg)
        return int(args.partitions)
    if not parquet:
        return None
    count = partitioned.choose_partitions(_parquet_source(Path(args.table)), args.memory_budget)
    return count if count > 1 else None


def _memory_size(text: str) -> int:
    try:
        return partitioned.parse_memory(text)
    except GradedError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def split_measures(values: Sequence[str]) -> list[str]:
    """Measure names from repeated and comma-separated ``-m`` values.

    Commas inside brackets, braces or parentheses belong to the measure.

    Examples
    --------
    >>> split_measures(["mu_ap,ndcg@10", "ndcg(gain={1:3,2:9})@5"])
    ['mu_ap', 'ndcg@10', 'ndcg(gain={1:3,2:9})@5']
    """
    names = [name for value in values for name in split_top_level(value)]
    if not names:
        msg = "no measure given to -m"
        raise CommandError(msg)
    return names


def _input_frame(args: argparse.Namespace, by: list[str]) -> tuple[pl.LazyFrame, dict[str, str]]:
    """The long table to evaluate and the column keyword arguments for it."""
    columns = {
        name: getattr(args, name)
        for name in ("query", "item", "score", "relevance")
        if getattr(args, name) is not None
    }
    if args.table is not None:
        if args.run is not None or args.qrels is not None:
            msg = "give either TABLE or --run and --qrels, not both"
            raise CommandError(msg)
        return read_table(Path(args.table)), columns
    if args.run is None or args.qrels is None:
        msg = "give a TABLE (.parquet or .csv) or both --run RUN and --qrels QRELS"
        raise CommandError(msg)
    if columns:
        msg = "--query/--item/--score/--relevance name the columns of a TABLE, not of TREC files"
        raise CommandError(msg)
    run = polars_graded.read_trec_run(_existing(Path(args.run)))
    qrels = polars_graded.read_trec_qrels(_existing(Path(args.qrels)))
    joined = polars_graded.join_run_qrels(
        run.lazy(), qrels.lazy(), by=by or None, queries=args.queries
    )
    return joined, columns


def read_table(path: Path) -> pl.LazyFrame:
    """Scan a Parquet or CSV table lazily, choosing the reader by the file's extension.

    A directory is read as a directory of Parquet files.
    """
    if _is_parquet(path):
        return pl.scan_parquet(_parquet_source(path))
    suffix = path.suffix.lower()
    if suffix in _CSV_SEPARATORS:
        return pl.scan_csv(
            _existing(path), separator=_CSV_SEPARATORS[suffix], infer_schema_length=10_000
        )
    known = ", ".join([*_PARQUET_SUFFIXES, *_CSV_SEPARATORS])
    msg = f"cannot read {str(path)!r}: expected a table ending in {known}"
    raise CommandError(msg)


def _is_parquet(path: Path) -> bool:
    """True for a Parquet file or glob (by extension) and for a directory."""
    return path.suffix.lower() in _PARQUET_SUFFIXES or path.is_dir()


def _parquet_source(path: Path) -> Path:
    """``path`` checked: an existing file or directory, or a glob that matches files."""
    if path.is_dir():
        if not partitioned.parquet_files(path):
            msg = f"no file in directory {path}"
            raise CommandError(msg)
        return path
    return _existing(path)


def _existing(path: Path) -> Path:
    """``path`` itself; a file that does not exist is a :class:`CommandError`.

    Glob patterns (``runs/*.parquet``) pass unchecked: Polars expands them.
    """
    if any(char in str(path) for char in "*?["):
        if not glob.glob(str(path)):
            msg = f"no file matches {path}"
            raise CommandError(msg)
    elif not path.is_file():
        msg = f"no such file: {path}"
        raise CommandError(msg)
    return path


def _output_path(text: str | None) -> Path | None:
    if text is None:
        return None
    path = Path(text)
    if path.suffix.lower() not in _OUTPUT_SUFFIXES:
        msg = f"cannot write {text!r}: -o must end in .parquet or .csv"
        raise CommandError(msg)
    return path


def write_table(frame: pl.DataFrame, path: Path) -> None:
    """Write ``frame`` as Parquet or CSV, chosen by the extension of ``path``."""
    if path.suffix.lower() == ".csv":
        frame.write_csv(path)
    else:
        frame.write_parquet(path)


def format_table(frame: pl.DataFrame, decimals: int = DECIMALS) -> str:
    """Every row and column of ``frame`` as aligned text, floats with fixed decimals.

    Numbers are right-aligned, other values left-aligned; nulls show as ``-``.

    Examples
    --------
    >>> print(format_table(pl.DataFrame({"system": ["a", "bb"], "ap": [0.5, 1 / 3]})))
    system      ap
    ------  ------
    a       0.5000
    bb      0.3333
    """
    header = list(frame.columns)
    cells = [[_cell(v, decimals) for v in frame.get_column(c).to_list()] for c in header]
    numeric = [frame.schema[c].is_numeric() for c in header]
    widths = [
        max([len(name), *map(len, column)]) for name, column in zip(header, cells, strict=True)
    ]

    def line(values: Sequence[str]) -> str:
        parts = (
            value.rjust(width) if right else value.ljust(width)
            for value, width, right in zip(values, widths, numeric, strict=True)
        )
        return "  ".join(parts).rstrip()

    rows = [line(header), line(["-" * width for width in widths])]
    rows += [line(row) for row in zip(*cells, strict=True)]
    return "\n".join(rows)


def _cell(value: object, decimals: int) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{decimals}f}"
    return str(value)


# --------------------------------------------------------------------------- demo


def _add_demo(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser(
        "demo",
        help="run the paper's artificial experiment (no download)",
        description=(
            "The artificial experiment of Scheel, Lommatzsch and Albayrak (2011), §2.1: a "
            "reference ranking of 100 items with labels 0..L-1, test rankings made by k "
            "random swaps; µMAP, mean NDCG and mean NDCNG per L and k."
        ),
    )
    sub.add_argument(
        "--runs", type=_positive, default=50, help="test rankings per cell (default: 50)"
    )
    sub.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    sub.add_argument(
        "--distribution",
        choices=("uniform", "random"),
        default="uniform",
        help="labels in equal blocks per level, or a random probability per level",
    )
    sub.set_defaults(handler=run_demo)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        msg = f"must be at least 1, got {value}"
        raise argparse.ArgumentTypeError(msg)
    return value


def run_demo(args: argparse.Namespace) -> int:
    """``polars-graded demo``: the §2.1 table and what it shows."""
    table = demo_table(runs=args.runs, seed=args.seed, distribution=args.distribution)
    print(_demo_title(args.runs, args.seed, args.distribution))
    for measure, label in DEMO_MEASURES.items():
        print(f"\n{label}")
        print(format_table(_by_levels(table, measure)))
    print()
    print(textwrap.fill(demo_explanation(table), width=88))
    return 0


def demo_table(
    runs: int = 50, seed: int = 0, distribution: artificial.Distribution = "uniform"
) -> pl.DataFrame:
    """Mean µAP, mean NDCG and mean NDCNG over the runs, per number of levels and swaps.

    All rankings are evaluated in one call with ``by=["levels", "swaps", "run"]``.

    Returns
    -------
    polars.DataFrame
        Columns ``levels``, ``swaps`` and one per measure of :data:`DEMO_MEASURES`.
    """
    rankings = artificial.artificial_rankings(runs=runs, seed=seed, distribution=distribution)
    per_query = rankings.graded.evaluate(list(DEMO_MEASURES), by=["levels", "swaps", "run"])
    return (
        per_query.group_by("levels", "swaps")
        .agg(pl.col(list(DEMO_MEASURES)).mean())
        .sort("levels", "swaps")
    )


def _by_levels(table: pl.DataFrame, measure: str) -> pl.DataFrame:
    """One measure as rows ``k`` (swaps) and columns ``L=levels``."""
    wide = table.pivot("levels", index="swaps", values=measure, sort_columns=True)
    return wide.rename({"swaps": "k", **{c: f"L={c}" for c in wide.columns if c != "swaps"}})


def _demo_title(runs: int, seed: int, distribution: str) -> str:
    labels = "in equal blocks" if distribution == "uniform" else "drawn with random level weights"
    return textwrap.fill(
        "The artificial experiment of Scheel, Lommatzsch & Albayrak (2011), §2.1: a reference "
        f"ranking of 100 items with labels 0..L-1 {labels}; each test ranking is the "
        f"reference after k random swaps of two items. Cells are means over {runs} test "
        f"rankings (seed {seed}); NDCG and NDCNG are averaged over the cutoffs 1..100 first.",
        width=88,
    )


def demo_explanation(table: pl.DataFrame) -> str:
    """A paragraph on what ``table`` (from :func:`demo_table`) shows, from its own numbers.

    Each sentence is checked against the table before it is said: that the measures are 1
    at ``k = 0`` and fall with ``k``, how far each moves across the numbers of levels at
    the largest ``k``, and that NDCG depends more on the number of levels than µMAP and
    NDCNG only when its spread is at least three times theirs.
    """
    measures = list(DEMO_MEASURES)
    first, last = int(table["swaps"].min()), int(table["swaps"].max())  # type: ignore[arg-type]
    at_first = table.filter(pl.col("swaps") == first)
    at_last = table.filter(pl.col("swaps") == last).sort("levels")
    sentences = [_start_sentence(table, at_first, at_last, first, last)]
    spread = {m: float(at_last[m].max() - at_last[m].min()) for m in measures}  # type: ignore[operator]
    levels = ", ".join(map(str, at_last["levels"].to_list()))
    sentences.append(
        f"At k = {last}, the same amount of disorder, the values across L = {levels} span "
        f"{spread['mu_ap']:.3f} for µMAP, {spread['mean_ndcg']:.3f} for mean NDCG and "
        f"{spread['mean_ndcng']:.3f} for mean NDCNG."
    )
    others = max(spread["mu_ap"], spread["mean_ndcng"])
    if spread["mean_ndcg"] > 0 and spread["mean_ndcg"] >= 3 * others:
        ndcg = at_last["mean_ndcg"].to_list()
        lower = all(a > b for a, b in itertools.pairwise(ndcg))
        trend = ", lower the more levels there are," if lower else ""
        sentences.append(
            f"So NDCG with exponential gain depends on the number of levels{trend} while "
            "µMAP and NDCNG depend on it much less."
        )
    else:
        sentences.append(
            "With these runs the measures are not clearly apart in how much they depend on "
            "the number of levels; try more --runs."
        )
    return " ".join(sentences)


def _start_sentence(
    table: pl.DataFrame, at_first: pl.DataFrame, at_last: pl.DataFrame, first: int, last: int
) -> str:
    """What the table says at the smallest ``k`` and how the measures move with ``k``."""
    measures = list(DEMO_MEASURES)
    perfect = first == 0 and bool(at_first.select(pl.col(measures).min() >= 1 - 1e-12).row(0)[0])
    falling = all(
        bool(group.sort("swaps").select((pl.col(m).diff().fill_null(0) <= 1e-12).all()).item())
        for _, group in table.group_by("levels")
        for m in measures
    )
    if perfect:
        start = f"At k = {first} (the reference itself) every measure is 1"
    elif first == 0:
        low = min(float(at_first[m].min()) for m in measures)  # type: ignore[arg-type]
        start = (
            f"At k = 0 (the reference itself) the means are between {low:.4f} and 1: the "
            "reference ranking scores 1 unless it has no relevant item, then 0"
        )
    else:
        start = f"At k = {first} the means are as shown"
    if falling:
        return f"{start}, and every measure falls as k grows."
    lower = all(
        float(at_last[m].max()) < float(at_first[m].min())  # type: ignore[arg-type]
        for m in measures
    )
    how = f"is lower at k = {last} than at k = {first}" if lower else "moves with k"
    return f"{start}; every measure {how}, though not at every step."


# --------------------------------------------------------------------------- report


def _add_report(commands: argparse._SubParsersAction) -> None:
    sub = commands.add_parser(
        "report",
        help="compare systems: HTML report, Markdown summary and per-query Parquet",
        description=(
            "Evaluate several systems, compare each with a baseline (paired randomization "
            "test and t-test, Holm-corrected; bootstrap intervals) and write report.html "
            "(self-contained, charts embedded), report.md and per_query.parquet into --out. "
            "Input: a long table with a system column (Parquet or CSV), or TREC run files "
            "and a qrels file. Needs pip install 'polars-graded[report]'."
        ),
    )
    sub.add_argument("table", nargs="?", metavar="TABLE", help="a .parquet or .csv long table")
    sub.add_argument(
        "--run",
        nargs="+",
        action="extend",
        metavar="RUN",
        help=(
            "TREC run files, one system each (repeatable); named by their run tag, else "
            "file name, else folder; NAME=PATH names one"
        ),
    )
    sub.add_argument("--qrels", metavar="QRELS", help="the TREC qrels file of the runs")
    sub.add_argument(
        "--queries",
        choices=("qrels", "both", "all"),
        default="qrels",
        help="with --run: which queries count (default: qrels, like trec_eval -c)",
    )
    sub.add_argument(
        "-m",
        "--measure",
        action="append",
        metavar="MEASURE",
        help=(
            "a measure; repeat or separate with commas "
            f"(default: {','.join(report.DEFAULT_MEASURES)})"
        ),
    )
    sub.add_argument(
        "--system",
        default="system",
        metavar="COLUMN",
        help="the system column of TABLE (default: system)",
    )
    for column in ("query", "item", "score", "relevance"):
        sub.add_argument(f"--{column}", metavar="COLUMN", help=f"the {column} column of TABLE")
    sub.add_argument(
        "--baseline",
        metavar="SYSTEM",
        help="the system to compare with (default: the first, sorted)",
    )
    sub.add_argument(
        "--out", default="report", metavar="DIR", help="output directory (default: report)"
    )
    sub.add_argument(
        "--trials",
        metavar="N",
        type=_positive,
        default=10_000,
        help="randomization-test trials (default: 10000)",
    )
    sub.add_argument(
        "--bootstrap",
        metavar="N",
        type=_positive,
        default=10_000,
        help="bootstrap resamples (default: 10000)",
    )
    sub.add_argument("--seed", metavar="N", type=int, default=0, help="random seed (default: 0)")
    sub.add_argument(
        "--missing",
        choices=("zero", "common"),
        default="zero",
        help="a query a system lacks: scores 0 (zero, default) or only common queries compared",
    )
    sub.add_argument(
        "--alpha", metavar="P", type=float, default=0.05, help="significance level (default: 0.05)"
    )
    sub.add_argument(
        "--confidence",
        metavar="C",
        type=float,
        default=0.95,
        help="coverage of the bootstrap intervals (default: 0.95)",
    )
    sub.add_argument(
        "--title", metavar="TEXT", default="Evaluation report", help="the report's title"
    )
    sub.add_argument(
        "--differences",
        action="append",
        metavar="MEASURE",
        help="measures of the per-query difference plots, or 'all' (default: the first measure)",
    )
    add_ties_option(sub)
    sub.set_defaults(handler=run_report)


def run_report(args: argparse.Namespace) -> int:
    """``polars-graded report``: write the report's three files and print their paths."""
    try:
        report.require_extras()
    except ModuleNotFoundError as error:
        raise CommandError(str(error)) from error
    measures = split_measures(args.measure or list(report.DEFAULT_MEASURES))
    frame, columns, source = _report_input(args)
    differences = split_measures(args.differences) if args.differences else None
    files = report.build_report(
        frame,
        args.out,
        measures,
        system=args.system if args.table is not None else "system",
        **columns,
        baseline=args.baseline,
        missing=args.missing,
        trials=args.trials,
        bootstrap=args.bootstrap,
        confidence=args.confidence,
        alpha=args.alpha,
        seed=args.seed,
        title=args.title,
        differences="all" if differences == ["all"] else differences,
        source=source,
        ties=args.ties,
    )
    print("\n".join(str(path) for path in files))
    return 0


def _report_input(
    args: argparse.Namespace,
) -> tuple[pl.LazyFrame | pl.DataFrame, dict[str, str], str]:
    """The long table, its column keyword arguments and a line saying where it came from."""
    columns = {
        name: getattr(args, name)
        for name in ("query", "item", "score", "relevance")
        if getattr(args, name) is not None
    }
    if args.table is not None:
        if args.run or args.qrels:
            msg = "give either TABLE or --run and --qrels, not both"
            raise CommandError(msg)
        return read_table(Path(args.table)), columns, f"Input: {args.table}."
    if not args.run or args.qrels is None:
        msg = "give a TABLE (.parquet or .csv) or --run RUN [RUN ...] and --qrels QRELS"
        raise CommandError(msg)
    if columns or args.system != "system":
        msg = (
            "--system/--query/--item/--score/--relevance name columns of a TABLE, not of TREC files"
        )
        raise CommandError(msg)
    runs = _run_paths(args.run)
    qrels = _existing(Path(args.qrels))
    table = report.trec_table(runs, qrels, queries=args.queries)
    source = f"Input: {len(args.run)} TREC run file(s), qrels {qrels} (queries: {args.queries})."
    return table, columns, source


def _run_paths(values: Sequence[str]) -> list[Path] | dict[str, Path]:
    """Run files, or ``{name: path}`` when any is given as ``NAME=PATH``."""
    named = [
        v.partition("=") if "=" in v and not Path(v).is_file() else ("", "", v) for v in values
    ]
    if not any(name for name, _, _ in named):
        return [_existing(Path(v)) for v in values]
    names = [name or report.run_names([path], [None])[0] for name, _, path in named]
    if len(set(names)) < len(names):
        msg = f"two runs have the same name: {sorted(n for n in names if names.count(n) > 1)[:5]}"
        raise CommandError(msg)
    return {name: _existing(Path(path)) for name, (_, _, path) in zip(names, named, strict=True)}
