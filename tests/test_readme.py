"""Every example of README.md runs as written on the data it describes (issue 14, item 17).

The ```python blocks run in order in one namespace, as the cells of a notebook, in a folder
holding the files the README names (``runs.parquet`` with a ``system`` column,
``traffic_log.parquet``, the same with an ``impressions`` column, ``ranked_log.parquet`` in
ranked order, ``logs/`` of Parquet files, the TREC files
``run.txt``, ``qrels.txt``, ``bm25.txt``, ``splade.txt``; ``examples/topics.csv``, the
repository's own, Robust 2003's topics as old or new); a LazyFrame a block leaves as an
expression is collected, as the next cell would. The ``polars-graded`` commands of the
```bash blocks run in process (``cli.main``) in the same folder; those on ``../shared/data``
run when the data is there (they fail under ``CI=true`` without it). A block that cannot
run anywhere is marked ``<!-- readme-test: skip (reason) -->`` right before it; a block
that uses Spark skips without Java, or without pyspark (which fails under ``CI=true``, where
the extra is installed). A GradedWarning is an error here: an example that warns does not
describe its data.
"""

from __future__ import annotations

import ast
import glob
import gzip
import re
import shlex
import shutil
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from support.environment import import_extra, require_shared_data
from support.tables import make_random_table
from support.trec_files import trec_text, write_trec_file

from polars_graded import cli, errors

README = Path(__file__).resolve().parents[1] / "README.md"
TOPICS = README.parent / "examples" / "topics.csv"
"""The Robust 2003 topics as old or new, which the README's report example reads."""
_BLOCK = re.compile(
    r"(?:<!--\s*readme-test:\s*(?P<directive>.*?)\s*-->\s*\n)?^```(?P<lang>\w*)\n(?P<code>.*?)^```",
    re.DOTALL | re.MULTILINE,
)
SHARED_PREFIX = "../shared/data/"


@dataclass(frozen=True)
class Block:
    lang: str
    code: str
    line: int
    """Line number in README.md of the block's first line of code."""
    skip: str | None

    @property
    def where(self) -> str:
        return f"README.md:{self.line}"


def readme_blocks() -> list[Block]:
    text = README.read_text(encoding="utf-8")
    blocks = []
    for match in _BLOCK.finditer(text):
        line = text.count("\n", 0, match.start("code")) + 1
        directive = match["directive"]
        skip = None
        if directive is not None:
            if not directive.startswith("skip"):
                msg = f"README.md:{line}: unknown readme-test directive {directive!r}"
                raise ValueError(msg)
            skip = directive.removeprefix("skip").strip(" ()") or "marked skip"
        blocks.append(Block(match["lang"], match["code"], line, skip))
    return blocks


BLOCKS = readme_blocks()
PYTHON = [b for b in BLOCKS if b.lang == "python"]


def commands(block: Block) -> Iterator[str]:
    """The commands of a bash block: continuation lines joined, ``&&`` chains split."""
    text = re.sub(r"\\\n\s*", " ", block.code)
    for line in text.splitlines():
        for part in line.split("&&"):
            command = part.strip()
            if command and not command.startswith("#"):
                yield command


def _words(command: str) -> list[str]:
    """Shell words; an unquoted word with ``*?[`` expands as the shell expands it."""
    words = []
    for token in re.findall(r"'[^']*'|\"[^\"]*\"|\S+", command):
        if token[0] in "'\"":
            words.append(token[1:-1])
            continue
        word = token
        if token.startswith(SHARED_PREFIX):  # the data beside the repository
            word = str(require_shared_data(token.removeprefix(SHARED_PREFIX).split("/")[0]))
            word += "/" + token.removeprefix(SHARED_PREFIX).split("/", 1)[1]
        matches = sorted(glob.glob(word)) if any(c in word for c in "*?[") else []
        words.extend(matches or [word])
    return words


BASH = [
    pytest.param(block, command, id=f"{block.line}:{command[:40]}")
    for block in BLOCKS
    if block.lang == "bash"
    for command in commands(block)
    if command.startswith("polars-graded")
]


# --------------------------------------------------------------------------- the data


def write_fixtures(root: Path) -> None:
    """The files the README's examples read, with the columns it says they have."""
    runs = make_random_table(1, systems=2, queries=8, int_labels=True).with_columns(
        pl.col("system").replace({"s0": "bm25", "s1": "splade"})
    )
    runs.write_parquet(root / "runs.parquet")
    # The same with each query's traffic, 1000 / its rank (some head, a long tail).
    rank = pl.col("query").rank("dense")
    traffic = runs.with_columns(impressions=(1000 / rank).round().cast(pl.Int64))
    traffic.write_parquet(root / "traffic_log.parquet")
    logs = root / "logs"
    logs.mkdir()
    for i in range(3):  # a query's rows spread over several files
        runs[i::3].write_parquet(logs / f"part-{i}.parquet")
    one = runs.filter(pl.col("system") == "bm25").drop("system")
    ranked = one.sort(
        "query",
        "score",  # compared as doubles, as trec_eval 10.0
        "item",
        descending=[False, True, True],
        nulls_last=True,
    )
    ranked.write_parquet(root / "ranked_log.parquet")
    for system in ("bm25", "splade"):
        run, qrels = trec_text(runs.filter(pl.col("system") == system), system="system")
        write_trec_file(root / f"{system}.txt", run)
    write_trec_file(root / "run.txt", trec_text(one)[0])
    write_trec_file(root / "qrels.txt", qrels)
    (root / "examples").mkdir()  # the file the repository ships, where the README names it
    shutil.copy(TOPICS, root / "examples" / "topics.csv")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("readme")
    write_fixtures(root)
    return root


# --------------------------------------------------------------------------- the tests


def test_readme_has_examples() -> None:
    """The parser finds the README's examples (a test of the test)."""
    assert len(PYTHON) >= 5
    assert len(BASH) >= 4


def require_spark() -> None:
    """Skip without pyspark (fail under CI) or without Java."""
    import_extra("pyspark", "the README's Spark example needs the [spark] extra")
    if shutil.which("java") is None:
        pytest.skip("the README's Spark example needs Java on PATH")


def run_python(block: Block, namespace: dict[str, Any]) -> None:
    """Run a block statement by statement; a LazyFrame left as an expression is collected."""
    tree = ast.parse(block.code, filename=block.where)
    ast.increment_lineno(tree, block.line - 1)
    for statement in tree.body:
        if isinstance(statement, ast.Expr):
            code = compile(ast.Expression(statement.value), str(README), "eval")
            value = eval(code, namespace)
            if isinstance(value, pl.LazyFrame):
                value.collect()
        else:
            exec(compile(ast.Module([statement], []), str(README), "exec"), namespace)


def test_readme_python_blocks(
    folder: Path, monkeypatch: pytest.MonkeyPatch, subtests: pytest.Subtests
) -> None:
    """Every ```python block, in order, in one namespace, in the folder of fixture files."""
    monkeypatch.chdir(folder)
    namespace: dict[str, Any] = {"__name__": "__readme__"}
    for block in PYTHON:
        with subtests.test(msg=block.where):
            if block.skip:
                pytest.skip(block.skip)
            if "pyspark" in block.code:
                require_spark()
            with warnings.catch_warnings():
                warnings.simplefilter("error", errors.GradedWarning)
                run_python(block, namespace)


@pytest.mark.parametrize(("block", "command"), BASH)
def test_readme_commands(
    block: Block,
    command: str,
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every ``polars-graded`` command of a ```bash block exits 0, in process."""
    if block.skip:
        pytest.skip(block.skip)
    others = [c for c in commands(block) if not c.startswith("polars-graded")]
    assert not others, f"{block.where}: cannot run {others}; mark the block readme-test: skip"
    monkeypatch.chdir(folder)
    words = _words(command)
    code = cli.main(words[1:])
    _, err = capsys.readouterr()
    assert code == 0, f"{block.where}: {shlex.join(words)} exited {code}: {err}"


# --------------------------------------------------------------------------- quoted numbers


def markdown_tables(text: str) -> list[list[dict[str, str]]]:
    """Every pipe table of ``text``: a header row, then rows (a separator row is skipped)."""
    tables: list[list[dict[str, str]]] = []
    head: list[str] | None = None
    for line in text.splitlines():
        if not line.startswith("|"):
            head = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if all(set(c) <= set("-: ") for c in cells):
            continue
        if head is None or cells[0] in ("system", "pair", "topics"):
            head = cells
            tables.append([])
        else:
            tables[-1].append(dict(zip(head, cells, strict=True)))
    return tables


def test_readme_quotes_the_robust_report(
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Every row the README quotes from the Robust 2003 report (the ```text tables under
    "Trusting the verdict") is a row of the report its command writes, cell for cell."""
    command = next(str(p.values[1]) for p in BASH if "--segment-table" in str(p.values[1]))
    monkeypatch.chdir(folder)
    words = _words(command)
    out = tmp_path / "report"
    code = cli.main([*words[1 : words.index("--out")], "--out", str(out)])
    assert code == 0, capsys.readouterr()
    written = [row for table in markdown_tables((out / "report.md").read_text()) for row in table]
    text = README.read_text(encoding="utf-8")
    start = text.index("### Trusting the verdict")
    section = text[start : text.index("\n### ", start)]
    quoted = [b for b in readme_blocks() if b.lang == "text" and b.code in section]
    rows = [row for b in quoted for table in markdown_tables(b.code) for row in table]
    assert len(rows) >= 10
    for row in rows:
        assert any(all(w.get(k) == v for k, v in row.items()) for w in written), row


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
