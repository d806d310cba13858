"""Callables that the bert merge (issue 14, notebook 08) added or reworked at 03:10, after this branch's
last full pass: their bad-input cases are not written yet. They are listed here so that the coverage test
stays an honest gate (a callable added later still fails it) and the report counts them apart."""

from bad_inputs.harness import pending

pending(
    "added or reworked by the bert merge (notebook 08) after the last bad-input pass; cases to be written",
    "dl4nlp.recipes.bert_learning_curve.grid",
    "dl4nlp.recipes.bert_learning_curve.main",
    "dl4nlp.recipes.bert_learning_curve.parser",
    "dl4nlp.recipes.bert_learning_curve.tag_test_set",
    "dl4nlp.recipes.bert_mask_sweep.main",
    "dl4nlp.recipes.bert_mask_sweep.parser",
    "dl4nlp.recipes.bert_mask_sweep.run",
    "dl4nlp.recipes.parallel_map",
    "dl4nlp.recipes.resume_rows",
    "dl4nlp.recipes.save_rows",
    "dl4nlp.recipes.tiny_bert.build",
    "dl4nlp.recipes.tiny_bert.main",
    "dl4nlp.recipes.tiny_bert.parser",
    "dl4nlp.recipes.tiny_bert.prepare",
)
