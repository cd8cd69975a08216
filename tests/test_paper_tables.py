"""Every printed number of conventions.md §5 (Scheel et al. 2011, Tables 1 and 2, and the text).

Items A..H are in ranked order, so they get scores 8..1. Values are compared at the paper's
printed precision: the library's value, rounded to the printed digits, must print the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import polars as pl
import pytest
from support.oracle import RefQuery

import polars_graded as pg

REL = [1, 0, 3, 3, 2, 0, 1, 4]
ITEMS = list("ABCDEFGH")


def paper_table(
    labels: Sequence[float] = REL, *, scores: Sequence[float] | None = None
) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "query": [1] * len(labels),
            "item": ITEMS[: len(labels)],
            "score": [float(8 - i) for i in range(len(labels))] if scores is None else scores,
            "relevance": labels,
        }
    )


def only_value(result: pl.DataFrame, column: str) -> float:
    assert result.columns == ["query", column]
    assert result.height == 1
    assert result.schema[column] == pl.Float64
    value: float = result[column][0]
    return value


def printed(value: float, digits: int) -> str:
    return f"{value:.{digits}f}"


# --- Table 1: AP at every threshold, µAP ------------------------------------------------

TABLE_1 = {5: "0.000", 4: "0.125", 3: "0.403", 2: "0.483", 1: "0.780", 0: "1.000"}


def ap_at(t: int) -> float:
    """AP^t of the paper's ranking. The paper's t=0 counts every judged item as relevant;
    the library never counts a label <= 0 as relevant, so AP^0 is AP^1 on the labels + 1."""
    if t == 0:
        return only_value(paper_table([label + 1 for label in REL]).graded.ap(), "ap")
    name = "ap" if t == 1 else f"ap(rel={t})"
    return only_value(paper_table().graded.ap(rel=t), name)


@pytest.mark.parametrize(("t", "expected"), sorted(TABLE_1.items()))
def test_ap_at_threshold(t: int, expected: str) -> None:
    assert printed(ap_at(t), 3) == expected


def test_ap_at_threshold_zero_counts_every_judged_row() -> None:
    # AP^0: every item (labels >= 0) is relevant and all eight are ranked -> exactly 1.
    assert ap_at(0) == pytest.approx(1.0)


@pytest.mark.parametrize("t", [0, -1, -0.5])
def test_a_threshold_at_or_below_zero_is_refused(t: float) -> None:
    with pytest.raises(pg.MeasureParameterError, match="> 0"):
        paper_table().graded.ap(rel=t)
    with pytest.raises(pg.MeasureParameterError, match="> 0"):
        paper_table().graded.evaluate([f"ap(rel={t})"])


def test_ap_at_threshold_from_evaluate_names() -> None:
    result = paper_table().graded.evaluate([f"ap(rel={t})" for t in range(1, 6)])
    # rel=1 is the default, so its canonical name is plain "ap"
    names = {t: "ap" if t == 1 else f"ap(rel={t})" for t in range(1, 6)}
    assert result.columns == ["query", *names.values()]
    got = {t: printed(result[name][0], 3) for t, name in names.items()}
    assert got == {t: v for t, v in TABLE_1.items() if t > 0}


def test_mu_ap() -> None:
    assert printed(only_value(paper_table().graded.mu_ap(), "mu_ap"), 3) == "0.448"


def test_mu_ap_exact() -> None:
    # µAP = (AP^1 + AP^2 + AP^3 + AP^4) / 4, every distance 1; exact fractions by hand.
    ap1 = (
        Fraction(1, 1)
        + Fraction(2, 3)
        + Fraction(3, 4)
        + Fraction(4, 5)
        + Fraction(5, 7)
        + Fraction(6, 8)
    ) / 6
    ap2 = (Fraction(1, 3) + Fraction(2, 4) + Fraction(3, 5) + Fraction(4, 8)) / 4
    ap3 = (Fraction(1, 3) + Fraction(2, 4) + Fraction(3, 8)) / 3
    ap4 = Fraction(1, 8)
    expected = float((ap1 + ap2 + ap3 + ap4) / 4)
    df = paper_table()
    assert only_value(df.graded.mu_ap(), "mu_ap") == pytest.approx(expected, abs=1e-12)
    # the same levels given explicitly, or as the (one-query) table's levels
    assert only_value(df.graded.mu_ap(levels=[1, 2, 3, 4]), "mu_ap(levels=[1,2,3,4])") == (
        pytest.approx(expected, abs=1e-12)
    )
    assert only_value(df.graded.mu_ap(levels="table"), "mu_ap(levels=table)") == (
        pytest.approx(expected, abs=1e-12)
    )


def test_mu_map_summary() -> None:
    # one query: µMAP is its µAP
    result = paper_table().graded.summary("mu_ap")
    assert result.columns == ["num_q", "mu_ap"]
    assert result["num_q"][0] == 1
    assert printed(result["mu_ap"][0], 3) == "0.448"


# --- Table 2: NDCG, NDCG with labels doubled, NDCNG ----------------------------------------

NDCG_EXP = ["0.07", "0.05", "0.20", "0.31", "0.35", "0.35", "0.36", "0.55"]
NDCG_DOUBLED = ["0.01", "0.01", "0.11", "0.19", "0.20", "0.20", "0.20", "0.44"]
NDCNG = ["0.19", "0.13", "0.30", "0.42", "0.49", "0.47", "0.50", "0.65"]
MEANS = {"ndcg": "0.28", "doubled": "0.17", "ndcng": "0.39"}


@pytest.mark.parametrize("k", range(1, 9))
def test_ndcg_exp_gain(k: int) -> None:
    value = only_value(paper_table().graded.ndcg(k=k), f"ndcg@{k}")
    assert printed(value, 2) == NDCG_EXP[k - 1]


@pytest.mark.parametrize("k", range(1, 9))
def test_ndcg_labels_doubled(k: int) -> None:
    value = only_value(paper_table([2 * x for x in REL]).graded.ndcg(k=k), f"ndcg@{k}")
    assert printed(value, 2) == NDCG_DOUBLED[k - 1]


@pytest.mark.parametrize("k", range(1, 9))
def test_ndcng(k: int) -> None:
    value = only_value(paper_table().graded.ndcng(k=k), f"ndcng@{k}")
    assert printed(value, 2) == NDCNG[k - 1]


@pytest.mark.parametrize("k", range(1, 9))
def test_ndcng_labels_doubled_is_unchanged(k: int) -> None:
    # the paper's point: NDCNG is invariant to rescaling labels, so the doubled row is NDCNG's
    value = only_value(paper_table([2 * x for x in REL]).graded.ndcng(k=k), f"ndcng@{k}")
    assert printed(value, 2) == NDCNG[k - 1]


def test_ndcg_full_list_equals_at_8() -> None:
    # 8 items retrieved: no cutoff is @8
    assert printed(only_value(paper_table().graded.ndcg(), "ndcg"), 2) == NDCG_EXP[7]


def test_mean_ndcg() -> None:
    value = only_value(paper_table().graded.mean_ndcg(), "mean_ndcg")
    assert printed(value, 2) == MEANS["ndcg"]


def test_mean_ndcg_labels_doubled() -> None:
    value = only_value(paper_table([2 * x for x in REL]).graded.mean_ndcg(), "mean_ndcg")
    assert printed(value, 2) == MEANS["doubled"]


def test_mean_ndcng() -> None:
    value = only_value(paper_table().graded.mean_ndcng(), "mean_ndcng")
    assert printed(value, 2) == MEANS["ndcng"]


def test_table_2_through_evaluate() -> None:
    measures = [
        *(f"ndcg@{k}" for k in range(1, 9)),
        *(f"ndcng@{k}" for k in range(1, 9)),
        "mean_ndcg",
        "mean_ndcng",
    ]
    result = paper_table().graded.evaluate(measures)
    assert result.columns == ["query", *measures]
    assert [printed(result[f"ndcg@{k}"][0], 2) for k in range(1, 9)] == NDCG_EXP
    assert [printed(result[f"ndcng@{k}"][0], 2) for k in range(1, 9)] == NDCNG
    assert printed(result["mean_ndcg"][0], 2) == MEANS["ndcg"]
    assert printed(result["mean_ndcng"][0], 2) == MEANS["ndcng"]


def test_mean_over_cutoffs_is_mean_of_row() -> None:
    # the "mean" column is the mean of the eight cells of its row (at full precision)
    df = paper_table()
    cells = df.graded.evaluate([f"ndcg@{k}" for k in range(1, 9)]).drop("query").row(0)
    assert only_value(df.graded.mean_ndcg(), "mean_ndcg") == pytest.approx(sum(cells) / 8)


# --- DCG with log base 10 ----------------------------------------------------------------


def test_dcg_base_10() -> None:
    value = only_value(paper_table().graded.dcg(k=8, base=10), "dcg(base=10)@8")
    assert printed(value, 2) == "45.65"


def test_ideal_dcg_base_10() -> None:
    # the ideal ranking: the same table scored by relevance
    ideal = paper_table(scores=[float(x) for x in REL])
    value = only_value(ideal.graded.dcg(k=8, base=10), "dcg(base=10)@8")
    assert printed(value, 2) == "82.89"


def test_ndcg_at_8_is_dcg_ratio() -> None:
    # the ideal DCG at full precision from the oracle (the paper prints 82.89)
    ideal = RefQuery(REL, REL).ideal_dcg(8, "exp", 10)
    assert printed(ideal, 2) == "82.89"
    dcg = only_value(paper_table().graded.dcg(k=8, base=10), "dcg(base=10)@8")
    assert printed(dcg / ideal, 2) == NDCG_EXP[7]


# --- the text's distance example: levels {0, 0.3, 1.0} -------------------------------------

# the paper's ranking with labels 1,2 -> 0.3 and 3,4 -> 1.0
CONTINUOUS = [0.3, 0, 1.0, 1.0, 0.3, 0, 0.3, 1.0]
# rel >= 0.3 at positions 1, 3, 4, 5, 7, 8; rel >= 1.0 at positions 3, 4, 8
AP_03 = (
    Fraction(1, 1)
    + Fraction(2, 3)
    + Fraction(3, 4)
    + Fraction(4, 5)
    + Fraction(5, 7)
    + Fraction(6, 8)
) / 6
AP_10 = (Fraction(1, 3) + Fraction(2, 4) + Fraction(3, 8)) / 3
MU_AP_CONTINUOUS = 0.3 * float(AP_03) + 0.7 * float(AP_10)


def test_distance_example_ap_at_levels() -> None:
    df = paper_table(CONTINUOUS)
    assert only_value(df.graded.ap(rel=0.3), "ap(rel=0.3)") == pytest.approx(float(AP_03))
    assert only_value(df.graded.ap(rel=1.0), "ap") == pytest.approx(float(AP_10))


def test_distance_example_mu_ap_query_levels() -> None:
    value = only_value(paper_table(CONTINUOUS).graded.mu_ap(), "mu_ap")
    assert value == pytest.approx(MU_AP_CONTINUOUS, abs=1e-12)
    # and not the unweighted mean of the two APs
    assert value != pytest.approx((float(AP_03) + float(AP_10)) / 2, abs=1e-6)


def test_distance_example_mu_ap_given_levels() -> None:
    result = paper_table(CONTINUOUS).graded.mu_ap(levels=[0.3, 1.0])
    assert result.height == 1
    assert result.columns[0] == "query"
    assert result.width == 2
    assert result[result.columns[1]][0] == pytest.approx(MU_AP_CONTINUOUS, abs=1e-12)


def test_distance_example_expression() -> None:
    df = paper_table(CONTINUOUS)
    result = df.group_by("query").agg(pg.mu_ap(levels=[0.3, 1.0]))
    assert result.row(0)[1] == pytest.approx(MU_AP_CONTINUOUS, abs=1e-12)


# --- the paper's ranking shuffled: positions come from the scores, not the row order ----


def test_row_order_does_not_matter() -> None:
    df = paper_table().sample(fraction=1.0, shuffle=True, seed=7)
    assert printed(only_value(df.graded.mu_ap(), "mu_ap"), 3) == "0.448"
    assert printed(only_value(df.graded.ndcng(k=5), "ndcng@5"), 2) == NDCNG[4]
