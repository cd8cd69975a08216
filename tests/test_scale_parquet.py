"""Parquet larger than memory (polars_graded/scale/): evaluation in partitions equals the
in-memory path, exactly, with the partitions planned and capped (scale/partitions.py) and the
sources read as Polars reads them (io/parquet_tables.py); and ``polars-graded evaluate``'s
--partitions, --memory-budget and progress bar on the same Parquet layouts (its other options
are test_cli_evaluate's)."""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from support.cli import run
from support.tables import write_small_table

import polars_graded as pg
from polars_graded import cli
from polars_graded.io import parquet_tables
from polars_graded.options import TableSpec
from polars_graded.scale import memory, parquet, spill
from polars_graded.scale import partitions as planning  # tests take a `partitions` argument

MEASURES = [
    "mu_ap",
    "mu_ap(levels=[1,2])",
    "ap",
    "ap(rel=2)@5",
    "ndcg@5",
    "ndcg(gain=linear)",
    "ndcg(gain={1:3,2:9})@10",
    "ndcng@10",
    "dcg(base=10)@3",
    "mean_ndcg",
    "p@5",
    "recall@10",
    "r_precision",
    "rr",
]


def make_table(ids: str, n_queries: int = 60, systems: int = 3, seed: int = 0) -> pl.DataFrame:
    """Several systems sharing judgments; tied scores, unretrieved and unjudged rows."""
    rng = np.random.default_rng(seed)
    frames = []
    for query in range(n_queries):
        depth = int(rng.integers(1, 25))
        items = rng.choice(200, size=depth, replace=False)
        relevance = rng.choice([-1, 0, 0, 0, 1, 2, 3], size=depth).astype(float)
        relevance[rng.random(depth) < 0.15] = np.nan  # unjudged
        for system in range(systems):
            score = rng.integers(0, 5, size=depth).astype(float)  # many ties
            score[rng.random(depth) < 0.2] = np.nan  # judged, not retrieved
            frames.append(
                pl.DataFrame(
                    {
                        "system": f"s{system}",
                        "query": query,
                        "item": items,
                        "score": score,
                        "relevance": relevance,
                    }
                )
            )
    table = pl.concat(frames).with_columns(
        pl.col("score").fill_nan(None), pl.col("relevance").fill_nan(None).cast(pl.Int64)
    )
    if ids == "str":
        table = table.with_columns(
            pl.format("q{}", pl.col("query")).alias("query"),
            pl.format("d{}", pl.col("item")).alias("item"),
        )
    return table.sample(fraction=1.0, shuffle=True, seed=seed)


Layouts = dict[str, str | Path]
"""The same table as one file, a glob and a directory (:func:`write_layouts`)."""


def write_layouts(table: pl.DataFrame, root: Path) -> Layouts:
    """The table as one file, as a glob over three files and as a nested directory.

    The files are slices of shuffled rows, so most queries span several files.
    """
    root.mkdir(parents=True, exist_ok=True)
    single = root / "single.parquet"
    table.write_parquet(single)
    cuts = [i * table.height // 3 for i in range(4)]
    thirds = [table[cuts[i] : cuts[i + 1]] for i in range(3)]
    for i, part in enumerate(thirds):
        part.write_parquet(root / f"part-{i}.parquet")
    directory = root / "dir"
    (directory / "nested").mkdir(parents=True)
    for i, part in enumerate(thirds):
        part.write_parquet((directory / "nested" if i else directory) / f"{i}.parquet")
    return {"file": single, "glob": str(root / "part-*.parquet"), "directory": directory}


@pytest.fixture(scope="module", params=["int", "str"])
def layouts(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Layouts:
    table = make_table(request.param)
    return write_layouts(table, tmp_path_factory.mktemp(f"ids_{request.param}"))


def assert_same_bits(got: pl.DataFrame, expected: pl.DataFrame) -> None:
    """Frame equality to the last bit. A failure here means that a measure's value for one
    query depends on the other queries evaluated with it (the partitions hold fewer)."""
    assert_frame_equal(got, expected, check_exact=True)


def in_memory(source: str | Path, measures: list[Any], **columns: Any) -> pl.DataFrame:
    """The in-memory path, on Polars' in-memory engine (see the module's docstring)."""
    lf = pl.scan_parquet(source).graded.evaluate(measures, **columns)
    return lf.collect(engine="in-memory")


def in_memory_summary(source: str | Path, measures: list[Any], **columns: Any) -> pl.DataFrame:
    lf = pl.scan_parquet(source).graded.summary(measures, **columns)
    return lf.collect(engine="in-memory")


@pytest.mark.parametrize("layout", ["file", "glob", "directory"])
@pytest.mark.parametrize("partitions", [1, 3, 7])
def test_partitions_equal_the_in_memory_path(
    layouts: Layouts, layout: str, partitions: int
) -> None:
    source = layouts[layout]
    expected = in_memory(source, MEASURES, by="system")
    assert expected.height == 180
    got = pg.evaluate_parquet(source, MEASURES, partitions=partitions, by="system")
    assert_same_bits(got, expected)
    summary = pg.summary_parquet(source, MEASURES, partitions=partitions, by="system")
    expected_summary = in_memory_summary(source, MEASURES, by="system")
    assert_same_bits(summary, expected_summary)


def test_a_tiny_budget_splits_and_still_equals(layouts: Layouts, tmp_path: Path) -> None:
    # one system, without `by`: the keys are the query alone
    path = tmp_path / "one_system.parquet"
    source = pl.scan_parquet(layouts["glob"])
    source.filter(pl.col("system") == "s1").drop("system").sink_parquet(path)
    budget = memory.estimate_peak_memory(path) // 5
    assert planning.choose_partitions(path, budget) == 5
    got = pg.evaluate_parquet(path, MEASURES, memory_budget=budget)
    assert_same_bits(got, in_memory(path, MEASURES))
    summary = pg.summary_parquet(path, MEASURES, memory_budget=budget)
    expected_summary = in_memory_summary(path, MEASURES)
    assert_same_bits(summary, expected_summary)


def test_partitions_hold_whole_queries(layouts: Layouts) -> None:
    keys = ["system", "query"]
    table = pl.scan_parquet(layouts["file"])
    parts = [table.filter(planning.partition_filter(keys, i, 4)).collect() for i in range(4)]
    assert sum(p.height for p in parts) == table.select(pl.len()).collect().item()
    assert all(p.height for p in parts)
    seen = [set(p.select(keys).unique().iter_rows()) for p in parts]
    assert sum(map(len, seen)) == len(set().union(*seen))


def test_table_levels_keep_each_by_group_whole(layouts: Layouts) -> None:
    measures = [pg.MuAP(levels="table"), pg.MuAP(levels="table") @ 10, pg.NDCG @ 3]
    cols = TableSpec(by=("system",))
    assert planning.partition_keys(measures, cols) == ["system"]
    assert planning.partition_keys(measures, TableSpec()) == []
    source = layouts["file"]
    with pytest.warns(pg.GradedWarning, match="3 partition"):  # three systems
        got = pg.evaluate_parquet(source, measures, partitions=4, by="system")
    assert_same_bits(got, in_memory(source, measures, by="system"))


def test_columns_are_named_as_in_the_namespace(tmp_path: Path) -> None:
    table = make_table("int", n_queries=10, systems=1).rename(
        {"query": "qid", "item": "doc", "score": "s", "relevance": "label"}
    )
    path = tmp_path / "renamed.parquet"
    table.write_parquet(path)
    names: dict[str, Any] = {"query": "qid", "item": "doc", "score": "s", "relevance": "label"}
    got = pg.evaluate_parquet(path, ["ap", "ndcg@3"], partitions=3, **names, by="system")
    expected = in_memory(path, ["ap", "ndcg@3"], **names, by="system")
    assert_same_bits(got, expected)


def test_bad_input_raises_as_in_memory(tmp_path: Path) -> None:
    table = make_table("int", n_queries=10, systems=2)
    path = tmp_path / "runs.parquet"
    table.write_parquet(path)
    with pytest.raises(pg.DuplicateKeyError, match="unique"):
        pg.evaluate_parquet(path, ["ap"], partitions=3)  # two systems without by=
    with pytest.raises(pg.MissingColumnError, match="points"):
        pg.evaluate_parquet(path, ["ap"], partitions=3, score="points")
    with pytest.raises(pg.MissingColumnError, match="label"):
        pg.evaluate_parquet(path, ["mu_ap"], memory_budget="1GiB", relevance="label")
    # key columns: checked before the partitions filter on them
    with pytest.raises(pg.MissingColumnError, match="qid"):
        pg.evaluate_parquet(path, ["ap"], partitions=3, query="qid", by="system")
    with pytest.raises(pg.InvalidValueError, match="distinct"):
        pg.evaluate_parquet(path, ["ap"], partitions=3, by=["system", "query"])


def test_an_empty_table_gives_an_empty_result(tmp_path: Path) -> None:
    path = tmp_path / "empty.parquet"
    make_table("str", n_queries=2).clear().write_parquet(path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pg.GradedWarning)  # nothing to warn about
        got = pg.evaluate_parquet(path, ["ap"], partitions=3, by="system")
    assert_frame_equal(got, in_memory(path, ["ap"], by="system"))
    assert got.height == 0


def test_geometric_mean_of_a_parquet_source(tmp_path: Path) -> None:
    df = pl.DataFrame(
        {"query": [1, 1, 2, 2], "item": ["x", "y"] * 2, "score": [2.0, 1.0] * 2,
         "relevance": [0, 1, 1, 0]}
    )  # fmt: skip
    df.write_parquet(tmp_path / "t.parquet")
    got = pg.summary_parquet(tmp_path / "t.parquet", ["ap"], partitions=2, mean="geometric")
    assert_frame_equal(got, df.graded.summary(["ap"], mean="geometric"))


# --------------------------------------------------------------------------- partition cap


def count_partitions(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The partition count of every partitioned evaluation, seen by the split."""
    counts: list[int] = []
    original = planning.partition_index

    def spy(keys: Sequence[str], count: int) -> pl.Expr:
        counts.append(count)
        return original(keys, count)

    monkeypatch.setattr(parquet, "partition_index", spy)
    return counts


def test_never_more_partitions_than_rankings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_small_table(tmp_path / "small.parquet")
    counts = count_partitions(monkeypatch)
    expected = in_memory(path, MEASURES)
    budget = memory.estimate_peak_memory(path) // 50  # asks for 50 partitions
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = pg.evaluate_parquet(path, MEASURES, partitions=500)
        summary = pg.summary_parquet(path, MEASURES, memory_budget=budget)
    assert counts == [20, 20]
    assert_same_bits(got, expected)
    assert_same_bits(summary, in_memory_summary(path, MEASURES))
    assert [w.category for w in caught] == [pg.GradedWarning, pg.GradedWarning]
    assert "20 partition(s), not 500: the table has only 20 distinct (query)" in str(
        caught[0].message
    )
    assert "not 50:" in str(caught[1].message)


@pytest.mark.parametrize(("partitions", "key_counts"), [(4, 1), (5, 1), (8, 2)])
def test_rankings_are_counted_in_the_first_rows_when_they_suffice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, partitions: int, key_counts: int
) -> None:
    path = write_small_table(tmp_path / "small.parquet")  # 10 rows a query
    monkeypatch.setattr(planning, "KEY_SAMPLE_ROWS", 50)  # 5 queries
    counts = count_partitions(monkeypatch)
    scans: list[int] = []
    original = planning._distinct_keys

    def spy(scan: pl.LazyFrame, keys: list[str]) -> int:
        scans.append(original(scan, keys))
        return scans[-1]

    monkeypatch.setattr(planning, "_distinct_keys", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no cap, so no warning
        got = pg.evaluate_parquet(path, MEASURES, partitions=partitions)
    # The whole table is counted only when its first rows hold too few rankings.
    assert scans == [5, 20][:key_counts]
    assert counts == [partitions]
    assert_same_bits(got, in_memory(path, MEASURES))


def test_partitions_have_a_ceiling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_small_table(tmp_path / "small.parquet")
    counts = count_partitions(monkeypatch)
    monkeypatch.setattr(planning, "MAX_PARTITIONS", 4, raising=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = pg.evaluate_parquet(path, ["ap", "ndcg@5"], partitions=10)
    assert counts == [4]
    assert_same_bits(got, in_memory(path, ["ap", "ndcg@5"]))
    assert len(caught) == 1
    assert "4 partition(s), not 10: 4 is the most" in str(caught[0].message)


def test_a_cap_that_does_not_apply_says_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_small_table(tmp_path / "small.parquet")
    counts = count_partitions(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pg.evaluate_parquet(path, ["ap"], partitions=20)
    assert counts == [20]


def test_the_threshold_warning_is_about_the_whole_table(tmp_path: Path) -> None:
    # Only query 0 has a relevant row: each other partition alone has no label >= 1.
    path = write_small_table(tmp_path / "small.parquet")
    table = pl.read_parquet(path)
    one_relevant = table.with_columns(relevance=(pl.col("query") == 0) & (pl.col("item") == "d0"))
    one_relevant.cast({"relevance": pl.Int64}).write_parquet(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pg.evaluate_parquet(path, ["ap", "p@5"], partitions=20)
    assert [str(w.message) for w in caught if "threshold" in str(w.message)] == []
    table.with_columns(relevance=pl.lit(0.5)).write_parquet(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pg.evaluate_parquet(path, ["ap", "p@5"], partitions=20)
    threshold = [w for w in caught if "threshold" in str(w.message)]
    assert len(threshold) == 1
    assert "the largest is 0.5" in str(threshold[0].message)


# --------------------------------------------------------------------------- damaged sources


@pytest.fixture
def damaged(tmp_path: Path) -> dict[str, tuple[str | Path, list[str]]]:
    """Sources that cannot be evaluated, each with what its error message must name."""
    table = make_table("int", n_queries=4, systems=1)
    (tmp_path / "empty").mkdir()
    corrupt = tmp_path / "corrupt.parquet"
    corrupt.write_bytes(b"PAR1" + bytes(40) + b"PAR1")
    for name, other in (
        ("types", table.with_columns(pl.col("item").cast(pl.String))),
        ("extra", table.with_columns(extra=pl.lit(1))),
        ("fewer", table.drop("relevance")),
    ):
        (tmp_path / name).mkdir()
        table.write_parquet(tmp_path / name / "a.parquet")
        other.write_parquet(tmp_path / name / "b.parquet")
    return {
        "no match": (str(tmp_path / "nothing" / "*.parquet"), ["no file matches", "nothing"]),
        "empty directory": (tmp_path / "empty", ["no file in directory", "empty"]),
        "missing file": (tmp_path / "gone.parquet", ["no such file", "gone.parquet"]),
        "corrupt file": (corrupt, ["corrupt.parquet", "not a readable Parquet file"]),
        "other types": (tmp_path / "types", ["b.parquet", "'item'", "same columns and types"]),
        "extra column": (tmp_path / "extra", ["b.parquet", "extra", "same columns"]),
        "fewer columns": (tmp_path / "fewer", ["b.parquet", "relevance", "same columns"]),
    }


@pytest.mark.parametrize(
    "case",
    [
        "no match",
        "empty directory",
        "missing file",
        "corrupt file",
        "other types",
        "extra column",
        "fewer columns",
    ],
)
@pytest.mark.parametrize("function", ["evaluate_parquet", "summary_parquet"])
@pytest.mark.parametrize("split", [{}, {"partitions": 3}, {"memory_budget": 1}])
@pytest.mark.filterwarnings("ignore:evaluating in")  # the cap's GradedWarning
def test_damaged_sources_name_the_file(
    damaged: dict[str, tuple[str | Path, list[str]]],
    case: str,
    function: str,
    split: dict[str, Any],
) -> None:
    source, fragments = damaged[case]
    with pytest.raises(pg.GradedError) as info:
        getattr(pg, function)(source, ["ap"], **split)
    assert isinstance(info.value, pg.InputFileError)
    for fragment in fragments:
        assert fragment in str(info.value)


def test_a_valid_source_keeps_its_other_errors(tmp_path: Path) -> None:
    # the file check runs only after a Polars error, and lets through one it did not explain
    path = tmp_path / "runs.parquet"
    make_table("int", n_queries=3).write_parquet(path)
    with pytest.raises(pl.exceptions.PolarsError) as info, parquet_tables.reading(path):
        pl.scan_parquet(path).select(pl.col("score").str.len_chars()).collect()
    assert not isinstance(info.value, pg.GradedError)


# --------------------------------------------------------------------------- globs and hive


def test_recursive_globs_with_hive_columns(tmp_path: Path) -> None:
    table = make_table("str", n_queries=12, systems=2)
    root = tmp_path / "logs"
    for (system,), rows in table.group_by("system"):
        for day, half in (("2026-11-01", 0), ("2026-11-02", 1)):
            folder = root / f"system={system}" / f"day={day}"
            folder.mkdir(parents=True)
            rows.filter(pl.col("query").str.len_chars() % 2 == half).drop("system").write_parquet(
                folder / "part.parquet"
            )
    by = ["system", "day"]
    expected = in_memory(root, MEASURES, by=by)  # a folder: Polars reads the hive columns
    assert expected.select(pl.struct(by).n_unique()).item() == 4
    for source in (str(root / "**" / "*.parquet"), str(root / "system=*" / "*" / "*.parquet")):
        assert parquet_tables.parquet_rows(source) == table.height
        for partitions in (1, 3):
            got = pg.evaluate_parquet(source, MEASURES, partitions=partitions, by=by)
            assert_same_bits(got, expected)
        with pytest.warns(pg.GradedWarning, match="24 partition"):  # 24 rankings
            summary = pg.summary_parquet(source, MEASURES, memory_budget=1, by=by)
        assert_same_bits(summary, in_memory_summary(root, MEASURES, by=by))


# --------------------------------------------------------------------------- the split on disk


def test_ranked_rows_keep_their_order_in_the_pieces(tmp_path: Path) -> None:
    # ranked=True reads the rank from the row order: each piece must keep the source's order
    table = make_table("str", n_queries=30, systems=2).sort(
        "system", "query", "score", "item", descending=[False, False, True, True], nulls_last=True
    )
    path = tmp_path / "ranked.parquet"
    table.write_parquet(path)
    expected = in_memory(path, MEASURES, by="system", ranked=True)
    got = pg.evaluate_parquet(path, MEASURES, partitions=7, by="system", ranked=True)
    assert_same_bits(got, expected)


@pytest.mark.parametrize("dtype", [pl.Categorical, pl.Enum(["s0", "s1", "s2"]), pl.Date])
def test_key_types_survive_the_split(tmp_path: Path, dtype: pl.DataType) -> None:
    table = make_table("str", n_queries=15)
    if dtype == pl.Date:
        days = pl.duration(days=pl.col("system").str.slice(1).cast(pl.Int64))
        table = table.with_columns(system=pl.date(2026, 11, 1) + days)
    path = tmp_path / "typed.parquet"
    table.with_columns(pl.col("system").cast(dtype)).write_parquet(path)
    got = pg.evaluate_parquet(path, MEASURES, partitions=5, by="system")
    assert got.schema["system"] == dtype
    assert_same_bits(got, in_memory(path, MEASURES, by="system"))


def test_the_split_is_removed_and_reads_only_the_evaluated_columns(tmp_path: Path) -> None:
    table = make_table("int", n_queries=20).with_columns(note=pl.lit("x" * 50))
    path = tmp_path / "runs.parquet"
    table.write_parquet(path)
    spill_dir = tmp_path / "spill"
    spill_dir.mkdir()
    seen: list[list[str]] = []
    original = spill.pieces

    def spy(files: list[list[Path]]) -> Iterator[tuple[int, pl.LazyFrame]]:
        seen.extend(list(pl.read_parquet_schema(piece[0])) for piece in files if piece)
        return original(files)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(spill, "pieces", spy)
        got = pg.evaluate_parquet(path, MEASURES, partitions=4, by="system", spill_dir=spill_dir)
    assert_same_bits(got, in_memory(path, MEASURES, by="system"))
    assert seen == [["system", "query", "item", "score", "relevance"]] * 4
    assert list(spill_dir.iterdir()) == []
    with pytest.raises(pg.DuplicateKeyError):  # two systems without by=: removed on error too
        pg.evaluate_parquet(path, ["ap"], partitions=3, spill_dir=spill_dir)
    assert list(spill_dir.iterdir()) == []


def test_the_split_needs_free_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_small_table(tmp_path / "small.parquet")
    monkeypatch.setattr(spill, "SPILL_FACTOR", 1e15)
    with pytest.raises(pg.SpillError, match=f"needs about .* of free disk, {tmp_path}"):
        pg.evaluate_parquet(path, ["ap"], partitions=2, spill_dir=tmp_path)
    pg.evaluate_parquet(path, ["ap"], partitions=1, spill_dir=tmp_path)  # in one go: no split
    with pytest.raises(pg.SpillError, match="nowhere"):
        pg.summary_parquet(path, ["ap"], partitions=2, spill_dir=tmp_path / "nowhere")


# --------------------------------------------------------------------------- memory budget


@pytest.mark.parametrize("bad", ["lots", "4XB", "-1GiB", "0", "0MiB", "", "GiB", 0, -5, 1.5, True])
def test_bad_memory_budgets_name_the_rule(bad: object, tmp_path: Path) -> None:
    with pytest.raises(pg.InvalidValueError, match="memory budget"):
        memory.parse_memory(bad)  # type: ignore[arg-type]
    path = tmp_path / "runs.parquet"
    make_table("int", n_queries=2, systems=1).write_parquet(path)
    with pytest.raises(pg.InvalidValueError, match="memory budget"):
        pg.evaluate_parquet(path, ["ap"], memory_budget=bad, by="system")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [0, -2, 1.5, "3", True])
def test_bad_partition_counts(bad: object, tmp_path: Path) -> None:
    path = tmp_path / "runs.parquet"
    make_table("int", n_queries=2, systems=1).write_parquet(path)
    with pytest.raises(pg.InvalidValueError, match="partitions must be a positive integer"):
        pg.evaluate_parquet(path, ["ap"], partitions=bad, by="system")  # type: ignore[arg-type]


def test_budget_and_partitions_exclude_each_other(layouts: Layouts) -> None:
    with pytest.raises(pg.InvalidValueError, match="not both"):
        pg.evaluate_parquet(layouts["file"], ["ap"], partitions=2, memory_budget="1GiB")


# --------------------------------------------------------------------------- the command line


@pytest.mark.parametrize("layout", ["file", "glob", "directory"])
def test_cli_partitions_print_the_same_summary(
    layouts: Layouts, layout: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = str(layouts[layout])
    args = ["evaluate", source, "-m", "mu_ap,ndcg@5,ap(rel=2)", "--by", "system"]
    plain = run([*args, "-o", str(tmp_path / "plain.parquet")], capsys)
    split = run([*args, "--partitions", "3", "-o", str(tmp_path / "split.parquet")], capsys)
    assert plain[0] == 0
    assert split == plain  # same summary, and no progress bar: stderr is not a terminal
    written = [pl.read_parquet(tmp_path / f"{name}.parquet") for name in ("plain", "split")]
    assert_same_bits(*written)


def test_cli_splits_when_the_budget_is_exceeded(
    layouts: Layouts, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    counts: list[int] = []
    original = parquet.evaluate_parquet

    def spy(*args: Any, **kwargs: Any) -> pl.DataFrame:
        counts.append(kwargs["partitions"])
        return original(*args, **kwargs)

    monkeypatch.setattr(parquet, "evaluate_parquet", spy)
    source = layouts["file"]
    budget = memory.estimate_peak_memory(source) // 4
    args = ["evaluate", str(source), "-m", "mu_ap", "--by", "system"]
    small = run([*args, "--memory-budget", str(budget)], capsys)
    large = run([*args, "--memory-budget", "64GiB"], capsys)
    assert counts == [4]  # the large budget evaluates in memory
    assert small == large
    assert small[0] == 0


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_cli_progress_bar_only_on_a_terminal_and_never_with_quiet(
    layouts: Layouts, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["evaluate", str(layouts["file"]), "-m", "ap", "--by", "system", "--partitions", "3"]
    assert run(args, capsys)[2] == ""  # not a terminal
    for quiet, drawn in (([], True), (["--quiet"], False), (["-q"], False)):
        terminal = Terminal()
        monkeypatch.setattr("sys.stderr", terminal)
        assert cli.main([*args, *quiet]) == 0
        monkeypatch.undo()
        assert ("3/3 partitions" in terminal.getvalue()) is drawn


def test_cli_reports_an_empty_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    code, out, err = run(["evaluate", str(tmp_path / "empty"), "--partitions", "2"], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("polars-graded: error: no file in directory")


def test_cli_rejects_partitions_for_csv_and_bad_budgets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "runs.csv"
    make_table("int", n_queries=3).write_csv(path)
    code, out, err = run(["evaluate", str(path), "--by", "system", "--partitions", "2"], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("polars-graded: error: --partitions needs a Parquet TABLE")
    assert err.count("\n") == 1
    code, _, err = run(["evaluate", str(path), "--memory-budget", "lots"], capsys)
    assert code == 2
    assert "memory budget must be a size such as '512MiB'" in err
