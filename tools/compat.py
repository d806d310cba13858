"""Install the oldest versions pyproject.toml declares, on the oldest Python it supports, and run everything there.

    make compat                                        # finds a Python 3.9 (on PATH, else pyenv's)
    python tools/compat.py --python PATH [--venv DIR]  # the same, by hand

Reads ``requires-python`` and the lower bound (``>=X``) of every runtime
dependency in pyproject.toml, checks that ``--python`` is that oldest Python,
and installs ``dl4nlp[dev]`` into a fresh virtual environment with every
runtime dependency pinned to its lower bound (a pip constraints file). All
other packages resolve as pip resolves them for a user who has those versions,
so a bound that only works with an old version of something it pulls in fails
here instead of in a student's environment. Then it runs, in that environment,
the unit tests, the doctests and every notebook under nbval (lax), exactly as
``make test`` does, and prints the versions for the README's table.

Run by hand, not by CI: the first run downloads about 3 GB (torch's wheels on
PyPI bring their CUDA libraries). Exits with pytest's status.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from packaging.version import Version

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
# What `make test` runs, with the lead's options (tools/compat.py must not drift from it: tests check).
PYTEST_ARGS = [
    "tests",
    "notebooks",
    "lib/dl4nlp",
    "--doctest-modules",
    "--nbval-lax",
    "--nbval-current-env",
    "--nbval-cell-timeout=600",
    "-n",
    "2",
    "--dist",
    "loadfile",
]
# Needed to run the tests on an old Python, not by dl4nlp: tomllib arrived in Python 3.11.
TEST_EXTRAS = ["tomli>=1.1; python_version < '3.11'", "pytest-xdist"]
REPORTED = ["torch", "numpy", "matplotlib", "ipywidgets", "ipython", "tqdm", "tokenizers"]


def declared() -> tuple[tuple[int, int], dict[str, str]]:
    """The oldest Python (major, minor) and the lower bound of every runtime dependency, from pyproject.toml."""
    with open(ROOT / "pyproject.toml", "rb") as handle:
        project = tomllib.load(handle)["project"]
    python = re.fullmatch(r">=\s*(\d+)\.(\d+)", project["requires-python"].strip())
    if not python:
        raise SystemExit(f"requires-python must read '>=X.Y'; got {project['requires-python']!r}")
    bounds = {}
    for requirement in project["dependencies"]:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9A-Za-z.]*)", requirement.strip())
        if not match:
            raise SystemExit(f"every runtime dependency needs a plain lower bound 'name>=X'; got {requirement!r}")
        bounds[match.group(1)] = match.group(2)
    return (int(python.group(1)), int(python.group(2))), bounds


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    print("+", " ".join(command), flush=True)
    return subprocess.run(command, check=True, **kwargs)


def installed_versions(python: Path, names: list[str]) -> dict[str, str]:
    code = "import json, sys, importlib.metadata as m; print(json.dumps({n: m.version(n) for n in sys.argv[1:]}))"
    out = subprocess.run([str(python), "-c", code, *names], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", required=True, help="the oldest Python that pyproject.toml supports")
    parser.add_argument("--venv", default=str(ROOT / ".venv-compat"), help="where to build the environment")
    parser.add_argument("--reuse", action="store_true", help="keep an existing environment (pip still checks it)")
    args = parser.parse_args(argv)

    oldest, bounds = declared()
    probe = [args.python, "-c", "import sys; print(*sys.version_info[:3])"]
    version = tuple(int(x) for x in subprocess.run(probe, check=True, capture_output=True, text=True).stdout.split())
    if version[:2] != oldest:
        raise SystemExit(
            f"--python must be the oldest supported Python, {oldest[0]}.{oldest[1]} (requires-python); "
            f"got {'.'.join(map(str, version))} at {args.python}"
        )

    venv = Path(args.venv).resolve()
    if not (args.reuse and (venv / "bin" / "python").exists()):
        shutil.rmtree(venv, ignore_errors=True)
        run([args.python, "-m", "venv", str(venv)])
    python = venv / "bin" / "python"
    constraints = venv / "constraints.txt"
    constraints.write_text("".join(f"{name}=={bound}\n" for name, bound in bounds.items()))
    start = time.perf_counter()
    run([str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    run([str(python), "-m", "pip", "install", "--quiet", "-c", str(constraints), "-e", f"{ROOT}[dev]", *TEST_EXTRAS])
    run([str(python), "-m", "pip", "check"])
    run([str(python), str(ROOT / "tools/labextensions.py")])  # as make setup does
    got = installed_versions(python, list(bounds))
    wrong = {name: (bound, got[name]) for name, bound in bounds.items() if Version(got[name]) != Version(bound)}
    if wrong:
        raise SystemExit(f"installed versions differ from the declared lower bounds (declared, installed): {wrong}")
    print(f"installed in {time.perf_counter() - start:.0f} s; running the tests and the notebooks", flush=True)
    run([str(python), "-m", "ipykernel", "install", "--sys-prefix", "--name", "python3"], capture_output=True)

    start = time.perf_counter()
    tests = subprocess.run([str(python), "-m", "pytest", "-q", *PYTEST_ARGS], cwd=ROOT)
    versions = installed_versions(python, REPORTED)
    row = " | ".join([".".join(map(str, version))] + [versions[name] for name in REPORTED])
    outcome = "passed" if tests.returncode == 0 else "FAILED"
    print(f"\ntests and notebooks: {outcome} in {time.perf_counter() - start:.0f} s")
    print("| Python | " + " | ".join(REPORTED) + " |")
    print("|---" * (len(REPORTED) + 1) + "|")
    print(f"| {row} |")
    return tests.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
