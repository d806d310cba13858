"""Every experiment function in ``dl4nlp.experiments`` is exercised by a claims test."""

import importlib
import inspect
import pkgutil
from pathlib import Path

import dl4nlp.experiments

HERE = Path(__file__).parent


def experiment_functions():
    for info in pkgutil.iter_modules(dl4nlp.experiments.__path__):
        module = importlib.import_module(f"dl4nlp.experiments.{info.name}")
        for name, obj in vars(module).items():
            if inspect.isfunction(obj) and obj.__module__ == module.__name__ and not name.startswith("_"):
                if "seed" in inspect.signature(obj).parameters:
                    yield f"{info.name}.{name}", name


def test_every_experiment_has_a_claims_test():
    sources = "\n".join(p.read_text() for p in HERE.glob("test_*.py") if p.name != "test_coverage.py")
    missing = [qualified for qualified, name in experiment_functions() if name not in sources]
    assert not missing, f"experiments without a claims test in tests/claims/: {missing}"
