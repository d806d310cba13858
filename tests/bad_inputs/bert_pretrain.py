"""Bad inputs of dl4nlp.bert_pretrain (reworked by the bert merge: see pending_bert.py for what awaits cases)."""

from bad_inputs.harness import cases, vary
from dl4nlp import bert_pretrain as P


@cases("dl4nlp.bert_pretrain.make_model")
def _():
    yield from vary(P.make_model, dict(vocab_size=40), "vocab_size", [("0", 0, "0"), ("a float", 2.5, "2.5")])
    yield "overrides: an unknown field", lambda: P.make_model(40, hidden=8), ("hidden",)
