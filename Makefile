# The two commands of the README. Each sets itself up: system packages (graphviz's
# `dot`, a Java 17+ runtime for Spark, chromium for the browser test), then a
# virtual environment in .venv with `pip install -e .[dev]`. Re-running is fast:
# nothing is installed again unless pyproject.toml changed.

SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.exprscope-installed
export SPARK_LOCAL_IP ?= 127.0.0.1
export PYSPARK_PYTHON := $(abspath $(PY))
export PYSPARK_DRIVER_PYTHON := $(abspath $(PY))

.PHONY: demo test system-packages docs bench clean

demo: $(STAMP) system-packages
	$(PY) -m toolkit.cli.demo

# the suite on every core (four at most: each worker that reaches a Spark test starts its
# own embedded Spark); `make test PARALLEL=` runs it in one process
PARALLEL ?= -n logical --maxprocesses=4 --dist loadscope

test: $(STAMP) system-packages
	$(PY) -m pytest $(PARALLEL) $(PYTEST_ARGS)

docs: $(STAMP) system-packages
	$(PY) docs/figures.py
	$(PY) docs/build.py docs/_build/api

# every benchmark prints ratios against a peer measured in the same run
bench: $(STAMP) system-packages
	@set -e; for script in benchmarks/bench_*.py; do echo "==> $$script"; $(PY) $$script; done

# apt packages exprscope needs, by the program that proves each is there
SYSTEM_NEEDS := dot:graphviz java:openjdk-17-jre-headless chromium:chromium

system-packages:
	@missing=""; \
	for need in $(SYSTEM_NEEDS); do \
	  prog=$${need%%:*}; pkg=$${need##*:}; \
	  command -v $$prog >/dev/null 2>&1 || missing="$$missing $$pkg"; \
	done; \
	if command -v java >/dev/null 2>&1; then \
	  jv=$$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1); \
	  if [ -n "$$jv" ] && [ "$$jv" -lt 17 ]; then missing="$$missing openjdk-17-jre-headless"; fi; \
	fi; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "==> installing system packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null \
	      || { echo "apt-get could not install:$$missing" >&2; exit 1; }; \
	  else \
	    echo "exprscope needs these system packages:$$missing" >&2; \
	    echo "install them with: sudo apt-get install$$missing" >&2; \
	    exit 1; \
	  fi; \
	fi

$(STAMP): pyproject.toml
	@command -v python3 >/dev/null || { echo "exprscope needs python3 (3.10 or newer)" >&2; exit 1; }
	@test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	@touch $(STAMP)

clean:
	rm -rf $(VENV) out .pytest_cache
