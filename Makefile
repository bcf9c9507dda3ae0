# The two commands of the README quick start: `make run` and `make test`.
# `make run` creates .venv from requirements.lock; every other target from requirements-dev.lock
# (the same pins plus pytest, ruff and mypy); `make notebooks` adds requirements-notebook.lock (JupyterLab). Each is
# reinstalled when its lock changes.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
PYTEST = $(BIN)/python -m pytest
# Tests run in three pytest-xdist workers on the two cores: about a third of the suite's time is spent waiting (served
# latency, stalls, timeouts, LangSmith outages, subprocesses starting), and a third worker computes meanwhile
# (docs/performance.md, "CI time"; worksteal: an idle worker takes queued tests from a busy one, so a few 20-second tests
# at the end do not leave a core idle). `make test XDIST=` runs in one process.
XDIST ?= -n 3 --dist worksteal

.PHONY: install install-dev install-notebook notebooks run test lint format typecheck test-unit test-slow test-evals test-validity test-validity-full test-live bench lock readme-image mutation mutation-changed versions lock-upgrade newest-releases

# uv installs the locks (pip bootstraps uv at the version requirements-dev.lock pins): about 20 s on a fresh machine
# where pip took about 85 s (docs/performance.md, "CI time"). Bytecode is compiled at install (uv's --compile-bytecode for
# the packages, compileall for the checkout's harness/): a process started where PYTHONDONTWRITEBYTECODE=1 is set (Docker
# images commonly set it) reads it instead of compiling about 2,700 modules again each time (docs/performance.md,
# "Start-up").
UV_PIN = $(or $(shell grep -m1 '^uv==' requirements-dev.lock 2>/dev/null),uv)
UV_INSTALL = $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python

$(VENV)/.installed: requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet $(UV_PIN)
	$(UV_INSTALL) -r requirements.lock
	$(UV_INSTALL) --no-deps -e .
	$(BIN)/python -m compileall -q harness
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.lock
	$(UV_INSTALL) -r requirements-dev.lock
	touch $@

$(VENV)/.installed-notebook: $(VENV)/.installed-dev requirements-notebook.lock
	$(UV_INSTALL) -r requirements-notebook.lock
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev
# The notebook extra without starting JupyterLab (for running a notebook headless: docs/python.md); the same as
# `make .venv/.installed-notebook`, which still works.
install-notebook: $(VENV)/.installed-notebook

# JupyterLab over notebooks/ (the `notebook` extra, pinned in requirements-notebook.lock), listening on 127.0.0.1 only
# and opening no browser: open the URL it prints (it carries the login token). Ctrl-C stops it. Another port:
# `make notebooks NOTEBOOK_PORT=8890`.
NOTEBOOK_PORT ?= 8888
notebooks: $(VENV)/.installed-notebook
	$(BIN)/jupyter lab --ip 127.0.0.1 --port $(NOTEBOOK_PORT) --no-browser --ServerApp.root_dir=notebooks $(ARGS)

run: install
	$(BIN)/harness run $(ARGS)

# Everything CI runs: lint, then every test tier (unit, offline evals, validity matrix, live) with the type check
# beside it: mypy (about 45 s of one core on a cold cache) fills the time pytest's workers spend waiting on servers
# and timeouts instead of running before them. Either failing fails the target; mypy's report follows pytest's.
test: lint
	@$(BIN)/mypy > .mypy-test.log 2>&1 & mypy=$$!; \
	$(PYTEST) $(XDIST) $(ARGS); tests=$$?; \
	wait $$mypy; types=$$?; cat .mypy-test.log; rm -f .mypy-test.log; \
	if [ $$types -ne 0 ]; then echo "make test: mypy failed"; fi; \
	[ $$tests -eq 0 ] && [ $$types -eq 0 ]

lint: install-dev
	$(BIN)/ruff check harness tests evals tools
	$(BIN)/ruff format --check harness tests evals tools

format: install-dev
	$(BIN)/ruff check --fix harness tests evals tools
	$(BIN)/ruff format harness tests evals tools

typecheck: install-dev
	$(BIN)/mypy

# The tiers, one at a time (CI runs them as parallel jobs).
# tests/ splits in three by marker (tests/README.md): the fast tests (most take milliseconds; none starts an interpreter or a
# server), the slow ones (interpreters, servers, whole runs: `-m slow`) and the live tier (`-m live`).
test-unit: install-dev
	$(PYTEST) $(XDIST) tests -m "not slow and not live" $(ARGS)

test-slow: install-dev
	$(PYTEST) $(XDIST) tests -m "slow and not live" $(ARGS)

test-evals: install-dev
	$(PYTEST) $(XDIST) evals -m "not validity" $(ARGS)

# CI's subset of the validity matrix (every eval healthy over 3 seeds and under each fault it names: all the test
# asserts); test-validity-full is the whole matrix (10 seeds, every eval under every fault), run nightly.
test-validity: install-dev
	$(PYTEST) $(XDIST) evals -m validity $(ARGS)

test-validity-full: install-dev
	$(PYTEST) $(XDIST) evals -m validity --validity-full $(ARGS)

test-live: install-dev
	$(PYTEST) $(XDIST) tests -m live $(ARGS)

# Mutation score of the scorers, outcome rules, recorder, statistics, gate, config, strategies, redactor, grid resume
# and merge, report counts and live error classification ([tool.mutmut] in pyproject.toml). Writes
# mutants/mutation-report.md (score per module, every survivor's diff); fails under fail_under. `ARGS=--survivors`
# re-runs only the last run's survivors; `ARGS="scoring/scorers redact"` only those modules.
mutation: install-dev
	$(BIN)/python tools/mutation.py run --check $(ARGS)

# The same, over the modules of the scope whose source differs from BASE (what a pull request touches).
BASE ?= origin/main
mutation-changed: install-dev
	$(BIN)/python tools/mutation.py run --changed $(BASE) --check

bench: install
	$(BIN)/harness bench $(ARGS)

# One deepagents release against another (datasets/experiments/versions.yaml: 0.7.6 against the pinned 0.7.32, the needle,
# goal and state evals, offline, about a minute): each arm runs in its own environment, made once by uv from requirements.lock plus the arm's
# pin and cached under ~/.cache/compaction-harness/envs ($$COMPACTION_HARNESS_ENVS). Not part of `make test` (an
# environment costs seconds and disk); the measured table is in docs/experiments.md, "Version against version, measured".
versions: install
	$(BIN)/harness experiment run datasets/experiments/versions.yaml --no-langsmith $(ARGS)

# The lock against the pins it replaced (the old pins as one arm, pinned together), offline: lock-upgrade.yaml (the
# needle, goal and state evals, in-process reference models) then lock-upgrade-native.yaml (the provider-native
# compactions, through the provider SDKs to a loopback harness serve). What moving the lock changed: docs/versions.md.
lock-upgrade: install
	$(BIN)/harness experiment run datasets/experiments/lock-upgrade.yaml --no-langsmith $(ARGS)
	$(BIN)/harness experiment run datasets/experiments/lock-upgrade-native.yaml --no-langsmith $(ARGS)

# What the next `make lock` would move, and whether it changes an outcome (the nightly workflow's newest-releases job):
# pyproject.toml compiled with its exact pins lifted and every package upgraded into reports/newest/newest.lock (needs
# the package index), the smoke spec run offline on the lock and on that lock, the lock diff and the outcome diff in
# reports/newest/report.md; exit 1 when an outcome moved. The locks themselves are not touched.
newest-releases: install
	$(BIN)/python tools/newest_releases.py --out reports/newest $(ARGS)

# The README's image (docs/img/token_curves_example.png): token_curves.png of a real offline run (simulated), four
# cases under forced-25, two trials each, as `harness run` draws it.
readme-image: install
	@out=$$(mktemp -d) && \
	$(BIN)/harness run --variant forced-25 --cases goal-ledgers-16 goal-ledgers-30 needle-h32k-d025 needle-h48k-d050 \
		--trials 2 --out $$out --run-id readme-example && \
	cp $$out/readme-example/token_curves.png docs/img/token_curves_example.png && rm -rf $$out

# Re-pin after a change to pyproject.toml's dependencies (needs network to PyPI). Pins already in a lock are kept
# (uv prefers the pins of the file it compiles into); a lock whose content would not change is left untouched, so
# `make` does not reinstall .venv. Commit the three files.
lock:
	$(BIN)/python -m pip install --quiet $(UV_PIN)
	@cp requirements.lock requirements.lock.new
	$(BIN)/uv pip compile pyproject.toml --python-version 3.11 --quiet --custom-compile-command "make lock" -o requirements.lock.new
	@cmp -s requirements.lock.new requirements.lock && echo "requirements.lock unchanged" || echo "requirements.lock updated"
	@cmp -s requirements.lock.new requirements.lock && rm requirements.lock.new || mv requirements.lock.new requirements.lock
	@cp requirements-dev.lock requirements-dev.lock.new
	$(BIN)/uv pip compile pyproject.toml --extra dev --python-version 3.11 --quiet --custom-compile-command "make lock" \
		-c requirements.lock -o requirements-dev.lock.new
	@cmp -s requirements-dev.lock.new requirements-dev.lock && echo "requirements-dev.lock unchanged" || echo "requirements-dev.lock updated"
	@cmp -s requirements-dev.lock.new requirements-dev.lock && rm requirements-dev.lock.new || mv requirements-dev.lock.new requirements-dev.lock
	@cp requirements-notebook.lock requirements-notebook.lock.new
	$(BIN)/uv pip compile pyproject.toml --extra dev --extra notebook --python-version 3.11 --quiet \
		--custom-compile-command "make lock" -c requirements-dev.lock -o requirements-notebook.lock.new
	@cmp -s requirements-notebook.lock.new requirements-notebook.lock && echo "requirements-notebook.lock unchanged" || echo "requirements-notebook.lock updated"
	@cmp -s requirements-notebook.lock.new requirements-notebook.lock && rm requirements-notebook.lock.new || mv requirements-notebook.lock.new requirements-notebook.lock
