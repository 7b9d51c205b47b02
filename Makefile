# kotae: `make run` sets up and starts on the bundled samples; `make test` sets up and runs the tests.
VENV ?= .venv
PY := $(VENV)/bin/python
KOTAE := $(VENV)/bin/kotae
INDEX ?= .kotae
HOST ?= 127.0.0.1
PORT ?= 8000
export OPENBLAS_NUM_THREADS ?= 1

.PHONY: setup system-packages run repl test test-fast lint samples clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $@

run: setup
	$(KOTAE) --index $(INDEX) index samples/docs
	$(KOTAE) --index $(INDEX) serve --host $(HOST) --port $(PORT)

repl: setup
	$(KOTAE) --index $(INDEX) index samples/docs
	$(KOTAE) --index $(INDEX) repl

# Debian packages of the OCR and browser tests: installed when run as root with apt, else named (those tests skip).
system-packages:
	@sh .ci/system-packages

test: setup system-packages
	$(PY) -m pytest -q

test-fast: setup system-packages
	$(PY) -m pytest -q -m "not slow"

lint: setup
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy src

samples: setup
	$(PY) samples/make_samples.py

clean:
	rm -rf $(INDEX) .pytest_cache
