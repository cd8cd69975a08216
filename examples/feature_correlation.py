"""How alike are the paper's two virtual users? Features 1 and 9 of LETOR 3.0 OHSUMED.

Scheel, Lommatzsch and Albayrak (SPIM 2011, §2.2) take two OHSUMED ranking features as
"virtual users" whose values serve as relevance labels: feature 1 (TF of the title, 9
levels in their data) and feature 9 (TF-IDF of the title, 158 levels). They report a
Pearson correlation of 0.96 between the two. The paper does not say over which rows; the
natural reading, used here, is every query-document pair of the collection (the 106
queries, 16,140 pairs) on the raw feature values. For context the script also prints the
correlation per fold, the mean over queries of the per-query correlation, the same on the
per-query min-max normalised variant, and the levels (distinct values) of both features.

Data
    ``../shared/data/letor3-ohsumed`` beside the repository (``--data DIR`` elsewhere), as
    ``examples/ohsumed.py`` reads it. Features 1 and 9 have no undefined values, so the
    ``Feature-min`` and ``Feature-null`` variants hold the same raw values for them.

Run::

    python examples/feature_correlation.py
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import polars as pl

PROG = "feature_correlation.py"
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "letor3-ohsumed"
PAPER_PEARSON = 0.96
"""The paper's Pearson correlation between features 1 and 9 (two decimals)."""
PAPER_LEVELS = {"f1": 9, "f9": 158}
"""The numbers of relevance levels the paper gives for the two virtual users."""


def read_variant(data: Path, variant: str) -> pl.DataFrame:
    """``qid``, ``test_fold``, ``f1`` and ``f9`` of one LETOR variant's 16,140 rows."""
    path = data / f"{variant}.all.parquet"
    if not path.is_file():
        msg = f"no OHSUMED data at {path} (LETOR 3.0; pass --data DIR)"
        raise FileNotFoundError(msg)
    return pl.read_parquet(path, columns=["qid", "test_fold", "f1", "f9"])


def correlations(raw: pl.DataFrame, normalised: pl.DataFrame) -> pl.DataFrame:
    """Pearson's r between features 1 and 9 over several sets of rows, one row each.

    Examples
    --------
    >>> t = pl.DataFrame({"qid": [1, 1, 2, 2], "test_fold": [1, 1, 2, 2],
    ...                   "f1": [0.0, 1.0, 0.0, 2.0], "f9": [0.0, 2.0, 0.0, 4.0]})
    >>> correlations(t, t)["pearson"].round(6).to_list()
    [1.0, 1.0, 1.0, 1.0, 1.0]
    """
    r = pl.corr("f1", "f9")
    folds = raw.group_by("test_fold").agg(pl.len(), r).sort("test_fold")
    per_query = raw.group_by("qid").agg(r)["f1"].mean()
    normalised_r = normalised.select(r).item()
    rows = [
        ("all rows, raw values (Feature-min)", raw.height, raw.select(r).item()),
        *((f"fold {fold} test rows, raw", n, value) for fold, n, value in folds.iter_rows()),
        ("mean over queries of the per-query r, raw", raw["qid"].n_unique(), per_query),
        ("all rows, min-max per query (QueryLevelNorm)", normalised.height, normalised_r),
    ]
    return pl.DataFrame(rows, schema=["rows", "n", "pearson"], orient="row")


def levels(raw: pl.DataFrame) -> pl.DataFrame:
    """Distinct values of features 1 and 9: in the table, positive ones, most in one query."""
    rows = []
    for feature in ("f1", "f9"):
        positive = raw.filter(pl.col(feature) > 0)
        per_query = positive.group_by("qid").agg(pl.col(feature).n_unique())[feature]
        rows.append(
            (
                feature,
                raw[feature].n_unique(),
                positive[feature].n_unique(),
                per_query.max(),
                PAPER_LEVELS[feature],
            )
        )
    schema = ["feature", "distinct", "positive", "most_positive_in_a_query", "paper_levels"]
    return pl.DataFrame(rows, schema=schema, orient="row")


def main(argv: Sequence[str] | None = None) -> int:
    """Print the correlations and the levels; 1 when the data is missing."""
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="letor3-ohsumed folder")
    args = parser.parse_args(argv)
    try:
        raw = read_variant(args.data, "Feature-min")
        normalised = read_variant(args.data, "QueryLevelNorm")
    except FileNotFoundError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 1
    with pl.Config(
        tbl_rows=20, float_precision=3, fmt_str_lengths=60, tbl_hide_dataframe_shape=True
    ):
        print("Pearson's r between feature 1 (TF of title) and feature 9 (TF-IDF of title):")
        print(correlations(raw, normalised))
        print("Levels of the two virtual users:")
        print(levels(raw))
    ours = round(raw.select(pl.corr("f1", "f9")).item(), 3)
    verdict = "matches" if round(ours, 2) == PAPER_PEARSON else "does not match"
    print(f"All rows, raw values: r = {ours:.3f}, which {verdict} the paper's {PAPER_PEARSON}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
