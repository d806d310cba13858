"""Sphinx configuration of the course book (built by tools/book_build.py; `make book`).

The pages are the chapter notebooks with their stored outputs, read by MyST-NB
without executing anything; the theme is sphinx-book-theme. Nothing is fetched
from the network, neither at build time nor by a reader's browser: MathJax is
served from the book itself (sphinx-mathjax-offline), and the ipywidgets
JavaScript, which MyST-NB would load from a CDN, is not included (tools/book_build.py
replaces each interactive figure's output by a note).
"""

project = "dl4nlp: deep learning for NLP"
author = "the dl4nlp authors"
copyright = "the dl4nlp authors; code MIT licensed (see LICENSE)"

extensions = ["myst_nb", "sphinx-mathjax-offline"]
exclude_patterns = ["_build", "conf.py"]

nb_execution_mode = "off"  # the stored outputs only
nb_ipywidgets_js = {}  # no widget manager from a CDN
nb_merge_streams = True
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_heading_anchors = 3
suppress_warnings = ["misc.highlighting_failure", "mystnb.unknown_mime_type"]

html_theme = "sphinx_book_theme"
html_title = "dl4nlp"
html_static_path = ["_static"]
html_last_updated_fmt = None
html_copy_source = False
html_show_sourcelink = False
html_context = {"default_mode": "light"}
html_theme_options = {
    "repository_url": "https://github.com/dl4nlp-course/dl4nlp",
    "repository_branch": "main",
    "path_to_docs": "notebooks",
    "use_repository_button": True,
    "use_download_button": False,  # the chapters are in the repository (and the Colab button opens them)
    "launch_buttons": {"colab_url": "https://colab.research.google.com"},
    "home_page_in_toc": True,
    "show_navbar_depth": 1,
    "navigation_with_keys": False,
}
