# dl4nlp: every target does its own set-up, so a fresh clone needs only
#   make lab    (JupyterLab on notebooks/)      make test    (everything CI runs)
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.dl4nlp-installed
# Extra pip options, e.g. PIP_OPTS="--extra-index-url https://download.pytorch.org/whl/cpu"
# to get the small CPU build of torch on a machine without a GPU elsewhere.
PIP_OPTS ?=
# Notebooks to build or benchmark (default: all); e.g. make notebooks NB=01
NB ?=

.PHONY: setup lab test unit nbval sync notebooks bench lock clean help

help:
	@echo "make lab        set up (if needed) and open JupyterLab on notebooks/"
	@echo "make test       set up (if needed), run the library tests and every notebook under nbval"
	@echo "make notebooks  regenerate each .ipynb from its .py twin and execute it on the CPU (NB=01 for one)"
	@echo "make bench      execute each notebook headless; table of wall time, slowest cell, peak memory"

setup: $(STAMP)

$(STAMP): requirements/dev.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet $(PIP_OPTS) -r requirements/dev.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (dl4nlp)" >/dev/null
	@touch $(STAMP)
	@echo "dl4nlp environment ready in $(VENV)"

lab: setup
	$(BIN)/jupyter lab --notebook-dir=notebooks

test: setup
	$(BIN)/python -m pytest -q tests notebooks --nbval-lax --nbval-current-env --nbval-cell-timeout=300

unit: setup
	$(BIN)/python -m pytest -q tests

notebooks: setup
	DL4NLP_DEVICE=cpu $(BIN)/python tools/build_notebooks.py $(NB)

bench: setup
	$(BIN)/python tools/bench_notebooks.py $(NB)

# Re-pin requirements/dev.txt from requirements/dev.in in a scratch venv.
lock:
	rm -rf /tmp/dl4nlp-lock && $(PYTHON) -m venv /tmp/dl4nlp-lock
	/tmp/dl4nlp-lock/bin/pip install --quiet $(PIP_OPTS) -r requirements/dev.in
	{ sed -n '1,4p' requirements/dev.txt; /tmp/dl4nlp-lock/bin/pip freeze --all | grep -v '^pip==' | sed 's/+cpu$$//'; } > requirements/dev.txt.new
	mv requirements/dev.txt.new requirements/dev.txt

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
