"""Nightly increments (polars_graded/scale/store.py, scale/fingerprint.py, cli/store.py):
a store's output equals evaluating the whole log (frame equality and equal Parquet bytes),
only new or changed partitions are evaluated, a change of qrels, measures or ties recomputes,
a killed run leaves a usable store, a store of another version is refused, bad input is one
clear error. The per-query values themselves are checked against pytrec_eval here (with
qrels, the store's default ``queries="both"`` is what pytrec_eval evaluates) and, for the
whole table, in test_scale_parquet and the measure tests.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
import pytrec_eval
from support.cli import assert_one_line_error, run

import polars_graded as pg
from polars_graded.scale import store as store_module
from polars_graded.scale.fingerprint import STORE_FORMAT

MEASURES = ["ap", "ndcg@3", "mu_ap", "p@2", "rr"]
DAYS = ["2026-11-01", "2026-11-02", "2026-11-03"]


def _day_table(seed: int, systems: int = 1, queries: int = 6) -> pl.DataFrame:
    """A day of log: ties (scores on a coarse grid), unjudged rows (null labels), queries
    without a relevant row, graded labels."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list[Any]] = {key: [] for key in ("system", "query", "item", "score")}
    labels: list[int | None] = []
    for system in range(systems):
        for query in range(queries):
            for item in range(int(rng.integers(1, 6))):
                rows["system"].append(f"s{system}")
                rows["query"].append(query)
                rows["item"].append(f"d{item}")
                rows["score"].append(float(rng.integers(0, 3)))
                label = int(rng.integers(-1, 4))
                no_relevant = query == 0  # every label 0 or unjudged
                labels.append(None if label < 0 else (0 if no_relevant else label))
    return pl.DataFrame({**rows, "relevance": labels}, schema_overrides={"relevance": pl.Int64})


def _write_log(root: Path, days: list[str], *, nested: bool = False) -> None:
    """One hive folder per day (``day=.../``, or ``day=.../system=.../`` when nested)."""
    for index, day in enumerate(days):
        table = _day_table(index, systems=2)
        if nested:
            for (system,), part in table.group_by("system"):
                folder = root / f"day={day}" / f"system={system}"
                folder.mkdir(parents=True, exist_ok=True)
                part.drop("system").write_parquet(folder / "part-0.parquet")
        else:
            folder = root / f"day={day}"
            folder.mkdir(parents=True, exist_ok=True)
            table.write_parquet(folder / "part-0.parquet")


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record the partitions evaluated (a spy on the per-partition evaluation)."""
    evaluated: list[str] = []
    real = store_module._evaluate_partition

    def spy(partition: Any, *args: Any) -> Any:
        evaluated.append(partition.path)
        return real(partition, *args)

    monkeypatch.setattr(store_module, "_evaluate_partition", spy)
    return evaluated


@pytest.mark.parametrize(
    ("nested", "options"),
    [
        (False, {"by": "system"}),
        (True, {}),
        (False, {"by": "system", "ties": "average"}),
        (True, {"ties": "optimistic", "compat": "trec_eval_9"}),
    ],
)
def test_store_equals_the_full_evaluation(
    tmp_path: Path, nested: bool, options: dict[str, Any]
) -> None:
    _write_log(tmp_path / "logs", DAYS, nested=nested)
    hive = ["day", "system"] if nested else ["day"]
    by = [*hive, *([options["by"]] if "by" in options else [])]
    full = pg.evaluate_parquet(tmp_path / "logs", MEASURES, **{**options, "by": by})
    first = pg.evaluate_store(tmp_path / "logs", MEASURES, tmp_path / "store", **options)
    again = pg.evaluate_store(tmp_path / "logs", MEASURES, tmp_path / "store", **options)
    assert first.equals(full)
    assert again.equals(full)
    assert again.schema == full.schema  # day is a Date, as Polars reads the folder whole


def test_cli_output_has_the_bytes_of_a_full_evaluation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_log(tmp_path / "logs", DAYS)
    logs, store = str(tmp_path / "logs"), str(tmp_path / "store")
    common = ["-m", "ap,ndcg@3", "--by", "system"]
    full_out = str(tmp_path / "full.parquet")
    code, full_printed, _ = run(["evaluate", logs, "--by", "day", *common, "-o", full_out], capsys)
    assert code == 0
    for attempt in range(2):  # a first run, then one from the store alone
        out_file = str(tmp_path / f"store{attempt}.parquet")
        code, printed, err = run(
            ["evaluate", logs, "--store", store, *common, "-o", out_file], capsys
        )
        assert code == 0
        assert printed == full_printed  # the same summary, per day and system
        done = f"{3 - 3 * attempt} partition(s) evaluated, {3 * attempt} reused"
        assert err.strip().endswith(done)
        assert Path(out_file).read_bytes() == Path(full_out).read_bytes()
    code, _, err = run(["evaluate", logs, "--store", store, *common, "-q"], capsys)
    assert (code, err) == (0, "")


def test_only_new_or_rewritten_partitions_are_evaluated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs, store = tmp_path / "logs", tmp_path / "store"
    _write_log(logs, DAYS[:2])
    evaluated = _counting(monkeypatch)
    pg.evaluate_store(logs, MEASURES, store, by="system")
    assert evaluated == ["day=2026-11-01", "day=2026-11-02"]
    _write_log(logs, DAYS[2:])  # a new day
    evaluated.clear()
    pg.evaluate_store(logs, MEASURES, store, by="system")
    assert evaluated == ["day=2026-11-03"]
    # The same bytes written again (a new modification time): that partition again.
    os.utime(logs / "day=2026-11-01" / "part-0.parquet", ns=(1, 1))
    evaluated.clear()
    pg.evaluate_store(logs, MEASURES, store, by="system")
    assert evaluated == ["day=2026-11-01"]
    evaluated.clear()
    run_ = store_module.update_store(logs, MEASURES, store, by="system")
    assert (evaluated, run_.evaluated, run_.reused) == ([], 0, 3)
    # A rewritten partition (other rows): only itself, and the output follows it.
    _day_table(7, systems=2).write_parquet(logs / "day=2026-11-02" / "part-0.parquet")
    evaluated.clear()
    values = pg.evaluate_store(logs, MEASURES, store, by="system")
    assert evaluated == ["day=2026-11-02"]
    assert values.equals(pg.evaluate_parquet(logs, MEASURES, by=["day", "system"]))


@pytest.mark.parametrize(
    "change",
    [
        {"measures": ["ap", "ndcg@5"]},
        {"ties": "pessimistic"},
        {"relevance": "label"},
        {"depth": 2},
    ],
)
def test_a_change_of_measures_or_options_recomputes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: dict[str, Any]
) -> None:
    logs, store = tmp_path / "logs", tmp_path / "store"
    _write_log(logs, DAYS[:2])
    if "relevance" in change:  # the same log with its label column renamed
        for path in logs.rglob("*.parquet"):
            pl.read_parquet(path).rename({"relevance": "label"}).write_parquet(path)
    base = {"relevance": change["relevance"]} if "relevance" in change else {}
    pg.evaluate_store(logs, ["ap", "ndcg@3"], store, by="system", **base)
    evaluated = _counting(monkeypatch)
    measures = change.pop("measures", ["ap", "ndcg@3"])
    options = {"by": "system", **base, **change}
    if "relevance" in change:
        options["relevance"] = "label"
        options["query"] = "query"  # the same options spelled out: nothing new
        pg.evaluate_store(logs, measures, store, **options)
        assert evaluated == []
        return
    values = pg.evaluate_store(logs, measures, store, **options)
    assert len(evaluated) == 2
    full = pg.evaluate_parquet(logs, measures, **{**options, "by": ["day", "system"]})
    assert values.equals(full)


def _qrels_log(root: Path) -> pl.DataFrame:
    """A log without labels (two days, one system) and its judgments, written as TREC qrels;
    returns every day's run (day, query, item, score) for the reference."""
    runs = []
    for index, day in enumerate(DAYS[:2]):
        table = _day_table(index, queries=8).drop("system", "relevance")
        # Distinct scores: pytrec_eval's tie order is not ours to test here.
        table = table.with_columns(score=pl.int_range(pl.len()).cast(pl.Float64) * 0.5)
        table = table.with_columns(pl.col("query").cast(pl.String))
        (root / f"day={day}").mkdir(parents=True)
        table.write_parquet(root / f"day={day}" / "part-0.parquet")
        runs.append(table.with_columns(day=pl.lit(day)))
    return pl.concat(runs)


def test_qrels_join_as_pytrec_eval_and_recompute_when_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs, store, qrels = tmp_path / "logs", tmp_path / "store", tmp_path / "qrels.txt"
    runs = _qrels_log(logs)
    # Judgments: items d0..d5 of queries 1..6 (d5 is never returned: it counts in R).
    lines = [
        f"{q} 0 d{i} {(q * 7 + i * 3) % 4}" for q in range(1, 7) for i in range(6) if (q + i) % 3
    ]
    qrels.write_text("\n".join(lines) + "\n")
    # trec_eval's ndcg has linear gains: ours is ndcg(gain=linear).
    measures = {"ap": "ap", "ndcg": "ndcg(gain=linear)"}
    values = pg.evaluate_store(logs, measures, store, qrels=qrels)
    reference: dict[str, dict[str, int]] = {}
    for query, item, label in pg.read_trec_qrels(qrels).select("query", "item", "relevance").rows():
        reference.setdefault(query, {})[item] = label
    evaluator = pytrec_eval.RelevanceEvaluator(reference, {"map", "ndcg"})
    for day in DAYS[:2]:
        run_dict: dict[str, dict[str, float]] = {}
        for query, item, score in runs.filter(day=day).select("query", "item", "score").rows():
            run_dict.setdefault(query, {})[item] = score
        expected = evaluator.evaluate(run_dict)  # the queries judged and returned
        ours = values.filter(pl.col("day") == pl.lit(day).str.to_date())
        assert sorted(ours["query"]) == sorted(expected)
        for query, ap, ndcg in ours.select("query", "ap", "ndcg").rows():
            assert ap == pytest.approx(expected[query]["map"], abs=1e-12)
            assert ndcg == pytest.approx(expected[query]["ndcg"], abs=1e-12)
    # Other qrels bytes: every partition again.
    evaluated = _counting(monkeypatch)
    qrels.write_text("\n".join(lines[1:]) + "\n")
    pg.evaluate_store(logs, measures, store, qrels=qrels)
    assert len(evaluated) == 2


def test_a_killed_run_leaves_a_usable_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    logs, store = tmp_path / "logs", tmp_path / "store"
    _write_log(logs, DAYS)
    real = store_module._write_entry
    calls: list[Path] = []

    def dies_on_the_second(values: pl.DataFrame, path: Path, largest: float | None) -> None:
        calls.append(path)
        if len(calls) == 2:  # killed while writing: a partial temporary file stays behind
            (path.parent / ".tmp-killed").write_bytes(b"PAR1 partial")
            raise KeyboardInterrupt
        real(values, path, largest)

    monkeypatch.setattr(store_module, "_write_entry", dies_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        pg.evaluate_store(logs, MEASURES, store, by="system")
    monkeypatch.setattr(store_module, "_write_entry", real)
    assert len(list(store.glob("*.parquet"))) == 1  # the first entry, whole
    evaluated = _counting(monkeypatch)
    values = pg.evaluate_store(logs, MEASURES, store, by="system")
    assert evaluated == [f"day={day}" for day in DAYS[1:]]
    assert values.equals(pg.evaluate_parquet(logs, MEASURES, by=["day", "system"]))
    assert (store / ".tmp-killed").exists()  # young: perhaps another run's, left alone
    old = time.time() - 2 * store_module.STALE_SECONDS
    os.utime(store / ".tmp-killed", (old, old))
    pg.evaluate_store(logs, MEASURES, store, by="system")
    assert not (store / ".tmp-killed").exists()


def test_a_failed_write_leaves_no_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    logs, store = tmp_path / "logs", tmp_path / "store"
    _write_log(logs, DAYS[:1])

    def no_space(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", no_space)
    with pytest.raises(OSError, match="No space"):
        pg.evaluate_store(logs, MEASURES, store, by="system")
    assert [path.name for path in store.iterdir()] == []  # no entry, no temporary file


def test_prune_removes_what_the_run_did_not_use(tmp_path: Path) -> None:
    logs, store = tmp_path / "logs", tmp_path / "store"
    _write_log(logs, DAYS[:2])
    pg.evaluate_store(logs, ["ap"], store, by="system")
    pg.evaluate_store(logs, ["rr"], store, by="system")
    assert len(list(store.glob("*.parquet"))) == 4  # kept: another job may ask for ap
    stored = store_module.update_store(logs, ["rr"], store, prune=True, by="system")
    assert (stored.pruned, stored.reused, len(list(store.glob("*.parquet")))) == (2, 2, 2)


def test_another_version_is_refused_until_rebuilt(tmp_path: Path) -> None:
    logs, store = tmp_path / "logs", tmp_path / "store"
    _write_log(logs, DAYS[:1])
    pg.evaluate_store(logs, ["ap"], store, by="system")
    manifest = store / store_module.MANIFEST
    manifest.write_text(json.dumps({"format": STORE_FORMAT, "library": "0.0.1"}))
    with pytest.raises(pg.StoreError, match=r"written by polars-graded 0\.0\.1 .*this is "):
        pg.evaluate_store(logs, ["ap"], store, by="system")
    manifest.write_text(json.dumps({"format": STORE_FORMAT + 1, "library": "0.0.1"}))
    with pytest.raises(pg.StoreError, match=rf"store format {STORE_FORMAT + 1}\).*--rebuild"):
        pg.evaluate_store(logs, ["ap"], store, by="system")
    stored = store_module.update_store(logs, ["ap"], store, rebuild=True, by="system")
    assert (stored.evaluated, stored.reused) == (1, 0)
    assert json.loads(manifest.read_text())["format"] == STORE_FORMAT


def test_bad_input_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    logs, store = tmp_path / "logs", str(tmp_path / "store")
    _write_log(logs, DAYS[:1])
    flat = tmp_path / "flat"
    flat.mkdir()
    _day_table(0).write_parquet(flat / "runs.parquet")
    odd = tmp_path / "odd" / "2026-11-01"
    odd.mkdir(parents=True)
    _day_table(0).write_parquet(odd / "runs.parquet")
    (tmp_path / "a_file").write_text("")
    (tmp_path / "not_a_store").mkdir()
    (tmp_path / "not_a_store" / "notes.txt").write_text("mine")
    cases = [
        ([str(flat), "--store", store], "found the file runs.parquet directly in it"),
        ([str(odd.parent), "--store", store], "found the folder '2026-11-01'"),
        ([str(flat / "runs.parquet"), "--store", store], "is a file; it must be a folder"),
        ([str(logs), "--store", str(tmp_path / "a_file")], "is a file; a store is a folder"),
        ([str(logs), "--store", str(tmp_path / "not_a_store")], "not a store"),
        ([str(logs), "--store", str(logs / "s")], "inside SOURCE"),
        ([str(logs), "--store", store, "-m", "apx"], "unknown measure 'apx'"),
        ([str(logs), "--prune"], "--prune needs --store"),
        ([str(logs), "--store", store, "--partitions", "2"], "does not combine with --store"),
    ]
    for argv, fragment in cases:
        assert_one_line_error(*run(["evaluate", *argv], capsys), fragment)
    assert not (tmp_path / "store").exists()  # refused before a store was made
    empty_day = logs / "day=2026-11-09"
    empty_day.mkdir()
    argv = ["evaluate", str(logs), "--store", store, "--by", "system"]
    assert_one_line_error(*run(argv, capsys), "no data file")
    _day_table(0).head(0).write_parquet(empty_day / "part-0.parquet")
    assert_one_line_error(*run(argv, capsys), "day=2026-11-09 holds no row")
