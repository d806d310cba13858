"""Pre-training a tiny ``dl4nlp.bert.Bert`` on a shipped corpus: sentence pairs, batches, training, checkpoints.

    python -m dl4nlp.bert_pretrain train --out data/tiny_bert_tinystories.pt
    python -m dl4nlp.bert_pretrain mask-sweep --out data/bert_mask_rates.csv

A document is one paragraph of the corpus, split into sentences. A training
example is a pair of text segments: segment A is one or more consecutive
sentences; segment B follows A in the same paragraph (IsNext, label 1) half
of the time, and is taken from another paragraph otherwise (NotNext, 0).
Both commands write a recipe (command, seed, library version, corpus md5,
device, steps, wall time, results) next to their output. Taught in notebook 08.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import sys
import time
from dataclasses import asdict
from functools import cached_property
from pathlib import Path
from typing import Optional, Sequence

import torch

from dl4nlp._checks import (
    check_file,
    check_int,
    check_number,
    check_path,
    check_sequence,
    check_str,
    check_type,
    given,
)
from dl4nlp.bert import IGNORE_INDEX, MASK_PROB, Bert, bert_config, mask_tokens, pair_inputs, pretraining_loss
from dl4nlp.bpe import SPECIAL_TOKENS, WordVocab
from dl4nlp.data import data_path, load_text, md5sum
from dl4nlp.train import History, train
from dl4nlp.transformer import TransformerConfig

SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
TINY = dict(d_model=128, n_heads=4, n_layers=2, d_ff=512, max_len=64, norm_first=True)


class PretrainingData:
    """A corpus cut into paragraphs of sentences (as word ids), with a held-out share of paragraphs."""

    def __init__(self, text: str, vocab_size: int = 4096, held_out: float = 0.05, min_sentences: int = 2):
        check_str("text", text, nonempty=True, what="a corpus (one string)")
        check_int("vocab_size", vocab_size, low=len(SPECIAL_TOKENS) + 1)
        check_number("held_out", held_out, 0.0, 1.0, low_open=True, high_open=True)
        check_int("min_sentences", min_sentences, low=2)  # a pair needs a sentence after segment A
        paragraphs = [p for p in (line.strip() for line in text.splitlines()) if p]
        documents = [SENTENCE_END.split(p) for p in paragraphs]
        documents = [d for d in documents if len(d) >= min_sentences]
        cut = int(len(documents) * (1 - held_out))
        if cut < 2 or len(documents) - cut < 2:
            raise ValueError(
                f"text must hold enough paragraphs of at least min_sentences={min_sentences} sentences for "
                f"training and held_out={held_out} (two each, NotNext needs another paragraph); got {len(documents)}"
            )
        self.vocab = WordVocab.build((" ".join(d) for d in documents[:cut]), max_size=vocab_size)
        encode = self.vocab.encode
        self.documents = {
            "train": [[encode(s) for s in d] for d in documents[:cut]],
            "held_out": [[encode(s) for s in d] for d in documents[cut:]],
        }

    @cached_property
    def unigram_counts(self) -> torch.Tensor:
        """(V,) how often each word occurs in the training paragraphs (special tokens: 0)."""
        ids = torch.tensor([i for d in self.documents["train"] for s in d for i in s])
        counts = torch.bincount(ids, minlength=len(self.vocab))
        counts[self.vocab.special_ids] = 0
        return counts

    def pairs(self, n: int, rng: random.Random, split: str = "train", max_len: int = 64) -> list:
        """``n`` NSP examples ``(a_ids, b_ids, is_next)``, with len(a) + len(b) + 3 <= ``max_len``."""
        check_int("n", n)
        check_type("rng", rng, random.Random, "a random.Random")
        check_int("max_len", max_len, low=5)  # [CLS] a [SEP] b [SEP] with one token each
        if split not in self.documents:
            raise ValueError(f"split must be one of {tuple(self.documents)}; got {split!r}")
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
        v = self.vocab
        if isinstance(pairs, tuple) and len(pairs) == 3 and isinstance(pairs[2], int):
            raise TypeError(f"pairs must be a list of (a_ids, b_ids, is_next); got one pair, {given(pairs)}")
        check_sequence("pairs", pairs, what="a list of (a_ids, b_ids, is_next) from pairs()")
        for index, pair in enumerate(pairs):
            if not isinstance(pair, (tuple, list)) or len(pair) != 3 or pair[2] not in (0, 1):
                raise ValueError(f"pairs[{index}] must be (a_ids, b_ids, is_next), is_next 0 or 1; got {pair!r:.80}")
            for ids in pair[:2]:
                bad = [i for i in ids if not isinstance(i, int) or not 0 <= i < len(v)]
                if bad:
                    raise ValueError(f"pairs[{index}] must hold word ids in [0, {len(v)}); got {bad[0]!r}")
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
    """A tiny BERT (defaults in ``TINY``) for a vocabulary of ``vocab_size`` words (special tokens included)."""
    check_int("vocab_size", vocab_size, low=len(SPECIAL_TOKENS) + 1)
    return Bert(bert_config("base", vocab_size=vocab_size, **{**TINY, **overrides}))


def pretrain(
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
    progress: bool = True,
    desc: str = "pre-training",
) -> History:
    """Train with AdamW, linear warm-up then linear decay to zero, as BERT did (smaller and faster)."""
    check_type("model", model, Bert, "a dl4nlp.bert.Bert")
    check_type("data", data, PretrainingData, "a PretrainingData")
    check_int("steps", steps)
    check_int("batch_size", batch_size)
    check_int("warmup", warmup)
    check_number("lr", lr, 0.0, low_open=True)
    check_number("mask_prob", mask_prob, 0.0, 1.0, low_open=True)
    rng, generator = random.Random(seed), torch.Generator().manual_seed(seed)
    max_len = model.config.max_len
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    rest = [p for n, p in model.named_parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}], lr=lr
    )
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (steps - s) / max(1, steps - warmup)))
    )
    device = device or next(model.parameters()).device
    model.to(device)
    return train(
        model,
        lambda m, b: pretraining_loss(m, b, nsp_weight)[0],
        lambda step: data.batch(data.pairs(batch_size, rng, max_len=max_len), generator, mask_prob),
        steps=steps,
        optimizer=optimizer,
        scheduler=schedule,
        clip_norm=1.0,
        device=device,
        progress=progress,
        desc=desc,
    )


@torch.no_grad()
def evaluate(
    model: Bert,
    data: PretrainingData,
    *,
    n_pairs: int = 512,
    seed: int = 1234,
    mask_prob: float = MASK_PROB,
    batch_size: int = 128,
) -> dict:
    """Held-out masked-token accuracy and loss, NSP accuracy, and the unigram baseline on the same positions.

    The unigram baseline always predicts the most frequent ordinary training word.
    """
    check_type("model", model, Bert, "a dl4nlp.bert.Bert")
    check_type("data", data, PretrainingData, "a PretrainingData")
    check_int("n_pairs", n_pairs)
    check_int("batch_size", batch_size)
    check_number("mask_prob", mask_prob, 0.0, 1.0, low_open=True)
    rng, generator = random.Random(seed), torch.Generator().manual_seed(seed)
    pairs = data.pairs(n_pairs, rng, split="held_out", max_len=model.config.max_len)
    device = next(model.parameters()).device
    most_frequent = int(data.unigram_counts.argmax())
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
    return {
        "masked_accuracy": totals["correct"] / totals["n"],
        "masked_loss": totals["loss"] / totals["n"],
        "unigram_accuracy": totals["baseline"] / totals["n"],
        "unigram_token": data.vocab.itos[most_frequent],
        "nsp_accuracy": totals["nsp_correct"] / totals["pairs"],
        "predicted_tokens": totals["n"],
    }


def save_checkpoint(path: Path, model: Bert, vocab: WordVocab) -> None:
    """Config, vocabulary and float16 weights in one file, loadable with ``torch.load(weights_only=True)``.

    The MLM output weight is tied to the token embedding, so it is stored once.
    """
    path = check_path("path", path)
    if not path.parent.is_dir():
        raise FileNotFoundError(f"path must be in an existing folder; no folder {path.parent}")
    check_type("model", model, Bert, "a dl4nlp.bert.Bert")
    check_type("vocab", vocab, WordVocab, "a dl4nlp.bpe.WordVocab")
    state = {
        k: v.detach().to("cpu", torch.float16)
        for k, v in model.state_dict().items()
        if not (model.config.tie_weights and k == "mlm_decoder.weight")
    }
    torch.save(
        {
            "config": asdict(model.config),
            "specials": list(vocab.specials),
            "words": vocab.itos[len(vocab.specials) :],
            "state_dict": state,
        },
        path,
    )


def load_checkpoint(path: Path, device: Optional[torch.device] = None) -> tuple[Bert, WordVocab]:
    """The model (float32, eval mode) and vocabulary saved by ``save_checkpoint``."""
    path = check_file("path", path, "a tiny-BERT checkpoint (.pt)")
    if path.stat().st_size == 0:
        raise ValueError(f"path must be a tiny-BERT checkpoint; {path} is empty (0 bytes)")
    saved = torch.load(path, map_location="cpu", weights_only=True)
    expected = {"config", "specials", "words", "state_dict"}
    if not isinstance(saved, dict) or not expected <= set(saved):
        keys = sorted(saved) if isinstance(saved, dict) else type(saved).__name__
        raise ValueError(f"{path} is not a tiny-BERT checkpoint: expected the keys {sorted(expected)}; got {keys}")
    model = Bert(TransformerConfig(**saved["config"]))
    missing, unexpected = model.load_state_dict({k: v.float() for k, v in saved["state_dict"].items()}, strict=False)
    if unexpected or set(missing) - {"mlm_decoder.weight"}:
        raise ValueError(f"{path} does not match the model: missing {missing}, unexpected {unexpected}")
    return model.to(device or torch.device("cpu")).eval(), WordVocab(saved["words"], saved["specials"])


def _recipe(args: argparse.Namespace, corpus: str, started: float, **results) -> dict:
    from dl4nlp import __version__

    return {
        "command": "python -m dl4nlp.bert_pretrain " + " ".join(sys.argv[1:]),
        "seed": args.seed,
        "library_version": __version__,
        "torch_version": torch.__version__,
        "corpus": corpus,
        "corpus_md5": md5sum(data_path(corpus)),
        "device": f"cpu ({torch.get_num_threads()} threads)",
        "steps": args.steps,
        "wall_time_s": round(time.time() - started, 1),
        **results,
    }


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dl4nlp.bert_pretrain", description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["train", "mask-sweep"])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--corpus", default="tinystories.txt")
    parser.add_argument("--steps", type=int, default=2400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--threads", type=int, default=None, help="CPU threads (default: torch's choice)")
    parser.add_argument("--rates", default="0.05,0.15,0.3,0.5,0.8", help="mask-sweep: masking rates")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    started = time.time()
    data = PretrainingData(load_text(args.corpus))
    if args.command == "train":
        model = make_model(len(data.vocab))
        history = pretrain(model, data, steps=args.steps, lr=args.lr, seed=args.seed)
        save_checkpoint(args.out, model, data.vocab)
        results = evaluate(model, data)
        recipe = _recipe(
            args, args.corpus, started, config=asdict(model.config), final_loss=history.loss[-1], **results
        )
    else:
        rows = []
        for rate in (float(r) for r in args.rates.split(",")):
            torch.manual_seed(args.seed)
            model = make_model(len(data.vocab), d_model=64, n_heads=2, n_layers=2, d_ff=256)
            pretrain(model, data, steps=args.steps, lr=args.lr, seed=args.seed, mask_prob=rate, nsp_weight=0.0)
            at_15 = evaluate(model, data, mask_prob=0.15)
            at_rate = evaluate(model, data, mask_prob=rate)
            rows.append(
                {
                    "mask_prob": rate,
                    "accuracy_at_15": round(at_15["masked_accuracy"], 4),
                    "accuracy_at_own_rate": round(at_rate["masked_accuracy"], 4),
                    "loss_at_15": round(at_15["masked_loss"], 4),
                }
            )
            print(rows[-1], flush=True)
        with open(args.out, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        recipe = _recipe(args, args.corpus, started, model=dict(d_model=64, n_heads=2, n_layers=2, d_ff=256))
    args.out.with_suffix(".json").write_text(json.dumps(recipe, indent=2) + "\n")
    print(json.dumps(recipe, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
