"""Evaluation reports: a self-contained HTML page, a Markdown summary and per-query Parquet.

:func:`build_report` evaluates a long table with a system column (TREC runs and qrels are
joined into one by :func:`trec_table`), compares every system with a baseline
(:func:`polars_graded.compare.compare`) and breaks µMAP down by relevance threshold
(:func:`polars_graded.breakdown.per_threshold`), all under one tie policy (``ties=``); it
states how much tied scores move each mean (:func:`tie_effects`) and writes ``report.html``
(figures embedded as PNG data URIs, CSS inline, no script, no link out), ``report.md`` and
``per_query.parquet`` into one directory. :func:`compute_report` returns the content as a
:class:`Report` for a notebook, and :func:`to_html` / :func:`to_markdown` render it. The
figures (:mod:`polars_graded.report_charts`) need matplotlib, the tests scipy:
``pip install 'polars-graded[report]'``.
"""

from __future__ import annotations

import datetime as dt
import html
import importlib.util
import io
import itertools
import os
import platform
import re
import shutil
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple

import polars as pl

import polars_graded
from polars_graded.errors import InvalidValueError, MissingColumnError
from polars_graded.io import QueriesMode, join_run_qrels, read_trec_qrels, read_trec_run
from polars_graded.measures import as_measures
from polars_graded.measures.base import format_number
from polars_graded.ranking import TiePolicy, check_ties

Missing = Literal["zero", "common"]
DEFAULT_MEASURES: tuple[str, ...] = ("mu_ap", "ap", "ndcg@10", "ndcng@10", "p@10", "rr")
FILES: tuple[str, str, str] = ("report.html", "report.md", "per_query.parquet")
EXTRAS = ("matplotlib", "scipy")
EXTRAS_HINT = "pip install 'polars-graded[report]'"
DECIMALS = 4
BETTER, WORSE = "▲", "▼"
MAX_THRESHOLDS = 12
"""Thresholds (and labels) a report lists at most; above, an even selection, said so."""
QUERY_LEVELS, TABLE_LEVELS = "µMAP, query levels", "µMAP, table levels"
_ENGINE = "in-memory"  # as `polars-graded evaluate`: the same bits with or without partitions


class ReportFiles(NamedTuple):
    """The paths :func:`write_report` wrote."""

    html: Path
    markdown: Path
    per_query: Path


@dataclass(frozen=True)
class Settings:
    """The measures, the baseline, and the tests' parameters (see :func:`compute_report`)."""

    measures: tuple[str, ...]
    baseline: str
    missing: Missing = "zero"
    trials: int = 10_000
    bootstrap: int = 10_000
    confidence: float = 0.95
    alpha: float = 0.05
    seed: int = 0
    title: str = "Evaluation report"
    differences: tuple[str, ...] = ()
    ties: TiePolicy = "trec_eval"


@dataclass(frozen=True)
class Description:
    """The data behind a report.

    ``per_system``: ``system``, ``queries``, ``rows``, ``retrieved`` (score not null),
    ``unjudged`` (retrieved, relevance null), ``unjudged_share``. ``levels``: ``relevance``
    and ``judgments``, the distinct judged (query, item) pairs with that label.
    ``no_relevant``: the queries without a judged row of label > 0.
    """

    queries: int
    rows: int
    per_system: pl.DataFrame
    levels: pl.DataFrame
    no_relevant: tuple[str, ...]
    item_type: str


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _versions() -> str:
    return (
        f"polars_graded {polars_graded.__version__}, Polars {pl.__version__}, "
        f"Python {platform.python_version()}"
    )


@dataclass(frozen=True)
class Report:
    """Everything a report shows.

    ``per_query``: ``evaluate(measures, by=system)``. ``comparison``: the output of
    :func:`~polars_graded.compare.compare`, its key column named ``system``. ``thresholds``: of
    :func:`~polars_graded.breakdown.per_threshold` by system. ``order``: the systems as the
    tables and charts list them, the baseline first, then by the first measure's mean.
    ``ties``: per system (in ``order``) and measure, what the tie policy changes (see
    :func:`tie_effects`). ``system`` and ``query`` name the key columns of ``per_query``.
    """

    settings: Settings
    per_query: pl.DataFrame
    comparison: pl.DataFrame
    thresholds: pl.DataFrame
    description: Description
    order: tuple[str, ...]
    ties: pl.DataFrame
    system: str = "system"
    query: str = "query"
    source: str = ""
    created: str = field(default_factory=_now)
    versions: str = field(default_factory=_versions)


# --------------------------------------------------------------------------- inputs


def require_extras() -> None:
    """Raise :class:`ModuleNotFoundError` naming the pip command if an extra is missing."""
    missing = [name for name in EXTRAS if importlib.util.find_spec(name) is None]
    if missing:
        msg = f"the report needs {' and '.join(missing)}: {EXTRAS_HINT}"
        raise ModuleNotFoundError(msg)


def run_names(paths: Sequence[str | os.PathLike[str]], tags: Sequence[str | None]) -> list[str]:
    """A distinct name per run file: its tag, else its file name, else its folder's name.

    ``tags[i]`` is the file's single run tag (``None`` when it has several). The first
    rule that names every file differently wins; otherwise the paths themselves.

    Examples
    --------
    >>> run_names(["runs/input.a.gz", "runs/input.b.gz"], ["a", "b"])
    ['a', 'b']
    >>> run_names(["BM25/dl19.txt.gz", "SPLADE/dl19.txt.gz"], ["rank", "rank"])
    ['BM25', 'SPLADE']
    """
    files = [Path(p) for p in paths]
    stems = [re.sub(r"(\.(gz|txt|run|trec|res|tsv))+$", "", f.name) for f in files]
    for names in (list(tags), stems, [f.parent.name for f in files]):
        if all(names) and len(set(names)) == len(names):
            return [str(n) for n in names]
    return [str(f) for f in files]


def trec_table(
    runs: Sequence[str | os.PathLike[str]] | Mapping[str, str | os.PathLike[str]],
    qrels: str | os.PathLike[str],
    *,
    queries: QueriesMode = "qrels",
) -> pl.DataFrame:
    """TREC run files and qrels as one long table with a ``system`` column.

    Parameters
    ----------
    runs
        Run files (named by :func:`run_names`) or ``{system: path}``.
    qrels
        The qrels file.
    queries
        Which queries count, as in :func:`polars_graded.join_run_qrels` (default
        ``"qrels"``, trec_eval ``-c``).

    Returns
    -------
    pl.DataFrame
        Columns ``query``, ``item``, ``score``, ``relevance``, ``system``.
    """
    paths = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    frames = [read_trec_run(path) for path in paths]
    names = [str(n) for n in runs] if isinstance(runs, Mapping) else run_names(paths, _tags(frames))
    if len(set(names)) < len(names):
        msg = f"two runs have the same name; given: {[os.fspath(p) for p in paths]}"
        raise InvalidValueError(msg)
    run = pl.concat(
        f.select("query", "item", "score", system=pl.lit(n))
        for n, f in zip(names, frames, strict=True)
    )
    return join_run_qrels(run, read_trec_qrels(qrels), by="system", queries=queries)


def _tags(frames: Sequence[pl.DataFrame]) -> list[str | None]:
    """Each run's tag, ``None`` for a run with several tags."""
    tags = [f.get_column("tag").unique().to_list() for f in frames]
    return [t[0] if len(t) == 1 else None for t in tags]


def describe(
    table: pl.DataFrame | pl.LazyFrame,
    *,
    system: str = "system",
    query: str = "query",
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
) -> Description:
    """Systems, queries, rows, labels and unjudged rows of a long table.

    Examples
    --------
    >>> df = pl.DataFrame({
    ...     "system": ["a", "a", "a"], "query": [1, 1, 2], "item": ["x", "y", "x"],
    ...     "score": [2.0, 1.0, None], "relevance": [1, None, 0],
    ... })
    >>> d = describe(df)
    >>> d.queries, d.no_relevant, d.levels.rows()
    (2, ('2',), [(0, 1), (1, 1)])
    """
    lf = table.lazy()
    retrieved = pl.col(score).is_not_null()
    per_system = lf.group_by(system).agg(
        queries=pl.col(query).n_unique(),
        rows=pl.len(),
        retrieved=retrieved.sum(),
        unjudged=(retrieved & pl.col(relevance).is_null()).sum(),
    )
    per_system = per_system.select(
        pl.col(system).cast(pl.String).alias("system"),
        pl.exclude(system),
        unjudged_share=pl.col("unjudged") / pl.col("retrieved"),
    ).sort("system")
    judged = lf.filter(pl.col(relevance).is_not_null()).select(query, item, relevance).unique()
    levels = judged.group_by(relevance).agg(judgments=pl.len()).sort(relevance)
    top = lf.group_by(query).agg(top=pl.col(relevance).max())
    no_relevant = top.filter(pl.col("top").fill_null(0) <= 0).select(query).sort(query)
    counts = lf.select(queries=pl.col(query).n_unique(), rows=pl.len())
    systems, labels, empty, sizes = pl.collect_all([per_system, levels, no_relevant, counts])
    return Description(
        queries=int(sizes["queries"][0]),
        rows=int(sizes["rows"][0]),
        per_system=systems,
        levels=labels.rename({relevance: "relevance"}),
        no_relevant=tuple(str(q) for q in empty[query]),
        item_type=str(lf.collect_schema()[item]),
    )


# --------------------------------------------------------------------------- computing


def compute_report(
    table: pl.DataFrame | pl.LazyFrame,
    measures: Sequence[str] | None = None,
    *,
    system: str = "system",
    query: str = "query",
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
    ties: TiePolicy = "trec_eval",
    baseline: str | None = None,
    missing: Missing = "zero",
    trials: int = 10_000,
    bootstrap: int = 10_000,
    confidence: float = 0.95,
    alpha: float = 0.05,
    seed: int = 0,
    title: str = "Evaluation report",
    differences: Sequence[str] | Literal["all"] | None = None,
    source: str = "",
) -> Report:
    """Evaluate, compare and describe a long table with a system column.

    Parameters
    ----------
    table
        One row per (system, query, item) with the score and the relevance label.
    measures
        Measure names (default :data:`DEFAULT_MEASURES`).
    system, query, item, score, relevance
        Column names.
    ties
        The tie policy of every number (default ``"trec_eval"``: ties by item id
        descending), as for :meth:`~polars_graded.namespace.GradedNamespace.evaluate`; the
        section "Tied scores" sets it beside ``"average"`` (or ``"average"`` beside
        ``"trec_eval"``), see :func:`tie_effects`.
    baseline
        The system every other is compared with (default: the first in sorted order).
    missing
        A query a system has no row for: ``"zero"`` scores it 0, ``"common"`` keeps only
        the queries every system has (see :func:`~polars_graded.compare.compare`).
    trials, bootstrap, confidence, alpha, seed
        Randomization-test trials, bootstrap resamples, confidence level of the
        intervals, significance level, random seed.
    title
        The report's title.
    differences
        Measures of the per-query difference plots: default the first, ``"all"`` each.
    source
        A line on where the data came from, shown under the title.

    Returns
    -------
    Report

    Examples
    --------
    >>> df = pl.DataFrame({
    ...     "system": ["a"] * 4 + ["b"] * 4, "query": [1, 1, 2, 2] * 2,
    ...     "item": ["x", "y"] * 4, "score": [2.0, 1.0] * 2 + [1.0, 2.0] * 2,
    ...     "relevance": [0, 1, 0, 2] * 2,
    ... })
    >>> rep = compute_report(df, ["ap"], trials=100, bootstrap=100)
    >>> rep.comparison.select("system", "mean", "diff", "significant").rows()
    [('a', 0.5, 0.0, False), ('b', 1.0, 0.5, False)]
    >>> print(to_markdown(rep).splitlines()[6:10])  # doctest: +NORMALIZE_WHITESPACE
    ['| system | queries | ap |', '| --- | --: | --: |',
     '| a (baseline) | 2 | 0.5000 |', '| b | 2 | 1.0000 |']
    """
    require_extras()
    from polars_graded.breakdown import per_threshold
    from polars_graded.compare import compare

    ties = check_ties(ties)
    lf = table.lazy()
    if system not in lf.collect_schema():
        msg = f"the table has no system column {system!r}; name it with system= (--system)"
        raise MissingColumnError(msg)
    names = tuple(str(m) for m in as_measures(measures or list(DEFAULT_MEASURES)))
    columns = {"query": query, "item": item, "score": score, "relevance": relevance}
    per_query = lf.graded.evaluate(list(names), by=system, ties=ties, **columns)
    per_query = per_query.collect(engine=_ENGINE)
    keyed = per_query.with_columns(pl.col(system).cast(pl.String))
    settings = Settings(
        measures=names,
        baseline=_baseline(keyed[system], baseline),
        missing=missing,
        trials=trials,
        bootstrap=bootstrap,
        confidence=confidence,
        alpha=alpha,
        seed=seed,
        title=title,
        differences=_differences(differences, names),
        ties=ties,
    )
    comparison = compare(
        keyed,
        list(names),
        system=system,
        query=query,
        baseline=settings.baseline,
        missing=missing,
        trials=trials,
        bootstrap=bootstrap,
        confidence=confidence,
        alpha=alpha,
        seed=seed,
    )
    comparison = comparison.rename({system: "system"})  # the key is ``system`` in the report
    thresholds = per_threshold(lf, by=system, ties=ties, **columns).lazy().collect()
    order = _order(comparison, settings)
    return Report(
        settings=settings,
        per_query=per_query,
        comparison=comparison,
        thresholds=thresholds.with_columns(pl.col(system).cast(pl.String)),
        description=describe(lf, system=system, **columns),
        order=order,
        ties=tie_effects(lf, per_query, settings, order, system=system, **columns),
        system=system,
        query=query,
        source=source,
    )


def _baseline(systems: pl.Series, wanted: str | None) -> str:
    names = sorted(systems.unique().to_list())
    if not names:
        msg = "the table has no rows to report on"
        raise InvalidValueError(msg)
    if wanted is None:
        return str(names[0])
    if str(wanted) not in names:
        msg = f"baseline {wanted!r} is not a system of the table; systems: {names[:20]}"
        raise InvalidValueError(msg)
    return str(wanted)


def _differences(wanted: Sequence[str] | str | None, names: tuple[str, ...]) -> tuple[str, ...]:
    if wanted is None:
        return names[:1]
    if wanted == "all":
        return names
    chosen = tuple(str(m) for m in as_measures(wanted))
    unknown = [m for m in chosen if m not in names]
    if unknown:
        msg = f"difference plots of {unknown}: not among the report's measures {list(names)}"
        raise InvalidValueError(msg)
    return chosen


def _order(comparison: pl.DataFrame, settings: Settings) -> tuple[str, ...]:
    """The baseline, then the other systems by the first measure's mean, best first."""
    first = comparison.filter(pl.col("measure") == settings.measures[0])
    ranked = first.sort(["mean", "system"], descending=[True, False])["system"].cast(pl.String)
    return (settings.baseline, *(s for s in ranked if s != settings.baseline))


# --------------------------------------------------------------------------- ties

_TIE_SIZE = "__pg_tie_size"


def tie_rule(ties: TiePolicy) -> TiePolicy:
    """The tie-breaking rule a report sets beside ``"average"``: its own policy, or
    ``"trec_eval"`` when the report itself averages over ties.

    Examples
    --------
    >>> tie_rule("optimistic"), tie_rule("average")
    ('optimistic', 'trec_eval')
    """
    return "trec_eval" if ties == "average" else ties


def count_ties(
    table: pl.DataFrame | pl.LazyFrame,
    *,
    system: str = "system",
    query: str = "query",
    score: str = "score",
) -> pl.DataFrame:
    """Per system: its ``retrieved`` rows and the ``tied`` ones among them.

    A retrieved row (score not null) is tied when its score, as a 32-bit float (the
    precision every tie policy compares), equals another retrieved row's in the same query.
    ``tied_share`` = ``tied / retrieved``; a system without retrieved rows has no row.

    Examples
    --------
    >>> df = pl.DataFrame({
    ...     "system": ["a"] * 4 + ["b"] * 2, "query": [1, 1, 1, 2, 1, 1],
    ...     "score": [1.0, 1.0, 0.5, 1.0, 2.0, None],
    ... })
    >>> count_ties(df).rows()
    [('a', 4, 2, 0.5), ('b', 1, 0, 0.0)]
    """
    lf = table.lazy().filter(pl.col(score).is_not_null())
    size = pl.len().over(system, query, pl.col(score).cast(pl.Float32))
    counts = (
        lf.with_columns(size.alias(_TIE_SIZE))
        .group_by(system)
        .agg(
            retrieved=pl.len().cast(pl.Int64),
            tied=(pl.col(_TIE_SIZE) > 1).sum().cast(pl.Int64),
        )
    )
    return (
        counts.select(
            pl.col(system).cast(pl.String).alias("system"),
            "retrieved",
            "tied",
            tied_share=pl.col("tied") / pl.col("retrieved"),
        )
        .sort("system")
        .collect()
    )


def tie_effects(
    table: pl.DataFrame | pl.LazyFrame,
    per_query: pl.DataFrame,
    settings: Settings,
    order: Sequence[str],
    *,
    system: str = "system",
    query: str = "query",
    item: str = "item",
    score: str = "score",
    relevance: str = "relevance",
) -> pl.DataFrame:
    """Per system and measure, the mean under the report's tie rule and under ``"average"``.

    The rule is :func:`tie_rule` of ``settings.ties``: the report's own policy, or
    ``"trec_eval"`` when the report uses ``"average"``. ``per_query`` holds the values under
    ``settings.ties``; the other policy is evaluated on the systems that have tied rows only
    (without ties every policy gives the same bits). Means follow ``settings.missing`` as
    the summary's do (:func:`~polars_graded.compare.compare`).

    Returns
    -------
    pl.DataFrame
        One row per system (in ``order``) and measure (in ``settings.measures``):
        ``system``, ``retrieved``, ``tied``, ``tied_share`` (see :func:`count_ties`),
        ``measure``, then the mean under the rule in a column named after it (e.g.
        ``trec_eval``), the mean under ``average``, and ``diff`` = rule − average: how far
        the tie-breaking rule alone moves the mean from its expected value over random
        orders of the tied rows.
    """
    lf = table.lazy()
    columns = {"query": query, "item": item, "score": score, "relevance": relevance}
    counts = count_ties(lf, system=system, query=query, score=score)
    measures = list(settings.measures)
    rule = tie_rule(settings.ties)
    other: TiePolicy = "average" if settings.ties != "average" else rule
    keyed = per_query.with_columns(pl.col(system).cast(pl.String))
    tied = counts.filter(pl.col("tied") > 0)["system"].to_list()
    redone = keyed
    if tied:
        subset = lf.filter(pl.col(system).cast(pl.String).is_in(tied))
        values = subset.graded.evaluate(measures, by=system, ties=other, **columns)
        values = values.collect(engine=_ENGINE).with_columns(pl.col(system).cast(pl.String))
        redone = pl.concat([keyed.filter(~pl.col(system).is_in(tied)), values])
    means = {
        policy: _means(
            frame, measures, system=system, query=query, order=order, missing=settings.missing
        )
        for policy, frame in ((settings.ties, keyed), (other, redone))
    }
    keys = (
        pl.DataFrame({"system": list(order)})
        .with_row_index("__s")
        .join(pl.DataFrame({"measure": measures}).with_row_index("__m"), how="cross")
    )
    out = (
        keys.join(counts, on="system", how="left")
        .join(means[rule].rename({"mean": rule}), on=["system", "measure"], how="left")
        .join(means["average"].rename({"mean": "average"}), on=["system", "measure"], how="left")
        .sort("__s", "__m")
    )
    return out.select(
        "system",
        pl.col("retrieved", "tied").fill_null(0),
        "tied_share",
        "measure",
        rule,
        "average",
        diff=pl.col(rule) - pl.col("average"),
    )


def _means(
    per_query: pl.DataFrame,
    measures: Sequence[str],
    *,
    system: str,
    query: str,
    order: Sequence[str],
    missing: Missing,
) -> pl.DataFrame:
    """``system``, ``measure``, ``mean``: the means over the queries the comparison counts."""
    values = per_query.select(
        pl.col(system).alias("system"), pl.col(query).alias("query"), *measures
    )
    grid = _query_grid(values, order, missing)
    means = grid.group_by("system").agg(pl.col(list(measures)).mean())
    return means.unpivot(index="system", variable_name="measure", value_name="mean")


def _query_grid(values: pl.DataFrame, systems: Sequence[str], missing: Missing) -> pl.DataFrame:
    """``values`` (``system``, ``query``, value columns) on every (system, query) compared:
    with ``missing="zero"`` each query of the data, a value a system lacks as 0; with
    ``"common"`` only the queries every system has (as :func:`~polars_graded.compare.compare`).
    """
    names = pl.DataFrame({"system": list(systems)})
    queries = values.select("query").unique()
    if missing == "common":
        counts = values.group_by("query").agg(n=pl.col("system").n_unique())
        queries = counts.filter(pl.col("n") == len(systems)).select("query")
    queries = queries.sort("query")  # one order, so that equal values give equal means
    grid = names.join(queries, how="cross").join(values, on=["system", "query"], how="left")
    return grid.with_columns(pl.exclude("system", "query").fill_null(0.0))


# --------------------------------------------------------------------------- writing


def build_report(
    table: pl.DataFrame | pl.LazyFrame,
    out_dir: str | os.PathLike[str],
    measures: Sequence[str] | None = None,
    **options: object,
) -> ReportFiles:
    """Compute a report (:func:`compute_report`) and write its three files into ``out_dir``.

    Parameters
    ----------
    table
        The long table with a system column.
    out_dir
        The directory (created if needed) for ``report.html``, ``report.md`` and
        ``per_query.parquet``.
    measures
        Measure names (default :data:`DEFAULT_MEASURES`).
    **options
        The keyword arguments of :func:`compute_report`.

    Returns
    -------
    ReportFiles

    Examples
    --------
    >>> from polars_graded.report import build_report, trec_table
    >>> runs = trec_table(["run_a.txt", "run_b.txt"], "qrels.txt")  # doctest: +SKIP
    >>> build_report(runs, "report/", ["mu_ap", "ndcg@10"], trials=1000)  # doctest: +SKIP
    ReportFiles(html=PosixPath('report/report.html'), ...)
    """
    return write_report(compute_report(table, measures, **options), out_dir)  # type: ignore[arg-type]


def write_report(report: Report, out_dir: str | os.PathLike[str]) -> ReportFiles:
    """Write ``report.html``, ``report.md`` and ``per_query.parquet`` into ``out_dir``.

    The three files are rendered in memory first, written into a temporary folder beside
    ``out_dir``, then moved into place (the folder at once when it is new, else file by
    file): a report that fails leaves no folder and no half-written file behind, and an
    existing ``out_dir`` keeps its other files.
    """
    folder = Path(out_dir)
    if folder.exists() and not folder.is_dir():
        msg = f"the report's output {os.fspath(folder)!r} is a file; give a folder"
        raise InvalidValueError(msg)
    parquet = io.BytesIO()
    report.per_query.write_parquet(parquet)
    contents = [
        to_html(report).encode("utf-8"),
        to_markdown(report).encode("utf-8"),
        parquet.getvalue(),
    ]
    created = [p for p in (folder.parent, *folder.parent.parents) if not p.exists()]
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        # Not tempfile.mkdtemp: its mode 0700 would become the report folder's.
        staging = folder.parent / f".{folder.name}-{uuid.uuid4().hex[:12]}"
        staging.mkdir()
        try:
            for name, data in zip(FILES, contents, strict=True):
                (staging / name).write_bytes(data)
            if folder.is_dir():
                for name in FILES:
                    os.replace(staging / name, folder / name)
            else:
                os.replace(staging, folder)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    except BaseException:
        if created:  # the folders this call made, from the outermost
            shutil.rmtree(created[-1], ignore_errors=True)
        raise
    return ReportFiles(*(folder / name for name in FILES))


# --------------------------------------------------------------------------- text


def paired_differences(report: Report, measure: str) -> pl.DataFrame:
    """Per system other than the baseline and query: ``diff`` = its value − the baseline's.

    Queries a system has no value for follow ``missing``: 0 with ``"zero"``, left out
    with ``"common"`` (only the queries every system has).
    """
    values = report.per_query.select(
        system=pl.col(report.system).cast(pl.String), query=pl.col(report.query), value=measure
    )
    grid = _query_grid(values, report.order, report.settings.missing)
    base = grid.filter(pl.col("system") == report.settings.baseline).select("query", base="value")
    others = grid.filter(pl.col("system") != report.settings.baseline).join(base, on="query")
    return others.select("system", "query", diff=pl.col("value") - pl.col("base"))


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


def marker(row: dict[str, object]) -> str:
    """▲ for significantly better than the baseline, ▼ for worse, else ``""``."""
    if not row["significant"]:
        return ""
    return BETTER if float(row["diff"]) > 0 else WORSE  # type: ignore[arg-type]


def legend(report: Report) -> str:
    """What the markers mean: the test, its correction, alpha and the baseline."""
    s = report.settings
    others = len(report.order) - 1
    return (
        f"{BETTER} / {WORSE}: significantly better / worse than the baseline {s.baseline}: "
        f"two-sided paired randomization test ({s.trials:,} trials, seed {s.seed}) on the "
        f"per-query values, p-values Holm-corrected over the {others} comparison(s) with "
        f"the baseline of each measure, α = {s.alpha:g}. Means over queries; the mean of "
        f"mu_ap is µMAP and of ap is MAP. The paired t-test, its Holm-corrected p-values and "
        f"{s.confidence:.0%} bootstrap intervals ({s.bootstrap:,} resamples) are in the details."
    )


def conventions(report: Report) -> list[tuple[str, str]]:
    """The conventions every number of ``report`` follows, as (topic, text) pairs."""
    s, d = report.settings, report.description
    levels = [v for v in d.levels["relevance"].to_list() if v > 0]
    numeric = d.item_type.startswith(("Int", "UInt", "Float"))
    missing = {
        "zero": "a query present in the data that a system has no value for scores 0 for "
        "it and counts in its mean",
        "common": "only the queries every system has values for are compared",
    }[s.missing]
    return [
        ("Ranking", "each query's retrieved rows (score not null) by score, highest first, "
         f"compared as 32-bit floats as trec_eval does; {_tie_convention(s.ties)}"
         + (f", ids compared {'numerically' if numeric else 'as text'} ({d.item_type})"
            if s.ties in ("trec_eval", "optimistic", "pessimistic") else "") + "."),
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
        ("Missing queries", f"missing = {s.missing}: {missing}."),
        ("Tests", f"paired against {s.baseline}: two-sided paired t-test and randomization "
         f"test ({s.trials:,} trials, seed {s.seed}); Holm's correction over the systems of "
         f"each measure; α = {s.alpha:g}; percentile bootstrap over queries for the "
         f"{s.confidence:.0%} intervals ({s.bootstrap:,} resamples, seed {s.seed})."),
        ("Version", report.versions),
    ]  # fmt: skip


_TIE_RULES = {
    "trec_eval": "ties by item id descending, as trec_eval",
    "input": "ties in the table's row order",
    "optimistic": "the higher label first within a tie",
    "pessimistic": "the lower label first within a tie",
}


def _tie_convention(ties: TiePolicy) -> str:
    """The Ranking convention's words on tied scores under ``ties``."""
    return {
        "trec_eval": "ties by item id descending (trec_eval's order; ties=trec_eval)",
        "input": "ties in the table's row order (ties=input)",
        "optimistic": "within a tie the higher label first, an unjudged row counting as the "
        "lowest, then item id descending (ties=optimistic)",
        "pessimistic": "within a tie the lower label first, an unjudged row counting as the "
        "lowest, then item id descending (ties=pessimistic)",
        "average": "tied rows are not put in an order: each measure is its exact expected "
        "value over every order of each group of tied rows (ties=average, McSherry & "
        "Najork 2008)",
    }[ties]


def tie_lines(report: Report) -> list[str]:
    """What the "Tied scores" section says: one line when nothing ties, else what the
    table's numbers mean and where the ties are."""
    t, s = report.ties, report.settings
    if int(t["tied"].sum()) == 0:
        return [
            "No ties: no two retrieved rows of a query have the same score (as 32-bit "
            "floats), so every tie policy gives these numbers."
        ]
    rule = tie_rule(s.ties)
    used = {rule: "", "average": ""} | {s.ties: "; this report's policy"}
    lines = [
        "Tied share: the retrieved rows whose score (as a 32-bit float) equals another "
        f"retrieved row's in the same query. Per measure, the mean under ties={rule} "
        f"({_TIE_RULES[rule]}{used[rule]}), under ties=average (the "
        "expected value over uniformly random orders of each group of tied rows, McSherry "
        f"& Najork 2008{used['average']}) and Δ = {rule} − average: how much the "
        "tie-breaking rule alone moves the mean."
    ]
    systems = t.unique("system", maintain_order=True).filter(pl.col("tied") > 0)
    systems = systems.sort("tied_share", "system", descending=[True, False]).head(3)
    most = ", ".join(f"{n} ({v:.1%})" for n, v in systems.select("system", "tied_share").rows())
    widest = t.sort(pl.col("diff").abs(), "system", descending=[True, False]).row(0, named=True)
    moved = (
        f"Largest move: {widest['system']} on {widest['measure']}, Δ = {fmt_diff(widest['diff'])}."
        if widest["diff"]
        else "No mean changes: the rule and the average agree on every measure."
    )
    lines.append(f"Most ties: {most}. {moved} {_order_changes(t, s.measures, rule)}")
    return lines


def _order_changes(ties: pl.DataFrame, measures: Sequence[str], rule: str) -> str:
    """A sentence on the pairs of systems whose means are in opposite orders under the
    rule and under average (differences within 1e-12 count as equal)."""
    changes = []
    for m in measures:
        rows = ties.filter(pl.col("measure") == m).select("system", rule, "average").rows()
        swapped = [
            f"{a} and {b}"
            for (a, a_rule, a_avg), (b, b_rule, b_avg) in itertools.combinations(rows, 2)
            if min(abs(a_rule - b_rule), abs(a_avg - b_avg)) > 1e-12
            and (a_rule > b_rule) != (a_avg > b_avg)
        ]
        if swapped:
            more = f" and {len(swapped) - 3} more pairs" if len(swapped) > 3 else ""
            changes.append(f"{m} ({', '.join(swapped[:3])}{more})")
    if not changes:
        return f"Ranked by mean, the systems keep their order under {rule} and average."
    return (
        f"Ranked by mean, systems swap places between {rule} and average on {'; '.join(changes)}."
    )


def _comparison_rows(report: Report) -> dict[tuple[str, str], dict[str, object]]:
    return {(r["system"], r["measure"]): r for r in report.comparison.to_dicts()}


def _query_counts(report: Report) -> dict[str, int]:
    first = report.comparison.filter(pl.col("measure") == report.settings.measures[0])
    return dict(zip(first["system"], first["n_queries"], strict=True))


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


def _capped(thresholds: pl.Series) -> bool:
    """Whether :func:`shown_thresholds` leaves some of these thresholds out."""
    return len(shown_thresholds(thresholds)) < thresholds.n_unique()


def threshold_table(report: Report) -> pl.DataFrame:
    """Per system in report order: MAP at each threshold of :func:`shown_thresholds`, then
    µMAP on each query's own levels (the summary's ``mu_ap``) and on the table's levels
    (``mu_ap(levels=table)``), both of :func:`~polars_graded.breakdown.per_threshold`."""
    t = report.thresholds.rename({report.system: "system"})
    shown = shown_thresholds(t["threshold"])
    capped = _capped(t["threshold"])
    weights = dict(t.group_by("threshold").agg(pl.col("weight").unique()).iter_rows())
    names = {
        v: _map_name(v, None if capped or len(weights[v]) > 1 else weights[v][0]) for v in shown
    }
    out = pl.DataFrame({"system": list(report.order)})
    if shown:
        long = t.filter(pl.col("threshold").is_in(shown)).with_columns(
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


def _map_name(threshold: float, weight: float | None) -> str:
    """``MAP rel≥2 (w 0.5)``: a threshold's MAP column, the threshold exact (its shortest
    text that reads back to the same float), with its weight on the table's levels if
    shown.

    Examples
    --------
    >>> _map_name(1.000001, 1e-06), _map_name(2.0, None)
    ('MAP rel≥1.000001 (w 1e-06)', 'MAP rel≥2')
    """
    return f"MAP rel≥{format_number(threshold)}" + ("" if weight is None else f" (w {weight:.3g})")


def threshold_notes(report: Report) -> list[str]:
    """What the threshold table shows: the two µMAPs in one sentence, what a capped table
    leaves out, and why its means may differ from the summary's."""
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
    if _capped(t["threshold"]):
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
            f"means here differ from the summary's (missing = {report.settings.missing})."
        )
    return lines


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


def _describe_lines(report: Report) -> list[str]:
    d = report.description
    if d.levels.height <= MAX_THRESHOLDS:
        levels = ", ".join(f"{format_number(v)}: {n:,}" for v, n in d.levels.iter_rows())
    else:
        judgments = int(d.levels["judgments"].sum())
        levels = f"{judgments:,} on {labels_text(d.levels['relevance'].to_list())}"
    retrieved = int(d.per_system["retrieved"].sum())
    unjudged = int(d.per_system["unjudged"].sum())
    share = unjudged / retrieved if retrieved else 0.0
    empty = ", ".join(d.no_relevant[:20]) + (" …" if len(d.no_relevant) > 20 else "")
    return [
        f"Systems: {len(report.order)} ({', '.join(report.order)})",
        f"Queries: {d.queries:,}; rows: {d.rows:,}, of which {retrieved:,} retrieved",
        f"Judgments per relevance label (distinct query–item pairs): {levels or 'none'}",
        f"Unjudged share of the retrieved rows: {share:.1%} ({unjudged:,} rows)",
        f"Queries without a relevant item: {len(d.no_relevant)}" + (f" ({empty})" if empty else ""),
    ]


def _cell_text(column: str, value: object) -> str:
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, str):
        return value
    if column.endswith("_share"):
        return "–" if value is None else f"{value:.1%}"  # type: ignore[str-format]
    return fmt_p(value) if column.startswith("p_") else fmt(value)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- Markdown


def to_markdown(report: Report) -> str:
    """The report's summary in Markdown: summary table with markers, data, conventions."""
    s = report.settings
    rows, counts = _comparison_rows(report), _query_counts(report)
    table = [["system", "queries", *s.measures], ["---", *["--:"] * (len(s.measures) + 1)]]
    for name in report.order:
        label = f"{name} (baseline)" if name == s.baseline else name
        means = [f"{fmt(rows[name, m]['mean'])} {marker(rows[name, m])}" for m in s.measures]
        table.append([label, str(counts[name]), *(c.strip() for c in means)])
    created = f"Created {report.created} with {report.versions}."
    lines = [f"# {s.title}", "", f"{created} {report.source}".strip(), "", "## Summary", ""]
    lines += [_md_row(r) for r in table]
    lines += ["", legend(report), "", "## MAP per relevance threshold", ""]
    lines += _md_frame(threshold_table(report))
    lines += [part for note in threshold_notes(report) for part in ("", note)]
    lines += ["", "## Tied scores", "", *_md_ties(report)]
    lines += ["", "## Data", "", *(f"- {line}" for line in _describe_lines(report))]
    lines += ["", "## Conventions", "", *(f"- **{k}**: {v}" for k, v in conventions(report))]
    lines += ["", f"Charts and every test's result: {FILES[0]}; per-query values: {FILES[2]}.", ""]
    return "\n".join(lines)


def _md_ties(report: Report) -> list[str]:
    """The tie lines, then (if anything ties) one row per system: tied share and, per
    measure, the mean under the rule, under average, and Δ."""
    lines = tie_lines(report)
    if len(lines) == 1:
        return lines
    s = report.settings
    rule = tie_rule(s.ties)
    out = [lines[0], ""]
    for first, last in _tie_chunks(len(s.measures)):
        head = ["system", "tied share"]
        head += [f"{m} {p}" for m in s.measures[first:last] for p in (rule, "average", "Δ")]
        out += [_md_row(head), _md_row(["---", *["--:"] * (len(head) - 1)])]
        for name, rows in _tie_rows(report):
            cells = [name, _cell_text("tied_share", rows[0]["tied_share"])]
            for row in rows[first:last]:
                cells += [fmt(row[rule]), fmt(row["average"]), fmt_diff(row["diff"])]  # type: ignore[arg-type]
            out.append(_md_row(cells))
        out.append("")
    return out + lines[1:]


def _tie_chunks(count: int, most: int = 3) -> list[tuple[int, int]]:
    """``count`` measures as (first, last) slices of at most ``most``, as even as can be:
    three columns per measure, so that a table fits the page's width.

    Examples
    --------
    >>> _tie_chunks(6), _tie_chunks(4), _tie_chunks(2)
    ([(0, 3), (3, 6)], [(0, 2), (2, 4)], [(0, 2)])
    """
    parts = -(-count // most)
    bounds = [round(i * count / parts) for i in range(parts + 1)]
    return list(itertools.pairwise(bounds))


def _tie_rows(report: Report) -> list[tuple[str, list[dict[str, object]]]]:
    """Per system in report order, its rows of ``report.ties`` in measure order."""
    rows: dict[str, list[dict[str, object]]] = {}
    for row in report.ties.iter_rows(named=True):
        rows.setdefault(row["system"], []).append(row)
    return [(name, rows[name]) for name in report.order]


def _md_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _md_frame(frame: pl.DataFrame) -> list[str]:
    head = [_md_row(frame.columns), _md_row(["---", *["--:"] * (frame.width - 1)])]
    return head + [
        _md_row([_cell_text(c, v) for c, v in zip(frame.columns, r, strict=True)])
        for r in frame.iter_rows()
    ]


# --------------------------------------------------------------------------- HTML

_CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
 color:#1d1d1f;margin:0;background:#f3f3f3}
main{max-width:1180px;margin:0 auto;padding:24px 32px 48px;background:#fff}
h1{font-size:26px;margin:0 0 4px}
h2{font-size:20px;margin:36px 0 10px;border-bottom:1px solid #ddd;padding-bottom:4px}
.meta,.legend,figcaption,footer{color:#555;font-size:13px}
nav a{margin-right:14px;font-size:14px}
table{border-collapse:collapse;font-size:13.5px;margin:8px 0}
th,td{padding:4px 10px;border-bottom:1px solid #e6e6e6;text-align:left;white-space:nowrap}
thead th{border-bottom:2px solid #999;background:#f4f4f4}
.num{text-align:right;font-variant-numeric:tabular-nums}
tbody tr:nth-child(even){background:#fafafa}
tbody tr.baseline{background:#eaf1f8}
.mark{display:inline-block;width:1.2em;text-align:center}
.up{color:#0072B2}.down{color:#D55E00}
.tag{font-size:11px;font-weight:normal;color:#fff;background:#555;border-radius:3px;
 padding:0 4px;margin-left:6px}
.wide{overflow-x:auto}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:12px}
figure{margin:8px 0}
figure img{max-width:100%;height:auto;border:1px solid #eee}
dl{display:grid;grid-template-columns:max-content 1fr;gap:6px 16px;font-size:14px}
dt{font-weight:600}
dd{margin:0}
table.compact{font-size:12.5px}
table.compact th,table.compact td{padding:3px 7px}
tr.group th{background:#fff;border-bottom:1px solid #999;padding-top:14px;font-size:14px}
tr.span th{background:#fff;border-bottom:1px solid #bbb;text-align:center;padding-top:12px}
tr.head th{border-bottom:2px solid #999;background:#f4f4f4}
th.start,td.start,tr.head th:nth-child(3n){border-left:1px solid #ddd}
"""

_SECTIONS = {
    "summary": "Summary",
    "measures": "Measures",
    "thresholds": "AP per relevance threshold",
    "differences": "Per-query differences",
    "details": "Tests",
    "ties": "Tied scores",
    "data": "Data",
    "conventions": "Conventions",
}

_TEST_COLUMNS = {
    "n_queries": "queries",
    "n_missing": "missing",
    "mean": "mean",
    "ci_low": "CI low",
    "ci_high": "CI high",
    "diff": "diff",
    "diff_ci_low": "diff low",
    "diff_ci_high": "diff high",
    "t_stat": "t",
    "p_ttest": "p t-test",
    "p_ttest_holm": "Holm",
    "p_randomization": "p rand.",
    "p_randomization_holm": "Holm",
}


def to_html(report: Report) -> str:
    """The report as one self-contained HTML page (PNG data URIs, inline CSS, no script)."""
    esc, s = html.escape, report.settings
    nav = "".join(f'<a href="#{key}">{esc(text)}</a>' for key, text in _SECTIONS.items())
    meta = f"Created {report.created} with {report.versions}. {report.source}".strip()
    body = [
        f"<h1>{esc(s.title)}</h1>",
        f'<p class="meta">{esc(meta)}</p>',
        f"<nav>{nav}</nav>",
        _html_summary(report),
        _html_measures(report),
        _html_thresholds(report),
        _html_differences(report),
        _html_tests(report),
        _html_ties(report),
        _html_data(report),
        _section("conventions", "<dl>", *(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>"
                                          for k, v in conventions(report)), "</dl>"),
        f"<footer><p>polars_graded {esc(polars_graded.__version__)} · "
        f"{' · '.join(FILES)}</p></footer>",
    ]  # fmt: skip
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(s.title)}</title>\n<style>{_CSS}</style></head>\n"
        "<body><main>\n" + "\n".join(body) + "\n</main></body></html>\n"
    )


def _section(key: str, *parts: str) -> str:
    head = f'<section id="{key}"><h2>{html.escape(_SECTIONS[key])}</h2>'
    return "\n".join([head, *parts, "</section>"])


def _table(
    table_id: str, head: Sequence[tuple[str, bool]], rows: Sequence[str], css: str = ""
) -> str:
    """A table; ``head`` holds (title, numeric) pairs, ``rows`` the ``<tr>`` elements."""
    cells = _head_cells(head)
    css = f' class="{css}"' if css else ""
    return (
        f'<div class="wide"><table id="{table_id}"{css}><thead><tr>{cells}</tr></thead>\n'
        "<tbody>\n" + "\n".join(rows) + "\n</tbody></table></div>"
    )


def _head_cells(head: Sequence[tuple[str, bool]]) -> str:
    return "".join(f"<th{' class=num' * n}>{html.escape(t)}</th>" for t, n in head)


def _td(column: str, value: object, extra: str = "", text: str | None = None, css: str = "") -> str:
    """A number with its exact value in ``data-value`` (``repr``); ``text`` replaces the
    shown text, ``css`` adds classes."""
    data = "" if value is None else f' data-value="{value!r}"'
    shown = html.escape(_cell_text(column, value) if text is None else text)
    return (
        f'<td class="num{" " * bool(css)}{css}" data-col="{html.escape(column)}"{data}>'
        f"{shown}{extra}</td>"
    )


def _mark(row: dict[str, object]) -> str:
    sign = marker(row)
    kind = {BETTER: " up", WORSE: " down"}.get(sign, "")
    return f'<span class="mark{kind}">{sign}</span>'


def _tr(name: str, baseline: str, cells: str, extra: str = "") -> str:
    base = name == baseline
    tag = '<span class="tag">baseline</span>' if base else ""
    css = ' class="baseline"' if base else ""
    return (
        f'<tr data-system="{html.escape(name)}"{extra}{css}>'
        f'<th scope="row">{html.escape(name)}{tag}</th>{cells}</tr>'
    )


def _html_summary(report: Report) -> str:
    s = report.settings
    rows, counts = _comparison_rows(report), _query_counts(report)
    head = [("system", False), ("queries", True), *((m, True) for m in s.measures)]
    body = [
        _tr(name, s.baseline, _td("n_queries", counts[name]) + "".join(
            _td(m, rows[name, m]["mean"], _mark(rows[name, m])) for m in s.measures))
        for name in report.order
    ]  # fmt: skip
    legend_ = f'<p class="legend">{html.escape(legend(report))}</p>'
    return _section("summary", _table("summary-table", head, body), legend_)


def _figure(png: bytes, alt: str, caption: str = "") -> str:
    from polars_graded.report_charts import data_uri

    text = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
    return f'<figure><img src="{data_uri(png)}" alt="{html.escape(alt)}">{text}</figure>'


def _html_measures(report: Report) -> str:
    from polars_graded.report_charts import measure_bars

    s = report.settings
    bars = [
        _figure(measure_bars(report.comparison, m, report.order, s.confidence), f"{m} per system")
        for m in s.measures
    ]
    caption = (
        f"Mean per system with its {s.confidence:.0%} bootstrap interval; dashed line: the "
        f"baseline's mean. Grey: the baseline; blue {BETTER} / orange {WORSE}: significantly "
        "better / worse than it; light blue: no significant difference."
    )
    return _section("measures", f'<div class="grid">{"".join(bars)}</div>',
                    f"<figcaption>{html.escape(caption)}</figcaption>")  # fmt: skip


def _html_thresholds(report: Report) -> str:
    from polars_graded.report_charts import threshold_curves, threshold_lines

    frame = threshold_table(report)
    notes = threshold_notes(report)
    figures = [
        _figure(
            threshold_lines(frame, report.order),
            "MAP per threshold and µMAP",
            "MAP at each threshold shown and the two µMAPs per system (the left half of "
            "Fig. 6 of Scheel et al. 2011).",
        )
    ]
    if _capped(report.thresholds["threshold"]):
        curves = threshold_curves(report.thresholds.rename({report.system: "system"}), report.order)
        figures.append(_figure(curves, "MAP at every threshold", "MAP at every threshold."))
    head = [(c, frame.schema[c].is_numeric()) for c in frame.columns]
    body = [
        _tr(row[0], report.settings.baseline, "".join(
            _td(c, v) for c, v in zip(frame.columns[1:], row[1:], strict=True)))
        for row in frame.iter_rows()
    ]  # fmt: skip
    table = _table("threshold-table", head, body)
    legend_ = [f'<p class="legend">{html.escape(line)}</p>' for line in notes]
    return _section("thresholds", *figures, table, *legend_)


def _html_differences(report: Report) -> str:
    from polars_graded.report_charts import differences

    s = report.settings
    figures = [
        _figure(
            differences(paired_differences(report, m), m, report.order, report.comparison),
            f"per-query differences of {m}",
            f"{m}: per query, each system's value minus {s.baseline}'s, sorted; "
            "blue: better than the baseline, orange: worse.",
        )
        for m in s.differences
    ]
    return _section("differences", *figures)


def _html_tests(report: Report) -> str:
    s, rows = report.settings, _comparison_rows(report)
    head = [("system", False), *((t, True) for t in _TEST_COLUMNS.values()), ("", False)]
    body = []
    for m in s.measures:
        body.append(f'<tr class="group"><th colspan="{len(head)}">{html.escape(m)}</th></tr>')
        body += [
            _tr(name, s.baseline, "".join(_td(c, rows[name, m][c]) for c in _TEST_COLUMNS)
                + f"<td>{_mark(rows[name, m])}</td>", f' data-measure="{html.escape(m)}"')
            for name in report.order
        ]  # fmt: skip
    legend_ = f'<p class="legend">{html.escape(legend(report))}</p>'
    return _section("details", legend_, _table("tests-table", head, body, "compact"))


def _html_ties(report: Report) -> str:
    """The tie lines around one table: a block of rows per :func:`_tie_chunks` of the
    measures, each with its own two header rows (measure, then rule / average / Δ)."""
    lines = tie_lines(report)
    if len(lines) == 1:
        return _section("ties", f"<p>{html.escape(lines[0])}</p>")
    s, esc = report.settings, html.escape
    rule = tie_rule(s.ties)
    parts = ((rule, rule, fmt), ("average", "average", fmt), ("diff", "Δ", fmt_diff))
    systems = _tie_rows(report)
    blocks = []
    for first, last in _tie_chunks(len(s.measures)):
        measures = s.measures[first:last]
        spans = "".join(f'<th colspan="3" class="start">{esc(m)}</th>' for m in measures)
        head = [("system", False), ("tied share", True)]
        head += [(label, True) for _ in measures for _, label, _ in parts]
        rows = [
            f'<tr class="span"><th></th><th></th>{spans}</tr>',
            f'<tr class="head">{_head_cells(head)}</tr>',
        ]
        for name, mine in systems:
            cells = _td("tied_share", mine[0]["tied_share"])
            for row in mine[first:last]:
                cells += "".join(
                    _td(f"{row['measure']} {label}", row[key], text=show(row[key]),  # type: ignore[arg-type]
                        css="start" if key == rule else "")
                    for key, label, show in parts
                )  # fmt: skip
            rows.append(_tr(name, s.baseline, cells))
        blocks.append("<tbody>\n" + "\n".join(rows) + "\n</tbody>")
    table = (
        '<div class="wide"><table id="ties-table" class="compact">\n'
        + "\n".join(blocks)
        + "</table></div>"
    )
    legend_ = [f'<p class="legend">{esc(line)}</p>' for line in lines]
    return _section("ties", legend_[0], table, *legend_[1:])


def _html_data(report: Report) -> str:
    items = "".join(f"<li>{html.escape(line)}</li>" for line in _describe_lines(report))
    frame = pl.DataFrame({"system": list(report.order)}).join(
        report.description.per_system, on="system", how="left", maintain_order="left"
    )
    head = [(c.replace("_", " "), frame.schema[c].is_numeric()) for c in frame.columns]
    body = [
        _tr(row[0], report.settings.baseline, "".join(
            _td(c, v) for c, v in zip(frame.columns[1:], row[1:], strict=True)))
        for row in frame.iter_rows()
    ]  # fmt: skip
    return _section("data", f"<ul>{items}</ul>", _table("systems-table", head, body))
