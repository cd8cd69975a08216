"""``polars-graded gate``: a regression gate for pipelines, through :func:`polars_graded.gate`.

Exit 0 when the candidate is not worse than the baseline (``--max-drop``) and equivalent to
it (``--equivalence``) on every measure, 1 when either fails on any (one line per measure and
verdict, a line where the queries are too few to detect the margin, then the verdict), 2 on
bad input; ``--json`` writes the verdict for CI systems.
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
    add_large_sample_option,
    add_statistics_option,
    add_test_option,
    add_ties_option,
    statistics_arguments,
    table_spec,
)
from polars_graded.cli.parser import Command, CommandError
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
from polars_graded.stats.power import POWER

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
    >>> args.max_drop, args.equivalence, args.alpha, args.bootstrap, args.missing, args.json
    (0.01, None, 0.05, 10000, 'zero', None)
    """
    add_input_options(parser, _INPUT)
    parser.add_argument("--baseline", required=True, metavar="SYSTEM", help="the system in use")
    parser.add_argument("--candidate", required=True, metavar="SYSTEM", help="the new system")
    parser.add_argument(
        "--max-drop",
        type=float,
        metavar="D",
        help=(
            "non-inferiority margin: the largest drop of a measure's mean the candidate may "
            "show (give --max-drop, --equivalence or both)"
        ),
    )
    parser.add_argument(
        "--equivalence",
        type=float,
        metavar="MARGIN",
        help=(
            "equivalence margin: pass only when the candidate's mean is shown within "
            "+/-MARGIN of the baseline's (two one-sided tests, TOST; with --max-drop both "
            "verdicts must pass)"
        ),
    )
    parser.add_argument(
        "--weight",
        metavar="COL",
        help=(
            "a per-query traffic weight column (the same on every row of a query): weighted "
            "means, weighted t-test, sign flips and bootstrap (not --test wilcoxon)"
        ),
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
    add_large_sample_option(parser)
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
    if args.max_drop is None and args.equivalence is None:
        msg = (
            "give --max-drop D (non-inferiority: the largest drop allowed, e.g. 0.01), "
            "--equivalence MARGIN (within +/-MARGIN, e.g. 0.01) or both"
        )
        raise CommandError(msg)
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
            equivalence=args.equivalence,
            weight=args.weight,
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
    """One line per measure and verdict (pass or FAIL, the mean difference, its bootstrap
    interval, the p-value of ``--test``, both means), a line per measure whose queries are
    too few to detect the margin with 80% power, then the verdict.

    Examples
    --------
    >>> table = pl.DataFrame({"measure": ["ap"], "n_queries": [5], "baseline_mean": [0.3],
    ...     "candidate_mean": [0.31], "diff": [0.01], "lower": [-0.002], "p_value": [0.004],
    ...     "not_worse": [True], "detectable": [0.031]})
    >>> args = argparse.Namespace(baseline="a", candidate="b", max_drop=0.01, alpha=0.05)
    >>> print("\\n".join(verdict_lines(GateResult(table, True), args)))
    ap: pass: diff +0.0100, 95% interval [-0.0020, +inf), p 0.004 (a 0.3000, b 0.3100, 5 queries)
    ap: with 5 queries this gate can only detect drops >= 0.031 at 80% power; the margin 0.01 \
is below it
    verdict: pass: b loses less than 0.01 against a on every measure (alpha 0.05)
    """
    max_drop, equivalence = args.max_drop, getattr(args, "equivalence", None)
    rows = list(result.table.iter_rows(named=True))
    lines = []
    for row in rows:
        means = (
            f"({args.baseline} {row['baseline_mean']:.4f}, "
            f"{args.candidate} {row['candidate_mean']:.4f}, {_queries(row)})"
        )
        if max_drop is not None:
            lines.append(
                f"{row['measure']}: {'pass' if row['not_worse'] else 'FAIL'}: "
                f"diff {row['diff']:+.4f}, {1 - args.alpha:.0%} interval "
                f"[{row['lower']:+.4f}, +inf), p {row['p_value']:.3g}{_adjusted(row, args)} "
                f"{means}"
            )
        if equivalence is not None:
            lines.append(
                f"{row['measure']}: equivalence {'pass' if row['equivalent'] else 'FAIL'}: "
                f"diff {row['diff']:+.4f}, {1 - 2 * args.alpha:.0%} interval "
                f"[{row['lower']:+.4f}, {row['upper']:+.4f}], p {row['p_equivalence']:.3g}"
                f"{_adjusted(row, args, 'p_equivalence_adjusted')} {means}"
            )
    lines += [line for row in rows for line in power_lines(row, max_drop, equivalence)]
    lines += [f"note: {text}" for text in limit_notes(result, args)]
    return [*lines, _verdict_line(result, args)]


def limit_notes(result: GateResult, args: argparse.Namespace) -> list[str]:
    """What took a normal limit instead of resampling (``--large-sample``), in words.

    Examples
    --------
    >>> from polars_graded.stats.limits import resampling_plan
    >>> from polars_graded.stats.options import Statistics
    >>> plan = resampling_plan(200_000, 2, Statistics())
    >>> notes = limit_notes(GateResult(pl.DataFrame(), True, plan), argparse.Namespace(test="t"))
    >>> notes[0].split(" (")[0]
    'bootstrap intervals: normal limit of the bootstrap'
    """
    plan = result.plan
    if plan is None:
        return []
    used = [plan.bootstrap]
    if getattr(args, "test", GATE_TEST) == "randomization":
        used.append(plan.randomization)
    return [choice.describe() for choice in used if choice.method == "normal"]


def _queries(row: dict[str, Any]) -> str:
    """``"8 queries"``, or ``"8 queries, 5.2 effective"`` when weighted."""
    effective = row.get("n_effective")
    extra = (
        "" if effective is None or effective == row["n_queries"] else f", {effective:.3g} effective"
    )
    return f"{row['n_queries']} queries{extra}"


def power_lines(
    row: dict[str, Any], max_drop: float | None, equivalence: float | None
) -> list[str]:
    """A line for each margin below what the gate's test detects with 80% power
    (``detectable``, ``detectable_equivalence``): a candidate with no true difference then
    fails more than one time in five.

    Examples
    --------
    >>> row = {"measure": "ap", "n_queries": 50, "detectable": 0.031}
    >>> power_lines(row, 0.01, None)
    ['ap: with 50 queries this gate can only detect drops >= 0.031 at 80% power; the margin \
0.01 is below it']
    >>> power_lines(row, 0.05, None)
    []
    """
    lines = []
    effective = row.get("n_effective")
    weighted = "" if effective is None else f" ({effective:.3g} effective)"
    start = f"{row['measure']}: with {row['n_queries']} queries{weighted} this gate can only"
    end = f"at {POWER:.0%} power"
    drop, both = row.get("detectable"), row.get("detectable_equivalence")
    if max_drop is not None and drop is not None and max_drop < drop:
        lines.append(
            f"{start} detect drops >= {drop:.3g} {end}; the margin {max_drop:g} is below it"
        )
    if equivalence is not None and both is not None and equivalence < both:
        lines.append(
            f"{start} show equivalence within margins >= {both:.3g} {end}; the margin "
            f"{equivalence:g} is below it"
        )
    return lines


def _verdict_line(result: GateResult, args: argparse.Namespace) -> str:
    """``verdict: pass: ...`` or ``verdict: FAIL on ...``, naming each failed claim."""
    # A FAIL means the data do not show the claim, whatever the sign of the difference.
    claims = []
    if args.max_drop is not None:
        within = f"{args.candidate} loses less than {args.max_drop:g} against {args.baseline}"
        claims.append(("not_worse", within))
    equivalence = getattr(args, "equivalence", None)
    if equivalence is not None:
        close = f"{args.candidate} is within +/-{equivalence:g} of {args.baseline}"
        claims.append(("equivalent", close))
    if result.passed:
        text = " and ".join(claim for _, claim in claims)
        return f"verdict: pass: {text} on every measure (alpha {args.alpha:g})"
    failures = []
    for flag, claim in claims:
        failed = result.table.filter(~pl.col(flag)).get_column("measure").to_list()
        if failed:
            failures.append(f"FAIL on {', '.join(failed)}: not shown that {claim}")
    return "verdict: " + "; ".join(failures)


def _adjusted(row: dict[str, Any], args: argparse.Namespace, column: str = "p_adjusted") -> str:
    """``", holm 0.012"``: the p-value corrected across the measures, when ``--correction``
    is not none."""
    correction = getattr(args, "correction", GATE_CORRECTION)
    return "" if correction == "none" else f", {correction} {row[column]:.3g}"


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
    decision = f"{name} on d + max_drop: {decides} < alpha; lower: {method} bootstrap"
    equivalence = getattr(args, "equivalence", None)
    if equivalence is not None:
        tost = "p_equivalence" if correction == "none" else "p_equivalence_adjusted"
        decision += (
            f"; equivalence: two {name}s (TOST) on d + equivalence and equivalence - d, "
            f"the larger p ({tost}) < alpha; [lower, upper]: {1 - 2 * args.alpha:.0%} interval"
        )
    if args.max_drop is None:
        decision = decision.split("; equivalence: ", 1)[-1]
    if getattr(args, "weight", None) is not None:
        decision += f"; every mean, test and bound weighted by {args.weight} per query"
    decision += "".join(f"; {note}" for note in limit_notes(result, args))
    return {
        "passed": result.passed,
        "decision": decision,
        "measures": result.table.to_dicts(),
        "settings": {
            **{name: getattr(args, name) for name in settings},
            "equivalence": equivalence,
            "weight": getattr(args, "weight", None),
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
    help=(
        "regression gate: exit 1 when a candidate is worse than the baseline by a margin, "
        "or not shown equivalent to it"
    ),
    description=(
        "Evaluate a candidate and a baseline system per query and test, per measure, that "
        "the candidate's mean is not lower than the baseline's by more than --max-drop "
        "(one-sided paired test on the differences shifted by the margin: t-test, or --test "
        "wilcoxon / randomization; percentile or BCa bootstrap lower bound beside it), "
        "and/or that it lies within +/- the --equivalence margin of it (two one-sided tests, "
        "TOST, with a 1-2alpha bootstrap interval). A line warns when the queries are too few "
        "to detect the margin with 80% power. --weight COL weights each query (traffic). "
        "Exit 0: every verdict passes on every measure; 1: some fails; 2: bad input. "
        "Input: a long table with a system column, or TREC run files and a qrels file."
    ),
    add_arguments=add_arguments,
    run=run,
    takes_measures=True,
)
