"""dl4nlp.decoder and dl4nlp.kv_cache against PyTorch's layers and against full recomputation."""

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from dl4nlp.attention import MultiHeadAttention
from dl4nlp.date_task import SOURCE_VOCAB, TARGET_VOCAB, encode_batch, make_pairs
from dl4nlp.decoder import DecoderBlock, Seq2SeqTransformer, Seq2SeqTransformerConfig
from dl4nlp.kv_cache import KVCache, LayerCache, cached_attention
from dl4nlp.transformer import TransformerBlock, TransformerConfig, TransformerLM


@pytest.mark.parametrize("norm_first", [True, False])
def test_decoder_block_matches_nn_transformer_decoder_layer(norm_first):
    torch.manual_seed(0)
    reference = nn.TransformerDecoderLayer(
        16, 4, 32, dropout=0.0, activation="gelu", batch_first=True, norm_first=norm_first
    ).double()
    reference.eval()
    mine = DecoderBlock.from_torch(reference)
    assert next(mine.parameters()).dtype == torch.float64  # the reference's dtype is kept
    x, memory = torch.randn(3, 5, 16, dtype=torch.float64), torch.randn(3, 7, 16, dtype=torch.float64)
    keep = torch.arange(7)[None] < torch.tensor([7, 4, 6])[:, None]  # (B, S): source padding
    expected = reference(
        x,
        memory,
        tgt_mask=nn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64),
        memory_key_padding_mask=~keep,
        tgt_is_causal=True,
    )
    assert torch.allclose(mine(x, memory, memory_mask=keep[:, None, None, :]), expected, atol=1e-12)


def test_cross_attention_matches_nn_multihead_attention():
    torch.manual_seed(1)
    reference = nn.MultiheadAttention(12, 3, batch_first=True).double().eval()
    mine = MultiHeadAttention.from_torch(reference)
    query, context = torch.randn(2, 4, 12, dtype=torch.float64), torch.randn(2, 9, 12, dtype=torch.float64)
    expected, expected_weights = reference(query, context, context, average_attn_weights=False)
    assert torch.allclose(mine(query, context=context), expected, atol=1e-12)
    assert torch.allclose(mine.last_weights, expected_weights, atol=1e-12)  # (B, H, T_q, T_k)


def test_decoder_block_from_torch_refuses_relu():
    reference = nn.TransformerDecoderLayer(8, 2, 16, batch_first=True)  # ReLU by default
    with pytest.raises(ValueError, match="GELU"):
        DecoderBlock.from_torch(reference)
    with pytest.raises(TypeError, match="TransformerDecoderLayer"):
        DecoderBlock.from_torch(nn.Linear(2, 2))


def test_decoder_block_from_torch_as_transformer_block_does():
    # issue 22: the tanh approximation of GELU is refused (as TransformerBlock.from_torch refuses it), and the
    # reference's dropout is kept in the block's config instead of being dropped.
    tanh = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, activation=nn.GELU(approximate="tanh"), batch_first=True)
    with pytest.raises(ValueError, match=r"GELU \(exact\); got GELU\(approximate='tanh'\)"):
        DecoderBlock.from_torch(tanh)
    encoder_tanh = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=nn.GELU(approximate="tanh"))
    with pytest.raises(ValueError, match=r"GELU \(exact\); got GELU\(approximate='tanh'\)"):
        TransformerBlock.from_torch(encoder_tanh)
    reference = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.25, activation="gelu", batch_first=True)
    assert DecoderBlock.from_torch(reference).dropout.p == 0.25


def _lm(positional="learned", fast=False, n_layers=3):
    torch.manual_seed(0)
    config = TransformerConfig(
        vocab_size=11, d_model=16, n_heads=2, n_layers=n_layers, max_len=20, positional=positional, fast_attention=fast
    )
    return TransformerLM(config).double().eval()


@pytest.mark.parametrize("positional", ["learned", "sinusoidal", "none"])
@pytest.mark.parametrize("fast", [False, True])
def test_kv_cache_gives_the_logits_of_full_recomputation(positional, fast):
    model = _lm(positional, fast)
    ids = torch.randint(0, 11, (2, 15), generator=torch.Generator().manual_seed(3))
    full = model(ids)
    cache = KVCache.empty(model)
    pieces = [model(ids[:, :4], cache=cache)]  # the prompt at once, then one token at a time
    pieces += [model(ids[:, t : t + 1], cache=cache) for t in range(4, 15)]
    assert torch.allclose(torch.cat(pieces, dim=1), full, atol=1e-12)
    assert cache.length == 15 and cache.nbytes() == 3 * 2 * 2 * 15 * 16 * 8  # layers x (K, V) x B x T x C x 8 bytes


@settings(max_examples=15, deadline=None)
@given(split=st.integers(1, 9), length=st.integers(2, 12))
def test_kv_cache_any_split_of_the_sequence(split, length):
    model = _lm(n_layers=2)
    ids = torch.randint(0, 11, (1, length), generator=torch.Generator().manual_seed(length))
    split = min(split, length - 1)
    cache = KVCache.empty(model)
    logits = torch.cat([model(ids[:, :split], cache=cache), model(ids[:, split:], cache=cache)], dim=1)
    assert torch.allclose(logits, model(ids), atol=1e-12)


def test_kv_cache_refuses_what_does_not_fit():
    model = _lm()
    cache = KVCache.empty(model)
    model(torch.zeros(2, 18, dtype=torch.long), cache=cache)
    with pytest.raises(ValueError, match="max_len=20"):
        model(torch.zeros(2, 3, dtype=torch.long), cache=cache)
    with pytest.raises(ValueError, match="batch"):
        cached_attention(model.encoder.blocks[0].self_attn, torch.zeros(1, 1, 16, dtype=torch.float64), cache.layers[0])
    with pytest.raises(ValueError, match="n_layers must be an integer >= 1"):
        KVCache(0)
    with pytest.raises(TypeError, match="TransformerLM"):
        KVCache.empty(nn.Linear(2, 2))
    with pytest.raises(ValueError, match="cache must hold 3 layers"):
        model(torch.zeros(1, 2, dtype=torch.long), cache=KVCache(2))


def test_block_with_a_cache_equals_the_causal_block():
    torch.manual_seed(0)
    block = TransformerBlock(TransformerConfig(vocab_size=1, d_model=8, n_heads=2)).double().eval()
    x = torch.randn(2, 6, 8, dtype=torch.float64)
    cache = LayerCache()
    stepwise = torch.cat([block(x[:, t : t + 1], cache=cache) for t in range(6)], dim=1)
    assert torch.allclose(stepwise, block(x, causal=True), atol=1e-12)


def test_ingredient_switches_leave_out_what_they_say():
    base = dict(vocab_size=5, d_model=8, n_heads=2, n_layers=1)

    def names(**switches):
        block = TransformerBlock(TransformerConfig(**base, **switches))
        return {name.split(".")[-2] for name, _ in block.named_parameters()}

    assert names() == {"q_proj", "k_proj", "v_proj", "out_proj", "linear1", "linear2", "norm1", "norm2"}
    assert names(use_feed_forward=False) == {"q_proj", "k_proj", "v_proj", "out_proj", "norm1"}
    assert names(use_attention=False) == {"linear1", "linear2", "norm2"}
    assert "norm1" not in names(use_layer_norm=False)
    block = TransformerBlock(TransformerConfig(**base, use_residual=False, use_layer_norm=False, norm_first=False))
    x = torch.randn(1, 3, 8)
    attended = block.self_attn(x)
    ffn = block.linear2(torch.nn.functional.gelu(block.linear1(attended)))
    assert torch.allclose(block(x), ffn, atol=1e-6)  # no residual, no LayerNorm: f(g(x))
    with pytest.raises(ValueError, match="needs attention or a feed-forward"):
        TransformerConfig(**base, use_attention=False, use_feed_forward=False)


def _tiny_seq2seq(norm_first=True):
    torch.manual_seed(0)
    config = Seq2SeqTransformerConfig(
        len(SOURCE_VOCAB), len(TARGET_VOCAB), d_model=16, n_heads=2, d_ff=32, norm_first=norm_first, max_len=48
    )
    return Seq2SeqTransformer(config).eval()


def test_seq2seq_transformer_is_causal_and_ignores_padding():
    model = _tiny_seq2seq()
    batch = encode_batch(make_pairs(3, seed=0))
    logits, weights = model(batch["src"], batch["src_lengths"], batch["tgt_in"])
    assert logits.shape == (*batch["tgt_in"].shape, len(TARGET_VOCAB))
    changed = batch["tgt_in"].clone()
    changed[:, 5] = 4
    later = model(batch["src"], batch["src_lengths"], changed)[0]
    assert torch.allclose(logits[:, :5], later[:, :5], atol=1e-6)  # positions before 5 cannot see position 5
    padded = batch["src"].clone()
    short = int(batch["src_lengths"].argmin())
    padded[short, batch["src_lengths"][short] :] = 7  # garbage where the padding was
    again = model(padded, batch["src_lengths"], batch["tgt_in"])[0]
    assert torch.allclose(logits[short], again[short], atol=1e-6)
    assert torch.allclose(weights.sum(-1), torch.ones_like(weights.sum(-1)), atol=1e-6)
    assert (weights[short, :, batch["src_lengths"][short] :] == 0).all()


def test_seq2seq_transformer_greedy_decode_matches_teacher_forcing_on_its_own_output():
    model = _tiny_seq2seq(norm_first=False)
    batch = encode_batch(make_pairs(4, seed=1))
    ids, weights = model.greedy_decode(batch["src"], batch["src_lengths"], max_len=6)
    assert ids.shape == (4, 6) and weights.shape == (4, 6, batch["src"].shape[1])
    tgt_in = torch.cat([torch.ones(4, 1, dtype=torch.long), ids[:, :-1]], dim=1)
    logits, _ = model(batch["src"], batch["src_lengths"], tgt_in)
    assert torch.equal(logits.argmax(-1), ids)
    maps = model.attention_maps()
    assert [len(maps[k]) for k in ("encoder", "decoder", "cross")] == [2, 2, 2]
    with pytest.raises(ValueError, match="max_len must be an integer"):
        model.greedy_decode(batch["src"], batch["src_lengths"], max_len=0)
    with pytest.raises(ValueError, match="memory must have shape"):
        model.decoder[0](torch.zeros(1, 2, 16), torch.zeros(2, 3, 16))


def test_seq2seq_transformer_config_errors():
    with pytest.raises(ValueError, match="source_vocab_size must be an integer >= 1"):
        Seq2SeqTransformerConfig(0, 5)
    with pytest.raises(ValueError, match="divisible"):
        Seq2SeqTransformerConfig(5, 5, d_model=10, n_heads=3)


@settings(max_examples=40, deadline=None)
@given(
    B=st.integers(1, 2),
    cached=st.integers(0, 3),
    T_new=st.integers(1, 3),
    mask_kind=st.sampled_from(["none", "2d", "full"]),
    seed=st.integers(0, 10_000),
)
def test_cached_attention_fast_path_equals_readable_path(B, cached, T_new, mask_kind, seed):
    """Any cache length and mask, rows with no allowed key included (zero output on both paths, whatever
    the torch version's fused kernel does with such rows)."""
    generator = torch.Generator().manual_seed(seed)
    T_total = cached + T_new
    mask = {
        "none": None,
        "2d": torch.rand(T_new, T_total, generator=generator) < 0.5,
        "full": torch.rand(B, 2, T_new, T_total, generator=generator) < 0.5,
    }[mask_kind]
    if mask is not None and not mask.any():  # a mask that allows nothing anywhere is refused (test_attention.py)
        mask.view(-1)[0] = True
    torch.manual_seed(seed)
    readable = MultiHeadAttention(8, 2).double()
    fast = MultiHeadAttention(8, 2, fast=True).double()
    fast.load_state_dict(readable.state_dict())
    x = torch.randn(B, T_new, 8, dtype=torch.float64, generator=generator)
    keys, values = (torch.randn(B, 2, cached, 4, dtype=torch.float64, generator=generator) for _ in range(2))
    outs = [
        cached_attention(module, x, LayerCache(keys, values) if cached else LayerCache(), mask=mask)
        for module in (readable, fast)
    ]
    assert torch.allclose(outs[1], outs[0], atol=1e-12)


def test_a_refused_step_leaves_the_cache_as_it_was():
    torch.manual_seed(0)
    attention = MultiHeadAttention(8, 2)
    cache = LayerCache()
    cached_attention(attention, torch.randn(1, 2, 8), cache)
    keys = cache.keys
    with pytest.raises(ValueError, match=r"mask must broadcast to \(B, H, 1, 3\)"):
        cached_attention(attention, torch.randn(1, 1, 8), cache, mask=torch.ones(1, 1, 1, 1, 4, dtype=torch.bool))
    assert cache.keys is keys and cache.length == 2


def test_translate_and_accuracy_by_length_take_the_transformer():
    """date_task.translate refused a Seq2SeqTransformer (it checked for Seq2Seq only), so the date comparison's
    accuracy_by_length failed on the Transformer."""
    from dl4nlp.date_task import translate
    from dl4nlp.experiments.transformer import accuracy_by_length, date_transformer

    model = date_transformer(0).eval()
    pairs = make_pairs(8, seed=0)
    outputs = translate(model, [source for source, _ in pairs], max_len=11)
    assert len(outputs) == 8 and all(isinstance(o, str) for o in outputs)
    accuracies = accuracy_by_length(model, pairs, bins=((0, 100),))
    assert len(accuracies) == 1 and 0.0 <= accuracies[0] <= 1.0
