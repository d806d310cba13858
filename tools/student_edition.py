"""The student edition: every notebook without its solution cells, outputs of the exercises cleared.

    python tools/student_edition.py                 # write student/NN_*.ipynb for every notebook
    python tools/student_edition.py --run 03 04     # ... and execute those editions top to bottom
    python tools/student_edition.py --colab student # badges open student/NN_*.ipynb on branch "student"

Uses nbconvert's own preprocessors: ``TagRemovePreprocessor`` drops the cells
tagged ``solution``; ``ClearOutputPreprocessor`` clears the outputs of the
exercise cells (the code cells that call ``check(``), so the student sees no
verdict before answering. ``--run`` executes the edition in a fresh kernel and
fails on the first error: every cell after an unsolved exercise must run,
because later cells use an exercise's result only through
``dl4nlp.exercises.attempt``, which falls back to the library's version.

The full edition's Colab badge opens ``notebooks/NN_*.ipynb``, solutions
included, so the edition drops it; ``--colab BRANCH`` instead points it at
``student/NN_*.ipynb`` on that branch of the repository (``--repo OWNER/NAME``,
default: the one pyproject.toml names), where an instructor has committed the
edition (README, "A student edition").
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import nbformat
from kernel_client import notebook_client
from nbconvert.preprocessors import ClearOutputPreprocessor, TagRemovePreprocessor
from notebook_template import BADGE_PATTERN, repository_url

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CELL_TIMEOUT_S = 600


def student_badge(name: str, branch: str, repo: str) -> str:
    """Markdown for a Colab badge that opens ``student/<name>`` on ``branch`` of GitHub's ``repo``."""
    url = f"https://colab.research.google.com/github/{repo}/blob/{branch}/student/{name}"
    return f"[![Open In Colab](https://colab.research.google.com/assets/colab-badge.svg)]({url})"


def student_edition(
    notebook: nbformat.NotebookNode, name: str = "", colab_branch: str | None = None, repo: str | None = None
) -> nbformat.NotebookNode:
    """The notebook less its ``solution`` cells, with the exercise cells' outputs cleared.

    The Colab badge is removed, or, with ``colab_branch``, made to open ``student/<name>``
    on that branch of ``repo`` (OWNER/NAME on GitHub; default: pyproject.toml's repository).
    """
    remove = TagRemovePreprocessor(remove_cell_tags={"solution"}, enabled=True)
    notebook, _ = remove.preprocess(notebook, {})
    clear = ClearOutputPreprocessor()
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and "check(" in cell.source:
            notebook.cells[index], _ = clear.preprocess_cell(cell, {}, index)
    if colab_branch:
        repo = repo or repository_url().removeprefix("https://github.com/")
        badge = student_badge(name, colab_branch, repo)
    else:
        badge = ""
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and BADGE_PATTERN.search(cell.source):
            cell.source = re.sub(r"\n{3,}", "\n\n", BADGE_PATTERN.sub(lambda _: badge, cell.source))
    return notebook


def select(prefixes: list[str]) -> list[Path]:
    found = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    chosen = [p for p in found if not prefixes or any(p.name.startswith(x) for x in prefixes)]
    if not chosen:
        raise SystemExit(f"no notebook matches {prefixes}; available: {[p.stem for p in found]}")
    return chosen


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="*", help="notebooks whose name starts with these (default: all)")
    parser.add_argument("--out", type=Path, default=ROOT / "student", help="folder to write (default: student/)")
    parser.add_argument("--run", action="store_true", help="execute each edition; fail on the first error")
    parser.add_argument("--colab", metavar="BRANCH", help="badges open student/NN_*.ipynb on this branch")
    parser.add_argument("--repo", metavar="OWNER/NAME", help="GitHub repository of --colab (default: pyproject's)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    failures = []
    for path in select(args.prefixes):
        edition = student_edition(nbformat.read(path, as_version=4), path.name, args.colab, args.repo)
        target = args.out / path.name
        nbformat.write(edition, target)  # the stored outputs of the full edition, less the exercises'
        if args.run:
            print(f"{path.stem}: running the student edition ...", flush=True)
            try:
                with notebook_client(nbformat.from_dict(edition), NOTEBOOKS, CELL_TIMEOUT_S) as client:
                    client.execute()
            except Exception as error:  # report every notebook, then fail
                last_line = (str(error).strip().splitlines() or [""])[-1]
                failures.append(f"{path.stem}: {type(error).__name__}: {last_line}")
                print(f"{path.stem}: FAILED", flush=True)
                continue
        print(f"{path.stem}: wrote {target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}", flush=True)
    for line in failures:
        print(line, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
