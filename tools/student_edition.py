"""The student edition: every notebook without its solution cells, outputs of the exercises cleared.

    python tools/student_edition.py                 # write student/NN_*.ipynb for every notebook
    python tools/student_edition.py --run 03 04     # ... and execute those editions top to bottom

Uses nbconvert's own preprocessors: ``TagRemovePreprocessor`` drops the cells
tagged ``solution``; ``ClearOutputPreprocessor`` clears the outputs of the
exercise cells (the code cells that call ``check(``), so the student sees no
verdict before answering. ``--run`` executes the edition in a fresh kernel and
fails on the first error: every cell after an unsolved exercise must run,
because later cells use an exercise's result only through
``dl4nlp.exercises.attempt``, which falls back to the library's version.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat
from kernel_client import notebook_client
from nbconvert.preprocessors import ClearOutputPreprocessor, TagRemovePreprocessor

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CELL_TIMEOUT_S = 600


def student_edition(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook less its ``solution`` cells, with the exercise cells' outputs cleared."""
    remove = TagRemovePreprocessor(remove_cell_tags={"solution"}, enabled=True)
    notebook, _ = remove.preprocess(notebook, {})
    clear = ClearOutputPreprocessor()
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and "check(" in cell.source:
            notebook.cells[index], _ = clear.preprocess_cell(cell, {}, index)
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
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    failures = []
    for path in select(args.prefixes):
        edition = student_edition(nbformat.read(path, as_version=4))
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
