"""Make ``docs/_static/report.png``, the screenshot of a real report on the page Reports.

From the repository's root, with the TREC 2003 Robust data beside the repository
(``../shared/data``), Chromium at ``/usr/bin/chromium`` and the ``report`` extra::

    python docs/screenshot.py

It writes the report of ``docs/guide/reports.md`` into a temporary folder, renders its
``report.html`` in headless Chromium, 1280 px wide, and keeps the top of the page: the
title, the summary table and the first row of charts.
"""

from __future__ import annotations

import glob
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

from polars_graded import cli

DATA = "../shared/data/trec2003-robust"
OUT = Path(__file__).resolve().parent / "_static" / "report.png"
CHROMIUM = "/usr/bin/chromium"
WIDTH, HEIGHT = 1280, 1600
KEEP = 1465
"""Pixels kept from the top: down to the end of the first row of charts."""


def report_argv(out: Path) -> list[str]:
    """The command line of the page's report, written to ``out``."""
    runs = sorted(glob.glob(f"{DATA}/runs/input.*.gz"))
    return [
        "report",
        "--run",
        *runs,
        "--qrels",
        f"{DATA}/robust03_qrels.txt.gz",
        "--segment-table",
        "examples/topics.csv",
        "--all-pairs",
        "--latex",
        "--out",
        str(out),
        "--title",
        "TREC 2003 Robust: 17 runs",
        "--quiet",
    ]


def screenshot(page: Path, png: Path, profile: Path) -> None:
    """Render ``page`` in headless Chromium (a fresh profile, nothing fetched) to ``png``."""
    profile.mkdir(exist_ok=True)
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        f"--screenshot={png}",
        f"--window-size={WIDTH},{HEIGHT}",
    ]
    subprocess.run([CHROMIUM, *flags, page.as_uri()], check=True, capture_output=True, timeout=120)


def main() -> int:
    """Write the report, take the screenshot, crop it into ``OUT``; the report's exit code."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "robust03-report"
        code = cli.main(report_argv(folder))
        if code:
            return code
        shot = Path(tmp) / "report.png"
        screenshot(folder / "report.html", shot, Path(tmp) / "profile")
        with Image.open(shot) as image:
            image.crop((0, 0, WIDTH, KEEP)).save(OUT, optimize=True)
    print(f"{OUT}: {OUT.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
