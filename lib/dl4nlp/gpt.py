"""A decoder-only GPT: the configuration of the course's character-level model, storing and loading it.

A GPT is ``dl4nlp.transformer.TransformerLM`` with GPT-2's choices: pre-LayerNorm
blocks, learned positions, an output layer tied to the token embedding and a
causal mask in every layer. ``python -m dl4nlp.recipes.gpt_shakespeare`` trains
one on ``tinyshakespeare.txt`` and ships it as ``data/gpt_shakespeare.pt`` (the
one checkpoint format of ``dl4nlp.checkpoint``, float16 weights);
``load_gpt()`` reads it back. Taught in notebook 10.

>>> model = TransformerLM(gpt_config(vocab_size=10, d_model=16, n_heads=2, n_layers=1, max_len=8))
>>> weights = weights_to_store(model)
>>> "lm_head.weight" in weights, weights["token_embedding.weight"].dtype   # tied: stored once, float16
(False, torch.float16)
>>> model_from_weights(model.config, weights).lm_head.weight is not None
True
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Optional, Union

import torch

from dl4nlp._checks import check_device, check_path, check_type, given
from dl4nlp.checkpoint import Checkpoint, load_checkpoint
from dl4nlp.data import data_path
from dl4nlp.transformer import TransformerConfig, TransformerLM
from dl4nlp.vocab import CharVocab

KIND = "gpt_shakespeare"  # the checkpoint kind load_gpt accepts
CHECKPOINT = "gpt_shakespeare.pt"  # in data/, made by `python -m dl4nlp.recipes.gpt_shakespeare`


def gpt_config(vocab_size: int, **overrides) -> TransformerConfig:
    """A ``TransformerConfig`` shaped like GPT-2: pre-LN, learned positions, tied output layer, fused attention.

    The defaults are the shipped character model's: 4 layers of width 128 with 4 heads, a context of 256.
    """
    fields = dict(
        vocab_size=vocab_size,
        d_model=128,
        n_heads=4,
        n_layers=4,
        max_len=256,
        dropout=0.0,
        norm_first=True,
        positional="learned",
        fast_attention=True,
        tie_weights=True,
    )
    _check_fields("overrides", overrides)
    fields.update(overrides)
    return TransformerConfig(**fields)


def _check_fields(name: str, fields: dict) -> None:
    unknown = sorted(set(fields) - {f.name for f in dataclasses.fields(TransformerConfig)})
    if unknown:
        raise ValueError(f"{name} must name TransformerConfig fields only; got unknown {unknown}")


def weights_to_store(model: TransformerLM, dtype: torch.dtype = torch.float16) -> dict[str, torch.Tensor]:
    """The model's weights as ``dtype`` on the CPU, the tied output layer left out (it is the embedding)."""
    check_type("model", model, TransformerLM, "a dl4nlp.transformer.TransformerLM")
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating-point torch.dtype (torch.float16, ...); got {given(dtype)}")
    tied = model.config.tie_weights
    return {
        name: value.detach().cpu().to(dtype)
        for name, value in model.state_dict().items()
        if not (tied and name == "lm_head.weight")
    }


def model_from_weights(config: Union[TransformerConfig, dict], state_dict: dict[str, torch.Tensor]) -> TransformerLM:
    """A float32 ``TransformerLM`` in eval mode holding ``state_dict`` (as stored by ``weights_to_store``)."""
    check_type("config", config, (TransformerConfig, dict), "a TransformerConfig or a dict of its fields")
    if isinstance(config, dict):
        _check_fields("config", config)
        config = TransformerConfig(**config)
    check_type("state_dict", state_dict, dict, "a dict of tensors (from weights_to_store)")
    model = TransformerLM(config)
    shapes = {name: tuple(value.shape) for name, value in model.state_dict().items()}
    for name, value in state_dict.items():
        check_type(f"state_dict[{name!r}]", value, torch.Tensor, "a tensor")
        if name in shapes and tuple(value.shape) != shapes[name]:
            raise ValueError(
                f"state_dict[{name!r}] must have shape {shapes[name]} for this config; got {tuple(value.shape)}"
            )
    missing, unexpected = model.load_state_dict({k: v.float() for k, v in state_dict.items()}, strict=False)
    expected = ["lm_head.weight"] if config.tie_weights else []
    if sorted(missing) != expected or unexpected:
        raise ValueError(
            f"state_dict does not fit a TransformerLM of this config: expected to miss only {expected} "
            f"(the tied output layer); missing {sorted(missing)}, unexpected {sorted(unexpected)}"
        )
    return model.eval()


def load_gpt(
    path: Optional[Union[str, Path]] = None, device: Union[str, torch.device] = "cpu"
) -> tuple[TransformerLM, CharVocab, Checkpoint]:
    """The shipped GPT (checksum verified), its character vocabulary and the loaded checkpoint (provenance inside)."""
    path = check_path("path", path) if path is not None else data_path(CHECKPOINT)
    device = check_device("device", device, available=True)
    checkpoint = load_checkpoint(path, kind=KIND)
    chars = checkpoint.extra.get("chars")
    if not isinstance(chars, str) or not chars:
        raise ValueError(f"{path} holds no character vocabulary (extra['chars']); expected a string of characters")
    model = model_from_weights(checkpoint.config, checkpoint.state_dict).to(device)
    if model.config.vocab_size != len(chars):
        raise ValueError(f"{path}: vocab_size {model.config.vocab_size} but {len(chars)} characters stored")
    return model, CharVocab(chars), checkpoint
