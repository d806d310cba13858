"""The Colab path of the set-up cell, tested without Colab.

A fresh virtual environment sees the already-installed scientific stack (as
Colab's does: torch, numpy, ipywidgets, matplotlib) but not dl4nlp. Notebook
00 is executed in a kernel from that environment with DL4NLP_BOOTSTRAP=1 and
the repository reachable only through a local git URL: its set-up cell must
clone the course, install the library without replacing torch, and the whole
notebook must then run.
"""

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]


def make_colab_like_env(tmp_path: Path) -> Path:
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    python = env / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # A plain path entry: the packages are importable, but their .pth files (our editable dl4nlp) are not run.
    Path(site, "preinstalled_stack.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def test_set_up_cell_bootstraps_from_a_git_url(tmp_path, monkeypatch):
    # A PYTHONPATH (one pointing at lib/, say) would reach the fresh environment and its kernel: Colab has none.
    monkeypatch.delenv("PYTHONPATH", raising=False)
    python = make_colab_like_env(tmp_path)
    probe = subprocess.run(
        [str(python), "-c", "import torch, ipywidgets; import dl4nlp"], capture_output=True, text=True
    )
    assert "No module named 'dl4nlp'" in probe.stderr, "the fresh environment must not see dl4nlp yet"

    kernels = tmp_path / "jupyter" / "kernels" / "colab-like"
    kernels.mkdir(parents=True)
    (kernels / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "colab-like",
                "language": "python",
            }
        )
    )
    work = tmp_path / "content"
    work.mkdir()
    os.environ.update(JUPYTER_PATH=str(tmp_path / "jupyter"), DL4NLP_BOOTSTRAP="1", DL4NLP_REPO_URL=ROOT.as_uri())
    try:
        notebook = nbformat.read(ROOT / "notebooks" / "00_start_here.ipynb", as_version=4)
        NotebookClient(
            notebook, timeout=600, kernel_name="colab-like", resources={"metadata": {"path": str(work)}}
        ).execute()
    finally:
        for name in ("JUPYTER_PATH", "DL4NLP_BOOTSTRAP", "DL4NLP_REPO_URL"):
            os.environ.pop(name, None)

    assert (work / "dl4nlp-course" / "lib" / "dl4nlp" / "__init__.py").is_file()
    where = subprocess.run(
        [str(python), "-c", "import torch, dl4nlp; print(torch.__file__); print(dl4nlp.__file__)"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert where[0].startswith(sysconfig.get_paths()["purelib"]), "the set-up cell replaced the preinstalled torch"
    assert where[1].startswith(str(work / "dl4nlp-course")), "dl4nlp should come from the fresh clone"
    first_output = "".join(o.get("text", "") for o in notebook.cells[2].outputs)
    assert first_output.startswith("dl4nlp "), first_output
