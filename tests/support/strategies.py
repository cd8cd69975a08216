"""Hypothesis strategies for valid long (query, item, score, relevance) tables.

A drawn table follows conventions.md §1: one row per (by..., query, item); ``score`` null means
judged but not retrieved, ``relevance`` null means retrieved but unjudged (never both null,
as after a run/qrels full outer join). :func:`long_tables` draws every kind of label,
:func:`perfect_tables` perfect rankings, :func:`tied_tables` heavy score ties (for the tie
policies). The seeded numpy table is in :mod:`support.tables`, tables of random dtypes and
hostile values in :mod:`support.hostile_tables`.
"""

from __future__ import annotations

from typing import Any

import polars as pl
from hypothesis import strategies as st

# integer labels with a spam level (-2), the non-relevant 0 and several relevant levels
INT_LABELS = st.integers(min_value=-2, max_value=6)
# continuous labels; multiples of 1/8 stay distinct also as float32, so they can double as
# scores under either release's comparison (conventions §2)
CONTINUOUS_LABELS = st.integers(min_value=-8, max_value=48).map(lambda x: x / 8)
BINARY_LABELS = st.integers(min_value=0, max_value=1)

# scores with many ties (small integers), float32-only ties (1000 + 1e-9 and 1000 tie under
# compat="trec_eval_9", not under the default float64 comparison) and ordinary floats
SCORES = st.one_of(
    st.integers(min_value=0, max_value=4).map(float),
    st.sampled_from([1000.0, 1000.0 + 1e-9, 1000.0 + 2e-9, 1000.0001]),
    st.floats(min_value=-50, max_value=50, allow_nan=False, allow_infinity=False),
)


Label = float | int | None
"""A drawn relevance label; None is an unjudged row."""
Row = tuple[int, float | None, Label]
"""A drawn row of one system: (item, score, label)."""


def label_strategy(kind: str) -> st.SearchStrategy[float]:
    return {"int": INT_LABELS, "continuous": CONTINUOUS_LABELS, "binary": BINARY_LABELS}[kind]


@st.composite
def query_rows(
    draw: st.DrawFn,
    *,
    labels: st.SearchStrategy[float],
    max_items: int,
    n_systems: int,
    null_score: bool,
    null_relevance: bool,
    shared_judgments: bool,
) -> list[list[Row]]:
    """Rows of one query (at least one: a query exists through its rows), per system."""
    items = draw(
        st.lists(
            st.integers(min_value=0, max_value=99), unique=True, min_size=1, max_size=max_items
        )
    )

    def one_label() -> Label:
        if null_relevance and draw(st.integers(0, 4)) == 0:
            return None
        return draw(labels)

    def one_score(label: Label) -> float | None:
        if null_score and label is not None and draw(st.integers(0, 3)) == 0:
            return None
        return draw(SCORES)

    shared = [one_label() for _ in items]
    per_system = []
    for _ in range(n_systems):
        judgments = shared if shared_judgments else [one_label() for _ in items]
        per_system.append(
            [(it, one_score(lab), lab) for it, lab in zip(items, judgments, strict=True)]
        )
    return per_system


@st.composite
def long_tables(
    draw: st.DrawFn,
    *,
    labels: str | None = None,
    max_queries: int = 4,
    max_items: int = 10,
    systems: int | None = None,
    null_score: bool = True,
    null_relevance: bool = True,
    shared_judgments: bool = True,
    string_items: bool | None = None,
) -> pl.DataFrame:
    """A long table; with ``systems`` (>= 1) it has a ``system`` column (Int64)."""
    kind = labels if labels is not None else draw(st.sampled_from(["int", "continuous"]))
    label_values = label_strategy(kind)
    n_systems = systems or 1
    if string_items is None:
        string_items = draw(st.booleans())
    n_queries = draw(st.integers(min_value=1, max_value=max_queries))
    query_ids = draw(
        st.lists(
            st.integers(min_value=-5, max_value=1000),
            unique=True,
            min_size=n_queries,
            max_size=n_queries,
        )
    )
    columns: dict[str, list[Any]] = {
        "system": [],
        "query": [],
        "item": [],
        "score": [],
        "relevance": [],
    }
    for q in query_ids:
        per_system = draw(
            query_rows(
                labels=label_values,
                max_items=max_items,
                n_systems=n_systems,
                null_score=null_score,
                null_relevance=null_relevance,
                shared_judgments=shared_judgments,
            )
        )
        for s, rows in enumerate(per_system):
            for item, score, rel in rows:
                columns["system"].append(s)
                columns["query"].append(q)
                columns["item"].append(f"d{item}" if string_items else item)
                columns["score"].append(score)
                columns["relevance"].append(rel)
    rel_dtype = pl.Int64 if kind in ("int", "binary") else pl.Float64
    df = pl.DataFrame(
        columns,
        schema={
            "system": pl.Int64,
            "query": pl.Int64,
            "item": pl.String if string_items else pl.Int64,
            "score": pl.Float64,
            "relevance": rel_dtype,
        },
    )
    return df if systems else df.drop("system")


@st.composite
def perfect_tables(
    draw: st.DrawFn, *, labels: str = "int", max_queries: int = 4, max_items: int = 10
) -> pl.DataFrame:
    """Every row judged and retrieved, score = relevance: a perfect ranking (conventions §6)."""
    df = draw(
        long_tables(
            labels=labels,
            max_queries=max_queries,
            max_items=max_items,
            null_score=False,
            null_relevance=False,
        )
    )
    return df.with_columns(score=pl.col("relevance").cast(pl.Float64))


# --- heavy ties ------------------------------------------------------------------------------

TiedTable = tuple[pl.DataFrame, list[str]]
"""A table of :func:`tied_tables` and its ``by`` columns."""

# few distinct scores: heavy ties; 2.0 + 1e-9 equals 2.0 as float32 only (conventions §2): it ties
# with 2.0 under compat="trec_eval_9", and ranks just above it by default (float64)
TIED_SCORES = st.sampled_from([1.0, 2.0, 2.0, 2.0 + 1e-9, 3.0])
TIED_INT_LABELS = st.sampled_from([-2, 0, 0, 1, 1, 2, 3])
TIED_HALF_LABELS = st.sampled_from([-1.0, 0.0, 0.5, 1.0, 1.5, 2.5])


@st.composite
def tied_tables(draw: st.DrawFn, *, max_items: int = 8, tied: bool = True) -> TiedTable:
    """A long table with heavy score ties and its ``by`` columns (``["system"]`` or none).

    The systems mostly share the judgments of a query (conventions §1), so that the table levels
    of ``mu_ap(levels=table)`` differ between by groups only sometimes; some labels are
    null (retrieved but unjudged), some negative; some judged rows have a null score (not
    retrieved); some queries have no relevant row. The rows come in a random order (which
    ``"input"`` sees). With ``tied=False`` the scores of each (system, query) are
    distinct, as float64 and as float32 (under either ``compat``).
    """
    n_systems = draw(st.integers(1, 2))
    by = ["system"] if n_systems > 1 or draw(st.booleans()) else []
    shared = draw(st.integers(0, 3)) > 0  # mostly, the systems share the judgments
    labels = draw(st.sampled_from([TIED_INT_LABELS, TIED_HALF_LABELS]))
    float_labels = labels is TIED_HALF_LABELS
    string_items = draw(st.booleans())
    queries = draw(st.lists(st.integers(0, 50), min_size=1, max_size=3, unique=True))
    rows = []
    for q in queries:
        items = draw(st.lists(st.integers(0, 30), min_size=1, max_size=max_items, unique=True))
        no_relevant = draw(st.integers(0, 5)) == 0

        def judge(items: list[int] = items, no_relevant: bool = no_relevant) -> list[Label]:
            judgments = []
            for _ in items:
                label = None if draw(st.integers(0, 4)) == 0 else draw(labels)
                if no_relevant and label is not None:
                    label = min(label, 0)
                judgments.append(label)
            return judgments

        common = judge()
        for s in range(n_systems):
            judgments = common if shared else judge()
            distinct = draw(st.permutations(range(len(items))))
            for i, (it, label) in enumerate(zip(items, judgments, strict=True)):
                if label is not None and draw(st.integers(0, 4)) == 0:
                    score = None  # judged, not retrieved
                elif tied:
                    score = draw(TIED_SCORES)
                else:
                    score = float(distinct[i])
                rows.append((s, q, f"d{it:02d}" if string_items else it, score, label))
    order = draw(st.permutations(range(len(rows))))
    rows = [rows[i] for i in order]
    df = pl.DataFrame(
        rows,
        schema={
            "system": pl.Int64,
            "query": pl.Int64,
            "item": pl.String if string_items else pl.Int64,
            "score": pl.Float64,
            "relevance": pl.Float64 if float_labels else pl.Int64,
        },
        orient="row",
    )
    return (df, by) if by else (df.drop("system"), by)
