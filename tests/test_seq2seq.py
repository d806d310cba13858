"""dl4nlp.seq2seq: the encoder-decoder's plumbing, and greedy / beam search against brute force."""

import itertools
import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from dl4nlp import date_task
from dl4nlp.seq2seq import Seq2Seq, Seq2SeqConfig, beam_search, exhaustive_search, greedy_search, table_step
from dl4nlp.vocab import Seq2SeqVocab

EOS = 0
BOS = -1  # the toy tables never emit BOS, so it need not be a vocabulary id


def random_table(vocab: int, max_len: int, seed: int) -> dict:
    """Next-token probabilities for every prefix of non-EOS tokens shorter than max_len."""
    gen = torch.Generator().manual_seed(seed)
    table = {}
    for length in range(max_len):
        for prefix in itertools.product(range(1, vocab), repeat=length):
            table[prefix] = torch.softmax(3 * torch.randn(vocab, generator=gen, dtype=torch.float64), 0).tolist()
    return table


@settings(max_examples=30, deadline=None)
@given(vocab=st.integers(2, 4), max_len=st.integers(1, 4), seed=st.integers(0, 10_000))
def test_beam_search_with_a_huge_beam_is_exhaustive_search(vocab, max_len, seed):
    table = random_table(vocab, max_len, seed)
    step, state = table_step(table)
    result = beam_search(step, state, bos=BOS, eos=EOS, beam_size=vocab**max_len, max_len=max_len)
    best = exhaustive_search(table, eos=EOS, max_len=max_len)
    assert result.best.score == pytest.approx(best.score, abs=1e-9)
    assert result.best.tokens[1:] == best.tokens[1:]
    assert all(a.score >= b.score for a, b in zip(result.hypotheses, result.hypotheses[1:]))


@settings(max_examples=30, deadline=None)
@given(vocab=st.integers(2, 4), max_len=st.integers(1, 4), seed=st.integers(0, 10_000))
def test_greedy_takes_the_argmax_at_every_step_and_equals_beam_size_one(vocab, max_len, seed):
    table = random_table(vocab, max_len, seed)
    step, state = table_step(table)
    greedy = greedy_search(step, state, bos=BOS, eos=EOS, max_len=max_len)
    prefix, score = (), 0.0
    while True:
        probs = table[prefix]
        token = max(range(vocab), key=lambda i: (probs[i], -i))
        score += math.log(probs[token])
        if token == EOS or len(prefix) + 1 == max_len:
            break
        prefix += (token,)
    assert greedy.tokens[1:] == list(prefix) + [token]
    assert greedy.score == pytest.approx(score, abs=1e-12)


def test_beam_finds_a_better_output_than_greedy_on_a_small_table():
    # greedy takes 1 (p = 0.5), then can only end badly; 2 (p = 0.4) leads to a sure thing.
    table = {
        (): [0.1, 0.5, 0.4],
        (1,): [0.4, 0.3, 0.3],
        (2,): [0.95, 0.03, 0.02],
        (1, 1): [1, 0, 0],
        (1, 2): [1, 0, 0],
        (2, 1): [1, 0, 0],
        (2, 2): [1, 0, 0],
    }
    step, state = table_step(table)
    greedy = greedy_search(step, state, bos=BOS, eos=EOS, max_len=3)
    beam = beam_search(step, state, bos=BOS, eos=EOS, beam_size=2, max_len=3)
    assert greedy.tokens[1:] == [1, 0] and greedy.score == pytest.approx(math.log(0.5 * 0.4))
    assert beam.best.tokens[1:] == [2, 0] and beam.best.score == pytest.approx(math.log(0.4 * 0.95))
    assert [len(kept) for kept in beam.steps][0] == 2  # the beam held two hypotheses after step 1


def test_beam_search_can_score_below_greedy_it_is_not_exhaustive():
    # Greedy's path falls off a beam of 2 at step 2 and turns out to be the best one.
    table = {
        (): [0.0, 0.4, 0.35, 0.25],
        (1,): [0.0, 0.34, 0.33, 0.33],
        (2,): [0.0, 0.51, 0.49, 0.0],
        (3,): [0.0, 0.9, 0.1, 0.0],
        (1, 1): [0.0, 1.0, 0.0, 0.0],
        (2, 1): [0.0, 0.34, 0.33, 0.33],
        (2, 2): [0.0, 0.34, 0.33, 0.33],
    }
    step, state = table_step(table)
    greedy = greedy_search(step, state, bos=BOS, eos=EOS, max_len=3)
    beam = beam_search(step, state, bos=BOS, eos=EOS, beam_size=2, max_len=3)
    assert greedy.tokens[1:] == [1, 1, 1] and greedy.score == pytest.approx(math.log(0.4 * 0.34))
    assert beam.best.score < greedy.score


def test_search_errors_name_expected_and_received():
    step, state = table_step({(): [0.3, 0.7]})
    with pytest.raises(ValueError, match="beam_size must be an integer >= 1; got 0"):
        beam_search(step, state, bos=BOS, eos=EOS, beam_size=0, max_len=2)
    with pytest.raises(ValueError, match="max_len must be an integer >= 1; got -1"):
        beam_search(step, state, bos=BOS, eos=EOS, beam_size=2, max_len=-1)
    with pytest.raises(KeyError, match=r"no next-token probabilities for prefix \(1,\)"):
        beam_search(step, state, bos=BOS, eos=EOS, beam_size=2, max_len=2)


# --- the model ---------------------------------------------------------------
def small_model(score="dot", seed=0):
    torch.manual_seed(seed)
    return (
        Seq2Seq(len(date_task.SOURCE_VOCAB), len(date_task.TARGET_VOCAB), d_embed=8, d_hidden=16, score=score)
        .double()
        .eval()
    )


def test_shapes_and_attention_weights_are_distributions_over_the_real_source():
    batch = date_task.encode_batch(date_task.make_pairs(4, seed=1))
    model = small_model("additive")
    logits, weights = model(batch["src"], batch["src_lengths"], batch["tgt_in"])
    B, S = batch["src"].shape
    T = batch["tgt_in"].shape[1]
    assert logits.shape == (B, T, len(date_task.TARGET_VOCAB)) and weights.shape == (B, T, S)
    assert torch.allclose(weights.sum(-1), torch.ones(B, T, dtype=torch.float64))
    for b, length in enumerate(batch["src_lengths"].tolist()):
        assert torch.all(weights[b, :, length:] == 0), "padding must get no attention"
    assert small_model(None)(batch["src"], batch["src_lengths"], batch["tgt_in"])[1] is None


@pytest.mark.parametrize("score", [None, "dot", "general", "additive"])
def test_padding_does_not_change_a_sequences_output(score):
    pairs = date_task.make_pairs(3, seed=2)
    model = small_model(score)
    together = date_task.encode_batch(pairs)
    logits, _ = model(together["src"], together["src_lengths"], together["tgt_in"])
    for b, pair in enumerate(pairs):
        alone = date_task.encode_batch([pair])
        logits_alone, _ = model(alone["src"], alone["src_lengths"], alone["tgt_in"])
        assert torch.allclose(logits[b, : logits_alone.shape[1]], logits_alone[0], atol=1e-10)


@pytest.mark.parametrize("score", [None, "dot"])
def test_step_by_step_decoding_equals_teacher_forcing_and_batched_greedy(score):
    model = small_model(score, seed=3)
    batch = date_task.encode_batch(date_task.make_pairs(3, seed=3))
    logits, _ = model(batch["src"], batch["src_lengths"], batch["tgt_in"])
    state = model.encode(batch["src"], batch["src_lengths"])
    for t in range(batch["tgt_in"].shape[1]):
        log_probs, state = model.step(batch["tgt_in"][:, t], state)
        assert torch.allclose(log_probs, torch.log_softmax(logits[:, t], -1), atol=1e-10)
    ids, _ = model.greedy_decode(batch["src"], batch["src_lengths"], max_len=8)
    for b in range(3):
        one = tuple(part[b : b + 1] for part in model.encode(batch["src"], batch["src_lengths"]))
        hyp = greedy_search(model.step, one, bos=1, eos=2, max_len=8)
        assert hyp.tokens[1:] == ids[b, : len(hyp.tokens) - 1].tolist()


def test_beam_search_on_the_model_with_a_huge_beam_equals_brute_force_scoring(one_thread):
    """Every output of at most two tokens, scored by teacher forcing (another code path), against beam search."""
    model = small_model("dot", seed=4)
    vocab_size, bos, eos = len(date_task.TARGET_VOCAB), Seq2SeqVocab.BOS, Seq2SeqVocab.EOS
    batch = date_task.encode_batch(date_task.make_pairs(1, seed=4))
    outputs = [(eos,)] + [(a, b) for a in range(vocab_size) if a != eos for b in range(vocab_size)]
    tgt_in = torch.tensor([[bos, tokens[0]] for tokens in outputs])  # (n_outputs, 2); unused 2nd step for (eos,)
    tgt_out = torch.tensor([tokens if len(tokens) == 2 else (eos, eos) for tokens in outputs])
    n = len(outputs)
    with torch.no_grad():
        logits, _ = model(batch["src"].expand(n, -1), batch["src_lengths"].expand(n), tgt_in)
    token_scores = torch.log_softmax(logits, -1).gather(-1, tgt_out[..., None])[..., 0]  # (n, 2)
    scores = {tokens: token_scores[i, : len(tokens)].sum().item() for i, tokens in enumerate(outputs)}
    state = model.encode(batch["src"], batch["src_lengths"])
    result = beam_search(model.step, state, bos=bos, eos=eos, beam_size=vocab_size**2, max_len=2)
    best = max(scores, key=scores.get)
    assert tuple(result.best.tokens[1:]) == best and result.best.score == pytest.approx(scores[best], abs=1e-9)
    for hypothesis in result.hypotheses:
        assert hypothesis.score == pytest.approx(scores[tuple(hypothesis.tokens[1:])], abs=1e-9)


def test_the_attention_model_learns_to_reverse_short_strings(one_thread):
    torch.manual_seed(0)
    vocab = date_task.REVERSE_VOCAB
    model = Seq2Seq(len(vocab), len(vocab), d_embed=16, d_hidden=32, score="dot")
    next_batch = date_task.batch_sampler(
        date_task.reverse_pairs(2000, [3, 4], seed=0), 64, seed=0, source_vocab=vocab, target_vocab=vocab
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(60):
        optimizer.zero_grad()
        model.loss(next_batch(step)).backward()
        optimizer.step()
    test = date_task.reverse_pairs(50, [3, 4], seed=1)
    batch = date_task.encode_batch(test, vocab, vocab)
    ids, _ = model.eval().greedy_decode(batch["src"], batch["src_lengths"], max_len=5)
    accuracy = sum(vocab.decode(row) == target for row, (_, target) in zip(ids.tolist(), test)) / len(test)
    assert accuracy > 0.9


def test_model_errors_name_expected_and_received():
    with pytest.raises(ValueError, match="d_hidden must be an integer >= 1; got 0"):
        Seq2Seq(10, 10, d_hidden=0)
    with pytest.raises(ValueError, match="score must be one of .* got 'cosine'"):
        Seq2Seq(10, 10, score="cosine")
    with pytest.raises(ValueError, match=r"src must have shape \(B, S\); got \(5,\)"):
        small_model().encode(torch.zeros(5, dtype=torch.long), torch.tensor([5]))


# --- decoders, scheduled sampling, length normalisation, the checkpoint loader ------------
@pytest.mark.parametrize(
    "variant",
    [dict(score="general"), dict(score="dot", input_feeding=True), dict(score="additive", decoder="bahdanau")],
)
def test_every_decoder_steps_like_it_decodes_and_ignores_padding(variant):
    torch.manual_seed(5)
    vocab_in, vocab_out = len(date_task.SOURCE_VOCAB), len(date_task.TARGET_VOCAB)
    model = Seq2Seq(vocab_in, vocab_out, d_embed=8, d_hidden=16, **variant).double().eval()
    batch = date_task.encode_batch(date_task.make_pairs(3, seed=6))
    logits, weights = model(batch["src"], batch["src_lengths"], batch["tgt_in"])
    state = model.encode(batch["src"], batch["src_lengths"])
    for t in range(batch["tgt_in"].shape[1]):
        log_probs, state = model.step(batch["tgt_in"][:, t], state)
        assert torch.allclose(log_probs, torch.log_softmax(logits[:, t], -1), atol=1e-10)
    assert torch.allclose(weights.sum(-1), torch.ones_like(weights.sum(-1)))
    for b, length in enumerate(batch["src_lengths"].tolist()):
        assert torch.all(weights[b, :, length:] == 0)


@pytest.mark.parametrize("score", [None, "dot", "general", "additive"])
@pytest.mark.parametrize("seed", [7, 8])
def test_luong_fast_path_equals_the_step_loop(score, seed):
    """Every score (and none: the bottleneck), on batches of dates of different lengths."""
    torch.manual_seed(seed)
    model = Seq2Seq(len(date_task.SOURCE_VOCAB), len(date_task.TARGET_VOCAB), d_embed=8, d_hidden=16, score=score)
    model = model.double().eval()
    batch = date_task.encode_batch(date_task.make_pairs(4, seed=seed))
    state = model.encode(batch["src"], batch["src_lengths"])
    fast, w_fast, end_fast = model.decode(batch["tgt_in"], state)
    slow, w_slow, end_slow = model.decode_steps(batch["tgt_in"], state)
    assert not model.stepwise and torch.allclose(fast, slow, rtol=0, atol=1e-12)
    assert (w_fast is None) == (w_slow is None) == (score is None)
    assert score is None or torch.allclose(w_fast, w_slow, rtol=0, atol=1e-12)
    assert all(torch.allclose(a, b, rtol=0, atol=1e-12) for a, b in zip(end_fast, end_slow))


def test_the_bahdanau_query_is_the_previous_state():
    torch.manual_seed(8)
    model = Seq2Seq(20, 20, d_embed=4, d_hidden=6, score="dot", decoder="bahdanau").double()
    src, lengths = torch.randint(3, 20, (2, 5)), torch.tensor([5, 3])
    s0, states, mask, summary, feed = model.encode(src, lengths)
    _, weights, _ = model.decode_one(torch.tensor([1, 1]), (s0, states, mask, summary, feed))
    expected = torch.softmax((states @ s0[:, :, None])[..., 0].masked_fill(~mask, -math.inf), -1)
    assert torch.allclose(weights, expected, atol=1e-12)


def test_scheduled_sampling_loss_is_teacher_forcing_at_zero_and_differs_above():
    model = small_model("dot", seed=9)
    batch = date_task.encode_batch(date_task.make_pairs(8, seed=9))
    forced = model.loss(batch)
    assert torch.allclose(model.loss(batch, sampling_prob=0.0), forced)
    sampled = model.loss(batch, sampling_prob=1.0, generator=torch.Generator().manual_seed(0))
    assert sampled.item() != pytest.approx(forced.item(), abs=1e-9)
    with pytest.raises(ValueError, match=r"sampling_prob must be in \[0, 1\]; got 1.5"):
        model.loss(batch, sampling_prob=1.5)


def test_length_normalisation_changes_the_winner():
    from dl4nlp.seq2seq import length_penalty

    table = {(): [0.0, 1.0, 0.0], (1,): [0.52, 0.0, 0.48], (1, 2): [1.0, 0.0, 0.0], (2,): [1, 0, 0], (2, 2): [1, 0, 0]}
    table.update({(1, 1): [1, 0, 0], (2, 1): [1, 0, 0]})
    step, state = table_step(table)
    plain = beam_search(step, state, bos=BOS, eos=EOS, beam_size=3, max_len=3)
    normalised = beam_search(step, state, bos=BOS, eos=EOS, beam_size=3, max_len=3, alpha=2.0)
    assert plain.best.tokens[1:] == [1, 0] and normalised.best.tokens[1:] == [1, 2, 0]
    assert length_penalty(1, 0.0) == 1.0 and length_penalty(7, 1.0) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="alpha must be a finite number >= 0; got -1"):
        length_penalty(3, -1)


def test_config_errors_name_expected_and_received():
    from dl4nlp.seq2seq import Seq2SeqConfig

    with pytest.raises(ValueError, match="decoder must be one of .* got 'transformer'"):
        Seq2SeqConfig(10, 10, decoder="transformer")
    with pytest.raises(ValueError, match="without attention .* must be 'luong' without input feeding"):
        Seq2SeqConfig(10, 10, score=None, input_feeding=True)
    model = Seq2Seq.from_config(Seq2SeqConfig(10, 12, d_hidden=8, score="general"))
    assert model.config.target_vocab_size == 12 and model.output.out_features == 12
    with pytest.raises(ValueError, match=r"src must hold ids in \[0, 10\); got 11"):
        model.encode(torch.tensor([[0, 11]]), torch.tensor([2]))


def test_the_loader_verifies_the_file_and_its_kind(tmp_path):
    from dl4nlp.checkpoint import save_checkpoint

    model = small_model("dot").float()
    path = tmp_path / "m.pt"
    save_checkpoint(
        path, kind="seq2seq", config=model.config, state_dict=model.state_dict(), provenance={"command": "t"}
    )
    loaded = Seq2Seq.load(path)
    assert loaded.config == model.config
    assert all(torch.equal(a, b) for a, b in zip(loaded.state_dict().values(), model.state_dict().values()))
    save_checkpoint(tmp_path / "other.pt", kind="char_lstm", config={}, state_dict={}, provenance={"command": "t"})
    with pytest.raises(ValueError, match="holds a 'char_lstm' checkpoint; expected a 'seq2seq' checkpoint"):
        Seq2Seq.load(tmp_path / "other.pt")
    path.write_bytes(path.read_bytes()[:1000])
    with pytest.raises(ValueError, match="truncated or was replaced"):
        Seq2Seq.load(path)
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="is empty"):
        Seq2Seq.load(path)


def test_the_diagram_is_read_from_the_model():
    from dl4nlp.diagrams import seq2seq_diagram

    def arrows(**variant):
        model = Seq2Seq(13, 13, d_embed=4, d_hidden=6, **variant)
        d = seq2seq_diagram(model, source="abcd", target="dcb")
        return d, {(a.source, a.target): a for a in d.arrows}

    d, luong = arrows(score="dot")
    assert luong[("s3", "a3")].label == "query (dot)" and all((f"h{i}", "a3") in luong for i in range(1, 5))
    fed = [a for a in luong.values() if a.source.startswith("ht") and a.target.startswith("s")]
    assert ("a3", "s3") not in luong and not fed, "no input feeding, no a_t into the GRU"
    assert all((f"a{t}", f"ht{t}") in luong and (f"s{t}", f"ht{t}") in luong for t in (1, 2, 3))
    _, bahdanau = arrows(score="additive", decoder="bahdanau")
    assert bahdanau[("s2", "a3")].label == "query (additive)" and ("s3", "a3") not in bahdanau
    assert ("s0", "a1") in bahdanau, "the first query is s0 = c"
    assert all((f"a{t}", f"s{t}") in bahdanau for t in (1, 2, 3)), "a_t enters the GRU"
    _, feeding = arrows(score="dot", input_feeding=True)
    assert all((f"ht{t - 1}", f"s{t}") in feeding for t in (2, 3)), "h~_(t-1), not a_(t-1), joins the next input"
    assert not any((f"a{t - 1}", f"s{t}") in feeding for t in (2, 3))
    d, bottleneck = arrows(score=None)
    assert not any(name.startswith("a") for name in d.boxes) and ("h4", "s0") in bottleneck
    with pytest.raises(ValueError, match=r"step must be in \[1, 3\]; got 4"):
        seq2seq_diagram(Seq2Seq(13, 13, d_hidden=6), source="ab", target="dcb", step=4)


def test_lexical_states_are_the_words_and_the_shipped_models_still_load():
    """With lexical=True, h_i depends on word i alone; without, on the whole sentence (the full-stop shortcut)."""
    torch.manual_seed(11)
    model = Seq2Seq(20, 20, d_embed=4, d_hidden=6, score="general", lexical=True).double()
    plain = Seq2Seq(20, 20, d_embed=4, d_hidden=6, score="general").double()
    src, changed = torch.tensor([[5, 6, 7, 2]]), torch.tensor([[9, 6, 7, 2]])
    lengths = torch.tensor([4])
    for m, same in [(model, True), (plain, False)]:
        a, b = m.encode(src, lengths)[1], m.encode(changed, lengths)[1]
        assert torch.equal(a[0, 1:], b[0, 1:]) == same
    assert torch.allclose(model.encode(src, lengths)[1][0], model.encoder.lexical(model.encoder.embedding(src[0])))
    state = model.encode(src, lengths)
    fast, _, _ = model.decode(torch.tensor([[1, 5, 6]]), state)
    slow, _, _ = model.decode_steps(torch.tensor([[1, 5, 6]]), state)
    assert torch.allclose(fast, slow, atol=1e-12)
    for name in ("seq2seq_dates_dot.pt", "seq2seq_cmudict.pt"):
        from dl4nlp.data import data_path

        assert not Seq2Seq.load(data_path(name)).config.lexical


def test_unattended_ids_get_no_weight_unless_nothing_else_is_left():
    """config.unattended masks those source ids out of the attention (not out of the summary)."""
    torch.manual_seed(3)
    model = Seq2Seq(12, 12, d_embed=4, d_hidden=6, score="general", unattended=(2, 9)).double()
    src, lengths = torch.tensor([[5, 9, 6, 2], [9, 2, 0, 0]]), torch.tensor([4, 2])
    _, weights = model(src, lengths, torch.tensor([[1, 5, 6], [1, 5, 0]]))
    assert torch.all(weights[0, :, [1, 3]] == 0)
    assert torch.allclose(weights[0].sum(-1), torch.ones(3, dtype=torch.float64))
    assert torch.all(weights[1, :, :2] > 0)  # only unattended ids: attended in full rather than not at all
    fast, _, _ = model.decode(torch.tensor([[1, 5, 6]]), model.encode(src[:1], lengths[:1]))
    slow, _, _ = model.decode_steps(torch.tensor([[1, 5, 6]]), model.encode(src[:1], lengths[:1]))
    assert torch.allclose(fast, slow, atol=1e-12)
    assert Seq2SeqConfig(12, 12, unattended=[2, 9]).unattended == (2, 9)  # a checkpoint's JSON gives a list
