"""dl4nlp.vit: the digits file, patching, the ViT on the library's encoder, the baselines."""

import torch
from torch import nn

from dl4nlp import vit
from dl4nlp.experiments.transformer import cls_attention_figure, patch_diagram
from dl4nlp.transformer import count_parameters


def test_digits_are_the_uci_test_set_as_scikit_learn_ships_it():
    images, labels = vit.load_digits()
    assert images.shape == (1797, 8, 8) and images.dtype == torch.float32
    assert float(images.min()) == 0.0 and float(images.max()) == 1.0
    assert torch.equal((images * 16).round(), images * 16)  # counts 0..16, divided by 16
    # the class counts of the UCI "optdigits.tes" file (its description lists 178, 182, 177, 183, 181, ...)
    assert torch.bincount(labels).tolist() == [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]


def test_split_is_disjoint_and_covers_everything():
    for seed in range(3):
        train, test = vit.split_digits(1797, 0.25, seed)
        assert len(test) == 449 and len(train) == 1348
        assert sorted(torch.cat([train, test]).tolist()) == list(range(1797))
    assert not torch.equal(vit.split_digits(seed=0)[1], vit.split_digits(seed=1)[1])


def test_patchify_equals_unfold():
    images = torch.randn(3, 8, 8, dtype=torch.float64)
    for p in (1, 2, 4, 8):
        expected = nn.functional.unfold(images[:, None], kernel_size=p, stride=p).transpose(1, 2)
        assert torch.equal(vit.patchify(images, p), expected)


def test_vit_forward_by_hand_and_permutation():
    torch.manual_seed(0)
    model = vit.ViT().double().eval()
    images = torch.rand(4, 8, 8, dtype=torch.float64)
    tokens = model.patch_embedding(vit.patchify(images, 2))
    x = torch.cat([model.cls.expand(4, -1, -1), tokens], 1) + model.positions
    assert torch.allclose(model(images), model.head(model.encoder(x)[:, 0]), atol=1e-12)
    attention = model.cls_attention()
    assert attention.shape == (4, 2, 4, 16)
    weights = model.encoder.attention_weights()
    on_itself = torch.stack([w[:, :, 0, 0] for w in weights], 1)
    assert torch.allclose(attention.sum(-1) + on_itself, torch.ones(4, 2, 4, dtype=torch.float64))
    # without positions, the patches are a set: shuffling them leaves [CLS]'s output unchanged
    order = torch.randperm(16, generator=torch.Generator().manual_seed(0))
    cls = model.cls.expand(4, -1, -1)
    plain = model.head(model.encoder(torch.cat([cls, tokens], 1))[:, 0])
    shuffled = model.head(model.encoder(torch.cat([cls, tokens[:, order]], 1))[:, 0])
    assert torch.allclose(plain, shuffled, atol=1e-12)
    # with the learned positions, it does not
    with_positions = model.head(model.encoder(torch.cat([cls, tokens[:, order]], 1) + model.positions)[:, 0])
    assert not torch.allclose(model(images), with_positions, atol=1e-6)


def test_models_are_about_the_same_size():
    sizes = [count_parameters(make()) for make in vit.MODELS.values()]
    assert sizes == [18218, 17226, 17362]


def test_training_lowers_the_loss_and_accuracy_is_a_fraction():
    images, labels = vit.load_digits()
    torch.manual_seed(0)
    model = vit.MLPClassifier()
    losses = vit.train_classifier(model, images[:256], labels[:256], steps=30, batch_size=64, seed=0)
    assert len(losses) == 30 and losses[-1] < losses[0]
    assert 0.0 <= vit.accuracy(model, images[256:512], labels[256:512]) <= 1.0
    assert not model.training


def test_figures_draw():
    import matplotlib.pyplot as plt

    images, labels = vit.load_digits()
    fig = patch_diagram(images[0], 2)
    plt.close(fig)
    model = vit.ViT()
    with torch.no_grad():
        predicted = model(images[:4]).argmax(-1)
    fig = cls_attention_figure(images[:4], model.cls_attention()[:, -1].mean(1), labels[:4], predicted)
    assert len(fig.axes) == 9  # 2 x 4 panels and a colour bar
    plt.close(fig)
