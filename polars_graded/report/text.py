"""What both renderings of a report (Markdown and HTML) say: how numbers are written, the
summary's legend, the threshold table and its notes, the data's lines and the conventions."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from polars_graded.measures.base import format_number
from polars_graded.options import SCORE_PRECISION, Compat, Ties
from polars_graded.report.content import Report
from polars_graded.report.names import shortened
from polars_graded.stats.limits import ResamplingPlan, resampling_plan
from polars_graded.stats.options import CORRECTION_NAMES, TEST_NAMES, Statistics

DECIMALS = 4
"""Decimals of every mean, difference and p-value a report shows."""
BETTER, WORSE = "▲", "▼"
"""The markers of a system significantly better / worse than the baseline."""
MAX_THRESHOLDS = 12
"""Thresholds (and labels) a report lists at most; above, an even selection, said so."""
QUERY_LEVELS, TABLE_LEVELS = "µMAP, query levels", "µMAP, table levels"
"""The threshold table's two µMAP columns."""

TIE_CONVENTIONS: dict[str, str] = {
    "trec_eval": "ties by item id descending (trec_eval's order; ties=trec_eval)",
    "input": "ties in the table's row order (ties=input)",
    "optimistic": "within a tie the higher label first, an unjudged row counting as the "
    "lowest, then item id descending (ties=optimistic)",
    "pessimistic": "within a tie the lower label first, an unjudged row counting as the "
    "lowest, then item id descending (ties=pessimistic)",
    "average": "tied rows are not put in an order: each measure is its exact expected "
    "value over every order of each group of tied rows (ties=average, McSherry & "
    "Najork 2008)",
}
"""The Ranking convention's words on tied scores, per tie policy."""

SECTIONS = {
    "summary": "Summary",
    "measures": "Measures",
    "thresholds": "MAP per relevance threshold",
    "differences": "Per-query differences",
    "details": "Tests",
    "ties": "Tied scores",
    "data": "Data",
    "conventions": "Conventions",
}
"""The sections of both renderings in order: their ids (the page's anchors) and titles;
the :mod:`~polars_graded.report.sections` go before the ties."""

CORRECTION_HEADERS = {
    "bonferroni": "Bonferroni",
    "holm": "Holm",
    "holm-sidak": "Holm-Šidák",
    "bh": "BH",
    "none": "uncorr.",
}
"""How a table's header names each correction (``p rand. Holm``)."""
BOOTSTRAP_NAMES = {"percentile": "percentile bootstrap", "bca": "BCa bootstrap"}
"""How the report's sentences name each ``bootstrap_method``."""

_MISSING = {
    "zero": "a query present in the data that a system has no value for scores 0 for "
    "it and counts in its mean",
    "common": "only the queries every system has values for are compared",
}


# --------------------------------------------------------------------------- numbers


def fmt(value: float | None) -> str:
    """A mean or difference as the tables show it; ``–`` for none.

    Examples
    --------
    >>> fmt(1 / 3), fmt(None)
    ('0.3333', '–')
    """
    return "–" if value is None else f"{value:.{DECIMALS}f}"


def fmt_diff(value: float | None) -> str:
    """A signed difference as the tie table shows it; unsigned when it rounds to zero.

    Examples
    --------
    >>> fmt_diff(0.01234), fmt_diff(-0.0012), fmt_diff(-2e-7), fmt_diff(None)
    ('+0.0123', '−0.0012', '0.0000', '–')
    """
    if value is None:
        return "–"
    text = f"{value:+.{DECIMALS}f}"
    return fmt(0.0) if float(text) == 0 else text.replace("-", "−")


def fmt_p(value: float | None) -> str:
    """A p-value as the tables show it: 4 decimals, or 2 significant digits below 0.001.

    Examples
    --------
    >>> fmt_p(0.04321), fmt_p(0.0000123), fmt_p(None)
    ('0.0432', '1.2e-05', '–')
    """
    if value is None:
        return "–"
    return f"{value:.1e}" if 0 < value < 0.001 else f"{value:.{DECIMALS}f}"


def cell_text(column: str, value: object) -> str:
    """A table cell as shown: counts with thousands separators, shares as percentages,
    changes in percent (``*_pct``) signed with one decimal, p-values (``p_*`` columns) by
    :func:`fmt_p`, other numbers by :func:`fmt`.

    Examples
    --------
    >>> cell_text("rows", 12345), cell_text("tied_share", 0.25), cell_text("p_ttest", 0.5)
    ('12,345', '25.0%', '0.5000')
    >>> cell_text("change_pct", 12.345), cell_text("change_pct", -4.0), cell_text("d_z", None)
    ('+12.3%', '−4.0%', '–')
    """
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, str):
        return value
    if column.endswith("_share"):
        return "–" if value is None else f"{value:.1%}"
    if column.endswith("_pct"):
        return "–" if value is None else f"{value:+.1f}%".replace("-", "−")
    return fmt_p(value) if column.startswith("p_") else fmt(value)  # type: ignore[arg-type]


def marker(row: dict[str, object]) -> str:
    """▲ for significantly better than the baseline, ▼ for worse, else ``""``.

    Examples
    --------
    >>> marker({"significant": True, "diff": -0.1}), marker({"significant": False, "diff": 1})
    ('▼', '')
    """
    if not row["significant"]:
        return ""
    return BETTER if float(row["diff"]) > 0 else WORSE  # type: ignore[arg-type]


def labels_text(labels: Sequence[float]) -> str:
    """Relevance labels as a report lists them: each exactly, or their count and range.

    Examples
    --------
    >>> labels_text([1, 2.5]), labels_text([0.001 * i for i in range(1, 101)]), labels_text([])
    ('1, 2.5', '100 distinct labels from 0.001 to 0.1', 'none')
    """
    values = sorted(labels)
    if len(values) <= MAX_THRESHOLDS:
        return ", ".join(format_number(v) for v in values) or "none"
    low, high = format_number(values[0]), format_number(values[-1])
    return f"{len(values):,} distinct labels from {low} to {high}"


def _listed(names: Sequence[str], most: int = 5) -> str:
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


# --------------------------------------------------------------------------- summary


def comparison_rows(report: Report) -> dict[tuple[str, str], dict[str, object]]:
    """The rows of ``report.comparison`` by (system, measure).

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> comparison_rows(rep)["b", "ap"]["mean"]
    1.0
    """
    return {(r["system"], r["measure"]): r for r in report.comparison.to_dicts()}


def query_counts(report: Report) -> dict[str, int]:
    """Per system, the queries its means are over.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> query_counts(compute_report(example_table(), ["ap"], trials=100, bootstrap=100))
    {'a': 2, 'b': 2}
    """
    first = report.comparison.filter(pl.col("measure") == report.settings.measures[0])
    return dict(zip(first["system"], first["n_queries"], strict=True))


def legend(report: Report) -> str:
    """What the markers mean: the test, its correction, alpha and the baseline.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> legend(compute_report(example_table(), ["ap"], trials=100, bootstrap=100))[:60]
    '▲ / ▼: significantly better / worse than the baseline a: two'
    """
    s = report.settings
    stats, plan = s.statistics, resampling(report)
    others = len(report.order) - 1
    intervals = f"{'BCa ' * (stats.bootstrap_method == 'bca')}bootstrap intervals " + (
        f"(their normal limit: {plan.bootstrap.n_queries:,} queries)"
        if plan.normal("bootstrap")
        else f"({stats.bootstrap:,} resamples)"
    )
    return (
        f"{BETTER} / {WORSE}: significantly better / worse than the baseline {s.baseline}: "
        f"{significance_test(stats, plan)} on the "
        f"per-query values, p-values {CORRECTION_NAMES[stats.correction]} over the {others} "
        f"comparison(s) with the baseline of each measure, α = {stats.alpha:g}. "
        f"{_means_words(s.weight)}; the mean of mu_ap is µMAP and of ap is MAP. Every test's "
        f"{CORRECTION_NAMES[stats.correction]} p-values, the effect sizes (d_z: mean / "
        f"standard deviation of the per-query differences; change: relative to the "
        f"baseline's mean) and {stats.confidence:.0%} {intervals} are in the details."
    )


def _means_words(weight: str | None) -> str:
    """What a mean is: over queries, or weighted by the traffic column.

    Examples
    --------
    >>> _means_words(None), _means_words("clicks")
    ('Means over queries', 'Means over queries weighted by clicks (Σ w·v / Σ w), as are \
the tests and intervals')
    """
    if weight is None:
        return "Means over queries"
    return f"Means over queries weighted by {weight} (Σ w·v / Σ w), as are the tests and intervals"


def significance_test(stats: Statistics, plan: ResamplingPlan | None = None) -> str:
    """The test that decides significance, as the report's sentences name it; with the
    ``plan`` the comparisons followed (:func:`resampling`), a randomization test in its
    normal limit is named so.

    Examples
    --------
    >>> significance_test(Statistics(trials=500)), significance_test(Statistics(test="wilcoxon"))
    ('two-sided paired randomization test (500 trials, seed 0)', \
'two-sided Wilcoxon signed-rank test')
    >>> significance_test(Statistics(), resampling_plan(200_000, 3, Statistics()))
    'two-sided paired randomization test (its normal limit: 200,000 queries)'
    """
    name = TEST_NAMES[stats.test]
    if stats.test != "randomization":
        return name
    if plan is not None and plan.normal("randomization"):
        return f"{name} (its normal limit: {plan.randomization.n_queries:,} queries)"
    return f"{name} ({stats.trials:,} trials, seed {stats.seed})"


def resampling(report: Report) -> ResamplingPlan:
    """How the report's comparisons computed each resampling procedure: the
    :func:`~polars_graded.stats.limits.resampling_plan` of its compared queries and systems,
    as the comparisons themselves read it.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> resampling(rep).bootstrap.describe()
    'bootstrap intervals: 100 resamples (2 queries)'
    """
    queries = int(report.comparison.get_column("n_queries").max() or 0)  # type: ignore[arg-type]
    return resampling_plan(queries, len(report.order), report.settings.statistics)


def _randomization_words(stats: Statistics, plan: ResamplingPlan) -> str:
    """The randomization test's draws in the conventions: trials, or its normal limit."""
    if plan.normal("randomization"):
        return f"(its normal limit: {plan.randomization.n_queries:,} queries)"
    return f"({stats.trials:,} trials, seed {stats.seed})"


def _bootstrap_words(stats: Statistics, plan: ResamplingPlan) -> str:
    """The intervals in the conventions: the bootstrap's resamples, or its normal limit.

    Examples
    --------
    >>> _bootstrap_words(Statistics(bootstrap=500), resampling_plan(50, 2, Statistics()))
    'percentile bootstrap over queries for the 95% intervals (500 resamples, seed 0)'
    >>> _bootstrap_words(Statistics(), resampling_plan(10**6, 2, Statistics()))
    'the normal limit of the percentile bootstrap over queries for the 95% intervals \
(1,000,000 queries)'
    """
    name = f"{BOOTSTRAP_NAMES[stats.bootstrap_method]} over queries for the "
    name += f"{stats.confidence:.0%} intervals"
    if plan.normal("bootstrap"):
        return f"the normal limit of the {name} ({plan.bootstrap.n_queries:,} queries)"
    return f"{name} ({stats.bootstrap:,} resamples, seed {stats.seed})"


def procedure_lines(report: Report) -> list[str]:
    """The section "Tests": one sentence per procedure behind a number, saying which test
    decides the marks and, per resampling procedure, its draws or that it took the normal
    limit and why, with the number of queries
    (:meth:`~polars_graded.stats.limits.Choice.describe`).

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> for line in procedure_lines(rep):
    ...     print(line)
    Marks ▲ / ▼ and every count of significance: the two-sided paired randomization test; \
randomization test: 100 trials (2 queries).
    Intervals: bootstrap intervals: 100 resamples (2 queries).
    """
    stats, plan = report.settings.statistics, resampling(report)
    marks = (
        f"Marks {BETTER} / {WORSE} and every count of significance: the {TEST_NAMES[stats.test]}"
    )
    if stats.test == "randomization":
        lines = [f"{marks}; {plan.randomization.describe()}."]
    else:
        lines = [
            f"{marks}, computed in closed form (no resampling).",
            f"The p rand. column: {plan.randomization.describe()}.",
        ]
    bootstrap = f"Intervals: {plan.bootstrap.describe()}"
    if plan.normal("bootstrap") and stats.bootstrap_method == "bca":
        bootstrap += " (BCa takes the same normal interval in the limit)"
    lines.append(bootstrap + ".")
    if report.settings.all_pairs and report.pairs is not None:
        lines.append(f"p Tukey (section All pairs): {plan.tukey.describe()}.")
    return lines


# --------------------------------------------------------------------------- thresholds


def shown_thresholds(thresholds: pl.Series) -> list[float]:
    """The distinct thresholds a report's table shows: all of them up to
    :data:`MAX_THRESHOLDS`, else that many spread evenly by rank, lowest and highest included.

    Examples
    --------
    >>> shown_thresholds(pl.Series([2.0, 1.0, 2.0]))
    [1.0, 2.0]
    >>> shown = shown_thresholds(pl.Series(range(1, 1001), dtype=pl.Float64))
    >>> len(shown), shown[:3], shown[-1]
    (12, [1.0, 92.0, 183.0], 1000.0)
    """
    distinct = thresholds.unique().sort().to_list()
    if len(distinct) <= MAX_THRESHOLDS:
        return distinct
    last = len(distinct) - 1
    return [distinct[round(i * last / (MAX_THRESHOLDS - 1))] for i in range(MAX_THRESHOLDS)]


def thresholds_capped(thresholds: pl.Series) -> bool:
    """Whether :func:`shown_thresholds` leaves some of these thresholds out.

    Examples
    --------
    >>> thresholds_capped(pl.Series([1.0, 2.0])), thresholds_capped(pl.Series(range(13)))
    (False, True)
    """
    return len(shown_thresholds(thresholds)) < thresholds.n_unique()


def threshold_table(report: Report) -> pl.DataFrame:
    """Per system in report order: MAP at each threshold of :func:`shown_thresholds`, then
    µMAP on each query's own levels (the summary's ``mu_ap``) and on the table's levels
    (``mu_ap(levels=table)``), both of :func:`~polars_graded.api.per_threshold`.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> threshold_table(rep).columns
    ['system', 'MAP rel≥1 (w 0.5)', 'MAP rel≥2 (w 0.5)', 'µMAP, query levels', 'µMAP, table levels']
    """
    t = report.thresholds.rename({report.system: "system"})
    names = _map_names(t)
    out = pl.DataFrame({"system": list(report.order)})
    if names:
        long = t.filter(pl.col("threshold").is_in(list(names))).with_columns(
            pl.col("threshold").replace_strict(names, return_dtype=pl.String).alias("__name")
        )
        wide = long.pivot("__name", index="system", values="map")
        out = out.join(wide, on="system", how="left", maintain_order="left")
    mu = t.group_by("system").agg(
        pl.col("mu_map").first().alias(QUERY_LEVELS),
        pl.col("mu_map_table_levels").first().alias(TABLE_LEVELS),
    )
    out = out.join(mu, on="system", how="left", maintain_order="left")
    # A system without a positive label has no threshold, and µMAP 0 (as in the summary).
    return out.select("system", *names.values(), pl.col(QUERY_LEVELS, TABLE_LEVELS).fill_null(0.0))


def _map_names(thresholds: pl.DataFrame) -> dict[float, str]:
    """The MAP column of each shown threshold, with its weight when the table shows every
    threshold and the weight is the same for every system."""
    shown = shown_thresholds(thresholds["threshold"])
    capped = thresholds_capped(thresholds["threshold"])
    weights = dict(thresholds.group_by("threshold").agg(pl.col("weight").unique()).iter_rows())
    return {v: map_name(v, None if capped or len(weights[v]) > 1 else weights[v][0]) for v in shown}


def map_name(threshold: float, weight: float | None) -> str:
    """``MAP rel≥2 (w 0.5)``: a threshold's MAP column, the threshold exact (its shortest
    text that reads back to the same float), with its weight on the table's levels if
    shown.

    Examples
    --------
    >>> map_name(1.000001, 1e-06), map_name(2.0, None)
    ('MAP rel≥1.000001 (w 1e-06)', 'MAP rel≥2')
    """
    return f"MAP rel≥{format_number(threshold)}" + ("" if weight is None else f" (w {weight:.3g})")


def threshold_notes(report: Report) -> list[str]:
    """What the threshold table shows: the two µMAPs in one sentence, what a capped table
    leaves out, and why its means may differ from the summary's.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> len(threshold_notes(rep)), threshold_notes(rep)[0][:30]
    (1, 'MAP rel≥t: MAP where relevant ')
    """
    t, d = report.thresholds, report.description
    lines = [
        "MAP rel≥t: MAP where relevant means label ≥ t, at each positive label t of the "
        "data; w: the threshold's weight on the table's levels (its distance to the next "
        f"lower threshold over the highest). “{QUERY_LEVELS}” is the summary's µMAP (the "
        "mean of mu_ap, each query's AP averaged over its own labels); "
        f"“{TABLE_LEVELS}” is the mean of mu_ap(levels=table), which averages every query "
        "over all the table's labels, so that a query counts 0 above its own top label: it "
        "is the sum of MAP × w over every threshold, and the two agree when every query has "
        "the table's top label."
    ]
    if thresholds_capped(t["threshold"]):
        lines.append(
            f"{t['threshold'].n_unique():,} thresholds (one per distinct positive label): the "
            f"table shows MAP at {MAX_THRESHOLDS} of them, spread evenly by rank from the "
            "lowest to the highest, and "
            "leaves out the others; the chart draws MAP at every threshold, and "
            "polars_graded.per_threshold lists them all."
        )
    partial = d.per_system.filter(pl.col("queries") < d.queries)["system"].to_list()
    if partial:
        lines.append(
            "These means are over the queries each system has rows for; "
            f"{_listed(partial)} lack some of the data's {d.queries:,} queries, so their "
            "means here differ from the summary's "
            f"(missing = {report.settings.statistics.missing})."
        )
    return lines


# --------------------------------------------------------------------------- data


def data_lines(report: Report) -> list[str]:
    """The "Data" section: systems (their names in full, and how the tables and charts
    show a name they shorten), queries and rows, judgments per label, the unjudged share
    and the queries without a relevant item.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> data_lines(compute_report(example_table(), ["ap"], trials=100, bootstrap=100))[:2]
    ['Systems: 2 (a, b)', 'Queries: 2; rows: 8, of which 8 retrieved']
    """
    d = report.description
    retrieved = int(d.per_system["retrieved"].sum())
    unjudged = int(d.per_system["unjudged"].sum())
    share = unjudged / retrieved if retrieved else 0.0
    empty = ", ".join(d.no_relevant[:20]) + (" …" if len(d.no_relevant) > 20 else "")
    return [
        f"Systems: {len(report.order)} ({', '.join(report.order)})",
        *_shortened(report),
        f"Queries: {d.queries:,}; rows: {d.rows:,}, of which {retrieved:,} retrieved",
        f"Judgments per relevance label (distinct query–item pairs): {_judgments(report)}",
        f"Unjudged share of the retrieved rows: {share:.1%} ({unjudged:,} rows)",
        f"Queries without a relevant item: {len(d.no_relevant)}" + (f" ({empty})" if empty else ""),
    ]


def _shortened(report: Report) -> list[str]:
    """The names the tables and charts shorten (or put on one line), each with its text
    there; none when every name is shown as it is."""
    short = shortened(report.order)
    if not short:
        return []
    pairs = "; ".join(f"{text} = {name}" for name, text in short.items())
    return [f"Names shown shortened in the tables and charts: {pairs}"]


def _judgments(report: Report) -> str:
    """The judgments per label, or their total and the labels' range when there are many."""
    levels = report.description.levels
    if levels.height <= MAX_THRESHOLDS:
        text = ", ".join(f"{format_number(v)}: {n:,}" for v, n in levels.iter_rows())
    else:
        judgments = int(levels["judgments"].sum())
        text = f"{judgments:,} on {labels_text(levels['relevance'].to_list())}"
    return text or "none"


# --------------------------------------------------------------------------- conventions


def conventions(report: Report) -> list[tuple[str, str]]:
    """The conventions every number of ``report`` follows, as (topic, text) pairs.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> [topic for topic, _ in conventions(rep)][:4]
    ['Ranking', 'Labels', 'Gain', 'Levels']
    """
    s, d = report.settings, report.description
    st, plan = s.statistics, resampling(report)
    levels = [v for v in d.levels["relevance"].to_list() if v > 0]
    return [
        ("Ranking", _ranking_convention(s.ties, s.compat, d.item_type)),
        ("Labels", "relevance ≤ 0 and unjudged rows (relevance null) are not relevant; judged "
         "rows a system did not retrieve count in R and in the ideal ranking. AP, P, RR: "
         "relevant means label ≥ 1 unless the measure names rel=t."),
        ("Gain", "ndcg: 2^rel − 1 (unless gain=linear is named), log2 discount, ideal ranking "
         "of all judged rows; ndcng: the same on rel / the query's top label."),
        ("Levels", "µAP averages AP over each query's own distinct positive labels, each "
         "weighted by its distance to the next lower level (0 below the first). The table's "
         f"positive labels: {labels_text(levels)}."),
        ("Empty queries", "a query without a relevant row scores 0 on every measure and "
         "counts in the means (trec_eval -c)."),
        ("Missing queries", f"missing = {st.missing}: {_MISSING[st.missing]}."),
        ("Tests", f"paired against {s.baseline}: two-sided paired t-test and randomization "
         f"test {_randomization_words(st, plan)}; p-values "
         f"{CORRECTION_NAMES[st.correction]} over the systems of each measure; "
         f"α = {st.alpha:g}; {_bootstrap_words(st, plan)}."),
        ("Version", report.versions),
    ]  # fmt: skip


def _ranking_convention(ties: Ties, compat: Compat, item_type: str) -> str:
    """How each query is ranked; how item ids compare when the tie policy reads them."""
    text = (
        "each query's retrieved rows (score not null) by score, highest first, compared "
        f"{SCORE_PRECISION[compat]}; {TIE_CONVENTIONS[ties.policy]}"
    )
    if ties.by_item or ties.by_label:  # the policies that end a tie by item id
        numeric = item_type.startswith(("Int", "UInt", "Float"))
        text += f", ids compared {'numerically' if numeric else 'as text'} ({item_type})"
    return text + "."
