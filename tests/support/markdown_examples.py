"""The examples of a Markdown page (README.md, docs/**/*.md), run as a reader runs them.

The ```python blocks of a page run in order in one namespace, as the cells of a notebook, in
a folder holding the files the pages name (:func:`write_fixtures`: ``runs.parquet`` with a
``system`` column, ``traffic_log.parquet``, the same with an ``impressions`` column,
``ranked_log.parquet`` in ranked order, ``logs/`` of Parquet files, the TREC files
``run.txt``, ``qrels.txt``, ``bm25.txt``, ``splade.txt``; ``examples/topics.csv``, the
repository's own); a LazyFrame a block leaves as an expression is collected, as the next
cell would. The ``polars-graded`` commands of the ```bash blocks run in process
(``cli.main``) in the same folder; those on ``../shared/data`` run when the data is there
(they fail under ``CI=true`` without it). A block that cannot run anywhere is marked
``<!-- readme-test: skip (reason) -->`` right before it.
"""

from __future__ import annotations

import ast
import glob
import itertools
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

from polars_graded import cli, errors
from support.environment import import_extra, require_shared_data
from support.tables import make_random_table
from support.trec_files import trec_text, write_trec_file

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
TOPICS = ROOT / "examples" / "topics.csv"
"""The Robust 2003 topics as old or new, which the report example reads."""
SHARED_PREFIX = "../shared/data/"
_BLOCK = re.compile(
    r"(?:<!--\s*readme-test:\s*(?P<directive>.*?)\s*-->\s*\n)?^```(?P<lang>[\w{}-]*)[^\n]*\n"
    r"(?P<code>.*?)^```",
    re.DOTALL | re.MULTILINE,
)


@dataclass(frozen=True)
class Block:
    page: Path
    lang: str
    code: str
    line: int
    """Line number in the page of the block's first line of code."""
    skip: str | None
    span: tuple[int, int] = (0, 0)
    """Where the block (its fences included) starts and ends in the page's text."""

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def doc_pages() -> list[Path]:
    """The site's Markdown pages (not the generated API pages, not the build)."""
    skipped = {"_build", "generated", "_static"}
    pages = DOCS.rglob("*.md")
    return sorted(p for p in pages if not skipped & set(p.relative_to(DOCS).parts))


def page_blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page``, with the skip directive before each, if any."""
    text = page.read_text(encoding="utf-8")
    blocks = []
    for match in _BLOCK.finditer(text):
        line = text.count("\n", 0, match.start("code")) + 1
        directive = match["directive"]
        skip = None
        if directive is not None:
            if not directive.startswith("skip"):
                msg = f"{page}:{line}: unknown readme-test directive {directive!r}"
                raise ValueError(msg)
            skip = directive.removeprefix("skip").strip(" ()") or "marked skip"
        blocks.append(Block(page, match["lang"], match["code"], line, skip, match.span()))
    return blocks


def shown_outputs(page: Path) -> list[tuple[Block, str]]:
    """Each python block followed at once by a ```text block that starts as a printed frame
    does (``shape:``), with that text: what the block's last expression prints."""
    text = page.read_text(encoding="utf-8")
    blocks = page_blocks(page)
    return [
        (code, shown.code)
        for code, shown in itertools.pairwise(blocks)
        if code.lang == "python"
        and shown.lang == "text"
        and shown.code.startswith("shape:")
        and not text[code.span[1] : shown.span[0]].strip()
    ]


def commands(block: Block) -> Iterator[str]:
    """The commands of a bash block: continuation lines joined, ``&&`` chains split."""
    text = re.sub(r"\\\n\s*", " ", block.code)
    for line in text.splitlines():
        for part in line.split("&&"):
            command = part.strip()
            if command and not command.startswith("#"):
                yield command


def cli_commands(blocks: list[Block]) -> list[tuple[Block, str]]:
    """Every ``polars-graded`` command of the bash blocks."""
    return [
        (block, command)
        for block in blocks
        if block.lang == "bash"
        for command in commands(block)
        if command.startswith("polars-graded")
    ]


def words(command: str) -> list[str]:
    """Shell words; an unquoted word with ``*?[`` expands as the shell expands it."""
    found = []
    for token in re.findall(r"'[^']*'|\"[^\"]*\"|\S+", command):
        if token[0] in "'\"":
            found.append(token[1:-1])
            continue
        word = token
        if token.startswith(SHARED_PREFIX):  # the data beside the repository
            word = str(require_shared_data(token.removeprefix(SHARED_PREFIX).split("/")[0]))
            word += "/" + token.removeprefix(SHARED_PREFIX).split("/", 1)[1]
        matches = sorted(glob.glob(word)) if any(c in word for c in "*?[") else []
        found.extend(matches or [word])
    return found


def run_python(block: Block, namespace: dict[str, Any]) -> object:
    """Run a block statement by statement, as a notebook cell: a LazyFrame left as an
    expression is collected, and the value of the last statement, if an expression, is
    returned (what the cell prints; ``None`` otherwise)."""
    tree = ast.parse(block.code, filename=block.where)
    ast.increment_lineno(tree, block.line - 1)
    value = None
    for statement in tree.body:
        value = None
        if isinstance(statement, ast.Expr):
            code = compile(ast.Expression(statement.value), str(block.page), "eval")
            value = eval(code, namespace)
            if isinstance(value, pl.LazyFrame):
                value.collect()
        else:
            exec(compile(ast.Module([statement], []), str(block.page), "exec"), namespace)
    return value


def require_spark() -> None:
    """Skip without pyspark (fail under CI) or without Java."""
    import_extra("pyspark", "the Spark example needs the [spark] extra")
    if shutil.which("java") is None:
        pytest.skip("the Spark example needs Java on PATH")


def run_blocks(blocks: list[Block], subtests: pytest.Subtests) -> None:
    """Every python block of a page, in order, in one namespace, in the cwd (a GradedWarning
    is an error: an example that warns does not describe its data); a block followed by the
    frame it prints (:func:`shown_outputs`) prints that frame, character for character."""
    namespace: dict[str, Any] = {"__name__": "__readme__"}
    shown = {b.span: text for page in {b.page for b in blocks} for b, text in shown_outputs(page)}
    for block in blocks:
        with subtests.test(msg=block.where):
            if block.skip:
                pytest.skip(block.skip)
            if "pyspark" in block.code:
                require_spark()
            with warnings.catch_warnings():
                warnings.simplefilter("error", errors.GradedWarning)
                value = run_python(block, namespace)
            if block.span in shown:
                printed, expected = str(value), shown[block.span].rstrip("\n")
                assert printed == expected, f"{block.where} prints\n{printed}\nnot\n{expected}"


def run_command(block: Block, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A ``polars-graded`` command of a bash block exits 0, in process (in the cwd)."""
    if block.skip:
        pytest.skip(block.skip)
    others = [c for c in commands(block) if not c.startswith("polars-graded")]
    assert not others, f"{block.where}: cannot run {others}; mark the block readme-test: skip"
    argv = words(command)
    code = cli.main(argv[1:])
    _, err = capsys.readouterr()
    assert code == 0, f"{block.where}: {shlex.join(argv)} exited {code}: {err}"


def write_fixtures(root: Path) -> None:
    """The files the pages' examples read, with the columns they say they have."""
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
    (root / "examples").mkdir()  # the file the repository ships, where the pages name it
    shutil.copy(TOPICS, root / "examples" / "topics.csv")


def section(text: str, heading: str) -> str:
    """The section of ``text`` under the heading line ``heading`` (``"## Title"``), up to
    the next heading of the same or a higher level; lines in fenced blocks are no headings."""
    level = len(heading) - len(heading.lstrip("#"))
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.rstrip() == heading)
    fenced = False
    for end in range(start + 1, len(lines)):
        line = lines[end]
        if line.startswith("```"):
            fenced = not fenced
        hashes = len(line) - len(line.lstrip("#"))
        if not fenced and 0 < hashes <= level and line[hashes : hashes + 1] == " ":
            return "".join(lines[start:end])
    return "".join(lines[start:])


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
