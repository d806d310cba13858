"""The claims suite: every experiment a notebook draws a conclusion from, re-run on other seeds.

Each ``test_NN_*.py`` here covers one notebook. Every test in this folder is
marked ``claims`` (``pytest -m claims`` runs just these; ``-m "not claims"`` skips them).
"""

import pytest


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "/claims/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.claims)


@pytest.fixture(autouse=True)
def one_thread(one_thread):
    """Every claim runs on one CPU thread, as the notebooks do (``dl4nlp.start``).

    tests/conftest.py's fixture, made automatic here; the setting is restored after.
    """
    yield
