"""What single units of a trained network respond to: labels for text, scores per unit.

A *probe* here is the simplest one possible: label every character of a text
with a property (inside a quotation? which column of its line?) and ask, for
each hidden unit separately, how well its activation alone tells the property
apart. Taught in notebook 05 (the interpretable cells of a character LSTM).

>>> inside_quotes("a “b” c").tolist()
[False, False, True, True, False, False, False]
"""

from __future__ import annotations

import numpy as np
import torch

from dl4nlp._checks import check_array, check_str, given


def inside_quotes(text: str, open_quote: str = "“", close_quote: str = "”") -> np.ndarray:
    """For each character: is it inside a quotation? Shape (len(text),), bool.

    The opening quote counts as inside, the closing one as outside (when both are
    the same character, e.g. ``'"'``, they alternate). A blank line
    (a paragraph break) also ends a quotation, because novels open every
    paragraph of a long speech anew without closing the previous one.
    """
    check_str("text", text)
    for name, quote in [("open_quote", open_quote), ("close_quote", close_quote)]:
        if len(check_str(name, quote, what="a single character")) != 1:
            raise ValueError(f"{name} must be a single character; got {quote!r}")
    if (close_quote, open_quote) in (("“", "”"), ("‘", "’")):  # swapped: every label would be inverted
        raise ValueError(
            f"open_quote and close_quote must be the opening and the closing mark, such as open_quote={close_quote!r}, "
            f"close_quote={open_quote!r}; got them swapped: open_quote={open_quote!r}, close_quote={close_quote!r}"
        )
    labels = np.zeros(len(text), dtype=bool)
    inside = False
    for index, char in enumerate(text):
        if char == open_quote and not (inside and open_quote == close_quote):
            inside = True
        elif char == close_quote or (char == "\n" and text[index - 1 : index] == "\n"):
            inside = False
        labels[index] = inside
    return labels


def column_in_line(text: str) -> np.ndarray:
    """For each character: its position in its line, counting from 0 (a newline ends its line). Shape (len(text),)."""
    check_str("text", text)
    columns = np.zeros(len(text), dtype=np.int64)
    column = 0
    for index, char in enumerate(text):
        columns[index] = column
        column = 0 if char == "\n" else column + 1
    return columns


def _as_numbers(name: str, values, ndim: int) -> np.ndarray:
    """``values`` as a finite float64 array of ``ndim`` dimensions, not empty."""
    return check_array(name, values, ndim=ndim, expected="shape (N, H)" if ndim == 2 else "shape (N,)")


def _as_labels(labels, n: int) -> np.ndarray:
    """Bool labels (or 0/1 numbers), one per row."""
    if isinstance(labels, torch.Tensor):
        labels = labels.detach().cpu().numpy()
    if isinstance(labels, str) or not isinstance(labels, (np.ndarray, list, tuple)):
        raise TypeError(f"labels must be an array of bools (or 0/1), one per row; got {given(labels)}")
    array = np.asarray(labels)
    if array.dtype != bool:
        numbers = _as_numbers("labels", array, 1) if array.size else array
        if not np.isin(numbers, (0, 1)).all():
            raise ValueError(f"labels must be bools or 0/1; got {numbers[~np.isin(numbers, (0, 1))][0]:g}")
        array = numbers.astype(bool)
    if array.shape != (n,):
        raise ValueError(f"labels must have shape ({n},), one per row of activations; got {array.shape}")
    return array


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..N of a 1-D array, tied values sharing the mean of their ranks."""
    order = values.argsort(kind="stable")
    ordered = values[order]
    starts = np.concatenate([[0], np.flatnonzero(np.diff(ordered)) + 1])
    ends = np.concatenate([starts[1:], [len(values)]])
    ranks = np.empty(len(values))
    ranks[order] = np.repeat((starts + ends + 1) / 2, ends - starts)
    return ranks


def unit_auc(activations, labels) -> np.ndarray:
    """Per unit: the probability that a random positive character has a higher activation than a random negative one
    (ties count one half).

    ``activations`` (N, H), ``labels`` (N,) bool. This is the area under the ROC
    curve of each unit used as a one-number classifier: 0.5 is chance, 1.0 (or
    0.0, for a unit that is *lower* on positives) separates perfectly. Shape (H,).
    """
    acts = _as_numbers("activations", activations, 2)
    labels = _as_labels(labels, acts.shape[0])
    positives, negatives = int(labels.sum()), int((~labels).sum())
    if positives == 0 or negatives == 0:
        raise ValueError(f"labels must contain both classes; got {positives} positive and {negatives} negative")
    ranks = np.stack([_average_ranks(column) for column in acts.T], axis=1)  # (N, H), 1 = lowest
    return (ranks[labels].sum(axis=0) - positives * (positives + 1) / 2) / (positives * negatives)


def unit_correlation(activations, target) -> np.ndarray:
    """Per unit: Pearson correlation between its activation (N, H) and a numeric ``target`` (N,). Shape (H,).

    A unit whose activation never changes carries no information about the target: it gets 0.
    """
    acts, target = _as_numbers("activations", activations, 2), _as_numbers("target", target, 1)
    if target.shape != (acts.shape[0],):
        raise ValueError(f"target must have shape ({acts.shape[0]},), one per row of activations; got {target.shape}")
    if np.ptp(target) == 0:
        raise ValueError(f"target must vary for a correlation to exist; got a constant {target[0]:g}")
    acts = acts - acts.mean(axis=0)
    target = target - target.mean()
    denominator = np.sqrt((acts**2).sum(axis=0) * (target**2).sum())
    return np.divide(acts.T @ target, denominator, out=np.zeros(acts.shape[1]), where=denominator > 0)


def nearest_centroid_accuracy(vectors, labels) -> float:
    """Leave-one-out accuracy of classifying each vector by the nearer class centroid (cosine similarity).

    Every vector is compared with the mean direction of each class computed
    *without* it, so the score measures how well the classes separate, not memory.
    ``vectors`` (N, D), ``labels`` (N,) of integers; each class needs two members.
    """
    vectors = check_array("vectors", vectors, ndim=2, expected="shape (N, D)")
    if isinstance(labels, torch.Tensor):
        labels = labels.detach().cpu().numpy()
    if isinstance(labels, str) or not isinstance(labels, (np.ndarray, list, tuple)):
        raise TypeError(f"labels must be an array of integer class labels, one per vector; got {given(labels)}")
    labels = np.asarray(labels)
    if labels.shape != (vectors.shape[0],):
        raise ValueError(f"labels must have shape ({vectors.shape[0]},), one per vector; got {labels.shape}")
    if labels.dtype.kind not in "iub":
        raise TypeError(f"labels must be integer class labels; got dtype {labels.dtype}")
    classes, counts = np.unique(labels, return_counts=True)
    if len(classes) < 2 or counts.min() < 2:
        counts = {int(c): int(n) for c, n in zip(classes, counts)}
        raise ValueError(f"labels must hold at least two classes with two members each; got counts {counts}")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    if (norms == 0).any():
        raise ValueError("vectors must be non-zero to compare directions")
    unit = vectors / norms
    sums = {c: unit[labels == c].sum(axis=0) for c in classes}
    correct = 0
    for vector, label in zip(unit, labels):
        scores = {}
        for c in classes:
            total, count = sums[c], counts[classes == c][0]
            if c == label:
                total, count = total - vector, count - 1
            centroid = total / count
            scores[c] = vector @ centroid / (np.linalg.norm(centroid) + 1e-12)
        correct += max(scores, key=scores.get) == label
    return correct / len(labels)


def linear_probe(train_activations, train_labels, test_activations, ridge: float = 1.0) -> np.ndarray:
    """Scores of a linear read-out of *all* units, fitted on one text and applied to another. Shape (M,).

    Where ``unit_auc`` asks whether one unit alone tells a property apart, a linear
    probe asks whether the units *together* do: a weighted sum of every unit. It is
    ridge-regularised least squares on units standardised with the training rows'
    mean and spread, targets ±1: ``w = (XᵀX + ridge·N·I)⁻¹ Xᵀy`` in float64, no
    randomness. Fit it on ``train_activations`` (N, H) with ``train_labels`` (N,)
    and score ``test_activations`` (M, H); judge the scores with ``unit_auc`` on the
    test labels (text the probe never saw). Notebook 05.

    >>> x = np.array([[0.0, 1.0], [1.0, 0.0], [0.1, 0.9], [0.9, 0.2]])
    >>> (linear_probe(x, [True, False, True, False], x) > 0).tolist()
    [True, False, True, False]
    """
    train = _as_numbers("train_activations", train_activations, 2)
    if hasattr(train_labels, "__len__") and not isinstance(train_labels, str) and len(train_labels) != train.shape[0]:
        raise ValueError(
            f"train_labels must have shape ({train.shape[0]},), one per row of train_activations; "
            f"got {len(train_labels)} labels"
        )
    labels = _as_labels(train_labels, train.shape[0])
    test = _as_numbers("test_activations", test_activations, 2)
    if test.shape[1] != train.shape[1]:
        raise ValueError(
            f"test_activations must have the training rows' {train.shape[1]} units; got shape {test.shape}"
        )
    if isinstance(ridge, bool) or not isinstance(ridge, (int, float)) or not np.isfinite(ridge) or ridge <= 0:
        raise ValueError(f"ridge must be a finite number > 0; got {ridge!r}")
    if labels.all() or not labels.any():
        raise ValueError(f"train_labels must contain both classes; got {int(labels.sum())} of {len(labels)} positive")
    mean, spread = train.mean(axis=0), train.std(axis=0)
    spread[spread == 0] = 1.0  # a constant unit contributes nothing
    x = np.hstack([(train - mean) / spread, np.ones((train.shape[0], 1))])
    y = np.where(labels, 1.0, -1.0)
    penalty = ridge * train.shape[0] * np.eye(x.shape[1])
    penalty[-1, -1] = 0.0  # the bias is not shrunk
    weights = np.linalg.solve(x.T @ x + penalty, x.T @ y)
    return np.hstack([(test - mean) / spread, np.ones((test.shape[0], 1))]) @ weights
