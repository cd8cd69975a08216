"""``python -m polars_graded.cli``: the ``polars-graded`` command."""

from polars_graded.cli import main

raise SystemExit(main())
