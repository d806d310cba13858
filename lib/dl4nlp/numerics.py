"""How far apart two float computations of the same value may honestly be.

Two correct programs that add the same numbers in another order (another CPU's
vector width, another BLAS, another torch) differ by rounding, and the
difference grows with the number of terms. A tolerance for "these agree" is
therefore derived from the size of the computation, not written as 1e-12 by
habit: ``rounding_tolerance(terms, scale)`` is ``terms * eps * scale``, the
standard bound for a sum of ``terms`` products of magnitude ``scale``
(Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1), with eps the
unit roundoff of the dtype. Check cells of every notebook use it.
"""

from __future__ import annotations

import torch

from dl4nlp._checks import check_choice, check_int, check_number, given

_DTYPES = {"float64": torch.float64, "float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def rounding_tolerance(terms: int, scale: float = 1.0, dtype: torch.dtype | str = torch.float64) -> float:
    """The rounding error allowed for a value built from ``terms`` operations on numbers of size ``scale``.

    >>> rounding_tolerance(1)  # one float64 operation on numbers of size 1
    2.220446049250313e-16
    >>> rounding_tolerance(512, scale=10.0, dtype="float32")  # a 512-term dot product of size-10 entries
    0.0006103515625
    """
    check_int("terms", terms, 1)
    check_number("scale", scale, 0.0)
    if isinstance(dtype, str):
        dtype = _DTYPES[check_choice("dtype", dtype, tuple(_DTYPES))]
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating-point torch dtype or one of {tuple(_DTYPES)}; got {given(dtype)}")
    return terms * torch.finfo(dtype).eps * max(scale, torch.finfo(dtype).tiny)


def agree(actual: torch.Tensor, expected: torch.Tensor, terms: int) -> bool:
    """Whether two computations of the same tensor agree to the rounding of ``terms`` operations.

    The scale is the largest magnitude in ``expected`` (at least 1), the dtype the
    coarser of the two tensors'.

    >>> x = torch.rand(64, 64, dtype=torch.float64)
    >>> agree(x @ x, torch.einsum("ij,jk->ik", x, x), terms=64)
    True
    >>> agree(x @ x, x @ x + 1e-9, terms=64)
    False
    """
    if not isinstance(actual, torch.Tensor) or not isinstance(expected, torch.Tensor):
        raise TypeError(f"actual and expected must be tensors; got {given(actual)} and {given(expected)}")
    if actual.shape != expected.shape:
        raise ValueError(
            f"actual and expected must have one shape; got {tuple(actual.shape)} and {tuple(expected.shape)}"
        )
    coarser = max((actual.dtype, expected.dtype), key=lambda d: torch.finfo(d).eps)
    scale = max(float(expected.detach().abs().max()), 1.0) if expected.numel() else 1.0
    tolerance = rounding_tolerance(terms, scale, coarser)
    return bool(((actual.detach().to(torch.float64) - expected.detach().to(torch.float64)).abs() <= tolerance).all())
