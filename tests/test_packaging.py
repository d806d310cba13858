"""The set-up files agree with each other: pyproject, environment.yml, pins, CI, README."""

import re
from pathlib import Path

import tomllib

import dl4nlp

ROOT = Path(__file__).resolve().parents[1]
CONDA_TO_PYPI = {"pytorch": "torch"}  # conda-forge names that differ from PyPI's
NOT_PACKAGES = {"python", "pip"}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~ \[;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as handle:
        return tomllib.load(handle)


def pyproject_packages() -> set[str]:
    project = pyproject()["project"]
    requirements = project["dependencies"] + [r for extra in project["optional-dependencies"].values() for r in extra]
    return {_name(r) for r in requirements}


def conda_packages() -> set[str]:
    names = set()
    text = (ROOT / "environment.yml").read_text()
    for line in text[text.index("dependencies:") :].splitlines():
        match = re.match(r"^  - ([A-Za-z0-9_.-]+)", line)  # top-level conda dependencies only
        if match:
            name = _name(match.group(1))
            names.add(CONDA_TO_PYPI.get(name, name))
    return names - NOT_PACKAGES


def pinned() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements/dev.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[_name(name)] = version.strip()
    return pins


def test_environment_yml_names_the_same_packages_as_pyproject():
    assert conda_packages() == pyproject_packages()


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
    assert pyproject()["tool"]["setuptools"]["dynamic"]["version"]["attr"] == "dl4nlp.__version__"
    assert re.fullmatch(r"\d+\.\d+\.\d+", dl4nlp.__version__)


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci/run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "make test" in ci and "make test" in readme and "make lab" in readme
    assert "make e2e" in readme
    assert ci.index("make test") < ci.index("make e2e"), "CI runs the unit and notebook tests first"


def test_makefile_never_sets_a_matplotlib_backend():
    assert "MPLBACKEND" not in (ROOT / "Makefile").read_text()
