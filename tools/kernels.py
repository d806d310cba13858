"""Run a command under one of the CPU kernel configurations CI tests (dl4nlp.kernels.KERNEL_CONFIGURATIONS).

    python tools/kernels.py default-sse -- python -m pytest notebooks tests/claims ...
    python tools/kernels.py --list

The settings (ATEN_CPU_CAPABILITY, ONEDNN_MAX_CPU_ISA, MKL_ENABLE_INSTRUCTIONS) are read when torch is
imported, so they go into the environment of the new process. Prints the configuration and the kernel
fingerprint it gives on this machine (a different fingerprint from the native one: other bits), then
replaces itself with the command.
"""

from __future__ import annotations

import os
import subprocess
import sys

from dl4nlp.kernels import KERNEL_CONFIGURATIONS

FINGERPRINT = "import torch; torch.set_num_threads(1); from dl4nlp.kernels import kernel_fingerprint as k; print(k())"


def fingerprint(settings: dict[str, str]) -> str:
    """The kernel fingerprint a fresh Python process computes under ``settings``."""
    env = {**os.environ, **settings}
    return subprocess.run([sys.executable, "-c", FINGERPRINT], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip


def main(argv: list[str]) -> int:
    if argv[:1] == ["--list"]:
        for name, settings in KERNEL_CONFIGURATIONS.items():
            print(f"{name:>12}: {fingerprint(settings)}  {' '.join(f'{k}={v}' for k, v in settings.items())}")
        return 0
    if len(argv) < 3 or argv[1] != "--" or argv[0] not in KERNEL_CONFIGURATIONS:
        print(f"usage: python tools/kernels.py {{{','.join(KERNEL_CONFIGURATIONS)}}} -- COMMAND ...", file=sys.stderr)
        return 2
    settings = KERNEL_CONFIGURATIONS[argv[0]]
    native, chosen = fingerprint({}), fingerprint(settings)
    print(f"kernels: {argv[0]} ({' '.join(f'{k}={v}' for k, v in settings.items()) or 'no settings'}); "
          f"fingerprint {chosen}, native {native}" + (" (the same bits as native here)" if chosen == native else ""),
          flush=True)  # fmt: skip
    os.execvpe(argv[2], argv[2:], {**os.environ, **settings})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
