"""Hypothesis strategies for long (query, item, score, relevance) tables.

A drawn table follows SPEC.md §1: one row per (by..., query, item); ``score`` null means
judged but not retrieved, ``relevance`` null means retrieved but unjudged (never both null,
as after a run/qrels full outer join).
"""

from __future__ import annotations

import polars as pl
from hypothesis import strategies as st

# integer labels with a spam level (-2), the non-relevant 0 and several relevant levels
INT_LABELS = st.integers(min_value=-2, max_value=6)
# continuous labels; multiples of 1/8 stay distinct as float32, so they can double as scores
CONTINUOUS_LABELS = st.integers(min_value=-8, max_value=48).map(lambda x: x / 8)
BINARY_LABELS = st.integers(min_value=0, max_value=1)

# scores with many ties (small integers), float32 ties and ordinary floats
SCORES = st.one_of(
    st.integers(min_value=0, max_value=4).map(float),
    st.sampled_from([1000.0, 1000.0 + 1e-9, 1000.0 + 2e-9, 1000.0001]),
    st.floats(min_value=-50, max_value=50, allow_nan=False, allow_infinity=False),
)


def label_strategy(kind: str) -> st.SearchStrategy:
    return {"int": INT_LABELS, "continuous": CONTINUOUS_LABELS, "binary": BINARY_LABELS}[kind]


@st.composite
def query_rows(
    draw,
    *,
    labels: st.SearchStrategy,
    max_items: int,
    n_systems: int,
    null_score: bool,
    null_relevance: bool,
    shared_judgments: bool,
):
    """Rows of one query (at least one: a query exists through its rows), per system."""
    items = draw(
        st.lists(
            st.integers(min_value=0, max_value=99), unique=True, min_size=1, max_size=max_items
        )
    )

    def one_label():
        if null_relevance and draw(st.integers(0, 4)) == 0:
            return None
        return draw(labels)

    def one_score(label):
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
    draw,
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
    columns: dict[str, list] = {"system": [], "query": [], "item": [], "score": [], "relevance": []}
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
def perfect_tables(draw, *, labels: str = "int", max_queries: int = 4, max_items: int = 10):
    """Every row judged and retrieved, score = relevance: a perfect ranking (SPEC §6)."""
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
