"""How far the recorded re-runs of the shipped recipes lie from what shipped: the spread behind each tolerance.

    DL4NLP_RECORD_RERUNS=1 python tools/kernels.py default-sse -- python -m pytest tests/... -k reproduce
    python tools/rerun_spread.py

``tests/reproduction.check_rerun`` records, with ``DL4NLP_RECORD_RERUNS=1``, each re-run under its torch
version and kernel fingerprint in ``tests/reruns/NAME.json`` beside the shipped numbers. This prints, per
re-run, the largest relative and absolute difference from the shipped numbers over all its floats, and the
largest over the kernel configurations recorded; ``tests/reproduction.TOLERANCE`` is set from these.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

RERUNS = Path(__file__).resolve().parents[1] / "tests" / "reruns"


def floats(value, path=""):
    """(path, number) for every float in a nested result."""
    if isinstance(value, dict):
        for key in sorted(value):
            yield from floats(value[key], f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from floats(item, f"{path}[{i}]")
    elif isinstance(value, float):
        yield path, value


def spread(again, shipped) -> tuple[float, float]:
    """The largest relative and absolute difference between matching floats."""
    expected = dict(floats(shipped))
    rel = abs_ = 0.0
    for path, value in floats(again):
        if path in expected:
            difference = abs(value - expected[path])
            abs_ = max(abs_, difference)
            rel = max(rel, difference / abs(expected[path]) if expected[path] else (math.inf if difference else 0.0))
    return rel, abs_


def main() -> int:
    for path in sorted(RERUNS.glob("*.json")):
        recorded = json.loads(path.read_text())
        shipped = recorded.pop("shipped")
        worst = (0.0, 0.0)
        for key, again in sorted(recorded.items()):
            rel, abs_ = spread(again, shipped)
            worst = (max(worst[0], rel), max(worst[1], abs_))
            print(f"{path.stem:>28}  {key}: rel {rel:.3g}, abs {abs_:.3g}")
        print(f"{path.stem:>28}  largest over {len(recorded)} configurations: rel {worst[0]:.3g}, abs {worst[1]:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
