"""The figures of a report (:mod:`polars_graded.report`), as PNG bytes.

Drawn with matplotlib's object-oriented API (``Figure`` without pyplot, so no GUI backend
and no global state): bar charts of each measure with confidence intervals, MAP at each
relevance threshold beside µMAP per system (the left half of the paper's Fig. 6), MAP as a
step function of the threshold when the labels have too many values for a line each, and the
sorted per-query differences of each system from the baseline.

Names are drawn as written: never as mathtext (``$k1=0.9$``) or TeX, whatever the user's
matplotlib settings, and long ones shortened as the tables show them
(:func:`~polars_graded.report.names.short_names`).
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

import polars as pl

from polars_graded.report.names import short_names
from polars_graded.report.text import BETTER, WORSE

BETTER_COLOUR = "#0072B2"  # Okabe-Ito blue: significantly better than the baseline
WORSE_COLOUR = "#D55E00"  # Okabe-Ito vermillion: significantly worse
PLAIN_COLOUR = "#9DB4CC"
BASELINE_COLOUR = "#555555"
MU_COLOUR = "#C62828"
DPI = 144
PANEL_COLUMNS = 4
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
"""The first bytes of every PNG file."""
LITERAL: dict[str, Any] = {"parse_math": False, "usetex": False}
"""The text properties of every label that holds a name: drawn as written, for a ``$``
would start mathtext (``$\\undefinedcmd$`` fails to draw, ``$k1=0.9$`` is set as math)."""


def data_uri(png: bytes) -> str:
    """``png`` as a ``data:image/png;base64,...`` URI.

    Examples
    --------
    >>> data_uri(b"\\x89PNG")
    'data:image/png;base64,iVBORw=='
    """
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _figure(width: float, height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=DPI, layout="constrained")


def _png(figure: Any) -> bytes:
    """The figure as PNG bytes, cropped to what it draws: the constrained layout can leave
    a tick label a few pixels outside (a heat map's, whose cells are square)."""
    buffer = io.BytesIO()
    figure.savefig(
        buffer, format="png", dpi=DPI, facecolor="white", bbox_inches="tight", pad_inches=0.05
    )
    return buffer.getvalue()


def _literal_legend(axes: Any) -> None:
    """The axes' legend, its names drawn as written (:data:`LITERAL`)."""
    legend = axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    for text in legend.get_texts():
        text.set(**LITERAL)


def _colour(row: dict[str, Any], baseline: str) -> str:
    if row["system"] == baseline:
        return BASELINE_COLOUR
    if not row["significant"]:
        return PLAIN_COLOUR
    return BETTER_COLOUR if row["diff"] > 0 else WORSE_COLOUR


def measure_bars(
    comparison: pl.DataFrame, measure: str, order: Sequence[str], confidence: float
) -> bytes:
    """Horizontal bars of one measure's mean per system with its confidence interval.

    Parameters
    ----------
    comparison
        The output of :func:`~polars_graded.stats.compare.compare`.
    measure
        The measure to draw.
    order
        The systems top to bottom; the first is the baseline (a dashed line marks its mean).
    confidence
        The intervals' confidence level (for the axis label).

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> measure_bars(rep.comparison, "ap", rep.order, 0.95)[:8] == PNG_SIGNATURE
    True
    """
    rows = {r["system"]: r for r in comparison.filter(pl.col("measure") == measure).to_dicts()}
    shown, names = [rows[s] for s in order], short_names(order)
    figure = _figure(5.6, 0.8 + 0.24 * len(shown))
    axes = figure.add_subplot()
    means = [r["mean"] for r in shown]
    errors = [[r["mean"] - r["ci_low"] for r in shown], [r["ci_high"] - r["mean"] for r in shown]]
    axes.barh(
        range(len(shown)),
        means,
        xerr=errors,
        color=[_colour(r, order[0]) for r in shown],
        error_kw={"elinewidth": 0.9, "capsize": 2, "ecolor": "#222222"},
    )
    axes.axvline(shown[0]["mean"], color=BASELINE_COLOUR, linestyle="--", linewidth=0.8)
    labels = [_label(r, order[0], names) for r in shown]
    axes.set_yticks(range(len(shown)), labels, fontsize=8, **LITERAL)
    axes.invert_yaxis()
    axes.set_xlim(0, max(1e-9, *(r["ci_high"] for r in shown)) * 1.05)
    axes.set_xlabel(f"mean {measure} ({confidence:.0%} CI)", fontsize=9, **LITERAL)
    axes.set_title(measure, fontsize=10, loc="left", **LITERAL)
    axes.tick_params(axis="x", labelsize=8)
    axes.grid(axis="x", color="#e5e5e5")
    axes.set_axisbelow(True)
    return _png(figure)


def _label(row: dict[str, Any], baseline: str, names: Mapping[str, str]) -> str:
    """A system's name as shown, with ``(baseline)`` or its mark."""
    name = names[row["system"]]
    if row["system"] == baseline:
        return f"{name} (baseline)"
    if row["significant"]:
        return f"{name} {BETTER if row['diff'] > 0 else WORSE}"
    return name


def threshold_lines(table: pl.DataFrame, order: Sequence[str]) -> bytes:
    """MAP at each relevance threshold and µMAP per system (the paper's Fig. 6, left).

    Parameters
    ----------
    table
        One row per system in ``order``: ``system``, then ``MAP ...`` columns (dashed blue
        lines, lightest for the lowest threshold) and ``µMAP ...`` columns (solid red for
        the first, dotted dark red for a second).
    order
        The systems along the x axis, in the rows' order.

    Examples
    --------
    >>> table = pl.DataFrame({"system": ["a", "b"], "MAP rel≥1": [0.5, 0.75], "µMAP": [0.4, 0.6]})
    >>> threshold_lines(table, ["a", "b"])[:8] == PNG_SIGNATURE
    True
    """
    figure = _figure(11.0, 4.6)
    axes = figure.add_subplot()
    x = list(range(len(order)))
    maps = [c for c in table.columns if c.startswith("MAP")]
    mus = [c for c in table.columns if c.startswith("µMAP")]
    for column, colour in zip(maps, _blues(len(maps)), strict=True):
        axes.plot(x, table[column], "o--", color=colour, markersize=4, linewidth=1.2, label=column)
    styles = [("s-", MU_COLOUR, 2.2), ("D:", "#6D1414", 1.6)]
    for column, (style, colour, width) in zip(mus, styles, strict=False):
        axes.plot(
            x, table[column], style, color=colour, markersize=5, linewidth=width, label=column
        )
    labels = list(short_names(order).values())
    crowded = sum(len(name) for name in labels) > 80  # characters the x axis holds level
    axes.set_xticks(
        x, labels, rotation=35 if crowded else 0, ha="right" if crowded else "center", **LITERAL
    )
    axes.tick_params(axis="x", labelsize=8)
    axes.set_ylabel("mean over queries", fontsize=9)
    top = table.select(pl.max_horizontal(pl.col(maps + mus).max())).item() or 0.0
    axes.set_ylim(0, min(1.02, max(0.05, top * 1.12)))
    axes.tick_params(axis="y", labelsize=8)
    axes.grid(axis="y", color="#e5e5e5")
    _literal_legend(axes)
    return _png(figure)


def threshold_curves(thresholds: pl.DataFrame, order: Sequence[str]) -> bytes:
    """MAP as a function of the threshold, one step line per system: for labels with too
    many distinct values for a line per threshold.

    Parameters
    ----------
    thresholds
        :func:`~polars_graded.api.per_threshold` by ``system``: MAP at threshold t
        holds for every threshold in (the one below, t].
    order
        The systems, in the legend's order.

    Examples
    --------
    >>> thresholds = pl.DataFrame(
    ...     {"system": ["a", "a"], "threshold": [1.0, 2.0], "map": [0.75, 0.5]}
    ... )
    >>> threshold_curves(thresholds, ["a"])[:8] == PNG_SIGNATURE
    True
    """
    figure = _figure(11.0, 4.6)
    axes = figure.add_subplot()
    names = short_names(order)
    for name, colour in zip(order, _palette(len(order)), strict=True):
        mine = thresholds.filter(pl.col("system") == name).sort("threshold")
        if mine.height:
            x = [0.0, *mine["threshold"].to_list()]
            y = [mine["map"][0], *mine["map"].to_list()]
            axes.step(x, y, where="pre", color=colour, linewidth=1.2, label=names[name])
    axes.set_xlabel("relevance threshold t (relevant: label ≥ t)", fontsize=9)
    axes.set_ylabel("MAP", fontsize=9)
    axes.set_ylim(0, 1.02)
    axes.tick_params(labelsize=8)
    axes.grid(color="#e5e5e5")
    _literal_legend(axes)
    return _png(figure)


def _palette(count: int) -> list[Any]:
    from matplotlib import colormaps

    cmap = colormaps["tab10" if count <= 10 else "viridis"]
    return [cmap(i if count <= 10 else i / max(1, count - 1)) for i in range(count)]


def _blues(count: int) -> list[Any]:
    from matplotlib import colormaps

    cmap = colormaps["Blues"]
    return [cmap(0.4 + 0.55 * i / max(1, count - 1)) for i in range(count)]


# The helpers a section module drawing its own chart uses (report/trend.py), so that every
# figure of the report has the same size rules, DPI, colours and literal names.
new_figure = _figure
png_bytes = _png
palette = _palette
literal_legend = _literal_legend


MAX_QUERY_MARKS = 500
"""Queries a chart draws one mark (a bar) each for at most; above, it draws their
distribution instead (:func:`differences`): a bar per query is no longer readable, and
matplotlib spends about 3 ms per bar (a minute at 10,000 queries)."""

CURVE_POINTS = 1001
"""Points of the sorted-difference curve above :data:`MAX_QUERY_MARKS` queries: the sorted
values at 1001 evenly spaced ranks, the first and last included (the curve through all of
them looks the same at the figure's width)."""

MARKED_QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)
"""The quantiles of the differences a distribution panel marks (and its title names)."""


def differences(
    paired: pl.DataFrame, measure: str, order: Sequence[str], comparison: pl.DataFrame
) -> bytes:
    """Per system, its per-query differences from the baseline, sorted: a bar per query up
    to :data:`MAX_QUERY_MARKS` queries, above that one line through the sorted values
    (:data:`CURVE_POINTS` of them, the area above 0 blue and below orange) with the
    quantiles of :data:`MARKED_QUANTILES` marked, so the chart costs the same at 1,000 and
    at 1,000,000 queries.

    Parameters
    ----------
    paired
        Columns ``system``, ``query`` and ``diff`` (system minus baseline, per query).
    measure
        The measure (for titles).
    order
        The systems; the first is the baseline and gets no panel.
    comparison
        The output of :func:`~polars_graded.stats.compare.compare` (marks the significant ones).

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.compute import paired_differences
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> paired = paired_differences(rep, "ap")
    >>> differences(paired, "ap", rep.order, rep.comparison)[:8] == PNG_SIGNATURE
    True
    """
    others = list(order[1:])
    columns = min(len(others), 3 if len(others) in (5, 6, 9) else PANEL_COLUMNS)
    rows = math.ceil(len(others) / columns)
    figure = _figure(min(11.0, 1.0 + 2.6 * columns), 0.5 + 2.0 * rows)
    panels = figure.subplots(rows, columns, sharey=True, squeeze=False)
    rows_of = comparison.filter(pl.col("measure") == measure).to_dicts()
    marks, names = {r["system"]: r for r in rows_of}, short_names(order)
    for axes, name in zip(panels.flat, others, strict=False):
        values = paired.filter(pl.col("system") == name)["diff"].sort(descending=True)
        draw = _difference_panel if values.len() <= MAX_QUERY_MARKS else _distribution_panel
        draw(axes, values, _label(marks[name], order[0], names))
    for axes in list(panels.flat)[len(others) :]:
        axes.set_visible(False)
    figure.supylabel(f"{measure}: system − {names[order[0]]}", fontsize=9, **LITERAL)
    many = bool(distribution_note(paired))
    figure.supxlabel(f"{'share of ' * many}queries, sorted by difference", fontsize=9)
    return _png(figure)


def distribution_note(paired: pl.DataFrame) -> str:
    """What a differences chart of ``paired`` draws in place of a bar per query, for its
    caption; ``""`` when it draws a bar per query (:data:`MAX_QUERY_MARKS` or fewer).

    Examples
    --------
    >>> distribution_note(pl.DataFrame({"system": ["b"] * 2, "diff": [0.1, -0.1]}))
    ''
    >>> distribution_note(pl.DataFrame({"system": ["b"] * 501, "diff": [0.0] * 501}))[:47]
    '501 queries, more than a bar each can show (500'
    """
    most = paired.group_by("system").len().get_column("len").max()
    most = most if isinstance(most, int) else 0
    if most <= MAX_QUERY_MARKS:
        return ""
    dots = "/".join(f"{q * 100:g}" for q in MARKED_QUANTILES)
    return (
        f"{most:,} queries, more than a bar each can show ({MAX_QUERY_MARKS:,}): each panel "
        "draws the sorted differences as one curve over the share of queries, its area "
        f"above 0 blue and below orange, with dots at the {dots}% quantiles."
    )


def _counts_title(values: pl.Series, label: str) -> str:
    """A panel's title: the system, and how many queries it wins, loses and ties."""
    better, worse = int((values > 0).sum()), int((values < 0).sum())
    return f"{label}\n{better:,} better, {worse:,} worse, {values.len() - better - worse:,} tied"


def _difference_panel(axes: Any, values: pl.Series, label: str) -> None:
    """A bar per query (at most :data:`MAX_QUERY_MARKS`), sorted."""
    colours = [BETTER_COLOUR if v > 0 else WORSE_COLOUR for v in values]
    axes.bar(range(values.len()), values.to_list(), width=1.0, color=colours)
    axes.axhline(0, color="#222222", linewidth=0.6)
    axes.set_title(_counts_title(values, label), fontsize=8, **LITERAL)
    axes.set_xticks([])
    axes.tick_params(axis="y", labelsize=7)
    axes.grid(axis="y", color="#e5e5e5")
    axes.set_axisbelow(True)


def sorted_curve(values: pl.Series) -> tuple[list[float], list[float]]:
    """The sorted-difference curve of :func:`differences` above :data:`MAX_QUERY_MARKS`
    queries: (share of queries, value) at :data:`CURVE_POINTS` evenly spaced ranks of
    ``values`` sorted descending, the largest and the smallest included; as many points as
    values when there are fewer.

    Examples
    --------
    >>> x, y = sorted_curve(pl.Series([0.5, -0.25, 0.0, 1.0]))
    >>> x, y
    ([0.0, 0.3333333333333333, 0.6666666666666666, 1.0], [1.0, 0.5, 0.0, -0.25])
    """
    import numpy as np

    ordered = np.sort(values.drop_nulls().to_numpy())[::-1]
    if ordered.size == 0:
        return [], []
    last = ordered.size - 1
    ranks = np.unique(np.linspace(0, last, min(CURVE_POINTS, ordered.size)).round().astype(int))
    share = ranks / last if last else ranks.astype(float)
    return share.tolist(), ordered[ranks].tolist()


def _distribution_panel(axes: Any, values: pl.Series, label: str) -> None:
    """The sorted differences as one line (:func:`sorted_curve`), filled blue above 0 and
    orange below, with the quantiles of :data:`MARKED_QUANTILES` as dots: a fixed number of
    marks, whatever the number of queries."""
    import numpy as np

    x, y = (np.asarray(a) for a in sorted_curve(values))
    axes.fill_between(x, y, 0, where=y > 0, color=BETTER_COLOUR, linewidth=0, interpolate=True)
    axes.fill_between(x, y, 0, where=y < 0, color=WORSE_COLOUR, linewidth=0, interpolate=True)
    axes.plot(x, y, color="#222222", linewidth=0.7)
    # Sorted descending, the q-quantile sits at the share 1 - q of the queries.
    quantiles = [float(values.quantile(q, "linear") or 0.0) for q in MARKED_QUANTILES]
    shares = [1.0 - q for q in MARKED_QUANTILES]
    axes.plot(shares, quantiles, "o", color="#222222", markersize=3.5, zorder=3)
    axes.axhline(0, color="#222222", linewidth=0.6)
    median = f"{quantiles[MARKED_QUANTILES.index(0.5)]:+.3f}".replace("-", "−")
    dots = "/".join(f"{q * 100:g}" for q in MARKED_QUANTILES)
    title = f"{_counts_title(values, label)}\nmedian {median}; dots: {dots}% quantiles"
    axes.set_title(title, fontsize=8, **LITERAL)
    axes.set_xlim(0, 1)
    axes.xaxis.set_major_formatter("{x:.0%}")
    axes.tick_params(labelsize=7)
    axes.grid(axis="y", color="#e5e5e5")
    axes.set_axisbelow(True)


def tau_heatmap(correlations: pl.DataFrame, variants: Sequence[str], value: str = "tau") -> bytes:
    """A variant × variant heat map of a rank correlation, each cell annotated.

    Parameters
    ----------
    correlations
        The output of :func:`~polars_graded.stats.stability.rank_correlations` (``variant_a``,
        ``variant_b`` and ``value``); the diagonal is drawn as 1, a missing or NaN cell
        grey with ``–``.
    variants
        The variants, top to bottom and left to right.
    value
        The column drawn (``"tau"``; ``"tau_ap"`` reads row = reference, column = other).

    Examples
    --------
    >>> correlations = pl.DataFrame({
    ...     "variant_a": ["ap", "rr"], "variant_b": ["rr", "ap"], "tau": [0.5, 0.5],
    ... })
    >>> tau_heatmap(correlations, ["ap", "rr"])[:8] == PNG_SIGNATURE
    True
    """
    import numpy as np
    from matplotlib import colormaps

    index = {name: i for i, name in enumerate(variants)}
    matrix = np.eye(len(variants))
    for a, b, v in correlations.select("variant_a", "variant_b", value).iter_rows():
        if a in index and b in index:
            matrix[index[a], index[b]] = np.nan if v is None else v
    size = len(variants)
    side = min(14.0, 2.4 + 0.45 * size)
    figure = _figure(side + 1.2, side)
    axes = figure.add_subplot()
    cmap = colormaps["RdBu"].with_extremes(bad="#dddddd")  # ColorBrewer: colour-blind safe
    image = axes.imshow(np.ma.masked_invalid(matrix), cmap=cmap, vmin=-1.0, vmax=1.0)
    font = 8 if size <= 10 else 6 if size <= 20 else 5
    for (i, j), v in np.ndenumerate(matrix):
        text = "–" if np.isnan(v) else f"{v:.2f}"
        colour = "white" if abs(v) > 0.6 else "#222222"  # NaN compares False: dark text
        axes.text(j, i, text, ha="center", va="center", fontsize=font, color=colour)
    labels = list(short_names(variants).values())
    axes.set_xticks(range(size), labels, rotation=45, ha="right", fontsize=font + 1, **LITERAL)
    axes.set_yticks(range(size), labels, fontsize=font + 1, **LITERAL)
    axes.tick_params(length=0)
    bar = figure.colorbar(image, ax=axes, shrink=0.7)
    bar.set_label("Kendall's τ" if value == "tau" else value, fontsize=9)
    bar.ax.tick_params(labelsize=8)
    return _png(figure)
