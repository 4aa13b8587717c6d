# connect-worker: every target does its own set-up on a fresh machine.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: help venv up down status run test unit lint fmt clean bench chaos differential-generated \
	compose-up compose-test compose-down

help:
	@echo "make run    set up everything, start the services and the worker (REST on 127.0.0.1:8083)"
	@echo "make test   set up everything, start the services, lint and run the whole test suite"
	@echo "make up / make down / make status   the local Kafka + PostgreSQL services"
	@echo "make lint   ruff, mypy and the import contracts"
	@echo "make bench  side-by-side benchmark with Debezium (BENCH_SIZE=smoke|small|full, see benchmarks/README.md)"
	@echo "make differential-generated  random rows through real Debezium and this worker (CW_DIFF_SEED, CW_DIFF_ROWS)"
	@echo "make chaos  kill -9 of the worker 100 times under load, at least once and exactly once (CW_CHAOS_KILLS, CW_CHAOS_SEED)"
	@echo "make compose-up / compose-test / compose-down   docker-compose.yml on a project-scoped Docker engine (root)"

# the C extensions are built by the install: a changed C source reinstalls
C_SOURCES := $(wildcard connect_worker/*/*.c converters/*.c connectors/*/*.c connectors/*/*/*.c)

$(STAMP): pyproject.toml $(C_SOURCES)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required (found %s)" % sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,spark]'
	@touch $(STAMP)

venv: $(STAMP)

up: venv
	devstack/up.sh
	devstack/spark.sh fetch

down:
	devstack/down.sh

status:
	-devstack/kafka.sh status
	-devstack/postgres.sh status
	-devstack/registry.sh status

run: up
	devstack/run.sh

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

fmt: venv
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

unit: venv
	$(PY) -m pytest -m "not integration" -q

# The Spark sink's integration tests (mostly one local Spark JVM's CPU) run in a second pytest process beside the
# rest (mostly waiting on Kafka, PostgreSQL and Debezium), with a temp folder of their own; their output follows.
SPARK_TESTS = tests/integration/spark_sink
# the compose stack's tests need the Docker engine and images of `make compose-up`: their own target, not make test
COMPOSE_TESTS = tests/compose
test: up lint
	@spark_tmp=$$(mktemp -d); \
	$(PY) -m pytest -q --durations=15 -p no:cacheprovider --basetemp=$$spark_tmp/t $(SPARK_TESTS) \
		> $$spark_tmp/log 2>&1 & spark=$$!; \
	$(PY) -m pytest -q --durations=15 --ignore=$(SPARK_TESTS) --ignore=$(COMPOSE_TESTS); rest=$$?; \
	wait $$spark; spark_rc=$$?; \
	echo "==== $(SPARK_TESTS) (run beside the tests above) ===="; cat $$spark_tmp/log; rm -rf $$spark_tmp; \
	test $$rest -eq 0 && test $$spark_rc -eq 0

# a larger generated differential run than make test's: a new seed each time (printed), 2000 rows by default
differential-generated: up
	@seed=$${CW_DIFF_SEED:-$$RANDOM}; echo "CW_DIFF_SEED=$$seed"; \
	CW_DIFF_SEED=$$seed CW_DIFF_ROWS=$${CW_DIFF_ROWS:-2000} \
	$(PY) -m pytest -q tests/differential/test_broad_pg.py -k generated -p no:cacheprovider

# make test runs these with 6 kills each; here 100 (a bounded loop: each run stops by itself)
chaos: up
	CW_CHAOS_KILLS=$${CW_CHAOS_KILLS:-100} $(PY) -m pytest -q -s -p no:cacheprovider \
		tests/integration/postgres/test_chaos.py tests/integration/runtime/test_exactly_once.py

bench: up
	$(PY) -m pip install -q -e '.[dev,bench]'
	$(PY) -m benchmarks run

# docker-compose.yml on an engine of the project's own (state in .devstack/docker, stopped by PID), with the upstream
# images it names built locally from Debian packages (devstack/images.sh); see README "Containers"
compose-up: venv
	devstack/compose.sh up

compose-down:
	devstack/compose.sh down

# the stack from scratch, its tests, then down (volumes too) whatever the tests said
compose-test: venv
	@devstack/compose.sh down >/dev/null 2>&1 || true
	@status=0; devstack/spark.sh fetch && devstack/compose.sh up && $(PY) -m pytest -q -s -p no:cacheprovider $(COMPOSE_TESTS) || status=$$?; \
	devstack/compose.sh down || status=$$((status ? status : 1)); exit $$status

clean: down compose-down
	rm -rf .devstack $(VENV)
