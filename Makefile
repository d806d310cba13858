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
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
# Run a command with the network unavailable: a new network namespace with only loopback.
OFFLINE := $(shell if unshare --net true 2>/dev/null; then echo "unshare --net"; elif unshare -rn true 2>/dev/null; then echo "unshare -rn"; fi)

.PHONY: setup lab test test-kernels student book book-check unit notebooks bench compat e2e e2e-setup lock clean help

help:
	@echo "make lab        set up (if needed) and open JupyterLab on notebooks/"
	@echo "make test       set up (if needed), run the library tests and every notebook under nbval"
	@echo "make test-kernels  every notebook and the claims suite again under other CPU kernels (KERNELS=default-sse)"
	@echo "make student    the student edition in student/ (solutions removed), each run top to bottom"
	@echo "make book      the course as a static HTML book in build/book/html (stored outputs, offline)"
	@echo "make book-check  the book's links, then every chapter page in headless Chromium"
	@echo "make notebooks  regenerate each .ipynb from its .py twin and execute it on the CPU (NB=01 for one)"
	@echo "make bench      execute each notebook headless; table of wall time, slowest cell, peak memory"
	@echo "make compat     the tests and notebooks on the oldest Python and dependency versions declared (by hand)"
	@echo "make e2e        every notebook in JupyterLab + headless Chromium, then offline / twice-in-one-kernel checks"

setup: $(STAMP)

# requirements/dev.txt pins versions that need Python >= 3.11 (ipython 9, numpy 2.4); the library
# itself supports Python >= 3.9, which `make compat` checks.
$(STAMP): requirements/dev.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "make setup needs Python >= 3.11 \
	for the pinned versions of requirements/dev.txt; $(VENV) has $$($(BIN)/python --version). Remove $(VENV) and run \
	make setup PYTHON=python3.11 (or newer). The library itself supports Python >= 3.9: see make compat."; exit 1; }
	$(BIN)/python -m pip install --quiet $(PIP_OPTS) -r requirements/dev.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	$(BIN)/python -m pip check  # the pins satisfy every range pyproject.toml declares
	$(BIN)/python tools/labextensions.py  # disables the stale mathjax3 extension; fails on an incompatible one
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (dl4nlp)" >/dev/null
	@touch $(STAMP)
	@echo "dl4nlp environment ready in $(VENV)"

# --allow-root only when run as root (containers), where JupyterLab refuses to start without it.
lab: setup
	$(BIN)/jupyter lab --notebook-dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

test: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -q tests notebooks lib/dl4nlp --doctest-modules --nbval-lax --nbval-current-env --nbval-cell-timeout=300 -n 2 --dist loadfile

# The notebooks and the claims suite a second time, under CPU kernels other than the machine's own (the
# configurations are dl4nlp.kernels.KERNEL_CONFIGURATIONS; tools/kernels.py sets them and prints the fingerprint).
KERNELS ?= default-sse
test-kernels: setup
	$(BIN)/python tools/kernels.py $(KERNELS) -- $(BIN)/python -m pytest -q notebooks tests/claims --nbval-lax --nbval-current-env --nbval-cell-timeout=300 -n 2 --dist loadfile -p no:cacheprovider

# The student edition: every notebook less its solution cells (nbconvert's preprocessors), written to student/
# and executed top to bottom (an unsolved exercise falls back to the library's version).
student: setup
	$(BIN)/python tools/student_edition.py --run $(NB)

# The course as a book: Sphinx + MyST-NB + sphinx-book-theme (Jupyter Book 1's engine) in a venv of their
# own, .venv-book, pinned in requirements/book.txt. tools/book_build.py builds build/book/html from copies of the
# notebooks' stored outputs (nothing executed; notebooks/ only read), with the network unavailable when
# this machine can make a network namespace.
BOOK_VENV ?= .venv-book
BOOK_STAMP := $(BOOK_VENV)/.dl4nlp-book-installed
$(BOOK_STAMP): requirements/book.txt
	@test -x $(BOOK_VENV)/bin/python || $(PYTHON) -m venv $(BOOK_VENV)
	$(BOOK_VENV)/bin/python -m pip install --quiet $(PIP_OPTS) -r requirements/book.txt
	@touch $(BOOK_STAMP)

book: $(BOOK_STAMP)
ifeq ($(OFFLINE),)
	$(BOOK_VENV)/bin/python tools/book_build.py
else
	$(OFFLINE) sh -c 'ip link set lo up && $(BOOK_VENV)/bin/python tools/book_build.py'
endif

# Every internal link, then each chapter page in Debian's headless Chromium: no console error, no request
# leaving the book, its figures, its maths rendered; screenshots in e2e/screenshots/book_*.png.
book-check: book e2e-setup
	@test -x /usr/bin/chromium || { $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	$(BIN)/python tools/book_check.py

unit: setup
	$(BIN)/python -m pytest -q tests

notebooks: setup
	DL4NLP_DEVICE=cpu $(BIN)/python tools/build_notebooks.py $(NB)

bench: setup
	$(BIN)/python tools/bench_notebooks.py $(NB)

# The oldest Python and the oldest versions that pyproject.toml declares, in a venv of their own
# (.venv-compat): the tests and every notebook run there (tools/compat.py). Run by hand, not by CI;
# the first run downloads about 3 GB. COMPAT_PYTHON: a python3.9 on PATH, else pyenv's.
COMPAT_PYTHON ?= $(or $(shell python3.9 -c 'import sys; print(sys.executable)' 2>/dev/null),$(lastword $(wildcard $(HOME)/.pyenv/versions/3.9*/bin/python3.9)))
compat: setup
	@test -n "$(COMPAT_PYTHON)" || { echo "make compat needs Python 3.9: make compat COMPAT_PYTHON=/path/to/python3.9"; exit 1; }
	$(BIN)/python tools/compat.py --python $(COMPAT_PYTHON)

# Browser tests need Debian's Chromium (installed here when missing; needs root or sudo)
# and Playwright, which drives that Chromium (it never downloads a browser of its own).
E2E_STAMP := $(VENV)/.dl4nlp-e2e-installed

e2e-setup: setup $(E2E_STAMP)
$(E2E_STAMP): requirements/e2e.txt
	$(BIN)/python -m pip install --quiet $(PIP_OPTS) -r requirements/e2e.txt
	@touch $(E2E_STAMP)

e2e: e2e-setup
	@test -x /usr/bin/chromium || { $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	$(BIN)/python tools/e2e.py $(NB)
ifeq ($(OFFLINE),)
	@echo "warning: cannot create a network namespace here; the robustness run below has the network available"
	DL4NLP_DEVICE=cpu $(BIN)/python tools/robustness.py $(NB)
else
	$(OFFLINE) sh -c 'ip link set lo up && DL4NLP_DEVICE=cpu $(BIN)/python tools/robustness.py $(NB)'
endif

# Re-pin requirements/dev.txt from requirements/dev.in in a scratch venv.
lock:
	rm -rf /tmp/dl4nlp-lock && $(PYTHON) -m venv /tmp/dl4nlp-lock
	/tmp/dl4nlp-lock/bin/pip install --quiet $(PIP_OPTS) -r requirements/dev.in
	{ sed -n '1,4p' requirements/dev.txt; /tmp/dl4nlp-lock/bin/pip freeze --all | grep -v '^pip==' | sed 's/+cpu$$//'; } > requirements/dev.txt.new
	mv requirements/dev.txt.new requirements/dev.txt

clean:
	rm -rf $(VENV) .venv-compat $(BOOK_VENV) build/book .pytest_cache .hypothesis e2e/screenshots
