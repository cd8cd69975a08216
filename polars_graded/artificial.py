"""The artificial data set of the paper's §2.1, as one long Polars table.

Scheel, Lommatzsch and Albayrak (2011) build a *reference ranking* of ``n = 100`` items whose
labels are spread over ``L`` relevance levels, best items first, and *test rankings* made by
``k`` random swaps of two positions of the reference order. Evaluating the test rankings
against the reference labels shows how a measure reacts to the number of levels ``L`` and to
the amount of disorder ``k``.

Levels are read as the labels ``0 .. L-1`` (the paper's own five-star example is a scale
from 0 to 4). With ``distribution="uniform"`` each level fills an equal block of the
reference ranking; with ``distribution="random"`` each ranking draws a random probability
per level and its labels from it, so some levels may stay unused.

:func:`artificial_rankings` builds every ``(levels, swaps, run)`` combination at once with
numpy; the other functions are its vectorised parts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import polars as pl

Distribution = Literal["uniform", "random"]

DEFAULT_LEVELS: tuple[int, ...] = (2, 10, 20, 50)
"""The numbers of relevance levels the demo compares."""

DEFAULT_SWAPS: tuple[int, ...] = (0, 1, 5, 10, 25, 50, 99)
"""The numbers of random swaps the demo compares."""


def uniform_labels(n: int, levels: int) -> np.ndarray:
    """Labels of a reference ranking with ``levels`` levels in equal blocks, best first.

    Position ``i`` (0-based) gets label ``levels - 1 - floor(i * levels / n)``, so each label
    ``0 .. levels-1`` covers ``n / levels`` positions (blocks differ by at most one item when
    ``levels`` does not divide ``n``).

    Parameters
    ----------
    n
        Number of items in the ranking.
    levels
        Number of relevance levels ``L``; the labels are ``0 .. L-1``.

    Returns
    -------
    numpy.ndarray
        Int64 array of length ``n``, non-increasing.

    Examples
    --------
    >>> uniform_labels(6, 3).tolist()
    [2, 2, 1, 1, 0, 0]
    """
    _check_sizes(n, levels)
    return (levels - 1 - (np.arange(n, dtype=np.int64) * levels) // n).astype(np.int64)


def random_labels(rng: np.random.Generator, n: int, levels: np.ndarray) -> np.ndarray:
    """Labels of reference rankings whose levels have random probabilities, best first.

    For each ranking ``r`` a probability per level ``0 .. levels[r]-1`` is drawn uniformly
    and normalised, then the number of items per level is drawn from the multinomial
    distribution with those probabilities (as if each of the ``n`` labels were drawn on its
    own) and the labels are laid out best first. A level that gets no item stays unused.

    Parameters
    ----------
    rng
        The random generator.
    n
        Number of items per ranking.
    levels
        Number of levels of each ranking (1-D integer array, one entry per ranking).

    Returns
    -------
    numpy.ndarray
        Int64 array of shape ``(len(levels), n)``, each row non-increasing.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> labels = random_labels(rng, 5, np.array([3, 3]))
    >>> labels.shape, bool((labels < 3).all()), bool((np.diff(labels, axis=1) <= 0).all())
    ((2, 5), True, True)
    """
    levels = np.asarray(levels, dtype=np.int64)
    _check_sizes(n, int(levels.min(initial=1)))
    top = int(levels.max(initial=1))
    weights = rng.random((levels.size, top)) * (np.arange(top) < levels[:, None])
    counts = rng.multinomial(n, weights / weights.sum(axis=1, keepdims=True))
    best_first = np.tile(np.arange(top - 1, -1, -1, dtype=np.int64), levels.size)
    return np.repeat(best_first, counts[:, ::-1].ravel()).reshape(levels.size, n)


def swapped_orders(rng: np.random.Generator, n: int, swaps: np.ndarray) -> np.ndarray:
    """Orders of ``n`` items after ``swaps[r]`` random swaps of two positions each.

    Row ``r`` starts as the reference order ``0 .. n-1``; each swap exchanges two distinct
    positions drawn uniformly. All rankings advance together, one swap step at a time, so the
    work is a numpy operation per step (``max(swaps)`` steps), not per ranking.

    Parameters
    ----------
    rng
        The random generator.
    n
        Number of items per ranking (at least 2 when any swap is asked for).
    swaps
        Number of swaps of each ranking (1-D non-negative integer array).

    Returns
    -------
    numpy.ndarray
        Int64 array of shape ``(len(swaps), n)``: row ``r`` lists the reference indices of
        the items in test-ranking order. ``k`` swaps move at most ``2k`` positions.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> orders = swapped_orders(rng, 4, np.array([0, 1]))
    >>> orders[0].tolist(), int((orders[1] != np.arange(4)).sum())
    ([0, 1, 2, 3], 2)
    """
    swaps = np.asarray(swaps, dtype=np.int64)
    if swaps.size and swaps.min() < 0:
        msg = f"swaps must be >= 0, got {swaps.min()}"
        raise ValueError(msg)
    orders = np.tile(np.arange(n, dtype=np.int64), (swaps.size, 1))
    if swaps.size and swaps.max() > 0 and n < 2:
        msg = f"swapping needs at least 2 items, got n={n}"
        raise ValueError(msg)
    for step in range(int(swaps.max(initial=0))):
        rows = np.flatnonzero(swaps > step)
        first = rng.integers(0, n, rows.size)
        second = (first + rng.integers(1, n, rows.size)) % n  # never equal to first
        held = orders[rows, first]
        orders[rows, first] = orders[rows, second]
        orders[rows, second] = held
    return orders


def artificial_rankings(
    levels: int | Sequence[int] = DEFAULT_LEVELS,
    swaps: int | Sequence[int] = DEFAULT_SWAPS,
    runs: int = 10,
    *,
    n: int = 100,
    distribution: Distribution = "uniform",
    seed: int | np.random.Generator | None = 0,
) -> pl.DataFrame:
    """The §2.1 artificial rankings for every ``(levels, swaps, run)`` combination at once.

    Each combination is one ranking of ``n`` items and one query. ``item`` is the item's
    position in the reference ranking (1 = best), ``relevance`` its reference label and
    ``score`` is ``n`` minus its 0-based position in the test ranking, so ranking by score
    gives the swapped order. With ``distribution="random"`` every ranking draws its own
    label distribution.

    Parameters
    ----------
    levels
        Number(s) of relevance levels ``L``; labels are ``0 .. L-1``.
    swaps
        Number(s) of random pair swaps ``k`` applied to the reference order.
    runs
        Repetitions of each ``(levels, swaps)`` pair, numbered ``0 .. runs-1``.
    n
        Items per ranking (the paper: 100).
    distribution
        ``"uniform"`` (equal blocks per level) or ``"random"`` (a random probability per
        level, drawn per ranking).
    seed
        Seed or generator for ``np.random.default_rng``; the same seed gives the same table.

    Returns
    -------
    polars.DataFrame
        Columns ``levels``, ``swaps``, ``run``, ``query`` (a unique Int64 id per ranking),
        ``item``, ``score`` (Float64), ``relevance`` (Int64); sorted by
        ``levels, swaps, run`` then test-ranking position. Evaluate it with
        ``by=["levels", "swaps", "run"]`` or, since ``query`` is unique, without ``by``.

    Examples
    --------
    >>> df = artificial_rankings(levels=3, swaps=[0, 1], runs=1, n=6, seed=1)
    >>> df.filter(pl.col("swaps") == 0)["relevance"].to_list()
    [2, 2, 1, 1, 0, 0]
    >>> df.group_by("swaps").len().sort("swaps")["len"].to_list()
    [6, 6]
    """
    keys = _combinations(_as_ints(levels, "levels"), _as_ints(swaps, "swaps"), runs)
    rng = np.random.default_rng(seed)
    labels = _reference_labels(rng, n, keys["levels"], distribution)
    orders = swapped_orders(rng, n, keys["swaps"])
    ranked_labels = np.take_along_axis(labels, orders, axis=1)
    return _long_frame(keys, orders, ranked_labels)


def _as_ints(values: int | Sequence[int], name: str) -> np.ndarray:
    array = np.atleast_1d(np.asarray(values, dtype=np.int64))
    if array.ndim != 1 or array.size == 0:
        msg = f"{name} must be an int or a non-empty list of ints, got {values!r}"
        raise ValueError(msg)
    return array


def _check_sizes(n: int, levels: int) -> None:
    if n < 1 or levels < 1:
        msg = f"need n >= 1 and levels >= 1, got n={n}, levels={levels}"
        raise ValueError(msg)


def _combinations(levels: np.ndarray, swaps: np.ndarray, runs: int) -> dict[str, np.ndarray]:
    """Every (levels, swaps, run) triple, levels slowest, as flat arrays."""
    if runs < 1:
        msg = f"runs must be >= 1, got {runs}"
        raise ValueError(msg)
    grid = np.meshgrid(levels, swaps, np.arange(runs, dtype=np.int64), indexing="ij")
    return {name: axis.ravel() for name, axis in zip(("levels", "swaps", "run"), grid, strict=True)}


def _reference_labels(
    rng: np.random.Generator, n: int, levels: np.ndarray, distribution: Distribution
) -> np.ndarray:
    """Reference labels per ranking, shape ``(len(levels), n)``."""
    if distribution == "uniform":
        distinct = np.unique(levels)
        table = np.stack([uniform_labels(n, int(size)) for size in distinct])
        return table[np.searchsorted(distinct, levels)]
    if distribution == "random":
        return random_labels(rng, n, levels)
    # Typed, but it comes from the user.
    msg = f"distribution must be 'uniform' or 'random', got {distribution!r}"  # type: ignore[unreachable]
    raise ValueError(msg)


def _long_frame(
    keys: dict[str, np.ndarray], orders: np.ndarray, ranked_labels: np.ndarray
) -> pl.DataFrame:
    """One row per (ranking, position): keys repeated, items in test-ranking order."""
    count, n = orders.shape
    columns = {name: np.repeat(values, n) for name, values in keys.items()}
    return pl.DataFrame(
        {
            **columns,
            "query": np.repeat(np.arange(count, dtype=np.int64), n),
            "item": orders.ravel() + 1,
            "score": np.tile(np.arange(n, 0, -1, dtype=np.float64), count),
            "relevance": ranked_labels.ravel(),
        },
        schema={
            "levels": pl.Int64,
            "swaps": pl.Int64,
            "run": pl.Int64,
            "query": pl.Int64,
            "item": pl.Int64,
            "score": pl.Float64,
            "relevance": pl.Int64,
        },
    )
