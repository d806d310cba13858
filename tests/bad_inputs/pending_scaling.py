"""Callables that the scaling merge (issue 15, notebook 09) added or reworked at 03:25 (dl4nlp.sweep was
rewritten; compute_optimal, recipes.scaling_run and experiments.scaling are new), after this branch's last
bad-input pass: their cases are not written yet. Listed so that the coverage test stays an honest gate and
the report counts them apart."""

from bad_inputs.harness import pending

pending(
    "added or reworked by the scaling merge (notebook 09) after the last bad-input pass; cases to be written",
    "dl4nlp.recipes.scaling_spec.SweepSpec",
    "dl4nlp.recipes.scaling_spec.SweepSpec.budgets",
    "dl4nlp.recipes.scaling_spec.SweepSpec.key",
    "dl4nlp.recipes.scaling_spec.SweepSpec.lr",
    "dl4nlp.recipes.scaling_spec.SweepSpec.lr_index",
    "dl4nlp.recipes.scaling_spec.SweepSpec.settings",
    "dl4nlp.recipes.scaling_spec.check_unique",
    "dl4nlp.recipes.scaling_spec.default_workdir",
    "dl4nlp.recipes.scaling_spec.spec_dict",
    "dl4nlp.recipes.scaling_spec.trunk_and_branches",
    "dl4nlp.recipes.scaling_sweep.Sweep",
    "dl4nlp.recipes.scaling_sweep.Sweep.ensure",
    "dl4nlp.recipes.scaling_sweep.Sweep.run_all",
    "dl4nlp.recipes.scaling_sweep.Sweep.save",
    "dl4nlp.recipes.scaling_sweep.Sweep.search",
    "dl4nlp.recipes.scaling_sweep.estimate",
    "dl4nlp.recipes.scaling_sweep.main",
    "dl4nlp.recipes.scaling_sweep.models_path",
    "dl4nlp.recipes.scaling_sweep.parser",
    "dl4nlp.recipes.scaling_sweep.shipped_models",
    "dl4nlp.recipes.scaling_sweep.write_outputs",
)
