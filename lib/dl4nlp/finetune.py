"""Adapting a pre-trained BERT: a classifier on [CLS], a tagger on every token, a linear probe, baselines.

``SentenceClassifier`` puts BERT's fine-tuning head on an encoder: the pooled
[CLS] vector (``tanh(W h_[CLS] + b)``, the pooler pre-trained by next-sentence
prediction) -> dropout -> a linear layer. ``TokenTagger`` puts a linear layer
on every position. ``fine_tune`` trains either, all weights or (``freeze=
True``) the head only. ``linear_probe`` fits logistic regression on frozen
features; ``bag_of_words`` is the classical baseline. Taught in notebook 13.

>>> from dl4nlp.bert import bert_config
>>> from dl4nlp.wordpiece import WordPiece
>>> wp = WordPiece(["good", "bad", "film", "##s"])
>>> ids, valid = encode_batch(wp, ["Good films", "bad"], max_len=8)  # (B=2, T=5), padded
>>> [wp.itos[i] for i in ids[1]], valid[1].tolist()
(['[CLS]', 'bad', '[SEP]', '[PAD]', '[PAD]'], [True, True, True, False, False])
>>> encoder = Bert(bert_config(vocab_size=len(wp), d_model=16, n_heads=2, n_layers=1, d_ff=32, max_len=8))
>>> SentenceClassifier(encoder, n_classes=3)(ids, valid).shape  # one score per class per text
torch.Size([2, 3])
"""

from __future__ import annotations

import copy
import math
import random
from typing import Any, Callable, Mapping, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from dl4nlp._checks import (
    check_bool,
    check_ids,
    check_int,
    check_number,
    check_sequence,
    check_strings,
    check_tensor,
    check_type,
    given,
    short,
)
from dl4nlp.bert import IGNORE_INDEX, Bert
from dl4nlp.bpe import pre_tokenize

PROBE_L2 = 1e-3  # weight decay of the logistic regressions (linear probe, bag of words), per example


def _check_tokenizer(tokenizer: Any) -> None:
    if not (callable(getattr(tokenizer, "encode", None)) and hasattr(tokenizer, "__getitem__")):
        raise TypeError(f"tokenizer must be a WordPiece (with encode and [token] lookup); got {given(tokenizer)}")


def _check_rows(model: nn.Module, ids: Any, valid: Any, labels: Any = None, prefix: str = "") -> None:
    """ids (N, T) within the encoder's vocabulary, valid (N, T) bool, labels (N,) or (N, T) integers."""
    vocab_size = model.encoder.config.vocab_size if isinstance(model, (SentenceClassifier, TokenTagger)) else None
    ids = check_ids(prefix + "ids", ids, vocab_size, shape=("N", "T"), bound="vocab_size")
    check_tensor(prefix + "valid", valid, dtype="bool", shape=tuple(ids.shape))
    _check_valid_polarity(prefix + "valid", valid)
    if labels is not None:
        check_tensor(prefix + "labels", labels, dtype="integer", expected=f"(N,) or (N, T) with N={len(ids)}")
        if labels.shape != ids.shape[:1] and labels.shape != ids.shape:
            raise ValueError(
                f"{prefix}labels must have shape ({len(ids)},) or {tuple(ids.shape)}; got {tuple(labels.shape)}"
            )


def _check_valid_polarity(name: str, valid: torch.Tensor) -> None:
    """``valid`` is True on real tokens, from [CLS] at position 0 up to the padding (False): each row a prefix.

    A mask of the other polarity (True = padding, as ``key_padding_mask`` of
    ``torch.nn.MultiheadAttention``) is False at [CLS] and refused.
    """
    if valid.numel() == 0:
        return
    first = valid[:, 0]
    if not bool(first.all()):
        row = int((~first).nonzero()[0])
        raise ValueError(
            f"{name} must be True on real tokens, [CLS] at position 0 included, and False on padding; got False at "
            f"({row}, 0) (a mask of the other polarity, True = padding? use ids != pad id, as encode_batch does)"
        )
    if valid.shape[1] > 1:
        rises = valid[:, 1:] & ~valid[:, :-1]  # False then True: a token after padding
        if bool(rises.any()):
            row, col = (int(i) for i in rises.nonzero()[0])
            raise ValueError(
                f"{name} must be True on a row's tokens then False on its padding (padding at the end); "
                f"got True at ({row}, {col + 1}) after False"
            )


def _check_labels(model: nn.Module, ids: torch.Tensor, valid: torch.Tensor, labels: torch.Tensor) -> None:
    """Labels that fit the model: (N,) classes of a SentenceClassifier, (N, T) tags of a TokenTagger.

    Each is in [0, n) or ``IGNORE_INDEX``, and at least one is not ignored (else the loss is NaN); a
    tagger's padding (valid False) must be ``IGNORE_INDEX`` (else it is trained to tag padding).
    """
    check_tensor("labels", labels, dtype="integer")
    tagger = isinstance(model, TokenTagger)
    if tagger and labels.shape != ids.shape:
        raise ValueError(
            f"labels of a TokenTagger must hold one tag per token, shape {tuple(ids.shape)} (encode_tagged); "
            f"got {tuple(labels.shape)} (one label per sentence is for a SentenceClassifier)"
        )
    if not tagger and labels.shape != ids.shape[:1]:
        raise ValueError(
            f"labels of a SentenceClassifier must hold one class per row, shape ({len(ids)},); "
            f"got {tuple(labels.shape)} (one tag per token is for a TokenTagger)"
        )
    n, what = model.head.out_features, ("n_tags" if tagger else "n_classes")
    kept = labels != IGNORE_INDEX
    outside = kept & ((labels < 0) | (labels >= n))
    if bool(outside.any()):
        raise ValueError(
            f"labels must be in [0, {what}={n}) or IGNORE_INDEX ({IGNORE_INDEX}); got {int(labels[outside][0])}"
        )
    if not bool(kept.any()):
        raise ValueError(
            f"labels must hold at least one label to learn from; got every one IGNORE_INDEX ({IGNORE_INDEX})"
        )
    if tagger:
        padded = (~valid.to(labels.device)) & kept
        if bool(padded.any()):
            row, col = (int(i) for i in padded.nonzero()[0])
            raise ValueError(
                f"labels must be IGNORE_INDEX ({IGNORE_INDEX}) on padding (where valid is False); "
                f"got {int(labels[row, col])} at ({row}, {col})"
            )


def _device(model: nn.Module) -> torch.device:
    """Where ``model`` computes (a GPU, maybe): data given on the CPU is moved there at the boundary."""
    return next(model.parameters()).device


def _check_sentences(name: str, sentences: Any) -> list:
    """A non-empty list of (words, tags) pairs with one integer tag per word."""
    sentences = check_sequence(name, sentences, what="a list of (words, tags) pairs")
    for i, pair in enumerate(sentences):
        if not isinstance(pair, (tuple, list)) or len(pair) < 2 or isinstance(pair[0], str):
            raise TypeError(f"{name} must hold (words, tags) pairs; got {given(pair)} at {i}")
        words, tags = check_strings(f"{name}[{i}] words", pair[0]), check_sequence(f"{name}[{i}] tags", pair[1])
        if not all(isinstance(t, int) and not isinstance(t, bool) for t in tags):
            raise TypeError(f"{name}[{i}] tags must be integers; got {short(tags)}")
        if len(words) != len(tags):
            raise ValueError(f"{name}[{i}] needs one tag per word; got {len(words)} words and {len(tags)} tags")
    return sentences


def encode_batch(tokenizer: Any, texts: Sequence[str], max_len: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``[CLS] text [SEP]`` for every text, truncated to ``max_len`` and padded: ids and valid (B, T)."""
    _check_tokenizer(tokenizer)
    texts = check_strings("texts", texts)
    check_int("max_len", max_len, low=3)
    rows = [[tokenizer["[CLS]"], *tokenizer.encode(t)[: max_len - 2], tokenizer["[SEP]"]] for t in texts]
    T = max(map(len, rows))
    ids = torch.full((len(rows), T), tokenizer["[PAD]"], dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(row)
    return ids, ids != tokenizer["[PAD]"]


def encode_tagged(
    tokenizer: Any, sentences: Sequence[tuple[Sequence[str], Sequence[int]]], max_len: int, first_piece: bool = False
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Words with one tag each -> ids, valid and tags (B, T); every piece of a word carries the word's tag.

    With ``first_piece=True`` only a word's first piece carries it (the rest
    get ``IGNORE_INDEX``), as BERT's paper tags words for named entities:
    one prediction per word. [CLS], [SEP] and padding get ``IGNORE_INDEX``.

    >>> from dl4nlp.wordpiece import WordPiece
    >>> wp = WordPiece(["play", "##ing", "dogs"])
    >>> encode_tagged(wp, [(["dogs", "playing"], [3, 7])], max_len=8, first_piece=True)[2].tolist()
    [[-100, 3, 7, -100, -100]]
    """
    _check_tokenizer(tokenizer)
    sentences = _check_sentences("sentences", sentences)
    check_int("max_len", max_len, low=3)
    check_bool("first_piece", first_piece)
    rows, tag_rows = [], []
    for words, tags in sentences:
        ids, row_tags = [tokenizer["[CLS]"]], [IGNORE_INDEX]
        for word, tag in zip(words, tags):
            pieces = tokenizer.encode(word)
            ids += pieces
            row_tags += [tag] + [IGNORE_INDEX if first_piece else tag] * (len(pieces) - 1)
        rows.append(ids[: max_len - 1] + [tokenizer["[SEP]"]])
        tag_rows.append(row_tags[: max_len - 1] + [IGNORE_INDEX])
    T = max(map(len, rows))
    ids = torch.full((len(rows), T), tokenizer["[PAD]"], dtype=torch.long)
    tags = torch.full((len(rows), T), IGNORE_INDEX, dtype=torch.long)
    for i, (row, row_tags) in enumerate(zip(rows, tag_rows)):
        ids[i, : len(row)], tags[i, : len(row)] = torch.tensor(row), torch.tensor(row_tags)
    return ids, ids != tokenizer["[PAD]"], tags


class SentenceClassifier(nn.Module):
    """BERT + its fine-tuning head: ids, valid (B, T) -> class scores (B, n_classes) from the pooled [CLS]."""

    def __init__(self, encoder: Bert, n_classes: int = 2, dropout: float = 0.1):
        super().__init__()
        check_type("encoder", encoder, Bert, "a dl4nlp.bert.Bert")
        check_int("n_classes", n_classes, low=2)
        check_number("dropout", dropout, 0, 1, high_open=True)
        self.encoder = encoder
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(encoder.config.d_model, n_classes).to(_device(encoder))  # drawn on the CPU, moved

    def features(self, ids: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        """The pooled [CLS] vector (B, C): what the head (or a linear probe) reads."""
        hidden = self.encoder(ids, valid=valid)  # (B, T, C)
        return torch.tanh(self.encoder.pooler(hidden[:, 0]))

    def forward(self, ids: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        return self.head(self.dropout(self.features(ids, valid)))


class TokenTagger(nn.Module):
    """BERT + a linear layer on every position: ids, valid (B, T) -> tag scores (B, T, n_tags)."""

    def __init__(self, encoder: Bert, n_tags: int = 2, dropout: float = 0.1):
        super().__init__()
        check_type("encoder", encoder, Bert, "a dl4nlp.bert.Bert")
        check_int("n_tags", n_tags, low=2)
        check_number("dropout", dropout, 0, 1, high_open=True)
        self.encoder = encoder
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(encoder.config.d_model, n_tags).to(_device(encoder))  # drawn on the CPU, moved

    def forward(self, ids: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
        return self.head(self.dropout(self.encoder(ids, valid=valid)))


def fresh_copy(model: Bert, pretrained: bool = True) -> Bert:
    """A deep copy of ``model`` (``pretrained=True``) or the same architecture with fresh random weights."""
    check_type("model", model, Bert, "a dl4nlp.bert.Bert")
    if check_bool("pretrained", pretrained):
        return copy.deepcopy(model)
    return Bert(copy.deepcopy(model.config)).to(_device(model))  # drawn on the CPU (the same weights everywhere)


def _adamw_steps(params: list, loss_of: Callable[[list[int]], torch.Tensor], n: int, *, steps: int, lr: float,
                 batch_size: int, seed: int, warmup: float) -> list[float]:  # fmt: skip
    """BERT's fine-tuning loop, shared by ``fine_tune`` and ``pair_tasks.train_pairs``; the losses.

    AdamW (weight decay 0.01) over ``params``, linear warm-up over ``warmup`` of
    the steps then linear decay, gradients clipped to norm 1; each step takes
    the next ``batch_size`` of ``n`` row indices shuffled epoch by epoch with
    ``seed`` and minimises ``loss_of(rows)``.
    """
    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    ramp = max(1, round(warmup * steps))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / ramp, max(0.0, (steps - s) / max(1, steps - ramp)))
    )
    rng = random.Random(seed)
    order: list[int] = []
    losses = []
    for _ in range(steps):
        if len(order) < min(batch_size, n):
            order += rng.sample(range(n), n)  # epochs of shuffled rows
        rows, order = order[:batch_size], order[batch_size:]
        loss = loss_of(rows)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        schedule.step()
        losses.append(loss.item())
    return losses


def fine_tune(
    model: nn.Module,
    ids: torch.Tensor,
    valid: torch.Tensor,
    labels: torch.Tensor,
    *,
    steps: int,
    lr: float,
    batch_size: int = 32,
    seed: int = 0,
    freeze: bool = False,
    warmup: float = 0.1,
) -> list[float]:
    """Train ``model`` (a ``SentenceClassifier`` or ``TokenTagger``) on labelled rows; returns the losses.

    AdamW with BERT's schedule (linear warm-up over ``warmup`` of the steps,
    then linear decay), mini-batches drawn with ``seed``; ``freeze=True``
    trains the head only. Labels are (N,) classes or (N, T) tags with
    ``IGNORE_INDEX`` where nothing is predicted. The rows may be on any device;
    training runs on the model's.
    """
    check_type("model", model, (SentenceClassifier, TokenTagger), "a SentenceClassifier or TokenTagger")
    _check_rows(model, ids, valid, labels)
    _check_labels(model, ids, valid, labels)
    check_int("steps", steps)
    check_number("lr", lr, 0, low_open=True)
    check_int("batch_size", batch_size)
    check_int("seed", seed, low=0)
    check_bool("freeze", freeze)
    check_number("warmup", warmup, 0, 1)
    ids, valid, labels = (t.to(_device(model)) for t in (ids, valid, labels))
    for p in model.encoder.parameters():
        p.requires_grad_(not freeze)
    params = [p for p in model.parameters() if p.requires_grad]

    def loss_of(rows: list[int]) -> torch.Tensor:
        T = int(valid[rows].sum(1).max())  # trim the padding of this batch
        scores = model(ids[rows, :T], valid[rows, :T])
        target = labels[rows] if labels.dim() == 1 else labels[rows, :T]
        return F.cross_entropy(scores.reshape(-1, scores.shape[-1]), target.reshape(-1), ignore_index=IGNORE_INDEX)

    model.train()
    losses = _adamw_steps(
        params, loss_of, len(ids), steps=steps, lr=lr, batch_size=batch_size, seed=seed, warmup=warmup
    )
    model.eval()
    for p in model.parameters():
        p.requires_grad_(True)
    return losses


@torch.no_grad()
def predict(model: nn.Module, ids: torch.Tensor, valid: torch.Tensor, batch_size: int = 256) -> torch.Tensor:
    """Predicted classes (N,) or tags (N, T) of a trained model, in evaluation mode, on the device of ``ids``."""
    check_type("model", model, nn.Module, "a SentenceClassifier or TokenTagger")
    _check_rows(model, ids, valid)
    check_int("batch_size", batch_size)
    model.eval()
    device = next(model.parameters(), ids).device
    parts = []
    for i in range(0, len(ids), batch_size):
        rows = ids[i : i + batch_size].to(device), valid[i : i + batch_size].to(device)
        parts.append(model(*rows).argmax(-1).to(ids.device))
    if parts[0].dim() == 1:
        return torch.cat(parts)
    T = ids.shape[1]
    return torch.cat([F.pad(p, (0, T - p.shape[1]), value=IGNORE_INDEX) for p in parts])


def accuracy(predicted: torch.Tensor, labels: torch.Tensor) -> float:
    """Share of correct predictions where the label is not ``IGNORE_INDEX``."""
    check_tensor("predicted", predicted, dtype="integer", nonempty=False)
    check_tensor("labels", labels, dtype="integer", nonempty=False)
    if predicted.shape != labels.shape:
        raise ValueError(f"predicted and labels must have the same shape; got {tuple(predicted.shape)} "
                         f"and {tuple(labels.shape)}")  # fmt: skip
    labels = labels.to(predicted.device)
    keep = labels != IGNORE_INDEX
    if not keep.any():
        raise ValueError("labels hold nothing to score (all IGNORE_INDEX)")
    unpredicted = keep & (predicted < 0)  # predict pads with IGNORE_INDEX only where nothing is labelled
    if bool(unpredicted.any()):
        index = tuple(int(i) for i in unpredicted.nonzero()[0])
        raise ValueError(
            f"predicted must hold a predicted class (>= 0) wherever labels has one; got {int(predicted[index])} at "
            f"{index} where labels has {int(labels[index])} (predicted and labels swapped?)"
        )
    return float((predicted[keep] == labels[keep]).float().mean())


def logistic_regression(
    features: torch.Tensor, labels: torch.Tensor, *, l2: float = PROBE_L2, iterations: int = 200
) -> nn.Linear:
    """Multinomial logistic regression fit by L-BFGS (deterministic): a linear layer (C -> classes)."""
    check_tensor("features", features, dtype="float", shape=("N", "C"), finite=True)
    check_tensor("labels", labels, dtype="integer", shape=(len(features),))
    if int(labels.min()) < 0:
        raise ValueError(f"labels must be class indices >= 0; got {int(labels.min())}")
    check_number("l2", l2, 0)
    check_int("iterations", iterations)
    if len(features) and bool((labels == labels.view(-1)[0]).all()):  # nothing to separate: a constant classifier
        raise ValueError(
            f"labels must hold at least two different classes to fit a classifier; got only class {int(labels[0])} "
            f"in all {len(labels)} rows (a sample of one class?)"
        )
    if features.dim() != 2 or len(features) != len(labels):
        raise ValueError(f"features must be (N, C) with one label per row; got {tuple(features.shape)} and "
                         f"{tuple(labels.shape)}")  # fmt: skip
    n_classes = int(labels.max()) + 1
    layer = nn.Linear(features.shape[1], max(n_classes, 2)).double().to(features.device)
    nn.init.zeros_(layer.weight)
    nn.init.zeros_(layer.bias)
    x, y = features.double(), labels.long().to(features.device)
    optimizer = torch.optim.LBFGS(layer.parameters(), max_iter=iterations, line_search_fn="strong_wolfe")

    def closure():
        optimizer.zero_grad()
        loss = F.cross_entropy(layer(x), y) + l2 / 2 * layer.weight.pow(2).sum()
        loss.backward()
        return loss

    optimizer.step(closure)
    return layer.float()


@torch.no_grad()
def linear_probe(
    model: SentenceClassifier,
    train: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    test: tuple[torch.Tensor, torch.Tensor, torch.Tensor],
    l2: float = PROBE_L2,
) -> float:
    """Test accuracy of logistic regression on the frozen pooled [CLS] features (train/test: ids, valid, labels).

    The features come from the model's device; the regression runs on the CPU (float64, the same on every device).
    """
    check_type("model", model, SentenceClassifier, "a SentenceClassifier")
    for name, part in (("train", train), ("test", test)):
        if not isinstance(part, (tuple, list)) or len(part) != 3:
            raise TypeError(f"{name} must be a tuple (ids, valid, labels); got {given(part)}")
        _check_rows(model, *part, prefix=f"{name} ")
    model.eval()
    x_train, x_test = (model.features(*(t.to(_device(model)) for t in part[:2])).cpu() for part in (train, test))
    with torch.enable_grad():
        layer = logistic_regression(x_train, train[2].cpu(), l2=l2)
    return accuracy(layer(x_test).argmax(-1), test[2].cpu())


def bag_of_words(
    train_texts: Sequence[str],
    train_labels: Sequence[int],
    test_texts: Sequence[str],
    test_labels: Sequence[int],
    l2: float = PROBE_L2,
) -> float:
    """Test accuracy of logistic regression on which words occur (lowercased; words of the training texts)."""
    train_texts, test_texts = check_strings("train_texts", train_texts), check_strings("test_texts", test_texts)
    for name, labels in (("train_labels", train_labels), ("test_labels", test_labels)):
        labels = check_sequence(name, labels if not isinstance(labels, torch.Tensor) else labels.tolist())
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in labels):
            raise ValueError(f"{name} must be class indices (integers >= 0); got {short(labels)}")
    for part in ("train", "test"):
        texts, labels = locals()[f"{part}_texts"], locals()[f"{part}_labels"]
        if len(texts) != len(labels):
            raise ValueError(
                f"{part}_texts and {part}_labels must pair up; got {len(texts)} texts and {len(labels)} labels"
            )
    words = sorted({w for text in train_texts for w in pre_tokenize(text)})
    index = {w: i for i, w in enumerate(words)}

    def features(texts: Sequence[str]) -> torch.Tensor:
        x = torch.zeros(len(texts), len(words))
        for row, text in enumerate(texts):
            for w in pre_tokenize(text):
                if w in index:
                    x[row, index[w]] = 1.0
        return x

    layer = logistic_regression(features(train_texts), torch.tensor(list(train_labels)), l2=l2)
    return accuracy(layer(features(test_texts)).argmax(-1), torch.tensor(list(test_labels)))


def default_steps(n: int, epochs: int = 6, batch_size: int = 32, least: int = 50, most: int = 400) -> int:
    """Fine-tuning steps for ``n`` labelled rows: ``epochs`` passes, at least ``least``, at most ``most``."""
    check_int("n", n)
    for name, value in (("epochs", epochs), ("batch_size", batch_size), ("least", least), ("most", most)):
        check_int(name, value)
    return int(min(most, max(least, math.ceil(epochs * n / batch_size))))


METHODS = ("pretrained", "scratch", "probe", "bag_of_words")
# Each method's one setting: the peak learning rate of fine-tuning, or the L2 weight of a logistic regression.
# ``python -m dl4nlp.recipes.bert_learning_curve`` chooses them on validation sentences and records its choice.
DEFAULT_SETTINGS = {"pretrained": 3e-4, "scratch": 1e-3, "probe": PROBE_L2, "bag_of_words": PROBE_L2}


def _settings(settings: Mapping[str, float] | None, methods: Sequence[str], allowed: Sequence[str]) -> dict:
    methods = check_strings("methods", methods)
    if settings is not None and not isinstance(settings, Mapping):
        raise TypeError(f"settings must be a dict of method -> number; got {given(settings)}")
    unknown = [m for m in methods if m not in allowed]
    if unknown:
        raise ValueError(f"methods must be among {tuple(allowed)}; got {unknown}")
    chosen = {**DEFAULT_SETTINGS, **(settings or {})}
    bad = {m: v for m, v in chosen.items() if not (isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0)}
    if bad:
        raise ValueError(f"settings must map each method to a positive number; got {bad}")
    return chosen


def _check_compare(pretrained: Any, seed: Any, steps: Any, tokenizer: Any = None) -> None:
    check_type("pretrained", pretrained, Bert, "a dl4nlp.bert.Bert")
    if tokenizer is not None:
        _check_tokenizer(tokenizer)
        if hasattr(tokenizer, "__len__") and len(tokenizer) != pretrained.config.vocab_size:
            raise ValueError(
                f"tokenizer must be the pre-trained model's, of vocab_size={pretrained.config.vocab_size} pieces; "
                f"got a tokenizer of {len(tokenizer)} pieces (the vocabulary of another model?)"
            )
    check_int("seed", seed, low=0)
    if steps is not None:
        check_int("steps", steps)


def compare_methods(
    pretrained: Bert,
    tokenizer: Any,
    train_examples: Sequence[Any],
    test_examples: Sequence[Any],
    *,
    seed: int,
    methods: Sequence[str] = METHODS,
    settings: Mapping[str, float] | None = None,
    steps: int | None = None,
) -> dict[str, float]:
    """Test accuracy of each method trained on ``train_examples`` (objects with ``.text`` and ``.label``).

    ``pretrained``: fine-tune the pre-trained encoder and a new head;
    ``scratch``: the same architecture and schedule from random weights;
    ``probe``: logistic regression on the frozen pre-trained pooled [CLS];
    ``bag_of_words``: logistic regression on which words occur.
    ``settings`` maps a method to its learning rate (fine-tuning) or L2 weight
    (regressions), defaults in ``DEFAULT_SETTINGS``; ``steps`` defaults to
    ``default_steps(len(train_examples))``.
    """
    chosen = _settings(settings, methods, METHODS)
    _check_compare(pretrained, seed, steps, tokenizer)
    for name, examples in (("train_examples", train_examples), ("test_examples", test_examples)):
        for e in check_sequence(name, examples, what="a list of examples with .text and .label"):
            if not (isinstance(getattr(e, "text", None), str) and isinstance(getattr(e, "label", None), int)):
                raise TypeError(f"{name} must hold examples with .text (str) and .label (int); got {given(e)}")
    max_len = pretrained.config.max_len
    steps = steps or default_steps(len(train_examples))
    train = (*encode_batch(tokenizer, [e.text for e in train_examples], max_len),
             torch.tensor([e.label for e in train_examples]))  # fmt: skip
    test = (*encode_batch(tokenizer, [e.text for e in test_examples], max_len),
            torch.tensor([e.label for e in test_examples]))  # fmt: skip
    out = {}
    for method in methods:
        torch.manual_seed(seed)  # the head's initialisation (and the scratch encoder's) depends on the seed
        if method == "bag_of_words":
            texts = ([e.text for e in train_examples], [e.text for e in test_examples])
            out[method] = bag_of_words(texts[0], train[2].tolist(), texts[1], test[2].tolist(), l2=chosen[method])
        elif method == "probe":
            out[method] = linear_probe(SentenceClassifier(fresh_copy(pretrained)), train, test, l2=chosen[method])
        else:
            model = SentenceClassifier(fresh_copy(pretrained, pretrained=method == "pretrained"))
            fine_tune(model, *train, steps=steps, lr=chosen[method], seed=seed)
            out[method] = accuracy(predict(model, *test[:2]), test[2])
    return out


def majority_tags(
    train_sentences: Sequence[tuple[Sequence[str], Sequence[int]]], lowercase: bool = True
) -> tuple[dict[str, int], int]:
    """The classical baseline of tagging: each known word's most frequent tag, and the most frequent tag overall.

    Returns ``(by_word, overall)``; tag a word with ``by_word.get(word, overall)``.
    Ties go to the smaller tag id.

    >>> majority_tags([(["The", "dog", "barks"], [0, 1, 2]), (["the", "barks"], [0, 1])])
    ({'the': 0, 'dog': 1, 'barks': 1}, 0)
    """
    sentences = _check_sentences("train_sentences", train_sentences)
    check_bool("lowercase", lowercase)
    counts: dict[str, dict[int, int]] = {}
    overall: dict[int, int] = {}
    for words, tags, *_ in sentences:
        for word, tag in zip(words, tags):
            key = word.lower() if lowercase else word
            counts.setdefault(key, {})
            counts[key][tag] = counts[key].get(tag, 0) + 1
            overall[tag] = overall.get(tag, 0) + 1

    def most(c: Mapping[int, int]) -> int:
        return min(c, key=lambda t: (-c[t], t))

    return {word: most(c) for word, c in counts.items()}, most(overall)


def compare_taggers(
    pretrained: Bert,
    tokenizer: Any,
    train_sentences: Sequence[tuple[Sequence[str], Sequence[int]]],
    test_sentences: Sequence[tuple[Sequence[str], Sequence[int]]],
    *,
    seed: int,
    methods: Sequence[str] = ("pretrained", "scratch", "probe"),
    settings: Mapping[str, float] | None = None,
    steps: int | None = None,
) -> dict[str, float]:
    """Token accuracy of each method on the tagging task (sentences as (words, tags)); as ``compare_methods``.

    ``probe`` fits logistic regression on the frozen pre-trained hidden state of every token.
    """
    chosen = _settings(settings, methods, ("pretrained", "scratch", "probe"))
    _check_compare(pretrained, seed, steps, tokenizer)
    _check_sentences("train_sentences", [s[:2] if isinstance(s, tuple) else s for s in train_sentences])
    _check_sentences("test_sentences", [s[:2] if isinstance(s, tuple) else s for s in test_sentences])
    max_len = pretrained.config.max_len
    train = encode_tagged(tokenizer, [(w, t) for w, t, *_ in train_sentences], max_len)
    test = encode_tagged(tokenizer, [(w, t) for w, t, *_ in test_sentences], max_len)
    steps = steps or default_steps(len(train_sentences))
    out = {}
    for method in methods:
        torch.manual_seed(seed)
        if method == "probe":
            with torch.no_grad():
                encoder, device = fresh_copy(pretrained).eval(), _device(pretrained)  # the regression: on the CPU
                h_train, h_test = (encoder(p[0].to(device), valid=p[1].to(device)).cpu() for p in (train, test))
            keep = train[2] != IGNORE_INDEX
            layer = logistic_regression(h_train[keep], train[2][keep], l2=chosen[method])
            with torch.no_grad():
                out[method] = accuracy(layer(h_test).argmax(-1), test[2])
        else:
            model = TokenTagger(fresh_copy(pretrained, pretrained=method == "pretrained"))
            fine_tune(model, *train, steps=steps, lr=chosen[method], seed=seed)
            out[method] = accuracy(predict(model, *test[:2]), test[2])
    return out
