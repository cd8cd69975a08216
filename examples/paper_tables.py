"""Tables 1 and 2 of Scheel, Lommatzsch & Albayrak (2011), every number from polars_graded.

The paper's running example is one ranking of eight items A..H with the labels
``rel = [1, 0, 3, 3, 2, 0, 1, 4]`` in ranked order (docs/conventions.md §5).

* **Table 1**: AP at every relevance threshold ``t = 5 .. 0``, their mean, the mean over
  the thresholds ``5 > t > 0`` that fall between the labels, and µAP, which equals the
  latter (the levels 1..4 are one apart).
* **Table 2**: the same ranking three times: labels as given, labels doubled (NDCG changes
  although the order is the same) and normalised (NDCNG: labels divided by the top label,
  so doubling changes nothing). For each: the labels the gain is taken of, the gain
  ``2^label - 1`` in ranked and in ideal order, DCG@k with log base 10 and its ideal, and
  NDCG@k (NDCNG@k for the third) at k = 1..8 with the mean over k.

Run it from the repository root::

    python examples/paper_tables.py

Every measure value is a library call (``df.graded.evaluate`` with ``ap(rel=t)``,
``mu_ap``, ``dcg(base=10)@k``, ``ndcg@k``, ``ndcng@k``, ``mean_ndcg``, ``mean_ndcng``);
the gain rows use the library's gain function. The ideal DCG is the DCG of the ideal
ranking: the same items scored by their label.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence

import polars as pl

import polars_graded as pg
from polars_graded.measures.kernels.gains import exp_gain

REL: tuple[int, ...] = (1, 0, 3, 3, 2, 0, 1, 4)
"""The paper's labels of items A..H, in ranked order."""

ITEMS: tuple[str, ...] = tuple("ABCDEFGH")
THRESHOLDS: tuple[int, ...] = (5, 4, 3, 2, 1, 0)
"""Table 1's relevance thresholds, in the paper's order."""

CUTOFFS: tuple[int, ...] = tuple(range(1, len(REL) + 1))

EXAMPLE = "example"
GAIN_LABEL = "gain_label"
ROW = "row"
MEAN = "mean"
POSITIONS: list[str] = [str(k) for k in CUTOFFS]

EXAMPLES: dict[str, tuple[int, bool]] = {
    "labels as given": (1, False),
    "labels doubled": (2, False),
    "normalised (NDCNG)": (1, True),
}
"""Table 2's examples: name -> (label factor, whether the gain is NDCNG's normalised one)."""

TABLE_2_ROWS: tuple[str, ...] = ("label", "gain", "ideal gain", "DCG", "ideal DCG", "NDCG")


# --------------------------------------------------------------------------- Table 1


def ranking(labels: Sequence[float] = REL) -> pl.DataFrame:
    """The example as a long table: one query, items A..H scored 8..1 (ranked in order).

    Examples
    --------
    >>> ranking().row(0)
    (1, 'A', 8.0, 1)
    """
    n = len(labels)
    return pl.DataFrame(
        {
            "query": [1] * n,
            "item": list(ITEMS[:n]),
            "score": [float(n - i) for i in range(n)],
            "relevance": list(labels),
        }
    )


def table_1() -> pl.DataFrame:
    """Table 1: AP at each threshold, their mean, the mean over ``5 > t > 0`` and µAP.

    Returns
    -------
    polars.DataFrame
        One row; columns ``t=5`` .. ``t=0``, ``mean``, ``mean 5>t>0`` and ``µAP``.
    """
    ap = {t: pg.AP(rel=t) for t in THRESHOLDS if t > 0}
    with warnings.catch_warnings():
        # The paper's t=5 is above every label on purpose (AP^5 = 0).
        warnings.simplefilter("ignore", pg.GradedWarning)
        values = ranking().graded.evaluate([*ap.values(), pg.MuAP])
    at = [pl.col(str(m)).alias(f"t={t}") for t, m in ap.items()]
    if 0 in THRESHOLDS:
        # The paper's t=0 counts every judged item as relevant; the library never counts a
        # label <= 0 as relevant (thresholds must be > 0), so AP^0 is AP^1 on labels + 1.
        shifted = ranking([label + 1 for label in REL]).graded.evaluate([pg.AP])
        at.append(pl.lit(shifted.get_column(str(pg.AP)).item()).alias("t=0"))
    inner = [f"t={t}" for t in THRESHOLDS if 0 < t < max(THRESHOLDS)]
    return values.select(at).with_columns(
        pl.mean_horizontal(f"t={t}" for t in THRESHOLDS).alias(MEAN),
        pl.mean_horizontal(inner).alias("mean 5>t>0"),
        values.get_column(str(pg.MuAP)).alias("µAP"),
    )


def format_table_1(table: pl.DataFrame) -> str:
    """Table 1 as text: the ranking, then AP per threshold with 3 decimals, as the paper."""
    header = ["t", *(c.removeprefix("t=") for c in table.columns)]
    values = ["AP^t", *(f"{v:.3f}" for v in table.row(0))]
    ranking_rows = aligned([["item", *ITEMS], ["label", *map(str, REL)]])
    return "\n".join(
        [
            "Table 1. AP at relevance threshold t (relevant: label >= t), and µAP",
            *ranking_rows,
            "",
            *aligned([header, values]),
        ]
    )


# --------------------------------------------------------------------------- Table 2


def examples_frame() -> pl.DataFrame:
    """The three examples of Table 2 stacked, keyed by ``example``.

    ``relevance`` holds the example's labels; ``gain_label`` the labels whose gain
    ``2^x - 1`` the DCG rows use: the labels themselves, or for NDCNG the labels divided by
    the query's top label (``rel / m_q``, docs/conventions.md §4).
    """
    frames = []
    for name, (factor, normalised) in EXAMPLES.items():
        frame = ranking([factor * r for r in REL]).with_columns(pl.lit(name).alias(EXAMPLE))
        label = pl.col("relevance").cast(pl.Float64)
        frames.append(
            frame.with_columns((label / label.max() if normalised else label).alias(GAIN_LABEL))
        )
    return pl.concat(frames).select(EXAMPLE, "query", "item", "score", "relevance", GAIN_LABEL)


def table_2() -> pl.DataFrame:
    """Table 2: per example, the rows of :data:`TABLE_2_ROWS` at positions 1..8.

    Returns
    -------
    polars.DataFrame
        Columns ``example``, ``row``, ``1`` .. ``8`` and ``mean`` (the mean over k of the
        NDCG row; null for the other rows), rows in the paper's order.
    """
    frame = examples_frame()
    parts = [
        _per_position(frame, "label", pl.col(GAIN_LABEL)),
        _per_position(frame, "gain", exp_gain(pl.col(GAIN_LABEL))),
        _per_position(frame, "ideal gain", exp_gain(pl.col(GAIN_LABEL).sort(descending=True))),
        _dcg_rows(frame, "DCG"),
        _dcg_rows(_ideal_ranking(frame), "ideal DCG"),
        _ndcg_rows(frame),
    ]
    table = pl.concat(parts, how="diagonal_relaxed")
    order = pl.DataFrame({EXAMPLE: list(EXAMPLES)}).join(
        pl.DataFrame({ROW: list(TABLE_2_ROWS)}), how="cross"
    )
    return order.join(table, on=[EXAMPLE, ROW], how="left", maintain_order="left").select(
        EXAMPLE, ROW, *POSITIONS, MEAN
    )


def _per_position(frame: pl.DataFrame, row: str, values: pl.Expr) -> pl.DataFrame:
    """One row per example holding ``values`` (in ranked order) at positions 1..8."""
    ranked = frame.sort(EXAMPLE, "score", descending=[False, True], maintain_order=True)
    listed = ranked.group_by(EXAMPLE, maintain_order=True).agg(values.alias("v"))
    return listed.select(
        EXAMPLE,
        pl.lit(row).alias(ROW),
        *(pl.col("v").list.get(k - 1).cast(pl.Float64).alias(str(k)) for k in CUTOFFS),
    )


def _ideal_ranking(frame: pl.DataFrame) -> pl.DataFrame:
    """The ideal ranking of each example: the same items scored by their gain label."""
    return frame.with_columns(pl.col(GAIN_LABEL).alias("score"))


def _dcg_rows(frame: pl.DataFrame, row: str) -> pl.DataFrame:
    """DCG@k with log base 10 of the gain labels, k = 1..8, one row per example."""
    measures = [pg.DCG(base=10) @ k for k in CUTOFFS]
    values = frame.graded.evaluate(measures, by=EXAMPLE, relevance=GAIN_LABEL)
    return values.select(
        EXAMPLE,
        pl.lit(row).alias(ROW),
        *(pl.col(str(m)).alias(str(m.k)) for m in measures),
    )


def _ndcg_rows(frame: pl.DataFrame) -> pl.DataFrame:
    """NDCG@k (NDCNG@k for the normalised example) and its mean over k, from the labels."""
    measures = {False: (pg.NDCG, pg.MeanNDCG), True: (pg.NDCNG, pg.MeanNDCNG)}
    wanted = [m @ k for m, _ in measures.values() for k in CUTOFFS]
    values = frame.graded.evaluate([*wanted, *(mean for _, mean in measures.values())], by=EXAMPLE)
    rows = []
    for name, (_, normalised) in EXAMPLES.items():
        measure, mean = measures[normalised]
        one = values.filter(pl.col(EXAMPLE) == name)
        rows.append(
            one.select(
                EXAMPLE,
                pl.lit("NDCG").alias(ROW),
                *(pl.col(str(measure @ k)).alias(str(k)) for k in CUTOFFS),
                pl.col(str(mean)).alias(MEAN),
            )
        )
    return pl.concat(rows)


def format_table_2(table: pl.DataFrame) -> str:
    """Table 2 as text: one block per example; DCG with log base 10, 2 decimals."""
    rows: list[list[str]] = [["", *ITEMS, MEAN], ["k", *POSITIONS]]
    for name in EXAMPLES:
        rows += [[], [name]]
        for row in table.filter(pl.col(EXAMPLE) == name).iter_rows(named=True):
            label = "NDCNG" if row[ROW] == "NDCG" and EXAMPLES[name][1] else row[ROW]
            cells = [_number(row[p], label=row[ROW] == "label") for p in POSITIONS]
            mean = [] if row[MEAN] is None else [_number(row[MEAN])]
            rows.append([f"  {label}", *cells, *mean])
    title = "Table 2. NDCG@k with gain 2^label - 1 and DCG with log base 10 (k = position)"
    return "\n".join([title, *aligned(rows)])


def _number(value: float, *, label: bool = False) -> str:
    """Two decimals, as the paper prints Table 2; whole labels without decimals."""
    if label and float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}"


def aligned(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows of cells as lines: the first column left-aligned, the others right-aligned.

    A row with one cell (a heading) or none (a blank line) does not set the widths.

    Examples
    --------
    >>> aligned([["t", "5", "mean"], ["AP", "0.000", "0.4"]])
    ['t       5  mean', 'AP  0.000   0.4']
    """
    table = [row for row in rows if len(row) > 1]
    columns = max((len(row) for row in table), default=0)
    widths = [max(len(row[i]) for row in table if i < len(row)) for i in range(columns)]
    lines = []
    for row in rows:
        if len(row) <= 1:
            lines.append("".join(row))
            continue
        rest = (cell.rjust(widths[i]) for i, cell in enumerate(row) if i > 0)
        cells = [row[0].ljust(widths[0]), *rest]
        lines.append("  ".join(cells).rstrip())
    return lines


# --------------------------------------------------------------------------- entry point


def main(argv: Sequence[str] | None = None) -> int:
    """Print Table 1 and Table 2; return the exit code.

    Parameters
    ----------
    argv
        Command-line arguments (none are taken; ``--help`` prints this module's summary).

    Returns
    -------
    int
        0 on success, 2 on unknown arguments.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if args:
        print(f"paper_tables.py: takes no arguments, got {' '.join(args)}", file=sys.stderr)
        return 2
    print(format_table_1(table_1()))
    print()
    print(format_table_2(table_2()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
