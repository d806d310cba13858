"""Encoder-decoder (sequence-to-sequence) models, with or without attention, and decoding.

The encoder reads the source with a bidirectional GRU into states h_1..h_N
and a summary c (its two final states, mixed). The decoder is a GRU language
model over the target that starts from s_0 = c; its output layer reads
[a_t; s_t]. Without attention (``score=None``) a_t = c at every step (as in
Cho et al., 2014): one fixed vector is all the decoder ever learns about the
source, the *bottleneck*. With attention, a query scores every h_i
(``dl4nlp.attention``: dot, general or additive), alpha(t) = softmax(e(t)) and
a_t = Σ_i alpha_i(t) h_i, a fresh summary for every output step. Two decoders
(``Seq2SeqConfig.decoder``):

- ``'luong'`` (Luong et al., 2015): s_t = GRU(s_{t-1}, y_{t-1}) first, then the
  query is s_t; optionally with *input feeding* (their section 3.3): the
  attentional vector h~_{t-1} = tanh(W_c [a_{t-1}; s_{t-1}]) joins the next input.
- ``'bahdanau'`` (Bahdanau et al., 2015): the query is s_{t-1}, and a_t joins the
  GRU's input, s_t = GRU(s_{t-1}, [y_{t-1}; a_t]).

The Luong decoder without input feeding can run the GRU over the whole target
at once under teacher forcing (the fast path); every decoder also runs one step
at a time (the readable path), and the two are tested equal. ``loss`` trains
with teacher forcing or, with ``sampling_prob > 0``, with scheduled sampling
(Bengio et al., 2015). Greedy and beam search work on any ``step`` function, so
they decode this model and a toy probability table alike. Taught in notebooks 06 and 07.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Optional, Sequence

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from dl4nlp._checks import (
    check_callable,
    check_device,
    check_ids,
    check_int,
    check_tensor,
    check_type,
    given,
    measures_in_eval_mode,
)
from dl4nlp.attention import SCORES, attend, make_score
from dl4nlp.checkpoint import PathLike, load_checkpoint, save_checkpoint

State = tuple  # tensors whose first dimension runs over hypotheses
StepFn = Callable[[torch.Tensor, State], tuple[torch.Tensor, State]]
CHECKPOINT_KIND = "seq2seq"
DECODERS = ("luong", "bahdanau")


@dataclass(frozen=True)
class Seq2SeqConfig:
    """Sizes and variant of a ``Seq2Seq``; ``score=None`` means no attention (the bottleneck)."""

    source_vocab_size: int
    target_vocab_size: int
    d_embed: int = 32
    d_hidden: int = 64
    score: Optional[str] = "dot"
    decoder: str = "luong"
    input_feeding: bool = False
    lexical: bool = False
    unattended: tuple[int, ...] = ()  # source ids the attention never weighs (see Seq2Seq.encode)

    def __post_init__(self) -> None:
        for name in ("source_vocab_size", "target_vocab_size", "d_embed", "d_hidden"):
            check_int(name, getattr(self, name))
        if not isinstance(self.unattended, (tuple, list)):
            raise TypeError(f"unattended must be a tuple of source token ids; got {given(self.unattended)}")
        for token in self.unattended:  # a list comes back from a checkpoint's JSON config
            check_int("unattended id", token, low=0, high=self.source_vocab_size - 1)
        object.__setattr__(self, "unattended", tuple(self.unattended))
        if self.unattended and self.score is None:
            raise ValueError(f"unattended needs attention (a score); got score=None, unattended={self.unattended}")
        if self.score is not None and (not isinstance(self.score, str) or self.score not in SCORES):
            raise ValueError(f"score must be one of {tuple(SCORES)} or None (no attention); got {self.score!r}")
        if self.decoder not in DECODERS:
            raise ValueError(f"decoder must be one of {DECODERS}; got {self.decoder!r}")
        for name in ("input_feeding", "lexical"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be a bool; got {getattr(self, name)!r}")
        if self.score is None and (self.decoder != "luong" or self.input_feeding):
            raise ValueError(
                "without attention (score=None) the decoder must be 'luong' without input feeding; "
                f"got decoder={self.decoder!r}, input_feeding={self.input_feeding}"
            )
        if self.decoder == "bahdanau" and self.input_feeding:
            raise ValueError("input feeding is part of Luong's decoder; the Bahdanau decoder feeds a_t already")

    @property
    def decoder_input_size(self) -> int:
        """The GRU's input: the embedding, plus a_t (Bahdanau) or h~_{t-1} (input feeding)."""
        extra = self.decoder == "bahdanau" or self.input_feeding
        return self.d_embed + (self.d_hidden if extra else 0)


def _check_batch(batch: Any, target_vocab_size: int) -> None:
    """A training batch of ``date_task.encode_batch``: its four tensors, ``tgt_out`` ids shaped like ``tgt_in``."""
    check_type("batch", batch, dict, "a dict of tensors from encode_batch (src, src_lengths, tgt_in, tgt_out)")
    missing = [k for k in ("src", "src_lengths", "tgt_in", "tgt_out") if k not in batch]
    if missing:
        raise ValueError(f"batch must hold src, src_lengths, tgt_in and tgt_out; missing {missing}")
    shape = tuple(getattr(batch["tgt_in"], "shape", ("B", "T")))
    check_ids("batch['tgt_out']", batch["tgt_out"], target_vocab_size, shape=shape)


def _check_source(src: torch.Tensor, lengths: torch.Tensor, vocab_size: int, lengths_name: str) -> None:
    """src (B, S) ids of the source vocabulary; lengths (B,) integers in [1, S]."""
    check_ids("src", src, vocab_size, shape=("B", "S"))
    B, S = src.shape
    check_tensor(lengths_name, lengths, shape=(B,), dtype="integer", expected=f"(B={B},)")
    if (lengths < 1).any() or (lengths > S).any():
        raise ValueError(f"{lengths_name} must each be in [1, S={S}]; got {lengths.tolist()}")


class Encoder(nn.Module):
    """ids (B, S) and lengths (B,) -> states (B, S, H) and a summary (B, H) for the decoder's start.

    With ``lexical=True`` the states the decoder attends to are the words
    themselves, h_i = W_x x_i (x_i the embedding of word i, W_x a learned (H, E)
    map), and the bidirectional GRU only makes the summary that starts the
    decoder. With ``Seq2SeqConfig.unattended`` keeping the attention off
    punctuation and <eos>, it removes a shortcut of the small English -> French
    translator (``dl4nlp.recipes.translation``), whose attention otherwise rests
    on the final full stop, the state whose forward half has read the whole
    sentence: the shipped ``seq2seq_eng_fra_aligned_seed*.pt`` models align
    words (chapter 06, section 8). Neither option alone did (see that recipe).
    """

    def __init__(self, vocab_size: int, d_embed: int, d_hidden: int, lexical: bool = False):
        super().__init__()
        for name, value in [("vocab_size", vocab_size), ("d_embed", d_embed), ("d_hidden", d_hidden)]:
            check_int(name, value)
        self.embedding = nn.Embedding(vocab_size, d_embed, padding_idx=0)
        self.rnn = nn.GRU(d_embed, d_hidden, batch_first=True, bidirectional=True)
        # both directions -> h_i in R^H (created first: the shipped models' weights come in this order)
        self.project = None if lexical else nn.Linear(2 * d_hidden, d_hidden)
        self.bridge = nn.Linear(2 * d_hidden, d_hidden)  # last forward + last backward state -> s_0
        self.lexical = nn.Linear(d_embed, d_hidden, bias=False) if lexical else None  # h_i = W_x x_i

    def forward(self, src: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        _check_source(src, lengths, self.embedding.num_embeddings, "lengths")
        packed = pack_padded_sequence(self.embedding(src), lengths.cpu(), batch_first=True, enforce_sorted=False)
        out, last = self.rnn(packed)  # last: (2, B, H), the final state of each direction
        out, _ = pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])  # (B, S, 2H)
        summary = torch.tanh(self.bridge(torch.cat([last[0], last[1]], dim=-1)))  # (B, H)
        if self.lexical is not None:  # the words themselves; padded positions are masked downstream
            return self.lexical(self.embedding(src)), summary
        return self.project(out), summary


class Seq2Seq(nn.Module):
    """Encoder-decoder; ``score`` is 'dot', 'general', 'additive' or None (no attention: the bottleneck).

    Build it from sizes (``Seq2Seq(src_vocab, tgt_vocab, d_hidden=64, score='dot')``)
    or from a config (``Seq2Seq.from_config(config)``); ``model.config`` holds the
    ``Seq2SeqConfig``.
    """

    def __init__(
        self,
        source_vocab_size: int,
        target_vocab_size: int,
        d_embed: int = 32,
        d_hidden: int = 64,
        score: Optional[str] = "dot",
        decoder: str = "luong",
        input_feeding: bool = False,
        lexical: bool = False,
        unattended: Sequence[int] = (),
    ):
        super().__init__()
        config = Seq2SeqConfig(
            source_vocab_size, target_vocab_size, d_embed, d_hidden, score, decoder, input_feeding, lexical, unattended
        )
        self.config = config
        self.score_kind = score
        self.encoder = Encoder(source_vocab_size, d_embed, d_hidden, lexical)
        self.embedding = nn.Embedding(target_vocab_size, d_embed, padding_idx=0)
        self.rnn = nn.GRU(config.decoder_input_size, d_hidden, batch_first=True)
        self.score = None if score is None else make_score(score, d_hidden, d_hidden)
        self.combine = nn.Linear(2 * d_hidden, d_hidden)  # [a_t; s_t] -> h~_t
        self.output = nn.Linear(d_hidden, target_vocab_size)

    @classmethod
    def from_config(cls, config: Seq2SeqConfig) -> Seq2Seq:
        if not isinstance(config, Seq2SeqConfig):
            raise TypeError(f"config must be a Seq2SeqConfig; got {type(config).__name__}")
        return cls(**asdict(config))

    @property
    def stepwise(self) -> bool:
        """True when the decoder must run one step at a time (its input depends on the last step's attention)."""
        return self.config.decoder == "bahdanau" or self.config.input_feeding

    def encode(self, src: torch.Tensor, src_lengths: torch.Tensor) -> State:
        """The decoder's starting state.

        Returns (s_0 (B, H), encoder states (B, S, H), source mask (B, S), summary c (B, H),
        h~_0 = 0 (B, H), the attentional vector that input feeding passes on).

        The mask leaves out padding and, when ``config.unattended`` names token ids
        (the translator's punctuation and <eos>), those positions too, unless a
        sentence has nothing else: their states still feed the summary c, but no
        attention weight lands on them.
        """
        _check_source(src, src_lengths, self.config.source_vocab_size, "src_lengths")
        states, summary = self.encoder(src, src_lengths)
        mask = torch.arange(src.shape[1], device=src.device)[None, :] < src_lengths[:, None].to(src.device)
        if self.config.unattended:
            unattended = torch.tensor(self.config.unattended, device=src.device)
            words = mask & ~torch.isin(src, unattended)
            mask = torch.where(words.any(1, keepdim=True), words, mask)
        return summary, states, mask, summary, torch.zeros_like(summary)

    def _attend(self, query: torch.Tensor, states: torch.Tensor, mask: torch.Tensor, summary: torch.Tensor):
        """a_t for queries (B, T, H): (context (B, T, H), weights (B, T, S) or None)."""
        if self.score is None:  # the bottleneck: the same summary c at every step
            return summary[:, None, :].expand_as(query), None
        return attend(self.score(query, states), states, mask[:, None, :])

    def decode(self, tgt_in: torch.Tensor, state: State) -> tuple[torch.Tensor, Optional[torch.Tensor], State]:
        """Run the decoder over ``tgt_in`` (B, T): logits (B, T, V), attention weights (B, T, S) or None, new state.

        The Luong decoder without input feeding runs the GRU over all T steps at
        once (the fast path); the others go one step at a time (``decode_steps``).
        """
        check_ids("tgt_in", tgt_in, self.config.target_vocab_size, shape=("B", "T"))
        self._check_state(state, tgt_in.shape[0])
        return self._decode(tgt_in, state)

    def _check_state(self, state: State, batch: Optional[int]) -> None:
        H = self.config.d_hidden
        what = "the state from encode: (s_0 (B, H), states (B, S, H), mask (B, S), summary (B, H), h~ (B, H))"
        if not isinstance(state, tuple):
            raise TypeError(f"state must be {what}; got {given(state)}")
        if len(state) != 5:
            raise ValueError(f"state must be {what}; got {len(state)} parts")
        check_tensor("state s_0", state[0], shape=("B", H), dtype="float", finite=True)
        if batch is not None and state[0].shape[0] != batch:
            shape = tuple(state[0].shape)
            raise ValueError(f"state s_0 must have shape (B={batch}, {H}), one per sequence; got {shape}")

    def _decode(self, tgt_in: torch.Tensor, state: State) -> tuple[torch.Tensor, Optional[torch.Tensor], State]:
        if self.stepwise:
            return self._decode_steps(tgt_in, state)
        hidden, states, mask, summary, _ = state
        s, last = self.rnn(self.embedding(tgt_in), hidden[None].contiguous())  # s_1..s_T: (B, T, H)
        context, weights = self._attend(s, states, mask, summary)  # a_t: (B, T, H)
        features = torch.tanh(self.combine(torch.cat([context, s], dim=-1)))  # h~_t = tanh(W_c [a_t; s_t])
        return self.output(features), weights, (last[0], states, mask, summary, features[:, -1])

    def decode_one(self, tokens: torch.Tensor, state: State) -> tuple[torch.Tensor, Optional[torch.Tensor], State]:
        """One decoder step, the readable way: tokens (B,) -> logits (B, V), weights (B, S) or None, next state."""
        self._check_step(tokens, state)
        return self._decode_one(tokens, state)

    def _check_step(self, tokens: torch.Tensor, state: State) -> None:
        check_ids("tokens", tokens, self.config.target_vocab_size, shape=("N",))
        self._check_state(state, None)
        if tokens.shape[0] != state[0].shape[0]:
            n = state[0].shape[0]
            raise ValueError(f"tokens must hold one id per sequence of the state, {n}; got {tuple(tokens.shape)}")

    def _decode_one(self, tokens: torch.Tensor, state: State) -> tuple[torch.Tensor, Optional[torch.Tensor], State]:
        s_prev, states, mask, summary, feed = state
        embedded = self.embedding(tokens)  # (B, E)
        if self.config.decoder == "bahdanau":  # query s_{t-1}; a_t joins the GRU input
            context, weights = self._attend(s_prev[:, None], states, mask, summary)
            gru_in = torch.cat([embedded, context[:, 0]], dim=-1)
            _, s = self.rnn(gru_in[:, None], s_prev[None].contiguous())
            s = s[0]  # s_t: (B, H)
        else:  # Luong: s_t first, then the query s_t
            gru_in = torch.cat([embedded, feed], dim=-1) if self.config.input_feeding else embedded
            _, s = self.rnn(gru_in[:, None], s_prev[None].contiguous())
            s = s[0]
            context, weights = self._attend(s[:, None], states, mask, summary)
        features = torch.tanh(self.combine(torch.cat([context[:, 0], s], dim=-1)))  # h~_t: (B, H)
        return self.output(features), (None if weights is None else weights[:, 0]), (s, states, mask, summary, features)

    def decode_steps(self, tgt_in: torch.Tensor, state: State) -> tuple[torch.Tensor, Optional[torch.Tensor], State]:
        """``decode`` one step at a time (every decoder; for the Luong decoder it equals the fast path)."""
        check_ids("tgt_in", tgt_in, self.config.target_vocab_size, shape=("B", "T"))
        self._check_state(state, tgt_in.shape[0])
        return self._decode_steps(tgt_in, state)

    def _decode_steps(self, tgt_in: torch.Tensor, state: State) -> tuple[torch.Tensor, Optional[torch.Tensor], State]:
        logits, weights = [], []
        for t in range(tgt_in.shape[1]):
            step_logits, w, state = self._decode_one(tgt_in[:, t], state)
            logits.append(step_logits)
            weights.append(w)
        stacked = None if self.score is None else torch.stack(weights, 1)  # (B, T, S)
        return torch.stack(logits, 1), stacked, state

    def forward(
        self, src: torch.Tensor, src_lengths: torch.Tensor, tgt_in: torch.Tensor
    ) -> tuple[torch.Tensor, Optional[torch.Tensor]]:
        """Teacher forcing: logits (B, T, V) for every target position, and the attention weights."""
        state = self.encode(src, src_lengths)
        check_ids("tgt_in", tgt_in, self.config.target_vocab_size, shape=("B", "T"))
        if tgt_in.shape[0] != src.shape[0]:
            raise ValueError(f"tgt_in must have the batch size of src, {src.shape[0]}; got shape {tuple(tgt_in.shape)}")
        logits, weights, _ = self._decode(tgt_in, state)
        return logits, weights

    def loss(
        self, batch: dict, sampling_prob: float = 0.0, generator: Optional[torch.Generator] = None
    ) -> torch.Tensor:
        """Mean cross-entropy of the target characters (padding ignored); ``batch`` from ``encode_batch``.

        ``sampling_prob = 0`` is teacher forcing: the decoder reads the true previous
        character. With ``sampling_prob = p > 0`` (scheduled sampling, Bengio et al.,
        2015) each step's input is, with probability p, the model's own most probable
        previous character instead (drawn with ``generator``; no gradient flows
        through that choice).
        """
        bad = isinstance(sampling_prob, bool) or not isinstance(sampling_prob, (int, float))
        if bad or not 0 <= sampling_prob <= 1:
            raise ValueError(f"sampling_prob must be in [0, 1]; got {sampling_prob!r}")
        if generator is not None:
            check_type("generator", generator, torch.Generator, "a torch.Generator or None")
        _check_batch(batch, self.config.target_vocab_size)
        if sampling_prob == 0.0:
            logits, _ = self(batch["src"], batch["src_lengths"], batch["tgt_in"])
        else:
            state = self.encode(batch["src"], batch["src_lengths"])
            tgt_in, steps, previous = batch["tgt_in"], [], None
            for t in range(tgt_in.shape[1]):
                tokens = tgt_in[:, t]
                if previous is not None:
                    own = torch.rand(tokens.shape, generator=generator) < sampling_prob  # (B,)
                    tokens = torch.where(own.to(tokens.device) & (tokens != 0), previous, tokens)
                step_logits, _, state = self._decode_one(tokens, state)
                steps.append(step_logits)
                previous = step_logits.detach().argmax(-1)
            logits = torch.stack(steps, 1)
        return F.cross_entropy(logits.flatten(0, 1), batch["tgt_out"].flatten(), ignore_index=0)

    def step(self, tokens: torch.Tensor, state: State) -> tuple[torch.Tensor, State]:
        """One decoding step for the searches: tokens (N,) -> log-probabilities (N, V) and the next state."""
        self._check_step(tokens, state)
        logits, _, state = self._decode_one(tokens, state)
        return torch.log_softmax(logits, dim=-1), state

    @torch.no_grad()
    @measures_in_eval_mode
    def greedy_decode(
        self, src: torch.Tensor, src_lengths: torch.Tensor, max_len: int, bos: int = 1
    ) -> tuple[torch.Tensor, Optional[torch.Tensor]]:
        """Batched greedy decoding: ids (B, max_len) and attention weights (B, max_len, S) or None."""
        check_int("max_len", max_len)
        check_int("bos", bos, low=0, high=self.config.target_vocab_size - 1)
        state = self.encode(src, src_lengths)
        tokens = torch.full((src.shape[0],), bos, dtype=torch.long, device=src.device)
        out, weights = [], []
        for _ in range(max_len):
            logits, w, state = self._decode_one(tokens, state)
            tokens = logits.argmax(-1)
            out.append(tokens)
            weights.append(w)
        return torch.stack(out, 1), (None if self.score is None else torch.stack(weights, 1))

    def save(self, path: PathLike, *, provenance: dict, overwrite: bool = False, extra: Optional[dict] = None) -> dict:
        """Write the config and weights as a 'seq2seq' checkpoint with its provenance (``dl4nlp.checkpoint``).

        The provenance gains the CPU kernels torch used (bit-for-bit results need the same
        torch version, thread count and kernels). Returns the provenance written.
        """
        check_type("provenance", provenance, dict, "a dict (the recipe's provenance record)")
        record = {**provenance, "cpu_capability": torch.backends.cpu.get_cpu_capability()}
        return save_checkpoint(
            path,
            kind=CHECKPOINT_KIND,
            config=self.config,
            state_dict=self.state_dict(),
            provenance=record,
            overwrite=overwrite,
            extra=extra,
        )

    @classmethod
    def load(cls, path: PathLike, device: Optional[torch.device] = None) -> Seq2Seq:
        """Rebuild a model a recipe saved (``dl4nlp.checkpoint``, kind 'seq2seq'), in eval mode, on ``device``.

        The checksum recorded in the provenance beside ``path`` is verified first.
        """
        device = check_device("device", device, available=True) if device is not None else None
        checkpoint = load_checkpoint(path, kind=CHECKPOINT_KIND)
        model = cls.from_config(Seq2SeqConfig(**checkpoint.config))
        model.load_state_dict({k: v.float() for k, v in checkpoint.state_dict.items()})
        return model.to(device or "cpu").eval()


# --- decoding: greedy and beam search over any step function -----------------
@dataclass(order=True)
class Hypothesis:
    """A (partial) output and its score, the sum of its tokens' log-probabilities."""

    score: float
    tokens: list[int] = field(compare=False)
    finished: bool = field(default=False, compare=False)


@dataclass
class BeamSearchResult:
    """Finished hypotheses, best first, and what the beam held after each step (for teaching)."""

    hypotheses: list[Hypothesis]
    steps: list[list[Hypothesis]]

    @property
    def best(self) -> Hypothesis:
        return self.hypotheses[0]


LOG_PROB_TOLERANCE = 1e-5  # rounding allowed above 0 in a log-probability, and above 1 in a row's total probability


def _check_log_probs(log_probs: Any, n: int) -> torch.Tensor:
    """What a search's ``step`` returned: log-probabilities (n, V), each <= 0, each row's total probability <= 1.

    -inf (a token that cannot come next) is allowed; probabilities (0.5), logits (2.3) and NaN are refused.
    """
    log_probs = check_tensor("log_probs returned by step", log_probs, dtype="float", ndim=2, expected=f"(N={n}, V)")
    if log_probs.shape[0] != n:
        raise ValueError(
            f"log_probs returned by step must have shape (N={n}, V), one row per hypothesis; "
            f"got {tuple(log_probs.shape)}"
        )
    values = log_probs.detach().double()
    bad = torch.isnan(values) | (values > LOG_PROB_TOLERANCE)
    if bool(bad.any()):
        index = tuple(int(i) for i in bad.nonzero()[0])
        raise ValueError(
            "step must return log-probabilities (every entry <= 0, -inf for an impossible token); "
            f"got {values[index].item()} at {index} (probabilities or logits? take torch.log_softmax of the logits)"
        )
    totals = torch.logsumexp(values, dim=-1).exp()  # each row's total probability
    if bool((totals > 1 + 1e-3).any()) or bool((totals == 0).any()):
        row = int(((totals > 1 + 1e-3) | (totals == 0)).nonzero()[0])
        raise ValueError(
            "step must return log-probabilities whose probabilities sum to at most 1 in every row (and to more "
            f"than 0); got a row summing to {totals[row].item():.6g} at row {row}"
        )
    return log_probs.clamp(max=0.0)


def _select(state: State, index: torch.Tensor) -> State:
    return tuple(part.index_select(0, index.to(part.device)) for part in state)


def greedy_search(step: StepFn, state: State, bos: int, eos: int, max_len: int) -> Hypothesis:
    """Take the most probable token at every step until ``eos`` or ``max_len`` tokens."""
    return beam_search(step, state, bos, eos, beam_size=1, max_len=max_len).best


def length_penalty(length: int, alpha: float) -> float:
    """Wu et al. (2016)'s lp(Y) = ((5 + |Y|) / (5 + 1))^alpha; alpha = 0 turns normalisation off.

    >>> length_penalty(1, 0.6), round(length_penalty(10, 1.0), 4)
    (1.0, 2.5)
    """
    check_int("length", length)
    if isinstance(alpha, bool) or not (isinstance(alpha, (int, float)) and math.isfinite(alpha) and alpha >= 0):
        raise ValueError(f"alpha must be a finite number >= 0; got {alpha!r}")
    try:
        return ((5 + length) / 6) ** alpha
    except OverflowError:  # Wu et al. use alpha in [0.6, 0.7]; beyond float's range the ranking is meaningless
        raise ValueError(
            f"alpha must be small enough for lp = ((5 + length) / 6)^alpha to be a finite number; got alpha={alpha!r} "
            f"at length {length}"
        ) from None


def normalized_score(hypothesis: Hypothesis, alpha: float) -> float:
    """log P(Y) / lp(Y), with |Y| counting the output tokens (the end token included, the start token not)."""
    check_type("hypothesis", hypothesis, Hypothesis, "a Hypothesis")
    score = hypothesis.score
    if isinstance(score, bool) or not isinstance(score, (int, float)) or math.isnan(score) or score > 0:
        raise ValueError(
            f"hypothesis.score must be a log-probability (a number <= 0, the sum of its tokens' log-probabilities); "
            f"got {score!r}"
        )
    if len(hypothesis.tokens) < 2:
        raise ValueError(f"hypothesis must hold the start token and at least one output; got {hypothesis.tokens}")
    return hypothesis.score / length_penalty(len(hypothesis.tokens) - 1, alpha)


def _step_result(returned: Any, n: int) -> tuple[torch.Tensor, State]:
    if not isinstance(returned, (tuple, list)) or len(returned) != 2:
        raise TypeError(f"step must return (log_probs (N, V), state); got {given(returned)}")
    return _check_log_probs(returned[0], n), returned[1]


@torch.no_grad()
def beam_search(
    step: StepFn, state: State, bos: int, eos: int, beam_size: int, max_len: int, alpha: float = 0.0
) -> BeamSearchResult:
    """Keep the ``beam_size`` best partial outputs at every step; return the finished ones, best first.

    ``step(tokens (N,), state) -> (log_probs (N, V), state)`` advances N
    hypotheses at once; ``state`` holds tensors for one hypothesis (first
    dimension 1). At each step every hypothesis is extended by every token and
    the ``beam_size`` best extensions are kept; those ending in ``eos`` are set
    aside as finished and the beam narrows. A hypothesis still open after
    ``max_len`` tokens is finished as it is. The search stops early once the
    best finished score beats every open one (log-probabilities are <= 0, so
    open ones can only get worse). ``beam_size=1`` is greedy search; a beam at
    least as large as the number of possible outputs is exhaustive search.

    ``alpha > 0`` ranks the *finished* hypotheses by ``normalized_score`` (Wu et
    al., 2016's length normalisation), so that a longer output is not beaten just
    for having more negative terms in its sum; the search itself still keeps the
    ``beam_size`` most probable prefixes, and with ``alpha > 0`` it runs until no
    hypothesis is open (a normalised score can still rise). ``Hypothesis.score``
    stays the plain log-probability.

    What ``step`` returns is checked at every step: probabilities (0.5),
    logits (2.3), NaN, or rows whose probabilities sum to more than 1 are
    refused, since the search would rank them without a word.
    """
    check_callable("step", step, "a function step(tokens, state) -> (log_probs, state)")
    if not isinstance(state, tuple) or not state or not all(isinstance(part, torch.Tensor) for part in state):
        raise TypeError(f"state must be a non-empty tuple of tensors (first dimension 1); got {given(state)}")
    check_int("bos", bos, low=None)  # any integer: a toy step function need not give BOS an id
    check_int("eos", eos, low=None)
    check_int("beam_size", beam_size)
    check_int("max_len", max_len)
    length_penalty(1, alpha)  # validates alpha
    alive = [Hypothesis(0.0, [bos])]
    finished: list[Hypothesis] = []
    steps: list[list[Hypothesis]] = []
    device = state[0].device  # the model's; the bookkeeping below stays on the CPU
    for t in range(max_len):
        tokens = torch.tensor([h.tokens[-1] for h in alive], device=device)
        log_probs, state = _step_result(step(tokens, state), len(alive))  # (N, V)
        totals = torch.tensor([h.score for h in alive], dtype=torch.float64)[:, None] + log_probs.cpu().double()
        k = min(beam_size, totals.numel())
        best = torch.topk(totals.flatten(), k)  # ties: lower index first, deterministic
        parents = (best.indices // totals.shape[1]).tolist()
        next_tokens = (best.indices % totals.shape[1]).tolist()
        kept, keep_parents = [], []
        for score, parent, token in zip(best.values.tolist(), parents, next_tokens):
            hyp = Hypothesis(score, alive[parent].tokens + [token], finished=token == eos)
            if hyp.finished or t == max_len - 1:
                hyp.finished = True
                finished.append(hyp)
            else:
                kept.append(hyp)
                keep_parents.append(parent)
        steps.append(sorted(kept + [h for h in finished if len(h.tokens) == t + 2], reverse=True))
        best_finished = max((h.score for h in finished), default=-math.inf)
        if not kept or (alpha == 0 and best_finished >= kept[0].score):
            break
        alive = kept
        state = _select(state, torch.tensor(keep_parents))
    ranked = sorted(finished, key=lambda h: normalized_score(h, alpha), reverse=True)
    return BeamSearchResult(ranked, steps)


def _check_table(table: dict[tuple[int, ...], Sequence[float]]) -> int:
    """A table of next-token probabilities, prefix (tuple of ids) -> row; returns the rows' width."""
    check_type("table", table, dict, "a dict from prefix (tuple of ids) to next-token probabilities")
    if not table:
        raise ValueError("table must hold at least one prefix; got {}")
    width = None
    for prefix, row in table.items():
        if not isinstance(prefix, tuple) or not all(isinstance(i, int) for i in prefix):
            raise TypeError(f"table keys must be prefixes, tuples of ids after BOS; got {given(prefix)}")
        probs = check_tensor(f"table[{prefix}]", torch.as_tensor(row, dtype=torch.float64), ndim=1, finite=True)
        width = len(probs) if width is None else width
        if len(probs) != width:
            raise ValueError(f"table[{prefix}] must hold {width} probabilities like the other rows; got {len(probs)}")
        if (probs < 0).any() or abs(float(probs.sum()) - 1.0) > 1e-6:
            total = float(probs.sum())
            raise ValueError(f"table[{prefix}] must be probabilities that sum to 1; got {row} (sum {total:.6g})")
    return width


def table_step(table: dict[tuple[int, ...], Sequence[float]]) -> tuple[StepFn, State]:
    """A toy 'language model' from a table: prefix (tuple of ids after BOS) -> next-token probabilities.

    Returns ``(step, start_state)`` for ``greedy_search`` / ``beam_search``;
    the state is the prefix itself. A prefix missing from the table raises a
    KeyError naming it.
    """
    _check_table(table)

    def step(tokens: torch.Tensor, prefix: State) -> tuple[torch.Tensor, State]:
        (ids,) = prefix
        ids = torch.cat([ids, tokens[:, None]], dim=1)  # (N, t + 1), starting with BOS
        rows = []
        for row in ids.tolist():
            key = tuple(row[1:])
            if key not in table:
                raise KeyError(f"the table has no next-token probabilities for prefix {key}")
            rows.append(table[key])
        return torch.tensor(rows, dtype=torch.float64).log(), (ids,)

    return step, (torch.empty(1, 0, dtype=torch.long),)


def exhaustive_search(table: dict[tuple[int, ...], Sequence[float]], eos: int, max_len: int) -> Hypothesis:
    """The most probable output of a ``table_step`` table, found by scoring every output (toy tables only).

    An output ends with ``eos`` or stops after ``max_len`` tokens, as in ``beam_search``;
    the returned tokens start with a placeholder start token (-1), like the searches'.

    >>> best = exhaustive_search({(): [0.4, 0.6], (1,): [0.9, 0.1]}, eos=0, max_len=2)
    >>> best.tokens[1:], round(math.exp(best.score), 2)
    ([1, 0], 0.54)
    """
    width = _check_table(table)
    check_int("eos", eos, 0, width - 1)
    check_int("max_len", max_len)
    if () not in table:
        raise KeyError("the table has no next-token probabilities for the empty prefix ()")
    best = Hypothesis(-math.inf, [-1], finished=True)
    stack: list[tuple[tuple[int, ...], float]] = [((), 0.0)]
    while stack:
        prefix, score = stack.pop()
        if prefix not in table:
            raise KeyError(f"the table has no next-token probabilities for prefix {prefix}")
        for token, p in enumerate(table[prefix]):
            total = score + (math.log(p) if p > 0 else -math.inf)
            if token == eos or len(prefix) + 1 == max_len:
                if total > best.score:
                    best = Hypothesis(total, [-1, *prefix, token], finished=True)
            elif total > -math.inf:
                stack.append((prefix + (token,), total))
    return best
