"""The argument parser of ``polars-graded`` and its errors, each one line on stderr.

A subcommand is a :class:`Command` (its name, help texts, options and what runs it);
:class:`Parser` makes argparse's usage errors one line and prints the measures after a
command's options (:func:`hang`). Bad input found after parsing is a :class:`CommandError`
(or a :class:`~polars_graded.errors.GradedError`), printed as one line (:func:`one_line`);
a :class:`~polars_graded.errors.GradedWarning` is one line too (:func:`show_warnings`).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import textwrap
import warnings
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, NoReturn

from polars_graded.errors import GradedWarning

PROG: Final = "polars-graded"
INPUT_FAILURES: Final = (EOFError, zlib.error)
"""Exceptions that only reading a damaged input (a truncated or corrupt compressed stream)
raises: one line, like a GradedError. Any other exception keeps its traceback (a bug)."""
HELP_POSITION: Final = 24
"""The column of an appendix line's description at most, as argparse's options have it."""


class CommandError(Exception):
    """A problem with the command's input that is reported in one line, exit code 2.

    Examples
    --------
    >>> try:
    ...     raise CommandError("no measure given to -m")
    ... except CommandError as error:
    ...     print(f"{PROG}: error: {error}")
    polars-graded: error: no measure given to -m
    """


@dataclass(frozen=True)
class Command:
    """A subcommand: its name, its ``--help`` texts, its options and what runs it.

    Examples
    --------
    >>> from polars_graded.cli import evaluate
    >>> evaluate.COMMAND.name, evaluate.COMMAND.run is evaluate.run, evaluate.COMMAND.takes_measures
    ('evaluate', True, True)
    """

    name: str
    help: str
    description: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    takes_measures: bool = False
    """Its ``--help`` ends with the measures ``-m`` takes
    (:func:`~polars_graded.cli.options.measure_list`)."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, as every other error.

    ``appendix``: a list of ``name  description`` lines that ``--help`` prints after the
    options, each wrapped to the terminal as argparse wraps the options (:func:`hang`).

    Examples
    --------
    >>> import contextlib
    >>> parser = Parser(prog=PROG, appendix="  ap  average precision")
    >>> parser.format_help().splitlines()[-1]
    '  ap  average precision'
    >>> with contextlib.redirect_stderr(sys.stdout), contextlib.suppress(SystemExit):
    ...     parser.parse_args(["--bad"])
    polars-graded: error: unrecognized arguments: --bad; see polars-graded --help
    """

    def __init__(self, *args: Any, appendix: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.appendix = appendix

    def format_help(self) -> str:
        text = super().format_help()
        if self.appendix is None:
            return text
        width = shutil.get_terminal_size().columns - 2  # argparse's own width
        return f"{text}\n{hang(self.appendix, width)}\n"

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        given = sys.argv[1:] if args is None else list(args)
        return super().parse_known_args(self._values_joined(given), namespace)

    def _values_joined(self, args: list[str]) -> list[str]:
        """``--option -4GiB`` as ``--option=-4GiB`` for an option that takes one value.

        argparse takes a value that starts with ``-`` for an option unless it is a plain
        negative number, and says "expected one argument"; joined, the value reaches the
        option's own check, which says what is wrong with it. A known option is not joined.
        """
        joined: list[str] = []
        rest = iter(args)
        for arg in rest:
            if arg == "--":  # every argument after it is a positional, as argparse reads it
                joined += [arg, *rest]
                break
            action = self._option_string_actions.get(arg)
            value = next(rest, None) if action is not None and action.nargs is None else None
            if value is None:
                joined.append(arg)
            elif value.startswith("-") and value != "--" and not self._is_option(value):
                joined.append(f"{arg}={value}")
            else:
                joined += [arg, value]
        return joined

    def _is_option(self, text: str) -> bool:
        return text.partition("=")[0] in self._option_string_actions

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix(PROG).strip()
        hint = f"; see {self.prog} --help" if command else f"; see {PROG} --help"
        print(f"{PROG}: error: {message}{hint}", file=sys.stderr)
        raise SystemExit(2)


def hang(text: str, width: int) -> str:
    """Each line of ``text`` wrapped to ``width``, its continuations under its description
    (the text after the line's first run of two spaces or more); a description that
    would start right of :data:`HELP_POSITION` starts on the next line there instead.

    Examples
    --------
    >>> print(hang("  ap   average precision at a threshold", 24))
      ap   average precision
           at a threshold
    >>> lines = "  ndcg(gain=exponential)@k  normalised DCG\\n  p@k" + " " * 23 + "precision"
    >>> print(hang(lines, 40))
      ndcg(gain=exponential)@k
                            normalised DCG
      p@k                   precision
    """
    return "\n".join(_hang_line(line, width) for line in text.splitlines())


def _hang_line(line: str, width: int) -> str:
    found = re.search(r"\S\s{2,}(?=\S)", line)
    if found and found.end() > HELP_POSITION:
        name, description = line[: found.start() + 1], line[found.end() :]
        indent = " " * HELP_POSITION
        wrapped = textwrap.fill(
            description, width, initial_indent=indent, subsequent_indent=indent,
            break_on_hyphens=False,
        )  # fmt: skip
        if len(name) + 2 <= HELP_POSITION:  # the name fits before the description
            return name + wrapped[len(name) :]
        return f"{name}\n{wrapped}"
    indent = " " * (found.end() if found else len(line) - len(line.lstrip()))
    return textwrap.fill(line, width, subsequent_indent=indent, break_on_hyphens=False)


def one_line(error: BaseException | str) -> str:
    """The message of an error or a warning as one line, saying where when Python does not.

    Examples
    --------
    >>> one_line(ValueError("bad value\\n  in row 3"))
    'bad value in row 3'
    >>> one_line(FileNotFoundError(2, "No such file or directory", "runs.txt"))
    'No such file or directory: runs.txt'
    """
    text = str(error).strip() or type(error).__name__
    if isinstance(error, INPUT_FAILURES):  # Python's message does not say where
        text = f"truncated or corrupt compressed input: {text}"
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        text = f"{error.strerror}: {error.filename}"
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def show_warnings(caught: Sequence[warnings.WarningMessage]) -> None:
    """Each GradedWarning once, as one line on stderr; any other warning as Python shows it.

    Examples
    --------
    >>> import contextlib
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     for _ in range(2):
    ...         warnings.warn("threshold above\\nevery label", GradedWarning)
    >>> with contextlib.redirect_stderr(sys.stdout):
    ...     show_warnings(caught)
    polars-graded: warning: threshold above every label
    """
    shown: set[str] = set()
    for warning in caught:
        if not issubclass(warning.category, GradedWarning):
            warnings.showwarning(
                warning.message, warning.category, warning.filename, warning.lineno
            )
            continue
        line = f"{PROG}: warning: {one_line(warning.message)}"
        if line not in shown:
            shown.add(line)
            print(line, file=sys.stderr)
