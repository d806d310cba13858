"""dl4nlp.bert: masking rates against binomial intervals, never-chosen specials, the published sizes, the heads."""

import random

import pytest
import torch
import torch.nn.functional as F

from dl4nlp.bert import (
    IGNORE_INDEX,
    KEEP_PROB,
    KEPT,
    MASK_PROB,
    MASK_TOKEN_PROB,
    MASKED,
    RANDOM_TOKEN_PROB,
    RANDOMIZED,
    Bert,
    bert_config,
    binomial_interval,
    checkpoint_state,
    load_pretrained,
    mask_tokens,
    parameter_breakdown,
    pretraining_loss,
)
from dl4nlp.bert_pretrain import Pretrainer, PretrainingData, evaluate, make_model, pretrain
from dl4nlp.checkpoint import save_checkpoint
from dl4nlp.transformer import count_parameters
from dl4nlp.wordpiece import WordPiece

PAD, UNK, CLS, SEP, MASK = range(5)
SPECIAL = [PAD, UNK, CLS, SEP, MASK]
V = 50


def batch_with_specials(B=400, T=64, seed=0):
    generator = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, V, (B, T), generator=generator)
    ids[:, 0], ids[:, 30] = CLS, SEP
    lengths = torch.randint(35, T + 1, (B,), generator=generator)
    ids[torch.arange(T)[None, :] >= lengths[:, None]] = PAD
    ids[torch.arange(B), lengths - 1] = SEP
    return ids


def within_binomial_interval(successes, trials, p, z=4.0):
    """Is the observed count within z standard deviations of the binomial mean (z = 4: p-value ~ 6e-5)?"""
    low, high = binomial_interval(trials, p, z)
    return low <= successes <= high


def test_binomial_interval():
    assert binomial_interval(100, 0.5, z=2.0) == (40.0, 60.0)
    assert binomial_interval(10, 0.0) == (0.0, 0.0)
    for bad, message in [
        ((-1, 0.5), "trials"),
        ((10, 1.5), r"p must be a finite number in \[0, 1\]"),
        ((10, 0.5, 0.0), "z must be a finite number > 0"),
    ]:
        with pytest.raises(ValueError, match=message):
            binomial_interval(*bad)


def test_whole_word_masking_chooses_words_as_a_whole():
    ids = batch_with_specials(B=600)
    generator = torch.Generator().manual_seed(2)
    word_start = torch.rand(ids.shape, generator=generator) < 0.5  # words of one to several pieces
    word_start[:, 1] = True
    out = mask_tokens(ids, mask_id=MASK, special_ids=SPECIAL, vocab_size=V, word_start=word_start,
                      generator=torch.Generator().manual_seed(3))  # fmt: skip
    ordinary = ~torch.isin(ids, torch.tensor(SPECIAL))
    starts = word_start & ordinary
    assert within_binomial_interval(int(out.chosen[starts].sum()), int(starts.sum()), MASK_PROB)
    continuation = ordinary[:, 1:] & ordinary[:, :-1] & ~word_start[:, 1:]  # (B, T-1)
    assert torch.equal(out.chosen[:, 1:][continuation], out.chosen[:, :-1][continuation])  # follows its word
    assert not out.chosen[~ordinary].any()
    with pytest.raises(ValueError, match=r"word_start must be a bool tensor of shape \(600, 64\)"):
        mask_tokens(ids, mask_id=MASK, special_ids=SPECIAL, vocab_size=V, word_start=word_start.long())


def test_named_probabilities():
    assert (MASK_PROB, MASK_TOKEN_PROB, RANDOM_TOKEN_PROB, KEEP_PROB) == (0.15, 0.8, 0.1, 0.1)


def test_masking_rates_match_their_binomial_intervals():
    ids = batch_with_specials()
    out = mask_tokens(ids, mask_id=MASK, special_ids=SPECIAL, vocab_size=V, generator=torch.Generator().manual_seed(1))
    ordinary = ~torch.isin(ids, torch.tensor(SPECIAL))
    n, chosen = int(ordinary.sum()), int(out.chosen.sum())
    assert n > 15000
    assert within_binomial_interval(chosen, n, MASK_PROB)
    for action, p in [(MASKED, MASK_TOKEN_PROB), (RANDOMIZED, RANDOM_TOKEN_PROB), (KEPT, KEEP_PROB)]:
        assert within_binomial_interval(int((out.action == action).sum()), chosen, p), action
    # specials and padding are never chosen and never changed
    assert not out.chosen[~ordinary].any()
    assert torch.equal(out.input_ids[~ordinary], ids[~ordinary])
    # what each action does to the input
    assert (out.input_ids[out.action == MASKED] == MASK).all()
    assert torch.equal(out.input_ids[out.action == KEPT], ids[out.action == KEPT])
    assert not torch.isin(out.input_ids[out.action == RANDOMIZED], torch.tensor(SPECIAL)).any()
    # labels: the original token where chosen, ignored elsewhere
    assert torch.equal(out.labels[out.chosen], ids[out.chosen])
    assert (out.labels[~out.chosen] == IGNORE_INDEX).all()


def test_random_replacements_are_uniform_over_ordinary_tokens():
    ids = torch.full((2000, 50), 7)
    out = mask_tokens(
        ids,
        mask_id=MASK,
        special_ids=SPECIAL,
        vocab_size=10,
        mask_prob=1.0,
        mask_token_prob=0.0,
        random_token_prob=1.0,
        keep_prob=0.0,
        generator=torch.Generator().manual_seed(0),
    )
    counts = torch.bincount(out.input_ids.flatten(), minlength=10)
    assert counts[:5].sum() == 0
    for token in range(5, 10):
        assert within_binomial_interval(int(counts[token]), ids.numel(), 1 / 5)


def test_masking_is_reproducible_with_a_generator():
    ids = batch_with_specials(B=8)
    a = mask_tokens(ids, mask_id=MASK, special_ids=SPECIAL, vocab_size=V, generator=torch.Generator().manual_seed(3))
    b = mask_tokens(ids, mask_id=MASK, special_ids=SPECIAL, vocab_size=V, generator=torch.Generator().manual_seed(3))
    assert torch.equal(a.input_ids, b.input_ids) and torch.equal(a.labels, b.labels)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(mask_prob=1.5), ValueError, r"mask_prob must be a finite number in \[0.0, 1.0\]; got 1.5"),
        (dict(mask_token_prob=0.8, random_token_prob=0.1, keep_prob=0.2), ValueError, "must be 1 with each >= 0"),
        (dict(mask_id=9), ValueError, r"mask_id must be one of special_ids \[0, 1, 2, 3, 4\]; got 9"),
    ],
)
def test_masking_errors(kwargs, error, message):
    args = dict(mask_id=MASK, special_ids=SPECIAL, vocab_size=V) | kwargs
    with pytest.raises(error, match=message):
        mask_tokens(torch.zeros(2, 3, dtype=torch.long), **args)
    with pytest.raises(TypeError, match="ids must be an integer tensor; got dtype torch.float32"):
        mask_tokens(torch.zeros(2, 3), mask_id=MASK, special_ids=SPECIAL, vocab_size=V)


def expected_bert_parameters(V, C, L, T=512, segments=2):
    """BertModel's count (embeddings + L post-LN layers + pooler), from the architecture, by hand."""
    embeddings = V * C + T * C + segments * C + 2 * C
    layer = 4 * (C * C + C) + (C * 4 * C + 4 * C) + (4 * C * C + C) + 2 * 2 * C
    return embeddings + L * layer + (C * C + C)


@pytest.mark.parametrize("size, C, L, published", [("base", 768, 12, 110e6), ("large", 1024, 24, 340e6)])
def test_published_sizes_on_the_meta_device(size, C, L, published):
    with torch.device("meta"):
        model = Bert(bert_config(size))
    breakdown = parameter_breakdown(model)
    heads = breakdown["MLM head (transform, LayerNorm, bias)"] + breakdown["NSP head"]
    assert count_parameters(model) - heads == expected_bert_parameters(30522, C, L)
    assert heads == (C * C + C) + 2 * C + 30522 + (2 * C + 2)  # decoder weight tied to the token embedding
    assert abs(count_parameters(model) - published) / published < 0.02
    assert sum(breakdown.values()) == count_parameters(model)


def test_bert_base_is_109_482_240_without_heads():
    assert expected_bert_parameters(30522, 768, 12) == 109_482_240  # rounds to the published 110M


def test_heads_padding_and_loss():
    torch.manual_seed(0)
    model = Bert(bert_config("base", vocab_size=V, d_model=32, n_heads=4, n_layers=2, max_len=16)).eval()
    assert model.mlm_decoder.weight is model.token_embedding.weight
    ids = torch.randint(5, V, (2, 10))
    valid = torch.ones(2, 10, dtype=torch.bool)
    valid[1, 7:] = False
    padded = ids.clone()
    padded[1, 7:] = PAD
    hidden = model(ids, valid=valid)
    changed = model(torch.where(valid, ids, torch.randint(5, V, (2, 10))), valid=valid)
    assert torch.allclose(hidden[:, :7], changed[:, :7], atol=1e-5)  # padding is never attended to
    chosen = torch.zeros(2, 10, dtype=torch.bool)
    chosen[0, 3] = chosen[1, 5] = True
    assert model.mlm_logits(hidden, chosen).shape == (2, V)
    assert model.nsp_logits(hidden).shape == (2, 2)
    labels = torch.full_like(ids, IGNORE_INDEX)
    labels[chosen] = ids[chosen]
    batch = {
        "input_ids": ids,
        "segments": torch.zeros_like(ids),
        "valid": valid,
        "labels": labels,
        "is_next": torch.tensor([0, 1]),
    }
    loss, stats = pretraining_loss(model, batch, nsp_weight=0.0)
    reference = F.cross_entropy(model.mlm_logits(hidden).reshape(-1, V), labels.reshape(-1))  # ignores -100
    assert loss.item() == pytest.approx(reference.item(), abs=1e-5)
    with pytest.raises(ValueError, match=r"segments must have shape \(2, 10\); got \(2, 9\)"):
        model(ids, torch.zeros(2, 9, dtype=torch.long))
    with pytest.raises(ValueError, match="size must be one of"):
        bert_config("huge")
    with pytest.raises(TypeError, match="chosen must be a bool tensor; got dtype torch.int64"):
        model.mlm_logits(hidden, chosen.long())  # a 0/1 long mask would index rows: (B, T, T, V) logits


SENTENCES = [
    f"Tom had a red ball number {i}. He threw the ball to Sue. Sue caught the ball and smiled. They played all day."
    for i in range(60)
]
DOCUMENTS = [[s + "." for s in text.split(". ")] for text in SENTENCES]


def tiny_data():
    tokenizer = WordPiece.train([" ".join(d) for d in DOCUMENTS], vocab_size=90)
    return PretrainingData({"train": DOCUMENTS[:54], "held_out": DOCUMENTS[54:]}, tokenizer)


def test_pretraining_data_pairs_and_batches():
    data = tiny_data()
    rng = random.Random(0)
    pairs = data.pairs(200, rng, max_len=24)
    assert all(len(a) + len(b) + 3 <= 24 and a and b for a, b, _ in pairs)
    assert within_binomial_interval(sum(p[2] for p in pairs), 200, 0.5)
    batch = data.batch(pairs[:4], torch.Generator().manual_seed(0))
    v = data.vocab
    assert (batch["input_ids"][:, 0] == v["[CLS]"]).all()
    for row, segments, (a, b, _) in zip(batch["input_ids"], batch["segments"], pairs[:4]):
        assert row[len(a) + 1] == v["[SEP]"] and row[len(a) + len(b) + 2] == v["[SEP]"]
        assert segments[: len(a) + 2].sum() == 0 and segments[len(a) + 2 : len(a) + len(b) + 3].all()
    with pytest.raises(ValueError, match="split must be one of"):
        data.pairs(1, rng, split="test")
    with pytest.raises(TypeError, match=r"splits\[.train.\]: a document must be a list of strings; got str"):
        PretrainingData({"train": ["one string"]}, data.vocab)
    with pytest.raises(ValueError, match="pairs must not be empty"):
        data.batch([])


def test_a_tiny_bert_learns_and_round_trips_through_a_checkpoint(tmp_path):
    torch.manual_seed(0)
    data = tiny_data()
    model = make_model(len(data.vocab), d_model=32, n_heads=2, n_layers=1, d_ff=64, max_len=32)
    history = pretrain(model, data, steps=150, batch_size=16, lr=3e-3, warmup=10, progress=False)
    assert history.smoothed_loss(20)[-1] < history.loss[0] / 2
    results = evaluate(model, data, n_pairs=64)
    assert results["masked_accuracy"] > results["unigram_accuracy"] + 0.2
    v = data.vocab
    extra = {"tokens": v.itos[5:], "specials": list(v.specials), "continuation": "##", "lowercase": True}
    save_checkpoint(tmp_path / "tiny.pt", kind="tiny_bert", config=model.config, state_dict=checkpoint_state(model),
                    provenance={"command": "test"}, extra=extra)  # fmt: skip
    loaded, vocab = load_pretrained(tmp_path / "tiny.pt")
    assert vocab.itos == v.itos
    again = evaluate(loaded, data, n_pairs=64)
    assert abs(again["masked_accuracy"] - results["masked_accuracy"]) < 0.05  # float16 weights


def test_a_stopped_and_resumed_run_equals_an_uninterrupted_one():
    data = tiny_data()

    def trainer():
        torch.manual_seed(0)
        model = make_model(len(data.vocab), d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=32)
        return Pretrainer(model, data, steps=12, batch_size=4, lr=3e-3, warmup=3, seed=5)

    whole = trainer()
    whole.run(progress=False)
    first = trainer()
    first.run(5, progress=False)
    state = first.state_dict()
    resumed = trainer()
    resumed.load_state_dict(state)
    resumed.run(progress=False)
    assert resumed.history.loss == whole.history.loss  # bit for bit
    assert all(torch.equal(a, b) for a, b in zip(resumed.model.parameters(), whole.model.parameters()))


def test_loading_refuses_damaged_or_foreign_files(tmp_path):
    shipped = load_pretrained()  # data/tiny_bert.pt, checksum verified
    assert shipped[0].config.norm_first and len(shipped[1]) == 4096
    good = tmp_path / "m.pt"
    save_checkpoint(good, kind="char_lstm", config={"size": 1}, state_dict={"w": torch.ones(1)},
                    provenance={"command": "test"})  # fmt: skip
    with pytest.raises(ValueError, match="holds a 'char_lstm' checkpoint; expected a 'tiny_bert' checkpoint"):
        load_pretrained(good)
    empty = tmp_path / "empty.pt"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="is empty"):
        load_pretrained(empty)
    truncated = tmp_path / "t.pt"
    truncated.write_bytes(good.read_bytes()[:100])
    (tmp_path / "t.json").write_text(good.with_suffix(".json").read_text())
    with pytest.raises(ValueError, match="truncated"):
        load_pretrained(truncated)


def test_bert_diagram_follows_the_config():
    import matplotlib.pyplot as plt

    from dl4nlp.diagrams import bert_diagram

    post = Bert(bert_config("base", vocab_size=V, d_model=32, n_heads=4, n_layers=3, max_len=16))
    pre = Bert(bert_config("base", vocab_size=V, d_model=32, n_heads=4, n_layers=3, max_len=16, norm_first=True))
    for model, norm in [(post, "post-LN"), (pre, "pre-LN")]:
        d = bert_diagram(model)
        assert any(norm in label and "× 3" in label for label, _ in d.groups)
        assert ("final" in d.boxes) == model.config.norm_first
        assert "4 heads" in d.boxes["attn"].label and "32 → 128 → 32" in d.boxes["ffn"].label
    assert "classifier" in bert_diagram(pre, head="classifier").boxes
    plt.close(bert_diagram(pre).draw())
    with pytest.raises(TypeError, match="model must be a dl4nlp.bert.Bert"):
        bert_diagram(torch.nn.Linear(2, 2))


def test_parameter_breakdown_plot():
    import matplotlib.pyplot as plt

    from dl4nlp.plots import plot_parameter_breakdown

    fig = plot_parameter_breakdown({"a": {"x": 2_000_000, "y": 1_000_000}, "b": {"x": 500_000}})
    widths = sorted(round(p.get_width(), 3) for p in fig.axes[0].patches)
    assert widths == [0.0, 0.5, 1.0, 2.0]
    plt.close(fig)
