"""Progress of the library's long work: the partitions of an out-of-core evaluation, the steps
of a report.

``evaluate_parquet(..., progress=True)`` draws one over the partitions
(:mod:`polars_graded.scale.parquet`), ``compute_report(..., progress=True)`` one over its
steps (:mod:`polars_graded.report.compute`), and ``polars-graded evaluate`` and
``polars-graded report`` on a terminal unless ``--quiet``, through those same arguments.
:func:`progress_bar` draws it with ``tqdm.auto`` when tqdm is installed (the ``progress``
extra: a widget in Jupyter, a text bar elsewhere), else with :class:`ProgressBar`, one
``\\r`` line on stderr. It lives with the library, not the command line, because
``progress=True`` is public and the library never imports the CLI.
"""

from __future__ import annotations

import importlib
import sys
import time
from typing import Any, Protocol, TextIO

_TQDM_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} {unit} [{elapsed}]"
"""tqdm's line: ``done/total unit`` as the fallback writes it, then the elapsed time."""


class Progress(Protocol):
    """What the long work calls: ``update(done, step)`` after each partition, or with the
    step about to start; the bar ends when ``done`` reaches its total."""

    def update(self, done: int, step: str = "") -> None:
        """Redraw with ``done`` of the total finished, ``step`` the one under way."""

    def close(self) -> None:
        """End the bar's line before the total (the work raised)."""


class ProgressBar:
    """A one-line ``\\r`` progress bar over ``total`` steps, with the elapsed time: the
    fallback without tqdm.

    Examples
    --------
    >>> import io
    >>> stream = io.StringIO()
    >>> bar = ProgressBar(2, stream=stream, width=4)
    >>> bar.update(1, "comparing")
    >>> bar.update(2)
    >>> [line.rstrip() for line in stream.getvalue().split("\\r")[-2:]]
    ['[##..] 1/2 partitions, 0 s: comparing', '[####] 2/2 partitions, 0 s']
    """

    def __init__(
        self,
        total: int,
        stream: TextIO | None = None,
        width: int = 30,
        unit: str = "partitions",
        what: str = "",
    ) -> None:
        self.total = total
        self.stream = sys.stderr if stream is None else stream
        self.width = width
        self.unit = unit
        self.what = f"{what}: " if what else ""
        self.started = time.monotonic()
        self.drawn = 0
        self.done = 0
        self.update(0)

    def update(self, done: int, step: str = "") -> None:
        """Redraw with ``done`` steps finished and ``step`` under way; the last step ends the
        line."""
        filled = self.width * done // self.total
        elapsed = time.monotonic() - self.started
        line = (
            f"{self.what}[{'#' * filled}{'.' * (self.width - filled)}] "
            f"{done}/{self.total} {self.unit}, {elapsed:.0f} s{f': {step}' if step else ''}"
        )
        # Spaces cover the rest of a longer line drawn before (a step's name is shorter).
        padded = line.ljust(self.drawn)
        self.drawn = len(line)
        self.done = done
        end = "\n" if done == self.total else ""
        self.stream.write(f"\r{padded}{end}")
        self.stream.flush()

    def close(self) -> None:
        """End the line if the last step has not: what follows starts on a line of its own."""
        if self.done != self.total:
            self.stream.write("\n")
            self.stream.flush()
            self.done = self.total


class TqdmBar:
    """:class:`Progress` through a ``tqdm.auto`` bar (``tqdm_class``): a widget in Jupyter,
    a text bar on a terminal.

    Examples
    --------
    >>> import io
    >>> from tqdm.auto import tqdm
    >>> stream = io.StringIO()
    >>> bar = TqdmBar(tqdm, 2, stream=stream, unit="steps", what="report")
    >>> bar.update(1, "comparing")
    >>> bar.update(2)
    >>> stream.getvalue().split("\\r")[-1]  # doctest: +ELLIPSIS
    'report: 100%|...| 2/2 steps [00:00]\\n'
    """

    def __init__(
        self,
        tqdm_class: Any,
        total: int,
        stream: TextIO | None = None,
        unit: str = "partitions",
        what: str = "",
    ) -> None:
        self.what = what
        self.bar = tqdm_class(
            total=total,
            file=sys.stderr if stream is None else stream,
            unit=unit,
            desc=what,
            bar_format=_TQDM_FORMAT,
            dynamic_ncols=True,
            mininterval=0,  # a step's name shows when it starts, however short the last one
        )

    def update(self, done: int, step: str = "") -> None:
        """Move to ``done`` with ``step`` in the description; close at the total."""
        self.bar.set_description_str(": ".join(filter(None, (self.what, step))), refresh=False)
        self.bar.update(done - self.bar.n)
        if done >= self.bar.total:
            self.bar.close()

    def close(self) -> None:
        """Close the tqdm bar (again is harmless)."""
        self.bar.close()


def progress_bar(
    total: int, *, unit: str = "partitions", what: str = "", stream: TextIO | None = None
) -> Progress:
    """A progress bar over ``total`` steps on ``stream`` (default stderr): ``tqdm.auto``'s
    when tqdm is installed (``pip install 'polars-graded[progress]'``), else
    :class:`ProgressBar`.

    ``what`` names the work (``"report"``) before the step under way.

    Examples
    --------
    >>> import io
    >>> stream = io.StringIO()
    >>> bar = progress_bar(3, stream=stream)
    >>> for done in (1, 2, 3):
    ...     bar.update(done)
    >>> "3/3 partitions" in stream.getvalue()
    True
    """
    try:
        tqdm_class = importlib.import_module("tqdm.auto").tqdm
    except ImportError:  # tqdm is an optional extra
        return ProgressBar(total, stream=stream, unit=unit, what=what)
    return TqdmBar(tqdm_class, total, stream=stream, unit=unit, what=what)
