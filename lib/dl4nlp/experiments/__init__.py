"""Experiments whose results a notebook's prose interprets, as functions of a seed.

A conclusion drawn from an experiment ("the LSTM solves lag 50, the RNN does
not") must hold for the method, not for one lucky seed. So every such
experiment is a function here, one module per notebook topic, that takes
``seed`` (and sizes small enough for a CPU) and returns its numbers as a frozen
dataclass. The notebook calls it with ``seed=0`` and asserts the claim; the
claims suite (``tests/claims/``, part of ``make test``) calls it with other
seeds and asserts the same claim, or the fraction of seeds the prose states.

The thresholds a claim uses (chance level, "solves" = accuracy above …) are
named constants in the experiment's module, shared by notebook and test.
"""

# The seeds the claims suite re-runs every experiment with, besides the notebook's seed 0.
# An experiment too slow for all of them may use a prefix; its test says so.
CLAIM_SEEDS: tuple[int, ...] = (1, 2, 3)


def check_seed(seed) -> int:
    """``seed`` if it is a non-negative integer; otherwise a ValueError naming what was given."""
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}")
    return seed
