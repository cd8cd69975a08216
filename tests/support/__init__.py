"""What the tests share: helpers, oracles and references (never tests, never fixtures of
``conftest.py``, which only calls them). ``tests/`` is on ``sys.path`` (pytest's rootdir
insertion: it has no ``__init__.py``), so a test imports ``from support.tables import ...``.

- :mod:`support.environment`: CI or not, the shared data, the optional extras.
- :mod:`support.tables`: eager or lazy input, the suite's seeded random table, the
  contract of an output.
- :mod:`support.strategies`: hypothesis strategies for valid long tables (every kind of
  label, perfect rankings, heavy ties).
- :mod:`support.hostile_tables`: tables of random dtypes and hostile values, each with what
  the library must do with it.
- :mod:`support.measure_strings`: measure strings, valid and invalid, and garbage.
- :mod:`support.trec_files`: TREC run and qrels files, written and drawn.
- :mod:`support.oracle`, :mod:`support.oracle_ties`: every measure in plain Python, and
  the tie policies by enumeration.
- :mod:`support.trec_eval`: trec_eval's values (pytrec_eval, trec_eval 10.0's outputs).
- :mod:`support.cli`, :mod:`support.report`, :mod:`support.gate`: the tables and checks of
  the command line's, the report's and the gate's tests.
"""
