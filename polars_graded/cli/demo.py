"""``polars-graded demo``: the paper's artificial experiment (§2.1), its tables and its prose.

The rankings come from :mod:`polars_graded.artificial`; the paragraph after the tables is
written from the table's own numbers (:func:`demo_explanation`).
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import textwrap
from typing import Final, get_args

import polars as pl

from polars_graded import api, artificial
from polars_graded.cli.parser import Command
from polars_graded.cli.table import format_table
from polars_graded.cli.values import positive, seed_number

DEMO_MEASURES: Final[dict[str, str]] = {
    "mu_ap": "µMAP",
    "mean_ndcg": "mean NDCG (gain 2^rel - 1)",
    "mean_ndcng": "mean NDCNG",
}
"""The measures of the demo and the titles of their tables."""
DEMO_RUNS: Final = 50
"""Test rankings per cell: more than the library's default, for steadier means."""
_DEFAULTS: Final = inspect.signature(artificial.artificial_rankings).parameters
DEMO_SEED: Final[int] = _DEFAULTS["seed"].default
DEMO_DISTRIBUTION: Final[artificial.Distribution] = _DEFAULTS["distribution"].default
"""The seed and the label distribution: :func:`~polars_graded.artificial.artificial_rankings`'
defaults."""
_WIDTH = 88


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``demo``.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_arguments(parser)
    >>> parser.parse_args([])
    Namespace(runs=50, seed=0, distribution='uniform')
    """
    parser.add_argument(
        "--runs",
        type=positive,
        default=DEMO_RUNS,
        help=f"test rankings per cell (default: {DEMO_RUNS})",
    )
    parser.add_argument(
        "--seed",
        type=seed_number,
        default=DEMO_SEED,
        help=f"random seed, an integer >= 0 (default: {DEMO_SEED})",
    )
    parser.add_argument(
        "--distribution",
        choices=get_args(artificial.Distribution),
        default=DEMO_DISTRIBUTION,
        help="labels in equal blocks per level, or a random probability per level",
    )


def run(args: argparse.Namespace) -> int:
    """``polars-graded demo``: the §2.1 table and what it shows.

    Examples
    --------
    Each table starts at ``k = 0``, the reference ranking itself, where every measure is 1.

    >>> from polars_graded.cli import build_parser
    >>> run(build_parser().parse_args(["demo", "--runs", "1"]))  # doctest: +ELLIPSIS
    The artificial experiment of Scheel, Lommatzsch & Albayrak (2011), §2.1: a reference
    ...
    µMAP
     k     L=2    L=10    L=20    L=50
    --  ------  ------  ------  ------
     0  1.0000  1.0000  1.0000  1.0000
    ...
    0
    """
    table = demo_table(runs=args.runs, seed=args.seed, distribution=args.distribution)
    print(_demo_title(args.runs, args.seed, args.distribution))
    for measure, label in DEMO_MEASURES.items():
        print(f"\n{label}")
        print(format_table(_by_levels(table, measure)))
    print()
    print(textwrap.fill(demo_explanation(table), width=_WIDTH))
    return 0


def demo_table(
    runs: int = DEMO_RUNS,
    seed: int = DEMO_SEED,
    distribution: artificial.Distribution = DEMO_DISTRIBUTION,
) -> pl.DataFrame:
    """Mean µAP, mean NDCG and mean NDCNG over the runs, per number of levels and swaps.

    All rankings are evaluated in one call with ``by=["levels", "swaps", "run"]``.

    Returns
    -------
    polars.DataFrame
        Columns ``levels``, ``swaps`` and one per measure of :data:`DEMO_MEASURES`.

    Examples
    --------
    >>> demo_table(runs=2).columns
    ['levels', 'swaps', 'mu_ap', 'mean_ndcg', 'mean_ndcng']
    """
    rankings = artificial.artificial_rankings(runs=runs, seed=seed, distribution=distribution)
    per_query = api.evaluate(rankings, list(DEMO_MEASURES), by=["levels", "swaps", "run"])
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
        width=_WIDTH,
    )


def demo_explanation(table: pl.DataFrame) -> str:
    """A paragraph on what ``table`` (from :func:`demo_table`) shows, from its own numbers.

    Each sentence is checked against the table before it is said: that the measures are 1
    at ``k = 0`` and fall with ``k``, how far each moves across the numbers of levels at
    the largest ``k``, and that NDCG depends more on the number of levels than µMAP and
    NDCNG only when its spread is at least three times theirs.

    Examples
    --------
    >>> flat = pl.DataFrame({
    ...     "levels": [2, 2, 5, 5], "swaps": [0, 9, 0, 9],
    ...     "mu_ap": [1.0, 0.5, 1.0, 0.5], "mean_ndcg": [1.0, 0.5, 1.0, 0.5],
    ...     "mean_ndcng": [1.0, 0.5, 1.0, 0.5],
    ... })
    >>> print(demo_explanation(flat).split(". ")[0])
    At k = 0 (the reference itself) every measure is 1, and every measure falls as k grows
    """
    last = int(_value(table, pl.col("swaps").max()))
    at_last = table.filter(pl.col("swaps") == last).sort("levels")
    spread = {m: _value(at_last, pl.col(m).max() - pl.col(m).min()) for m in DEMO_MEASURES}
    levels = ", ".join(map(str, at_last["levels"].to_list()))
    sentences = [
        _start_sentence(table, at_last),
        f"At k = {last}, the same amount of disorder, the values across L = {levels} span "
        f"{spread['mu_ap']:.3f} for µMAP, {spread['mean_ndcg']:.3f} for mean NDCG and "
        f"{spread['mean_ndcng']:.3f} for mean NDCNG.",
        _levels_sentence(spread, at_last["mean_ndcg"].to_list()),
    ]
    return " ".join(sentences)


def _levels_sentence(spread: dict[str, float], ndcg: list[float]) -> str:
    """Whether NDCG depends on the number of levels more than µMAP and NDCNG do."""
    others = max(spread["mu_ap"], spread["mean_ndcng"])
    if spread["mean_ndcg"] > 0 and spread["mean_ndcg"] >= 3 * others:
        lower = all(a > b for a, b in itertools.pairwise(ndcg))
        trend = ", lower the more levels there are," if lower else ""
        return (
            f"So NDCG with exponential gain depends on the number of levels{trend} while "
            "µMAP and NDCNG depend on it much less."
        )
    return (
        "With these runs the measures are not clearly apart in how much they depend on "
        "the number of levels; try more --runs."
    )


def _start_sentence(table: pl.DataFrame, at_last: pl.DataFrame) -> str:
    """What the table says at the smallest ``k`` and how the measures move with ``k``."""
    measures = list(DEMO_MEASURES)
    first, last = int(_value(table, pl.col("swaps").min())), int(at_last["swaps"][0])
    at_first = table.filter(pl.col("swaps") == first)
    perfect = first == 0 and bool(at_first.select(pl.col(measures).min() >= 1 - 1e-12).row(0)[0])
    if perfect:
        start = f"At k = {first} (the reference itself) every measure is 1"
    elif first == 0:
        low = min(_value(at_first, pl.col(m).min()) for m in measures)
        start = (
            f"At k = 0 (the reference itself) the means are between {low:.4f} and 1: the "
            "reference ranking scores 1 unless it has no relevant item, then 0"
        )
    else:
        start = f"At k = {first} the means are as shown"
    if _falling(table):
        return f"{start}, and every measure falls as k grows."
    lower = all(
        _value(at_last, pl.col(m).max()) < _value(at_first, pl.col(m).min()) for m in measures
    )
    how = f"is lower at k = {last} than at k = {first}" if lower else "moves with k"
    return f"{start}; every measure {how}, though not at every step."


def _value(frame: pl.DataFrame, expr: pl.Expr) -> float:
    """The one number ``expr`` gives over ``frame``."""
    return float(frame.select(expr).item())


def _falling(table: pl.DataFrame) -> bool:
    """Every measure falls (or stays) from one ``k`` to the next, at every number of levels."""
    return all(
        bool(group.sort("swaps").select((pl.col(m).diff().fill_null(0) <= 1e-12).all()).item())
        for _, group in table.group_by("levels")
        for m in DEMO_MEASURES
    )


COMMAND: Final = Command(
    name="demo",
    help="run the paper's artificial experiment (no download)",
    description=(
        "The artificial experiment of Scheel, Lommatzsch and Albayrak (2011), §2.1: a "
        "reference ranking of 100 items with labels 0..L-1, test rankings made by k "
        "random swaps; µMAP, mean NDCG and mean NDCNG per L and k."
    ),
    add_arguments=add_arguments,
    run=run,
)
