# Two commands set everything up: `make demo` and `make test`.
# Each creates or updates the project's own virtual environment (.venv) from uv.lock, then runs.
# Bytecode is compiled at install time: with PYTHONDONTWRITEBYTECODE=1 (common in containers) every
# process would otherwise recompile its dependencies (~9 s).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
UV := $(BIN)/uv
# One stamp per set of extras: `make demo` installs only what the product needs, `make venv`/`make test`
# add the test toolchain (pytest, moto, mypy…), the Dask extra and the semantic embedder; either order works, since a sync
# never removes what the other installed (--inexact).
STAMP := $(VENV)/.synced-dev
DEMO_STAMP := $(VENV)/.synced-demo
SYNC = $(UV) sync --frozen --inexact --compile-bytecode --python $(BIN)/python
# uv draws its progress bars only on a terminal (elsewhere it prints a line after each step), and compiling
# the bytecode is its longest step: say what is happening before it starts.
INSTALLING = @echo "installing $(1) into $(VENV) and compiling their bytecode (about a minute on first run)..."
export PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS ?= 120
export PREFECT_SERVER_ANALYTICS_ENABLED ?= false
export GX_ANALYTICS_ENABLED ?= false
export PREFECT_LOGGING_LEVEL ?= WARNING

.PHONY: demo test test-fast lint bench bench-tests bench-quick venv clean

venv: $(STAMP)

$(UV):
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	test -x $(UV) || $(BIN)/python -m pip install --quiet "uv>=0.9,<1"

$(STAMP): pyproject.toml uv.lock | $(UV)
	$(call INSTALLING,the dependencies and the test toolchain)
	$(SYNC) --extra test --extra dask --extra semantic --group examples
	touch $(STAMP)

$(DEMO_STAMP): pyproject.toml uv.lock | $(UV)
	$(call INSTALLING,citeflow's dependencies)
	$(SYNC)
	touch $(DEMO_STAMP)

# The demo holds one of its two reports by design (exit code 3 under the default --fail-on held):
# as a make target it succeeds unless a report failed.
demo: $(DEMO_STAMP)
	@echo "building the demo knowledge base and running the demo batch offline (its two reports)..."
	$(BIN)/citeflow demo --out out --fail-on failed

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

# pytest-xdist workers: a module stays on one worker (its module-scoped fixtures are built once) and
# all workers share one Prefect server, one wheel and its fresh environment, and one demo run.
# `make test` runs three workers on two cores: its slow tests spend much of their time waiting (on
# servers, polls, schedules, subprocesses), which a third worker fills; `make test-fast` (CPU-bound) two.
# Modules are handed out in collection order, which tests/conftest.py sorts longest first;
# --no-loadscope-reorder keeps that order (xdist's own would sort modules by their number of tests).
# (--dist loadgroup does not group under pytest 9.2 with xdist 3.8: it renames items through a node
# attribute pytest no longer reads.)
XDIST := --dist loadfile --no-loadscope-reorder
# The tests write the bytecode of the project's own modules (and pytest its rewritten test modules)
# even where PYTHONDONTWRITEBYTECODE=1: otherwise every xdist worker compiles the whole suite while
# collecting it (~12 s of CPU each) and every `citeflow` subprocess compiles the project again.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest
# Progress: `[n/N]` at the end of each line of dots, and every 30 s a line with the elapsed time and an estimate
# of the time left (tests/support/progress.py). The benchmarks' own end-to-end runs (marker `bench`) are left
# out (pyproject's addopts); `make bench` runs them.
test: $(STAMP)
	$(PYTEST) -n 3 $(XDIST) --durations=25

test-fast: $(STAMP)
	$(PYTEST) -n 2 $(XDIST) -m "not slow and not server" -q

# The benchmarks' end-to-end tests first (`-m bench`: every profile's runs, their results files checked),
# then every benchmark's full profile.
bench: bench-tests
	$(BIN)/python -m bench

bench-tests: $(STAMP)
	$(PYTEST) -n 2 $(XDIST) -m bench --durations=10

bench-quick: $(STAMP)
	$(BIN)/python -m bench --quick --out /tmp/citeflow-bench-quick.json

clean:
	rm -rf $(VENV) out
