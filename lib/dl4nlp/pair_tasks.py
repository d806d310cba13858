"""Two tasks on BERT's pair input ``[CLS] A [SEP] B [SEP]``: does B follow A, and where in B is A's blank?

Both take their labels from the shipped text itself (the paragraphs of
``dl4nlp.dialogue.pretraining_documents``) and both read the two segments
with BERT's segment embeddings.

- **Next sentence** (``next_sentence_sets``): A is one or more sentences of a
  paragraph; B is what follows it (label 1) or sentences of another paragraph
  (label 0), half of each (``PretrainingData.pairs``). ``PairClassifier``: the
  pooled ``[CLS]`` vector -> dropout -> a linear layer, as in fine-tuning.
  Baseline: ``overlap_baseline``, "B follows A when they share at least *k*
  content words", *k* chosen on the training pairs.
- **Span selection** (``cloze_sets``): extractive question answering where the
  text writes the questions. The question (segment A) is one sentence of a
  paragraph with one content word replaced by ``[MASK]``; the context
  (segment B) is the sentences of the same paragraph nearest to it, which
  contain that word. The answer is the word's first occurrence in the context,
  a span of word pieces. ``SpanSelector``: a linear layer on every final
  hidden state gives a start and an end score; ``span_loss`` is the mean of
  the two cross-entropies; ``best_span`` decodes the best ``start <= end <
  start + max_length``. Baseline: ``frequent_word_baseline``, the context's
  most frequent content word not in the question.

A *content word* is alphabetic, at least 3 letters long and not one of the
``FUNCTION_WORDS`` (articles, pronouns, auxiliaries, prepositions, conjunctions). Training, validation
and test examples come from disjoint paragraphs: training and validation from
the paragraphs the tiny BERT was pre-trained on (validation from the last
``VALIDATION_SHARE`` of each book's, so that it mixes both books as the test
does), test from the held-out ones. ``pair_scores`` runs
one seed of the comparison (``python -m dl4nlp.recipes.pair_tasks``). Taught in
notebook 13.

>>> import torch
>>> best_span(torch.tensor([[0.0, 3.0, 1.0, 0.0]]), torch.tensor([[0.0, 0.0, 2.0, 5.0]]), max_length=2)
tensor([[2, 3]])
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping, Optional, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from dl4nlp._checks import (
    check_choice,
    check_file,
    check_int,
    check_number,
    check_sequence,
    check_tensor,
    check_type,
    given,
)
from dl4nlp.bert import Bert
from dl4nlp.bpe import pre_tokenize
from dl4nlp.finetune import _adamw_steps

FUNCTION_WORDS = frozenset(
    "the and but for nor not yet with from into onto upon over under about after before then than that this these "
    "those there here what when where which who whom whose why how all any each every some many much more most "
    "very too also just only own same such was were are been being have has had having does did doing can could "
    "shall should will would may might must his her hers him she they them their theirs you your yours our ours "
    "its itself himself herself themselves myself yourself one said says".split()
)  # articles, pronouns, auxiliaries, prepositions, conjunctions: never a cloze answer
VALIDATION_SHARE = 0.1  # the last 10 % of each book's pre-training paragraphs give the validation examples
MAX_SPAN = 8  # the longest answer ``best_span`` considers, in word pieces
NEGATIVE = -1e4  # the start/end score of a position outside the context
TASKS = ("next_sentence", "span")


@dataclass(frozen=True)
class PairExample:
    """Segment ``a`` and segment ``b`` (word-piece ids) and the target: a class, or the answer's (start, end) in b."""

    a: tuple
    b: tuple
    target: Any  # int (next sentence) or (start, end) within b, inclusive (span)
    answer: str = ""  # the hidden word (span selection)


def _words(text: str) -> list[str]:
    return pre_tokenize(text, lowercase=True)


def content_words(words: Sequence[str]) -> list[str]:
    """The content words of ``words`` (alphabetic, 3+ letters, not in ``FUNCTION_WORDS``), in order.

    >>> content_words(["the", "little", "dog", "ran", "to", "lily", "."])
    ['little', 'dog', 'ran', 'lily']
    """
    words = check_sequence("words", words, nonempty=False, what="a list of lower-case words")
    if not all(isinstance(w, str) for w in words):
        raise TypeError(f"words must be a list of strings (pre-tokenized, lower case); got {given(words)}")
    return [w for w in words if w.isalpha() and len(w) >= 3 and w not in FUNCTION_WORDS]


def _documents(part: str) -> list[list[str]]:
    from dl4nlp.dialogue import pretraining_documents

    if part == "test":
        return pretraining_documents("held_out")
    from dl4nlp.dialogue import CORPORA, split

    documents, out, first = pretraining_documents("train"), [], 0  # one document per paragraph, corpus by corpus
    for corpus in CORPORA:  # the validation share of each corpus, so that validation mixes both like the test
        n = len(split(corpus)["train"])
        cut = first + round(n * (1 - VALIDATION_SHARE))
        out += documents[first:cut] if part == "train" else documents[cut : first + n]
        first += n
    return out


def next_sentence_sets(tokenizer: Any, sizes: Mapping[str, int], seed: int = 0, max_len: int = 64) -> dict:
    """``{part: [PairExample]}`` for each part of ``sizes`` (train, validation, test): next-sentence pairs."""
    from dl4nlp.bert_pretrain import PretrainingData

    sizes = _check_sizes(sizes)
    check_int("seed", seed, low=0)
    data = PretrainingData({part: _documents(part) for part in ("train", *sizes)}, tokenizer)
    out = {}
    for part, n in sizes.items():  # one generator per part: the first m of n examples are the examples of m
        pairs = data.pairs(n, random.Random(f"{seed}:{part}"), split=part, max_len=max_len)
        out[part] = [PairExample(tuple(a), tuple(b), int(y)) for a, b, y in pairs]
    return out


def _check_sizes(sizes: Any) -> dict:
    if not isinstance(sizes, Mapping) or not sizes:
        raise TypeError(f"sizes must be a dict {{part: number of examples}}; got {given(sizes)}")
    for part, n in sizes.items():
        check_choice("a part of sizes", part, ("train", "validation", "test"))
        check_int(f"sizes[{part!r}]", n)
    return dict(sizes)


def _cloze(
    document: Sequence[str], q: int, encode: Any, mask_id: int, rng: random.Random, max_len: int
) -> Optional[PairExample]:
    """The cloze example whose question is sentence ``q`` of ``document``, or None when none fits."""
    words = [_words(s) for s in document]
    question_pieces = sum(len(encode(w)) for w in words[q])
    if question_pieces > (max_len - 3) // 2:
        return None
    order = sorted((i for i in range(len(document)) if i != q), key=lambda i: (abs(i - q), i))
    chosen, room = [], max_len - 3 - question_pieces
    for i in order:
        size = sum(len(encode(w)) for w in words[i])
        if size > room:
            break
        chosen.append(i)
        room -= size
    context = [w for i in sorted(chosen) for w in words[i]]
    eligible = sorted(set(content_words(words[q])) & set(context))
    if not eligible:
        return None
    answer = rng.choice(eligible)
    a = [p for w in words[q] for p in ([mask_id] if w == answer else encode(w))]
    b, start = [], None
    for w in context:
        if w == answer and start is None:
            start = len(b)
        b += encode(w)
    end = start + len(encode(answer)) - 1
    return PairExample(tuple(a), tuple(b), (start, end), answer)


def cloze_sets(tokenizer: Any, sizes: Mapping[str, int], seed: int = 0, max_len: int = 64) -> dict:
    """``{part: [PairExample]}`` for part in ``sizes``: cloze questions and contexts, the answer a span of the context.

    The sentences of the part's paragraphs (of two sentences or more) are
    visited in an order drawn with ``seed``, each made a question when it has a
    content word that also occurs in its context (the hidden word is drawn
    among those), until ``sizes[part]`` are made. Too few is refused.
    """
    sizes = _check_sizes(sizes)
    check_int("seed", seed, low=0)
    check_int("max_len", max_len, low=8)
    out, known = {}, {}

    def encode(word: str) -> list[int]:  # a word's pieces, each word encoded once
        if word not in known:
            known[word] = tokenizer.encode(word)
        return known[word]

    for part, n in sizes.items():
        rng = random.Random(f"{seed}:{part}")
        documents = _documents(part)
        examples = []
        sentences = [(d, q) for d in range(len(documents)) if len(documents[d]) > 1 for q in range(len(documents[d]))]
        for d, q in rng.sample(sentences, len(sentences)):  # every sentence may be a question, in a seeded order
            e = _cloze(documents[d], q, encode, tokenizer["[MASK]"], rng, max_len)
            if e is not None:
                examples.append(e)
            if len(examples) == n:
                break
        if len(examples) < n:
            raise ValueError(
                f"sizes[{part!r}] asks for {n} cloze questions; the {part} paragraphs give {len(examples)}"
            )  # noqa: E501
        out[part] = examples
    return out


def encode_pairs(examples: Sequence[PairExample], tokenizer: Any) -> dict[str, torch.Tensor]:
    """Pad examples into ``ids``, ``segments``, ``valid`` (N, T) and ``targets``: (N,) classes or (N, 2) positions.

    A span's (start, end) become positions in ``[CLS] a [SEP] b [SEP]``;
    ``context`` (N, T) is True at the positions of b, where a span may lie.
    """
    from dl4nlp.bert import pair_inputs

    examples = check_sequence("examples", examples, what="a list of PairExample")
    for e in examples:
        check_type("examples: an example", e, PairExample, "a PairExample (from next_sentence_sets or cloze_sets)")
    spans = {isinstance(e.target, tuple) for e in examples}
    if len(spans) > 1:
        raise ValueError("examples must all be next-sentence pairs (int targets) or all cloze questions (span targets)")
    rows = [pair_inputs(list(e.a), list(e.b), cls=tokenizer["[CLS]"], sep=tokenizer["[SEP]"]) for e in examples]
    T = max(len(r[0]) for r in rows)
    ids = torch.full((len(rows), T), tokenizer["[PAD]"], dtype=torch.long)
    segments, context = torch.zeros_like(ids), torch.zeros(len(rows), T, dtype=torch.bool)
    for i, ((tokens, segment, _), e) in enumerate(zip(rows, examples)):
        ids[i, : len(tokens)], segments[i, : len(tokens)] = torch.tensor(tokens), torch.tensor(segment)
        context[i, len(e.a) + 2 : len(tokens) - 1] = True
    if spans == {True}:
        targets = torch.tensor([[len(e.a) + 2 + e.target[0], len(e.a) + 2 + e.target[1]] for e in examples])
    else:
        targets = torch.tensor([e.target for e in examples])
    return {"ids": ids, "segments": segments, "valid": ids != tokenizer["[PAD]"], "context": context,
            "targets": targets}  # fmt: skip


class PairClassifier(nn.Module):
    """BERT + its fine-tuning head on both segments: a batch (ids, segments, valid) -> class scores (B, n_classes)."""

    def __init__(self, encoder: Bert, n_classes: int = 2, dropout: float = 0.1):
        super().__init__()
        check_type("encoder", encoder, Bert, "a dl4nlp.bert.Bert")
        check_int("n_classes", n_classes, low=2)
        check_number("dropout", dropout, 0, 1, high_open=True)
        self.encoder, self.dropout = encoder, nn.Dropout(dropout)
        self.head = nn.Linear(encoder.config.d_model, n_classes).to(encoder.token_embedding.weight.device)

    def forward(self, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
        hidden = self.encoder(batch["ids"], batch["segments"], batch["valid"])  # (B, T, C)
        return self.head(self.dropout(torch.tanh(self.encoder.pooler(hidden[:, 0]))))

    def loss(self, scores: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(scores, targets)

    def decode(self, scores: torch.Tensor) -> torch.Tensor:
        return scores.argmax(-1)


class SpanSelector(nn.Module):
    """BERT + a start/end layer: a batch -> scores (B, T, 2), ``NEGATIVE`` outside the context (segment B)."""

    def __init__(self, encoder: Bert, dropout: float = 0.1, max_length: int = MAX_SPAN):
        super().__init__()
        check_type("encoder", encoder, Bert, "a dl4nlp.bert.Bert")
        check_number("dropout", dropout, 0, 1, high_open=True)
        self.max_length = check_int("max_length", max_length)
        self.encoder, self.dropout = encoder, nn.Dropout(dropout)
        self.head = nn.Linear(encoder.config.d_model, 2).to(encoder.token_embedding.weight.device)

    def forward(self, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
        hidden = self.encoder(batch["ids"], batch["segments"], batch["valid"])  # (B, T, C)
        scores = self.head(self.dropout(hidden))  # (B, T, 2): start and end scores
        return scores.masked_fill(~batch["context"][:, :, None], NEGATIVE)

    def loss(self, scores: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return span_loss(scores[..., 0], scores[..., 1], targets)

    def decode(self, scores: torch.Tensor) -> torch.Tensor:
        return best_span(scores[..., 0], scores[..., 1], self.max_length)


def _check_logits(start_logits: Any, end_logits: Any) -> torch.Tensor:
    start_logits = check_tensor("start_logits", start_logits, shape=("B", "T"), dtype="float")
    check_tensor("end_logits", end_logits, shape=tuple(start_logits.shape), dtype="float")
    return start_logits


def span_loss(start_logits: torch.Tensor, end_logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """The mean of the start and the end cross-entropies: scores (B, T) each, targets (B, 2) positions.

    >>> span_loss(torch.zeros(1, 4), torch.zeros(1, 4), torch.tensor([[1, 2]]))  # uniform: log 4
    tensor(1.3863)
    """
    start_logits = _check_logits(start_logits, end_logits)
    B, T = start_logits.shape
    targets = check_tensor("targets", targets, shape=(B, 2), dtype="integer")
    if bool(((targets < 0) | (targets >= T)).any()):
        raise ValueError(f"targets must be positions in [0, {T}); got {targets.tolist()}")
    if bool((targets[:, 0] > targets[:, 1]).any()):
        raise ValueError(f"targets must be (start, end) with start <= end; got {targets.tolist()}")
    return (F.cross_entropy(start_logits, targets[:, 0]) + F.cross_entropy(end_logits, targets[:, 1])) / 2


def best_span(start_logits: torch.Tensor, end_logits: torch.Tensor, max_length: int = MAX_SPAN) -> torch.Tensor:
    """(B, 2): the (start, end) maximising ``start_logits[start] + end_logits[end]``, start <= end < start + max_length.

    Ties go to the earliest start, then the earliest end.
    """
    start_logits = _check_logits(start_logits, end_logits)
    check_int("max_length", max_length)
    T = start_logits.shape[1]
    scores = start_logits[:, :, None] + end_logits[:, None, :]  # (B, start, end)
    position = torch.arange(T, device=scores.device)
    allowed = (position[None, :] >= position[:, None]) & (position[None, :] < position[:, None] + max_length)
    best = scores.masked_fill(~allowed, float("-inf")).flatten(1).argmax(1)  # (B,)
    return torch.stack([best // T, best % T], dim=1)


def train_pairs(model: nn.Module, rows: Mapping[str, torch.Tensor], *, steps: int, lr: float, seed: int = 0,
                batch_size: int = 32, warmup: float = 0.1) -> list[float]:  # fmt: skip
    """Fine-tune every weight of a ``PairClassifier`` or ``SpanSelector`` on ``encode_pairs`` rows; the losses.

    AdamW (weight decay 0.01) with BERT's schedule (linear warm-up over
    ``warmup`` of the steps, then linear decay), gradients clipped to norm 1,
    mini-batches of shuffled rows drawn with ``seed``, as ``dl4nlp.finetune.fine_tune``.
    """
    check_type("model", model, (PairClassifier, SpanSelector), "a PairClassifier or SpanSelector")
    rows = _check_rows(rows)
    check_int("steps", steps)
    check_number("lr", lr, 0, low_open=True)
    check_int("seed", seed, low=0)
    check_int("batch_size", batch_size)
    check_number("warmup", warmup, 0, 1)
    device = model.head.weight.device
    rows = {k: v.to(device) for k, v in rows.items()}

    def loss_of(chosen: list[int]) -> torch.Tensor:
        T = int(rows["valid"][chosen].sum(1).max())  # trim this batch's padding
        batch = {k: (v[chosen, :T] if v.dim() == 2 and k != "targets" else v[chosen]) for k, v in rows.items()}
        return model.loss(model(batch), batch["targets"])

    model.train()
    losses = _adamw_steps(list(model.parameters()), loss_of, len(rows["ids"]), steps=steps, lr=lr,
                          batch_size=batch_size, seed=seed, warmup=warmup)  # fmt: skip
    model.eval()
    return losses


def _check_rows(rows: Any) -> dict:
    needed = ("ids", "segments", "valid", "context", "targets")
    if not isinstance(rows, Mapping) or any(k not in rows for k in needed):
        raise TypeError(f"rows must be the dict of encode_pairs, with {list(needed)}; got {given(rows)}")
    return dict(rows)


@torch.no_grad()
def pair_accuracy(model: nn.Module, rows: Mapping[str, torch.Tensor], batch_size: int = 256) -> float:
    """Share of rows right: the class (next sentence), or the exact answer pieces (span selection).

    A span is right when its pieces equal the answer's, at any occurrence in the context.
    """
    check_type("model", model, (PairClassifier, SpanSelector), "a PairClassifier or SpanSelector")
    rows = _check_rows(rows)
    check_int("batch_size", batch_size)
    model.eval()
    device = model.head.weight.device
    right = 0
    for i in range(0, len(rows["ids"]), batch_size):
        batch = {k: v[i : i + batch_size].to(device) for k, v in rows.items()}
        predicted = model.decode(model(batch))
        if isinstance(model, PairClassifier):
            right += int((predicted == batch["targets"]).sum())
        else:
            right += span_accuracy(batch, predicted) * len(predicted)
    return right / len(rows["ids"])


def span_accuracy(rows: Mapping[str, torch.Tensor], spans: torch.Tensor) -> float:
    """Share of ``spans`` (N, 2) whose pieces equal the answer's (``rows['targets']``), at any occurrence.

    >>> rows = {"ids": torch.tensor([[2, 7, 3, 7, 8, 3]]), "targets": torch.tensor([[1, 1]])}
    >>> span_accuracy(rows, torch.tensor([[3, 3]])), span_accuracy(rows, torch.tensor([[3, 4]]))
    (1.0, 0.0)
    """
    if not isinstance(rows, Mapping) or "ids" not in rows or "targets" not in rows:
        raise TypeError(f"rows must be the dict of encode_pairs (ids, targets); got {given(rows)}")
    spans = check_tensor("spans", spans, shape=(len(rows["ids"]), 2), dtype="integer")
    right = 0
    for ids, (s, e), (ts, te) in zip(rows["ids"], spans.tolist(), rows["targets"].tolist()):
        right += ids[s : e + 1].tolist() == ids[ts : te + 1].tolist()
    return right / len(spans)


@torch.no_grad()
def reader_scores(model: Bert, rows: Mapping[str, torch.Tensor], mask_id: int) -> torch.Tensor:
    """(N, T), on the CPU: the log-probability the masked LM gives, at the question's (first) ``[MASK]``, to each
    passage piece.

    ``NEGATIVE`` outside the passage. With these as start scores (and end
    scores of 0, spans of one piece) the pre-trained model answers cloze
    questions before any fine-tuning. The rows may be on the CPU; the model runs on its own device.
    """
    check_type("model", model, Bert, "a dl4nlp.bert.Bert")
    device = model.token_embedding.weight.device
    rows = {k: v.to(device) for k, v in _check_rows(rows).items()}
    masks = rows["ids"] == mask_id
    if not bool(masks.any(1).all()):
        missing = int((~masks.any(1)).nonzero()[0])
        raise ValueError(f"every row must hold a [MASK] (id {mask_id}, the question's blank); row {missing} has none")
    first = masks.float().argmax(1)  # the first [MASK] of each row (a word hidden twice is masked twice)
    masks = torch.zeros_like(masks)
    masks[torch.arange(len(first)), first] = True
    model.eval()
    hidden = model(rows["ids"], rows["segments"], rows["valid"])
    log_probs = torch.log_softmax(model.mlm_logits(hidden, masks), dim=-1)  # (N, V): one blank per row
    scores = log_probs.gather(1, rows["ids"])  # (N, T): each position's piece, scored at the blank
    return scores.masked_fill(~rows["context"], NEGATIVE).cpu()


def overlap_baseline(train: Sequence[PairExample], test: Sequence[PairExample]) -> float:
    """Accuracy on ``test`` of "IsNext when A and B share at least k content pieces", k best on ``train``."""
    train = check_sequence("train", train, what="a list of next-sentence PairExample")
    test = check_sequence("test", test, what="a list of next-sentence PairExample")

    def shared(e: PairExample) -> int:
        if not isinstance(e, PairExample) or isinstance(e.target, tuple):
            raise TypeError(f"train and test must hold next-sentence PairExample; got {given(e)}")
        return len(set(e.a) & set(e.b) - _common_ids())

    def score(examples: Sequence[PairExample], k: int) -> float:
        return sum((shared(e) >= k) == bool(e.target) for e in examples) / len(examples)

    k = max(range(6), key=lambda k: score(train, k))
    return score(test, k)


@lru_cache(maxsize=1)
def _common_ids() -> frozenset:
    """The word-piece ids of the function words, of words under 3 letters and of punctuation (not content pieces)."""
    from dl4nlp.bert import load_pretrained

    _, tokenizer = load_pretrained()
    common = {i for w in FUNCTION_WORDS for i in tokenizer.encode(w)}
    bare = [t.strip("#") for t in tokenizer.itos]
    short_or_punctuation = {i for i, t in enumerate(bare) if len(t) < 3 or not t.isalpha()}
    return frozenset(common | short_or_punctuation)


def frequent_word_baseline(examples: Sequence[PairExample], tokenizer: Any) -> float:
    """Accuracy of answering each cloze question with its context's most frequent content word absent from the
    question (ties: the first in the context)."""
    examples = check_sequence("examples", examples, what="a list of cloze PairExample")
    right = 0
    for e in examples:
        if not isinstance(e, PairExample) or not isinstance(e.target, tuple):
            raise TypeError(f"examples must hold cloze PairExample (from cloze_sets); got {given(e)}")
        question = set(_words(tokenizer.decode(list(e.a))))
        candidates = [w for w in content_words(_words(tokenizer.decode(list(e.b)))) if w not in question]
        counts = Counter(candidates)
        right += bool(candidates) and max(candidates, key=lambda w: (counts[w], -candidates.index(w))) == e.answer
    return right / len(examples)


def pair_scores(task: str, seed: int, budget: int, learning_rates: Mapping[str, float], steps: int,
                scored: str = "test", n_scored: Optional[int] = None) -> dict[str, float]:  # fmt: skip
    """Accuracy of each method on ``task`` with ``budget`` training examples drawn by ``seed``.

    Methods: the keys of ``learning_rates`` (``pretrained``: the shipped tiny
    BERT fine-tuned; ``scratch``: the same architecture from random weights,
    same schedule and steps) and always ``baseline`` (``overlap_baseline`` or
    ``frequent_word_baseline``). Scored on the first ``n_scored`` examples of
    ``scored`` (validation or test; 500 of each are built).
    """
    check_choice("task", task, TASKS)
    check_int("seed", seed, low=0)
    check_int("budget", budget)
    if not isinstance(learning_rates, Mapping):
        raise TypeError(f"learning_rates must be a dict {{method: rate}}; got {given(learning_rates)}")
    for method, lr in learning_rates.items():
        check_choice("a method of learning_rates", method, ("pretrained", "scratch"))
        check_number(f"learning_rates[{method!r}]", lr, 0, low_open=True)
    check_int("steps", steps)
    check_choice("scored", scored, ("validation", "test"))
    if n_scored is not None:
        check_int("n_scored", n_scored, high=SCORED)
    check_int("budget", budget, high=POOL)
    pool, evaluated = task_sets(task)
    train = random.Random(seed).sample(pool, budget)
    return method_scores(train, evaluated[scored][:n_scored], learning_rates, steps, seed)


def method_scores(train: Sequence[PairExample], test: Sequence[PairExample], learning_rates: Mapping[str, float],
                  steps: int, seed: int = 0) -> dict[str, float]:  # fmt: skip
    """Test accuracy of each method of ``learning_rates`` trained on ``train`` (``pair_scores``), and the baseline's."""
    from dl4nlp.bert import load_pretrained

    train = check_sequence("train", train, what="a list of PairExample")
    test = check_sequence("test", test, what="a list of PairExample")
    for method, lr in dict(learning_rates).items():
        check_choice("a method of learning_rates", method, ("pretrained", "scratch"))
        check_number(f"learning_rates[{method!r}]", lr, 0, low_open=True)
    check_int("steps", steps)
    check_int("seed", seed, low=0)
    model, tokenizer = load_pretrained()
    train_rows, test_rows = encode_pairs(train, tokenizer), encode_pairs(test, tokenizer)
    out = {}
    for method, lr in learning_rates.items():
        head = _trained_head(model, train, train_rows, method, lr, steps, seed)
        out[method] = pair_accuracy(head, test_rows)
    out["baseline"] = _baseline(train, test, tokenizer)
    return out


def _is_span(examples: Sequence[PairExample]) -> bool:
    return isinstance(getattr(examples[0], "target", None), tuple)


def _trained_head(model: Any, train: Sequence[PairExample], train_rows: Any, method: str, lr: float, steps: int,
                  seed: int) -> nn.Module:  # fmt: skip
    """The pair head on ``model``'s weights (``pretrained``) or fresh ones (``scratch``), trained on ``train_rows``."""
    from dl4nlp.finetune import fresh_copy

    torch.manual_seed(seed)
    encoder = fresh_copy(model, pretrained=method == "pretrained")
    head = SpanSelector(encoder) if _is_span(train) else PairClassifier(encoder)
    train_pairs(head, train_rows, steps=steps, lr=lr, seed=seed)
    return head


def _baseline(train: Sequence[PairExample], scored: Sequence[PairExample], tokenizer: Any) -> float:
    """The task's baseline on ``scored``: shared content words (next sentence) or the most frequent one (span)."""
    return frequent_word_baseline(scored, tokenizer) if _is_span(train) else overlap_baseline(train, scored)


POOL, SCORED = 5000, 500  # training examples built per task; validation and test examples built per task


@lru_cache(maxsize=2)
def task_sets(task: str) -> tuple[list, dict]:
    """(the training pool of ``POOL`` examples, {validation, test: ``SCORED`` examples}) of ``task``, built once."""
    from dl4nlp.bert import load_pretrained

    check_choice("task", task, TASKS)
    _, tokenizer = load_pretrained()
    build = next_sentence_sets if task == "next_sentence" else cloze_sets
    sets = build(tokenizer, {"train": POOL, "validation": SCORED, "test": SCORED}, seed=2026)
    return sets["train"], {"validation": sets["validation"], "test": sets["test"]}


RESULTS = "pair_tasks.csv"  # in data/, made by ``python -m dl4nlp.recipes.pair_tasks``


def load_results(path: Optional[str] = None) -> tuple[dict, dict]:
    """The shipped test comparison as ``{(task, seed, method): accuracy}``, and its provenance (checksum verified).

    The provenance's ``results`` hold the learning-rate grid (``grid``, validation accuracies) and the chosen rates.
    """
    from dl4nlp.checkpoint import load_table
    from dl4nlp.data import data_path

    path = data_path(RESULTS) if path is None else check_file("path", path, "a .csv table like data/pair_tasks.csv")
    rows, provenance = load_table(path)
    missing = [k for k in ("task", "seed", "method", "accuracy") if k not in rows[0]]
    if missing:
        raise ValueError(f"path must be a table like data/{RESULTS}; it lacks the columns {missing}")
    test = [r for r in rows if r.get("split", "test") == "test"]  # the learning-rate grid's rows are validation
    return {(r["task"], int(r["seed"]), r["method"]): float(r["accuracy"]) for r in test}, provenance
