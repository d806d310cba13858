"""Pre-training a tiny ``dl4nlp.bert.Bert``: sentence pairs, masked batches, a resumable loop, evaluation.

A document is a paragraph split into sentences. A training example is a pair
of segments: segment A is one or more consecutive sentences; segment B follows
A in the same paragraph (IsNext, label 1) half of the time, and is taken from
another paragraph otherwise (NotNext, 0). The text is encoded by any tokenizer
with ``encode``, ``special_ids``, ``itos`` and ``[token]`` lookup (a
``dl4nlp.wordpiece.WordPiece``, say). The command that trains and ships the
notebook's model is ``python -m dl4nlp.recipes.tiny_bert``. Taught in notebook 13.
"""

from __future__ import annotations

import random
from functools import cached_property
from typing import Any, Mapping, Optional, Sequence

import torch

from dl4nlp._checks import (
    check_bool,
    check_choice,
    check_device,
    check_ids_list,
    check_int,
    check_number,
    check_sequence,
    check_str,
    check_strings,
    check_type,
    given,
    short,
)
from dl4nlp.bert import IGNORE_INDEX, MASK_PROB, Bert, bert_config, mask_tokens, pair_inputs, pretraining_loss
from dl4nlp.train import History, train

TINY = dict(d_model=128, n_heads=4, n_layers=2, d_ff=512, max_len=64, norm_first=True)


class PretrainingData:
    """Named splits of documents (lists of sentence strings), encoded with ``tokenizer``.

    Documents with fewer than ``min_sentences`` non-empty sentences are left
    out (a pair needs two).

    >>> from dl4nlp.wordpiece import WordPiece
    >>> wp = WordPiece(["the", "cat", "dog", "sat", "ran", "."])
    >>> data = PretrainingData({"train": [["The cat sat.", "The cat ran."], ["The dog sat.", "The dog ran."]]}, wp)
    >>> pairs = data.pairs(2, random.Random(0))  # (segment A, segment B, is_next)
    >>> [(wp.decode(a), wp.decode(b), is_next) for a, b, is_next in pairs]
    [('the dog sat .', 'the dog ran .', 1), ('the dog sat .', 'the cat ran .', 0)]
    >>> batch = data.batch(pairs, generator=torch.Generator().manual_seed(0))  # masked, for pretraining_loss
    >>> batch["input_ids"].shape, batch["segments"][0].tolist()  # [CLS] A [SEP] B [SEP]
    (torch.Size([2, 11]), [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    """

    def __init__(self, splits: Mapping[str, Sequence[Sequence[str]]], tokenizer: Any, min_sentences: int = 2):
        if not isinstance(splits, Mapping) or "train" not in splits:
            raise ValueError(f"splits must be a mapping with a 'train' split; got {given(splits)}")
        needed = ("encode", "special_ids", "itos", "__getitem__", "__len__")
        if not all(hasattr(tokenizer, attr) for attr in needed):
            raise TypeError(
                f"tokenizer must be a WordPiece (encode, special_ids, itos, [token]); got {given(tokenizer)}"
            )
        check_int("min_sentences", min_sentences, low=2)
        self.vocab = tokenizer
        self.documents: dict[str, list[list[list[int]]]] = {}
        for name, documents in splits.items():
            documents = check_sequence(f"splits[{name!r}]", documents, what="a list of documents")
            for document in documents:
                check_strings(f"splits[{name!r}]: a document", document, nonempty=False)
            encoded = [[ids for ids in map(tokenizer.encode, document) if ids] for document in documents]
            self.documents[name] = [d for d in encoded if len(d) >= min_sentences]
            if len(self.documents[name]) < 2:
                raise ValueError(
                    f"splits[{name!r}] needs at least 2 documents of {min_sentences}+ non-empty sentences; "
                    f"got {len(self.documents[name])}"
                )

    @cached_property
    def unigram_counts(self) -> torch.Tensor:
        """(V,) how often each token occurs in the training documents (special tokens: 0)."""
        ids = torch.tensor([i for d in self.documents["train"] for s in d for i in s])
        counts = torch.bincount(ids, minlength=len(self.vocab))
        counts[self.vocab.special_ids] = 0
        return counts

    def pairs(self, n: int, rng: random.Random, split: str = "train", max_len: int = 64) -> list:
        """``n`` NSP examples ``(a_ids, b_ids, is_next)``, with len(a) + len(b) + 3 <= ``max_len``."""
        check_int("n", n)
        check_type("rng", rng, random.Random, "a random.Random")
        check_choice("split", split, tuple(self.documents))
        check_int("max_len", max_len, low=5)
        docs, budget = self.documents[split], max_len - 3  # [CLS] A [SEP] B [SEP]
        out = []
        for _ in range(n):
            d = rng.randrange(len(docs))
            start = rng.randrange(len(docs[d]) - 1)  # leave at least one sentence after A
            a, end = list(docs[d][start]), start + 1
            while end < len(docs[d]) - 1 and len(a) + len(docs[d][end]) <= budget // 2:
                a, end = a + docs[d][end], end + 1
            is_next = rng.random() < 0.5
            if is_next:
                source, first = docs[d], end
            else:
                other = rng.randrange(len(docs) - 1)
                other += other >= d  # any paragraph but this one
                source, first = docs[other], rng.randrange(len(docs[other]))
            b = []
            for sentence in source[first:]:
                if b and len(a) + len(b) + len(sentence) > budget:
                    break
                b = b + sentence
            a = a[: budget // 2]  # only a single long first sentence can exceed half the budget
            out.append((a, b[: budget - len(a)], int(is_next)))
        return out

    def batch(self, pairs: Sequence, generator: Optional[torch.Generator] = None, mask_prob: float = MASK_PROB) -> dict:
        """Pad a list of pairs into tensors and apply BERT's masking: a dict ready for ``pretraining_loss``."""
        pairs = check_sequence("pairs", pairs, what="a list of (a_ids, b_ids, is_next)")
        v = self.vocab
        for pair in pairs:
            if not isinstance(pair, (tuple, list)) or len(pair) != 3:
                raise TypeError(f"pairs must hold (a_ids, b_ids, is_next) triples; got {given(pair)}")
            if pair[2] not in (0, 1):
                raise ValueError(f"pairs: is_next must be 0 or 1; got {short(pair[2])}")
            check_ids_list("pairs: a_ids", pair[0], len(v), nonempty=False)
            check_ids_list("pairs: b_ids", pair[1], len(v), nonempty=False)
        if generator is not None:
            check_type("generator", generator, torch.Generator, "a torch.Generator or None")
        rows = [pair_inputs(a, b, cls=v["[CLS]"], sep=v["[SEP]"]) for a, b, _ in pairs]
        T = max(len(tokens) for tokens, _, _ in rows)
        ids = torch.full((len(rows), T), v["[PAD]"], dtype=torch.long)
        segments = torch.zeros_like(ids)
        for i, (tokens, segment_ids, _) in enumerate(rows):
            ids[i, : len(tokens)] = torch.tensor(tokens)
            segments[i, : len(tokens)] = torch.tensor(segment_ids)
        masked = mask_tokens(
            ids,
            mask_id=v["[MASK]"],
            special_ids=v.special_ids,
            vocab_size=len(v),
            mask_prob=mask_prob,
            generator=generator,
        )
        return {
            "input_ids": masked.input_ids,
            "segments": segments,
            "valid": ids != v["[PAD]"],
            "labels": masked.labels,
            "is_next": torch.tensor([p[2] for p in pairs]),
        }


def make_model(vocab_size: int, **overrides) -> Bert:
    """A tiny BERT (defaults in ``TINY``: pre-LN, 2 layers of width 128) for a vocabulary of ``vocab_size``."""
    return Bert(bert_config("base", vocab_size=vocab_size, **{**TINY, **overrides}))


class Pretrainer:
    """BERT's optimisation, resumable: AdamW (weight decay 0.01 on matrices), linear warm-up then linear decay.

    ``run(n)`` trains ``n`` more steps; ``state_dict()`` / ``load_state_dict()``
    hold everything that decides the next step (weights, optimiser, schedule,
    the data and masking random states, the loss so far), so a run stopped and
    resumed takes exactly the steps an uninterrupted one takes.
    """

    def __init__(
        self,
        model: Bert,
        data: PretrainingData,
        *,
        steps: int,
        batch_size: int = 32,
        lr: float = 2e-3,
        warmup: int = 100,
        seed: int = 0,
        mask_prob: float = MASK_PROB,
        nsp_weight: float = 1.0,
        device: Optional[torch.device] = None,
    ):
        check_type("model", model, Bert, "a dl4nlp.bert.Bert")
        check_type("data", data, PretrainingData, "a PretrainingData")
        if len(data.vocab) > model.config.vocab_size:
            raise ValueError(
                f"data's tokenizer has {len(data.vocab)} tokens; the model's vocab_size must hold them, "
                f"got {model.config.vocab_size}"
            )
        for name, value in (("steps", steps), ("batch_size", batch_size), ("warmup", warmup)):
            check_int(name, value)
        check_number("lr", lr, 0, low_open=True)
        check_int("seed", seed, low=0)
        check_number("mask_prob", mask_prob, 0, 1, low_open=True)
        check_number("nsp_weight", nsp_weight, 0)
        if device is not None:
            device = check_device("device", device)
        self.model, self.data, self.steps, self.batch_size = model, data, steps, batch_size
        self.mask_prob, self.nsp_weight = mask_prob, nsp_weight
        self.device = device or next(model.parameters()).device
        model.to(self.device)
        self.rng, self.generator = random.Random(seed), torch.Generator().manual_seed(seed)
        decay = [p for p in model.parameters() if p.dim() >= 2]
        rest = [p for p in model.parameters() if p.dim() < 2]
        self.optimizer = torch.optim.AdamW(
            [{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}], lr=lr
        )
        self.schedule = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup)))
        )
        self.history = History()

    @property
    def done(self) -> int:
        """Steps taken so far."""
        return len(self.history.loss)

    def _next_batch(self, _step: int) -> dict:
        pairs = self.data.pairs(self.batch_size, self.rng, max_len=self.model.config.max_len)
        return self.data.batch(pairs, self.generator, self.mask_prob)

    def run(self, n: Optional[int] = None, progress: bool = True, desc: str = "pre-training") -> History:
        """Train ``n`` more steps (default: to the end of the schedule); returns the whole history."""
        if n is not None:
            check_int("n", n, low=0)
        check_bool("progress", progress)
        check_str("desc", desc)
        n = self.steps - self.done if n is None else min(n, self.steps - self.done)
        if n > 0:
            part = train(
                self.model,
                lambda m, b: pretraining_loss(m, b, self.nsp_weight)[0],
                self._next_batch,
                steps=n,
                optimizer=self.optimizer,
                scheduler=self.schedule,
                clip_norm=1.0,
                device=self.device,
                progress=progress,
                desc=desc,
            )
            offset = self.done
            self.history.step += [offset + s for s in part.step]
            self.history.loss += part.loss
            self.history.grad_norm += part.grad_norm
            self.history.lr += part.lr
            self.history.diverged |= part.diverged
        return self.history

    def state_dict(self) -> dict:
        """Everything a resumed run needs (loadable with ``torch.load(weights_only=True)``)."""
        return {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "schedule": self.schedule.state_dict(),
            "rng": self.rng.getstate(),
            "generator": self.generator.get_state(),
            "history": {k: getattr(self.history, k) for k in ("step", "loss", "grad_norm", "lr")},
        }

    def load_state_dict(self, state: dict) -> None:
        """Restore what ``state_dict()`` returned (of a Pretrainer of the same model and options)."""
        keys = ("model", "optimizer", "schedule", "rng", "generator", "history")
        if not isinstance(state, Mapping) or any(k not in state for k in keys):
            missing = [k for k in keys if k not in state] if isinstance(state, Mapping) else keys
            raise ValueError(f"state must be a Pretrainer.state_dict() with keys {keys}; missing {missing}")
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.schedule.load_state_dict(state["schedule"])
        version, internal, gauss = state["rng"]
        self.rng.setstate((version, tuple(internal), gauss))
        self.generator.set_state(state["generator"])
        self.history = History(**{k: list(v) for k, v in state["history"].items()})


def pretrain(model: Bert, data: PretrainingData, *, steps: int, progress: bool = True, **options) -> History:
    """Train ``model`` for ``steps`` steps in one go (``Pretrainer``'s options); returns the history."""
    return Pretrainer(model, data, steps=steps, **options).run(progress=progress)


@torch.no_grad()
def evaluate(
    model: Bert,
    data: PretrainingData,
    *,
    n_pairs: int = 512,
    seed: int = 1234,
    mask_prob: float = MASK_PROB,
    batch_size: int = 128,
    split: str = "held_out",
) -> dict:
    """Masked-token accuracy and loss, NSP accuracy, and the unigram baseline on the same positions.

    The unigram baseline always predicts the most frequent ordinary training token.
    """
    check_type("model", model, Bert, "a dl4nlp.bert.Bert")
    check_type("data", data, PretrainingData, "a PretrainingData")
    check_int("n_pairs", n_pairs)
    check_int("batch_size", batch_size)
    check_int("seed", seed, low=0)
    check_number("mask_prob", mask_prob, 0, 1, low_open=True)
    rng, generator = random.Random(seed), torch.Generator().manual_seed(seed)
    pairs = data.pairs(n_pairs, rng, split=split, max_len=model.config.max_len)
    device = next(model.parameters()).device
    most_frequent = int(data.unigram_counts.argmax())
    was_training = model.training
    model.eval()
    totals = dict(correct=0, baseline=0, n=0, loss=0.0, nsp_correct=0, pairs=0)
    for i in range(0, n_pairs, batch_size):
        batch = {k: v.to(device) for k, v in data.batch(pairs[i : i + batch_size], generator, mask_prob).items()}
        _, stats = pretraining_loss(model, batch)
        targets = batch["labels"][batch["labels"] != IGNORE_INDEX]
        totals["n"] += len(targets)
        totals["correct"] += round(stats["mlm_accuracy"] * len(targets))
        totals["loss"] += stats["mlm_loss"] * len(targets)
        totals["baseline"] += int((targets == most_frequent).sum())
        totals["nsp_correct"] += round(stats["nsp_accuracy"] * len(batch["is_next"]))
        totals["pairs"] += len(batch["is_next"])
    model.train(was_training)
    return {
        "masked_accuracy": totals["correct"] / totals["n"],
        "masked_loss": totals["loss"] / totals["n"],
        "unigram_accuracy": totals["baseline"] / totals["n"],
        "unigram_token": data.vocab.itos[most_frequent],
        "nsp_accuracy": totals["nsp_correct"] / totals["pairs"],
        "predicted_tokens": totals["n"],
    }
