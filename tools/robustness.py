"""Robustness of every notebook: offline, from another folder, run twice in one kernel.

    python tools/robustness.py [PREFIX ...]

For each notebook: start a kernel whose working directory is a fresh temporary
folder (not notebooks/), run all cells, then run all cells again in the same
kernel ("restart and run all", then "run all"), and compare the output of every
`# NBVAL_CHECK_OUTPUT` cell with the committed one after both runs. Run with
the network unavailable (`make e2e` starts it inside `unshare --net`); it
reports whether the network was reachable. DL4NLP_DEVICE is honoured, so
`DL4NLP_DEVICE=cpu` checks the CPU path on a GPU machine.
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_notebooks import select  # noqa: E402
from kernel_client import notebook_client  # noqa: E402

MARKER = "# NBVAL_CHECK_OUTPUT"


def network_reachable() -> bool:
    """True when an outside address answers (or at least routes) within two seconds."""
    try:
        socket.create_connection(("1.1.1.1", 53), timeout=2).close()
        return True
    except OSError:
        return False


def checked_text(cell: nbformat.NotebookNode) -> str:
    """The text a checked cell printed or returned (images and widget views left out)."""
    parts = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            parts.append(output["text"])
        elif output["output_type"] in ("execute_result", "display_data"):
            parts.append(output.get("data", {}).get("text/plain", ""))
        elif output["output_type"] == "error":
            parts.append(f"ERROR {output['ename']}: {output['evalue']}")
    return "".join(parts)


def run_twice(ipynb: Path) -> list[str]:
    """Problems found running ``ipynb`` twice in one kernel from a temporary folder."""
    stored = nbformat.read(ipynb, as_version=4)
    checked = {
        i: checked_text(c)
        for i, c in enumerate(stored.cells)
        if c.cell_type == "code" and MARKER in c.source.splitlines()
    }
    problems = []
    with tempfile.TemporaryDirectory() as folder:
        notebook = nbformat.read(ipynb, as_version=4)
        with notebook_client(notebook, folder, 600, allow_errors=True) as client, client.setup_kernel():
            for run in (1, 2):
                for index, cell in enumerate(notebook.cells):
                    if cell.cell_type != "code":
                        continue
                    client.execute_cell(cell, index)
                    errors = [o for o in cell.outputs if o["output_type"] == "error"]
                    if errors:
                        problems.append(f"run {run}, cell {index}: {errors[0]['ename']}: {errors[0]['evalue']}")
                    elif index in checked and checked_text(cell) != checked[index]:
                        problems.append(f"run {run}, cell {index}: checked output differs from the committed one")
                if problems:
                    break
    return problems


def main(argv: list[str]) -> int:
    print(f"network reachable: {network_reachable()}; DL4NLP_DEVICE={os.environ.get('DL4NLP_DEVICE', '(auto)')}")
    failed, notebooks = 0, select(argv)
    for py in notebooks:
        problems = run_twice(py.with_suffix(".ipynb"))
        print(f"{py.stem}: {'ok (twice, from a temporary folder)' if not problems else 'FAILED'}", flush=True)
        for problem in problems:
            print(f"    {problem}")
        failed += bool(problems)
    print(f"robustness: {len(notebooks) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
