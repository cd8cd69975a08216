"""The analysis of per-query values: are the differences between systems real, and stable?

Every function here takes per-query values (the output of :func:`polars_graded.evaluate`
with a system column) or the long table itself, and returns a Polars frame. The public
names are re-exported by :mod:`polars_graded` (``pg.compare``, ``pg.gate``, ...).

Where things live, the shared pieces first:

- :mod:`.options`: the :class:`~polars_graded.stats.options.Statistics` options, their
  defaults and checks;
- :mod:`.grid`: systems x queries: the system column, the baseline first, which queries
  count when systems lack some, the checked matrix of values;
- :mod:`.resampling`: the bootstrap, the sign-flip randomization test, the randomized
  Tukey HSD, the paired t-test (each with optional traffic weights);
- :mod:`.limits`: their normal limits for large samples, and ``resampling_plan``, which
  decides per procedure whether a comparison resamples;
- :mod:`.corrections`: Holm, Benjamini–Hochberg, none, across tests;
- :mod:`.wilcoxon`: the Wilcoxon signed-rank test (scipy's, per row); :mod:`.effects`: the
  effect sizes (Cohen's d_z, the relative change);

then the analyses built on them:

- :mod:`.compare`: ``pg.compare``, the public door: checks its options and dispatches to
  :mod:`.baseline` (every system against the baseline), :mod:`.pairs` (every pair,
  ``pg.compare_pairs``, compact letters) or :mod:`.segments` (per segment of the queries,
  ``pg.compare_segments``, reversals);
- :mod:`.stability` (rank correlations, discriminative power), :mod:`.judgment_bounds`
  (what unjudged rows could change), :mod:`.gate` (the regression gate; its one-sided
  tests and the TOST in :mod:`.one_sided`), :mod:`.power` (topic-set size, detectable
  differences), :mod:`.latex`
  (booktabs tables).

Imports run one way: options, then grid, limits, resampling and corrections, then
baseline, then pairs and segments (with :mod:`.segment_table`), then compare.
"""
