"""Which CPU kernels this machine runs: a fingerprint of their bits, and the configurations CI tests.

Two machines can report the same torch version and the same
``torch.backends.cpu.get_cpu_capability()`` ("AVX512") and still round
differently: MKL and oneDNN pick their own code paths on Intel and on AMD, and
the vector width changes the order of every sum. A version string cannot say
"same bits"; the bits can. ``kernel_fingerprint()`` runs the operations the
course's training loops are made of (float32 matrix products of awkward sizes,
a batched product, an LSTM and a GRU step, softmax and log-softmax, LayerNorm,
the transcendental functions, a long sum, a convolution, cross-entropy and one
Adam step) on fixed inputs built from integers (no random generator, whose
own vector paths could differ), and hashes the bytes of their outputs. Equal
fingerprints mean these kernels give identical bits here and there, which is
what a bit-for-bit re-run of a recipe needs; a recipe records its fingerprint
(``dl4nlp.checkpoint.environment``) and a reproduction test compares exactly
only where the fingerprint matches, and to a measured tolerance elsewhere.

``KERNEL_CONFIGURATIONS`` are the environment settings that make one machine
run other kernels (ATen's dispatch level, oneDNN's and MKL's instruction sets),
which CI uses to run the notebooks and the claims a second time.
"""

from __future__ import annotations

import hashlib

import torch
from torch import nn
from torch.nn import functional as F

# Environment settings that change which CPU kernels torch runs (read when torch is imported, so they are set
# before the process starts). "native" is whatever the machine picks by itself; on a machine without AVX-512,
# "avx2" is the native configuration. "mkl-compatible" makes MKL take its conditional-reproducibility code path,
# as a stand-in for MKL choosing another path on another vendor's CPU.
KERNEL_CONFIGURATIONS: dict[str, dict[str, str]] = {
    "native": {},
    "avx2": {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"},
    "default": {"ATEN_CPU_CAPABILITY": "default"},
    "default-sse": {
        "ATEN_CPU_CAPABILITY": "default",
        "ONEDNN_MAX_CPU_ISA": "SSE41",
        "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
    },
    "mkl-compatible": {"MKL_CBWR": "COMPATIBLE"},
}


def _fixed(*shape: int, salt: int = 0) -> torch.Tensor:
    """A float32 tensor of ``shape`` with values in [-1, 1) from integer arithmetic: the same bits everywhere."""
    n = 1
    for size in shape:
        n *= size
    k = torch.arange(n, dtype=torch.int64)
    return (((k * 7919 + salt * 104729) % 2003).to(torch.float32) / 1001.5 - 1.0).reshape(shape)


def _outputs() -> list[torch.Tensor]:
    """The kernels' outputs whose bits the fingerprint hashes."""
    a, b = _fixed(67, 129, salt=1), _fixed(129, 61, salt=2)
    outputs = [a @ b, _fixed(7, 13, salt=3) @ _fixed(13, 5, salt=4)]
    outputs.append(torch.bmm(_fixed(3, 17, 33, salt=5), _fixed(3, 33, 9, salt=6)))
    x = _fixed(3, 5, 7, salt=7)  # (B, T, C)
    lstm, gru = nn.LSTM(7, 11, batch_first=True), nn.GRU(7, 11, batch_first=True)
    with torch.no_grad():
        for salt, parameter in enumerate([*lstm.parameters(), *gru.parameters()], start=8):
            parameter.copy_(_fixed(*parameter.shape, salt=salt) * 0.3)
        outputs += [lstm(x)[0], gru(x)[0]]
        logits = _fixed(4, 33, salt=30) * 5
        outputs += [logits.softmax(-1), logits.log_softmax(-1)]
        outputs.append(F.layer_norm(_fixed(4, 48, salt=31), (48,)))
        v = _fixed(1000, salt=32) * 4
        outputs += [v.exp(), v.tanh(), v.sigmoid(), F.gelu(v), v.log1p().nan_to_num(0.0), v.sum(), (v * v).mean()]
        outputs.append(F.conv1d(_fixed(2, 5, 20, salt=33), _fixed(6, 5, 3, salt=34)))
        targets = torch.arange(4) * 7 % 33
        outputs.append(F.cross_entropy(logits, targets))
    weights = nn.Parameter(_fixed(129, salt=35))
    optimizer = torch.optim.Adam([weights], lr=0.01)
    (weights.tanh() * _fixed(129, salt=36)).sum().backward()
    optimizer.step()
    outputs.append(weights.detach())
    return outputs


def kernel_fingerprint() -> str:
    """A short hash of the bits this machine's CPU kernels compute, on the current thread count.

    Equal on two machines (and torch versions) exactly when the fixed
    computations above give identical bits on both.

    >>> fingerprint = kernel_fingerprint()
    >>> len(fingerprint), fingerprint == kernel_fingerprint()  # 16 hex digits, the same on every call
    (16, True)
    """
    digest = hashlib.sha256()
    with torch.random.fork_rng(devices=[]):  # nn.LSTM/GRU draw their initial weights: leave the caller's stream alone
        for output in _outputs():
            digest.update(output.detach().contiguous().numpy().tobytes())
    return digest.hexdigest()[:16]
