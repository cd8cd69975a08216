"""The progress bar of an evaluation in partitions: one line on stderr, redrawn per partition.

``evaluate_parquet(..., progress=True)`` draws it (:mod:`polars_graded.scale.parquet`), and
so does ``polars-graded evaluate`` on a terminal unless ``--quiet``, through that same
argument. It lives with the library, not the command line, because ``progress=True`` is
public and the library never imports the CLI.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """A one-line ``\\r`` progress bar over ``total`` steps, with the elapsed time.

    Examples
    --------
    >>> import io
    >>> stream = io.StringIO()
    >>> bar = ProgressBar(2, stream=stream, width=4)
    >>> bar.update(2)
    >>> stream.getvalue().split("\\r")[-1]
    '[####] 2/2 partitions, 0 s\\n'
    """

    def __init__(self, total: int, stream: TextIO | None = None, width: int = 30) -> None:
        self.total = total
        self.stream = sys.stderr if stream is None else stream
        self.width = width
        self.started = time.monotonic()
        self.update(0)

    def update(self, done: int) -> None:
        """Redraw with ``done`` steps finished; the last step ends the line."""
        filled = self.width * done // self.total
        elapsed = time.monotonic() - self.started
        line = (
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] "
            f"{done}/{self.total} partitions, {elapsed:.0f} s"
        )
        end = "\n" if done == self.total else ""
        self.stream.write(line + end)
        self.stream.flush()
