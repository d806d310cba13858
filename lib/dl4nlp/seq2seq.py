"""Encoder-decoder (sequence-to-sequence) models, with or without attention, and decoding.

The encoder reads the source with a bidirectional GRU into states h_1..h_N
and a summary c (its two final states, mixed). The decoder is a GRU language
model over the target that starts from s_0 = c; its output layer reads
[a_t; s_t]. Without attention (``score=None``) a_t = c at every step (as in
Cho et al., 2014): one fixed vector is all the decoder ever learns about the
source, the *bottleneck*. With attention, the decoder state s_t scores every
h_i (``dl4nlp.attention``: dot, general or additive), alpha(t) = softmax(e(t))
and a_t = Σ_i alpha_i(t) h_i, a fresh summary for every output step (Luong et
al., 2015). The two models differ only in a_t. Greedy and beam search work on any ``step`` function, so they decode
this model and a toy probability table alike. Taught in notebook 04.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from dl4nlp._checks import (
    check_callable,
    check_choice,
    check_file,
    check_ids,
    check_int,
    check_path,
    check_tensor,
    check_type,
    given,
)
from dl4nlp.attention import SCORES, attend, make_score

State = tuple  # tensors whose first dimension runs over hypotheses
StepFn = Callable[[torch.Tensor, State], tuple[torch.Tensor, State]]


def _check_source(src: torch.Tensor, lengths: torch.Tensor, vocab_size: int, lengths_name: str) -> None:
    """src (B, S) ids of the source vocabulary; lengths (B,) integers in [1, S]."""
    check_ids("src", src, vocab_size, shape=("B", "S"))
    B, S = src.shape
    check_tensor(lengths_name, lengths, shape=(B,), dtype="integer", expected=f"(B={B},)")
    if (lengths < 1).any() or (lengths > S).any():
        raise ValueError(f"{lengths_name} must each be in [1, S={S}]; got {lengths.tolist()}")


class Encoder(nn.Module):
    """ids (B, S) and lengths (B,) -> states (B, S, H) and a summary (B, H) for the decoder's start."""

    def __init__(self, vocab_size: int, d_embed: int, d_hidden: int):
        super().__init__()
        for name, value in [("vocab_size", vocab_size), ("d_embed", d_embed), ("d_hidden", d_hidden)]:
            check_int(name, value)
        self.embedding = nn.Embedding(vocab_size, d_embed, padding_idx=0)
        self.rnn = nn.GRU(d_embed, d_hidden, batch_first=True, bidirectional=True)
        self.project = nn.Linear(2 * d_hidden, d_hidden)  # both directions -> h_i in R^H
        self.bridge = nn.Linear(2 * d_hidden, d_hidden)  # last forward + last backward state -> s_0

    def forward(self, src: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        _check_source(src, lengths, self.embedding.num_embeddings, "lengths")
        packed = pack_padded_sequence(self.embedding(src), lengths.cpu(), batch_first=True, enforce_sorted=False)
        out, last = self.rnn(packed)  # last: (2, B, H), the final state of each direction
        out, _ = pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])  # (B, S, 2H)
        summary = torch.tanh(self.bridge(torch.cat([last[0], last[1]], dim=-1)))  # (B, H)
        return self.project(out), summary


class Seq2Seq(nn.Module):
    """Encoder-decoder; ``score`` is 'dot', 'general', 'additive' or None (no attention: the bottleneck)."""

    def __init__(
        self,
        source_vocab_size: int,
        target_vocab_size: int,
        d_embed: int = 32,
        d_hidden: int = 64,
        score: Optional[str] = "dot",
    ):
        super().__init__()
        for name, value in [
            ("source_vocab_size", source_vocab_size),
            ("target_vocab_size", target_vocab_size),
            ("d_embed", d_embed),
            ("d_hidden", d_hidden),
        ]:
            check_int(name, value)
        if score is not None:
            check_choice("score", score, SCORES)
        self.sizes = dict(
            source_vocab_size=source_vocab_size,
            target_vocab_size=target_vocab_size,
            d_embed=d_embed,
            d_hidden=d_hidden,
            score=score,
        )
        self.score_kind = score
        self.encoder = Encoder(source_vocab_size, d_embed, d_hidden)
        self.embedding = nn.Embedding(target_vocab_size, d_embed, padding_idx=0)
        self.rnn = nn.GRU(d_embed, d_hidden, batch_first=True)
        self.score = None if score is None else make_score(score, d_hidden, d_hidden)
        self.combine = nn.Linear(2 * d_hidden, d_hidden)  # [a_t; s_t] -> features
        self.output = nn.Linear(d_hidden, target_vocab_size)

    def encode(self, src: torch.Tensor, src_lengths: torch.Tensor) -> State:
        """The decoder's starting state.

        Returns (s_0 (B, H), encoder states (B, S, H), source mask (B, S), summary c (B, H)).
        """
        _check_source(src, src_lengths, self.sizes["source_vocab_size"], "src_lengths")
        states, summary = self.encoder(src, src_lengths)
        mask = torch.arange(src.shape[1], device=src.device)[None, :] < src_lengths[:, None].to(src.device)
        return summary, states, mask, summary

    def decode(self, tgt_in: torch.Tensor, state: State) -> tuple[torch.Tensor, Optional[torch.Tensor], State]:
        """Run the decoder over ``tgt_in`` (B, T): logits (B, T, V), attention weights (B, T, S) or None, new state."""
        check_ids("tgt_in", tgt_in, self.sizes["target_vocab_size"], shape=("B", "T"))
        self._check_state(state, tgt_in.shape[0])
        return self._decode(tgt_in, state)

    def _check_state(self, state: State, batch: Optional[int]) -> None:
        H = self.sizes["d_hidden"]
        what = "the state from encode: (s_0 (B, H), states (B, S, H), mask (B, S), summary (B, H))"
        if not isinstance(state, tuple):
            raise TypeError(f"state must be {what}; got {given(state)}")
        if len(state) != 4:
            raise ValueError(f"state must be {what}; got {len(state)} parts")
        check_tensor("state s_0", state[0], shape=("B", H), dtype="float", finite=True)
        if batch is not None and state[0].shape[0] != batch:
            shape = tuple(state[0].shape)
            raise ValueError(f"state s_0 must have shape (B={batch}, {H}), one per sequence; got {shape}")

    def _decode(self, tgt_in: torch.Tensor, state: State) -> tuple[torch.Tensor, Optional[torch.Tensor], State]:
        hidden, states, mask, summary = state
        s, last = self.rnn(self.embedding(tgt_in), hidden[None].contiguous())  # s: (B, T, H)
        if self.score is None:  # the bottleneck: the same summary c at every step
            context, weights = summary[:, None, :].expand_as(s), None  # (B, T, H)
        else:
            scores = self.score(s, states)  # e(t) for every t: (B, T, S)
            context, weights = attend(scores, states, mask[:, None, :])  # a_t: (B, T, H)
        features = torch.cat([context, s], dim=-1)  # [a_t; s_t]: (B, T, 2H)
        logits = self.output(torch.tanh(self.combine(features)))  # (B, T, V)
        return logits, weights, (last[0], states, mask, summary)

    def forward(
        self, src: torch.Tensor, src_lengths: torch.Tensor, tgt_in: torch.Tensor
    ) -> tuple[torch.Tensor, Optional[torch.Tensor]]:
        """Teacher forcing: logits (B, T, V) for every target position, and the attention weights."""
        state = self.encode(src, src_lengths)
        check_ids("tgt_in", tgt_in, self.sizes["target_vocab_size"], shape=("B", "T"))
        if tgt_in.shape[0] != src.shape[0]:
            raise ValueError(f"tgt_in must have the batch size of src, {src.shape[0]}; got shape {tuple(tgt_in.shape)}")
        logits, weights, _ = self._decode(tgt_in, state)
        return logits, weights

    def loss(self, batch: dict) -> torch.Tensor:
        """Mean cross-entropy of the target characters (padding ignored); ``batch`` from ``encode_batch``."""
        check_type("batch", batch, dict, "a dict of tensors from encode_batch (src, src_lengths, tgt_in, tgt_out)")
        missing = [k for k in ("src", "src_lengths", "tgt_in", "tgt_out") if k not in batch]
        if missing:
            raise ValueError(f"batch must hold src, src_lengths, tgt_in and tgt_out; missing {missing}")
        shape = tuple(getattr(batch["tgt_in"], "shape", ("B", "T")))
        check_ids("batch['tgt_out']", batch["tgt_out"], self.sizes["target_vocab_size"], shape=shape)
        logits, _ = self(batch["src"], batch["src_lengths"], batch["tgt_in"])
        return F.cross_entropy(logits.flatten(0, 1), batch["tgt_out"].flatten(), ignore_index=0)

    def step(self, tokens: torch.Tensor, state: State) -> tuple[torch.Tensor, State]:
        """One decoding step for the searches: tokens (N,) -> log-probabilities (N, V) and the next state."""
        check_ids("tokens", tokens, self.sizes["target_vocab_size"], shape=("N",))
        self._check_state(state, None)
        if tokens.shape[0] != state[0].shape[0]:
            n = state[0].shape[0]
            raise ValueError(f"tokens must hold one id per hypothesis of the state, {n}; got {tuple(tokens.shape)}")
        logits, _, state = self._decode(tokens[:, None], state)
        return torch.log_softmax(logits[:, 0], dim=-1), state

    @torch.no_grad()
    def greedy_decode(
        self, src: torch.Tensor, src_lengths: torch.Tensor, max_len: int, bos: int = 1
    ) -> tuple[torch.Tensor, Optional[torch.Tensor]]:
        """Batched greedy decoding: ids (B, max_len) and attention weights (B, max_len, S) or None."""
        check_int("max_len", max_len)
        check_int("bos", bos, low=0, high=self.sizes["target_vocab_size"] - 1)
        state = self.encode(src, src_lengths)
        tokens = torch.full((src.shape[0],), bos, dtype=torch.long, device=src.device)
        out, weights = [], []
        for _ in range(max_len):
            logits, w, state = self._decode(tokens[:, None], state)
            tokens = logits[:, 0].argmax(-1)
            out.append(tokens)
            weights.append(w)
        return torch.stack(out, 1), (None if self.score is None else torch.cat(weights, 1))

    def save(self, path) -> None:
        """Write the sizes and the weights to ``path`` (a checkpoint that ``Seq2Seq.load`` reads)."""
        path = check_path("path", path)
        if not path.parent.is_dir():
            raise FileNotFoundError(f"path must be in an existing folder; no folder {path.parent}")
        torch.save({"sizes": self.sizes, "state_dict": self.state_dict()}, path)

    @classmethod
    def load(cls, path, device: Optional[torch.device] = None) -> Seq2Seq:
        """Rebuild a model saved by ``save``, in eval mode, on ``device`` (default: the CPU)."""
        path = check_file("path", path, "a Seq2Seq checkpoint (.pt)")
        if path.stat().st_size == 0:
            raise ValueError(f"path must be a Seq2Seq checkpoint; {path} is empty (0 bytes)")
        checkpoint = torch.load(path, map_location=device or "cpu", weights_only=True)
        if not isinstance(checkpoint, dict) or not {"sizes", "state_dict"} <= set(checkpoint):
            keys = sorted(checkpoint) if isinstance(checkpoint, dict) else type(checkpoint).__name__
            raise ValueError(f"{path} is not a Seq2Seq checkpoint: expected the keys sizes and state_dict; got {keys}")
        model = cls(**checkpoint["sizes"])
        model.load_state_dict(checkpoint["state_dict"])
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


def _select(state: State, index: torch.Tensor) -> State:
    return tuple(part.index_select(0, index.to(part.device)) for part in state)


def greedy_search(step: StepFn, state: State, bos: int, eos: int, max_len: int) -> Hypothesis:
    """Take the most probable token at every step until ``eos`` or ``max_len`` tokens."""
    return beam_search(step, state, bos, eos, beam_size=1, max_len=max_len).best


@torch.no_grad()
def beam_search(step: StepFn, state: State, bos: int, eos: int, beam_size: int, max_len: int) -> BeamSearchResult:
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
    """
    check_callable("step", step, "a function step(tokens, state) -> (log_probs, state)")
    if not isinstance(state, tuple) or not state or not all(isinstance(part, torch.Tensor) for part in state):
        raise TypeError(f"state must be a non-empty tuple of tensors (first dimension 1); got {given(state)}")
    check_int("bos", bos, low=None)  # any integer: a toy step function need not give BOS an id
    check_int("eos", eos, low=None)
    check_int("beam_size", beam_size)
    check_int("max_len", max_len)
    alive = [Hypothesis(0.0, [bos])]
    finished: list[Hypothesis] = []
    steps: list[list[Hypothesis]] = []
    device = state[0].device  # the model's; the bookkeeping below stays on the CPU
    for t in range(max_len):
        tokens = torch.tensor([h.tokens[-1] for h in alive], device=device)
        log_probs, state = step(tokens, state)  # (N, V)
        totals = torch.tensor([h.score for h in alive], dtype=torch.float64)[:, None] + log_probs.double().cpu()
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
        if not kept or max(h.score for h in finished or [Hypothesis(-float("inf"), [])]) >= kept[0].score:
            break
        alive = kept
        state = _select(state, torch.tensor(keep_parents))
    return BeamSearchResult(sorted(finished, reverse=True), steps)


def table_step(table: dict[tuple[int, ...], Sequence[float]]) -> tuple[StepFn, State]:
    """A toy 'language model' from a table: prefix (tuple of ids after BOS) -> next-token probabilities.

    Returns ``(step, start_state)`` for ``greedy_search`` / ``beam_search``;
    the state is the prefix itself. A prefix missing from the table raises a
    KeyError naming it.
    """
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
