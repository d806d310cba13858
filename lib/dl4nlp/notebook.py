"""What notebook cells call: the set-up cell's ``start`` and the check cells' ``claim``."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from dl4nlp._checks import check_str, given
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


def claim(sentence: str, holds: Any) -> None:
    """One line of a section's check cell: print ``✓ sentence`` when the claim holds, else stop with ``✗ sentence``.

    ``sentence`` states the claim in plain words with its numbers; ``holds`` is the
    comparison that proves it (a bool, a numpy bool or a one-element tensor).

    >>> claim("the LSTM remembers across 50 steps: accuracy 0.99 (chance 0.25)", 0.99 > 0.95)
    ✓ the LSTM remembers across 50 steps: accuracy 0.99 (chance 0.25)
    >>> claim("two plus two is five", 2 + 2 == 5)
    Traceback (most recent call last):
    AssertionError: ✗ two plus two is five
    """
    check_str("sentence", sentence, nonempty=True)
    if hasattr(holds, "numel"):  # a tensor: one element only, never a whole mask read as 'any'
        if holds.numel() != 1 or holds.dtype != torch.bool:
            raise TypeError(f"holds must be a bool (or a one-element bool tensor); got {given(holds)}")
        holds = bool(holds.item())
    elif isinstance(holds, np.ndarray) or not isinstance(holds, (bool, np.bool_)):
        raise TypeError(f"holds must be a bool (the comparison that proves the claim); got {given(holds)}")
    if not holds:
        raise AssertionError(f"✗ {sentence}")
    print(f"✓ {sentence}")
