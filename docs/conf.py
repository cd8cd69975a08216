"""Sphinx configuration of the polars_graded site (``sphinx-build -W docs docs/_build/html``).

The guide pages are Markdown (MyST); the API reference comes from the numpydoc docstrings
(autodoc + autosummary); the measures page's generated sections come from the registry
(``python -m polars_graded.measures --write``).
"""

from __future__ import annotations

from importlib.metadata import version as _version

project = "polars_graded"
author = "the polars_graded authors"
copyright = "2026, the polars_graded authors"
release = _version("polars-graded")
version = release

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "README.md"]
root_doc = "index"

myst_enable_extensions = ["colon_fence", "dollarmath", "deflist"]
myst_heading_anchors = 3

autosummary_generate = True
autodoc_typehints = "none"  # numpydoc's Parameters section says the types in words
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "pydata_sphinx_theme"
html_title = "polars_graded"
html_static_path = ["_static"]
html_theme_options = {
    "navigation_with_keys": False,
    "header_links_before_dropdown": 5,
    "navbar_align": "left",
    "navbar_persistent": ["search-button"],
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False
# Pages without sub-pages: no empty "Section Navigation" column beside them.
html_sidebars = {
    page: []
    for page in (
        "index",
        "getting-started",
        "measures",
        "conventions",
        "paper",
        "performance",
        "contributing",
        "changelog",
    )
}
