"""Execute every notebook headless and report wall time, slowest cell and peak memory.

    python tools/bench_notebooks.py [PREFIX ...]

Budgets (DESIGN.md section 5, on a 2-core CPU): a notebook <= 45 s, no cell
> 15 s, peak memory <= 1.5 GB. Writes bench/results.md (the table, with the
machine it ran on) and bench/results.json; exits 1 when any budget is exceeded.
Peak memory is the kernel process's maximum resident set size.

The kernel talks to this script over local sockets (IPC), not TCP ports that
another process could take in between. A cell still running after
CELL_TIMEOUT_S is reported as a hang; the notebook is then run once more, and
the table says so.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_notebooks import NOTEBOOKS, ROOT, select  # noqa: E402

BUDGET_NOTEBOOK_S = 45.0
BUDGET_CELL_S = 15.0
BUDGET_MEMORY_MB = 1536.0
CELL_TIMEOUT_S = 180  # twelve times the cell budget: a cell this slow has hung
PEAK_MEMORY_CELL = """\
import resource, sys
_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(_peak / 1024 if sys.platform != "darwin" else _peak / 2**20)  # MB
"""


def _seconds(timing: dict) -> float:
    start = dt.datetime.fromisoformat(timing["iopub.execute_input"].replace("Z", "+00:00"))
    end = dt.datetime.fromisoformat(timing["shell.execute_reply"].replace("Z", "+00:00"))
    return (end - start).total_seconds()


def bench(ipynb: Path) -> dict:
    """Run one notebook in a fresh kernel; return its timings and peak memory."""
    notebook = nbformat.read(ipynb, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(PEAK_MEMORY_CELL))
    with tempfile.TemporaryDirectory() as sockets:
        kernel = KernelManager(kernel_name="python3", transport="ipc", ip=str(Path(sockets) / "kernel"))
        client = NotebookClient(
            notebook,
            km=kernel,
            timeout=CELL_TIMEOUT_S,
            record_timing=True,
            resources={"metadata": {"path": str(NOTEBOOKS)}},
        )
        start = time.perf_counter()
        client.execute()
        wall = time.perf_counter() - start
    cells = [
        (i, _seconds(c.metadata["execution"]))
        for i, c in enumerate(notebook.cells[:-1])
        if c.cell_type == "code" and "execution" in c.metadata
    ]
    slowest_index, slowest = max(cells, key=lambda item: item[1])
    peak_mb = float(notebook.cells[-1].outputs[0]["text"].strip())
    return {
        "notebook": ipynb.name,
        "wall_s": round(wall, 1),
        "slowest_cell_s": round(slowest, 1),
        "slowest_cell_index": slowest_index,
        "peak_memory_mb": round(peak_mb),
    }


def table(rows: list[dict]) -> str:
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    lines = [
        f"Measured by `make bench` on {machine}, device `{os.environ.get('DL4NLP_DEVICE', 'auto')}`.",
        f"Budgets: notebook <= {BUDGET_NOTEBOOK_S:g} s, cell <= {BUDGET_CELL_S:g} s, "
        f"peak memory <= {BUDGET_MEMORY_MB:g} MB.",
        "",
        "| notebook | wall time (s) | slowest cell (s) | peak memory (MB) | within budget |",
        "|---|---:|---:|---:|---|",
    ]
    for r in rows:
        ok = (
            r["wall_s"] <= BUDGET_NOTEBOOK_S
            and r["slowest_cell_s"] <= BUDGET_CELL_S
            and r["peak_memory_mb"] <= BUDGET_MEMORY_MB
        )
        r["within_budget"] = ok
        lines.append(
            f"| {r['notebook']} | {r['wall_s']} | {r['slowest_cell_s']} (cell {r['slowest_cell_index']}) "
            f"| {r['peak_memory_mb']} | {'yes' if ok else 'NO'} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    rows = []
    for py in select(argv):
        print(f"benchmarking {py.stem} ...", flush=True)
        try:
            rows.append(bench(py.with_suffix(".ipynb")))
        except CellTimeoutError as error:
            print(
                f"{py.stem}: a cell hung for {CELL_TIMEOUT_S} s ({str(error).splitlines()[0]}); running it again",
                flush=True,
            )
            rows.append(dict(bench(py.with_suffix(".ipynb")), notebook=f"{py.with_suffix('.ipynb').name} (2nd try)"))
    report = table(rows)
    out = ROOT / "bench"
    out.mkdir(exist_ok=True)
    (out / "results.md").write_text(report)
    (out / "results.json").write_text(json.dumps(rows, indent=2) + "\n")
    print("\n" + report)
    return 0 if all(r["within_budget"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
