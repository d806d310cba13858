"""The parts every notebook shares, generated from one place.

The repository address lives in pyproject.toml ([project.urls] Repository);
the Colab badge and the set-up cell of every notebook are made from it here.
``python tools/notebook_template.py`` rewrites them in every notebooks/NN_*.py
twin; tests/test_notebooks.py fails when a notebook has drifted.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11 (make compat): the same parser, from PyPI
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"


def repository_url() -> str:
    """The repository address recorded in pyproject.toml."""
    with open(ROOT / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)["project"]["urls"]["Repository"]


def colab_url(notebook_name: str) -> str:
    """Colab's address for opening ``notebooks/<notebook_name>`` from the repository's main branch."""
    path = repository_url().removeprefix("https://github.com/")
    return f"https://colab.research.google.com/github/{path}/blob/main/notebooks/{notebook_name}"


def colab_badge(notebook_name: str) -> str:
    """Markdown for the 'Open in Colab' badge of one notebook."""
    return f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({colab_url(notebook_name)})"


def setup_cell() -> str:
    """The source of the set-up cell that opens every notebook."""
    return f'''# Set-up. In Google Colab (and only there) this first fetches the course and installs
# its library `dl4nlp` without touching Colab's torch; elsewhere `make lab` did that.
import os, subprocess, sys
if "google.colab" in sys.modules or os.environ.get("DL4NLP_BOOTSTRAP") == "1":
    _course = os.path.abspath("dl4nlp-course")
    if not os.path.isdir(_course):
        _url = os.environ.get("DL4NLP_REPO_URL", "{repository_url()}")
        subprocess.run(["git", "clone", "--quiet", "--depth=1", _url, _course], check=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "-e", _course], check=True)
    sys.path.insert(0, os.path.join(_course, "lib"))

import dl4nlp

device = dl4nlp.start(seed=0)'''


SETUP_MARKER = "# Set-up. In Google Colab"
BADGE_PATTERN = re.compile(r"\[!\[Open In Colab\]\([^)]*\)\]\([^)]*\)")


def render(py_text: str, notebook_name: str) -> str:
    """``py_text`` (a py:percent twin) with its badge and set-up cell brought up to date."""
    py_text = BADGE_PATTERN.sub(lambda _: colab_badge(notebook_name), py_text)
    cells = py_text.split("\n# %%")
    for i, cell in enumerate(cells):
        header, _, body = cell.partition("\n")
        if body.startswith(SETUP_MARKER):
            cells[i] = header + "\n" + setup_cell() + "\n"
            if i + 1 < len(cells):
                cells[i] += "\n"
    return "\n# %%".join(cells)


def main() -> int:
    for py in sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py")):
        text = py.read_text()
        updated = render(text, py.with_suffix(".ipynb").name)
        if updated != text:
            py.write_text(updated)
            print(f"updated {py.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
