"""``polars-graded report``: several systems in, ``report.html``, ``report.md`` and
``per_query.parquet`` out, through :func:`polars_graded.report.build_report`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Final

import polars as pl

from polars_graded.cli.inputs import read_table, reading, systems_table
from polars_graded.cli.options import (
    InputHelp,
    add_bootstrap_method_option,
    add_correction_option,
    add_input_options,
    add_large_sample_option,
    add_statistics_option,
    add_test_option,
    add_ties_option,
    add_weight_option,
    statistics_arguments,
    table_spec,
)
from polars_graded.cli.parser import Command, CommandError
from polars_graded.cli.values import (
    check_folder,
    named_system,
    positive,
    resample_count,
    seed_number,
    split_measures,
)
from polars_graded.defaults import REPORT_MEASURES, SYSTEM
from polars_graded.errors import GradedError
from polars_graded.report import build_report, require_extras
from polars_graded.stats.options import DEFAULTS, MISSING_POLICIES
from polars_graded.stats.segments import MIN_QUERIES, join_segment_table
from polars_graded.weights import TRAFFIC, traffic_segments

_INPUT: Final = InputHelp(
    table=(
        "a .parquet or .csv/.tsv long table (a glob or a directory of Parquet files); "
        "in a CSV/TSV the system, query and item columns are read as text"
    ),
    run=(
        "TREC run files, one system each (repeatable); named by their run tag, else "
        "file name, else folder; NAME=PATH names one"
    ),
    qrels="the TREC qrels file of the runs",
    measure=(f"a measure; repeat or separate with commas (default: {','.join(REPORT_MEASURES)})"),
    by=f"the system column of TABLE (default: {SYSTEM}); --system is an alias",
    one_system=True,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``report``: the shared input options, then its own.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_arguments(parser)
    >>> args = parser.parse_args(["runs.csv", "--system", "team"])
    >>> args.by, args.out, args.baseline, args.missing, args.trials
    ('team', 'report', None, 'zero', 10000)
    """
    add_input_options(parser, _INPUT)
    parser.add_argument(
        "--baseline",
        metavar="SYSTEM",
        help="the system to compare with (default: the first, sorted)",
    )
    parser.add_argument(
        "--out",
        default="report",
        metavar="DIR",
        help="output directory, created if needed; checked before any work (default: report)",
    )
    _add_statistics_options(parser)
    parser.add_argument("--title", metavar="TEXT", help="the report's title")
    parser.add_argument(
        "--differences",
        action="append",
        metavar="MEASURE",
        help="measures of the per-query difference plots, or 'all' (default: the first measure)",
    )
    add_ties_option(parser)
    _add_section_options(parser)
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress on stderr (shown by default when stderr is a terminal: the step "
        "under way, k of n)",
    )


def _add_section_options(parser: argparse.ArgumentParser) -> None:
    """The sections beyond the baseline comparison, and the LaTeX table."""
    parser.add_argument(
        "--all-pairs",
        action="store_true",
        help="add the section 'All pairs': every system against every other",
    )
    add_correction_option(
        parser,
        "the systems compared with the baseline (per measure and test), the pairs of "
        "systems and the segments x systems",
    )
    parser.add_argument(
        "--segment",
        action="append",
        metavar="COLUMN",
        help="a column putting each query in a segment (language, market...): adds the "
        f"section 'Segments'; repeat or separate with commas for several; with --weight, "
        f"'{TRAFFIC}' (if TABLE has no such column) puts each query in head, torso or tail "
        "by its cumulative share of the traffic (50%%, 80%%: polars_graded.traffic_segments)",
    )
    parser.add_argument(
        "--segment-table",
        metavar="PATH",
        help="a .parquet or .csv/.tsv table of query attributes (the query column, then "
        "segment columns), joined to the input on the query: how TREC runs get segments; "
        "its other columns are the segments unless --segment names some",
    )
    parser.add_argument(
        "--trend",
        metavar="COLUMN",
        help="a column of periods (a day, a week): adds the section 'Trend', every system "
        "against the baseline per period; a query is then a (period, query) pair in every "
        "section",
    )
    parser.add_argument(
        "--min-queries",
        metavar="N",
        type=positive,
        default=MIN_QUERIES,
        help=f"a segment with fewer queries is shown but not tested (default: {MIN_QUERIES})",
    )
    parser.add_argument(
        "--unjudged-label",
        metavar="LABEL",
        type=float,
        help="the label unjudged retrieved rows get in the upper bound of the section "
        "'Incomplete judgments' (default: the table's top label)",
    )
    parser.add_argument(
        "--latex",
        action="store_true",
        help="also write report.tex: a booktabs table of the means with significance marks",
    )


def _add_statistics_options(parser: argparse.ArgumentParser) -> None:
    """The tests and intervals: trials, resamples, seed, missing queries, alpha, coverage."""
    add_statistics_option(parser, "trials", resample_count, "randomization-test trials")
    add_statistics_option(parser, "bootstrap", resample_count, "bootstrap resamples")
    add_statistics_option(parser, "seed", seed_number, "random seed, an integer >= 0")
    parser.add_argument(
        "--missing",
        choices=MISSING_POLICIES,
        default=DEFAULTS.missing,
        help="a query a system lacks: scores 0 (zero, default) or only common queries compared",
    )
    add_statistics_option(parser, "alpha", float, "significance level", metavar="P")
    add_statistics_option(
        parser, "confidence", float, "coverage of the bootstrap intervals", metavar="C"
    )
    add_bootstrap_method_option(parser, "the bootstrap intervals")
    add_test_option(parser, "the marks, the letters and the counts of significant differences")
    add_large_sample_option(parser)
    add_weight_option(parser, "every mean, interval and test of the report")


def run(args: argparse.Namespace) -> int:
    """``polars-graded report``: write the report's three files and print their paths.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_graded.cli import build_parser
    >>> folder = getfixture("tmp_path")
    >>> pl.DataFrame({"system": ["a", "a", "b", "b"], "query": [1, 2, 1, 2], "item": ["x"] * 4,
    ...               "score": [1.0] * 4, "relevance": [1, 0, 1, 1]}).write_csv(folder / "t.csv")
    >>> args = build_parser().parse_args(["report", str(folder / "t.csv"), "-m", "ap", "--out",
    ...                                   str(folder / "out"), "--trials", "9", "--bootstrap", "9"])
    >>> run(args)  # doctest: +ELLIPSIS
    /...out/report.html
    /...out/report.md
    /...out/per_query.parquet
    0
    >>> pl.read_parquet(folder / "out" / "per_query.parquet").rows()  # a's query 2: no relevant row
    [('a', '1', 1.0), ('a', '2', 0.0), ('b', '1', 1.0), ('b', '2', 1.0)]
    """
    try:
        require_extras()
    except ModuleNotFoundError as error:
        raise CommandError(str(error)) from error
    measures = split_measures(args.measure or list(REPORT_MEASURES))
    out = output_folder(args.out)
    spec = table_spec(args, [args.by])
    frame, source = systems_table(args, spec)
    differences = split_measures(args.differences) if args.differences else None
    title = {} if args.title is None else {"title": args.title}  # else the library's title
    with reading(args.table):
        baseline = baseline_text(args.baseline, frame, args.by)
        frame, segment = with_segments(frame, args, spec.query)
        frame = with_traffic(frame, args, segment, spec.query)
        files = build_report(
            frame,
            out,
            measures,
            **spec.options(),
            baseline=baseline,
            **statistics_arguments(args),
            **title,
            differences="all" if differences == ["all"] else differences,
            source=source,
            all_pairs=args.all_pairs,
            segment=segment,
            min_queries=args.min_queries,
            unjudged_label=args.unjudged_label,
            trend=args.trend,
            weight=args.weight,
            latex=args.latex,
            progress=not args.quiet and sys.stderr.isatty(),
        )
    print("\n".join(str(path) for path in files))
    return 0


def with_segments(
    frame: pl.LazyFrame | pl.DataFrame, args: argparse.Namespace, query: str
) -> tuple[pl.LazyFrame | pl.DataFrame, list[str]]:
    """The input with ``--segment-table`` joined on the query, and the segment columns
    (``--segment``, else every column of the segment table but the query).

    A query the segment table lacks gets null segments (a segment of its own) and a
    warning; a table that matches no query, a query it lists twice, a segment column the
    input already has, and ids or segments of the wrong type
    (:func:`~polars_graded.stats.segments.join_segment_table`) are refused.

    Examples
    --------
    >>> from polars_graded.cli import build_parser
    >>> path = getfixture("tmp_path") / "topics.csv"
    >>> _ = path.write_text("query,age\\n301,old\\n601,new\\n")
    >>> args = build_parser().parse_args(["report", "t.csv", "--segment-table", str(path)])
    >>> runs = pl.DataFrame({"query": ["301", "601", "602"], "item": ["d"] * 3})
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     joined, segment = with_segments(runs, args, "query")
    >>> segment, joined.lazy().collect()["age"].to_list()
    (['age'], ['old', 'new', None])
    >>> print(caught[0].message)
    the segment table has no row for 1 of the input's 3 queries (e.g. query '602'): their \
segment is null, shown as (null)
    """
    named = [c.strip() for value in args.segment or () for c in value.split(",") if c.strip()]
    if args.segment_table is None:
        return frame, named
    path = args.segment_table
    table = read_table(Path(path), [query]).collect()
    if query not in table.columns:
        msg = f"--segment-table {path}: no query column {query!r} (name it with --query)"
        raise CommandError(msg)
    segment = named or [c for c in table.columns if c != query]
    absent = [c for c in segment if c not in table.columns]
    clash = [c for c in segment if c in frame.lazy().collect_schema()]
    for wrong, problem in ((not segment, "no segment column"), (absent, f"no column {absent}"),
                           (clash, f"the input already has {clash}")):  # fmt: skip
        if wrong:
            msg = f"--segment-table {path}: {problem}; it holds {table.columns}"
            raise CommandError(msg)
    twice = table.filter(pl.col(query).is_duplicated())
    if not twice.is_empty():
        msg = f"--segment-table {path}: query {twice[query][0]!r} is listed twice"
        raise CommandError(msg)
    try:
        joined = join_segment_table(frame, table, segment, query=query)
    except GradedError as error:  # said of the file the user named
        raise CommandError(f"--segment-table {path}: {error}") from error
    return joined, segment


def with_traffic(
    frame: pl.LazyFrame | pl.DataFrame, args: argparse.Namespace, segment: list[str], query: str
) -> pl.LazyFrame | pl.DataFrame:
    """The input with the column ``traffic`` (head, torso, tail:
    :func:`~polars_graded.weights.traffic_segments` of ``--weight``) when ``--segment``
    names it and the input has no such column; else the input as it is.

    Examples
    --------
    >>> from polars_graded.cli import build_parser
    >>> args = build_parser().parse_args(
    ...     ["report", "t.csv", "--weight", "w", "--segment", "traffic"])
    >>> runs = pl.DataFrame({"query": [1, 1, 2, 3], "w": [5, 5, 3, 2]})
    >>> with_traffic(runs, args, ["traffic"], "query")["traffic"].to_list()
    ['head', 'head', 'torso', 'tail']
    """
    if TRAFFIC not in segment:
        return frame
    if args.weight == TRAFFIC:
        msg = (
            f"--segment {TRAFFIC} --weight {TRAFFIC}: the segments would replace the "
            f"weights; rename the weight column (e.g. to impressions) first"
        )
        raise CommandError(msg)
    if TRAFFIC in frame.lazy().collect_schema():  # the table's own segments
        return frame
    if args.weight is None:
        msg = f"--segment {TRAFFIC}: the table has no such column; give --weight to derive it"
        raise CommandError(msg)
    segments = traffic_segments(frame, args.weight, query=query)
    if isinstance(frame, pl.LazyFrame):
        return frame.join(segments.lazy(), on=query)
    return frame.join(segments, on=query)


def baseline_text(text: str | None, frame: pl.LazyFrame | pl.DataFrame, by: str) -> str | None:
    """``--baseline`` as the report names systems, as text: parsed to the system column's
    type first (``1`` and ``1.0`` name the same system of a Float64 column), and checked
    to be a system before any work.

    Examples
    --------
    >>> baseline_text("1", pl.DataFrame({"system": [1.0, 2.0]}), "system")
    '1.0'
    """
    if text is None:
        return None
    value = named_system(text, frame, by, "--baseline")
    dtype = frame.lazy().collect_schema().get(by)
    return str(pl.Series([value], dtype=dtype).cast(pl.String).item()) if dtype else text


def output_folder(text: str) -> Path:
    """``--out``: a folder that exists or can be created, checked before any work.

    Examples
    --------
    >>> folder = getfixture("tmp_path")
    >>> output_folder(str(folder / "new" / "report")) == folder / "new" / "report"
    True
    >>> (folder / "new").exists()  # checked, not created: the report creates it
    False
    >>> (folder / "notes.txt").touch()
    >>> output_folder(str(folder / "notes.txt"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polars_graded.cli.parser.CommandError: cannot write the report into ...: it is a file, ...
    """
    folder = Path(text)
    if folder.exists() and not folder.is_dir():
        msg = f"cannot write the report into {text!r}: it is a file, not a folder"
        raise CommandError(msg)
    # The deepest folder that exists must take new entries (the report creates the rest).
    existing = next(f for f in (folder, *folder.parents) if f.exists())
    check_folder(existing, f"cannot write the report into {text!r}")
    return folder


COMMAND: Final = Command(
    name="report",
    help="compare systems: HTML report, Markdown summary and per-query Parquet",
    description=(
        "Evaluate several systems, compare each with a baseline (paired randomization "
        "test and t-test, Holm-corrected unless --correction; bootstrap intervals, "
        "percentile or --bootstrap-method bca) and write report.html "
        "(self-contained, charts embedded), report.md and per_query.parquet into --out. "
        "Input: a long table with a system column (Parquet or CSV), or TREC run files "
        "and a qrels file. Needs pip install 'polars-graded[report]'."
    ),
    add_arguments=add_arguments,
    run=run,
    takes_measures=True,
)
