"""End-to-end test in a real browser: JupyterLab + headless Chromium, every notebook.

    python tools/e2e.py [PREFIX ...]

Starts JupyterLab from the project's environment on a free local port (with a
throw-away settings and workspace folder), drives Debian's Chromium through
Playwright, and for each notebook: opens it, runs all cells, and fails if a
cell errors, if an interactive figure does not render as controls, or if fewer
figures appear than the committed notebook holds. Saves one screenshot per
notebook in e2e/screenshots/. Finally checks the README's way of presenting:
RISE's slideshow command, bound to Alt+R, renders the first notebook as slides
(screenshot rise_preview.png). Needs /usr/bin/chromium (`make e2e` installs it).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from build_notebooks import NOTEBOOKS, ROOT, select  # noqa: E402

CHROMIUM = os.environ.get("DL4NLP_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
NOTEBOOK_TIMEOUT_S = 240
SCREENSHOTS = ROOT / "e2e" / "screenshots"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


LAB_SETTINGS = {  # plugin folder/file -> settings: no virtualised cells, no autosave, no news pop-up
    "notebook-extension/tracker": {"windowingMode": "none"},
    "docmanager-extension/plugin": {"autosave": False},
    "apputils-extension/notification": {"fetchNews": "false"},
}


def start_lab(port: int, token: str, scratch: Path) -> subprocess.Popen:
    """JupyterLab on 127.0.0.1:port serving a scratch copy of notebooks/, with its own settings."""
    for name, values in LAB_SETTINGS.items():
        path = scratch / "settings" / "@jupyterlab" / f"{name}.jupyterlab-settings"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    shutil.copytree(NOTEBOOKS, scratch / "notebooks")  # the browser never writes into the repository
    env = dict(
        os.environ,
        JUPYTERLAB_SETTINGS_DIR=str(scratch / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(scratch / "workspaces"),
    )
    jupyter = Path(sys.executable).with_name("jupyter")
    process = subprocess.Popen(
        [
            str(jupyter),
            "lab",
            "--no-browser",
            f"--port={port}",
            "--ip=127.0.0.1",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={scratch / 'notebooks'}",
            "--LabApp.expose_app_in_browser=True",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ]
        + (["--allow-root"] if os.geteuid() == 0 else []),
        env=env,
        stdout=open(scratch / "lab.log", "w"),
        stderr=subprocess.STDOUT,
    )
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2)
            return process
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.5)
    process.kill()
    raise RuntimeError(
        f"JupyterLab did not start; see {scratch / 'lab.log'}:\n" + (scratch / "lab.log").read_text()[-3000:]
    )


def expectations(ipynb: Path) -> dict:
    """What the committed notebook shows: figures in cell outputs, cells with interactive figures, and the
    concept check's answers (each a ``<details>`` element in an HTML output)."""
    cells = [c for c in json.loads(ipynb.read_text())["cells"] if c["cell_type"] == "code"]
    figures = sum("image/png" in o.get("data", {}) for c in cells for o in c["outputs"])
    widget_cells = [
        i
        for i, c in enumerate(cells)
        if "interactive_figure(" in "".join(c["source"])
        and any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in c["outputs"])
    ]
    answers = sum(
        "".join(o.get("data", {}).get("text/html", "")).count("<details") for c in cells for o in c["outputs"]
    )
    return {"figures": figures, "widget_cells": widget_cells, "answers": answers}


OPEN_AND_RUN = """async () => {
  const app = window.jupyterapp;
  await app.started; await app.restored;
  let panel = null;
  for (let i = 0; i < 200 && !(panel && panel.content && panel.sessionContext); i++) {
    panel = app.shell.currentWidget; await new Promise(r => setTimeout(r, 100));
  }
  await panel.context.ready; await panel.sessionContext.ready;
  await app.commands.execute('notebook:run-all-cells');
  return panel.context.path;
}"""

STATE = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const cells = panel.content.model.cells;
  const result = {busy: panel.sessionContext.session.kernel.status !== 'idle', pending: 0, errors: [], code: 0};
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type !== 'code') continue;
    if (cell.executionCount === null) result.pending++;
    for (let j = 0; j < cell.outputs.length; j++) {
      const o = cell.outputs.get(j).toJSON();
      if (o.output_type === 'error') result.errors.push(`code cell ${result.code}: ${o.ename}: ${o.evalue}`);
    }
    result.code++;
  }
  return result;
}"""

RENDERED = """(widgetCells) => {
  const panel = window.jupyterapp.shell.currentWidget;
  const codeCells = panel.content.widgets.filter(w => w.model.type === 'code');
  const widgets = widgetCells.map(i => {
    const node = codeCells[i].node;
    const controls = ['.jupyter-widgets.widget-slider', '.widget-dropdown', '.widget-checkbox',
                      '.widget-toggle-buttons', '.widget-text', '.widget-select', '.widget-button',
                      '.widget-int-text', '.widget-float-text', '.widget-radio'].join(', ');
    return {cell: i, controls: node.querySelectorAll(controls).length,
            figure: node.querySelectorAll('.widget-output img, .jp-OutputArea-output img').length,
            failed: /Error displaying widget|Loading widget/.test(node.innerText)};
  });
  return {images: panel.node.querySelectorAll('.jp-RenderedImage img').length, widgets,
          answers: panel.node.querySelectorAll('.jp-OutputArea-output details > summary').length};
}"""


def run_notebook(page: Page, base: str, token: str, ipynb: Path) -> list[str]:
    """Open, run all, check; return the problems found (empty when it passed)."""
    expected = expectations(ipynb)
    page.goto(f"{base}/lab/tree/{ipynb.name}?token={token}&reset")
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=60_000)
    page.evaluate(OPEN_AND_RUN)
    deadline = time.time() + NOTEBOOK_TIMEOUT_S
    state = page.evaluate(STATE)
    while (state["busy"] or state["pending"]) and not state["errors"] and time.time() < deadline:
        time.sleep(1)
        state = page.evaluate(STATE)
    problems = list(state["errors"])
    if state["pending"] and not problems:
        problems.append(f"{state['pending']} cells did not finish within {NOTEBOOK_TIMEOUT_S} s")
    time.sleep(1.5)  # let the last figures and widget views render
    rendered = page.evaluate(RENDERED, expected["widget_cells"])
    if rendered["images"] < expected["figures"]:
        problems.append(f"{rendered['images']} figures rendered, the committed notebook has {expected['figures']}")
    if rendered["answers"] < expected["answers"]:
        problems.append(f"{rendered['answers']} concept-check answers rendered, the notebook has {expected['answers']}")
    for widget in rendered["widgets"]:
        if widget["failed"] or widget["controls"] == 0:
            problems.append(f"code cell {widget['cell']}: interactive figure did not render as controls")
        elif widget["figure"] == 0:
            problems.append(f"code cell {widget['cell']}: interactive figure shows no figure")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOTS / f"{ipynb.stem}.png"
    if expected["widget_cells"]:  # the first interactive figure, rendered live
        cell = page.evaluate_handle(
            """(i) => window.jupyterapp.shell.currentWidget.content.widgets
            .filter(w => w.model.type === 'code')[i].node""",
            expected["widget_cells"][0],
        ).as_element()
        cell.scroll_into_view_if_needed()
        cell.screenshot(path=str(shot))
    else:
        page.screenshot(path=str(shot))
    return problems


RISE_SHORTCUT = """() => {
  const app = window.jupyterapp;
  const bound = app.commands.keyBindings.filter(b => b.command === 'RISE:preview').map(b => b.keys.join(' '));
  return {command: app.commands.hasCommand('RISE:preview'), keys: bound,
          label: app.commands.hasCommand('RISE:preview') ? app.commands.label('RISE:preview') : ''};
}"""


def check_slideshow(page: Page) -> list[str]:
    """The README's presenting instructions: RISE's command, its Alt+R shortcut, and a rendered slide."""
    rise = page.evaluate(RISE_SHORTCUT)
    if not rise["command"]:
        return ["RISE (jupyterlab-rise) is not installed: no 'RISE:preview' command"]
    problems = [] if "Alt R" in rise["keys"] else [f"RISE:preview is bound to {rise['keys']}, not Alt R"]
    page.evaluate("() => window.jupyterapp.commands.execute('RISE:preview')")
    try:  # the preview is an iframe holding reveal.js slides built from the notebook
        frame = page.frame_locator("iframe").last
        frame.locator(".reveal .slides section").first.wait_for(timeout=60_000)
        page.screenshot(path=str(SCREENSHOTS / "rise_preview.png"))
        notes = frame.locator(".reveal aside.notes").count()  # the **Aside.** cells: speaker notes, off the slides
        if notes == 0:
            problems.append("the slideshow has no speaker notes, although the notebook's asides are notes cells")
    except Exception as error:  # reported, not raised: the notebooks' own results still count
        problems.append(f"the RISE slideshow did not render: {type(error).__name__}: {str(error).splitlines()[0]}")
    return problems


def main(argv: list[str]) -> int:
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"Chromium not found at {CHROMIUM}: install Debian's chromium (make e2e does it)")
    if not argv and SCREENSHOTS.exists():  # a full run: no screenshot of a notebook that no longer exists stays
        current = {p.stem for p in select([])} | {"rise_preview"}
        for stale in SCREENSHOTS.glob("*.png"):
            if stale.stem not in current:
                stale.unlink()
    port, token = free_port(), secrets.token_hex(16)
    failures = {}
    with tempfile.TemporaryDirectory() as scratch:
        lab = start_lab(port, token, Path(scratch))
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                for py in select(argv):
                    ipynb = py.with_suffix(".ipynb")
                    start = time.time()
                    problems = run_notebook(page, f"http://127.0.0.1:{port}", token, ipynb)
                    page.evaluate("() => window.jupyterapp.commands.execute('kernelmenu:shutdown')")
                    verdict = "ok" if not problems else "FAILED"
                    print(f"{ipynb.name}: {verdict} ({time.time() - start:.0f} s)", flush=True)
                    for problem in problems:
                        print(f"    {problem}", flush=True)
                    if problems:
                        failures[ipynb.name] = problems
                first = select(argv)[0].with_suffix(".ipynb").name
                page.goto(f"http://127.0.0.1:{port}/lab/tree/{first}?token={token}&reset")
                page.wait_for_function("() => window.jupyterapp !== undefined", timeout=60_000)
                page.evaluate("async () => { await window.jupyterapp.restored; }")
                page.locator(".jp-Notebook").first.wait_for(timeout=60_000)
                slideshow = check_slideshow(page)
                print(f"RISE slideshow (Alt+R): {'ok' if not slideshow else 'FAILED'}", flush=True)
                for problem in slideshow:
                    print(f"    {problem}", flush=True)
                if slideshow:
                    failures["RISE slideshow"] = slideshow
                browser.close()
        finally:
            lab.terminate()
            lab.wait(timeout=30)
    print(f"screenshots in {SCREENSHOTS.relative_to(ROOT)}/")
    print(f"e2e: {len(select(argv)) + 1 - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
