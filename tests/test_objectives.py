"""dl4nlp.objectives: each pre-training objective's inputs, targets and loss positions, on one sentence."""

import random

import pytest
import torch

from dl4nlp.bert import Bert, bert_config
from dl4nlp.objectives import (
    causal_lm,
    masked_lm,
    noise_spans,
    replaced_token_detection,
    span_corruption,
    text_infilling,
)
from dl4nlp.wordpiece import WordPiece

VOCAB = WordPiece("the man went to store buy a gallon of milk . and".split())
IDS = [VOCAB["[CLS]"], *VOCAB.encode("the man went to the store to buy a gallon of milk ."), VOCAB["[SEP]"]]
WORDS = VOCAB.encode("the man went to the store to buy a gallon of milk and the man went to the store")


def test_causal_lm_predicts_the_next_token_everywhere():
    ex = causal_lm(WORDS)
    assert ex.inputs == WORDS[:-1] and ex.targets == WORDS[1:] and all(ex.loss) and ex.family == "decoder"


def test_masked_lm_loss_only_where_chosen():
    ex = masked_lm(IDS, VOCAB, torch.Generator().manual_seed(0), mask_prob=0.5)
    assert ex.targets == IDS and len(ex.inputs) == len(IDS)
    assert not ex.loss[0] and not ex.loss[-1]  # [CLS] and [SEP] are never chosen
    assert all(a == b for a, b, chosen in zip(ex.inputs, IDS, ex.loss) if not chosen)
    assert 0 < ex.predicted < len(IDS) - 2


@pytest.mark.parametrize("length", [2, 5, 17, 100])
def test_noise_spans_follow_t5s_counts(length):
    for seed in range(20):
        mask = noise_spans(length, 0.15, 3.0, random.Random(seed))
        noise = min(max(round(length * 0.15), 1), length - 1)
        assert len(mask) == length and sum(mask) == noise and not mask[0]  # starts with a non-noise span
        starts = sum(m and (i == 0 or not mask[i - 1]) for i, m in enumerate(mask))
        assert starts == min(max(round(noise / 3.0), 1), noise, length - noise)


def test_span_corruption_inputs_and_targets_rebuild_the_sentence():
    V = len(VOCAB)
    ex = span_corruption(WORDS, V, random.Random(1))
    sentinels = [t for t in ex.inputs if t >= V]
    assert sentinels == list(range(V, V + len(sentinels))) and ex.targets[-1] == V + len(sentinels)
    # put each span back in place of its sentinel: the original sentence
    spans, current = {}, None
    for t in ex.targets[:-1]:
        if t >= V:
            current = t
            spans[current] = []
        else:
            spans[current].append(t)
    rebuilt = [piece for t in ex.inputs for piece in (spans[t] if t >= V else [t])]
    assert rebuilt == WORDS
    assert ex.decoder_inputs == [0] + ex.targets[:-1] and all(ex.loss)


def test_text_infilling_masks_about_30_percent_and_predicts_everything():
    mask = VOCAB["[MASK]"]
    for seed in range(10):
        ex = text_infilling(WORDS, mask, random.Random(seed))
        assert ex.targets == WORDS and ex.decoder_inputs == [0] + WORDS[:-1] and all(ex.loss)
        kept = [t for t in ex.inputs if t != mask]
        assert len(WORDS) - len(kept) >= round(0.3 * len(WORDS)) - 1  # at least the ~30 % budget is hidden
        assert mask in ex.inputs and len(ex.inputs) < len(WORDS)


def test_replaced_token_detection_labels_every_ordinary_position():
    torch.manual_seed(0)
    generator_model = Bert(bert_config("base", vocab_size=len(VOCAB), d_model=16, n_heads=2, n_layers=1, max_len=32))
    ex = replaced_token_detection(IDS, generator_model, VOCAB, torch.Generator().manual_seed(0), mask_prob=0.5)
    assert ex.targets == [int(a != b) for a, b in zip(ex.inputs, IDS)]
    assert ex.loss == [i not in VOCAB.special_ids for i in IDS] and ex.predicted == len(IDS) - 2
    assert sum(ex.targets) > 0  # an untrained generator replaces most masked tokens


def test_bad_input():
    with pytest.raises(ValueError, match=r"ids must be a sequence of at least 2 ids; got \[3\]"):
        causal_lm([3])
    with pytest.raises(ValueError, match=r"ids must be a 1-D sequence of ids; got shape \(1, 3\)"):
        causal_lm(torch.ones(1, 3, dtype=torch.long))
