# Two commands on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)
PORT ?= 8501

.PHONY: run test test-fast bench bench-scale worker system-deps migrate lint clean model

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev,bench]'
	rm -f $(VENV)/.installed-*
	touch $@

# Debian's chromium for the browser tests and PostgreSQL for the database tests;
# installed only when missing, never downloaded by a test tool.
system-deps:
	@if [ ! -x /usr/bin/chromium ] || ! command -v pdftoppm >/dev/null || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver poppler-utils postgresql >/dev/null \
	      || echo "warning: could not install system packages; browser/postgres tests will be skipped"; \
	  else echo "warning: not root; install chromium, poppler-utils and postgresql to run every test"; fi; \
	fi

# The app and a worker process under one command (Ctrl+C stops both), on 127.0.0.1 unless
# DRAFTROOM_SERVER_ADDRESS says otherwise (which needs sign-in: see README, Configuration).
run: $(STAMP) model
	$(PY) -m engine serve --port $(PORT)

worker: $(STAMP)
	$(PY) -m engine worker

# The safety screen's classifier, trained from the labelled corpus in tests/data (no download;
# deterministic; cached under ~/.cache/draftroom keyed by corpus, code and scikit-learn version).
model: $(STAMP)
	$(PY) -m engine.checks.safety_model

migrate: $(STAMP)
	$(PY) -m engine migrate

test: $(STAMP) system-deps model
	$(PY) -m pytest -q

test-fast: $(STAMP)
	$(PY) -m pytest -q -m "not browser and not slow"

bench: $(STAMP)
	$(PY) -m bench

# -- scale (issue 15): the ops and pages rows at 1,000,000 calls / 50,000 runs (seeded once, ~4 min,
# into DRAFTROOM_BENCH_DB, reused after; the pages rows take ~7 min more). `make bench` runs them
# at 100,000 calls / 5,000 runs and says so in each row.
bench-scale: $(STAMP)
	DRAFTROOM_BENCH_SCALE=full DRAFTROOM_BENCH_DB=$${DRAFTROOM_BENCH_DB:-/tmp/draftroom-scale.db} $(PY) -m bench --only ops,pages
# -- end scale

lint: $(STAMP)
	$(PY) -m ruff check .

clean:
	rm -rf $(VENV) draftroom.db* test-artifacts .pytest_cache
