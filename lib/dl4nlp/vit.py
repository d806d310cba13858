"""A Vision Transformer in miniature: an image cut into patches is a sequence of tokens.

Dosovitskiy et al. (2021) cut an image into 16 × 16 patches, embed each
flattened patch with one linear layer, put a learned ``[CLS]`` token in front,
add learned position embeddings and run a Transformer encoder; the ``[CLS]``
output, through a linear layer, gives the class. ``ViT`` does the same on the
8 × 8 handwritten digits that ship in ``data/digits.csv.gz`` (1,797 images,
the UCI optical digits as packaged by scikit-learn; see data/README.md) with
2 × 2 patches and the course's pre-LN blocks (``dl4nlp.transformer``).
``MLPClassifier`` and ``CNNClassifier`` are the baselines of notebook 11, of
about the same number of parameters; ``vit_vs_baselines`` trains all three on
one seed's split and returns held-out accuracies.

>>> images, labels = load_digits()
>>> tuple(images.shape), tuple(labels.shape), float(images.max()), int(labels[0])
((1797, 8, 8), (1797,), 1.0, 0)
>>> tuple(patchify(images[:2], 2).shape)  # 16 patches of 2 × 2 = 4 pixels each
(2, 16, 4)
>>> model = ViT()
>>> tuple(model(images[:3]).shape), tuple(model.cls_attention().shape)  # (B, classes); (B, layers, heads, 16)
((3, 10), (3, 2, 4, 16))
"""

from __future__ import annotations

import gzip
import hashlib
from dataclasses import dataclass
from typing import Optional

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from dl4nlp._checks import check_file, check_int, check_number, check_tensor, check_type, given
from dl4nlp.data import data_path
from dl4nlp.device import seed_everything
from dl4nlp.transformer import TransformerConfig, TransformerEncoder, count_parameters

DIGITS_FILE = "digits.csv.gz"  # from scikit-learn 1.5.2's wheel, sklearn/datasets/data/
DIGITS_SHA256 = "09f66e6debdee2cd2b5ae59e0d6abbb73fc2b0e0185d2e1957e9ebb51e23aa22"
N_DIGITS = 1797
IMAGE_SIZE = 8
N_CLASSES = 10
MAX_PIXEL = 16  # each pixel counts the dark pixels of a 4 × 4 block of the original 32 × 32 bitmap


def load_digits(path=None) -> tuple[torch.Tensor, torch.Tensor]:
    """The 1,797 digits as float32 images (N, 8, 8) scaled to [0, 1], and their labels (N,) int64.

    The file is checked against its recorded SHA-256 first; ``path`` defaults to
    the shipped ``data/digits.csv.gz``.
    """
    path = data_path(DIGITS_FILE) if path is None else check_file("path", path, "the digits file (digits.csv.gz)")
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != DIGITS_SHA256:
        raise ValueError(f"the digits file must have SHA-256 {DIGITS_SHA256}; got {digest} from {given(path)}")
    rows = np.loadtxt(gzip.decompress(raw).decode("ascii").splitlines(), delimiter=",", dtype=np.int64)
    images = torch.from_numpy(rows[:, :-1].reshape(-1, IMAGE_SIZE, IMAGE_SIZE)).float() / MAX_PIXEL
    return images, torch.from_numpy(rows[:, -1].copy())


def split_digits(n: int = N_DIGITS, test_fraction: float = 0.25, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Disjoint train and test indices of ``n`` images, a random permutation cut at ``test_fraction``.

    >>> train, test = split_digits(10, 0.3, seed=0)
    >>> len(train), len(test), len(set(train.tolist()) & set(test.tolist()))
    (7, 3, 0)
    """
    check_int("n", n, low=2)
    check_number("test_fraction", test_fraction, 0.0, 1.0, low_open=True, high_open=True)
    check_int("seed", seed, low=0)
    order = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    n_test = max(1, min(n - 1, round(n * test_fraction)))
    return order[n_test:], order[:n_test]


def _check_images(images, size: Optional[int] = None) -> torch.Tensor:
    check_tensor("images", images, ndim=3, dtype="float", finite=True, expected="(B, H, W)")
    if size is not None and tuple(images.shape[1:]) != (size, size):
        raise ValueError(f"images must have shape (B, {size}, {size}); got {tuple(images.shape)}")
    return images


def patchify(images: torch.Tensor, patch: int) -> torch.Tensor:
    """Cut (B, H, W) images into non-overlapping ``patch`` × ``patch`` squares, row by row: (B, N, patch²).

    Patch ``i`` is row ``i // (W / patch)``, column ``i % (W / patch)`` of the grid
    of patches; its pixels are flattened row by row.

    >>> x = torch.arange(16.0).reshape(1, 4, 4)
    >>> patchify(x, 2)[0]
    tensor([[ 0.,  1.,  4.,  5.],
            [ 2.,  3.,  6.,  7.],
            [ 8.,  9., 12., 13.],
            [10., 11., 14., 15.]])
    """
    _check_images(images)
    check_int("patch", patch)
    B, H, W = images.shape
    if H % patch or W % patch:
        raise ValueError(f"patch must divide the image's height and width {H} × {W}; got patch={patch}")
    grid = images.reshape(B, H // patch, patch, W // patch, patch)  # (B, rows, p, cols, p)
    return grid.permute(0, 1, 3, 2, 4).reshape(B, (H // patch) * (W // patch), patch * patch)


class ViT(nn.Module):
    """A Vision Transformer: patches -> linear embedding, [CLS] in front, learned positions, pre-LN encoder.

    (B, size, size) images -> (B, n_classes) logits, read from the final [CLS] state.
    """

    def __init__(
        self,
        image_size: int = IMAGE_SIZE,
        patch: int = 2,
        d_model: int = 32,
        n_heads: int = 4,
        n_layers: int = 2,
        d_ff: int = 64,
        n_classes: int = N_CLASSES,
        dropout: float = 0.0,
    ):
        super().__init__()
        check_int("image_size", image_size)
        check_int("patch", patch)
        if image_size % patch:
            raise ValueError(f"patch must divide image_size={image_size}; got patch={patch}")
        check_int("n_classes", n_classes, low=2)
        self.image_size, self.patch = image_size, patch
        self.n_patches = (image_size // patch) ** 2
        config = TransformerConfig(
            vocab_size=1,  # no token table: the patch embedding takes its place
            d_model=d_model,
            n_heads=n_heads,
            n_layers=n_layers,
            d_ff=d_ff,
            max_len=self.n_patches + 1,
            dropout=dropout,
            norm_first=True,
            positional="none",
        )
        self.patch_embedding = nn.Linear(patch * patch, d_model)
        self.cls = nn.Parameter(torch.zeros(1, 1, d_model))
        self.positions = nn.Parameter(0.02 * torch.randn(1, self.n_patches + 1, d_model))
        self.encoder = TransformerEncoder(config)
        self.head = nn.Linear(d_model, n_classes)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        _check_images(images, self.image_size)
        tokens = self.patch_embedding(patchify(images, self.patch))  # (B, N, C)
        cls = self.cls.expand(len(images), -1, -1)  # (B, 1, C)
        x = torch.cat([cls, tokens], dim=1) + self.positions  # (B, N + 1, C)
        return self.head(self.encoder(x)[:, 0])  # (B, n_classes), from [CLS]

    def cls_attention(self) -> torch.Tensor:
        """The [CLS] query's weights on the patches in the last forward pass: (B, layers, heads, N).

        Its weight on itself (key 0) is left out, so a row sums to 1 minus that weight.
        """
        return cls_attention(self.encoder)


def cls_attention(encoder: TransformerEncoder) -> torch.Tensor:
    """The [CLS] (position 0) query's weights on the other positions in ``encoder``'s last forward pass.

    (B, layers, heads, N) for a sequence of [CLS] and N patches; its weight on itself is left out.
    """
    check_type("encoder", encoder, TransformerEncoder, "a dl4nlp.transformer.TransformerEncoder")
    weights = encoder.attention_weights()  # per layer (B, H, N + 1, N + 1)
    return torch.stack([w[:, :, 0, 1:] for w in weights], dim=1)


class MLPClassifier(nn.Module):
    """The pixels, flattened, through two hidden ReLU layers: (B, 8, 8) -> (B, 10)."""

    def __init__(self, image_size: int = IMAGE_SIZE, hidden: int = 128, n_classes: int = N_CLASSES):
        super().__init__()
        check_int("hidden", hidden)
        self.image_size = image_size
        self.net = nn.Sequential(
            nn.Flatten(),
            nn.Linear(image_size * image_size, hidden),
            nn.ReLU(),
            nn.Linear(hidden, hidden // 2),
            nn.ReLU(),
            nn.Linear(hidden // 2, n_classes),
        )

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.net(_check_images(images, self.image_size))


class CNNClassifier(nn.Module):
    """Two 3 × 3 convolutions (16 and 32 channels), a 2 × 2 max-pool and two linear layers: (B, 8, 8) -> (B, 10)."""

    def __init__(self, image_size: int = IMAGE_SIZE, channels: int = 16, hidden: int = 24, n_classes: int = N_CLASSES):
        super().__init__()
        check_int("channels", channels)
        check_int("hidden", hidden)
        self.image_size = image_size
        self.net = nn.Sequential(
            nn.Conv2d(1, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, 2 * channels, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Flatten(),
            nn.Linear(2 * channels * (image_size // 2) ** 2, hidden),
            nn.ReLU(),
            nn.Linear(hidden, n_classes),
        )

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.net(_check_images(images, self.image_size).unsqueeze(1))


def accuracy(model: nn.Module, images: torch.Tensor, labels: torch.Tensor) -> float:
    """Fraction of ``images`` whose arg-max class is the label (the model in eval mode, no gradients)."""
    check_type("model", model, nn.Module, "a torch.nn.Module")
    _check_images(images)
    check_tensor("labels", labels, shape=(len(images),), dtype="integer")
    was_training = model.training
    model.eval()
    with torch.no_grad():
        predicted = model(images).argmax(-1)
    model.train(was_training)
    return float((predicted == labels).float().mean())


def train_classifier(
    model: nn.Module,
    images: torch.Tensor,
    labels: torch.Tensor,
    steps: int = 200,
    batch_size: int = 128,
    lr: float = 5e-3,
    seed: int = 0,
) -> list[float]:
    """AdamW on cross-entropy, mini-batches drawn with ``seed``; returns the loss of every step."""
    check_type("model", model, nn.Module, "a torch.nn.Module")
    _check_images(images)
    check_tensor("labels", labels, shape=(len(images),), dtype="integer")
    check_int("steps", steps)
    check_int("batch_size", batch_size)
    check_number("lr", lr, 0.0, low_open=True)
    check_int("seed", seed, low=0)
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0 - step / steps)  # linear decay to 0
    model.train()
    losses = []
    for _ in range(steps):
        batch = torch.randint(len(images), (batch_size,), generator=generator)
        loss = F.cross_entropy(model(images[batch]), labels[batch])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        losses.append(float(loss.detach()))
    model.eval()
    return losses


MODELS = {"ViT": ViT, "MLP": MLPClassifier, "CNN": CNNClassifier}


@dataclass
class DigitsComparison:
    """Held-out accuracy and parameter count of each model on one seed's split."""

    seed: int
    accuracy: dict  # model name -> held-out accuracy
    train_accuracy: dict  # model name -> training accuracy
    parameters: dict  # model name -> number of parameters
    n_train: int
    n_test: int
    disjoint: bool  # no image index in both splits


def vit_vs_baselines(seed: int = 0, steps: int = 200, return_models: bool = False):
    """Train the ViT, the MLP and the CNN on one seed's 75/25 split (same steps, batches and optimiser).

    Returns a ``DigitsComparison`` (and the trained models, by name, with ``return_models=True``).
    """
    check_int("seed", seed, low=0)
    check_int("steps", steps)
    images, labels = load_digits()
    train_idx, test_idx = split_digits(len(images), 0.25, seed)
    disjoint = not set(train_idx.tolist()) & set(test_idx.tolist())
    models, acc, train_acc, params = {}, {}, {}, {}
    for name, make in MODELS.items():
        seed_everything(seed)
        model = make()
        train_classifier(model, images[train_idx], labels[train_idx], steps=steps, seed=seed)
        models[name] = model
        acc[name] = accuracy(model, images[test_idx], labels[test_idx])
        train_acc[name] = accuracy(model, images[train_idx], labels[train_idx])
        params[name] = count_parameters(model)
    result = DigitsComparison(seed, acc, train_acc, params, len(train_idx), len(test_idx), disjoint)
    return (result, models) if return_models else result
