"""pytest set-up for the whole repository (tests/conftest.py holds the tests' own).

`make test` passes ``--doctest-modules`` so that the docstring examples of
``lib/dl4nlp`` run; that option imports every ``.py`` file pytest collects.
Two kinds must not be imported that way: the notebooks' py:percent twins are
scripts, not modules (importing one would run the notebook a second time;
nbval runs their ``.ipynb``), and the tests' conftest files, which pytest
already loads as conftests (a second import under the same name fails).
"""

collect_ignore_glob = ["notebooks/*.py", "tests/conftest.py", "tests/*/conftest.py"]
