"""Every public callable of dl4nlp, tried on clearly bad inputs (cases in tests/bad_inputs/).

A public function, class or method without bad-input cases or a reasoned
exemption fails ``test_every_public_callable_has_cases``, so a callable added
tomorrow is covered the day it is added. Each case must get an error raised
at the library's boundary that names what was expected and what was given
(outcome "good"); never a result (outcome "silent"). Cases are clear (a value
wrong on its face) or semantic (right in type, wrong in meaning: ``harness.semantic``);
both must get a good error. ``python tools/bad_inputs_report.py`` prints the
tally by outcome, by kind and by module.
"""

import pytest
from bad_inputs.harness import (
    EXEMPT,
    GOOD,
    SEMANTIC,
    SILENT,
    all_cases,
    public_api,
    registered_targets,
    remove_scratch,
    report,
    run,
)

TARGET_GOOD_SHARE = 0.95  # issue 11: at least 95 % of clearly bad inputs get a good error, none a silent result
CASES = all_cases()
RESULTS: dict[int, object] = {}  # case index -> Result, so the tally does not run each case twice


@pytest.fixture(scope="module", autouse=True)
def _remove_the_cases_files():
    """The cases' files (made in harness.scratch() folders when CASES was built) go when this module ends."""
    yield
    remove_scratch()


def result_of(index: int):
    if index not in RESULTS:
        RESULTS[index] = run(CASES[index])
    return RESULTS[index]


def test_every_public_callable_has_cases():
    api = set(public_api())
    uncovered = sorted(api - registered_targets() - set(EXEMPT))
    assert not uncovered, (
        f"{len(uncovered)} public callables have no bad-input cases in tests/bad_inputs/ and no exemption: {uncovered}"
    )


def test_no_cases_or_exemptions_for_callables_that_do_not_exist():
    api = set(public_api())
    stale = sorted((registered_targets() | set(EXEMPT)) - api)
    assert not stale, f"cases or exemptions name callables that are not public API (renamed or removed?): {stale}"


def test_no_callable_is_both_exempt_and_covered():
    both = sorted(registered_targets() & set(EXEMPT))
    assert not both, f"exempt yet with cases (drop one): {both}"


@pytest.mark.parametrize("index", range(len(CASES)), ids=[str(case) for case in CASES])
def test_bad_input_gets_a_good_error(index):
    result = result_of(index)
    if CASES[index].known:
        assert result.outcome != GOOD, f"marked as a known failure ({CASES[index].known}) but it now gets a good error"
        pytest.xfail(f"{CASES[index].known} ({result.outcome})")
    assert result.outcome == GOOD, f"{result.outcome}: {result.detail}"


def test_tally_meets_the_target():
    results = [result_of(index) for index in range(len(CASES))]
    good = sum(r.outcome == GOOD for r in results)
    silent = [str(r.case) for r in results if r.outcome == SILENT]
    assert not silent, f"silently returned a result: {silent}"
    assert good >= TARGET_GOOD_SHARE * len(results), report(results, verbose=True)


def test_semantic_cases_are_tallied_apart():
    """Issue 22: the semantic mistakes (a wrong-but-well-typed argument) have their own cases, across the API."""
    semantic = [case for case in CASES if case.kind == SEMANTIC]
    modules = {case.module for case in semantic}
    assert len(semantic) >= 50 and len(modules) >= 20, (len(semantic), sorted(modules))
