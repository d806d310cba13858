"""Shared test set-up: make tools/ importable and keep figures off-screen."""

import sys
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")  # tests only; notebooks keep the inline backend

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))


@pytest.fixture
def one_torch_thread():
    """One torch thread for the test (results are bit for bit for a given thread count), restored afterwards."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
