"""Turn off the JupyterLab extensions we know to be stale, then check that no enabled one is incompatible.

    python tools/labextensions.py     # run by `make setup` (and tools/compat.py) with the environment's python

``jupyterlab_rise`` (RISE, our slides) requires ``jupyterlab-mathjax3``, whose
latest release (4.3.0, 2022) is a JupyterLab 3 extension: ``jupyter
labextension list`` marks it incompatible with JupyterLab 4 (it needs
``@jupyterlab/application`` 3.x). It is not needed: JupyterLab 4 renders LaTeX
with MathJax 3 itself (``@jupyterlab/mathjax-extension``), and RISE's
slideshow app bundles that same core extension. So the package stays installed
(RISE declares it) and its frontend is disabled in this environment
(``--level=sys_prefix``: nothing outside the virtual environment changes).

Exits 1, naming them, when any extension that stays enabled is marked
incompatible (`` X`` in ``jupyter labextension list``), e.g. after a pin bump.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

# Extensions that RISE or another pinned package brings but JupyterLab 4 should not load, with the reason above.
STALE = ["@jupyterlab/mathjax3-extension"]
LINE = re.compile(r"^\s+(?P<name>\S+) v(?P<version>\S+) (?P<state>enabled|disabled)\s+(?P<compat>OK|X)\b")


def jupyter() -> str:
    """The ``jupyter`` command of the environment this interpreter belongs to."""
    return str(Path(sys.executable).with_name("jupyter"))


def extensions() -> list[dict]:
    """Every prebuilt extension ``jupyter labextension list`` reports: name, version, state, compat (OK or X)."""
    listing = subprocess.run([jupyter(), "labextension", "list"], capture_output=True, text=True, check=True)
    text = re.sub(r"\x1b\[[0-9;]*m", "", listing.stdout + listing.stderr)  # drop the colours
    return [m.groupdict() for m in map(LINE.match, text.splitlines()) if m]


def enabled_but_incompatible(found: list[dict]) -> list[str]:
    """Those of ``found`` (from ``extensions()``) that JupyterLab would load although they are marked incompatible."""
    return [f"{e['name']} {e['version']}" for e in found if e["state"] == "enabled" and e["compat"] == "X"]


def main() -> int:
    found = extensions()
    for extension in found:
        if extension["name"] in STALE and extension["state"] == "enabled":
            command = [jupyter(), "labextension", "disable", "--level=sys_prefix", extension["name"]]
            subprocess.run(command, capture_output=True, check=True)  # fails loudly if it cannot
            extension["state"] = "disabled"
    bad = enabled_but_incompatible(found)
    if bad:
        print(f"JupyterLab would load extensions incompatible with it: {bad} (see tools/labextensions.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
