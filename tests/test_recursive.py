"""dl4nlp.recursive: composition along a dependency tree (chapter 05's Going further)."""

import torch

from dl4nlp.dependency_trees import read_conllu
from dl4nlp.recursive import RecursiveCell, compose, subtree, tree_depth, tree_shape

SENTENCE = read_conllu("en_ewt-ud-dev.conllu")[0]  # "From the AP comes this story :", root "comes"


def test_compose_applies_one_cell_per_word_children_first():
    cell = RecursiveCell(4, 3, seed=0)
    e = torch.randn(len(SENTENCE.tokens), 4, generator=torch.Generator().manual_seed(1))
    vectors = compose(SENTENCE, e, cell)
    assert cell.applications == len(SENTENCE.tokens) and sorted(vectors) == list(range(1, 8))
    story = 6  # "story" has one child, "this" (5): h(story) = tanh(W_word e(story) + W_child h(this) + b)
    expected = torch.tanh(cell.W_word @ e[story - 1] + cell.W_child @ vectors[5] + cell.b)
    assert torch.allclose(vectors[story], expected)


def test_a_phrase_vector_depends_on_its_words_only():
    cell = RecursiveCell(4, 3, seed=0)
    e = torch.randn(len(SENTENCE.tokens), 4, generator=torch.Generator().manual_seed(1))
    changed = e.clone()
    changed[3] = 0.0  # "comes", outside the phrase "this story"
    assert subtree(SENTENCE, 6) == [5, 6]
    assert torch.equal(compose(SENTENCE, e, cell)[6], compose(SENTENCE, changed, cell)[6])


def test_depth_and_shape():
    assert tree_depth(SENTENCE) == 3  # comes -> AP -> From
    assert tree_shape(SENTENCE) == ((((), ()), ((),), ()),)  # comes: AP (From, the), story (this), :
