"""The artificial experiment of Scheel, Lommatzsch & Albayrak (2011), §2.1 and §4.

A reference ranking of 100 items carries labels ``0 .. L-1`` (L = 2, 10, 20, 50 levels),
best first, either

* **uniform**: every level fills an equal block of the ranking (the paper's Fig. 4), or
* **non-uniform**: each ranking draws a random probability per level and its labels from
  it, so some levels may stay unused (the paper's Fig. 5).

A test ranking is the reference after ``k`` random swaps of two items (k = 0 .. 99), made
100 times per ``k``. Every test ranking is evaluated against the reference labels with µAP,
mean NDCG and mean NDCNG (the mean of NDCG@1..NDCG@100, Table 2's "mean"), all
``2 x 4 x 100 x 100 = 80,000`` rankings in one batched call of the library
(``by=["distribution", "levels", "swaps", "run"]``). The means over the runs (µMAP, mean
NDCG, mean NDCNG) are plotted against ``k``, one line per ``L``, as the paper's figures.

The paper's claim: NDCG depends on the number of levels, µMAP and NDCNG much less. The
script prints how far each measure moves across ``L`` (max - min) at k = 10, 50, 99 and
says, from those numbers, where the data agrees with the claim and where it does not.

Run it from the repository root (about 15 s for the full experiment)::

    python examples/artificial.py                  # full size, figures to examples/figures/
    python examples/artificial.py --runs 10 --step 10 --no-plots   # a quick look

The figures need matplotlib (``pip install "polars-graded[plots]"``); ``--no-plots`` runs
without it.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

import polars_graded  # noqa: F401  (registers the `graded` namespace)
from polars_graded.artificial import DEFAULT_LEVELS, Distribution, artificial_rankings
from polars_graded.cli.table import format_table

N_ITEMS = 100
"""Items per ranking (the paper's 100)."""

MAX_SWAPS = 99
RUNS = 100
SPREAD_SWAPS: tuple[int, ...] = (10, 50, 99)
"""The numbers of swaps at which the spread across levels is reported."""

MUCH = 2.0
"""How the claim "much less" is read: NDCG's spread at least this many times the others'."""

MEASURES: dict[str, str] = {
    "mu_ap": "µMAP",
    "mean_ndcg": "mean NDCG",
    "mean_ndcng": "mean NDCNG",
}
"""The library's measure names and how the paper labels their means over the runs."""

KEYS: list[str] = ["distribution", "levels", "swaps", "run"]
DISTRIBUTION = pl.Enum(["uniform", "random"])
"""The ``distribution`` column's type: sorts in the order of the paper's figures."""
HINT = "artificial.py: the figures need matplotlib: pip install 'polars-graded[plots]'"
DEFAULT_OUT = Path(__file__).resolve().parent / "figures"


@dataclass(frozen=True)
class Figure:
    """One of the paper's figures: its number, file name and what its labels look like."""

    number: str
    file: str
    labels: str


FIGURES: dict[Distribution, Figure] = {
    "uniform": Figure("Fig. 4", "fig4_uniform.png", "each level fills an equal block"),
    "random": Figure(
        "Fig. 5", "fig5_nonuniform.png", "non-uniform, a random probability per level"
    ),
}
"""The paper's Fig. 4 (uniform levels) and Fig. 5 (non-uniform levels)."""


# --------------------------------------------------------------------------- computation


def rankings(
    runs: int = RUNS,
    swaps: Sequence[int] = tuple(range(MAX_SWAPS + 1)),
    levels: Sequence[int] = DEFAULT_LEVELS,
    *,
    seed: int = 0,
    distributions: Sequence[Distribution] = tuple(FIGURES),
) -> pl.DataFrame:
    """Every test ranking of every distribution as one long table.

    Each distribution draws from its own generator, seeded by ``(seed, its index in
    FIGURES)``, so a distribution's rankings do not depend on which others are asked for.

    Returns
    -------
    polars.DataFrame
        The columns of :func:`polars_graded.artificial.artificial_rankings` and
        ``distribution`` (:data:`DISTRIBUTION`).
    """
    frames = [
        artificial_rankings(
            levels=list(levels),
            swaps=list(swaps),
            runs=runs,
            n=N_ITEMS,
            distribution=name,
            seed=np.random.default_rng([seed, list(FIGURES).index(name)]),
        ).with_columns(pl.lit(name, dtype=DISTRIBUTION).alias("distribution"))
        for name in distributions
    ]
    return pl.concat(frames)


def evaluate(table: pl.DataFrame) -> pl.DataFrame:
    """µAP, mean NDCG and mean NDCNG of every ranking in ``table``, in one library call.

    Returns
    -------
    polars.DataFrame
        One row per ranking: the :data:`KEYS`, ``query`` and one column per measure.
    """
    return table.graded.evaluate(list(MEASURES), by=KEYS)


def compute(
    runs: int = RUNS,
    swaps: Sequence[int] = tuple(range(MAX_SWAPS + 1)),
    levels: Sequence[int] = DEFAULT_LEVELS,
    *,
    seed: int = 0,
    distributions: Sequence[Distribution] = tuple(FIGURES),
) -> pl.DataFrame:
    """The per-ranking values of the experiment (:func:`rankings`, then :func:`evaluate`).

    Examples
    --------
    >>> values = compute(runs=2, swaps=[0, 5], levels=[2, 10], distributions=["uniform"])
    >>> values.height, values.filter(pl.col("swaps") == 0)["mu_ap"].to_list()
    (8, [1.0, 1.0, 1.0, 1.0])
    """
    table = rankings(runs, swaps, levels, seed=seed, distributions=distributions)
    return evaluate(table)


def curves(values: pl.DataFrame) -> pl.DataFrame:
    """Means over the runs per distribution, levels and swaps: µMAP, mean NDCG, mean NDCNG.

    Returns
    -------
    polars.DataFrame
        Columns ``distribution``, ``levels``, ``swaps``, ``runs`` and one per measure, sorted.
    """
    return (
        values.group_by("distribution", "levels", "swaps")
        .agg(pl.len().alias("runs"), pl.col(list(MEASURES)).mean())
        .sort("distribution", "levels", "swaps")
    )


def spread_table(means: pl.DataFrame, swaps: Sequence[int] = SPREAD_SWAPS) -> pl.DataFrame:
    """How far each measure's mean moves across the numbers of levels: max - min.

    Parameters
    ----------
    means
        The output of :func:`curves`.
    swaps
        The numbers of swaps to report; those missing from ``means`` are left out.

    Returns
    -------
    polars.DataFrame
        Columns ``distribution``, ``swaps`` and one per measure, sorted.
    """
    spread = [(pl.col(m).max() - pl.col(m).min()).alias(m) for m in MEASURES]
    return (
        means.filter(pl.col("swaps").is_in(list(swaps)))
        .group_by("distribution", "swaps")
        .agg(spread)
        .sort("distribution", "swaps")
    )


def levels_table(means: pl.DataFrame, distribution: str, swaps: Sequence[int]) -> pl.DataFrame:
    """One distribution's means at ``swaps``: a row per (k, measure), a column per L, spread."""
    rows = means.filter(
        (pl.col("distribution") == distribution) & pl.col("swaps").is_in(list(swaps))
    )
    long = rows.unpivot(list(MEASURES), index=["swaps", "levels"], variable_name="measure")
    wide = long.pivot("levels", index=["swaps", "measure"], values="value", sort_columns=True)
    value_columns = [c for c in wide.columns if c not in {"swaps", "measure"}]
    order = {m: i for i, m in enumerate(MEASURES)}
    return (
        wide.with_columns(
            (pl.max_horizontal(value_columns) - pl.min_horizontal(value_columns)).alias("spread"),
            pl.col("measure").replace_strict(order).alias("_order"),
        )
        .sort("swaps", "_order")
        .select(
            pl.col("swaps").alias("k"),
            pl.col("measure").replace_strict(MEASURES),
            *(pl.col(c).alias(f"L={c}") for c in value_columns),
            "spread",
        )
    )


# --------------------------------------------------------------------------- what it shows


def agreement(spreads: pl.DataFrame, much: float = MUCH) -> list[str]:
    """Sentences on where the spreads agree with the paper's claim, from their numbers.

    The claim is read as: NDCG's spread across the numbers of levels is at least ``much``
    times µMAP's and at least ``much`` times NDCNG's. One sentence per (distribution, k),
    then a verdict.

    Parameters
    ----------
    spreads
        The output of :func:`spread_table`.
    much
        The factor that "much less" is read as.
    """
    lines, failing = [], []
    for row in spreads.iter_rows(named=True):
        ndcg, mu, ndcng = row["mean_ndcg"], row["mu_ap"], row["mean_ndcng"]
        holds = ndcg > 0 and ndcg >= much * mu and ndcg >= much * ndcng
        where = f"{_figure_name(row['distribution'])}, k = {row['swaps']}"
        verdict = "agrees" if holds else "does NOT agree"
        lines.append(
            f"{where}: NDCG's spread is {ndcg:.3f}, {_ratio(ndcg, mu)} µMAP's ({mu:.3f}) "
            f"and {_ratio(ndcg, ndcng)} NDCNG's ({ndcng:.3f}): {verdict}."
        )
        if not holds:
            failing.append(where)
    total = spreads.height
    if total == 0:
        lines.append("No spread was computed: no k of the table is among the reported ones.")
    elif not failing:
        lines.append(
            f"The data agrees with the paper at all {total} points: NDCG depends on the number "
            f"of levels, µMAP and NDCNG at least {much:g} times less."
        )
    else:
        lines.append(
            f"The data agrees with the paper at {total - len(failing)} of {total} points; "
            f"it does NOT at: {'; '.join(failing)}."
        )
    return lines


def observations(values: pl.DataFrame, means: pl.DataFrame) -> list[str]:
    """Further facts the numbers show: k = 0 scores, and the direction of NDCG in L."""
    lines = [_perfect_sentence(values)]
    for name in means["distribution"].unique(maintain_order=True).to_list():
        lines.append(_ndcg_direction(means.filter(pl.col("distribution") == name), name))
    return lines


def _perfect_sentence(values: pl.DataFrame) -> str:
    """Whether every reference ranking (k = 0) scores 1 on every measure."""
    perfect = values.filter(pl.col("swaps") == 0)
    if perfect.is_empty():
        return "k = 0 was not run, so the reference rankings were not scored."
    below = perfect.filter(pl.any_horizontal(pl.col(list(MEASURES)) < 1 - 1e-12))
    if below.is_empty():
        return f"At k = 0 all {perfect.height} reference rankings score 1 on every measure."
    return (
        f"At k = 0, {below.height} of {perfect.height} reference rankings score below 1 "
        "(a ranking without any relevant item scores 0 by the library's contract)."
    )


def _ndcg_direction(means: pl.DataFrame, distribution: str) -> str:
    """At how many k > 0 mean NDCG is strictly lower the more levels there are."""
    by_k = (
        means.filter(pl.col("swaps") > 0)
        .sort("swaps", "levels")
        .group_by("swaps", maintain_order=True)
        .agg((pl.col("mean_ndcg").diff().drop_nulls() < 0).all().alias("falling"))
    )
    falling, total = int(by_k["falling"].sum()), by_k.height
    if total == 0:
        return f"{_figure_name(distribution)}: no k > 0 was run."
    return (
        f"{_figure_name(distribution)}: mean NDCG is lower the more levels there are at "
        f"{falling} of {total} values of k > 0."
    )


def _ratio(a: float, b: float) -> str:
    """``a`` as a multiple of ``b`` in words."""
    if b > 0:
        return f"{a / b:.1f} times"
    return "unlike 0 in" if a > 0 else "as large as"


def _figure_name(distribution: str) -> str:
    figure = FIGURES[distribution]  # type: ignore[index]
    return f"{distribution} ({figure.number})"


# --------------------------------------------------------------------------- figures


def plot(means: pl.DataFrame, out: Path) -> list[Path]:
    """Write one PNG per distribution in ``means`` to ``out``, as the paper's figures.

    Each figure has three panels (µMAP, mean NDCG, mean NDCNG) against the number of
    swaps ``k``, one line per number of levels. Needs matplotlib (Agg, no display).

    Returns
    -------
    list of pathlib.Path
        The files written.

    Raises
    ------
    SystemExit
        With a one-line hint when matplotlib is not installed.
    """
    figure_class, canvas_class = _matplotlib()
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in means["distribution"].unique(maintain_order=True).to_list():
        one = means.filter(pl.col("distribution") == name)
        figure = _figure(figure_class, one, FIGURES[name])
        canvas_class(figure)
        path = out / FIGURES[name].file
        figure.savefig(path, dpi=110)
        written.append(path)
    return written


def _matplotlib() -> tuple[Any, Any]:
    """matplotlib's Figure and Agg canvas, imported lazily; a hint if it is missing."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure as MplFigure
    except ImportError:
        raise SystemExit(HINT) from None
    return MplFigure, FigureCanvasAgg


def _figure(figure_class: Any, means: pl.DataFrame, info: Figure) -> Any:
    """A figure with one panel per measure, one line per number of levels."""
    figure = figure_class(figsize=(13, 4.4), layout="constrained")
    axes = figure.subplots(1, len(MEASURES), sharey=True)
    styles = ["-", "--", "-.", ":"]
    runs = int(means["runs"].max())  # type: ignore[arg-type]
    for ax, (measure, label) in zip(axes, MEASURES.items(), strict=True):
        for i, (levels,), group in _by_levels(means):
            ax.plot(group["swaps"], group[measure], styles[i % len(styles)], label=f"L = {levels}")
        ax.set_title(label)
        ax.set_xlabel("k (random swaps of two items)")
        ax.set_xlim(0, int(means["swaps"].max()))  # type: ignore[arg-type]
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"mean over {runs} test rankings")
    axes[0].legend(title="levels", loc="lower left")
    figure.suptitle(f"{info.number} (reproduced): {info.labels}; {N_ITEMS} items, labels 0..L-1")
    return figure


def _by_levels(means: pl.DataFrame) -> list[tuple[int, tuple[int], pl.DataFrame]]:
    groups = means.sort("levels", "swaps").group_by("levels", maintain_order=True)
    return [(i, key, group) for i, (key, group) in enumerate(groups)]  # type: ignore[misc]


# --------------------------------------------------------------------------- entry point


def build_parser() -> argparse.ArgumentParser:
    """The command line of this example."""
    parser = argparse.ArgumentParser(
        prog="artificial.py",
        description="The artificial experiment of Scheel et al. (2011): Fig. 4 and Fig. 5.",
    )
    parser.add_argument(
        "--runs", type=_at_least(1), default=RUNS, help="test rankings per k (default: 100)"
    )
    parser.add_argument(
        "--swaps", type=_at_least(0), default=MAX_SWAPS, help="largest k (default: 99)"
    )
    parser.add_argument(
        "--step",
        type=_at_least(1),
        default=1,
        help="k = 0, step, 2*step, ... up to --swaps; 10, 50, 99 are always added if <= --swaps",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"figure directory (default: {DEFAULT_OUT})"
    )
    parser.add_argument("--no-plots", action="store_true", help="skip the figures")
    return parser


def _at_least(low: int) -> Any:
    def parse(text: str) -> int:
        value = int(text)
        if value < low:
            msg = f"must be at least {low}, got {value}"
            raise argparse.ArgumentTypeError(msg)
        return value

    return parse


def swap_counts(largest: int, step: int) -> list[int]:
    """The values of ``k``: ``0, step, ...`` up to ``largest``, plus the reported ones.

    Examples
    --------
    >>> swap_counts(99, 25)
    [0, 10, 25, 50, 75, 99]
    """
    wanted = set(range(0, largest + 1, step)) | {largest}
    return sorted(wanted | {k for k in SPREAD_SWAPS if k <= largest})


def main(argv: Sequence[str] | None = None) -> int:
    """Run the experiment, print the spreads and the verdict, write the figures.

    Parameters
    ----------
    argv
        Arguments without the program name; ``None`` reads ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit code, 0.
    """
    args = build_parser().parse_args(argv)
    if not args.no_plots:
        _matplotlib()  # fail with the hint before the work, not after
    swaps = swap_counts(args.swaps, args.step)
    started = time.perf_counter()
    table = rankings(args.runs, swaps, seed=args.seed)
    built = time.perf_counter()
    values = evaluate(table)
    evaluated = time.perf_counter()
    means = curves(values)
    reported = [k for k in SPREAD_SWAPS if k in swaps] or [max(swaps)]
    _print_report(args, table, values, means, reported)
    print(
        f"\nTimings: rankings built in {built - started:.1f} s; {values.height:,} rankings "
        f"({table.height:,} rows) evaluated in one call in {evaluated - built:.1f} s."
    )
    if not args.no_plots:
        for path in plot(means, args.out):
            print(f"Wrote {path}")
    return 0


def _print_report(
    args: argparse.Namespace,
    table: pl.DataFrame,
    values: pl.DataFrame,
    means: pl.DataFrame,
    reported: list[int],
) -> None:
    levels = ", ".join(map(str, DEFAULT_LEVELS))
    print(
        f"Scheel et al. (2011) §2.1: reference rankings of {N_ITEMS} items, labels 0..L-1 for "
        f"L = {levels};\n{args.runs} test rankings per k (k random swaps of two items, "
        f"{len(swaps_of(means))} values of k from 0 to {args.swaps}), seed {args.seed}.\n"
        f"Cells are means over the test rankings; NDCG and NDCNG are first averaged over the "
        f"cutoffs 1..{N_ITEMS}."
    )
    print(_levels_used(table))
    for name, figure in FIGURES.items():
        print(f"\n{_figure_name(name)}: {figure.labels}")
        print(format_table(levels_table(means, name, reported)))
    spreads = spread_table(means, reported)
    print("\nSpread across the numbers of levels (max - min of the means over L)")
    print(format_table(spreads.rename({"swaps": "k", **MEASURES})))
    print(f"\nThe paper's claim, read as: NDCG's spread at least {MUCH:g} times the others'")
    for line in [*agreement(spreads), *observations(values, means)]:
        print(f"- {line}")


def swaps_of(means: pl.DataFrame) -> list[int]:
    """The values of ``k`` in ``means``, sorted."""
    return means["swaps"].unique().sort().to_list()


def _levels_used(table: pl.DataFrame) -> str:
    """How many of their L levels the reference rankings use, on average per L."""
    used = (
        table.group_by("distribution", "levels", "swaps", "run")
        .agg(pl.col("relevance").n_unique().alias("used"))
        .group_by("distribution", "levels")
        .agg(pl.col("used").mean())
        .sort("distribution", "levels")
    )
    parts = []
    for name in FIGURES:
        rows = used.filter(pl.col("distribution") == name)
        pairs = ", ".join(
            f"{used_:.1f} of {levels}" for levels, used_ in rows.select("levels", "used").rows()
        )
        parts.append(f"  {name}: {pairs}")
    return "\n".join(["Levels used on average by a reference ranking:", *parts])


if __name__ == "__main__":
    raise SystemExit(main())
