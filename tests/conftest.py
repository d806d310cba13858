"""Shared test set-up: make tools/ importable and keep figures off-screen."""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # tests only; notebooks keep the inline backend

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
