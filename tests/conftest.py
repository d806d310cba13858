"""Shared test set-up: make tools/ importable, keep figures off-screen, and a one-thread fixture."""

import sys
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")  # tests only; notebooks keep the inline backend

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))


@pytest.fixture
def one_thread():
    """Tiny models train fastest on one CPU thread (and never stall on a busy machine); restored after."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
