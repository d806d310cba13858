"""Bad inputs of chapter 06's plumbing in dl4nlp.experiments.seq2seq (the alignment widget)."""

import torch

from bad_inputs.harness import cases, vary
from dl4nlp.experiments import seq2seq as E


def _alignment(source, score):
    return source[::-1], torch.eye(len(source) + 1)


@cases("dl4nlp.experiments.seq2seq.alignment_redrawer")
def _():
    good = dict(alignment=_alignment, source="abc", score="dot")
    yield from vary(E.alignment_redrawer, good, "alignment", [("not callable", "dot", "'dot'")])
    yield from vary(E.alignment_redrawer, good, "source", [("empty", "", "''"), ("a list", ["a", "b"], "list")])
    yield from vary(E.alignment_redrawer, good, "score", [("None", None, "None"), ("a number", 3, "3")])
