"""dl4nlp.dependency_trees on the shipped English Web Treebank (chapter 03's subject-verb distances)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from dl4nlp.dependency_trees import (  # noqa: E402
    describe,
    draw_dependency_tree,
    read_conllu,
    share_farther,
    subject_verb_pairs,
)


@pytest.fixture(scope="module")
def treebank():
    return read_conllu("en_ewt-ud-dev.conllu") + read_conllu("en_ewt-ud-test.conllu")


def test_both_splits_are_read_whole(treebank):
    assert len(treebank) == 2001 + 2077
    assert all(t.head <= len(s.tokens) for s in treebank for t in s.tokens)


def test_the_finite_auxiliary_carries_the_agreement(treebank):
    pairs = {(p.subject, p.verb): p for p in subject_verb_pairs(treebank)}
    item = pairs[("item", "is")]  # "The hottest item on Christmas wish lists this year is nuclear weapons."
    assert (item.distance, item.attractor) == (7, "lists")


def test_the_counts_chapter_03_states(treebank):
    distance = [p.distance for p in subject_verb_pairs(treebank)]
    assert len(distance) == 4017 and max(distance) == 48
    assert round(share_farther(distance, 5), 3) == 0.030 and round(share_farther(distance, 10), 3) == 0.011


def test_describe_and_draw(treebank):
    pair = subject_verb_pairs(treebank[:1])[0]
    assert describe(pair, treebank[:1]) == "COMES this STORY"
    ax = draw_dependency_tree(treebank[0], title=treebank[0].text)
    assert len(ax.texts) >= 2 * len(treebank[0].tokens)
    plt.close("all")
