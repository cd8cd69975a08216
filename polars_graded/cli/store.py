"""``polars-graded evaluate SOURCE --store STORE``: a folder of hive partitions evaluated
through a result store (:mod:`polars_graded.scale.store`), only new or changed partitions
evaluated; the options and the run, which :mod:`polars_graded.cli.evaluate` calls.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence

import polars as pl

from polars_graded.cli.options import table_spec
from polars_graded.cli.parser import PROG, CommandError
from polars_graded.options import TableSpec
from polars_graded.scale.store import STORE_QUERIES, update_store


def add_store_options(parser: argparse.ArgumentParser) -> None:
    """``--store``, ``--rebuild``, ``--prune`` and ``--hash-files``.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_store_options(parser)
    >>> args = parser.parse_args(["--store", "results", "--prune"])
    >>> args.store, args.prune, args.rebuild, args.hash_files
    ('results', True, False, False)
    """
    parser.add_argument(
        "--store",
        metavar="STORE",
        help=(
            "TABLE is a folder of hive partitions (day=2026-11-01/part-0.parquet, or nested "
            "day=.../system=.../), each a long table, or without relevance when --qrels gives "
            "the labels (a TREC qrels file or a .parquet/.csv table query,item,relevance): "
            "keep each partition's per-query values in the folder STORE and evaluate only the "
            "partitions that are new or changed since (by their files' path, size and "
            "modification time, the qrels' bytes, the measures, the options and the library "
            "version). The output is what evaluating TABLE with --by for each partition "
            f"column gives, bit for bit; with --qrels, --queries defaults to {STORE_QUERIES}"
        ),
    )
    parser.add_argument(
        "--rebuild",
        action="store_true",
        help=(
            "with --store: empty STORE first and evaluate every partition (a store written "
            "by another polars-graded version is refused otherwise)"
        ),
    )
    parser.add_argument(
        "--prune",
        action="store_true",
        help=(
            "with --store: remove the entries this run did not use (rewritten partitions, "
            "other qrels or measures); by default they are kept for other jobs sharing STORE"
        ),
    )
    parser.add_argument(
        "--hash-files",
        action="store_true",
        help=(
            "with --store: recognise a changed partition by its files' bytes too, not only "
            "their size and modification time (reads the whole log on every run)"
        ),
    )


def check_store_options(args: argparse.Namespace) -> None:
    """``--rebuild``/``--prune``/``--hash-files`` need ``--store``; ``--store`` needs a
    TABLE folder and takes neither ``--run`` nor the partition options.

    Examples
    --------
    >>> from polars_graded.cli import build_parser
    >>> check_store_options(build_parser().parse_args(["evaluate", "t.csv", "--prune"]))
    Traceback (most recent call last):
    ...
    polars_graded.cli.parser.CommandError: --prune needs --store STORE
    """
    if args.store is None:
        for flag in ("rebuild", "prune", "hash_files"):
            if getattr(args, flag):
                msg = f"--{flag.replace('_', '-')} needs --store STORE"
                raise CommandError(msg)
        return
    if args.table is None or args.run is not None:
        msg = "--store needs a TABLE folder of hive partitions (such as logs/), not --run"
        raise CommandError(msg)
    for flag in ("partitions", "memory_budget", "spill_dir"):
        if getattr(args, flag) is not None:
            msg = (
                f"--{flag.replace('_', '-')} does not combine with --store: each partition "
                "is evaluated in memory"
            )
            raise CommandError(msg)
    if args.queries is not None and args.qrels is None:
        msg = "--queries applies with --qrels only"
        raise CommandError(msg)


def stored_values(
    args: argparse.Namespace, measures: Sequence[str] | Mapping[str, str]
) -> tuple[pl.DataFrame, TableSpec]:
    """The per-query values through ``--store`` and their spec (the partition columns lead
    ``by``); a line on stderr says how many partitions were reused and evaluated (not with
    ``-q``)."""
    spec = table_spec(args, list(args.by or []), ranked=args.ranked)
    stored = update_store(
        args.table,
        measures,
        args.store,
        qrels=args.qrels,
        queries=args.queries or STORE_QUERIES,
        rebuild=args.rebuild,
        prune=args.prune,
        hash_files=args.hash_files,
        progress=not args.quiet and sys.stderr.isatty(),
        **spec.options(),
    )
    if not args.quiet:
        pruned = f", {stored.pruned} unused entries pruned" if args.prune else ""
        print(
            f"{PROG}: store {args.store}: {stored.evaluated} partition(s) evaluated, "
            f"{stored.reused} reused{pruned}",
            file=sys.stderr,
        )
    by = tuple(key for key in stored.keys if key != spec.query)
    return stored.values, TableSpec.of({**spec.options(), "by": by})
