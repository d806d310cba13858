"""Where tensors live: device choice, seeding, mixed precision, environment summary.

This is the only module that knows about CUDA or Apple MPS; every notebook asks
it for a device and never hard-codes one. Taught in notebook 00.

>>> get_device("cpu")
device(type='cpu')
"""

from __future__ import annotations

import contextlib
import os
import platform
import random
from typing import ContextManager, Optional, Union

import numpy as np
import torch

from dl4nlp._checks import check_device
from dl4nlp._version import __version__

DEVICE_CHOICES = ("cpu", "cuda", "mps")
DEVICE_ENV_VAR = "DL4NLP_DEVICE"


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def _is_available(kind: str) -> bool:
    if kind == "cuda":
        return torch.cuda.is_available()
    if kind == "mps":
        return _mps_available()
    return kind == "cpu"


def available_devices() -> list[str]:
    """The device kinds usable on this machine, best first (always ends with 'cpu')."""
    return [kind for kind in ("cuda", "mps", "cpu") if _is_available(kind)]


def get_device(preference: Optional[str] = None) -> torch.device:
    """Pick the device to compute on: CUDA, then Apple MPS, then the CPU.

    ``preference`` (or, when it is None, the environment variable
    ``DL4NLP_DEVICE``) forces one of ``'cpu'``, ``'cuda'`` or ``'mps'``. An
    unknown value raises ``ValueError``; a known one this machine lacks raises
    ``RuntimeError``; both messages name the value given and the choices.
    """
    source = "argument preference"
    if preference is None:
        preference = os.environ.get(DEVICE_ENV_VAR) or None
        source = f"environment variable {DEVICE_ENV_VAR}"
    if preference is None:
        return torch.device(available_devices()[0])
    if not isinstance(preference, str):
        raise TypeError(f"{source} must be a string, one of {DEVICE_CHOICES}; got {preference!r}")
    kind = preference.strip().lower()
    if kind not in DEVICE_CHOICES:
        raise ValueError(f"{source} must be one of {DEVICE_CHOICES}; got {preference!r}")
    if not _is_available(kind):
        raise RuntimeError(
            f"{source} asks for {preference!r}, but this machine has no usable {kind} device; "
            f"available here: {tuple(available_devices())}"
        )
    return torch.device(kind)


def seed_everything(seed: int) -> None:
    """Seed Python's ``random``, NumPy and torch (every CUDA device too, where present)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**32:
        raise ValueError(f"seed must be an integer in [0, 2**32); got {seed!r}")
    random.seed(int(seed))
    np.random.seed(int(seed))
    torch.manual_seed(int(seed))  # also seeds every CUDA device when CUDA is present


def native_bfloat16(device: Union[torch.device, str]) -> bool:
    """Whether ``device`` computes bfloat16 in hardware: a CUDA GPU of compute capability 8.0 or more
    (Ampere and later), or an AMD GPU under ROCm.

    ``torch.cuda.is_bf16_supported()`` alone is not enough: in recent torch versions it also answers True on older
    GPUs (Colab's T4, capability 7.5) where bfloat16 is only emulated, slowly, in float32. This asks
    the question ``torch.cuda.is_bf16_supported(including_emulation=False)`` asks in the torch versions
    that have that argument, and works in those that do not.

    >>> native_bfloat16("cpu")
    False
    """
    device = check_device("device", device)
    if device.type != "cuda" or not torch.cuda.is_available():
        return False
    if torch.version.hip:  # ROCm: every AMD GPU torch supports computes bfloat16
        return bool(torch.cuda.is_bf16_supported())
    major, _ = torch.cuda.get_device_capability(device)
    return major >= 8


def autocast(device: Union[torch.device, str]) -> ContextManager:
    """Mixed precision where it pays: bfloat16 autocast on a CUDA GPU that computes bfloat16 natively.

    On the CPU, MPS or a GPU older than Ampere (where bfloat16 is only emulated:
    see ``native_bfloat16``) it is a no-op. Where it is active, results
    change visibly (bfloat16 keeps 2 to 3 significant digits), so the notebooks
    never use it for the numbers they print and assert (notebook 00 measures
    the difference). Use as ``with autocast(device): loss = model(x)``.
    """
    device = check_device("device", device)
    if native_bfloat16(device):
        return torch.autocast(device_type="cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def describe_environment(device: Optional[Union[torch.device, str]] = None) -> str:
    """One line: library, torch and Python versions, and the device (GPU name and memory)."""
    device = get_device() if device is None else check_device("device", device, available=True)
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        where = f"cuda ({props.name}, {props.total_memory / 2**30:.1f} GiB)"
    elif device.type == "mps":
        where = "mps (Apple GPU)"
    else:
        threads = torch.get_num_threads()
        where = f"cpu ({threads} thread{'s' if threads != 1 else ''})"
    return f"dl4nlp {__version__} | torch {torch.__version__} | Python {platform.python_version()} | device: {where}"
