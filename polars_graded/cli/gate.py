"""``polars-graded gate``: a regression gate for pipelines, through :func:`polars_graded.gate`.

Exit 0 when the candidate is not worse than the baseline on every measure, 1 when it is
worse on any (one line per measure, then the verdict), 2 on bad input; ``--json`` writes
the verdict for CI systems.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any, Final

import polars as pl

import polars_graded
from polars_graded.cli.inputs import reading, systems_table
from polars_graded.cli.options import (
    InputHelp,
    add_bootstrap_method_option,
    add_correction_option,
    add_input_options,
    add_statistics_option,
    add_test_option,
    add_ties_option,
    statistics_arguments,
    table_spec,
)
from polars_graded.cli.parser import Command
from polars_graded.cli.values import (
    check_output_file,
    named_system,
    resample_count,
    seed_number,
    split_measures,
)
from polars_graded.defaults import SYSTEM
from polars_graded.stats.gate import GateResult, gate
from polars_graded.stats.options import (
    DEFAULTS,
    GATE_CORRECTION,
    GATE_TEST,
    MISSING_POLICIES,
    TEST_NAMES,
)

_INPUT: Final = InputHelp(
    table=(
        "a .parquet or .csv/.tsv long table with a system column (a glob or a directory "
        "of Parquet files)"
    ),
    run="TREC run files, one system each; named by their run tag, else file name; NAME=PATH",
    qrels="the TREC qrels file of the runs",
    measure="a measure the candidate must not lose; repeat or separate with commas (required)",
    by=f"the system column of TABLE (default: {SYSTEM}); --system is an alias",
    one_system=True,
    measure_required=True,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``gate``: the shared input options, then its own.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_arguments(parser)
    >>> args = parser.parse_args(["runs.parquet", "--baseline", "prod", "--candidate", "new",
    ...                           "-m", "ap", "--max-drop", "0.01"])
    >>> args.max_drop, args.alpha, args.bootstrap, args.missing, args.json
    (0.01, 0.05, 10000, 'zero', None)
    """
    add_input_options(parser, _INPUT)
    parser.add_argument("--baseline", required=True, metavar="SYSTEM", help="the system in use")
    parser.add_argument("--candidate", required=True, metavar="SYSTEM", help="the new system")
    parser.add_argument(
        "--max-drop",
        required=True,
        type=float,
        metavar="D",
        help="the margin: the largest drop of a measure's mean the candidate may show",
    )
    add_statistics_option(parser, "alpha", float, "level of the test", metavar="P")
    add_statistics_option(
        parser,
        "bootstrap",
        resample_count,
        "bootstrap resamples for the lower bound, and sign flips of --test randomization",
        "--trials",
    )
    add_statistics_option(parser, "seed", seed_number, "random seed, an integer >= 0")
    add_bootstrap_method_option(parser, "the lower bound")
    add_correction_option(parser, "the measures (the verdict needs every one)", GATE_CORRECTION)
    add_test_option(parser, "the verdict, one-sided on the differences plus --max-drop", GATE_TEST)
    parser.add_argument(
        "--missing",
        choices=MISSING_POLICIES,
        default=DEFAULTS.missing,
        help="a query one system lacks: scores 0 (zero, default) or is left out (common)",
    )
    parser.add_argument("--json", metavar="PATH", help="write the verdict as JSON to PATH")
    add_ties_option(parser)


def run(args: argparse.Namespace) -> int:
    """``polars-graded gate``: print one line per measure and the verdict; 0 pass, 1 fail.

    Examples
    --------
    >>> from polars_graded.cli import build_parser
    >>> folder = getfixture("tmp_path")
    >>> pl.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "query": [1, 2, 3] * 2,
    ...               "item": ["x"] * 6, "score": [1.0] * 6, "relevance": [1, 0, 1] * 2,
    ...               }).write_csv(folder / "t.csv")
    >>> args = build_parser().parse_args(["gate", str(folder / "t.csv"), "--baseline", "a",
    ...                                   "--candidate", "b", "-m", "ap", "--max-drop", "0"])
    >>> run(args)
    ap: FAIL: diff +0.0000, 95% interval [+0.0000, +inf), p 1 (a 0.6667, b 0.6667, 3 queries)
    verdict: FAIL on ap: not shown that b loses less than 0 against a
    1
    """
    measures = split_measures(args.measure)
    if args.json is not None:
        check_output_file(args.json, "--json")
    spec = table_spec(args, [args.by])
    with reading(args.table):
        table = systems_table(args, spec)[0]
        baseline, candidate = (
            named_system(name, table, args.by, option)
            for name, option in ((args.baseline, "--baseline"), (args.candidate, "--candidate"))
        )
        result = gate(
            table,
            measures,
            baseline=baseline,
            candidate=candidate,
            max_drop=args.max_drop,
            **statistics_arguments(args),
            trials=args.bootstrap,  # --trials is --bootstrap: one count of random draws
            **spec.options(),
        )
    print("\n".join(verdict_lines(result, args)))
    if args.json is not None:
        text = json.dumps(strict_json(verdict_json(result, args)), indent=2, allow_nan=False)
        Path(args.json).write_text(text + "\n")
    return 0 if result.passed else 1


def verdict_lines(result: GateResult, args: argparse.Namespace) -> list[str]:
    """One line per measure (pass or FAIL, the mean difference, its one-sided bootstrap
    interval, the p-value of ``--test``, both means), then the verdict.

    Examples
    --------
    >>> table = pl.DataFrame({"measure": ["ap"], "n_queries": [5], "baseline_mean": [0.3],
    ...     "candidate_mean": [0.31], "diff": [0.01], "lower": [-0.002], "p_value": [0.004],
    ...     "not_worse": [True]})
    >>> args = argparse.Namespace(baseline="a", candidate="b", max_drop=0.01, alpha=0.05)
    >>> print("\\n".join(verdict_lines(GateResult(table, True), args)))
    ap: pass: diff +0.0100, 95% interval [-0.0020, +inf), p 0.004 (a 0.3000, b 0.3100, 5 queries)
    verdict: pass: b loses less than 0.01 against a on every measure (alpha 0.05)
    """
    level = f"{1 - args.alpha:.0%}"
    lines = [
        f"{row['measure']}: {'pass' if row['not_worse'] else 'FAIL'}: "
        f"diff {row['diff']:+.4f}, {level} interval [{row['lower']:+.4f}, +inf), "
        f"p {row['p_value']:.3g}{_adjusted(row, args)} ({args.baseline} "
        f"{row['baseline_mean']:.4f}, "
        f"{args.candidate} {row['candidate_mean']:.4f}, {row['n_queries']} queries)"
        for row in result.table.iter_rows(named=True)
    ]
    # A FAIL means the data do not show the drop to be under the margin, whatever the sign.
    within = f"{args.candidate} loses less than {args.max_drop:g} against {args.baseline}"
    if result.passed:
        lines.append(f"verdict: pass: {within} on every measure (alpha {args.alpha:g})")
    else:
        failed = result.table.filter(~pl.col("not_worse")).get_column("measure").to_list()
        lines.append(f"verdict: FAIL on {', '.join(failed)}: not shown that {within}")
    return lines


def _adjusted(row: dict[str, Any], args: argparse.Namespace) -> str:
    """``", holm 0.012"``: the p-value corrected across the measures, when ``--correction``
    is not none."""
    correction = getattr(args, "correction", GATE_CORRECTION)
    return "" if correction == "none" else f", {correction} {row['p_adjusted']:.3g}"


def verdict_json(result: GateResult, args: argparse.Namespace) -> dict[str, object]:
    """The verdict for CI systems: passed, the rows, the settings and the library version.

    Examples
    --------
    >>> table = pl.DataFrame({"measure": ["ap"], "not_worse": [True]})
    >>> args = argparse.Namespace(baseline="a", candidate="b", max_drop=0.01, alpha=0.05,
    ...     bootstrap=100, seed=0, missing="zero", by="system", ties="trec_eval")
    >>> verdict = verdict_json(GateResult(table, True), args)
    >>> verdict["passed"], verdict["measures"], verdict["settings"]["max_drop"]
    (True, [{'measure': 'ap', 'not_worse': True}], 0.01)
    """
    settings = ("baseline", "candidate", "max_drop", "alpha", "bootstrap", "seed", "missing")
    correction = getattr(args, "correction", GATE_CORRECTION)
    method = getattr(args, "bootstrap_method", DEFAULTS.bootstrap_method)
    decides = "p_value" if correction == "none" else f"p_adjusted ({correction} across measures)"
    test = getattr(args, "test", GATE_TEST)
    name = TEST_NAMES[test].replace("two-sided", "one-sided")
    return {
        "passed": result.passed,
        "decision": f"{name} on d + max_drop: {decides} < alpha; lower: {method} bootstrap",
        "measures": result.table.to_dicts(),
        "settings": {
            **{name: getattr(args, name) for name in settings},
            "correction": correction,
            "bootstrap_method": method,
            "test": test,
            "by": args.by,
            "ties": args.ties,
        },
        "version": polars_graded.__version__,
    }


def strict_json(value: object) -> object:
    """``value`` with every float that is not finite (NaN, +-inf) as ``None``: JSON has no
    such numbers, and a strict parser refuses Python's ``NaN``.

    Examples
    --------
    >>> strict_json({"p_value": float("nan"), "rows": [1.5, float("inf")]})
    {'p_value': None, 'rows': [1.5, None]}
    """
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: strict_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [strict_json(item) for item in value]
    return value


COMMAND: Final = Command(
    name="gate",
    help="regression gate: exit 1 when a candidate is worse than the baseline by a margin",
    description=(
        "Evaluate a candidate and a baseline system per query and test, per measure, that "
        "the candidate's mean is not lower than the baseline's by more than --max-drop "
        "(one-sided paired test on the differences shifted by the margin: t-test, or --test "
        "wilcoxon / randomization; percentile or BCa bootstrap lower bound beside it). "
        "Exit 0: not worse on every measure; 1: worse on some; 2: bad input. "
        "Input: a long table with a system column, or TREC run files and a qrels file."
    ),
    add_arguments=add_arguments,
    run=run,
    takes_measures=True,
)
