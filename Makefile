# The two commands of the README quick start: `make run` and `make test`.
# Both create .venv from the lock file on first use (and again when the lock changes).
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: install run test bench lock

$(VENV)/.installed: requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.lock
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

install: $(VENV)/.installed

run: install
	$(BIN)/harness run $(ARGS)

test: install
	$(BIN)/python -m pytest $(ARGS)

bench: install
	$(BIN)/harness bench $(ARGS)

# Re-pin every dependency (needs network to PyPI). Commit the result.
lock:
	$(BIN)/python -m pip install --quiet uv
	$(BIN)/uv pip compile pyproject.toml --python-version 3.11 --quiet -o requirements.lock
