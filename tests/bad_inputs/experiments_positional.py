"""Bad inputs of chapter 09's figure helpers in dl4nlp.experiments.positional."""

from bad_inputs.harness import cases, vary
from dl4nlp.experiments import positional as EP


@cases("dl4nlp.experiments.positional.plot_extrapolation")
def _():
    yield from vary(EP.plot_extrapolation, {}, "result", [("a dict", {}, ("dict", "ExtrapolationResult"))])


@cases("dl4nlp.experiments.positional.plot_causal_positions")
def _():
    yield from vary(EP.plot_causal_positions, {}, "result", [("a dict", {}, ("dict", "CausalPositionResult"))])


@cases("dl4nlp.experiments.positional.sinusoid_explorer")
def _():
    bad = [("zero", 0, "0"), ("a float", 2.5, "2.5"), ("True", True, "True"), ("a string", "50", "'50'")]
    yield from vary(EP.sinusoid_explorer, {}, "length", bad)
