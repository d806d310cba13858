"""Execute every notebook headless and report wall time, slowest cell, peak memory and slowest redraw.

    python tools/bench_notebooks.py [PREFIX ...]

Budgets (CONTRIBUTING.md, "Checks"; on a 2-core CPU): a notebook <= 45 s, no cell
> 15 s, peak memory <= 1.5 GB, every redraw of an interactive figure <= 0.5 s.
Writes bench/results.md (the table, with the machine it ran on) and
bench/results.json; exits 1 when any budget is exceeded or any redraw fails.
Peak memory is the kernel process's maximum resident set size.

After the notebook has run, in the same kernel, every interactive figure it
made (``dl4nlp.widgets.InteractiveFigure``, found in the kernel's output
history and variables) is driven by ``dl4nlp.widgets.sweep``: all
combinations of its controls' extremes and each control through its whole
range, every change a timed redraw. A redraw that raises is reported with
the controls' values. The wall time and slowest cell count the notebook's own
cells only.

The kernel talks to this script over local sockets (IPC), not TCP ports that
another process could take in between. A cell still running after
CELL_TIMEOUT_S is reported as a hang; the notebook is then run once more, and
the table says so.
"""

from __future__ import annotations

import ast
import datetime as dt
import json
import os
import platform
import sys
from pathlib import Path

import nbformat
from nbclient.exceptions import CellTimeoutError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_notebooks import NOTEBOOKS, ROOT, select  # noqa: E402
from kernel_client import notebook_client  # noqa: E402

BUDGET_NOTEBOOK_S = 45.0
BUDGET_CELL_S = 15.0
BUDGET_MEMORY_MB = 1536.0
BUDGET_REDRAW_S = 0.5
CELL_TIMEOUT_S = 180  # twelve times the cell budget: a cell this slow has hung
SWEEP_TIMEOUT_S = 1200  # all the figures of one notebook, a few hundred redraws
PEAK_MEMORY_CELL = """\
import resource, sys
_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(_peak / 1024 if sys.platform != "darwin" else _peak / 2**20)  # MB
"""
# Runs in the notebook's kernel after its last cell; prints one JSON list, a report per figure, after a marker.
SWEEP_MARKER = "dl4nlp-bench-sweep: "
SWEEP_CELL = """\
import json as _json
from dl4nlp.widgets import InteractiveFigure as _Figure, sweep as _sweep
_figures = {}
for _count, _value in sorted(Out.items()):
    if isinstance(_value, _Figure):
        _figures.setdefault(id(_value), (_count, _value))
for _value in list(globals().values()):
    if isinstance(_value, _Figure):
        _figures.setdefault(id(_value), (None, _value))
_reports = []
for _count, _figure in _figures.values():
    _report = {"execution_count": _count, "figure": getattr(_figure.draw, "__name__", "draw")}
    try:
        _found = _sweep(_figure)
    except Exception as _error:  # the driver itself failed: report it as a failure
        _report.update(redraws=0, failures=[{"values": _figure.values, "error": repr(_error)}])
    else:
        _report.update(
            redraws=len(_found.redraws), slowest_s=_found.slowest.seconds, slowest_values=_found.slowest.values,
            failures=[{"values": r.values, "error": r.error} for r in _found.failures], unswept=list(_found.unswept),
        )
    _reports.append(_report)
print("\\n" + MARKER + _json.dumps(_reports, default=repr))
""".replace("MARKER", repr(SWEEP_MARKER))


def _timestamp(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _seconds(timing: dict) -> float:
    return (_timestamp(timing["shell.execute_reply"]) - _timestamp(timing["iopub.execute_input"])).total_seconds()


def figure_calls(notebook: nbformat.NotebookNode) -> int:
    """How many places in the notebook's code make an interactive figure (to check the sweep found them all)."""
    calls = 0
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                calls += name in {"interactive_figure", "InteractiveFigure"}
    return calls


def redraws(notebook: nbformat.NotebookNode, reports: list[dict], cell_of: dict) -> dict:
    """The slowest redraw over the notebook's figures, and every failure, from the sweep cell's reports."""
    failures = []  # each failing combination of values once (a sweep can pass through it twice)
    for r in reports:
        for f in r["failures"]:
            failure = {"figure": r["figure"], "cell": cell_of.get(r["execution_count"]), **f}
            if failure not in failures:
                failures.append(failure)
    timed = [r for r in reports if "slowest_s" in r]
    summary = {
        "figures": len(reports),
        "figure_calls": figure_calls(notebook),
        "redraws": sum(r["redraws"] for r in reports),
        "redraw_failures": failures,
        "slowest_redraw_s": None,
    }
    if timed:
        slowest = max(timed, key=lambda r: r["slowest_s"])
        summary.update(
            slowest_redraw_s=round(slowest["slowest_s"], 2),
            slowest_redraw_cell=cell_of.get(slowest["execution_count"]),
            slowest_redraw_values=slowest["slowest_values"],
        )
    return summary


def bench(ipynb: Path) -> dict:
    """Run one notebook in a fresh kernel; return its timings, peak memory and the sweep of its figures."""
    notebook = nbformat.read(ipynb, as_version=4)
    n_cells = len(notebook.cells)
    notebook.cells.append(nbformat.v4.new_code_cell(PEAK_MEMORY_CELL))
    notebook.cells.append(nbformat.v4.new_code_cell(SWEEP_CELL, metadata={"bench": "sweep"}))
    sweep_timeout = lambda cell: SWEEP_TIMEOUT_S if cell.metadata.get("bench") == "sweep" else CELL_TIMEOUT_S  # noqa: E731
    with notebook_client(notebook, NOTEBOOKS, CELL_TIMEOUT_S, timeout_func=sweep_timeout, record_timing=True) as client:
        started = dt.datetime.now(dt.timezone.utc)
        client.execute()
    own = [
        (i, c) for i, c in enumerate(notebook.cells[:n_cells]) if c.cell_type == "code" and "execution" in c.metadata
    ]
    cells = [(i, _seconds(c.metadata["execution"])) for i, c in own]
    last_reply = max(_timestamp(c.metadata["execution"]["shell.execute_reply"]) for _, c in own)
    slowest_index, slowest = max(cells, key=lambda item: item[1])
    peak_mb = float(notebook.cells[n_cells].outputs[0]["text"].strip())
    sweep_output = "".join(o.get("text", "") for o in notebook.cells[n_cells + 1].outputs if o.output_type == "stream")
    reports = [line for line in sweep_output.splitlines() if line.startswith(SWEEP_MARKER)]
    if not reports:
        raise RuntimeError(
            f"{ipynb.name}: the sweep cell printed no report; its output ends with {sweep_output[-2000:]!r}"
        )
    cell_of = {c.execution_count: i for i, c in own}
    return {
        "notebook": ipynb.name,
        "wall_s": round((last_reply - started).total_seconds(), 1),
        "slowest_cell_s": round(slowest, 1),
        "slowest_cell_index": slowest_index,
        "peak_memory_mb": round(peak_mb),
        **redraws(notebook, json.loads(reports[-1][len(SWEEP_MARKER) :]), cell_of),
    }


def table(rows: list[dict]) -> str:
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    lines = [
        f"Measured by `make bench` on {machine}, device `{os.environ.get('DL4NLP_DEVICE', 'auto')}`.",
        f"Budgets: notebook <= {BUDGET_NOTEBOOK_S:g} s, cell <= {BUDGET_CELL_S:g} s, "
        f"peak memory <= {BUDGET_MEMORY_MB:g} MB, redraw <= {BUDGET_REDRAW_S:g} s "
        "(every interactive figure driven through its controls' ranges; see tools/bench_notebooks.py).",
        "",
        "| notebook | wall time (s) | slowest cell (s) | peak memory (MB) | slowest redraw (s) | within budget |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        redraw_ok = not r["redraw_failures"] and (r["slowest_redraw_s"] or 0) <= BUDGET_REDRAW_S
        ok = (
            r["wall_s"] <= BUDGET_NOTEBOOK_S
            and r["slowest_cell_s"] <= BUDGET_CELL_S
            and r["peak_memory_mb"] <= BUDGET_MEMORY_MB
            and redraw_ok
        )
        r["within_budget"] = ok
        lines.append(
            f"| {r['notebook']} | {r['wall_s']} | {r['slowest_cell_s']} (cell {r['slowest_cell_index']}) "
            f"| {r['peak_memory_mb']} | {redraw_cell(r)} | {'yes' if ok else 'NO'} |"
        )
    return "\n".join(lines) + "\n"


def redraw_cell(row: dict) -> str:
    """The table's redraw column: the slowest redraw and its cell, flagged; failures first."""
    failed = f"**{len(row['redraw_failures'])} FAILED**" if row["redraw_failures"] else ""
    if row["slowest_redraw_s"] is None:
        return failed or "–"  # no interactive figure (or none that drew)
    flag = "" if row["slowest_redraw_s"] <= BUDGET_REDRAW_S else " **over**"
    slowest = f"{row['slowest_redraw_s']:.2f} (cell {row['slowest_redraw_cell']}){flag}"
    return f"{failed}; {slowest}" if failed else slowest


def problems(row: dict) -> list[str]:
    """Lines to print loudly: every failed redraw with its values, figures the sweep did not find."""
    lines = [
        f"{row['notebook']}: redraw FAILED in cell {f['cell']} ({f['figure']}) with {f['values']}: {f['error']}"
        for f in row["redraw_failures"]
    ]
    if row["figures"] < row["figure_calls"]:
        lines.append(
            f"{row['notebook']}: found {row['figures']} interactive figures but the code makes "
            f"{row['figure_calls']}: keep each one as a cell's result or in a variable so that it can be swept"
        )
    return lines


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
    (out / "results.json").write_text(json.dumps(rows, indent=2, default=repr) + "\n")
    print("\n" + report)
    loud = [line for r in rows for line in problems(r)]
    for line in loud:
        print(line, file=sys.stderr)
    return 0 if all(r["within_budget"] for r in rows) and not loud else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
