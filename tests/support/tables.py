"""Long tables the tests build, and the checks every output must pass.

- :class:`FrameKind`: a DataFrame or a LazyFrame, as the user hands it over (the fixture
  ``frame_kind`` runs a test on both).
- :func:`make_random_table`: the suite's one seeded random long table (the fixture
  ``random_table``), with :func:`random_labels` and :func:`random_scores`.
- :func:`write_small_table`: a small Parquet table on disk.
- :func:`rankings`, :func:`assert_one_row_per_ranking`, :func:`assert_finite`: the contract
  of an output, decided in Python from the rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl


@dataclass(frozen=True)
class FrameKind:
    """One way a user hands a table to the library: ``"eager"`` or ``"lazy"``."""

    name: str

    def __call__(self, df: pl.DataFrame) -> Any:
        """``df`` as this kind hands it over. Typed Any, not ``DataFrame | LazyFrame``: the
        kind is known at run time only, and ``pg.evaluate`` and its siblings take a frame
        through a constrained type variable, which a union cannot bind."""
        return df if self.name == "eager" else df.lazy()

    def collect(self, result: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
        """The result as a DataFrame; a LazyFrame in must give a LazyFrame out."""
        expected = pl.DataFrame if self.name == "eager" else pl.LazyFrame
        assert isinstance(result, expected), f"{self.name} input gave a {type(result).__name__}"
        return result if isinstance(result, pl.DataFrame) else result.collect()


# --------------------------------------------------------------------------- the random table

LABEL_KINDS = ("few", "many", "continuous", "pool")
"""How a query's labels are drawn (see :func:`random_labels`)."""
SCORE_KINDS = ("ties", "float", "float32_ties", "mixed")
"""How a ranking's scores are drawn (see :func:`random_scores`)."""
Ranking = tuple[Any, ...]
"""The key of a ranking: its ``by`` values and its query."""


def random_labels(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    """``n`` labels of one query: ``"few"`` (-2..4, mostly 0 and 1), ``"many"`` (-2..59:
    up to 60 levels), ``"continuous"`` (uniform in [-0.5, 4], 1 to 5 decimals) or ``"pool"``
    (repeats from up to 60 arbitrary floats, 0 and -1)."""
    if kind == "few":
        return rng.choice([-2, -1, 0, 0, 0, 1, 1, 2, 3, 4], size=n).astype(float)
    if kind == "many":
        return rng.integers(-2, 60, size=n).astype(float)
    if kind == "continuous":
        return np.round(rng.uniform(-0.5, 4.0, size=n), int(rng.integers(1, 6)))
    pool = np.concatenate([[0.0, -1.0], rng.uniform(0.001, 7.0, size=int(rng.integers(1, 60)))])
    return rng.choice(pool, size=n)


def random_scores(rng: np.random.Generator, n: int, kind: str) -> np.ndarray:
    """``n`` scores of one ranking: ``"ties"`` (steps of 0.5 in [0, 2.5]), ``"float"``
    (normal), ``"float32_ties"`` (distinct as float64, equal as float32: 1000 + j * 1e-9 or
    100 + j * 1e-6, conventions §2; ties under ``compat="trec_eval_9"`` only, distinct scores by
    default) or ``"mixed"`` (each row one of the three)."""
    ties = rng.integers(0, 6, size=n) * 0.5
    base, step = [(1000.0, 1e-9), (100.0, 1e-6)][int(rng.integers(0, 2))]
    float32_ties = base + rng.integers(0, 2, size=n) + rng.integers(0, 4, size=n) * step
    normal = rng.normal(0, 10, size=n)
    if kind == "ties":
        return ties
    if kind == "float":
        return normal
    if kind == "float32_ties":
        return float32_ties
    return np.choose(rng.integers(0, 3, size=n), [ties, float32_ties, normal])


def _judgments(
    rng: np.random.Generator, n: int, *, kind: str, int_labels: bool, no_relevant: bool
) -> tuple[np.ndarray, np.ndarray]:
    """A query's labels and which of its rows are judged (a share of 0, 0.5, 0.8 or 1)."""
    labels = random_labels(rng, n, kind)
    if int_labels:
        labels = np.round(labels)
    if no_relevant:
        labels = np.minimum(labels, 0.0)
    share = rng.choice([0.0, 0.5, 0.8, 1.0], p=[0.08, 0.2, 0.52, 0.2])
    return labels, rng.random(n) < share


def make_random_table(
    seed: int | np.random.Generator,
    *,
    systems: int = 0,
    queries: int = 6,
    max_items: int = 30,
    string_items: bool = True,
    string_queries: bool = True,
    int_labels: bool = False,
    label_kinds: Sequence[str] = ("few", "continuous"),
    shared_judgments: bool = True,
    trec_eval_safe: bool = False,
) -> pl.DataFrame:
    """The suite's random long table (conventions §1), seeded: every case the measures and the
    references have an opinion on.

    Per query: 1 to ``max_items`` items; labels of a kind drawn from ``label_kinds`` (see
    :func:`random_labels`; rounded with ``int_labels``), about 12% of queries without a
    relevant row, and a judged share of 0 (a query nobody judged), 0.5, 0.8 or 1. Per
    system and query: scores of a kind of :data:`SCORE_KINDS` (exact ties, float32-only
    ties that only ``compat="trec_eval_9"`` sees, ordinary floats) and a retrieved share of
    0 (the system returned nothing), 0.3, 0.75, 0.9 or 1; a row neither judged nor
    retrieved is no row. So the table holds unretrieved judged rows (null score), unjudged
    retrieved rows (null relevance) and negative labels.

    Columns: ``system`` (String ``s0``, ``s1``, ..., first, only when ``systems >= 1``),
    ``query`` (String ``q<id>`` or Int64), ``item`` (String ``d<id>``, so that ``d7 > d10``,
    or Int64), ``score`` (Float64), ``relevance`` (Float64, or Int64 with ``int_labels``).
    With ``shared_judgments`` every system has the same copy of a query's judgments (the
    TREC shape); without, each its own. ``trec_eval_safe`` keeps a judged label >= 0 in
    every judged query (trec_eval misbehaves on a query whose labels are all below -1).
    """
    rng = np.random.default_rng(seed)
    rows: list[tuple[str, str | int, str | int, float | None, float | None]] = []
    for q in rng.choice(max(500, 4 * queries), size=queries, replace=False):
        n = int(rng.integers(1, max_items + 1))
        items = rng.choice(max(10 * max_items, 2000), size=n, replace=False)
        kind = str(rng.choice(list(label_kinds)))
        no_relevant = bool(rng.random() < 0.12)

        def judge(
            n: int = n, kind: str = kind, no_relevant: bool = no_relevant
        ) -> tuple[np.ndarray, np.ndarray]:
            labels, judged = _judgments(
                rng, n, kind=kind, int_labels=int_labels, no_relevant=no_relevant
            )
            if trec_eval_safe and judged.any() and labels[judged].max() < -1:
                labels[np.flatnonzero(judged)[0]] = 0.0
            return labels, judged

        common = judge()
        for s in range(max(systems, 1)):
            labels, judged = common if shared_judgments else judge()
            scores = random_scores(rng, n, str(rng.choice(SCORE_KINDS)))
            share = rng.choice([0.0, 0.3, 0.75, 0.9, 1.0], p=[0.05, 0.1, 0.4, 0.3, 0.15])
            retrieved = rng.random(n) < share
            for item, label, j, score, r in zip(
                items, labels, judged, scores, retrieved, strict=True
            ):
                if j or r:  # neither judged nor retrieved: no row
                    rows.append(
                        (
                            f"s{s}",
                            f"q{q}" if string_queries else int(q),
                            f"d{item}" if string_items else int(item),
                            float(score) if r else None,
                            float(label) if j else None,
                        )
                    )
    df = pl.DataFrame(
        rows,
        schema={
            "system": pl.String,
            "query": pl.String if string_queries else pl.Int64,
            "item": pl.String if string_items else pl.Int64,
            "score": pl.Float64,
            "relevance": pl.Float64,
        },
        orient="row",
    )
    if int_labels:
        df = df.with_columns(pl.col("relevance").cast(pl.Int64))
    return df if systems else df.drop("system")


# --------------------------------------------------------------------------- the contract


def rankings(df: pl.DataFrame, keys: Sequence[str]) -> set[Ranking]:
    """The rankings of a table: each distinct ``by + [query]`` with at least one row,
    computed in Python (not with the Polars operations the library uses)."""
    return set(df.select(keys).rows()) if df.height else set()


def assert_one_row_per_ranking(
    out: pl.DataFrame, keys: Sequence[str], expected: set[Ranking], what: str
) -> None:
    """``out`` has exactly one row per expected ranking, and no other row."""
    got = Counter(out.select(list(keys)).rows())
    repeated = [k for k, n in got.items() if n > 1]
    assert not repeated, f"{what}: rankings repeated in the output: {repeated[:5]}"
    missing = expected - set(got)
    extra = set(got) - expected
    assert not missing and not extra, (
        f"{what}: {len(got)} output rows for {len(expected)} rankings; "
        f"missing {sorted(missing, key=repr)[:5]}, extra {sorted(extra, key=repr)[:5]}"
    )


def assert_finite(out: pl.DataFrame, columns: Sequence[str], what: str) -> None:
    """Every value of ``columns`` is a number: not null, NaN or infinite."""
    for name in columns:
        values = out.get_column(name)
        bad = values.is_null() | ~values.cast(pl.Float64).is_finite()
        assert not bad.any(), (
            f"{what}: column {name!r} holds {values.filter(bad).head(5).to_list()} "
            f"(rows {out.filter(bad).head(3).rows()})"
        )


def write_small_table(path: Path) -> Path:
    """A 200-row Parquet table at ``path``: 20 queries of 10 items, graded labels 0-2."""
    pl.DataFrame(
        {
            "query": [i // 10 for i in range(200)],
            "item": [f"d{i % 10}" for i in range(200)],
            "score": [float(i % 7) for i in range(200)],
            "relevance": [i % 3 for i in range(200)],
        }
    ).write_parquet(path)
    return path


RENAMED_COLUMNS: dict[str, Any] = {
    "query": "qid",
    "item": "docno",
    "score": "sim",
    "relevance": "judgment",
}
"""The table options for :func:`renamed_table`: columns named as TREC tools name them."""


def renamed_table() -> pl.DataFrame:
    """Two queries, five rows (one unjudged) in the columns of :data:`RENAMED_COLUMNS`."""
    return pl.DataFrame(
        {
            "qid": [1, 1, 1, 2, 2],
            "docno": ["a", "b", "c", "d", "e"],
            "sim": [3.0, 2.0, 1.0, 2.0, 1.0],
            "judgment": [1, 0, 2, 1, None],
        }
    )
