"""Regenerate each notebooks/NN_*.ipynb from its .py twin and execute it in place.

    python tools/build_notebooks.py            # every notebook
    python tools/build_notebooks.py 01 03      # those whose name starts with 01 or 03

Run on the CPU (the Makefile sets DL4NLP_DEVICE=cpu) with the seeds the
notebooks set, so the stored outputs are reproducible. The .py twin is then
rewritten from the executed notebook, so the pair is byte-for-byte in sync.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import jupytext
import nbformat
from kernel_client import notebook_client

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CELL_TIMEOUT_S = 600


def select(prefixes: list[str]) -> list[Path]:
    """The .py twins to build: all of them, or those whose name starts with a prefix."""
    twins = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))
    chosen = [p for p in twins if not prefixes or any(p.name.startswith(x) for x in prefixes)]
    if not chosen:
        raise SystemExit(f"no notebook matches {prefixes}; available: {[p.stem for p in twins]}")
    return chosen


def build(py: Path) -> float:
    """Execute the notebook made from ``py``; write the .ipynb and the canonical .py. Returns seconds."""
    notebook = jupytext.read(py)
    start = time.perf_counter()
    with notebook_client(notebook, NOTEBOOKS, CELL_TIMEOUT_S) as client:
        client.execute()
    seconds = time.perf_counter() - start
    for cell in notebook.cells:  # no timestamps in committed outputs
        cell.metadata.pop("execution", None)
    nbformat.write(notebook, py.with_suffix(".ipynb"))
    jupytext.write(notebook, py, fmt="py:percent")
    return seconds


def main(argv: list[str]) -> int:
    for py in select(argv):
        print(f"{py.stem}: executing ...", flush=True)
        print(f"{py.stem}: done in {build(py):.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
