"""``polars-graded diff``: why a measure's mean moved from a baseline to a candidate, through
:func:`polars_graded.diff`.

Prints, per measure, the change of the mean, the queries that contribute most to it (their
share of the change) with the relevant items that moved in each (rank before -> after,
label), then the change per segment; ``-o`` writes the per-query contributions.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Final

import polars as pl

from polars_graded.cli.inputs import reading, systems_table
from polars_graded.cli.options import InputHelp, add_input_options, add_ties_option, table_spec
from polars_graded.cli.parser import Command, CommandError
from polars_graded.cli.report import with_segments
from polars_graded.cli.values import check_output_file, named_system, positive, split_measures
from polars_graded.defaults import SYSTEM
from polars_graded.stats.diff import ITEMS, TOP, Diff, diff, signed
from polars_graded.stats.options import DEFAULTS, MISSING_POLICIES

_INPUT: Final = InputHelp(
    table=(
        "a .parquet or .csv/.tsv long table with a system column (a glob or a directory "
        "of Parquet files)"
    ),
    run="TREC run files, one system each; named by their run tag, else file name; NAME=PATH",
    qrels="the TREC qrels file of the runs",
    measure="a measure whose change to explain; repeat or separate with commas (required)",
    by=f"the system column of TABLE (default: {SYSTEM}); --system is an alias",
    one_system=True,
    measure_required=True,
)
_OUTPUTS: Final = (".parquet", ".csv")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``diff``: the shared input options, then its own.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_arguments(parser)
    >>> args = parser.parse_args(["runs.parquet", "--baseline", "bm25", "--candidate", "dense",
    ...                           "-m", "ndcg@10"])
    >>> args.top, args.items, args.missing, args.weight, args.output
    (10, 5, 'zero', None, None)
    """
    add_input_options(parser, _INPUT)
    parser.add_argument("--baseline", required=True, metavar="SYSTEM", help="the system before")
    parser.add_argument("--candidate", required=True, metavar="SYSTEM", help="the system after")
    parser.add_argument(
        "--segment",
        action="append",
        metavar="COLUMN",
        help="a column putting each query in a segment (language, market, day...): the change "
        "per segment; repeat or separate with commas for several",
    )
    parser.add_argument(
        "--segment-table",
        metavar="PATH",
        help="a .parquet or .csv/.tsv table of query attributes (the query column, then "
        "segment columns), joined to the input on the query; its other columns are the "
        "segments unless --segment names some",
    )
    parser.add_argument(
        "--top",
        type=positive,
        default=TOP,
        metavar="N",
        help=f"queries (and segments) shown per measure, the largest contributions first "
        f"(default: {TOP})",
    )
    parser.add_argument(
        "--items",
        type=positive,
        default=ITEMS,
        metavar="N",
        help=f"moved relevant items shown per query (default: {ITEMS})",
    )
    parser.add_argument(
        "--weight",
        metavar="COLUMN",
        help="a per-query weight column (traffic), the same on every row of a query: weighted "
        "means sum(w*v)/sum(w) (default: every query weighs the same)",
    )
    parser.add_argument(
        "--missing",
        choices=MISSING_POLICIES,
        default=DEFAULTS.missing,
        help="a query one system lacks: scores 0 (zero, default) or is left out (common)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="write the per-query contributions to OUT (.parquet or .csv)",
    )
    add_ties_option(parser)


def run(args: argparse.Namespace) -> int:
    """``polars-graded diff``: print why each measure's mean moved; 0 ok, 2 bad input.

    Examples
    --------
    >>> from polars_graded.cli import build_parser
    >>> folder = getfixture("tmp_path")
    >>> pl.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "query": [1, 1, 2, 2] * 2,
    ...               "item": ["x", "y"] * 4, "score": [2.0, 1.0] * 2 + [1.0, 2.0, 2.0, 1.0],
    ...               "relevance": [0, 1, 1, 0] * 2}).write_csv(folder / "t.csv")
    >>> args = build_parser().parse_args(["diff", str(folder / "t.csv"), "--baseline", "a",
    ...                                   "--candidate", "b", "-m", "rr"])
    >>> run(args)
    rr: a 0.7500 -> b 1.0000 (+0.2500) over 2 queries
      the 2 queries that moved it most (contribution to the change of the mean, its share):
        query '1': 0.5000 -> 1.0000 (+0.5000), contribution +0.2500, share 100.0%
          item 'y' (label 1): rank 2 -> 1 (up 1)
        query '2': 1.0000 -> 1.0000 (+0.0000), contribution +0.0000, share 0.0%
    0
    """
    measures = split_measures(args.measure)
    if args.output is not None:
        check_output_file(args.output, "-o")
        if Path(args.output).suffix.lower() not in _OUTPUTS:
            msg = f"-o {args.output}: expected a file ending in {' or '.join(_OUTPUTS)}"
            raise CommandError(msg)
    spec = table_spec(args, [args.by])
    with reading(args.table):
        table = systems_table(args, spec)[0]
        baseline, candidate = (
            named_system(name, table, args.by, option)
            for name, option in ((args.baseline, "--baseline"), (args.candidate, "--candidate"))
        )
        table, segment = with_segments(table, args, spec.query)
        result = diff(
            table,
            measures,
            baseline=baseline,
            candidate=candidate,
            segments=segment or None,
            top=args.top,
            items=args.items,
            weight=args.weight,
            missing=args.missing,
            **spec.options(),
        )
    print("\n".join(diff_lines(result, args.top)))
    if args.output is not None:
        write_queries(result.queries, Path(args.output))
    return 0


def diff_lines(result: Diff, top: int) -> list[str]:
    """What ``diff`` prints: per measure, the change of the mean, the ``top`` queries with
    their moved items, then the change in the ``top`` segments with the largest
    contributions.

    Examples
    --------
    >>> summary = pl.DataFrame({"measure": ["ap"], "n_queries": [3], "baseline_mean": [0.5],
    ...                         "candidate_mean": [0.6], "diff": [0.1]})
    >>> empty = pl.DataFrame(schema={"measure": pl.String, "query": pl.Int64})
    >>> print("\\n".join(diff_lines(Diff(("ap",), "a", "b", summary, empty, empty), 5)))
    ap: a 0.5000 -> b 0.6000 (+0.1000) over 3 queries
    """
    lines: list[str] = []
    weighted = f", weighted by {result.weight}" if result.weight else ""
    for row in result.summary.iter_rows(named=True):
        measure = row["measure"]
        lines.append(
            f"{measure}: {result.baseline} {row['baseline_mean']:.4f} -> {result.candidate} "
            f"{row['candidate_mean']:.4f} ({row['diff']:+.4f}) over {row['n_queries']:,} "
            f"queries{weighted}"
        )
        shown = result.queries.filter(pl.col("measure") == measure).head(top)
        if shown.height:
            lines.append(
                f"  the {shown.height} queries that moved it most (contribution to the change "
                "of the mean, its share):"
            )
        moved = result.items.filter(pl.col("measure") == measure)
        for query in shown.iter_rows(named=True):
            lines.append(f"    {_query_line(query, result)}")
            items = moved.filter(pl.col(result.query) == query[result.query])
            lines += [f"      {_item_line(item, result)}" for item in items.iter_rows(named=True)]
        lines += _segment_lines(result, measure, top)
    return lines


def _query_line(row: dict[str, Any], result: Diff) -> str:
    share = row["share"]
    shown = "–" if share is None else f"{share:.1%}"
    missing = row["missing_in"]
    note = "" if missing is None else f" ({missing} has no row for it: scored 0)"
    return (
        f"{result.query} {row[result.query]!r}: {row['baseline_value']:.4f} -> "
        f"{row['candidate_value']:.4f} ({row['change']:+.4f}), contribution "
        f"{signed(row['contribution'])}, share {shown}{note}"
    )


def _item_line(row: dict[str, Any], result: Diff) -> str:
    label = row["label"]
    label_text = f"{label:g}" if isinstance(label, float) else str(label)
    before, after = (
        "not ranked" if row[c] is None else str(row[c]) for c in ("rank_before", "rank_after")
    )
    movement = row["movement"]
    how = f"{movement} {abs(row['moved'])}" if row["moved"] is not None else movement
    return (
        f"{result.item} {row[result.item]!r} (label {label_text}): rank {before} -> {after} ({how})"
    )


def _segment_lines(result: Diff, measure: str, top: int) -> list[str]:
    """The ``top`` segments with the largest contributions, and how many are not shown."""
    if result.segments is None:
        return []
    rows = result.segments.filter(pl.col("measure") == measure)
    more = f"; {rows.height - top:,} more not shown" if rows.height > top else ""
    lines = [f"  per segment of {' / '.join(result.segment)} (largest contribution first{more}):"]
    for row in rows.head(top).iter_rows(named=True):
        name = " / ".join("(null)" if row[c] is None else str(row[c]) for c in result.segment)
        share = "–" if row["share"] is None else f"{row['share']:.1%}"
        within = "–" if row["diff"] is None else f"{row['diff']:+.4f}"
        lines.append(
            f"    {name}: {row['n_queries']:,} queries, {within} within, contribution "
            f"{signed(row['contribution'])}, share {share}"
        )
    return lines


def write_queries(queries: pl.DataFrame, path: Path) -> None:
    """The per-query contributions to ``path``: Parquet, or CSV by its extension.

    Examples
    --------
    >>> path = getfixture("tmp_path") / "moved.csv"
    >>> write_queries(pl.DataFrame({"measure": ["ap"], "share": [0.5]}), path)
    >>> path.read_text()
    'measure,share\\nap,0.5\\n'
    """
    if path.suffix.lower() == ".csv":
        queries.write_csv(path)
    else:
        queries.write_parquet(path)


COMMAND: Final = Command(
    name="diff",
    help="why a mean moved: the queries, items and segments behind a change",
    description=(
        "Evaluate a baseline and a candidate system per query and split the change of each "
        "measure's mean into the queries' contributions (they sum to the change; share = "
        "contribution / change), list for the top queries the relevant items that moved "
        "(rank before -> after, label; ranks as the measures see them under --ties), and "
        "roll the change up by --segment. A query one system lacks scores 0 (--missing). "
        "Exit 0: done; 2: bad input. Input: a long table with a system column, or TREC run "
        "files and a qrels file."
    ),
    add_arguments=add_arguments,
    run=run,
    takes_measures=True,
)
