"""µAP (polars_graded/measures/mu_ap.py) by hand: the AP at each relevance level, weighed by
the distance of the level from the one below (conventions §3-4; Scheel et al. 2011), on the query's
own levels, the table's, given levels and with a cutoff.

The pair sweep under ``ties="average"`` is test_measures_kernels_mu_ap_sweep's, the breakdown by
threshold test_measures_kernels_mu_ap_thresholds'; the paper's µAP of 0.448 is test_paper_tables'.
"""

from __future__ import annotations

import polars as pl
import pytest

TOL = 1e-15


def ranked_table(rankings: dict[int, list[float]]) -> pl.DataFrame:
    """Each query's labels in ranked order (scores n..1), every row judged and retrieved."""
    rows = [
        (query, f"d{i}", float(len(labels) - i), label)
        for query, labels in rankings.items()
        for i, label in enumerate(labels)
    ]
    schema = {"query": pl.Int64, "item": pl.String, "score": pl.Float64, "relevance": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


def test_mu_ap_by_hand() -> None:
    """Query 1 ranks labels 3, 0, 1, 3; its levels are {1, 3}, at distances 1 and 2.

    AP^1: relevant at 1, 3, 4 of R = 3: (1 + 2/3 + 3/4) / 3 = 29/36. AP^3: at 1 and 4 of
    R = 2: (1 + 2/4) / 2 = 3/4. µAP = (1 * 29/36 + 2 * 3/4) / 3 = 83/108.
    levels=[2, 3] (distances 2, 1): AP^2 = AP^3 = 3/4, so µAP = 3/4. The table's levels
    add query 2's 5: distances 1, 2, 2 and AP^5 = 0 for query 1: (29/36 + 3/2) / 5 = 83/180.
    µAP@2: AP^1@2 = 1/3, AP^3@2 = 1/2: (1/3 + 2 * 1/2) / 3 = 4/9.
    """
    df = ranked_table({1: [3, 0, 1, 3], 2: [5, 0]})
    measures = ["mu_ap", "mu_ap(levels=[2,3])", "mu_ap(levels=table)", "mu_ap@2"]
    got = df.graded.evaluate(measures).row(0, named=True)
    assert got["mu_ap"] == pytest.approx(83 / 108, abs=TOL)
    assert got["mu_ap(levels=[2,3])"] == pytest.approx(3 / 4, abs=TOL)
    assert got["mu_ap(levels=table)"] == pytest.approx(83 / 180, abs=TOL)
    assert got["mu_ap@2"] == pytest.approx(4 / 9, abs=TOL)


def test_the_papers_distance_example() -> None:
    """conventions §5: levels {0.0, 0.3, 1.0} weigh AP^0.3 by 0.3 and AP^1.0 by 0.7 (0 is no level).

    Labels 1.0, 0.0, 0.3 ranked: AP^0.3 = (1 + 2/3) / 2 = 5/6, AP^1.0 = 1, so
    µAP = 0.3 * 5/6 + 0.7 * 1 = 0.95.
    """
    df = ranked_table({1: [1.0, 0.0, 0.3]})
    assert df.graded.mu_ap()["mu_ap"][0] == pytest.approx(0.95, abs=TOL)


def test_a_query_without_levels_scores_zero() -> None:
    df = ranked_table({1: [0, -1, 0], 2: [1, 0]})
    assert df.graded.mu_ap()["mu_ap"].to_list() == [0.0, 1.0]
