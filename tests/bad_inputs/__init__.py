"""Bad inputs tried on every public callable of ``dl4nlp`` (see ``harness.py``).

One module here per library module holds that module's cases; ``harness.all_cases()``
loads them all. ``tests/test_bad_inputs.py`` asserts the outcomes and
``python tools/bad_inputs_report.py`` prints the tally.
"""
