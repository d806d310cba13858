"""dl4nlp.positional and dl4nlp.transformer against closed forms and PyTorch's layers."""

import math

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from torch import nn

from dl4nlp.positional import (
    LearnedPositionalEmbedding,
    SinusoidalPositionalEncoding,
    make_positional,
    sinusoidal_encoding,
)
from dl4nlp.sampling import generate
from dl4nlp.transformer import TransformerBlock, TransformerConfig, TransformerEncoder, TransformerLM, count_parameters


def test_sinusoid_table_matches_the_formula():
    table = sinusoidal_encoding(50, 16)
    assert table.shape == (50, 16)
    pos, i = 7, 3
    assert table[pos, 2 * i].item() == pytest.approx(math.sin(pos / 10000 ** (2 * i / 16)), abs=1e-6)
    assert table[pos, 2 * i + 1].item() == pytest.approx(math.cos(pos / 10000 ** (2 * i / 16)), abs=1e-6)
    assert table.abs().max() <= 1.0


def test_positional_modules_add_to_embeddings_and_refuse_long_inputs():
    x = torch.zeros(2, 5, 8)
    assert torch.equal(SinusoidalPositionalEncoding(10, 8)(x)[0], sinusoidal_encoding(10, 8)[:5])
    learned = LearnedPositionalEmbedding(10, 8)
    assert torch.equal(learned(x)[1], learned.embedding.weight[:5].detach())
    with pytest.raises(ValueError, match="sequence length 11 exceeds max_len=10"):
        learned(torch.zeros(1, 11, 8))
    with pytest.raises(ValueError, match="d_model must be a positive even integer; got 7"):
        sinusoidal_encoding(10, 7)
    with pytest.raises(ValueError, match="kind must be one of"):
        make_positional("rotary-ish", 10, 8)


@pytest.mark.parametrize("norm_first", [True, False])
def test_block_matches_nn_transformer_encoder_layer(norm_first):
    torch.manual_seed(0)
    config = TransformerConfig(vocab_size=10, d_model=16, n_heads=4, d_ff=32, norm_first=norm_first)
    reference = (
        nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, activation="gelu", batch_first=True, norm_first=norm_first)
        .double()
        .eval()
    )
    mine = TransformerBlock.from_torch(reference, config).eval()
    assert {p.dtype for p in mine.parameters()} == {torch.float64}
    x = torch.randn(3, 6, 16, dtype=torch.float64)
    assert torch.allclose(mine(x), reference(x), atol=1e-10)
    causal = nn.Transformer.generate_square_subsequent_mask(6, dtype=torch.float64)
    assert torch.allclose(mine(x, causal=True), reference(x, src_mask=causal), atol=1e-10)


def test_fast_and_readable_attention_paths_agree():
    torch.manual_seed(0)
    slow = TransformerLM(TransformerConfig(vocab_size=20, d_model=16, n_heads=2, n_layers=2))
    fast = TransformerLM(TransformerConfig(vocab_size=20, d_model=16, n_heads=2, n_layers=2, fast_attention=True))
    fast.load_state_dict(slow.state_dict())
    ids = torch.randint(0, 20, (2, 9))
    assert torch.allclose(slow(ids), fast(ids), atol=1e-5)


@settings(max_examples=40, deadline=None)
@given(
    B=st.integers(1, 3),
    T=st.integers(1, 6),
    n_heads=st.sampled_from([1, 2, 4]),
    norm_first=st.booleans(),
    causal=st.booleans(),
    mask_kind=st.sampled_from(["none", "padding", "2d"]),
    seed=st.integers(0, 10_000),
)
def test_fast_and_readable_encoders_agree_on_every_input_they_accept(
    B, T, n_heads, norm_first, causal, mask_kind, seed
):
    """Pre- and post-norm blocks, padding and (T, T) masks, causal or not, in float64."""
    generator = torch.Generator().manual_seed(seed)
    config = dict(vocab_size=10, d_model=8, n_heads=n_heads, n_layers=2, norm_first=norm_first)
    torch.manual_seed(seed)
    readable = TransformerEncoder(TransformerConfig(**config)).double().eval()
    fast = TransformerEncoder(TransformerConfig(**config, fast_attention=True)).double().eval()
    fast.load_state_dict(readable.state_dict())
    x = torch.randn(B, T, 8, generator=generator, dtype=torch.float64)
    mask = {
        "none": None,
        "padding": (torch.arange(T)[None, :] < torch.randint(1, T + 1, (B,), generator=generator)[:, None])[
            :, None, None, :
        ],
        "2d": torch.rand(T, T, generator=generator) < 0.6,
    }[mask_kind]
    assume(mask is None or bool(mask.any()))  # a mask that allows nothing is refused (a polarity mistake)
    expected = readable(x, mask=mask, causal=causal)
    assert torch.allclose(fast(x, mask=mask, causal=causal), expected, rtol=0, atol=1e-12)


def test_language_model_is_causal_and_learns():
    torch.manual_seed(0)
    model = TransformerLM(TransformerConfig(vocab_size=8, d_model=32, n_heads=2, n_layers=1, max_len=16))
    ids = torch.randint(0, 8, (1, 10))
    changed = ids.clone()
    changed[0, 6] = (ids[0, 6] + 1) % 8
    logits, logits_changed = model(ids), model(changed)
    assert torch.allclose(logits[0, :6], logits_changed[0, :6], atol=1e-6)  # the past cannot see the future
    assert not torch.allclose(logits[0, 6:], logits_changed[0, 6:])
    # a repeating sequence is learned quickly
    seq = torch.arange(8).repeat(2)[None]  # (1, 16)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(150):
        optimizer.zero_grad()
        loss = model.loss(seq[:, :-1], seq[:, 1:])
        loss.backward()
        optimizer.step()
    assert loss.item() < 0.1
    out = generate(model, seq[:, :3], 5, temperature=0)
    assert out[0].tolist() == list(range(8))


def test_parameter_count_matches_the_formula_and_ties_weights():
    V, C, L, T = 50, 32, 3, 16
    model = TransformerLM(
        TransformerConfig(vocab_size=V, d_model=C, n_heads=4, n_layers=L, max_len=T, positional="learned")
    )
    per_block = 4 * (C * C + C) + (C * 4 * C + 4 * C) + (4 * C * C + C) + 2 * 2 * C
    assert count_parameters(model) == V * C + T * C + L * per_block + 2 * C  # final LayerNorm; head tied
    assert count_parameters(model, exclude_embeddings=True) == L * per_block + 2 * C
    assert model.lm_head.weight is model.token_embedding.weight


def test_builds_on_the_meta_device_without_memory():
    with torch.device("meta"):
        model = TransformerEncoder(
            TransformerConfig(vocab_size=30522, d_model=768, n_heads=12, n_layers=12, norm_first=False)
        )
    assert next(model.parameters()).is_meta
    assert count_parameters(model) == 12 * (4 * (768 * 768 + 768) + 2 * 768 * 3072 + 3072 + 768 + 4 * 768)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(vocab_size=0), "vocab_size must be an integer >= 1; got 0"),
        (dict(vocab_size=5, d_model=10, n_heads=3), "d_model must be divisible by n_heads"),
        (dict(vocab_size=5, dropout=1.0), r"dropout must be a finite number in \[0.0, 1.0\); got 1.0"),
        (dict(vocab_size=5, d_model=9, n_heads=3, positional="sinusoidal"), "d_model must be even"),
    ],
)
def test_config_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TransformerConfig(**kwargs)


def test_lm_rejects_bad_shapes():
    model = TransformerLM(TransformerConfig(vocab_size=5, d_model=8, n_heads=2, n_layers=1))
    with pytest.raises(ValueError, match=r"ids must have shape \(B, T\); got \(4,\)"):
        model(torch.zeros(4, dtype=torch.long))
    ids = torch.zeros(2, 4, dtype=torch.long)
    with pytest.raises(ValueError, match=r"targets must have shape \(2, 4\); got \(4, 2\)"):
        model.loss(ids, ids.T)
    with pytest.raises(ValueError, match=r"ids must hold ids in \[0, 5\); got 5"):
        model(torch.full((1, 3), 5))


def test_block_from_torch_refuses_a_reference_with_another_activation():
    relu = nn.TransformerEncoderLayer(8, 2, 16, activation="relu", batch_first=True)
    with pytest.raises(ValueError, match="reference must use the block's activation, GELU .*; got relu"):
        TransformerBlock.from_torch(relu)
    gelu = nn.TransformerEncoderLayer(8, 2, 16, activation="gelu", batch_first=True)
    with pytest.raises(ValueError, match="config must match the reference: d_ff=32; reference has 16"):
        TransformerBlock.from_torch(gelu, TransformerConfig(vocab_size=5, d_model=8, n_heads=2, d_ff=32))
    block = TransformerBlock.from_torch(gelu)  # sizes and dropout from the reference
    assert (block.config.d_ff, block.config.dropout, block.config.norm_first) == (16, 0.1, False)
