"""The report's section "Stability of the verdict": does the order of the systems survive the
analyst's choices (measure, relevance threshold, gain, tie policy), and which measure tells
systems apart most often.

:func:`stability_means` gathers one mean per (variant, system): each measure of the report
(``report.comparison``), MAP at each threshold the threshold table shows
(``report.thresholds``, named as that table names them), the other gain of each measure that
takes one (:func:`other_gain`, evaluated here through :mod:`polars_graded.api`) and, when
scores tie, each measure under the other tie policy (``report.ties``). :func:`add_stability`
sets ``report.stability`` (:func:`~polars_graded.stats.stability.rank_correlations` of those
means) and ``report.power`` (:func:`~polars_graded.stats.stability.discriminative_power` of
``report.pairs``); :func:`stability_section` says what they show.
"""

from __future__ import annotations

import dataclasses

import polars as pl

from polars_graded import api
from polars_graded.defaults import ENGINE
from polars_graded.errors import InvalidValueError
from polars_graded.measures import as_measures
from polars_graded.measures.base import Measure
from polars_graded.options import TableSpec
from polars_graded.report.blocks import Figure, Part, Section, Table
from polars_graded.report.charts import tau_heatmap
from polars_graded.report.content import Report
from polars_graded.report.pairs import deciding_p
from polars_graded.report.text import fmt, map_name, resampling, shown_thresholds, significance_test
from polars_graded.report.ties import tie_rule
from polars_graded.stats.grid import system_means
from polars_graded.stats.options import CORRECTION_NAMES
from polars_graded.stats.stability import discriminative_power, rank_correlations

MIN_SYSTEMS = 3
"""Fewer systems than this: the section says the orders are too short to compare."""
KINDS = ("measure", "threshold", "gain", "ties")
"""The kinds of variant, in the order the section lists them."""
_KIND_WORDS = {
    "measure": "the report's measures",
    "threshold": "MAP at each relevance threshold",
    "gain": "the other gain (exponential 2^rel − 1 for linear rel, and back)",
    "ties": "the other tie policy",
}


def other_gain(measure: Measure) -> Measure | None:
    """The measure with the other gain: exponential (``2^rel - 1``) becomes linear (``rel``),
    linear or a label -> gain mapping becomes exponential; ``None`` without a gain parameter.

    Examples
    --------
    >>> from polars_graded import parse_measure
    >>> str(other_gain(parse_measure("ndcg@10"))), str(other_gain(parse_measure("g")))
    ('ndcg(gain=linear)@10', 'g(gain=exp)')
    >>> other_gain(parse_measure("ndcng@10")) is None
    True
    """
    if "gain" not in {f.name for f in dataclasses.fields(measure)}:
        return None
    gain = getattr(measure, "gain", None)
    return measure(gain="linear" if gain == "exp" else "exp")


def variant_kinds(report: Report) -> dict[str, str]:
    """Each variant's name -> its kind (:data:`KINDS`), in the section's order.

    A gain variant the report already has as a measure, and the tie variants when no
    retrieved rows tie (every policy then gives the same means), are left out.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap", "ndcg"], trials=100, bootstrap=100)
    >>> variant_kinds(rep)
    {'ap': 'measure', 'ndcg': 'measure', 'MAP rel≥1': 'threshold', 'MAP rel≥2': 'threshold', \
'ndcg(gain=linear)': 'gain'}
    """
    s = report.settings
    kinds = dict.fromkeys(s.measures, "measure")
    thresholds = shown_thresholds(report.thresholds["threshold"])
    kinds |= {map_name(t, None): "threshold" for t in thresholds}
    kinds |= {name: "gain" for name in _gains(s.measures).values() if name not in kinds}
    if int(report.ties["tied"].sum()) > 0:
        kinds |= {_tie_name(m, report): "ties" for m in s.measures}
    return kinds


def _gains(measures: tuple[str, ...]) -> dict[str, str]:
    """Measure name -> the name of its other-gain measure, for those with a gain."""
    pairs = ((str(m), other_gain(m)) for m in as_measures(list(measures)))
    return {name: str(other) for name, other in pairs if other is not None}


def _other_policy(report: Report) -> str:
    """The tie policy beside the report's in ``report.ties``: average, or the rule."""
    ties = report.settings.ties
    return tie_rule(ties) if ties.averaged else "average"


def _tie_name(measure: str, report: Report) -> str:
    """A measure under the other tie policy: ``ap [ties=average]``."""
    return measure + _tie_suffix(report)


def _tie_suffix(report: Report) -> str:
    return f" [ties={_other_policy(report)}]"


# --------------------------------------------------------------------------- numbers


def stability_means(lf: pl.LazyFrame, spec: TableSpec, report: Report) -> pl.DataFrame:
    """One mean per (variant, system): ``variant``, ``system`` (String), ``value``.

    Means over the queries the comparison counts (``missing``), except MAP at a threshold,
    over each system's own queries as the threshold table shows it. The other-gain means
    are evaluated here; when an exponential gain overflows (labels of 1024 and more in a
    measure that is not a ratio), they are left out.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table, report_spec
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> stability_means(example_table().lazy(), report_spec({}), rep).rows()[:2]
    [('ap', 'a', 0.5), ('ap', 'b', 1.0)]
    """
    kinds = variant_kinds(report)
    frames = [
        report.comparison.select(variant="measure", system="system", value="mean"),
        _threshold_means(report),
        _gain_means(lf, spec, report, [name for name, kind in kinds.items() if kind == "gain"]),
        _tie_means(report) if "ties" in kinds.values() else None,
    ]
    means = pl.concat([f.cast({"value": pl.Float64}) for f in frames if f is not None])
    return means.filter(pl.col("variant").is_in(list(kinds)))


def _threshold_means(report: Report) -> pl.DataFrame:
    """MAP at each threshold the threshold table shows, named as it names them."""
    t = report.thresholds
    names = {v: map_name(v, None) for v in shown_thresholds(t["threshold"])}
    return t.filter(pl.col("threshold").is_in(list(names))).select(
        variant=pl.col("threshold").replace_strict(names, return_dtype=pl.String),
        system=pl.col(report.system).cast(pl.String),
        value="map",
    )


def _tie_means(report: Report) -> pl.DataFrame:
    """Each measure's means under the other tie policy, as the tie table has them."""
    return report.ties.select(
        variant=pl.col("measure") + _tie_suffix(report),
        system="system",
        value=_other_policy(report),
    )


def _gain_means(
    lf: pl.LazyFrame, spec: TableSpec, report: Report, measures: list[str]
) -> pl.DataFrame | None:
    """The means of the other-gain ``measures`` (canonical names), as the comparison's."""
    if not measures:
        return None
    try:
        values = api.evaluate_spec(lf, measures, spec).collect(engine=ENGINE)
    except InvalidValueError:  # 2^rel - 1 beyond float64 in DCG, G or Q: no gain variant
        return None
    keyed = values.select(
        pl.col(report.system).cast(pl.String).alias("system"),
        pl.col(report.query).alias("query"),
        *measures,
    )
    means = system_means(keyed, report.order, report.settings.statistics.missing)
    return means.unpivot(index="system", variable_name="variant", value_name="value").select(
        "variant", "system", "value"
    )


def add_stability(lf: pl.LazyFrame, spec: TableSpec, report: Report) -> Report:
    """``report`` with ``stability`` (the rank correlations of :func:`stability_means`) and,
    when ``report.pairs`` is set, ``power`` (discriminative power at the report's alpha).

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> rep.stability.columns
    ['variant_a', 'variant_b', 'n_systems', 'tau', 'tau_ap']
    """
    stability = rank_correlations(stability_means(lf, spec, report))
    power = None
    if report.pairs is not None:
        stats = report.settings.statistics
        power = discriminative_power(report.pairs, alpha=stats.alpha, p=deciding_p(stats))
    return dataclasses.replace(report, stability=stability, power=power)


# --------------------------------------------------------------------------- words


def stability_section(report: Report) -> Section | None:
    """The section "Stability of the verdict": what the orders under the variants share,
    the heat map of Kendall's tau, tau and tau_AP against the first measure, and the
    discriminative power per measure; ``None`` before :func:`add_stability` ran.

    Examples
    --------
    >>> from polars_graded.report import compute_report
    >>> from polars_graded.report.inputs import example_table
    >>> rep = compute_report(example_table(), ["ap"], trials=100, bootstrap=100)
    >>> section = stability_section(rep)
    >>> section.title, section.parts[0][:40]
    ('Stability of the verdict', 'With 2 systems, the orders are too short')
    """
    stability = report.stability
    if stability is None:
        return None
    parts: list[Part] = []
    systems = len(report.order)
    kinds, computed = variant_kinds(report), set(stability["variant_a"])
    variants = [name for name in kinds if name in computed]
    if systems < MIN_SYSTEMS:
        parts.append(
            f"With {systems} system{'s' if systems != 1 else ''}, the orders are too short to "
            "compare: a rank correlation needs at least 3 systems to say more than which of "
            "two comes first."
        )
    elif len(variants) < 2:
        parts.append("The report computes one order of the systems only: nothing to compare.")
    else:
        parts += [
            _orders_text(stability, {n: kinds[n] for n in variants}),
            Figure(
                tau_heatmap(stability, variants),
                f"Heat map of Kendall's tau between the orders of the systems under "
                f"{len(variants)} variants",
                "Kendall's τ between the orders of the systems under every two variants "
                "(1: the same order; blue: agree, red: disagree).",
            ),
            Table(
                "stability-first",
                _against(stability, variants[0]),
                f"τ and τ_AP of each order against {variants[0]}'s (τ_AP with "
                f"{variants[0]}'s order as the reference: a swap near the top of the other "
                "order costs more).",
            ),
        ]
    parts += _power(report)
    return Section("stability", "Stability of the verdict", tuple(parts))


def _orders_text(stability: pl.DataFrame, kinds: dict[str, str]) -> str:
    """The variants by kind, what tau and tau_AP say, and the two orders furthest apart."""
    groups = [
        f"{_KIND_WORDS[kind]}: {', '.join(n for n, k in kinds.items() if k == kind)}"
        for kind in KINDS
        if kind in kinds.values()
    ]
    lowest = stability.filter(pl.col("tau").is_not_nan()).sort("tau", maintain_order=True)
    if lowest.is_empty():
        worst = "Every correlation is undefined (every mean tied)."
    elif lowest["tau"][0] == 1:
        worst = "Every variant puts the systems in the same order (τ = 1)."
    else:
        worst = (
            f"The two orders that disagree most: {lowest['variant_a'][0]} and "
            f"{lowest['variant_b'][0]} (τ = {fmt(lowest['tau'][0])} over "
            f"{lowest['n_systems'][0]} systems)."
        )
    return (
        f"The systems ranked by their mean under each of {len(kinds)} variants, "
        f"{'; '.join(groups)}. Kendall's τ (tau-b) between two orders is the share of pairs "
        "of systems they put in the same order minus the share they swap: 1 for the same "
        "order, −1 for the reverse. τ_AP (Yilmaz, Aslam & Robertson 2008) weighs a swap near "
        "the top more; tied means count in expectation over random orders of the tied "
        f"systems. {worst}"
    )


def _against(stability: pl.DataFrame, first: str) -> pl.DataFrame:
    """Per other variant: its common systems, tau and tau_AP against ``first``."""
    rows = stability.filter(pl.col("variant_a") == first)
    return rows.select(
        variant="variant_b",
        systems="n_systems",
        τ=pl.col("tau").fill_nan(None),
        τ_AP=pl.col("tau_ap").fill_nan(None),
    )


def _power(report: Report) -> list[Part]:
    """Discriminative power per measure and the measure that separates systems best."""
    power, s = report.power, report.settings
    stats = s.statistics
    if power is None or power.is_empty():
        return []
    best = power.filter(pl.col("n_significant") == pl.col("n_significant").max())
    if int(best["n_significant"][0]) == 0:
        verdict = (
            f"No measure finds a pair of systems significantly different at α = {stats.alpha:g}."
        )
    else:
        verdict = (
            f"{_joined(best['measure'].to_list())} "
            f"{'separates' if best.height == 1 else 'separate'} the systems best: "
            f"{int(best['n_significant'][0]):,} of {int(best['n_pairs'][0]):,} pairs "
            f"({float(best['significant_share'][0]):.1%})."
        )
    text = (
        "Discriminative power (Sakai 2006): per measure, the pairs of systems whose "
        f"difference is significant ({significance_test(stats, resampling(report))}, "
        f"{CORRECTION_NAMES[stats.correction]} across the pairs of each measure, "
        f"α = {stats.alpha:g}). {verdict}"
    )
    table = power.select(
        "measure",
        pairs="n_pairs",
        significant="n_significant",
        significant_share="significant_share",
    )
    return [text, Table("stability-power", table)]


def _joined(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
