"""The claims of chapter 05 (what a recurrent language model learns), re-run on other seeds with its thresholds."""

import pytest

from dl4nlp.data import data_dir
from dl4nlp.experiments import CLAIM_SEEDS
from dl4nlp.experiments import char_lstm as char_experiments
from dl4nlp.experiments import lstm as experiments


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_bidirectional_and_stacked_help_exactly_where_they_should(seed):
    tags = experiments.direction_and_depth(seed)
    acc = tags.accuracy
    assert min(acc["previous", "forward"], acc["previous", "bidirectional"]) > 0.95, acc
    assert abs(acc["next", "forward"] - 0.25) < 0.05 and acc["next", "bidirectional"] > 0.95, acc
    assert abs(acc["neighbours equal", "1-layer bidirectional"] - 0.5) < 0.1, acc
    assert acc["neighbours equal", "2-layer bidirectional"] > 0.95, acc


# Each seed's character LSTM costs about 12 CPU-minutes to train (python -m dl4nlp.recipes.char_lstm --seed N),
# so only the seeds whose model ships in data/ are checked: a prefix of CLAIM_SEEDS, at least one of them.
MODEL_SEEDS = [s for s in CLAIM_SEEDS if (data_dir() / char_experiments.char_model_path(s)).is_file()]


def test_a_quotation_model_ships_for_at_least_one_claim_seed():
    assert MODEL_SEEDS and MODEL_SEEDS == list(CLAIM_SEEDS[: len(MODEL_SEEDS)]), MODEL_SEEDS


@pytest.mark.parametrize("seed", MODEL_SEEDS)
def test_cells_chosen_for_resetting_at_a_space_or_quote_do_so_on_other_held_out_text(seed):
    gates = char_experiments.boundary_gates(seed)
    low, high = char_experiments.MEAN_FORGET
    assert low < gates.mean_forget < high and gates.open_share > char_experiments.OPEN_SHARE, gates
    assert (
        gates.at_symbol[" "] < char_experiments.SPACE_CLOSED < char_experiments.SPACE_ELSEWHERE < gates.elsewhere[" "]
    ), gates
    assert (
        gates.at_symbol['"'] < char_experiments.QUOTE_CLOSED < char_experiments.QUOTE_ELSEWHERE < gates.elsewhere['"']
    ), gates


@pytest.mark.parametrize("seed", MODEL_SEEDS)
def test_a_model_has_a_quotation_cell_near_perfect_where_chosen_and_weaker_on_held_out_text_or_clearly_none(seed):
    quote = char_experiments.quotation_cell(seed)
    assert quote.median_passage_auc < char_experiments.TYPICAL_CELL
    assert quote.line_cell_correlation < char_experiments.LINE_CELL_CEILING
    # the linear probe's control (the current character's embedding, no memory) is near chance everywhere
    assert abs(quote.embedding_probe_rest_auc - 0.52) < 0.03, quote.embedding_probe_rest_auc
    if not char_experiments.has_quotation_cell(quote):  # raises for a model in between: neither reading holds
        # clearly none (seed 2): and a linear probe over all cells reads the quotation barely better than
        # the current character alone, so the information is not merely spread over many cells
        assert quote.embedding_probe_rest_auc < quote.probe_rest_auc < 0.6, quote.probe_rest_auc
        return
    assert quote.probe_rest_auc > quote.embedding_probe_rest_auc + 0.1, quote.probe_rest_auc
    assert quote.passage_auc >= char_experiments.QUOTE_CELL_ON_PASSAGE > quote.median_passage_auc + 0.2, quote
    low, high = char_experiments.QUOTE_CELL_HELD_OUT
    assert low <= quote.held_out_auc <= high, quote.held_out_auc
    assert quote.held_out_auc <= quote.passage_auc - char_experiments.QUOTE_CELL_OPTIMISM, quote
    near, far = quote.auc_by_distance[0, 100], quote.auc_by_distance[300, None]
    assert near > 0.9 and far < near - 0.1, quote.auc_by_distance
    # beyond twice the 128-character training window the cell still marks quotations above chance (0.5);
    # the notebook asserts more than 0.7 for seed 0's cell, seed 1's scores 0.59
    assert far > 0.55, quote.auc_by_distance


def test_the_shipped_runs_with_a_quotation_cell_are_the_ones_the_notebook_names():
    """Chapter 05 says which training runs learned a quotation cell (two of three); the shipped models agree."""
    shipped = [0, *MODEL_SEEDS]
    found = tuple(s for s in shipped if char_experiments.has_quotation_cell(char_experiments.quotation_cell(s)))
    assert found == tuple(s for s in char_experiments.QUOTATION_CELL_SEEDS if s in shipped), found


@pytest.mark.parametrize("seed", CLAIM_SEEDS)
def test_the_trained_elmo_pair_separates_the_senses_of_left_better_than_an_untrained_control(seed):
    senses = char_experiments.left_senses(seed)  # seed initialises the untrained control; the trained pair is shipped
    acc, majority = senses.accuracy, 1 - senses.direction_fraction
    assert acc["trained", "both"] >= char_experiments.SENSE_TRAINED, acc
    for part in ("both", "forward"):
        assert acc["trained", part] >= acc["untrained", part] + char_experiments.SENSE_MARGIN, (part, acc)
    assert acc["trained", "backward"] > max(acc["untrained", "backward"], majority), (acc, majority)


def test_the_quotation_cell_of_seed_1_is_a_latch_too():
    """Section 2 asserts seed 0's quotation cell is a latch on part B; seed 1's cell writes only at quotes too."""
    from dl4nlp.experiments import char_lstm as C

    gates, cell = C.boundary_gates(seed=1), C.quotation_cell(seed=1).cell
    at, elsewhere, keep = gates.input_at_quote[cell], gates.input_elsewhere[cell], gates.forget_elsewhere[cell]
    assert elsewhere < 0.1 and at > 5 * elsewhere and keep > 0.95, (cell, at, elsewhere, keep)
