"""What every notebook's set-up cell calls, so the cell stays three lines long."""
from __future__ import annotations

import torch

from dl4nlp.device import describe_environment, get_device, seed_everything
from dl4nlp.plots import use_style


def start(seed: int = 0, style: str | None = None) -> torch.device:
    """Seed everything, apply the figure style, pick the device and print one line about it.

    ``style`` defaults to ``$DL4NLP_STYLE`` or ``'notebook'``; the device obeys
    ``$DL4NLP_DEVICE``. Returns the device to compute on.
    """
    seed_everything(seed)
    use_style(style)
    device = get_device()
    print(describe_environment(device))
    return device
