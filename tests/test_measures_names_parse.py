"""The front door to measure names (polars_graded/measures/names/parse.py): canonical names
of any measure string, and the output names of a mapping name -> measure."""

from __future__ import annotations

from typing import Any

import pytest
from support.tables import RENAMED_COLUMNS, renamed_table

import polars_graded as pg
from polars_graded.measures.names import parse

# --- canonical names and output names ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("rbp(p=0.8,rel=1)@5", "rbp@5"),  # defaults dropped
        ("RBP(rel=2, p=0.9)", "rbp(p=0.9,rel=2)"),  # sorted, no spaces, lower case
        ("map(rel=2.0)@10", "ap(rel=2)@10"),  # alias, shortest number
        ("ndcg(gain={2:9.0,1:3})", "ndcg(gain={1:3,2:9})"),  # mapping sorted by label
        ("mu_ap(levels=[3,1,2])", "mu_ap(levels=[1,2,3])"),
        ("P @ 5", "p@5"),
    ],
)
def test_measure_name(text: str, name: str) -> None:
    assert pg.measure_name(text) == name
    assert pg.measure_name(pg.parse_measure(text)) == name
    assert renamed_table().graded.evaluate(text, **RENAMED_COLUMNS).columns == ["qid", name]


def test_measure_name_refuses_what_parse_measure_refuses() -> None:
    with pytest.raises(pg.UnknownMeasureError):
        pg.measure_name("nope")
    with pytest.raises(pg.UnknownMeasureError):
        pg.measure_name(42)  # type: ignore[arg-type]


def test_every_name_asked_for_keeps_its_column() -> None:
    """Two names of one measure give two columns (the plan computes it once, test_plan);
    strings with the same canonical name share it; a mapping may name a measure twice."""
    named = parse.as_named_measures(["ir_measures:nDCG@10", "ir_measures:NDCG@10", "map", "ap"])
    assert list(named) == ["nDCG@10", "NDCG@10", "ap"]
    assert named["nDCG@10"] == named["NDCG@10"]
    assert list(parse.as_named_measures({"a": "ap", "b": "AP(rel=1)"})) == ["a", "b"]
    assert parse.as_measures(["ir_measures:nDCG@10", "ir_measures:NDCG@10"]) == [
        pg.NDCG(gain="linear", compat="trec_eval_9") @ 10
    ]


def test_one_name_for_two_measures_is_an_error_naming_both(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Canonical names and ir_measures' (case-sensitive, as written) never meet today; should
    two ever do, the error names both measures and the mapping that keeps them apart."""
    monkeypatch.setattr(parse, "_default_name", lambda item, measure: "P@5")
    with pytest.raises(
        pg.InvalidValueError,
        match=r"two measures are named 'P@5': 'p@5' and 'p\(rel=2\)@5'; .*'P@5_2'",
    ):
        parse.as_named_measures(["p@5", "p(rel=2)@5"])


def test_named_measures_keep_names_and_order() -> None:
    named = parse.as_named_measures({"z": "rbp(p=0.8)@5", "a": pg.NDCG @ 10, "m": "ap"})
    assert list(named) == ["z", "a", "m"]
    assert named == {"z": pg.RBP @ 5, "a": pg.NDCG @ 10, "m": pg.AP}
    assert list(parse.as_named_measures(["ap", "AP(rel=1)", "ap@5"])) == ["ap", "ap@5"]
    assert list(parse.as_named_measures(pg.NDCG @ 3)) == ["ndcg@3"]


@pytest.mark.parametrize(
    ("mapping", "error", "words"),
    [
        ({"": "ap"}, pg.InvalidValueError, "non-empty string"),
        ({3: "ap"}, pg.InvalidValueError, "non-empty string"),
        ({"__pg_ranking": "ap"}, pg.InvalidValueError, "reserved"),
        ({"a": "nope"}, pg.UnknownMeasureError, "unknown measure"),
        ({"a": 3}, pg.UnknownMeasureError, "expected a measure"),
        ({}, pg.UnknownMeasureError, "no measures"),
    ],
)
def test_bad_output_names(mapping: Any, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        parse.as_named_measures(mapping)
    with pytest.raises(error, match=words):
        renamed_table().graded.evaluate(mapping, **RENAMED_COLUMNS)


def test_measures_of_the_wrong_type() -> None:
    with pytest.raises(pg.UnknownMeasureError):
        parse.as_named_measures(42)  # type: ignore[arg-type]


def test_as_measures_refuses_names_it_would_drop() -> None:
    with pytest.raises(pg.InvalidValueError, match=r"not taken here.*\['rbp@5'\]"):
        parse.as_measures({"rbp80": "rbp(p=0.8)@5"})
