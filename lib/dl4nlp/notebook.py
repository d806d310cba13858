"""What every notebook's set-up cell calls, so the cell stays three lines long."""

from __future__ import annotations

import torch

from dl4nlp.device import describe_environment, get_device, seed_everything
from dl4nlp.plots import use_style


def start(seed: int = 0, style: str | None = None, threads: int | None = 1) -> torch.device:
    """Seed everything, set torch's CPU threads, apply the figure style, pick the device and print one line about it.

    ``style`` defaults to ``$DL4NLP_STYLE`` or ``'notebook'``; the device obeys
    ``$DL4NLP_DEVICE``. ``threads`` defaults to 1: the course's models are tiny, so
    more threads barely speed them up, and on a busy CPU they can slow them down
    several times; ``None`` keeps torch's default. Returns the device to compute on.

    >>> threads = torch.get_num_threads()
    >>> device = start(seed=0)  # doctest: +ELLIPSIS
    dl4nlp ... | torch ... | Python ... | device: ...
    >>> torch.get_num_threads(), round(torch.rand(1).item(), 4)  # one thread; torch seeded with 0
    (1, 0.4963)
    >>> torch.set_num_threads(threads)  # (this example puts the threads back)
    """
    if threads is not None:
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads must be a positive int or None; got {threads!r}")
        torch.set_num_threads(threads)
    seed_everything(seed)
    use_style(style)
    device = get_device()
    print(describe_environment(device))
    return device
