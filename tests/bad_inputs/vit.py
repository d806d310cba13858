"""Bad inputs of dl4nlp.vit (chapter 11's Vision Transformer on the 8 x 8 digits)."""

import torch

from bad_inputs.harness import cases, exempt, int_variants, scratch, semantic, vary
from dl4nlp import vit as V
from dl4nlp.transformer import TransformerConfig, TransformerEncoder

exempt("a record that vit_vs_baselines returns; nothing to validate", "dl4nlp.vit.DigitsComparison")

IMAGES = torch.rand(3, 8, 8)
LABELS = torch.tensor([0, 1, 2])


def _image_variants():
    return [
        ("a list", [[0.0] * 8] * 8, "list"),
        ("a (B, 64) tensor", torch.rand(3, 64), "(3, 64)"),
        ("integer images", torch.ones(3, 8, 8, dtype=torch.int64), "int64"),
        ("a NaN pixel", torch.full((3, 8, 8), float("nan")), "nan"),
    ]


@cases("dl4nlp.vit.load_digits")
def _():
    folder = scratch()
    short = folder / "digits.csv.gz"
    short.write_bytes(b"\x1f\x8b not the digits")
    yield from vary(V.load_digits, {}, "path", [("a missing file", folder / "none.csv.gz", "none.csv.gz")])
    yield semantic("a file that is not the shipped digits", lambda: V.load_digits(short), ("SHA-256", "digits"))


@cases("dl4nlp.vit.split_digits")
def _():
    good = dict(n=10, test_fraction=0.25, seed=0)
    yield from vary(V.split_digits, good, "n", int_variants(2))
    yield from vary(V.split_digits, good, "test_fraction", [("0", 0.0, "0"), ("1", 1.0, "1"), ("a string", "a", "str")])
    yield from vary(V.split_digits, good, "seed", [("a negative seed", -1, "-1"), ("a float", 0.5, "0.5")])


@cases("dl4nlp.vit.patchify")
def _():
    good = dict(images=IMAGES, patch=2)
    yield from vary(V.patchify, good, "images", _image_variants())
    yield from vary(V.patchify, good, "patch", int_variants(1))
    yield semantic("a patch that does not divide the image", lambda: V.patchify(IMAGES, 3), ("patch", "3", "8"))


@cases("dl4nlp.vit.ViT")
def _():
    yield from vary(V.ViT, {}, "patch", int_variants(1))
    yield semantic("a patch that does not divide the image", lambda: V.ViT(patch=3), ("patch", "3"))
    yield from vary(V.ViT, {}, "n_classes", [("one class", 1, "1"), ("a string", "10", "'10'")])


@cases("dl4nlp.vit.ViT.forward")
def _():
    yield from vary(V.ViT().forward, {}, "images", _image_variants())
    yield semantic("16 x 16 images for an 8 x 8 model", lambda: V.ViT()(torch.rand(2, 16, 16)), ("8, 8", "(2, 16, 16)"))


@cases("dl4nlp.vit.ViT.cls_attention")
def _():
    yield "before any forward pass", lambda: V.ViT().cls_attention(), ("forward", "None")


@cases("dl4nlp.vit.cls_attention")
def _():
    yield from vary(V.cls_attention, {}, "encoder", [("a ViT instead of its encoder", V.ViT(), "ViT")])
    fresh = TransformerEncoder(TransformerConfig(vocab_size=1, d_model=8, n_heads=2, n_layers=1, positional="none"))
    yield "an encoder never run", lambda: V.cls_attention(fresh), ("forward", "None")


@cases("dl4nlp.vit.MLPClassifier")
def _():
    yield from vary(V.MLPClassifier, {}, "hidden", int_variants(1))


@cases("dl4nlp.vit.MLPClassifier.forward")
def _():
    yield from vary(V.MLPClassifier().forward, {}, "images", _image_variants())


@cases("dl4nlp.vit.CNNClassifier")
def _():
    yield from vary(V.CNNClassifier, {}, "channels", int_variants(1))
    yield from vary(V.CNNClassifier, {}, "hidden", int_variants(1))


@cases("dl4nlp.vit.CNNClassifier.forward")
def _():
    yield from vary(V.CNNClassifier().forward, {}, "images", _image_variants())


@cases("dl4nlp.vit.accuracy")
def _():
    good = dict(model=V.MLPClassifier(), images=IMAGES, labels=LABELS)
    yield from vary(V.accuracy, good, "model", [("a function", lambda x: x, "function")])
    yield from vary(V.accuracy, good, "images", _image_variants())
    yield from vary(
        V.accuracy,
        good,
        "labels",
        [("float labels", LABELS.float(), "float32"), ("too few labels", LABELS[:2], "(2,)")],
    )


@cases("dl4nlp.vit.train_classifier")
def _():
    good = dict(model=V.MLPClassifier(), images=IMAGES, labels=LABELS, steps=1)
    yield from vary(V.train_classifier, good, "model", [("a function", lambda x: x, "function")])
    yield from vary(V.train_classifier, good, "images", _image_variants())
    yield from vary(V.train_classifier, good, "labels", [("float labels", LABELS.float(), "float32")])
    yield from vary(V.train_classifier, good, "steps", int_variants(1))
    yield from vary(V.train_classifier, good, "batch_size", int_variants(1))
    yield from vary(V.train_classifier, good, "lr", [("0", 0.0, "0"), ("a string", "1e-3", "str")])
    yield from vary(V.train_classifier, good, "seed", [("a negative seed", -1, "-1")])


@cases("dl4nlp.vit.vit_vs_baselines")
def _():
    yield from vary(V.vit_vs_baselines, {}, "seed", [("a negative seed", -1, "-1"), ("a string", "0", "'0'")])
    yield from vary(V.vit_vs_baselines, {}, "steps", int_variants(1))
