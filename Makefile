# The two commands of the README: `make run` and `make test`. Both set everything up.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test install migrate lint typecheck check bench clean

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

migrate: install
	$(PY) manage.py migrate --noinput

run: migrate
	$(PY) manage.py seed_demo
	@echo ""
	@echo "  Virtual office: http://$(HOST):$(PORT)/   (log in as demo / demo)"
	@echo ""
	$(PY) -m config.serve -b $(HOST) -p $(PORT) --websocket_connect_timeout 20 config.asgi:application

# The suite in one worker process per CPU this shell may use (pytest-xdist; `nproc` heeds
# taskset), each with its own test database and its own names in Redis.
TEST_WORKERS ?= $(shell nproc 2>/dev/null || echo auto)

test: install
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: install
	$(VENV)/bin/mypy .

check: lint typecheck
	$(PY) manage.py makemigrations --check --dry-run

bench: install
	$(PY) bench/context.py
	$(PY) bench/memory.py
	$(PY) bench/mission_cpu.py
	$(PY) bench/retention.py --database both

clean:
	rm -rf $(VENV) db.sqlite3*
