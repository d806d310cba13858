"""The set-up files agree with each other: pyproject, environment.yml, pins, CI, README."""

import ast
import functools
import re
import sys
import sysconfig
from importlib.util import find_spec
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11 (make compat): the same parser, from PyPI
    import tomli as tomllib

import pytest

import dl4nlp

ROOT = Path(__file__).resolve().parents[1]
CONDA_TO_PYPI = {"pytorch": "torch"}  # conda-forge names that differ from PyPI's
NOT_PACKAGES = {"python", "pip"}
# Import names whose distribution is named differently (or cannot be looked up on Python < 3.10).
DISTRIBUTION_OF = {"IPython": "ipython", "PIL": "pillow", "sklearn": "scikit-learn", "yaml": "pyyaml"}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~ \[;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)


def pyproject_packages() -> set[str]:
    project = pyproject()["project"]
    requirements = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    return {_name(r) for r in requirements}


def conda_requirements() -> dict[str, str]:
    """environment.yml's top-level conda dependencies: PyPI name -> version specifier (e.g. '>=2.1')."""
    requirements = {}
    text = (ROOT / "environment.yml").read_text()
    for line in text[text.index("dependencies:") :].splitlines():
        match = re.match(r"^  - ([A-Za-z0-9_.-]+)\s*(\S*)", line)  # top-level conda dependencies only
        if match:
            name = _name(match.group(1))
            requirements[CONDA_TO_PYPI.get(name, name)] = match.group(2)
    return requirements


def conda_packages() -> set[str]:
    return set(conda_requirements()) - NOT_PACKAGES


def pinned() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements/dev.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[_name(name)] = version.strip()
    return pins


def test_environment_yml_names_the_same_packages_as_pyproject():
    assert conda_packages() == pyproject_packages()


def test_environment_yml_declares_the_same_bounds_as_pyproject():
    project = pyproject()["project"]
    requirements = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    declared = {_name(r): r[len(re.split(r"[<>=!~ ;]", r, maxsplit=1)[0]) :].strip() for r in requirements}
    conda = conda_requirements()
    assert {name: conda[name] for name in declared} == declared
    assert conda["python"] == project["requires-python"]


def test_environment_yml_installs_the_package_itself():
    assert "--editable ." in (ROOT / "environment.yml").read_text()


def test_library_ranges_stay_loose_for_colab():
    for requirement in pyproject()["project"]["dependencies"]:
        assert "==" not in requirement and "<" not in requirement, requirement
    assert "torch>=2.1" in pyproject()["project"]["dependencies"]


def test_every_dependency_is_pinned_and_torch_is_the_tested_release():
    pins = pinned()
    missing = pyproject_packages() - set(pins)
    assert not missing, f"pin these in requirements/dev.txt: {sorted(missing)}"
    assert pins["torch"] == "2.13.0"


def test_single_version_number():
    from dl4nlp import _version

    assert pyproject()["tool"]["setuptools"]["dynamic"]["version"]["attr"] == "dl4nlp._version.__version__"
    assert dl4nlp.__version__ == _version.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", dl4nlp.__version__)


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci/run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "make test" in ci and "make test" in readme and "make lab" in readme
    assert "make e2e" in readme
    assert ci.index("make test") < ci.index("make e2e"), "CI runs the unit and notebook tests first"


def test_makefile_never_sets_a_matplotlib_backend():
    assert "MPLBACKEND" not in (ROOT / "Makefile").read_text()


def _top_level_statements_that_run(path: Path) -> list[str]:
    """Top-level statements of a module that do something on import (beyond defining names)."""
    allowed = (
        ast.Import,
        ast.ImportFrom,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.ClassDef,
        ast.Assign,
        ast.AnnAssign,
    )
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, allowed) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            continue  # definitions, constants and the docstring
        if isinstance(node, ast.If) and ast.unparse(node.test) in {"__name__ == '__main__'", "TYPE_CHECKING"}:
            continue  # a command's entry point, typing-only imports
        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node).splitlines()[0]}")
    return found


def test_importing_a_library_module_only_defines_names():
    # --doctest-modules imports every module of lib/dl4nlp: a recipe must train only under `python -m`.
    modules = sorted((ROOT / "lib/dl4nlp").rglob("*.py"))
    assert len(modules) > 20
    found = [line for path in modules for line in _top_level_statements_that_run(path)]
    assert not found, "guard these with `if __name__ == '__main__':`\n" + "\n".join(found)


def test_license_file_is_the_licence_pyproject_names():
    assert pyproject()["project"]["license"] == {"text": "MIT"}
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Copyright (c) 2026 the dl4nlp authors" in text


def _is_standard_library(module: str) -> bool:
    if hasattr(sys, "stdlib_module_names"):  # Python 3.10+
        return module in sys.stdlib_module_names
    if module in sys.builtin_module_names:
        return True
    spec = find_spec(module)
    origin = (spec.origin or "") if spec else ""
    return origin.startswith(sysconfig.get_paths()["stdlib"]) and "site-packages" not in origin


@functools.lru_cache(maxsize=1)
def _packages_distributions() -> dict:
    """Import name -> the distributions that provide it ({} on Python < 3.10, which cannot tell)."""
    try:
        from importlib.metadata import packages_distributions
    except ImportError:
        return {}
    return packages_distributions()


def _distribution(module: str) -> str:
    if module in DISTRIBUTION_OF:
        return DISTRIBUTION_OF[module]
    return _name(_packages_distributions().get(module, [module])[0])


def _required_imports(path: Path) -> set[str]:
    """Top-level names of the modules ``path`` imports, except those guarded by ``except ImportError``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    optional = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            ast.unparse(h.type or ast.Name("BaseException")) in {"ImportError", "ModuleNotFoundError"}
            for h in node.handlers
        ):
            optional.update(id(n) for statement in node.body for n in ast.walk(statement))
    names = set()
    for node in ast.walk(tree):
        if id(node) in optional:
            continue
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_every_module_a_notebook_or_the_library_imports_is_a_runtime_dependency():
    # `pip install dl4nlp` (what a notebook's Colab set-up cell runs) must bring everything the
    # notebooks and the library import; an import that is optional sits in `try: ... except ImportError:`.
    declared = {_name(r) for r in pyproject()["project"]["dependencies"]}
    sources = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py")) + sorted((ROOT / "lib/dl4nlp").rglob("*.py"))
    assert len(sources) > 30
    undeclared = {}
    for path in sources:
        for module in _required_imports(path) - {"dl4nlp"}:
            if not _is_standard_library(module) and _distribution(module) not in declared:
                undeclared.setdefault(_distribution(module), []).append(path.name)
    assert not undeclared, f"add to [project] dependencies in pyproject.toml (and environment.yml): {undeclared}"


def test_the_import_check_sees_third_party_imports(tmp_path):
    script = tmp_path / "nb.py"
    script.write_text(
        "import os, numpy as np\nfrom IPython.display import HTML\nfrom . import sibling\n"
        "try:\n    import tokenizers\nexcept ImportError:\n    tokenizers = None\n"
        "def f():\n    import tqdm.auto\n"
    )
    found = {m for m in _required_imports(script) if not _is_standard_library(m)}
    assert found == {"numpy", "IPython", "tqdm"}
    assert {_distribution(m) for m in found} == {"numpy", "ipython", "tqdm"}


def test_jupyterlab_loads_no_incompatible_extension():
    # make setup runs tools/labextensions.py, which turns off the stale ones it knows (RISE's mathjax3).
    labextensions = pytest.importorskip("labextensions")  # tools/ is on the path (tests/conftest.py)
    if find_spec("jupyterlab") is None or not Path(labextensions.jupyter()).exists():
        pytest.skip("JupyterLab is not installed in this environment")
    found = labextensions.extensions()
    assert "jupyterlab-rise" in {e["name"] for e in found}, "the listing was not parsed"
    assert labextensions.enabled_but_incompatible(found) == []


def test_make_compat_runs_what_make_test_runs():
    compat = pytest.importorskip("compat")  # tools/compat.py
    makefile = (ROOT / "Makefile").read_text()
    test_line = next(line for line in makefile.splitlines() if "-m pytest -q tests notebooks" in line).split()
    for arg in compat.PYTEST_ARGS:
        if not arg.startswith("--nbval-cell-timeout"):  # compat allows more time per cell: it runs old, slow builds
            assert arg in test_line, f"make test runs pytest without {arg}, tools/compat.py with it"
    for arg in test_line[test_line.index("pytest") + 2 :]:
        if not arg.startswith("--nbval-cell-timeout"):
            assert arg in compat.PYTEST_ARGS, f"make test runs pytest with {arg}, tools/compat.py without it"
    oldest, bounds = compat.declared()
    assert oldest == (3, 9) and set(bounds) == {_name(r) for r in pyproject()["project"]["dependencies"]}
    assert "python3.9" in makefile, "the Makefile looks for the oldest supported Python"
