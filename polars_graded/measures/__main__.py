"""``python -m polars_graded.measures --write README.md``: rewrite the generated files.

See :mod:`polars_graded.measures.generated.generate`.
"""

import sys

from polars_graded.measures.generated.generate import main

sys.exit(main())
