"""Recursive (tree-structured) networks: compose word vectors along a parse tree, one shared cell for every node.

A sequence RNN folds the words in left to right; a recursive network folds them in
along the sentence's tree, children before their head, with the same weights at
every node. On a dependency tree (``dl4nlp.dependency_trees``) a node may have any
number of children, so they are summed first (the child-sum form of Tai, Socher &
Manning, 2015, here without their gates):

    h(w) = tanh(W_word e(w) + W_child Σ_{c child of w} h(c) + b)

The vector of the root word is the sentence's vector. Chapter 05's Going further.

>>> from dl4nlp.dependency_trees import read_conllu
>>> sentence = read_conllu("en_ewt-ud-dev.conllu")[0]  # "From the AP comes this story :"
>>> cell = RecursiveCell(embedding_dim=4, hidden_size=3, seed=0)
>>> vectors = compose(sentence, torch.randn(len(sentence.tokens), 4, generator=torch.Generator().manual_seed(1)), cell)
>>> sorted(vectors) == [t.id for t in sentence.tokens], tuple(vectors[4].shape)  # one vector per word; 4 is the root
(True, (3,))
>>> tree_depth(sentence)  # root "comes" -> "AP" -> "From": three words on the longest path
3
"""

from __future__ import annotations

import torch

from dl4nlp._checks import check_int, check_tensor, check_type
from dl4nlp.dependency_trees import Sentence


class RecursiveCell(torch.nn.Module):
    """The shared composition cell: h = tanh(W_word e + W_child Σ h(children) + b), weights drawn from ``seed``."""

    def __init__(self, embedding_dim: int, hidden_size: int, seed: int = 0):
        super().__init__()
        check_int("embedding_dim", embedding_dim)
        check_int("hidden_size", hidden_size)
        check_int("seed", seed, low=0)
        generator = torch.Generator().manual_seed(seed)
        self.W_word = torch.nn.Parameter(
            torch.randn(hidden_size, embedding_dim, generator=generator) / embedding_dim**0.5
        )
        self.W_child = torch.nn.Parameter(torch.randn(hidden_size, hidden_size, generator=generator) / hidden_size**0.5)
        self.b = torch.nn.Parameter(torch.zeros(hidden_size))
        self.applications = 0  # how often the cell has been applied (one per word of every sentence composed)

    def forward(self, e: torch.Tensor, children: list[torch.Tensor]) -> torch.Tensor:
        self.applications += 1
        summed = torch.stack(children).sum(dim=0) if children else torch.zeros_like(self.b)
        return torch.tanh(self.W_word @ e + self.W_child @ summed + self.b)


def _check(sentence: Sentence, embeddings: torch.Tensor, cell: RecursiveCell) -> None:
    check_type("sentence", sentence, Sentence, "a Sentence (dl4nlp.dependency_trees.read_conllu)")
    check_type("cell", cell, RecursiveCell, "a RecursiveCell")
    check_tensor("embeddings", embeddings, shape=(len(sentence.tokens), cell.W_word.shape[1]), dtype="float")


def compose(sentence: Sentence, embeddings: torch.Tensor, cell: RecursiveCell) -> dict[int, torch.Tensor]:
    """Every word's vector, children first; ``embeddings`` (n_words, E) holds the words' vectors in sentence order.

    Returns ``{word id: h(word)}``; the root word's vector is the sentence's.
    """
    _check(sentence, embeddings, cell)
    vectors: dict[int, torch.Tensor] = {}

    def visit(token_id: int) -> torch.Tensor:  # post-order: the children's vectors before their head's
        children = [visit(child.id) for child in sentence.children(token_id)]
        vectors[token_id] = cell(embeddings[token_id - 1], children)
        return vectors[token_id]

    (root,) = sentence.children(0)
    visit(root.id)
    return vectors


def subtree(sentence: Sentence, token_id: int) -> list[int]:
    """The ids of the words under ``token_id`` (itself included), in sentence order."""
    check_type("sentence", sentence, Sentence, "a Sentence (dl4nlp.dependency_trees.read_conllu)")
    check_int("token_id", token_id, low=1, high=len(sentence.tokens))
    below = [token_id]
    for child in sentence.children(token_id):
        below += subtree(sentence, child.id)
    return sorted(below)


def tree_depth(sentence: Sentence) -> int:
    """The number of words on the longest path from the root word down to a leaf (a one-word sentence: 1)."""
    check_type("sentence", sentence, Sentence, "a Sentence (dl4nlp.dependency_trees.read_conllu)")

    def depth(token_id: int) -> int:
        return 1 + max((depth(child.id) for child in sentence.children(token_id)), default=0)

    return max(depth(child.id) for child in sentence.children(0))


def tree_shape(sentence: Sentence) -> tuple:
    """The tree without its words: each node as the tuple of its children's shapes, ordered as in the sentence."""
    check_type("sentence", sentence, Sentence, "a Sentence (dl4nlp.dependency_trees.read_conllu)")

    def shape(token_id: int) -> tuple:
        return tuple(shape(child.id) for child in sentence.children(token_id))

    return shape(0)
