"""Every public entry point that runs a model gives the CPU's answer on every device there is (issue 11).

A test on the CPU cannot see a tensor built on the CPU and fed to a model on
a GPU ("Expected all tensors to be on the same device"); notebook 13 broke so
on every GPU while the CPU suite passed. Each case below builds a small seeded
model, puts it on ``device`` and calls one public function the way a notebook
does: module methods get their inputs on the model's device; the helpers that
take a model and data (lists of strings, token lists, CPU tensors) get them as
the notebooks hold them, on the CPU, and must move them to the model
themselves. The result is compared with the same call on the CPU.

Exactly equal: ids, tokens, choices and counts (sampling draws on the CPU with
the caller's CPU generator, so the same tokens come out on every device).
Within ``RTOL``/``ATOL``: floats. The GPU computes in float32 too (TF32 is
switched off below, no autocast), but sums in another order: float32 round-off
is 6e-8 per operation, so a few layers and a few optimiser steps of these tiny
models should stay far within 1e-4 of the CPU, while a real bug (a wrong mask,
a missed position) changes results by far more. Dropout is off in the models
compared after training (a GPU draws its own dropout masks), and a trained
model is compared by its outputs, not its weights, after a few steps at a small
learning rate: Adam's first steps follow the sign of each gradient, and the
sign of a gradient that is only round-off differs between devices. Without a GPU only
the "cpu" cases run, as the references; "cuda" runs where CUDA is, "mps" on
Apple silicon (which has no float64: the float64 case is skipped there).
"""

from __future__ import annotations

import importlib
import inspect
import math
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from bad_inputs.harness import public_api
from test_scaling_sweep import TINY  # the tiny sweep spec of the sweep's own tests

from dl4nlp import (
    attention,
    bptt,
    date_task,
    finetune,
    gradflow,
    lstm,
    phonemes,
    rnn,
    sampling,
    sparse,
    taggers,
    tasks,
    translation,
)
from dl4nlp.alibi import ALiBiAttention
from dl4nlp.bert import Bert, bert_config, load_pretrained, mask_tokens, pretraining_loss
from dl4nlp.bert_pretrain import PretrainingData, evaluate, pretrain
from dl4nlp.data import data_path, load_text
from dl4nlp.decoder import DecoderBlock, Seq2SeqTransformer, Seq2SeqTransformerConfig
from dl4nlp.device import available_devices
from dl4nlp.experiments import char_lstm as char_lstm_experiment
from dl4nlp.experiments import lstm as lstm_experiment
from dl4nlp.experiments import seq2seq as seq2seq_experiment
from dl4nlp.experiments import transformer as transformer_experiment
from dl4nlp.gpt import load_gpt
from dl4nlp.kv_cache import KVCache, LayerCache, cached_attention
from dl4nlp.nnlm import NNLM, NNLMConfig
from dl4nlp.objectives import replaced_token_detection
from dl4nlp.positional import LearnedPositionalEmbedding, RotaryAttention, SinusoidalPositionalEncoding, rotary
from dl4nlp.recipes import phoneme_model as phoneme_recipe
from dl4nlp.recipes import translation as translation_recipe
from dl4nlp.recipes.scaling_run import Run, train_run
from dl4nlp.recipes.scaling_spec import SweepSpec
from dl4nlp.scaling import measure_forward_flops
from dl4nlp.seq2seq import Seq2Seq, beam_search, greedy_search
from dl4nlp.sweep import CharData, continuation_metrics, heldout_loss
from dl4nlp.train import train
from dl4nlp.transformer import TransformerBlock, TransformerConfig, TransformerEncoder, TransformerLM
from dl4nlp.vocab import CharVocab, Seq2SeqVocab
from dl4nlp.wordpiece import WordPiece

RTOL, ATOL = 1e-4, 1e-4  # float32 on another device: other summation orders (see the module docstring)


DEVICES = ["cpu"] + [kind for kind in available_devices() if kind != "cpu"]  # the CPU's results first


# --- small seeded models and inputs -------------------------------------------------------------------
def seeded(build: Callable[[], torch.nn.Module], device: torch.device, seed: int = 0) -> torch.nn.Module:
    """The module ``build()`` makes after ``torch.manual_seed(seed)`` (the same weights everywhere), on ``device``."""
    torch.manual_seed(seed)
    return build().to(device).eval()


def cpu_randn(*shape: int, seed: int = 1) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def cpu_ids(*shape: int, high: int, seed: int = 2) -> torch.Tensor:
    return torch.randint(0, high, shape, generator=torch.Generator().manual_seed(seed))


def lm(device, **overrides) -> TransformerLM:
    sizes = dict(vocab_size=11, d_model=16, n_heads=2, n_layers=2, max_len=12) | overrides
    return seeded(lambda: TransformerLM(TransformerConfig(**sizes)), device)


WORDS = "the man went to store buy a gallon of milk . and he said it was good bad , i am you are".split()
VOCAB = WordPiece(WORDS)


def tiny_bert(device) -> Bert:
    return seeded(
        lambda: Bert(
            bert_config("base", vocab_size=len(VOCAB), d_model=16, n_heads=2, n_layers=1, max_len=24, dropout=0.0)
        ),
        device,
    )


def bert_data() -> PretrainingData:
    sentences = ["the man went to the store .", "he said it was good .", "i am milk .", "you are bad ."]
    documents = [[sentences[(i + j) % 4] for j in range(3)] for i in range(8)]
    return PretrainingData({"train": documents[:6], "held_out": documents[6:]}, VOCAB)


def date_seq2seq(device, score="dot") -> Seq2Seq:
    return seeded(lambda: Seq2Seq(len(date_task.SOURCE_VOCAB), len(date_task.TARGET_VOCAB), 8, 16, score=score), device)


def date_transformer(device) -> Seq2SeqTransformer:
    config = Seq2SeqTransformerConfig(
        len(date_task.SOURCE_VOCAB),
        len(date_task.TARGET_VOCAB),
        d_model=16,
        n_heads=2,
        encoder_layers=1,
        decoder_layers=1,
        max_len=48,
    )
    return seeded(lambda: Seq2SeqTransformer(config), device)


DATE_PAIRS = date_task.make_pairs(4, seed=0)
SHAKESPEARE = CharData(load_text("tinyshakespeare.txt"))


def on(device, *tensors: torch.Tensor):
    return tuple(t.to(device) for t in tensors)


# --- the cases: name -> function of the device returning what is compared -------------------------------
CASES: dict[str, Callable[[torch.device], Any]] = {}
COVERS: dict[str, tuple[str, ...]] = {}  # case -> the public entry points it calls on the device (under dl4nlp.)


def case(*entry_points: str) -> Callable:
    """Register a case: a function of the device whose result is compared, and the entry points it runs there."""

    def register(fn: Callable[[torch.device], Any]) -> Callable[[torch.device], Any]:
        CASES[fn.__name__], COVERS[fn.__name__] = fn, entry_points
        return fn

    return register


@case(
    "attention.scaled_dot_product_attention",
    "attention.attend",
    "attention.masked_softmax",
    "attention.causal_mask",
    "attention.padding_mask",
    "sparse.blockwise_attention",
)
def attention_functions(device):
    q, k, v = on(device, cpu_randn(2, 2, 3, 4, seed=1), cpu_randn(2, 2, 5, 4, seed=2), cpu_randn(2, 2, 5, 4, seed=3))
    mask = attention.padding_mask(torch.tensor([5, 3]).to(device), 5)  # (B, 1, 1, T_k)
    scores = q @ k.transpose(-1, -2)
    return [
        attention.scaled_dot_product_attention(q, k, v, mask=mask),
        attention.scaled_dot_product_attention(q, q, q, causal=True),
        attention.attend(scores[:, 0], v[:, 0], mask[:, 0]),
        attention.masked_softmax(scores, mask),
        attention.causal_mask(4, device),
        sparse.blockwise_attention(q, k, v, block_size=2),
        sparse.blockwise_attention(q, q, q, block_size=2, causal=True),
    ]


@case(
    "attention.MultiHeadAttention.forward",
    "positional.RotaryAttention.forward",
    "attention.DotScore.forward",
    "attention.GeneralScore.forward",
    "attention.AdditiveScore.forward",
)
def attention_modules(device):
    x, memory = on(device, cpu_randn(2, 4, 8, seed=1), cpu_randn(2, 6, 8, seed=2))
    out = []
    for fast in (False, True):
        mha = seeded(lambda: attention.MultiHeadAttention(8, 2, fast=fast), device)  # noqa: B023
        out += [
            mha(x, causal=True),
            mha(x, memory, causal=True),
            mha(x, memory, mask=torch.ones(2, 1, 4, 6, dtype=torch.bool, device=device)),
        ]
        rope = seeded(lambda: RotaryAttention(8, 2, fast=fast), device)  # noqa: B023
        out.append(rope(x, causal=True))
    for kind in ("dot", "general", "additive"):
        out.append(seeded(lambda: attention.make_score(kind, 8, 8), device)(x, memory))  # noqa: B023
    return out


@case(
    "attention.MultiHeadAttention.from_torch",
    "positional.RotaryAttention.from_torch",
    "transformer.TransformerBlock.from_torch",
    "transformer.TransformerBlock.forward",
    "decoder.DecoderBlock.from_torch",
    "decoder.DecoderBlock.forward",
    "rnn.UnrolledRNN.from_torch",
    "lstm.set_forget_bias_",
    "lstm.set_update_bias_",
    "rnn.identity_init_",
)
def copies_of_torch_modules(device):
    """``from_torch`` of a PyTorch module on the device: the copy lives there too and computes the same."""
    x, memory = on(device, cpu_randn(2, 4, 8, seed=1), cpu_randn(2, 6, 8, seed=2))
    mha = seeded(lambda: torch.nn.MultiheadAttention(8, 2, batch_first=True), device)
    encoder_layer = seeded(lambda: torch.nn.TransformerEncoderLayer(8, 2, 16, 0.0, "gelu", batch_first=True), device)
    decoder_layer = seeded(lambda: torch.nn.TransformerDecoderLayer(8, 2, 16, 0.0, "gelu", batch_first=True), device)
    # identity_init_ draws W_ih: on the CPU, so that every device gets the same weights
    recurrent = seeded(lambda: rnn.identity_init_(torch.nn.RNN(8, 5, batch_first=True)), device)
    gated = [
        lstm.set_forget_bias_(seeded(lambda: torch.nn.LSTM(8, 5, batch_first=True), device), 1.0),
        lstm.set_update_bias_(seeded(lambda: torch.nn.GRU(8, 5, batch_first=True), device), -1.0),
    ]
    return [
        attention.MultiHeadAttention.from_torch(mha)(x, memory),
        RotaryAttention.from_torch(mha)(x, causal=True),
        TransformerBlock.from_torch(encoder_layer)(x, causal=True),
        DecoderBlock.from_torch(decoder_layer)(x, memory),
        rnn.UnrolledRNN.from_torch(recurrent)(x),
        *(module(x)[0] for module in gated),
    ]


@case(
    "positional.SinusoidalPositionalEncoding.forward",
    "positional.LearnedPositionalEmbedding.forward",
    "positional.rotary",
)
def positional_encodings(device):
    x = cpu_randn(2, 5, 8).to(device)
    sinusoidal = seeded(lambda: SinusoidalPositionalEncoding(10, 8), device)
    learned = seeded(lambda: LearnedPositionalEmbedding(10, 8), device)
    return [sinusoidal(x), learned(x), rotary(x), rotary(x, fast=True), rotary(x, positions=[4, 3, 2, 1, 0])]


@case("transformer.TransformerEncoder.forward", "transformer.TransformerEncoder.attention_weights")
def transformer_encoder(device):
    encoder = seeded(lambda: TransformerEncoder(TransformerConfig(vocab_size=5, d_model=8, n_heads=2)), device)
    x = cpu_randn(2, 5, 8).to(device)
    mask = attention.padding_mask(torch.tensor([5, 2]).to(device), 5)
    return [encoder(x, mask=mask), encoder(x, causal=True), encoder.attention_weights()]


@case(
    "transformer.TransformerLM.forward",
    "transformer.TransformerLM.loss",
    "kv_cache.KVCache.empty",
)
def transformer_lm(device):
    model = lm(device)
    ids = cpu_ids(2, 6, high=11).to(device)
    cache = KVCache.empty(model)
    model(ids[:, :4], cache=cache)
    return [
        model(ids),
        model.loss(ids[:, :-1], ids[:, 1:]),
        model(ids[:, 4:], cache=cache),
        sampling.generate(model, ids, 4, temperature=0),
        sampling.generate(model, ids, 4, generator=torch.Generator().manual_seed(0)),
    ]


@case("sampling.generate", "sampling.sample_next", "sampling.next_token_probabilities")
def sampling_generate(device):
    model, ids = lm(device), cpu_ids(2, 3, high=11)
    draws = [
        sampling.generate(
            model, ids, 12, top_k=4, top_p=0.9, generator=torch.Generator().manual_seed(s), use_cache=cache
        )
        for s, cache in ((0, True), (0, False), (1, True))
    ]
    logits = cpu_randn(3, 11).to(device)
    return draws + [
        sampling.sample_next(logits, 0.7, top_k=5, generator=torch.Generator().manual_seed(0)),
        sampling.next_token_probabilities(logits, top_p=0.8),
    ]


@case("kv_cache.cached_attention")
def cached_attention_step(device):
    mha = seeded(lambda: attention.MultiHeadAttention(8, 2), device)
    x = cpu_randn(2, 5, 8).to(device)
    cache = LayerCache()
    return [cached_attention(mha, x[:, :3], cache), cached_attention(mha, x[:, 3:], cache), cache.keys]


@case(
    "rnn.RNNCell.forward",
    "rnn.RNNCell.pre_activation",
    "lstm.GRUCell.forward",
    "lstm.LSTMCell.forward",
    "lstm.LSTMCell.pre_activations",
    "lstm.PeepholeLSTMCell.forward",
    "lstm.PeepholeLSTMCell.pre_activations",
    "lstm.CoupledLSTMCell.forward",
    "lstm.CoupledLSTMCell.pre_activations",
)
def recurrent_cells(device):
    x, h, c = on(device, cpu_randn(2, 3, seed=1), cpu_randn(2, 4, seed=2), cpu_randn(2, 4, seed=3))
    out = [seeded(lambda: rnn.RNNCell(3, 4), device)(x, h), seeded(lambda: lstm.GRUCell(3, 4), device)(x, h)]
    for cell in (lstm.LSTMCell, lstm.PeepholeLSTMCell, lstm.CoupledLSTMCell):
        step = seeded(lambda: cell(3, 4), device)(x, (h, c))  # noqa: B023
        out += [step.h, step.c, step.gates]
    return out


@case(
    "rnn.UnrolledRNN.forward",
    "lstm.UnrolledLSTM.forward",
    "lstm.UnrolledGRU.forward",
    "lstm.UnrolledLSTM.from_torch",
    "lstm.UnrolledGRU.from_torch",
    "lstm.lstm_trace",
)
def unrolled_recurrences(device):
    x, h = on(device, cpu_randn(2, 5, 3, seed=1), cpu_randn(2, 4, seed=2))
    torch_lstm, torch_gru = (
        seeded(lambda: torch.nn.LSTM(3, 4, batch_first=True), device),
        seeded(lambda: torch.nn.GRU(3, 4, batch_first=True), device),
    )
    return [
        seeded(lambda: rnn.UnrolledRNN(3, 4), device)(x, h),
        seeded(lambda: lstm.UnrolledLSTM(3, 4), device)(x, (h, h)),
        seeded(lambda: lstm.UnrolledGRU(3, 4), device)(x),
        lstm.UnrolledLSTM.from_torch(torch_lstm)(x),
        lstm.UnrolledGRU.from_torch(torch_gru)(x, h),
        lstm.lstm_trace(torch_lstm, x, cells=[0, 2]),
    ]


@case(
    "rnn.RecurrentClassifier.forward",
    "experiments.lstm.gradient_reaching_each_step",
    "rnn.RecurrentTagger.forward",
    "rnn.jacobian_norms",
)
def recurrent_models(device):
    tokens = cpu_ids(3, 6, high=10)
    out = []
    for kind in ("rnn", "lstm", "gru"):
        classifier = seeded(lambda: rnn.RecurrentClassifier(10, 4, hidden_size=8, kind=kind), device)  # noqa: B023
        out += [
            classifier(tokens.to(device)),
            lstm_experiment.gradient_reaching_each_step(classifier, tokens, tokens[:, 0] % 4),
        ]
    tagger = seeded(lambda: rnn.RecurrentTagger(vocab_size=10, num_classes=3, num_layers=2, bidirectional=True), device)
    weight_hh = seeded(lambda: torch.nn.RNN(3, 6), device).weight_hh_l0
    return out + [tagger(tokens.to(device)), rnn.jacobian_norms(weight_hh, 5), rnn.jacobian_norms(weight_hh, 5, "relu")]


@case("rnn.RecurrentLM.forward", "rnn.next_token_loss", "rnn.language_model_loss", "rnn.sample", "lstm.final_states")
def recurrent_language_model(device):
    model = seeded(lambda: rnn.RecurrentLM(vocab_size=8, hidden_size=12), device)
    windows = cpu_ids(3, 7, high=8)
    logits, _ = model(windows.to(device))
    vocab = CharVocab.from_text("abcdefgh")
    return [
        logits,
        rnn.next_token_loss(model, windows),
        rnn.language_model_loss(logits, windows.to(device)),
        rnn.sample(model, [1, 2, 3], 10, generator=torch.Generator().manual_seed(0)),
        lstm.final_states(model, vocab, ["abc", "hgf", "ab"]),
    ]


@case("tasks.fit_long_lag", "tasks.long_lag_accuracy")
def recurrent_training(device):
    model = seeded(lambda: rnn.RecurrentClassifier(12, 4, hidden_size=8, kind="lstm"), device)
    history = tasks.fit_long_lag(model, lag=3, steps=3, lr=3e-4, progress=False)
    return [history.loss, tasks.long_lag_accuracy(model, lag=3, samples=50)]


@case("train.train")
def training_loop(device):
    model = seeded(lambda: torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2)), device)
    data = cpu_randn(4, 8, 3), cpu_ids(4, 8, high=2)

    def loss_fn(model, batch):
        x, y = batch
        return F.cross_entropy(model(x), y)

    history = train(model, loss_fn, lambda step: (data[0][step], data[1][step]), steps=4, lr=1e-4, progress=False)
    # the trained model's outputs, not its weights (see the module's docstring)
    return [history.loss, history.grad_norm, model(data[0][0].to(device))]


@case("bptt.rnn_lm_forward", "bptt.rnn_lm_gradients", "bptt.rnn_lm_autograd_gradients", "bptt.check_rnn_lm_inputs")
def backprop_through_time(device):
    if device.type == "mps":
        pytest.skip("float64 throughout (the hand-derived gradients' reference); Apple GPUs have no float64")
    params = {k: v.to(device) for k, v in bptt.init_rnn_lm_params(3, 4, 5, torch.Generator().manual_seed(0)).items()}
    x, targets = on(device, cpu_randn(2, 6, 3).double(), cpu_ids(2, 6, high=5))
    return [
        bptt.rnn_lm_forward(params, x),
        bptt.rnn_lm_gradients(params, x, targets),
        bptt.rnn_lm_autograd_gradients(params, x, targets),
    ]


@case("gradflow.DeepMLP.forward", "gradflow.DeepMLP.hidden_states", "gradflow.time_step_gradient_norms")
def gradient_flow(device):
    mlp = seeded(lambda: gradflow.DeepMLP(4, width=8, activation="tanh", residual=True), device)
    x = cpu_randn(3, 8).to(device)
    sequence = cpu_randn(2, 5, 8).to(device)
    return [mlp(x), mlp.hidden_states(x), gradflow.time_step_gradient_norms(lambda s: mlp(s.sum(1)).sum(), sequence)]


@case(
    "seq2seq.Seq2Seq.forward",
    "seq2seq.Seq2Seq.loss",
    "seq2seq.Seq2Seq.greedy_decode",
    "seq2seq.Seq2Seq.encode",
    "seq2seq.Seq2Seq.decode",
    "seq2seq.Seq2Seq.decode_one",
    "seq2seq.Seq2Seq.decode_steps",
    "seq2seq.Seq2Seq.step",
    "seq2seq.Encoder.forward",
    "seq2seq.beam_search",
    "seq2seq.greedy_search",
)
def seq2seq_model(device):
    batch = {k: v.to(device) for k, v in date_task.encode_batch(DATE_PAIRS).items()}
    out = []
    for score in ("dot", "additive", None):
        model = date_seq2seq(device, score)
        loss = model.loss(batch, sampling_prob=0.5, generator=torch.Generator().manual_seed(0))
        out += [
            model(batch["src"], batch["src_lengths"], batch["tgt_in"]),
            loss,
            model.greedy_decode(batch["src"], batch["src_lengths"], max_len=6),
        ]
    state = model.encode(batch["src"], batch["src_lengths"])
    out += [
        model.encoder(batch["src"], batch["src_lengths"]),
        model.decode(batch["tgt_in"], state)[0],
        model.decode_steps(batch["tgt_in"], state)[0],
        model.decode_one(batch["tgt_in"][:, 0], state)[0],
    ]
    state = model.encode(batch["src"][:1], batch["src_lengths"][:1])
    bos, eos = Seq2SeqVocab.BOS, Seq2SeqVocab.EOS
    found = beam_search(model.step, state, bos, eos, beam_size=3, max_len=6)
    return out + [found.hypotheses, greedy_search(model.step, state, bos, eos, max_len=6)]


@case(
    "decoder.Seq2SeqTransformer.forward",
    "decoder.Seq2SeqTransformer.loss",
    "decoder.Seq2SeqTransformer.greedy_decode",
    "decoder.Seq2SeqTransformer.attention_maps",
    "decoder.Seq2SeqTransformer.encode",
    "decoder.Seq2SeqTransformer.decode",
)
def seq2seq_transformer(device):
    model = date_transformer(device)
    batch = {k: v.to(device) for k, v in date_task.encode_batch(DATE_PAIRS).items()}
    memory, mask = model.encode(batch["src"], batch["src_lengths"])
    return [
        model.decode(batch["tgt_in"], memory, mask),
        model(batch["src"], batch["src_lengths"], batch["tgt_in"]),
        model.loss(batch),
        model.greedy_decode(batch["src"], batch["src_lengths"], max_len=6),
        model.attention_maps(),
    ]


@case(
    "date_task.translate",
    "date_task.attention_weights",
    "date_task.sequence_accuracy",
    "experiments.transformer.accuracy_by_length",
    "recipes.phoneme_model.evaluate",
)
def date_task_helpers(device):
    sources = [s for s, _ in DATE_PAIRS]
    model = date_seq2seq(device)
    sizes = len(phonemes.SPELLING_VOCAB), len(phonemes.PHONEME_VOCAB)
    speller = seeded(lambda: Seq2Seq(*sizes, 8, 16), device)
    return [
        date_task.translate(model, sources),
        date_task.translate(date_transformer(device), sources),
        date_task.attention_weights(model, *DATE_PAIRS[0]),
        date_task.sequence_accuracy(model, DATE_PAIRS),
        transformer_experiment.accuracy_by_length(date_transformer(device), DATE_PAIRS, bins=((0, 40),)),
        phoneme_recipe.evaluate(speller, [("cat", "K AE T"), ("dog", "D AO G")]),  # without stress, as CMUdict's are
    ]


@case("experiments.seq2seq.accuracy")
def reverser_accuracy(device):
    vocab = seq2seq_experiment.REVERSE_VOCAB
    model = seeded(lambda: Seq2Seq(len(vocab), len(vocab), 8, 16), device)
    return seq2seq_experiment.accuracy(model, [("abc", "cba"), ("de", "ed")], vocab)


@case(
    "taggers.Tagger.forward", "taggers.Tagger.attention_weights", "taggers.tagging_loss", "taggers.accuracy_by_position"
)
def tagger(device):
    model = seeded(lambda: taggers.Tagger(taggers.TaggerConfig(vocab_size=5, d_model=8, n_heads=2, max_len=6)), device)
    ids, targets = taggers.previous_token_batch(4, 6, 5, torch.Generator().manual_seed(0))
    mask = attention.padding_mask(torch.tensor([6, 6, 4, 3]), 6)
    return [
        model(ids.to(device), mask.to(device)),
        model.attention_weights(),
        taggers.tagging_loss(model, (ids, targets)),
        taggers.accuracy_by_position(model, ids, targets),
    ]


@case(
    "experiments.transformer.induction_scores",
    "experiments.transformer.prefix_matches",
    "experiments.transformer.first_token_attention",
)
def induction_scores(device):
    sizes = dict(vocab_size=8, length=10, repeat=(2, 4), d_model=16, n_heads=2)
    model = seeded(lambda: transformer_experiment.induction_model(sizes), device)
    batch = transformer_experiment.repeat_batch(6, torch.Generator().manual_seed(0), sizes)
    return [
        transformer_experiment.induction_scores(model, batch),
        transformer_experiment.prefix_matches(batch.ids.to(device)),
        transformer_experiment.first_token_attention(model, batch),  # the batch on the CPU, as notebook 11 holds it
    ]


@case(
    "bert.Bert.forward",
    "bert.Bert.embed",
    "bert.Bert.mlm_logits",
    "bert.Bert.nsp_logits",
    "bert.mask_tokens",
    "objectives.replaced_token_detection",
)
def bert_model(device):
    model = tiny_bert(device)
    ids = torch.tensor([[VOCAB["[CLS]"], *VOCAB.encode("the man went to the store ."), VOCAB["[SEP]"]]] * 2)
    masked = mask_tokens(
        ids.to(device),
        mask_id=VOCAB["[MASK]"],
        special_ids=VOCAB.special_ids,
        vocab_size=len(VOCAB),
        generator=torch.Generator().manual_seed(0),
        mask_prob=0.5,
        word_start=torch.tensor([[True, True, False, True, True, True, True, True, True]] * 2),  # on the CPU
    )
    hidden = model(masked.input_ids, valid=torch.ones_like(ids, dtype=torch.bool).to(device))
    return [
        model.embed(ids.to(device)),
        masked.input_ids,
        masked.labels,
        hidden,
        model.mlm_logits(hidden, masked.chosen),
        model.nsp_logits(hidden),
        replaced_token_detection(ids[0].tolist(), model, VOCAB, torch.Generator().manual_seed(0), mask_prob=0.5),
    ]


@case("bert.pretraining_loss", "bert_pretrain.evaluate", "bert_pretrain.pretrain")
def bert_pretraining(device):
    model, data = tiny_bert(device), bert_data()
    batch = {
        k: v.to(device)
        for k, v in data.batch(data.pairs(4, random.Random(0), max_len=24), torch.Generator().manual_seed(0)).items()
    }
    loss, stats = pretraining_loss(model, batch)
    scores = evaluate(model, data, n_pairs=8, batch_size=4)
    history = pretrain(model, data, steps=3, batch_size=4, warmup=1, lr=1e-4, progress=False)
    return [loss, stats, scores, history.loss, evaluate(model, data, n_pairs=8)]


@case(
    "finetune.SentenceClassifier.forward",
    "finetune.SentenceClassifier.features",
    "finetune.TokenTagger.forward",
    "finetune.linear_probe",
    "finetune.fine_tune",
    "finetune.predict",
    "finetune.accuracy",
    "finetune.compare_methods",
    "finetune.compare_taggers",
    "finetune.fresh_copy",
)
def bert_fine_tuning(device):
    texts = ["i am good .", "you are good .", "he said it was bad .", "it was bad , he said ."] * 2
    ids, valid = finetune.encode_batch(VOCAB, texts, max_len=12)
    labels = torch.tensor([1, 1, 0, 0] * 2)
    classifier = seeded(lambda: finetune.SentenceClassifier(tiny_bert("cpu"), dropout=0.0), device)
    out = [
        classifier(ids.to(device), valid.to(device)),
        finetune.linear_probe(classifier, (ids, valid, labels), (ids, valid, labels)),
        finetune.fine_tune(classifier, ids, valid, labels, steps=3, lr=1e-4, batch_size=4),
        finetune.predict(classifier, ids, valid),
        finetune.accuracy(finetune.predict(classifier, ids.to(device), valid.to(device)), labels),
    ]
    sentences = [(t.split(), [int(w in ("good", "bad")) for w in t.split()]) for t in texts]
    tag_ids, tag_valid, tags = finetune.encode_tagged(VOCAB, sentences, max_len=12)
    tagger = seeded(lambda: finetune.TokenTagger(tiny_bert("cpu"), dropout=0.0), device)
    out += [
        tagger(tag_ids.to(device), tag_valid.to(device)),
        finetune.fine_tune(tagger, tag_ids, tag_valid, tags, steps=3, lr=1e-4, batch_size=4),
        finetune.predict(tagger, tag_ids, tag_valid),
    ]
    examples = [finetune_example(t, label) for t, label in zip(texts, labels.tolist())]
    methods = finetune.compare_methods(tiny_bert(device), VOCAB, examples, examples, seed=0, steps=2)
    per_tag = finetune.compare_taggers(tiny_bert(device), VOCAB, sentences, sentences, seed=0, steps=2)
    # fine-tuning inside them draws the heads' dropout masks on the device: compared, the methods without dropout
    return out + [sorted(methods), methods["probe"], methods["bag_of_words"], sorted(per_tag), per_tag["probe"]]


@dataclass
class finetune_example:  # noqa: N801 (what compare_methods reads: .text and .label)
    text: str
    label: int


@case(
    "seq2seq.Seq2Seq.load",
    "gpt.load_gpt",
    "bert.load_pretrained",
    "lstm.load_char_model",
    "experiments.char_lstm.elmo_vectors",
)
def shipped_models(device):
    """The checkpoints in data/ loaded straight onto the device, as notebooks 05, 06, 10 and 13 load them."""
    dates = Seq2Seq.load(data_path("seq2seq_dates_dot.pt"), device)
    gpt, chars, _ = load_gpt(device=device)
    bert, tokenizer = load_pretrained(device=device)
    ids = torch.tensor([[tokenizer["[CLS]"], *tokenizer.encode("the man went to the store ."), tokenizer["[SEP]"]]])
    forward, vocab = lstm.load_char_model(data_path("char_lstm_sherlock.pt"), map_location=device)
    backward, _ = lstm.load_char_model(data_path("char_lstm_sherlock_backward.pt"), reverse=True, map_location=device)
    text = "Holmes took his pipe from his lips."
    return [
        date_task.translate(dates, [s for s, _ in DATE_PAIRS]),
        sampling.generate(gpt, torch.tensor([chars.encode("ROMEO:")]), 20, generator=torch.Generator().manual_seed(0)),
        bert(ids.to(device))[:, 0],
        replaced_token_detection(ids[0].tolist(), bert, tokenizer, torch.Generator().manual_seed(0)),
        char_lstm_experiment.elmo_vectors(forward, backward, vocab, text, [(0, 6), (12, 16)]),
    ]


@case("sweep.heldout_loss", "sweep.continuation_metrics")
def sweep_metrics(device):
    model = lm(device, vocab_size=6, max_len=10)
    windows = cpu_ids(5, 11, high=6)
    return [
        heldout_loss(model, windows, batch_size=2),
        continuation_metrics(model, windows, "ab cd\n", start=2, max_k=3),
        continuation_metrics(model, windows.to(device), "ab cd\n", start=2, max_k=3),  # windows where the model is
    ]


@case("recipes.scaling_run.train_run")
def scaling_training_run(device):
    """One run of the scaling sweep's recipe (``--device`` picks where it trains), in a folder removed after."""
    run, settings = Run("1x8", "cosine", 6, 1e-3, 0), SweepSpec(**TINY).settings()
    with tempfile.TemporaryDirectory() as folder:
        record = train_run(run, SHAKESPEARE, settings, Path(folder), device)
    return {k: v for k, v in record.items() if not k.endswith("seconds")}  # all but the timings


@case("scaling.measure_forward_flops")
def forward_flops(device):
    return measure_forward_flops(lm(device), 8, batch_size=2)


@case("alibi.ALiBiAttention.forward")
def alibi_attention(device):
    x = cpu_randn(2, 5, 8).to(device)
    mask = attention.padding_mask(torch.tensor([5, 3]).to(device), 5)
    model = seeded(lambda: ALiBiAttention(8, 2), device)
    return [model(x), model.last_weights, model(x, causal=True), model(x, mask=mask)]


@case("bptt.truncated_bptt_loss")
def truncated_backprop(device):
    model = seeded(lambda: rnn.RecurrentLM(6, hidden_size=5, kind="rnn", embedding_dim=3), device)
    ids = cpu_ids(2, 9, high=6)  # on the CPU, as notebook 03 holds them (and passes them to next_token_loss)
    loss = bptt.truncated_bptt_loss(model, ids, k=3)
    loss.backward()
    return [loss, [p.grad for p in model.parameters()]]


@case("nnlm.NNLM.forward", "nnlm.NNLM.weights")
def neural_probabilistic_lm(device):
    contexts = cpu_ids(4, 3, high=7).to(device)
    out = []
    for combine in ("concat", "mean"):
        model = seeded(lambda: NNLM(NNLMConfig(7, context=3, embed_dim=2, hidden=5, combine=combine)), device)  # noqa: B023
        out += [model(contexts), list(model.weights())]
    return out


@case("skipgram.SkipGram.forward")
def skipgram_loss(device):
    """Chapter 02's skip-gram loss of a batch of (centre, context, negatives) ids on the device."""
    from dl4nlp.skipgram import SkipGram, SkipGramConfig

    model = seeded(lambda: SkipGram(SkipGramConfig(vocab_size=7, dim=4, negatives=3)), device)
    with torch.no_grad():  # the output vectors start at zero; give them values so the loss depends on both tables
        model.output.weight.copy_(cpu_randn(7, 4, seed=5).to(device))
    ids = cpu_ids(5, 5, high=7).to(device)
    return model(ids[:, 0], ids[:, 1], ids[:, 2:])


@case("experiments.lstm.library_gru_step", "experiments.lstm.library_lstm_step")
def library_recurrent_steps(device):
    """Chapter 04's fallbacks for the student's steps, given a PyTorch cell's parameters and inputs on the device."""
    x, h, c = on(device, cpu_randn(3, 2, seed=1), cpu_randn(3, 4, seed=2), cpu_randn(3, 4, seed=3))
    gru = seeded(lambda: torch.nn.GRUCell(2, 4), device)
    lstm_cell = seeded(lambda: torch.nn.LSTMCell(2, 4), device)
    with torch.no_grad():
        return [
            *(lstm_experiment.library_gru_step(x, h, *gru.parameters(), reset_after=r) for r in (True, False)),
            lstm_experiment.library_lstm_step(x, h, c, *lstm_cell.parameters()),
        ]


@case(
    "experiments.transformer.CausalAttention.forward",
    "experiments.transformer.CausalAttention.from_torch",
    "experiments.transformer.ScratchGPT.forward",
    "experiments.transformer.ScratchGPT.loss",
    "experiments.transformer.train_live_gpt",
)
def scratch_gpt(device):
    x = cpu_randn(2, 4, 8).to(device)
    causal = seeded(lambda: transformer_experiment.CausalAttention(8, 2), device)
    mha = seeded(lambda: torch.nn.MultiheadAttention(8, 2, batch_first=True), device)
    vocab = len(SHAKESPEARE.chars)
    model = seeded(lambda: transformer_experiment.ScratchGPT(vocab, d=16, heads=2, layers=1, context=8), device)
    ids = cpu_ids(2, 8, high=vocab).to(device)
    out = [causal(x), transformer_experiment.CausalAttention.from_torch(mha)(x), model(ids), model.loss(ids, ids)]
    sizes = dict(d=16, heads=2, layers=1, context=8, batch_size=4, steps=3, lr=1e-4)
    run = transformer_experiment.train_live_gpt(model, 0, SHAKESPEARE, eval_windows=4, sizes=sizes)
    return out + [run, model(ids)]  # the trained model by its outputs (see the module docstring)


def tiny_translator(device) -> Seq2Seq:
    vocabs = translation.vocabularies()
    return seeded(lambda: Seq2Seq(len(vocabs.source), len(vocabs.target), 8, 16, score="general"), device)


@case(
    "translation.greedy_translations",
    "translation.alignment",
    "recipes.translation.beam_translate",
    "recipes.translation.sequence_log_prob",
    "recipes.translation.judge",
    "recipes.translation.evaluate",
    "translation.reference_alignments",
    "translation.attention_agreement",
    "translation.crossing_alignments",
)
def english_to_french(device):
    """Chapter 07's helpers take the model and English text (strings), as the notebook holds them."""
    model, english = tiny_translator(device), list(translation.references("test"))[:2]
    return [
        translation.greedy_translations(model, english, max_len=5),
        translation.alignment(model, english[0]),
        translation_recipe.beam_translate(model, english[0], beam_size=2, max_len=5),
        translation_recipe.sequence_log_prob(model, english[0], "je suis là ."),
        translation_recipe.judge(model, english[0], beam_size=2),
        translation_recipe.evaluate(model, english[:1]),
        translation.reference_alignments(model, english),
        translation.attention_agreement(model, english),
        [(c.english, c.first, c.second) for c in translation.crossing_alignments(model, english)],
    ]


@case(
    "textcnn.TextCNN.forward",
    "textcnn.TextCNN.features",
    "textcnn.TextCNN.activations",
    "experiments.before_recurrence.top_ngrams",
)
def text_convolutions(device):
    """Chapter 02's TextCNN on ids on the device; ``top_ngrams`` takes EWT sentences, as the notebook holds them."""
    from dl4nlp.ewt import GENRES
    from dl4nlp.experiments.before_recurrence import genre_data, top_ngrams
    from dl4nlp.textcnn import TextCNN, TextCNNConfig

    data = genre_data()
    config = TextCNNConfig(len(data.words), len(GENRES), embed_dim=4, widths=(2, 3), filters=3, dropout=0.0)
    model = seeded(lambda: TextCNN(config), device)
    ids = data.test_ids[:4, :9].to(device)
    return [
        model(ids),
        model.features(ids),
        model.activations(ids),
        top_ngrams(model, data.test[:6], width_index=1, filter_index=2, top=3),
    ]


@case("experiments.before_recurrence.BagOfWords.forward", "experiments.before_recurrence.WindowMLP.forward")
def before_recurrence_modules(device):
    from dl4nlp.experiments.before_recurrence import BagOfWords, WindowMLP

    bag = seeded(lambda: BagOfWords(7, 3), device)
    with torch.no_grad():  # the weights start at zero; give them values so the logits depend on the words
        bag.weights.weight.copy_(cpu_randn(7, 3, seed=5).to(device))
    ids, x = on(device, cpu_ids(3, 5, high=7), cpu_randn(2, 6, 4))
    return [bag(ids), seeded(lambda: WindowMLP(4, 3), device)(x)]


@case(
    "vit.ViT.forward",
    "vit.ViT.cls_attention",
    "vit.cls_attention",
    "vit.MLPClassifier.forward",
    "vit.CNNClassifier.forward",
    "vit.accuracy",
    "vit.train_classifier",
)
def vision_transformer(device):
    """Chapter 11's digit classifiers; ``accuracy`` and ``train_classifier`` take images already on the device."""
    from dl4nlp import vit

    images, labels = on(device, cpu_randn(6, 4, 4).sigmoid(), cpu_ids(6, high=3))
    model = seeded(
        lambda: vit.ViT(image_size=4, patch=2, d_model=8, n_heads=2, n_layers=2, d_ff=16, n_classes=3), device
    )
    out = [model(images), model.cls_attention(), vit.cls_attention(model.encoder)]
    baselines = (
        seeded(lambda: vit.MLPClassifier(image_size=4, hidden=8, n_classes=3), device),
        seeded(lambda: vit.CNNClassifier(image_size=4, channels=2, hidden=4, n_classes=3), device),
    )
    for classifier in (model, *baselines):
        losses = vit.train_classifier(classifier, images, labels, steps=3, batch_size=4, lr=1e-4)
        out += [classifier(images), losses, vit.accuracy(classifier, images, labels)]  # trained: by its outputs
    return out


@case("bptt.train_truncated_bptt")
def truncated_backprop_training(device):
    model = seeded(lambda: rnn.RecurrentLM(6, hidden_size=5, kind="lstm", embedding_dim=3), device)
    streams = cpu_ids(2, 10, high=6)  # on the CPU, as notebook 03 holds them: the loop moves them to the model
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = bptt.train_truncated_bptt(model, streams, 4, optimiser, clip_norm=0.5)
    return [losses, model(streams.to(device))[0]]


@case("experiments.lstm.lm_loss")
def character_lm_loss(device):
    model = seeded(lambda: rnn.RecurrentLM(7, hidden_size=5, kind="gru", embedding_dim=3), device)
    ids = cpu_ids(2 * lstm_experiment.LM_WINDOW + 3, high=7)  # on the CPU, as chapter 04's text split holds them
    return lstm_experiment.lm_loss(model, ids)


@case("recursive.RecursiveCell.forward", "recursive.compose")
def recursive_network(device):
    """Chapter 05's recursive cell, one node at a time and composed along a dependency tree, on the device."""
    from dl4nlp.dependency_trees import read_conllu
    from dl4nlp.recursive import RecursiveCell, compose

    cell = seeded(lambda: RecursiveCell(embedding_dim=4, hidden_size=3, seed=0), device)
    e, h1, h2 = on(device, cpu_randn(4, seed=1), cpu_randn(3, seed=2), cpu_randn(3, seed=3))
    sentence = read_conllu("en_ewt-ud-dev.conllu")[0]
    embeddings = cpu_randn(len(sentence.tokens), 4, seed=4).to(device)
    return [cell(e, []), cell(e, [h1, h2]), compose(sentence, embeddings, cell)]


# --- comparing -----------------------------------------------------------------------------------------
def assert_agree(got: Any, expected: Any, where: str = "result") -> None:
    """``got`` (from another device) equals ``expected`` (from the CPU): exactly, or within RTOL/ATOL for floats."""
    if isinstance(expected, torch.Tensor):
        assert isinstance(got, torch.Tensor), f"{where}: a tensor on the CPU, {type(got).__name__} here"
        got = got.detach().cpu()
        expected = expected.detach()
        assert got.shape == expected.shape and got.dtype == expected.dtype, (
            f"{where}: {tuple(expected.shape)} {expected.dtype} on the CPU, {tuple(got.shape)} {got.dtype} here"
        )
        if expected.is_floating_point():
            torch.testing.assert_close(got, expected, rtol=RTOL, atol=ATOL, equal_nan=True, msg=where)
        else:
            assert torch.equal(got, expected), f"{where}: differs from the CPU's\n{got}\n{expected}"
    elif isinstance(expected, np.ndarray):
        assert_agree(torch.as_tensor(np.asarray(got)), torch.as_tensor(expected), where)
    elif isinstance(expected, dict):
        assert isinstance(got, dict) and got.keys() == expected.keys(), f"{where}: keys differ"
        for key in expected:
            assert_agree(got[key], expected[key], f"{where}[{key!r}]")
    elif isinstance(expected, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(expected), f"{where}: lengths differ"
        for index, (a, b) in enumerate(zip(got, expected)):
            assert_agree(a, b, f"{where}[{index}]")
    elif isinstance(expected, float):
        assert math.isclose(got, expected, rel_tol=RTOL, abs_tol=ATOL) or (math.isnan(got) and math.isnan(expected)), (
            f"{where}: {got} here, {expected} on the CPU"
        )
    elif hasattr(expected, "__dict__"):  # a dataclass or record (History, Hypothesis, TrainingExample, ...)
        assert type(got) is type(expected), f"{where}: {type(expected).__name__} on the CPU, {type(got).__name__} here"
        assert_agree(vars(got), vars(expected), where)
    else:
        assert got == expected, f"{where}: {got!r} here, {expected!r} on the CPU"


@pytest.fixture(autouse=True)
def _float32_without_tf32():
    """Full float32 products on a GPU (cuDNN's recurrences use TF32 by default, 1e-3 off)."""
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


ON_THE_CPU: dict[str, Any] = {}


@case("icl.icl_loss", "icl.accuracy_by_examples", "icl.attention_on_examples", "icl.icl_table")
def in_context_learner(device):
    from dl4nlp import icl

    sizes = dict(d_model=8, n_heads=2)
    model = seeded(lambda: icl.icl_model(sizes), device)
    batch = icl.query_batch(6, 2, torch.Generator().manual_seed(0))  # on the CPU, as the notebook holds it
    return [
        icl.icl_loss(model, batch),
        icl.accuracy_by_examples(model, torch.Generator().manual_seed(1), n=16, counts=[0, 2], sizes=sizes),
        icl.attention_on_examples(model, batch, sizes),
        icl.icl_table(model, 0, n=8, sizes=sizes)["accuracy"],
    ]


@case(
    "pair_tasks.PairClassifier.forward",
    "pair_tasks.PairClassifier.loss",
    "pair_tasks.PairClassifier.decode",
    "pair_tasks.SpanSelector.forward",
    "pair_tasks.SpanSelector.loss",
    "pair_tasks.SpanSelector.decode",
    "pair_tasks.pair_accuracy",
    "pair_tasks.train_pairs",
    "pair_tasks.reader_scores",
)
def pair_and_span_heads(device):
    from dl4nlp import pair_tasks

    ids = cpu_ids(4, 10, high=len(VOCAB), seed=3)  # on the CPU, as encode_pairs returns them
    ids[:, 0], ids[:, 4] = VOCAB["[CLS]"], VOCAB["[MASK]"]
    segments = (torch.arange(10) >= 6).long().expand(4, 10).clone()
    rows = {"ids": ids, "segments": segments, "valid": torch.ones(4, 10, dtype=torch.bool), "context": segments == 1}
    pairs = {**rows, "targets": torch.tensor([0, 1, 1, 0])}
    spans = {**rows, "targets": torch.tensor([[6, 7], [7, 7], [8, 9], [6, 6]])}
    out = []
    for head, batch in ((pair_tasks.PairClassifier, pairs), (pair_tasks.SpanSelector, spans)):
        torch.manual_seed(0)
        model = head(tiny_bert(device), dropout=0.0).to(device)
        on_device = {k: v.to(device) for k, v in batch.items()}
        scores = model(on_device)
        out += [scores, model.loss(scores, on_device["targets"]), model.decode(scores)]
        out += [pair_tasks.pair_accuracy(model, batch), pair_tasks.train_pairs(model, batch, steps=2, lr=1e-2)]
    out.append(pair_tasks.reader_scores(tiny_bert(device), spans, VOCAB["[MASK]"]))
    return out


@case("experiments.start_here.train")
def primer_training_loop(device):
    from dl4nlp.experiments import start_here

    model = seeded(lambda: torch.nn.Linear(2, 1), device)
    x = cpu_randn(16, 2)  # on the CPU: the loop moves it to the model
    return start_here.train(model, torch.nn.functional.mse_loss, x, x.sum(1, keepdim=True), steps=5, lr=0.1)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_device_gives_the_cpus_result(name, device, one_thread):
    """On the CPU the case runs (the reference); on any other device it must give the same result."""
    if name not in ON_THE_CPU:
        ON_THE_CPU[name] = CASES[name](torch.device("cpu"))
    if device != "cpu":
        assert_agree(CASES[name](torch.device(device)), ON_THE_CPU[name], name)


# --- which entry points must have a case ----------------------------------------------------------------
MODEL_ARGUMENTS = {"model", "generator_model", "pretrained", "module", "forward", "backward", "attention",
                   "encoder", "reference", "weight_hh", "params"}  # fmt: skip


def runs_a_model() -> set[str]:
    """Public functions taking a model (an argument named as in MODEL_ARGUMENTS); methods of the library's modules."""
    found = set()
    for name in public_api():
        parts = name.split(".")
        owner, target = None, importlib.import_module(".".join(parts[:2]))
        for part in parts[2:]:
            owner, target = target, getattr(target, part)
        if inspect.isclass(target) or parts[-1] == "extra_repr":
            continue
        method = inspect.isclass(owner) and issubclass(owner, torch.nn.Module)
        if method or MODEL_ARGUMENTS & set(inspect.signature(target).parameters):
            found.add(name.removeprefix("dl4nlp."))
    return found


NO_DEVICE_CASE = {  # entry points that take a model but compute nothing on its device, and why
    **dict.fromkeys(
        (
            "bert.parameter_breakdown",
            "transformer.count_parameters",
            "recipes.gpt_shakespeare.optimizer_for",
        ),
        "counts or groups the parameters; reads no values",
    ),
    **dict.fromkeys(
        (
            "diagrams.bert_diagram",
            "diagrams.elmo_diagram",
            "diagrams.mlp_diagram",
            "diagrams.unrolled_rnn",
            "diagrams.multi_head_attention_diagram",
            "diagrams.seq2seq_diagram",
            "diagrams.textcnn_diagram",
        ),
        "draws the model's structure from its config and modules; no tensors",
    ),
    **dict.fromkeys(
        ("bert.checkpoint_state", "gpt.weights_to_store", "seq2seq.Seq2Seq.save"),
        "copies the weights out for a checkpoint (loading onto a device: the shipped_models case)",
    ),
    **dict.fromkeys(
        ("rnn.RecurrentLM.from_config", "seq2seq.Seq2Seq.from_config"),
        "builds a new model from a config, on the CPU like any module",
    ),
    "experiments.transformer.reset_to_pytorch_init": "calls each submodule's own reset_parameters(), in place",
    **dict.fromkeys(("scalar_nn.to_torch", "scalar_nn.train_mlp"), "the scalar engine is plain Python"),
    "experiments.backprop.gradient_step": "chapter 01's step on the scalar engine, which is plain Python",
    "experiments.backprop.expression_report": "chapter 01's report lines on the scalar engine: plain Python floats",
    "experiments.before_recurrence.train_nnlm": "builds and trains its own NNLM on the CPU (no model or device "
    "argument: `forward` is the student's logits function); NNLM itself has a case",
    "experiments.transformer.param_groups": "groups the parameters for AdamW by their number of dimensions; "
    "reads no values",
    "experiments.transformer.scratch_state_dict": "renames the weights of a state dict (a copy, no computation)",
    "alibi.ALiBiAttention.from_torch": "always raises TypeError (no PyTorch module adds linear biases): no tensors",
    "experiments.transformer.generation_step_seconds": "a wall-clock timing of one generation step, not a result",
    "experiments.transformer.sampling_explorer": "a widget's controls around sampling.generate (which has a case)",
    "experiments.transformer.cls_attention_figure": "draws the [CLS] weights it is given (its `attention` is a "
    "tensor, not a module) with matplotlib; runs no model (vit.cls_attention, which computes them, has a case)",
    "experiments.lstm.sweep_accuracies": "reads accuracies out of the shipped sweep's table; its `model` is a name",
}


def test_every_entry_point_that_runs_a_model_has_a_case():
    """A public function added tomorrow that takes a model needs a case above (or a reason in NO_DEVICE_CASE)."""
    covered = {name for names in COVERS.values() for name in names}
    missing = sorted(runs_a_model() - covered - set(NO_DEVICE_CASE))
    assert not missing, f"{len(missing)} entry points that run a model have no device case: {missing}"
    api = {name.removeprefix("dl4nlp.") for name in public_api()}
    stale = sorted((covered | set(NO_DEVICE_CASE)) - api)
    assert not stale, f"cases or reasons name entry points that are not public API (renamed or removed?): {stale}"
    both = sorted(covered & set(NO_DEVICE_CASE))
    assert not both, f"with a case and a reason for having none (drop the reason): {both}"
