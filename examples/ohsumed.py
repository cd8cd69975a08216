"""The paper's OHSUMED experiments (Fig. 6, 7 and 8) on LETOR 3.0 OHSUMED.

Scheel, Lommatzsch and Albayrak (SPIM 2011, §4) rank the OHSUMED documents of each query by
single LETOR features ("strategies") and evaluate the rankings three ways:

* **Fig. 6** against the experts' labels (0, 1, 2): MAP at thresholds 1 and 2, µMAP, mean
  NDCG and mean NDCNG;
* **Fig. 7** against a *virtual user* whose relevance is strategy 1's own value (TF of the
  title, integer counts 0..9): MAP at every distinct level, µMAP, mean NDCG, mean NDCNG;
* **Fig. 8** against strategy 9 (TF-IDF of the title) as the virtual user: real-valued
  labels with many distinct levels per query (1 to 40), MAP at a readable selection of
  thresholds (TF-IDF 5, 10, ..., 30; see :func:`thresholds_for`).

"Mean NDCG" is the mean of NDCG@1..NDCG@n of a query (the paper's Table 2 "mean"), then the
mean over queries (``mean_ndcg``, ``mean_ndcng``). Every number is computed by
:mod:`polars_graded` in one ``summary(..., by="strategy")`` call per figure on one long table
(strategies unpivoted into a ``strategy`` column).

Data
    LETOR 3.0 OHSUMED, 106 queries, 16,140 judged documents, 45 features; read from
    ``../shared/data/letor3-ohsumed`` beside the repository (``--data DIR`` elsewhere) and
    never copied. The paper used the 25-feature LETOR 2.0 release, which we do not have: the
    feature ids are LETOR 3.0's (1 = TF, 5 = IDF, 9 = TF-IDF, 11 = BM25, 15 = LMIR.ABS of the
    title; 19, 21, 22 = abstract features). 1 and 9 are the paper's TF and TF-IDF of the
    title; the other ids need not name the paper's features. Compare shapes (orderings of
    strategies, which measures agree), not digits.
Variant
    ``Feature-min`` (raw values; undefined LM/BM25 values replaced by the query's minimum)
    by default: its TF counts are the natural 0..9 "rating scale" of the virtual user, and
    the raw TF-IDF scale (up to ~48) is what makes exponential-gain NDCG scale-dependent.
    ``--variant QueryLevelNorm`` (min-max per query) ranks the same way (scores are
    rescaled per query) but shrinks the virtual users' labels to 0..1.
Ties
    Several features are constant within a query (5, 21, 22 everywhere) and the others tie
    a lot. The figures use the library's default: scores compared as float64 (as trec_eval
    10.0), ties broken by item id descending (here docid descending), as trec_eval does.
    The tie counts are printed, and at the end every figure's graded measures are evaluated
    again with ``ties="average"`` (the expected value over every order of the tied rows)
    beside them, with a figure of their differences (``ties_trec_eval_vs_average.png``).

Run::

    python examples/ohsumed.py               # tables, and figures in examples/figures/
    python examples/ohsumed.py --no-plots    # tables only (no matplotlib needed)
    python examples/ohsumed.py --queries 10 --data /path/to/letor3-ohsumed
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import polars as pl

import polars_graded as pg

if TYPE_CHECKING:
    from polars_graded.options import TiePolicy

PROG = "ohsumed.py"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "letor3-ohsumed"
FIGURES_DIR = Path(__file__).resolve().parent / "figures"
VARIANTS = ("Feature-min", "QueryLevelNorm")
STRATEGIES: tuple[int, ...] = (1, 5, 9, 11, 15, 19, 21, 22)
FEATURES: dict[int, str] = {
    1: "TF (title)",
    5: "IDF (title)",
    9: "TF-IDF (title)",
    11: "BM25 (title)",
    15: "LMIR.ABS (title)",
    19: "sum log(c/|d|+1) (abstract)",
    21: "sum log(log(N/df)) (abstract)",
    22: "sum log(N/ctf+1) (abstract)",
}
MAX_THRESHOLDS = 10
"""Up to this many distinct positive labels, each one is a MAP threshold."""
GRADED: tuple[str, ...] = ("mu_ap", "mean_ndcg", "mean_ndcng")
LABELS: dict[str, str] = {"mu_ap": "µMAP", "mean_ndcg": "mean NDCG", "mean_ndcng": "mean NDCNG"}
PLOTS_HINT = (
    f"{PROG}: the figures need matplotlib: pip install 'polars-graded[plots]' "
    "(or run with --no-plots)"
)
TIES_NOTE = (
    "Ties: scores are compared as float64 and tied rows are ordered by docid descending "
    "(the library's default, as trec_eval 10.0); the same for every strategy and figure. The "
    "last section evaluates the graded measures again with ties='average'."
)
TIES_AVERAGE_NOTE = (
    "The same table under ties='trec_eval' (docid descending, the figures above) and "
    "ties='average' (the exact expected value over every order of each group of tied rows, "
    "McSherry & Najork 2008: what a random tie-breaking gives on average); "
    "Δ = trec_eval - average is how much the tie-breaking rule alone moves the mean. "
    "tied_share: rows whose float64 score another row of the query has."
)
TIES_FIGURE = "ties_trec_eval_vs_average.png"
DATA_NOTE = (
    "The paper used the 25-feature LETOR 2.0 OHSUMED release, which we do not have; these are "
    "LETOR 3.0's 45 features (1 = TF and 9 = TF-IDF of the title as in the paper; the other "
    "ids need not name the paper's features), so compare shapes, not digits."
)
ZERO_NOTE = (
    "MAP at a threshold t is the mean over all queries; a query with no label >= t scores 0 "
    "there and still counts (trec_eval -c), see 'queries with a label >= t'."
)


class Figure(NamedTuple):
    """One of the paper's OHSUMED figures: which labels and which MAP thresholds.

    Attributes
    ----------
    key
        ``"fig6"``, ``"fig7"`` or ``"fig8"``.
    title
        What the figure shows.
    relevance
        Column of the long table used as the relevance labels.
    thresholds
        Relevance thresholds of the MAP curves.
    filename
        Name of the PNG file.
    """

    key: str
    title: str
    relevance: str
    thresholds: tuple[float, ...]
    filename: str


# --------------------------------------------------------------------------- data


def load(
    data_dir: Path = DEFAULT_DATA,
    *,
    variant: str = "Feature-min",
    queries: int | None = None,
) -> pl.DataFrame:
    """Read the OHSUMED table: ``qid``, ``docid``, ``label`` and the strategies' features.

    Parameters
    ----------
    data_dir
        The ``letor3-ohsumed`` folder holding ``<variant>.all.parquet``.
    variant
        ``"Feature-min"`` (raw values) or ``"QueryLevelNorm"`` (min-max per query).
    queries
        Keep only the first ``queries`` query ids (all when ``None``).

    Returns
    -------
    polars.DataFrame
        One row per (qid, docid); columns ``f1``, ``f5``, ... for :data:`STRATEGIES`.

    Raises
    ------
    FileNotFoundError
        When the Parquet file is missing.
    """
    if variant not in VARIANTS:
        msg = f"unknown variant {variant!r}; expected one of {list(VARIANTS)}"
        raise ValueError(msg)
    path = Path(data_dir) / f"{variant}.all.parquet"
    if not path.is_file():
        msg = f"no OHSUMED data at {path} (LETOR 3.0; pass --data DIR)"
        raise FileNotFoundError(msg)
    lf = pl.scan_parquet(path).select("qid", "docid", "label", *(f"f{s}" for s in STRATEGIES))
    if queries is not None:
        first = lf.select(pl.col("qid").unique().sort().head(queries))
        lf = lf.join(first, on="qid", how="semi")
    return lf.sort("qid", "docid").collect()


def long_table(wide: pl.DataFrame) -> pl.DataFrame:
    """Unpivot the strategies into one long table, keeping the three kinds of labels.

    Parameters
    ----------
    wide
        The frame from :func:`load`.

    Returns
    -------
    polars.DataFrame
        Columns ``qid``, ``docid``, ``expert`` (the OHSUMED label), ``virtual_tf`` (feature
        1), ``virtual_tfidf`` (feature 9), ``strategy`` (the feature id) and ``score``.
    """
    return (
        wide.with_columns(
            expert=pl.col("label"), virtual_tf=pl.col("f1"), virtual_tfidf=pl.col("f9")
        )
        .unpivot(
            on=[f"f{s}" for s in STRATEGIES],
            index=["qid", "docid", "expert", "virtual_tf", "virtual_tfidf"],
            variable_name="strategy",
            value_name="score",
        )
        .with_columns(pl.col("strategy").str.strip_prefix("f").cast(pl.Int64))
    )


def nice_step(x: float) -> float:
    """The largest of 1, 2, 2.5, 5 times a power of ten that is at most ``x`` (> 0)."""
    power = 10.0 ** math.floor(math.log10(x))
    return max(m * power for m in (1, 2, 2.5, 5, 10) if m * power <= x)


def thresholds_for(long: pl.DataFrame, relevance: str) -> tuple[float, ...]:
    """MAP thresholds: every distinct positive label, or a readable selection of them.

    With at most :data:`MAX_THRESHOLDS` distinct positive labels in the table, each is a
    threshold (Fig. 6: 1, 2; Fig. 7: the TF counts 1..9). Otherwise the thresholds are
    ``step, 2 step, ..., 6 step`` with ``step`` = :func:`nice_step` of an eighth of the top
    label (Fig. 8, TF-IDF up to 47.7: 5, 10, ..., 30).

    Parameters
    ----------
    long
        The frame from :func:`long_table`.
    relevance
        The label column.

    Returns
    -------
    tuple of float
    """
    levels = long.filter(pl.col(relevance) > 0)[relevance].unique().sort().to_list()
    if len(levels) <= MAX_THRESHOLDS:
        return tuple(float(v) for v in levels)
    step = nice_step(levels[-1] / 8)
    return tuple(round(i * step, 10) for i in range(1, 7))


def figures(long: pl.DataFrame) -> list[Figure]:
    """The three figures, with MAP thresholds from :func:`thresholds_for`.

    Parameters
    ----------
    long
        The frame from :func:`long_table`.

    Returns
    -------
    list of Figure
    """
    specs = [
        ("fig6", "expert labels (0, 1, 2)", "expert", "fig6_expert_labels.png"),
        (
            "fig7",
            "virtual user = strategy 1, TF of title",
            "virtual_tf",
            "fig7_virtual_user_tf.png",
        ),
        (
            "fig8",
            "virtual user = strategy 9, TF-IDF of title",
            "virtual_tfidf",
            "fig8_virtual_user_tfidf.png",
        ),
    ]
    return [
        Figure(key, title, relevance, thresholds_for(long, relevance), filename)
        for key, title, relevance, filename in specs
    ]


# --------------------------------------------------------------------------- evaluation


def map_column(threshold: float) -> str:
    """The name of the MAP column at ``threshold``: ``"ap(rel=2)"``, ``"ap(rel=0.1)"``."""
    return f"ap(rel={threshold:g})"


def measures(thresholds: Sequence[float]) -> list[pg.Measure]:
    """AP at each threshold, then µAP, mean NDCG and mean NDCNG (the plotted measures)."""
    return [*(pg.AP(rel=t) for t in thresholds), pg.MuAP(), pg.MeanNDCG(), pg.MeanNDCNG()]


def evaluate_strategies(
    long: pl.DataFrame,
    *,
    relevance: str = "expert",
    thresholds: Sequence[float] = (1, 2),
    ties: TiePolicy = "trec_eval",
) -> pl.DataFrame:
    """Means over queries of every plotted measure, per strategy, in one library call.

    Parameters
    ----------
    long
        The frame from :func:`long_table`.
    relevance
        The labels: ``"expert"``, ``"virtual_tf"`` or ``"virtual_tfidf"``.
    thresholds
        Relevance thresholds of the MAP columns.
    ties
        The tie policy (default ``"trec_eval"``: docid descending within a tie).

    Returns
    -------
    polars.DataFrame
        One row per strategy (sorted): ``strategy``, ``num_q``, ``ap(rel=t)`` for each
        threshold (MAP at t, also for t = 1), ``mu_ap`` (µMAP), ``mean_ndcg`` and
        ``mean_ndcng``.
    """
    wanted = measures(thresholds)
    names = {str(m): map_column(t) for m, t in zip(wanted, thresholds, strict=False)}
    table = long.graded.summary(
        wanted,
        query="qid",
        item="docid",
        score="score",
        relevance=relevance,
        by="strategy",
        ties=ties,
    )
    return table.rename(names).sort("strategy")


def map_columns(table: pl.DataFrame) -> list[str]:
    """The MAP columns of a table from :func:`evaluate_strategies`."""
    return [c for c in table.columns if c.startswith("ap(rel=")]


def measure_columns(table: pl.DataFrame) -> list[str]:
    """The measure columns of a table from :func:`evaluate_strategies`."""
    return [c for c in table.columns if c not in ("strategy", "num_q")]


def tie_report(long: pl.DataFrame) -> pl.DataFrame:
    """Per strategy: how many rows share their query's score (float64) with another row.

    Parameters
    ----------
    long
        The frame from :func:`long_table`.

    Returns
    -------
    polars.DataFrame
        ``strategy``, ``rows``, ``tied_rows`` (in a tie group of 2 or more, scores compared
        as float64, the library's default), ``tied_share``, ``tied_rows_f32`` (the same
        comparing float32 values, as trec_eval 9.x and ``compat="trec_eval_9"``),
        ``largest_tie`` and ``constant_queries`` (queries whose rows all tie).
    """

    score32 = pl.col("score").cast(pl.Float32)
    sized = long.with_columns(
        tie32=pl.len().over("strategy", "qid", score32),
        tie64=pl.len().over("strategy", "qid", "score"),
    )
    per_query = sized.group_by("strategy", "qid").agg(
        rows=pl.len(),
        tied_rows=(pl.col("tie64") > 1).sum(),
        tied_rows_f32=(pl.col("tie32") > 1).sum(),
        largest_tie=pl.col("tie64").max(),
        constant=pl.col("score").n_unique() == 1,
    )
    return (
        per_query.group_by("strategy")
        .agg(
            pl.col("rows", "tied_rows", "tied_rows_f32").sum(),
            pl.col("largest_tie").max(),
            constant_queries=pl.col("constant").sum(),
        )
        .with_columns(tied_share=pl.col("tied_rows") / pl.col("rows"))
        .select(
            "strategy",
            "rows",
            "tied_rows",
            "tied_share",
            "tied_rows_f32",
            "largest_tie",
            "constant_queries",
        )
        .sort("strategy")
    )


def level_report(long: pl.DataFrame, relevance: str) -> pl.DataFrame:
    """Distinct positive labels per query (µAP's levels): min, median and max over queries.

    Parameters
    ----------
    long
        The frame from :func:`long_table`.
    relevance
        The label column.

    Returns
    -------
    polars.DataFrame
        One row: ``labels``, ``levels_min``, ``levels_median``, ``levels_max`` and
        ``levels_in_table`` (distinct positive labels over all queries).
    """
    one_copy = long.filter(pl.col("strategy") == STRATEGIES[0])
    per_query = one_copy.group_by("qid").agg(
        levels=pl.col(relevance).filter(pl.col(relevance) > 0).n_unique()
    )
    return per_query.select(
        labels=pl.lit(relevance),
        levels_min=pl.col("levels").min(),
        levels_median=pl.col("levels").median(),
        levels_max=pl.col("levels").max(),
        levels_in_table=pl.lit(
            one_copy.filter(pl.col(relevance) > 0)[relevance].n_unique(), dtype=pl.Int64
        ),
    )


def threshold_reach(
    long: pl.DataFrame, relevance: str, thresholds: Sequence[float]
) -> pl.DataFrame:
    """How many queries have at least one label ``>= t``, for each threshold ``t``.

    Parameters
    ----------
    long
        The frame from :func:`long_table`.
    relevance
        The label column.
    thresholds
        The MAP thresholds.

    Returns
    -------
    polars.DataFrame
        ``threshold`` and ``queries_with_label_ge_t``.
    """
    top = long.group_by("qid").agg(top=pl.col(relevance).max())
    wanted = pl.DataFrame({"threshold": [float(t) for t in thresholds]})
    return (
        wanted.join(top, how="cross")
        .group_by("threshold", maintain_order=True)
        .agg(queries_with_label_ge_t=(pl.col("top") >= pl.col("threshold")).sum())
    )


# --------------------------------------------------------------------------- agreement


def rank_agreement(table: pl.DataFrame, a: str, b: str) -> dict[str, Any]:
    """How alike two columns order the strategies: Kendall's tau-b, Spearman, swapped pairs.

    Parameters
    ----------
    table
        One row per strategy with numeric columns ``a`` and ``b``.
    a, b
        Column names (may come from different tables joined on ``strategy``).

    Returns
    -------
    dict
        ``a``, ``b``, ``tau_b``, ``spearman``, ``pairs``, ``swapped`` (ordered oppositely),
        ``tied`` (tied in either column) and ``verdict`` (a few words for ``tau_b``).
    """
    values = table.select("strategy", x=pl.col(a).round(12), y=pl.col(b).round(12))
    pairs = values.join(values, how="cross", suffix="_2").filter(
        pl.col("strategy") < pl.col("strategy_2")
    )
    signs = pairs.select(
        sx=(pl.col("x") - pl.col("x_2")).sign(), sy=(pl.col("y") - pl.col("y_2")).sign()
    )
    counts = signs.select(
        pairs=pl.len(),
        concordant=(pl.col("sx") * pl.col("sy") > 0).sum(),
        swapped=(pl.col("sx") * pl.col("sy") < 0).sum(),
        tie_x=(pl.col("sx") == 0).sum(),
        tie_y=(pl.col("sy") == 0).sum(),
        tied=((pl.col("sx") == 0) | (pl.col("sy") == 0)).sum(),
    ).row(0, named=True)
    spearman = values.select(
        pl.corr(pl.col("x").rank("average"), pl.col("y").rank("average"))
    ).item()
    denominator = ((counts["pairs"] - counts["tie_x"]) * (counts["pairs"] - counts["tie_y"])) ** 0.5
    tau = (counts["concordant"] - counts["swapped"]) / denominator if denominator else None
    return {
        "a": a,
        "b": b,
        "tau_b": tau,
        "spearman": spearman,
        "pairs": counts["pairs"],
        "swapped": counts["swapped"],
        "tied": counts["tied"],
        "verdict": verdict(tau),
    }


def verdict(tau: float | None) -> str:
    """Words for a Kendall tau-b between two orderings of the strategies."""
    if tau is None:
        return "undefined (a column is constant)"
    steps = ((1.0 - 1e-12, "same order"), (0.8, "nearly the same order"), (0.5, "mostly agree"))
    steps += ((0.0, "agree weakly"), (-1.0 - 1e-12, "disagree"))
    return next(words for bound, words in steps if tau >= bound)


def agreement_table(table: pl.DataFrame) -> pl.DataFrame:
    """Rank agreement of the graded measures with each other, and of each MAP with µMAP.

    Parameters
    ----------
    table
        A table from :func:`evaluate_strategies`.

    Returns
    -------
    polars.DataFrame
        One row per compared pair, with the fields of :func:`rank_agreement`.
    """
    graded_pairs = [("mu_ap", "mean_ndcg"), ("mu_ap", "mean_ndcng"), ("mean_ndcg", "mean_ndcng")]
    map_pairs = [(c, "mu_ap") for c in map_columns(table)]
    rows = [rank_agreement(table, a, b) for a, b in [*graded_pairs, *map_pairs]]
    return pl.DataFrame(rows)


def orderings(table: pl.DataFrame) -> pl.DataFrame:
    """For each measure, the strategies from best to worst (``=`` joins exact ties).

    Parameters
    ----------
    table
        A table from :func:`evaluate_strategies`.

    Returns
    -------
    polars.DataFrame
        ``measure`` and ``best_to_worst``.
    """
    long = table.unpivot(on=measure_columns(table), index="strategy", variable_name="measure")
    groups = (
        long.with_columns(pl.col("value").round(12))
        .group_by("measure", "value")
        .agg(pl.col("strategy").sort().cast(pl.String).str.join("="))
        .sort("measure", "value", descending=[False, True])
    )
    order = {name: i for i, name in enumerate(measure_columns(table))}
    return (
        groups.group_by("measure", maintain_order=True)
        .agg(best_to_worst=pl.col("strategy").str.join(" > "))
        .sort(pl.col("measure").replace_strict(order))
    )


def cross_figure_agreement(tables: dict[str, pl.DataFrame]) -> pl.DataFrame:
    """Whether the experts and the virtual users order the strategies alike, per measure.

    Parameters
    ----------
    tables
        ``{"fig6": ..., "fig7": ..., "fig8": ...}`` from :func:`evaluate_strategies`.

    Returns
    -------
    polars.DataFrame
        One row per (graded measure, virtual-user figure): agreement with Fig. 6.
    """
    rows = []
    for other in ("fig7", "fig8"):
        joined = tables["fig6"].join(tables[other], on="strategy", suffix=f"_{other}")
        rows += [rank_agreement(joined, m, f"{m}_{other}") for m in GRADED]
    return pl.DataFrame(rows)


# --------------------------------------------------------------------------- ties


def tie_comparison(trec: pl.DataFrame, average: pl.DataFrame, ties: pl.DataFrame) -> pl.DataFrame:
    """Per strategy: its tied share and each graded measure under both tie policies.

    Parameters
    ----------
    trec, average
        Tables from :func:`evaluate_strategies` with ``ties="trec_eval"`` and
        ``ties="average"`` (the same labels), each with the :data:`GRADED` columns.
    ties
        The table from :func:`tie_report`.

    Returns
    -------
    polars.DataFrame
        ``strategy``, ``tied_share``, then for each graded measure ``m``: ``m trec_eval``,
        ``m average`` and ``m Δ`` (trec_eval - average), sorted by strategy.
    """
    joined = trec.select("strategy", *GRADED).join(
        average.select("strategy", *GRADED), on="strategy", suffix=" average"
    )
    joined = joined.join(ties.select("strategy", "tied_share"), on="strategy")
    columns = [
        column
        for m in GRADED
        for column in (
            pl.col(m).alias(f"{m} trec_eval"),
            pl.col(f"{m} average"),
            (pl.col(m) - pl.col(f"{m} average")).alias(f"{m} Δ"),
        )
    ]
    return joined.select("strategy", "tied_share", *columns).sort("strategy")


def tie_sentences(comparison: pl.DataFrame, ties: pl.DataFrame, queries: int) -> list[str]:
    """Statements on what the tie policy changes in one figure, from its numbers.

    Parameters
    ----------
    comparison
        From :func:`tie_comparison`.
    ties
        From :func:`tie_report` (which strategies are constant in every query).
    queries
        The number of queries.

    Returns
    -------
    list of str
    """
    constant = ties.filter(pl.col("constant_queries") == queries)["strategy"].to_list()
    lines = []
    names = ", ".join(LABELS[m] for m in GRADED)
    if constant:
        rows = comparison.filter(pl.col("strategy").is_in(constant))
        first = rows.row(0, named=True)
        trec = ", ".join(f"{first[f'{m} trec_eval']:.4f}" for m in GRADED)
        average = ", ".join(f"{first[f'{m} average']:.4f}" for m in GRADED)
        change = ", ".join(f"{first[f'{m} Δ']:+.4f}" for m in GRADED)
        same = all(
            rows[f"{m} {p}"].n_unique() == 1 for m in GRADED for p in ("trec_eval", "average")
        )
        lines.append(
            f"Strategies {', '.join(map(str, constant))} are constant in every query (every "
            f"row tied){' and score alike under each policy' if same else ''}: "
            f"{names} = {trec} in docid order (trec_eval), {average} on average over "
            f"every order, i.e. for a random ranking (Δ {change})"
        )
    others = comparison.filter(~pl.col("strategy").is_in(constant))
    moves = others.unpivot(
        on=[f"{m} Δ" for m in GRADED], index=["strategy", "tied_share"], variable_name="measure"
    )
    if moves.height:
        top = moves.sort(pl.col("value").abs(), "strategy", descending=[True, False]).row(
            0, named=True
        )
        measure = LABELS[top["measure"].removesuffix(" Δ")]
        lines.append(
            f"Among the other strategies the largest move is strategy {top['strategy']} "
            f"({FEATURES.get(top['strategy'], '?')}, {top['tied_share']:.1%} of rows tied) on "
            f"{measure}: Δ = {top['value']:+.4f}"
        )
    swaps = {
        m: rank_agreement(comparison, f"{m} trec_eval", f"{m} average")["swapped"] for m in GRADED
    }
    if any(swaps.values()):
        counted = "; ".join(f"{LABELS[m]}: {n} pair(s)" for m, n in swaps.items() if n)
        lines.append(f"Strategy pairs ordered oppositely by the two policies: {counted}")
    else:
        lines.append(f"{names} order the strategies the same way under both policies")
    return lines


# --------------------------------------------------------------------------- output


def sentences(table: pl.DataFrame, agreement: pl.DataFrame, order: pl.DataFrame) -> list[str]:
    """Statements about the figure, generated from its numbers.

    Parameters
    ----------
    table, agreement, order
        From :func:`evaluate_strategies`, :func:`agreement_table` and :func:`orderings`.

    Returns
    -------
    list of str
    """
    lines = [
        f"{LABELS[row['a']]} vs {LABELS[row['b']]}: {row['verdict']} "
        f"(Kendall tau-b {row['tau_b']:.2f}, Spearman {row['spearman']:.2f}, "
        f"{row['swapped']} of {row['pairs']} strategy pairs swapped)"
        for row in agreement.head(len(GRADED)).iter_rows(named=True)
    ]
    by_measure = dict(order.iter_rows())
    maps = map_columns(table)
    alike = [c for c in maps if by_measure[c] == by_measure["mu_ap"]]
    distinct = len({by_measure[c] for c in maps})
    lines.append(
        f"MAP at the {len(maps)} thresholds orders the strategies in {distinct} "
        f"way{'s' if distinct > 1 else ''}; at {len(alike)} of the thresholds as µMAP does "
        f"({by_measure['mu_ap']})"
    )
    gap = table.select("strategy", gap=(pl.col("mean_ndcg") - pl.col("mean_ndcng")).round(12))
    widest = gap.filter(pl.col("gap").abs() == pl.col("gap").abs().max())["strategy"]
    lines.append(
        f"mean NDCG - mean NDCNG ranges from {gap['gap'].min():+.4f} to {gap['gap'].max():+.4f} "
        f"(widest for {'strategies' if len(widest) > 1 else 'strategy'} "
        f"{', '.join(map(str, widest))})"
    )
    return lines


def show(frame: pl.DataFrame) -> None:
    """Print a frame with every row and column and 4 decimals."""
    with pl.Config(
        tbl_rows=-1,
        tbl_cols=-1,
        float_precision=4,
        tbl_width_chars=250,
        fmt_str_lengths=200,
        tbl_hide_dataframe_shape=True,
    ):
        print(frame)


def with_names(table: pl.DataFrame) -> pl.DataFrame:
    """The table with a ``feature`` column naming each strategy."""
    names = pl.col("strategy").replace_strict(FEATURES, return_dtype=pl.String)
    return table.select("strategy", names.alias("feature"), pl.exclude("strategy"))


def report_figure(long: pl.DataFrame, figure: Figure) -> pl.DataFrame:
    """Evaluate and print one figure's numbers; return its table."""
    table = evaluate_strategies(long, relevance=figure.relevance, thresholds=figure.thresholds)
    agreement = agreement_table(table)
    order = orderings(table)
    print(f"\n=== {figure.key}: {figure.title} ===")
    print("Relevance levels per query (distinct positive labels):")
    show(level_report(long, figure.relevance))
    print("Queries with a label >= t (out of all queries):")
    show(threshold_reach(long, figure.relevance, figure.thresholds))
    print("Plotted values (means over queries: ap(rel=t) = MAP at t, mu_ap = µMAP):")
    show(with_names(table))
    print("Strategies from best to worst:")
    show(order)
    print("Rank agreement over the strategies (graded measures; each MAP vs µMAP):")
    show(agreement)
    for line in sentences(table, agreement, order):
        print(f"- {line}")
    return table


# --------------------------------------------------------------------------- plots


def pyplot() -> Any:
    """Import matplotlib's pyplot with the Agg backend, lazily.

    Raises
    ------
    ImportError
        When matplotlib is not installed.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def tick_label(strategy: int) -> str:
    """Three lines: the feature id, its name and its stream (``"9\\nTF-IDF\\n(title)"``)."""
    name, _, stream = FEATURES[strategy].partition(" (")
    return f"{strategy}\n{name}\n({stream}"


def plot(table: pl.DataFrame, figure: Figure, path: Path) -> Path:
    """Draw one figure: strategies on the x axis, one line per measure; write a PNG.

    Parameters
    ----------
    table
        The figure's table from :func:`evaluate_strategies`.
    figure
        Which figure (title and thresholds).
    path
        Where to write the PNG.

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(11, 5.5), layout="constrained")
    x = list(range(table.height))
    shades = plt.get_cmap("Blues")
    count = len(figure.thresholds)
    for i, threshold in enumerate(figure.thresholds):
        shade = shades(0.35 + 0.6 * i / max(count - 1, 1))
        ax.plot(
            x,
            table[map_column(threshold)],
            "--o",
            color=shade,
            lw=1.2,
            ms=4,
            label=f"MAP, threshold {threshold:g}",
        )
    styles = {"mu_ap": ("C3", "s"), "mean_ndcg": ("C2", "^"), "mean_ndcng": ("C4", "D")}
    for column, (color, marker) in styles.items():
        ax.plot(x, table[column], "-", marker=marker, color=color, lw=2.4, label=LABELS[column])
    ax.set_xticks(x, [tick_label(s) for s in table["strategy"]], fontsize=7)
    ax.set_xlabel("strategy (LETOR 3.0 OHSUMED feature id)")
    ax.set_ylabel("mean over queries")
    ax.set_ylim(0, 1.05)
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(f"{figure.key}: {figure.title}", fontsize=10)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_ties(comparisons: dict[str, pl.DataFrame], chosen: Sequence[Figure], path: Path) -> Path:
    """One panel per figure: per strategy, Δ = trec_eval - average of each graded measure
    as bars (what the tie-breaking rule alone does to the mean), with the strategy's tied
    share under its name; write a PNG.

    Parameters
    ----------
    comparisons
        ``{figure key: table from tie_comparison}``.
    chosen
        The figures, in panel order.
    path
        Where to write the PNG.

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    plt = pyplot()
    fig, panels = plt.subplots(
        len(chosen), 1, figsize=(11, 2.9 * len(chosen)), sharey=True, layout="constrained",
        squeeze=False,
    )  # fmt: skip
    colours = {"mu_ap": "C3", "mean_ndcg": "C2", "mean_ndcng": "C4"}
    width = 0.8 / len(colours)
    for ax, figure in zip(panels[:, 0], chosen, strict=True):
        table = comparisons[figure.key]
        for i, (column, colour) in enumerate(colours.items()):
            x = [s + (i - 1) * width for s in range(table.height)]
            ax.bar(x, table[f"{column} Δ"], width=width, color=colour, label=LABELS[column])
        ax.axhline(0, color="#222222", lw=0.7)
        labels = [
            f"{tick_label(s)}\n{share:.1%} tied"
            for s, share in table.select("strategy", "tied_share").iter_rows()
        ]
        ax.set_xticks(range(table.height), labels, fontsize=7)
        ax.set_ylabel("trec_eval - average", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
        ax.set_title(f"{figure.key}: {figure.title}", fontsize=10, loc="left")
    panels[0, 0].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    fig.suptitle(
        "What the tie-breaking rule alone does to each mean: ties='trec_eval' (docid "
        "descending) minus ties='average' (expected value over every order of the tied rows)",
        fontsize=9,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def report_ties(
    long: pl.DataFrame, tables: dict[str, pl.DataFrame], chosen: Sequence[Figure]
) -> dict[str, pl.DataFrame]:
    """Evaluate each figure's graded measures under ``ties="average"`` and print them beside
    the ``"trec_eval"`` ones (``tables``); return the comparisons by figure key."""
    ties = tie_report(long)
    queries = long["qid"].n_unique()
    print("\n=== Ties: the same table under ties='trec_eval' and ties='average' ===")
    print(TIES_AVERAGE_NOTE)
    comparisons = {}
    for figure in chosen:
        average = evaluate_strategies(
            long, relevance=figure.relevance, thresholds=(), ties="average"
        )
        comparisons[figure.key] = tie_comparison(tables[figure.key], average, ties)
        print(f"{figure.key}: {figure.title}")
        show(with_names(comparisons[figure.key]))
        for line in tie_sentences(comparisons[figure.key], ties, queries):
            print(f"- {line}")
    return comparisons


# --------------------------------------------------------------------------- command line


def build_parser() -> argparse.ArgumentParser:
    """The example's argument parser."""
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="letor3-ohsumed folder")
    parser.add_argument("--variant", choices=VARIANTS, default="Feature-min")
    parser.add_argument("--queries", type=int, help="use only the first N query ids")
    parser.add_argument("--out", type=Path, default=FIGURES_DIR, help="folder for the PNGs")
    parser.add_argument("--no-plots", action="store_true", help="print the tables only")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Print every figure's numbers and, unless ``--no-plots``, write the figures.

    Parameters
    ----------
    argv
        Arguments without the program name; ``None`` reads ``sys.argv[1:]``.

    Returns
    -------
    int
        0 on success, 1 when the data or matplotlib is missing.
    """
    args = build_parser().parse_args(argv)
    if not args.no_plots:
        try:
            pyplot()
        except ImportError:
            print(PLOTS_HINT, file=sys.stderr)
            return 1
    try:
        wide = load(args.data, variant=args.variant, queries=args.queries)
    except FileNotFoundError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 1
    long = long_table(wide)
    print(
        f"LETOR 3.0 OHSUMED, {args.variant}: {wide['qid'].n_unique()} queries, "
        f"{wide.height} documents, strategies {list(STRATEGIES)}"
    )
    print(DATA_NOTE)
    print(TIES_NOTE)
    print("Tied rows per strategy:")
    show(with_names(tie_report(long)))
    print(ZERO_NOTE)
    tables = {}
    chosen = figures(long)
    for figure in chosen:
        tables[figure.key] = report_figure(long, figure)
        if not args.no_plots:
            print(f"figure: {plot(tables[figure.key], figure, args.out / figure.filename)}")
    print("\n=== Do the experts and the virtual users order the strategies alike? ===")
    show(cross_figure_agreement(tables))
    comparisons = report_ties(long, tables, chosen)
    if not args.no_plots:
        print(f"figure: {plot_ties(comparisons, chosen, args.out / TIES_FIGURE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
