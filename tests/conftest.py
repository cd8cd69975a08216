"""Shared fixtures, factories and hypothesis strategies of the test suite.

- Hypothesis profiles: ``ci`` (the default: derandomized, so every run of the suite draws
  the same examples, no deadline, no example database) and ``explore`` (random seeds, for
  hunting locally: ``HYPOTHESIS_PROFILE=explore pytest tests/test_hostile.py``).
- Fixtures: ``frame_kind`` (every test that takes it runs on a DataFrame and a LazyFrame,
  as narwhals' ``constructor``), ``random_table`` (the suite's one seeded random long
  table, :func:`make_random_table`), ``write_trec`` (a TREC file with a BOM, CRLF, gzip or
  a truncated gzip) and ``shared_data`` (a path under ``../shared/data``: skips when it is
  missing, fails under ``CI=true``).
- Optional extras: :func:`import_extra` skips without one, and fails under ``CI=true``.
- Strategies (import them with ``from conftest import ...``): measure strings, long tables
  of random dtypes with or without hostile values, and TREC files with their expected
  content. Each drawn value carries what a correct library must do with it.
"""

from __future__ import annotations

import gzip
import importlib
import math
import os
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from types import ModuleType

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, settings
from hypothesis import strategies as st

from polars_graded.measures import MEASURES as REGISTERED
from polars_graded.measures.names.grammar import ALIASES

settings.register_profile("ci", derandomize=True, deadline=None, database=None, print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
"""Real data beside the repository (read only; see its SOURCE.md)."""


# --------------------------------------------------------------------------- fixtures


def in_ci() -> bool:
    """True under CI (the environment variable ``CI`` is ``"true"``)."""
    return os.environ.get("CI", "").lower() == "true"


def require_shared_data(relative: str | os.PathLike[str]) -> Path:
    """``../shared/data/<relative>``; skips the test when it is missing, fails under CI."""
    path = SHARED_DATA / relative
    if not path.exists():
        msg = f"shared data not found: {path}"
        if in_ci():
            pytest.fail(f"{msg} (CI=true: tests on shared data must run, not skip)")
        pytest.skip(msg)
    return path


@pytest.fixture(scope="session")
def shared_data() -> Callable[[str | os.PathLike[str]], Path]:
    """``shared_data("trec2003-robust")``: the path, or skip (locally) / fail (CI=true).

    Session-scoped, so that module fixtures that load the data can take it too.
    """
    return require_shared_data


def import_extra(module: str, reason: str) -> ModuleType:
    """``pytest.importorskip`` for an optional extra (``pyspark``, ...), with a reason; under
    ``CI=true``, where every extra is installed, a missing module fails the test instead.

    Test dependencies (the ``[test]`` extra: hypothesis, pytrec_eval, scipy, matplotlib)
    are imported directly, never through this.
    """
    if in_ci():
        try:
            return importlib.import_module(module)
        except ImportError as error:
            pytest.fail(f"{module} is missing under CI=true ({reason}): {error}")
    return pytest.importorskip(module, reason=reason)


@dataclass(frozen=True)
class FrameKind:
    """One way a user hands a table to the library: ``"eager"`` or ``"lazy"``."""

    name: str

    def __call__(self, df: pl.DataFrame) -> pl.DataFrame | pl.LazyFrame:
        return df if self.name == "eager" else df.lazy()

    def collect(self, result: pl.DataFrame | pl.LazyFrame) -> pl.DataFrame:
        """The result as a DataFrame; a LazyFrame in must give a LazyFrame out."""
        expected = pl.DataFrame if self.name == "eager" else pl.LazyFrame
        assert isinstance(result, expected), f"{self.name} input gave a {type(result).__name__}"
        return result if isinstance(result, pl.DataFrame) else result.collect()


@pytest.fixture(params=["eager", "lazy"])
def frame_kind(request: pytest.FixtureRequest) -> FrameKind:
    """Runs the test on a DataFrame and on a LazyFrame: ``frame_kind(df).graded...``."""
    return FrameKind(request.param)


# --------------------------------------------------------------------------- the random table

LABEL_KINDS = ("few", "many", "continuous", "pool")
"""How a query's labels are drawn (see :func:`random_labels`)."""
SCORE_KINDS = ("ties", "float", "float32_ties", "mixed")
"""How a ranking's scores are drawn (see :func:`random_scores`)."""


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
    100 + j * 1e-6, SPEC §2; ties under ``compat="trec_eval_9"`` only, distinct scores by
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
    """The suite's random long table (SPEC §1), seeded: every case the measures and the
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
    rows: list[tuple] = []
    for q in rng.choice(max(500, 4 * queries), size=queries, replace=False):
        n = int(rng.integers(1, max_items + 1))
        items = rng.choice(max(10 * max_items, 2000), size=n, replace=False)
        kind = str(rng.choice(list(label_kinds)))
        no_relevant = bool(rng.random() < 0.12)

        def judge(n: int = n, kind: str = kind, no_relevant: bool = no_relevant) -> tuple:
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


@pytest.fixture
def random_table() -> Callable[..., pl.DataFrame]:
    """The factory :func:`make_random_table`: ``random_table(seed, systems=2)``."""
    return make_random_table


def write_trec_file(
    path: str | os.PathLike[str],
    content: str | bytes,
    *,
    bom: bool = False,
    crlf: bool = False,
    compress: bool = False,
    truncate: int | None = None,
) -> Path:
    """Write a TREC run or qrels file as real files come: with a UTF-8 byte-order mark,
    CRLF line ends, gzip-compressed, or compressed and cut after ``truncate`` bytes."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    if crlf:
        data = data.replace(b"\n", b"\r\n")
    if bom:
        data = b"\xef\xbb\xbf" + data
    if compress or truncate is not None:
        data = gzip.compress(data, mtime=0)
    if truncate is not None:
        data = data[: max(2, min(truncate, len(data) - 1))]  # keep the magic bytes
    out = Path(path)
    out.write_bytes(data)
    return out


@pytest.fixture
def write_trec() -> Callable[..., Path]:
    """The writer :func:`write_trec_file`: ``write_trec(tmp_path / "run.txt", text, bom=True)``."""
    return write_trec_file


def trec_text(table: pl.DataFrame, *, system: str | None = None) -> tuple[str, str]:
    """A long table as TREC run and qrels text (rank and tag fields from the table's order)."""
    run_lines, qrels_lines = [], []
    rows = table.rows(named=True)
    for rank, row in enumerate(rows, start=1):
        if row["score"] is not None:
            tag = row[system] if system else "run"
            run_lines.append(f"{row['query']} Q0 {row['item']} {rank} {row['score']!r} {tag}")
    judged = {(r["query"], r["item"]): r["relevance"] for r in rows if r["relevance"] is not None}
    for (query, item), label in judged.items():
        qrels_lines.append(f"{query} 0 {item} {int(label)}")
    return "\n".join(run_lines) + "\n", "\n".join(qrels_lines) + "\n"


# --------------------------------------------------------------------------- the contract


def rankings(df: pl.DataFrame, keys: Sequence[str]) -> set[tuple]:
    """The rankings of a table: each distinct ``by + [query]`` with at least one row,
    computed in Python (not with the Polars operations the library uses)."""
    return set(df.select(keys).rows()) if df.height else set()


def assert_one_row_per_ranking(
    out: pl.DataFrame, keys: Sequence[str], expected: set[tuple], what: str
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


# --------------------------------------------------------------------------- measures

MEASURE_NAMES = (
    *("mu_ap", "ap", "ndcg", "ndcng", "dcg", "p", "recall", "r_precision", "rr"),
    *("mean_ndcg", "mean_ndcng", "err", "rbp", "rbp_residual", "bpref", "judged", "success"),
)
THRESHOLD_MEASURES = frozenset(
    {"ap", "p", "recall", "r_precision", "rr", "rbp", "bpref", "success"}
)
_PARAMS: dict[str, tuple[str, ...]] = {
    "mu_ap": ("levels",),
    "ndcg": ("gain",),
    "dcg": ("gain", "base"),
    "mean_ndcg": ("gain",),
    "err": ("max_rel",),
    "rbp": ("p", "rel"),
    "rbp_residual": ("p",),
}
_VALUES: dict[str, tuple[str, ...]] = {
    "rel": ("1", "2", "0.5", "3", "1e-9", "0", "-1", "-0.0", "2.0", "nan", "inf", "1e400"),
    "gain": ("exp", "linear", "{1:3,2:9}", "{0:1}", "{}", "{1:-1}", "{-1:5}", "{2:1e308}", "x"),
    "base": ("2", "10", "1.5", "1", "0", "-2", "1e-300"),
    "p": ("0.5", "0.8", "0.99", "1", "0", "1e-300"),
    "max_rel": ("1", "4", "10", "1023", "1024", "2000", "0", "1e308"),
    "levels": ("query", "table", "[1,2,3]", "[0.5]", "[1,1]", "[0]", "[]", "[1e308]", "other"),
    "k": ("1", "3", "10", "0", "99999999999999999999"),
}
MEASURES = (
    *("mu_ap", "mu_ap(levels=table)", "mu_ap(levels=[1,2.5])", "ap", "ap(rel=2)@5"),
    *("ndcg@10", "ndcg(gain=linear)", "ndcg(gain={1:3,2:9})", "ndcng@5", "dcg(base=10)@3"),
    *("mean_ndcg", "mean_ndcng", "p@3", "recall@5", "r_precision", "rr", "success@2", "bpref"),
    *("err@5", "err(max_rel=10)", "rbp(p=0.5)", "rbp_residual@5", "judged@3"),
)
"""Valid measures of every family; the hostile table tests draw from these."""
BOUNDED = ("mu_ap", "ap", "ndcg", "ndcng", "mean_", "p", "recall", "r_precision", "rr", "success")
"""Families whose values lie in [0, 1] on any input (dcg and the user models need not)."""


@dataclass(frozen=True)
class MeasureSpec:
    """A drawn measure string and the rule it breaks, if any (then it must raise)."""

    text: str
    must_raise: str | None = None


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


@st.composite
def measure_specs(draw: st.DrawFn) -> MeasureSpec:
    """A measure string in the grammar ``name[(param=value, ...)][@k]``, in any case and
    spacing, with valid and invalid parameter values.

    ``must_raise`` is set for what the contract rejects: an unknown name, an unknown
    parameter, a cutoff below 1 or given twice (``k=3`` and ``@4``), a relevance threshold
    <= 0 (issue 14, item 8).
    """
    known = draw(st.booleans()) or draw(st.booleans())
    name = (
        draw(st.sampled_from((*MEASURE_NAMES, *sorted(ALIASES))))
        if known
        else draw(st.from_regex(r"[a-z_]{1,8}", fullmatch=True))
    )
    base = ALIASES.get(name, name)
    # A drawn name may be a measure this strategy does not describe (its rules below cover
    # MEASURE_NAMES only): draw again.
    assume(base in MEASURE_NAMES or base not in REGISTERED)
    allowed = ("k", *(("rel",) if base in THRESHOLD_MEASURES else ()), *_PARAMS.get(base, ()))
    chosen = draw(st.lists(st.sampled_from([*allowed, "bogus"]), max_size=2, unique=True))
    params = {p: draw(st.sampled_from(_VALUES.get(p, ("1",)))) for p in chosen}
    at_k = draw(st.none() | st.sampled_from(_VALUES["k"]))
    must_raise = None
    if base not in MEASURE_NAMES:
        must_raise = "unknown measure"
    elif "bogus" in params:
        must_raise = "unknown parameter"
    elif any(v is not None and int(v) < 1 for v in (params.get("k"), at_k)):
        must_raise = "cutoff k < 1"
    elif "k" in params and at_k is not None:
        must_raise = "cutoff given twice"
    elif "rel" in params and (_number(params["rel"]) or 0.0) <= 0 and params["rel"] != "nan":
        must_raise = "relevance threshold <= 0"
    space = st.sampled_from(["", "", " ", "  ", "\t"])
    upper = draw(st.booleans())
    text = name.upper() if upper else name
    if params:
        inner = f",{draw(space)}".join(
            f"{p}{draw(space)}={draw(space)}{v}" for p, v in params.items()
        )
        text += f"{draw(space)}({inner})"
    if at_k is not None:
        text += f"{draw(space)}@{draw(space)}{at_k}"
    return MeasureSpec(draw(space) + text + draw(space), must_raise)


GRAMMAR_CHARS = "ap_ndcgmurel=()[]{},:@.0123456789-+eE \t\n#'\"\\/xé😀\u00a0\u200b"
measure_garbage = st.one_of(
    st.text(alphabet=GRAMMAR_CHARS, max_size=40),
    st.text(max_size=30),
    st.binary(max_size=40).map(lambda b: b.decode("utf-8", errors="replace")),
    st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
)
"""Strings a config file, a form or a corrupt file could hand over as a measure name."""


# --------------------------------------------------------------------------- tables

INT_TYPES = (
    pl.Int8,
    pl.Int16,
    pl.Int32,
    pl.Int64,
    pl.Int128,
    pl.UInt8,
    pl.UInt16,
    pl.UInt32,
    pl.UInt64,
    pl.UInt128,
)
FLOAT_TYPES = (pl.Float16, pl.Float32, pl.Float64)
# The first entry is what a failing example shrinks to; the common types come more often.
KEY_TYPES = (
    pl.Int64,
    pl.String,
    pl.String,
    *INT_TYPES,
    pl.Float32,
    pl.Float64,
    pl.String,
    pl.Categorical,
    "enum",
    pl.Boolean,
    pl.Decimal(38, 2),
)
NUMBER_TYPES = (
    pl.Float64,
    pl.Float64,
    pl.Int64,
    pl.Float32,
    *INT_TYPES,
    *FLOAT_TYPES,
    pl.Decimal(20, 4),
    pl.Boolean,
)
TEXT_TYPES = (pl.String, pl.Categorical, "enum")
KEY_INTS = (
    0,
    1,
    2,
    3,
    7,
    10,
    42,
    99,
    127,
    128,
    255,
    256,
    1000,
    -1,
    -2,
    -128,
    -129,
    2**31,
    2**63 - 1,
    2**64 - 1,
)
KEY_TEXTS = (
    "",
    " ",
    "\t",
    "0",
    "00",
    " a",
    "a ",
    "A",
    "é",
    "e\u0301",
    "😀",
    "\u00a0",
    "\u200b",
    "q#1",
    "a\nb",
    "null",
    "NaN",
    "1.0",
)
SCORES = (0.0, 1.0, 1.0, 2.0, 2.0, 3.5, -1.0, -0.0, 1000.0, 1000.0 + 1e-9, 1e-300, -1e300, 1e308)
HOSTILE_SCORES = (math.inf, -math.inf, 5e-324, 3.4e38, -3.5e38)
LABELS = (-2.0, -1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 3.0, 4.0, 0.5, 1.000001, 2.75)
HOSTILE_LABELS = (
    1023.0,
    1024.0,
    2000.0,
    1e308,
    1e-300,
    5e-324,
    math.inf,
    -math.inf,
    math.nan,
    -1e308,
)
DtypeChoice = pl.DataType | type[pl.DataType] | str


def _resolve(dtype: DtypeChoice, values: Sequence[object]) -> pl.DataType:
    if dtype == "enum":
        return pl.Enum(sorted({str(v) for v in values if v is not None}))
    return dtype() if isinstance(dtype, type) else dtype  # type: ignore[return-value]


def _key_series(
    name: str, ids: list[int | None], dtype: DtypeChoice, texts: dict[int, str]
) -> pl.Series:
    """Key ids as a column of ``dtype``; ids a dtype cannot hold become null (strict=False)."""
    if dtype in TEXT_TYPES:
        values = [None if i is None else texts.get(i, str(i)) for i in ids]
        return pl.Series(name, values, dtype=pl.String).cast(_resolve(dtype, values))
    if dtype == pl.Boolean:
        return pl.Series(name, [None if i is None else i % 2 == 1 for i in ids], dtype=pl.Boolean)
    if isinstance(dtype, pl.Decimal):
        return pl.Series(name, [None if i is None else Decimal(i) / 4 for i in ids], dtype=dtype)
    return pl.Series(name, ids, dtype=pl.Int128, strict=False).cast(
        _resolve(dtype, ids), strict=False
    )


def _number_series(name: str, values: list[float | None], dtype: DtypeChoice) -> pl.Series:
    """Floats as a column of ``dtype`` (a text type holds their repr); what ``dtype``
    cannot hold becomes null."""
    floats = pl.Series(name, values, dtype=pl.Float64)
    if dtype in TEXT_TYPES:
        strings = floats.cast(pl.String)
        return strings.cast(_resolve(dtype, strings.to_list()))
    return floats.cast(_resolve(dtype, values), strict=False)


@dataclass
class Table:
    """A drawn long table, the arguments that name its columns, and what must happen."""

    df: pl.DataFrame
    columns: dict[str, object] = field(default_factory=dict)
    """Keyword arguments: ``query=``, ..., ``by=`` (only those that differ from defaults)."""
    by: list[str] = field(default_factory=list)
    query: str = "query"
    item: str = "item"
    score: str = "score"
    relevance: str = "relevance"
    must_raise: str | None = None
    """Why the library must raise a GradedError, or None if the table is valid."""

    @property
    def keys(self) -> list[str]:
        return [*self.by, self.query]

    def rankings(self) -> set[tuple]:
        return rankings(self.df, self.keys)


def table_violation(t: Table) -> str | None:
    """The first rule of the data model the table breaks (SPEC §1, README Conventions),
    decided in Python from the rows."""
    return next(_violations(t), None)


def _violations(t: Table) -> Iterator[str]:
    names = [*t.by, t.query, t.item, t.score, t.relevance]
    if len(set(names)) < len(names):
        yield "columns not distinct"
    if missing := [n for n in names if n not in t.df.columns]:
        yield f"missing column {missing}"
    for name in (t.score, t.relevance):
        dtype = t.df.schema[name]
        if not (dtype.is_numeric() or dtype in (pl.Boolean, pl.Null)):
            yield f"non-numeric {name}"
    for name in (*t.keys, t.item):
        if t.df.get_column(name).null_count():
            yield f"null in {name}"
    for name in (t.score, t.relevance):
        values = t.df.get_column(name)
        if values.dtype.is_float() and values.is_nan().any():
            yield f"NaN in {name}"
    if any(n > 1 for n in Counter(t.df.select(*t.keys, t.item).rows()).values()):
        yield "duplicate key"


@st.composite
def _rows(
    draw: st.DrawFn,
    ranking_keys: list[tuple],
    key_names: list[str],
    names: tuple[str, str, str],
    *,
    items: st.SearchStrategy[list],
    scores: tuple[float, ...],
    labels: tuple[float, ...],
) -> dict[str, list]:
    """The rows of each ranking as columns of Python values (key ids, floats, None)."""
    item, score, relevance = names
    columns: dict[str, list] = {n: [] for n in [*key_names, item, score, relevance]}
    for key in ranking_keys:
        for it in draw(items):
            for name, value in zip(key_names, key, strict=True):
                columns[name].append(value)
            columns[item].append(it)
            columns[score].append(draw(st.none() | st.sampled_from(scores)))
            columns[relevance].append(draw(st.none() | st.sampled_from(labels)))
    return columns


@st.composite
def _key_texts(draw: st.DrawFn, columns: dict[str, list]) -> dict[int, str]:
    """A text for each key id, for text key columns: numbers with leading zeros, signs and
    exponents (which type inference would merge), whitespace, unicode."""
    texts = {}
    for i in sorted({v for c in columns.values() for v in c if isinstance(v, int)}):
        numeric_looking = [str(i), f"0{i}", f"00{i}", f"+{i}", f"{i}.0", f"{i}e0"]
        texts[i] = draw(st.sampled_from(numeric_looking + [t + str(i) for t in KEY_TEXTS]))
    return texts


def rarely(n: int) -> st.SearchStrategy[bool]:
    """True about once in ``n`` draws; shrinks to False (a hostile feature goes away)."""
    return st.sampled_from([False] * (n - 1) + [True])


@st.composite
def tables(
    draw: st.DrawFn,
    *,
    hostile: bool = True,
    dtypes: bool = True,
    max_rankings: int = 5,
    max_items: int = 7,
    max_by: int = 2,
    extreme: bool | None = None,
) -> Table:
    """A long table with random dtypes, ``by`` columns and column names.

    ``hostile``: each table may also get (each feature about once in 3 to 12 tables) key
    ids a narrow dtype cannot hold, infinite and huge values, NaN, null keys, duplicate keys,
    non-numeric score/relevance, a missing column, ``by`` columns named like result or
    internal columns, ``by`` naming a column twice, or no rows at all. With
    ``hostile=False`` the table keeps every rule of the data model, though its dtypes (with
    ``dtypes``) may still be ones the library rejects with a ColumnTypeError. ``extreme``
    forces (True) or forbids (False) infinite and huge scores and labels, which keep the
    rules.
    """

    def feature(n: int) -> bool:
        return hostile and draw(rarely(n))

    n_by = draw(st.integers(0, max_by))
    by_pool = ["system", "run id", "système", "day"]
    if feature(6):
        by_pool = ["ap", "num_q", "threshold", "weight", "__pg_ranking", "__pg_rel"]
    by_names = draw(st.lists(st.sampled_from(by_pool), min_size=n_by, max_size=n_by, unique=True))
    renamed = dtypes and draw(rarely(4))
    query, item, score, relevance = (
        ("Query", "doc id", "分数", "rel ") if renamed else ("query", "item", "score", "relevance")
    )
    key_type = st.sampled_from(KEY_TYPES if dtypes else (pl.Int64, pl.String))
    number_type = st.sampled_from(NUMBER_TYPES if dtypes else (pl.Float64, pl.Int64))
    types = {name: draw(key_type) for name in [*by_names, query, item]}
    types[score], types[relevance] = draw(number_type), draw(number_type)
    if feature(6):
        types[draw(st.sampled_from([score, relevance]))] = draw(st.sampled_from(TEXT_TYPES))

    key_ids = st.sampled_from(KEY_INTS if feature(4) else KEY_INTS[:8])
    extreme = feature(2) if extreme is None else extreme
    nan = feature(6)
    n_rankings = 0 if feature(10) else draw(st.integers(1, max_rankings))
    ranking_keys = draw(
        st.lists(
            st.tuples(*[key_ids] * (n_by + 1)),
            min_size=n_rankings,
            max_size=n_rankings,
            unique=True,
        )
    )
    duplicates = feature(6)
    columns = draw(
        _rows(
            ranking_keys,
            [*by_names, query],
            (item, score, relevance),
            items=st.lists(key_ids, min_size=1, max_size=max_items, unique=not duplicates),
            scores=SCORES + (HOSTILE_SCORES if extreme else ()) + ((math.nan,) if nan else ()),
            labels=LABELS + (HOSTILE_LABELS if extreme else ()) + ((math.nan,) if nan else ()),
        )
    )
    if columns[item] and feature(6):
        column = draw(st.sampled_from([*by_names, query, item]))
        columns[column][draw(st.integers(0, len(columns[column]) - 1))] = None

    texts = draw(_key_texts(columns)) if dtypes else {}
    series = [_key_series(n, columns[n], types[n], texts) for n in [*by_names, query, item]] + [
        _number_series(n, columns[n], types[n]) for n in (score, relevance)
    ]
    df = pl.DataFrame(series)
    if df.height > 1 and draw(st.booleans()):
        df = df[list(draw(st.permutations(range(df.height))))]
    if duplicates and df.height:
        df = pl.concat([df, df.sample(1, seed=0)])  # an exact duplicate row
    if feature(10):
        df = df.drop(draw(st.sampled_from(df.columns)))

    named = {"query": query, "item": item, "score": score, "relevance": relevance}
    kwargs: dict[str, object] = {k: v for k, v in named.items() if k != v}
    by = list(by_names)
    if feature(12):
        by.append(draw(st.sampled_from([query, item, score, relevance])))  # not distinct
    if by:
        kwargs["by"] = by if len(by) > 1 or draw(st.booleans()) else by[0]
    t = Table(df, kwargs, by, query, item, score, relevance)
    t.must_raise = table_violation(t)
    if not hostile:  # a narrow dtype can still merge keys (booleans): draw again
        assume(t.must_raise is None)
    return t


# --------------------------------------------------------------------------- TREC files

_SEPARATORS = (" ", " ", "\t", "  ", " \t ", "\v", "\f")
"""Field separators: C's isspace() characters, as trec_eval splits lines."""
token = st.text(
    alphabet=st.characters(
        codec="utf-8",
        exclude_categories=("Cs", "Zs", "Zl", "Zp", "Cc"),
        exclude_characters="#\ufeff\x85",
    ),
    min_size=1,
    max_size=5,
).filter(lambda t: not any(c.isspace() for c in t))
"""A field: no whitespace in C's or Unicode's sense, no ``#`` (which starts a comment)."""
NUMBERS = st.one_of(
    st.integers(-1000, 1000).map(str),
    st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr),
    st.sampled_from(["+4", ".5", "5.", "1e3", "-2.5E-3", "1e308", "0", "-0", "inf", "-inf"]),
)
NOT_NUMBERS = st.sampled_from(
    ["abc", "1.2.3", "--1", "1e", "e5", "+", "-", ".", "0x10", "1,5", "٣"]
)


@dataclass
class TrecFile:
    """A drawn TREC file: its text, how it is stored, and what reading it must give."""

    text: str
    rows: list[tuple]
    """The expected rows: (query, item, score) of a run, (query, item, relevance) of qrels."""
    must_raise: str | None
    nan_scores: bool = False
    """A run with a NaN score: readable, but evaluating it must raise."""
    may_refuse: bool = False
    """Holds a label beyond 64-bit integers (1e30): read exactly, or a GradedError."""
    bom: bool = False
    crlf: bool = False
    compress: bool = False
    truncate: int | None = None

    def write(self, path: Path) -> Path:
        return write_trec_file(
            path,
            self.text,
            bom=self.bom,
            crlf=self.crlf,
            compress=self.compress,
            truncate=self.truncate,
        )


@st.composite
def _content_line(draw: st.DrawFn, fields: list[str]) -> str:
    sep = draw(st.sampled_from(_SEPARATORS))
    lead = draw(st.sampled_from(["", "", " ", "\t"]))
    tail = draw(st.sampled_from(["", "", " ", "\r", "\t"]))
    return lead + sep.join(fields) + tail


_LINE_KINDS = ("row",) * 6 + ("blank", "comment")
_HOSTILE_KINDS = ("fields", "value", "nan", "huge")
_COMMENT = st.text(max_size=10).filter(lambda t: "\n" not in t)
_RUN_VALUES = {
    "row": NUMBERS,
    "value": NOT_NUMBERS,
    "nan": st.sampled_from(["nan", "NaN"]),
    "huge": st.sampled_from(["1e400", "-1e400", "1e308"]),  # a float overflows to infinity
}
_QRELS_VALUES = {
    "row": st.integers(-2, 4).map(str) | st.sampled_from(["2.0", "+3", "1e2", "1024", "-0"]),
    "value": st.sampled_from(["2.5", "abc", "inf", "1e400", "-", "0.5"]),
    "nan": st.just("nan"),
    "huge": st.sampled_from(["1e30", "99999999999999999999", "9223372036854775808"]),
}


@st.composite
def trec_files(
    draw: st.DrawFn, *, kind: str, queries: Sequence[str] | None = None, hostile: bool = True
) -> TrecFile:
    """A TREC run (``kind="run"``) or qrels file: valid lines with C-whitespace separators,
    blank and comment lines, and (``hostile``) wrong field counts, non-numeric or NaN scores,
    non-integer labels, a BOM, CRLF, gzip and truncated gzip."""
    query_ids = list(queries or draw(st.lists(token, min_size=1, max_size=4, unique=True)))
    f = TrecFile("", [], None)
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 12))):
        what = draw(st.sampled_from(_LINE_KINDS + (_HOSTILE_KINDS if hostile else ())))
        if what == "blank":
            lines.append(draw(st.sampled_from(["", " ", "\t", "\r", " \f "])))
            continue
        if what == "comment":
            lines.append(draw(st.sampled_from(["", " ", "\t"])) + "#" + draw(_COMMENT))
            continue
        q, it = draw(st.sampled_from(query_ids)), draw(token)
        if kind == "run":
            value = draw(_RUN_VALUES.get(what, NUMBERS))
            rank = draw(st.integers(0, 99).map(str) | token)
            fields = [q, "Q0", it, rank, value, draw(token), *draw(st.lists(token, max_size=2))]
            row = (q, it, float(value) if what in ("row", "nan", "huge") else None)
        else:
            value = draw(_QRELS_VALUES.get(what, _QRELS_VALUES["row"]))
            fields = [q, draw(token), it, value]
            row = (q, it, int(float(value)) if what in ("row", "huge") else None)
        if what == "fields":  # a run needs at least 6 fields, qrels exactly 4
            keep = draw(st.integers(1, 5) if kind == "run" else st.sampled_from([1, 2, 3, 5, 6]))
            extra = [draw(token) for _ in range(keep - len(fields))]
            fields = [*fields, *extra][:keep]
        lines.append(draw(_content_line(fields)))
        if what in ("row", "huge") or (what == "nan" and kind == "run"):
            f.rows.append(row)
            f.nan_scores = f.nan_scores or what == "nan"
            f.may_refuse = f.may_refuse or (what == "huge" and kind == "qrels")
        elif f.must_raise is None:
            f.must_raise = f"line {len(lines)} ({what})"
    f.text = "\n".join(lines) + (draw(st.sampled_from(["\n", "\n", "", "\n\n"])) if lines else "")
    if hostile:
        f.bom, f.crlf, f.compress = draw(rarely(4)), draw(rarely(4)), draw(rarely(4))
        if f.compress and draw(rarely(3)):
            f.truncate = draw(st.integers(2, 200))
            f.must_raise = f.must_raise or "truncated gzip"
    return f


def expected_joined_rankings(
    run: Sequence[tuple], qrels: Sequence[tuple], queries: str, systems: Sequence[str] | None = None
) -> set[tuple]:
    """The rankings (query,) or (system, query) of a run/qrels join, from the rows alone:
    ``qrels`` mode keeps the judged queries (for every system), ``both`` a system's judged
    queries it retrieved, ``all`` every judged or retrieved query."""
    judged = {q for q, *_ in qrels}
    if systems is None:
        retrieved = {q for q, *_ in run}
        wanted = {"qrels": judged, "both": judged & retrieved, "all": judged | retrieved}[queries]
        return {(q,) for q in wanted}
    out = set()
    for system in set(systems):
        mine = {q for (q, *_), s in zip(run, systems, strict=True) if s == system}
        wanted = {"qrels": judged, "both": judged & mine, "all": judged | mine}[queries]
        out |= {(system, q) for q in wanted}
    return out


def trec_dicts(table: pl.DataFrame, system: str) -> tuple[dict, dict]:
    """pytrec_eval's qrels (rows with a label) and run (rows with a score) of one system."""
    mine = table.filter(pl.col("system") == system)
    qrels: dict = defaultdict(dict)
    judged = mine.filter(pl.col("relevance").is_not_null())
    for query, item, rel in judged.select("query", "item", "relevance").iter_rows():
        qrels[query][item] = rel
    run: dict = defaultdict(dict)
    retrieved = mine.filter(pl.col("score").is_not_null())
    for query, item, score in retrieved.select("query", "item", "score").iter_rows():
        run[query][item] = score
    return dict(qrels), dict(run)


def read_trec_eval_output(path: Path) -> dict[tuple[str, str], str]:
    """{(measure, query or "all"): value as printed} of a trec_eval output file (``out.*``)."""
    expected = {}
    for line in path.read_text().splitlines():
        measure, query, value = (field.strip() for field in line.split("\t"))
        expected[measure, query] = value
    return expected
