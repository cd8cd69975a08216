"""The README's examples and what they stand on. tests/test_docs.py runs them as written,
with the site's pages (:mod:`support.markdown_examples` says how: python blocks in order in
one namespace, ``polars-graded`` commands in process, in a folder of the files the examples
name); here, that the README has them, shows the frame its first example prints, and that
the topics file its report example reads is what it says.
"""

from __future__ import annotations

import gzip

import polars as pl
from support.environment import require_shared_data
from support.markdown_examples import (
    README,
    TOPICS,
    cli_commands,
    page_blocks,
    shown_outputs,
)

BLOCKS = page_blocks(README)
PYTHON = [b for b in BLOCKS if b.lang == "python"]
COMMANDS = [command for _, command in cli_commands(BLOCKS)]


def test_readme_has_examples() -> None:
    """The parser finds the README's examples (a test of the test); tests/test_docs.py runs
    them with the site's."""
    assert len(PYTHON) >= 1
    assert any(c.startswith("polars-graded ") for c in COMMANDS)


def test_readme_shows_what_its_first_example_prints() -> None:
    """The README's example is followed by its printed frame (which run_blocks compares,
    character for character, with what the example prints)."""
    shown = shown_outputs(README)
    assert shown, "the README shows the frame of its first example"
    assert shown[0][0] == PYTHON[0]


def test_shipped_topics_are_the_robust_qrels_topics() -> None:
    """examples/topics.csv has one row per topic of NIST's Robust 2003 qrels: the 50 old
    ones (below 600, from TREC 6-8) and the 50 new ones (601-650), as its SOURCE.md says."""
    qrels = require_shared_data("trec2003-robust") / "robust03_qrels.txt.gz"
    with gzip.open(qrels, "rt") as lines:
        judged = sorted({int(line.split()[0]) for line in lines})
    topics = pl.read_csv(TOPICS)
    assert topics.columns == ["query", "topics"]
    assert topics["query"].to_list() == judged
    assert topics.filter(pl.col("topics") == "new")["query"].to_list() == list(range(601, 651))
    assert topics.filter(pl.col("topics") == "old")["query"].is_between(301, 450).all()
    assert topics["topics"].value_counts().sort("topics").rows() == [("new", 50), ("old", 50)]
