"""The one measurement of notebook 00: how precisely a matrix product comes out on a device.

``matmul_precision`` multiplies two random float32 matrices on ``device``, once
plainly and once inside ``dl4nlp.autocast(device)``, and compares each result
with the float64 product computed on the CPU. The claim of notebook 00 is that
each error is within the rounding of the precision actually used (float32 on
the CPU, where autocast does nothing; bfloat16 under autocast on a CUDA GPU).

So that a student without a GPU sees what bfloat16 does too, it also emulates
a bfloat16 product on the CPU the way a CUDA GPU's autocast computes one:
inputs rounded to bfloat16, products summed in float32, the result rounded to
bfloat16. Only dtype conversions are used, so it runs on any CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

import torch

from dl4nlp._checks import check_device, check_int
from dl4nlp.device import autocast

ROUNDING_UNITS = 16  # an error up to this many machine epsilons of the result's dtype counts as rounding
BFLOAT16_VISIBLE = 1000  # emulated bfloat16 error is more than this many times the float32 error
EMULATED_BFLOAT16_UNITS = 1  # ... and within this many bfloat16 epsilons (it is rounding of inputs and result)


@dataclass(frozen=True)
class MatmulPrecision:
    device: str
    plain_dtype: str  # dtype of a @ b on the device
    plain_error: float  # max |a @ b - exact| / max |exact|
    autocast_dtype: str  # dtype of a @ b inside dl4nlp.autocast(device)
    autocast_error: float
    emulated_bfloat16_error: float  # the same error for a bfloat16 product emulated on the CPU

    @staticmethod
    def tolerance(dtype: str, units: float = ROUNDING_UNITS) -> float:
        """``units`` machine epsilons of ``dtype`` (a name such as 'torch.float32')."""
        found = getattr(torch, dtype.removeprefix("torch."), None) if isinstance(dtype, str) else None
        if not isinstance(found, torch.dtype) or not found.is_floating_point:
            raise ValueError(f"dtype must name a floating-point torch dtype such as 'torch.float32'; got {dtype!r}")
        return units * torch.finfo(found).eps


def matmul_precision(
    seed: int = 0, device: Union[torch.device, str] = "cpu", shape: tuple[int, int, int] = (64, 256, 32)
) -> MatmulPrecision:
    """Errors of a (n, k) @ (k, m) float32 product on ``device``, plain and under autocast, against float64.

    >>> result = matmul_precision(seed=0)
    >>> result.autocast_dtype, result.plain_error <= result.tolerance("torch.float32")
    ('torch.float32', True)
    """
    check_int("seed", seed, low=0)
    device = check_device("device", device)
    if not isinstance(shape, (tuple, list)) or len(shape) != 3:
        raise ValueError(f"shape must be (n, k, m), three sizes; got {shape!r}")
    for size in shape:
        check_int("shape", size)
    device = torch.device(device)
    n, k, m = shape
    generator = torch.Generator().manual_seed(seed)
    a = torch.randn(n, k, generator=generator)  # (n, k)
    b = torch.randn(k, m, generator=generator)  # (k, m)
    exact = a.double() @ b.double()  # (n, m), on the CPU
    plain = a.to(device) @ b.to(device)
    with autocast(device):
        mixed = a.to(device) @ b.to(device)
    emulated = (a.bfloat16().float() @ b.bfloat16().float()).bfloat16()  # (n, m), float32 sums of bfloat16 inputs

    def error(result: torch.Tensor) -> float:
        return ((result.double().cpu() - exact).abs().max() / exact.abs().max()).item()

    return MatmulPrecision(str(device), str(plain.dtype), error(plain), str(mixed.dtype), error(mixed), error(emulated))
