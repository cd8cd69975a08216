"""The paper's examples: examples/paper_tables.py and examples/artificial.py.

examples/ is not a package, so the scripts are loaded by path. They run on reduced sizes
here (a few runs, a few k), and the printed Tables 1 and 2 are compared with conventions.md §5 at
the paper's printed precision.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
from pathlib import Path
from types import ModuleType

import polars as pl
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def load_example(name: str) -> ModuleType:
    """Import ``examples/<name>.py`` as a module of its own."""
    spec = importlib.util.spec_from_file_location(f"_example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tables() -> ModuleType:
    return load_example("paper_tables")


@pytest.fixture(scope="module")
def artificial() -> ModuleType:
    return load_example("artificial")


# --- conventions.md §5 ----------------------------------------------------------------------------

TABLE_1 = {"5": "0.000", "4": "0.125", "3": "0.403", "2": "0.483", "1": "0.780", "0": "1.000"}
MU_AP = "0.448"
NDCG_ROWS = {
    "labels as given": (
        ["0.07", "0.05", "0.20", "0.31", "0.35", "0.35", "0.36", "0.55"],
        "0.28",
    ),
    "labels doubled": (
        ["0.01", "0.01", "0.11", "0.19", "0.20", "0.20", "0.20", "0.44"],
        "0.17",
    ),
    "normalised (NDCNG)": (
        ["0.19", "0.13", "0.30", "0.42", "0.49", "0.47", "0.50", "0.65"],
        "0.39",
    ),
}


def printed_tables(tables: ModuleType, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert tables.main([]) == 0
    return capsys.readouterr().out.splitlines()


def line_starting(lines: list[str], first_cell: str, after: int = 0) -> list[str]:
    """The cells of the first line from index ``after`` whose first cell is ``first_cell``."""
    for line in lines[after:]:
        cells = line.split()
        if cells and cells[0] == first_cell:
            return cells
    pytest.fail(f"no printed line starts with {first_cell!r}")


def block(lines: list[str], example: str) -> list[str]:
    """The printed lines of one example of Table 2 (after its heading)."""
    start = lines.index(example) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


# --- examples/paper_tables.py -----------------------------------------------------------------


def test_table_1_printed_equals_spec(
    tables: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = printed_tables(tables, capsys)
    header = line_starting(lines, "t")
    values = line_starting(lines, "AP^t")
    assert header[1:7] == list(TABLE_1)
    assert dict(zip(header[1:7], values[1:7], strict=True)) == TABLE_1
    assert values[-1] == MU_AP  # µAP, the last column
    assert values[-2] == MU_AP  # the mean over 5 > t > 0: levels 1..4 are one apart
    six = [float(v) for v in values[1:7]]
    assert float(values[7]) == pytest.approx(statistics.fmean(six), abs=6e-4)


def test_table_1_frame(tables: ModuleType) -> None:
    table = tables.table_1()
    assert table.columns == [
        *(f"t={t}" for t in (5, 4, 3, 2, 1, 0)),
        "mean",
        "mean 5>t>0",
        "µAP",
    ]
    row = table.row(0, named=True)
    assert row["µAP"] == pytest.approx(row["mean 5>t>0"], abs=1e-12)


@pytest.mark.parametrize("example", list(NDCG_ROWS))
def test_table_2_ndcg_rows_printed_equal_spec(
    tables: ModuleType, capsys: pytest.CaptureFixture[str], example: str
) -> None:
    rows = block(printed_tables(tables, capsys), example)
    name = "NDCNG" if "NDCNG" in example else "NDCG"
    cells = line_starting(rows, name)
    expected, mean = NDCG_ROWS[example]
    assert cells[1:9] == expected
    assert cells[9] == mean


def test_table_2_dcg_base_10_printed_equals_spec(
    tables: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = block(printed_tables(tables, capsys), "labels as given")
    assert line_starting(rows, "DCG")[8] == "45.65"
    ideal = [line.split() for line in rows if line.split()[:2] == ["ideal", "DCG"]]
    assert ideal[0][9] == "82.89"


def test_table_2_gain_rows(tables: ModuleType) -> None:
    table = tables.table_2().filter(pl.col("example") == "labels as given")
    positions = [str(k) for k in range(1, 9)]
    gain = table.filter(pl.col("row") == "gain").select(positions).row(0)
    ideal = table.filter(pl.col("row") == "ideal gain").select(positions).row(0)
    assert gain == (1.0, 0.0, 7.0, 7.0, 3.0, 0.0, 1.0, 15.0)
    assert ideal == tuple(sorted(gain, reverse=True))


@pytest.mark.parametrize("example", list(NDCG_ROWS))
def test_table_2_ndcg_is_dcg_over_ideal_dcg(tables: ModuleType, example: str) -> None:
    # the DCG rows and the NDCG (NDCNG) row come from different library calls
    table = tables.table_2().filter(pl.col("example") == example)
    positions = [str(k) for k in range(1, 9)]

    def row(name: str) -> tuple[float, ...]:
        values: tuple[float, ...] = table.filter(pl.col("row") == name).select(positions).row(0)
        return values

    ratios = [d / i for d, i in zip(row("DCG"), row("ideal DCG"), strict=True)]
    assert row("NDCG") == pytest.approx(ratios, abs=1e-12)
    mean = table.filter(pl.col("row") == "NDCG")["mean"][0]
    assert mean == pytest.approx(statistics.fmean(ratios), abs=1e-12)


def test_paper_tables_rejects_arguments(
    tables: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert tables.main(["--bogus"]) == 2
    assert "takes no arguments" in capsys.readouterr().err


# --- examples/artificial.py -------------------------------------------------------------------

SMALL_RUNS = 20  # enough for the k = 50 claim: NDCG's spread >= 3x the others' on 30 seeds


@pytest.fixture(scope="module")
def small(artificial: ModuleType) -> tuple[pl.DataFrame, pl.DataFrame]:
    values = artificial.compute(runs=SMALL_RUNS, swaps=[0, 10, 50], seed=0)
    return values, artificial.curves(values)


def test_batched_values_have_one_row_per_ranking(
    artificial: ModuleType, small: tuple[pl.DataFrame, pl.DataFrame]
) -> None:
    values, means = small
    assert values.height == 2 * 4 * 3 * SMALL_RUNS
    assert values.columns == [*artificial.KEYS, "query", *artificial.MEASURES]
    assert means["runs"].unique().to_list() == [SMALL_RUNS]


def test_perfect_ranking_scores_one(
    artificial: ModuleType, small: tuple[pl.DataFrame, pl.DataFrame]
) -> None:
    values, _ = small
    perfect = values.filter(pl.col("swaps") == 0)
    assert perfect.height == 2 * 4 * SMALL_RUNS
    for measure in artificial.MEASURES:
        assert perfect[measure].to_list() == pytest.approx([1.0] * perfect.height, abs=1e-12)


def test_swaps_lower_every_measure(
    artificial: ModuleType, small: tuple[pl.DataFrame, pl.DataFrame]
) -> None:
    _, means = small
    for measure in artificial.MEASURES:
        at = {k: means.filter(pl.col("swaps") == k)[measure] for k in (0, 10, 50)}
        assert (at[10] < at[0]).all()
        assert (at[50] < at[10]).all()


def test_claim_at_k50_uniform(
    artificial: ModuleType, small: tuple[pl.DataFrame, pl.DataFrame]
) -> None:
    _, means = small
    spreads = artificial.spread_table(means, [50]).filter(pl.col("distribution") == "uniform")
    row = spreads.row(0, named=True)
    assert row["mean_ndcg"] > row["mu_ap"]
    assert row["mean_ndcg"] > row["mean_ndcng"]
    assert row["mean_ndcg"] >= artificial.MUCH * max(row["mu_ap"], row["mean_ndcng"])


def test_spread_is_max_minus_min_over_levels(
    artificial: ModuleType, small: tuple[pl.DataFrame, pl.DataFrame]
) -> None:
    _, means = small
    spreads = artificial.spread_table(means, [10])
    one = means.filter((pl.col("distribution") == "random") & (pl.col("swaps") == 10))
    got = spreads.filter(pl.col("distribution") == "random")["mu_ap"][0]
    top, bottom = one["mu_ap"].max(), one["mu_ap"].min()
    assert isinstance(top, float) and isinstance(bottom, float)
    assert got == pytest.approx(top - bottom)
    assert spreads["distribution"].cast(pl.String).to_list() == ["uniform", "random"]


def test_agreement_follows_the_numbers(artificial: ModuleType) -> None:
    spreads = pl.DataFrame(
        {
            "distribution": ["uniform", "random"],
            "swaps": [50, 50],
            "mu_ap": [0.01, 0.20],
            "mean_ndcg": [0.30, 0.25],
            "mean_ndcng": [0.02, 0.05],
        }
    )
    lines = artificial.agreement(spreads)
    assert lines[0].endswith(": agrees.")
    assert "does NOT agree" in lines[1]
    assert "1 of 2 points" in lines[-1]
    assert "random (Fig. 5), k = 50" in lines[-1]
    agreeing = artificial.agreement(spreads.head(1))
    assert "all 1 points" in agreeing[-1]


def test_swap_counts_keep_the_reported_ks(artificial: ModuleType) -> None:
    assert artificial.swap_counts(99, 1) == list(range(100))
    assert artificial.swap_counts(60, 25) == [0, 10, 25, 50, 60]
    assert artificial.swap_counts(0, 5) == [0]


def test_plot_writes_valid_pngs(
    artificial: ModuleType, small: tuple[pl.DataFrame, pl.DataFrame], tmp_path: Path
) -> None:
    _, means = small
    paths = artificial.plot(means, tmp_path / "figures")
    assert [p.name for p in paths] == ["fig4_uniform.png", "fig5_nonuniform.png"]
    for path in paths:
        data = path.read_bytes()
        assert data.startswith(PNG_SIGNATURE)
        assert data[12:16] == b"IHDR"
        width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
        assert width > 800
        assert height > 300


def test_main_prints_spreads_and_verdict(
    artificial: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = artificial.main(
        ["--runs", "5", "--swaps", "50", "--step", "50", "--no-plots", "--out", str(tmp_path)]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "Spread across the numbers of levels" in out
    assert "uniform (Fig. 4), k = 50" in out
    assert "The data agrees with the paper" in out
    assert not list(tmp_path.iterdir())  # --no-plots writes nothing


def test_main_writes_figures(
    artificial: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "figs"
    assert artificial.main(["--runs", "2", "--swaps", "10", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["fig4_uniform.png", "fig5_nonuniform.png"]
    assert f"Wrote {out / 'fig4_uniform.png'}" in capsys.readouterr().out


@pytest.fixture
def no_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every ``import matplotlib...`` fail, as if it were not installed."""
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)


def test_missing_matplotlib_hint(
    no_matplotlib: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = load_example("artificial")  # importing needs no matplotlib
    with pytest.raises(SystemExit) as exit_:
        module.main(["--runs", "1", "--swaps", "0", "--out", str(tmp_path)])
    message = str(exit_.value.code)
    assert message == module.HINT
    assert "\n" not in message
    assert "pip install 'polars-graded[plots]'" in message
    assert capsys.readouterr().out == ""  # it stops before doing the work


def test_no_plots_works_without_matplotlib(
    no_matplotlib: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = load_example("artificial")
    args = ["--runs", "1", "--swaps", "0", "--no-plots", "--out", str(tmp_path)]
    assert module.main(args) == 0
    assert "Spread across" in capsys.readouterr().out
